import pkg

print(pkg.func())
