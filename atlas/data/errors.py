"""Errors in data files, each pointing at file, line, entry and field."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class DataError:
    """One problem in one data file, printed as one line a contributor can act on.

    ``file`` is relative to the repository root, ``line`` 1-based, ``entry``
    the id of the device/model/measurement (None when the file has no usable
    id), ``field`` the dotted path of the value (None for the whole file).
    """

    file: str
    line: int
    entry: str | None
    field: str | None
    message: str
    entry_kind: str = "entry"

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}"
        what = []
        if self.entry:
            what.append(f"{self.entry_kind} '{self.entry}'")
        if self.field:
            what.append(f"field '{self.field}'")
        prefix = f"{where}: {', '.join(what)}: " if what else f"{where}: "
        return prefix + self.message


class DataValidationError(Exception):
    """Raised when the data set has errors; ``errors`` holds every one found."""

    def __init__(self, errors: list[DataError]):
        self.errors = sorted(errors)
        count = len(self.errors)
        head = f"{count} error{'s' if count != 1 else ''} in the data set:"
        super().__init__("\n".join([head] + [f"  {e}" for e in self.errors]))


def dotted(path) -> str:
    """("compute", 2, "tflops") -> "compute[2].tflops"."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out
