"""A package: its __init__.py, two modules and the files around it that import them."""

from . import mod


def func():
    return mod.helper()
