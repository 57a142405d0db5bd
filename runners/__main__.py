from runners.entry import main

main()
