from tabletop.cli import main

main()
