import FarmCLI

FarmProgram.main()
