import pkg.mod

print(pkg.mod.helper())
