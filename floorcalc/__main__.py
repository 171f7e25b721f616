from floorcalc.cli import console

console()
