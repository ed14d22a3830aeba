from pkg import mod

print(mod.helper())
