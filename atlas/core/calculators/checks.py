"""Argument checks for the formula modules (``roofline``, ``energy``): a value that is
not a finite number, or out of range, raises ``ValueError`` naming the argument, so a
formula never returns NaN or infinity. Standard library only."""

from __future__ import annotations

import math


def _number(value) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def positive(name: str, value):
    """``value`` unchanged if it is a finite number above 0, else ``ValueError``."""
    if not (_number(value) and value > 0):
        raise ValueError(f"{name} must be a positive number; got {value!r}")
    return value


def non_negative(name: str, value):
    """``value`` unchanged if it is a finite number of at least 0, else ``ValueError``."""
    if not (_number(value) and value >= 0):
        raise ValueError(f"{name} must be a non-negative number; got {value!r}")
    return value
