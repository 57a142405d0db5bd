module unitconv

go 1.19
