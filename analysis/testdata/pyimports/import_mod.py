import mod

print(mod)
