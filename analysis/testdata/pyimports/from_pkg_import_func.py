from dataclasses import dataclass

from pkg import func


@dataclass
class Result:
    value: int = func()
