module hiddentests

go 1.19
