from . import mod
from .mod import helper


def use():
    return helper() + mod.helper()
