"""Numbers as a reader sees them, in the page's language (``l10n`` formats them).

Every function takes plain values in the units their names say and returns
text; none ever returns ``nan`` or ``inf`` (``l10n`` refuses them).
"""

from __future__ import annotations

import re

from atlas.core import l10n


def significant(value: float, lang: str, digits: int = 3) -> str:
    """``value`` with about ``digits`` significant digits, grouped for ``lang``."""
    return l10n.format_significant(value, lang, digits)


def gib(value: float, lang: str) -> str:
    """A size in GiB (2^30 bytes) with two decimals: 37.12."""
    return l10n.format_number(value, lang, 2, trim=False)


# (upper limit in seconds, divisor, unit key) from small to large
_DURATIONS = (
    (1e-3, 1e-6, "calc.unit.us"),
    (1.0, 1e-3, "calc.unit.ms"),
    (120.0, 1.0, "calc.unit.s"),
    (7200.0, 60.0, "calc.unit.min"),
    (172800.0, 3600.0, "calc.unit.h"),
    (None, 86400.0, "calc.unit.d"),
)


def duration(seconds: float, lang: str) -> str:
    """A time with a fitting unit: ``12.3 ms``, ``4.5 h``, ``3.2 d`` (3 significant digits)."""
    for limit, divisor, key in _DURATIONS:
        if limit is None or abs(seconds) < limit:
            return f"{significant(seconds / divisor, lang)}\u00a0{l10n.t(lang, key)}"  # no-break space
    raise AssertionError("unreachable")


def field_value(value, lang: str) -> str:
    """A parameter value as typed into a form field: no grouping, the language's decimal sign."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        if text.endswith(".0"):
            text = text[:-2]
        if re.fullmatch(r"[+-]?[1-9]\d{0,2}\.\d{3}", text):
            text += "0"  # "12.188" reads as twelve thousand in German: a field refuses it, "12.1880" it takes
        return text.replace(".", ",") if lang == "de" else text
    return str(value)


def typed_decimal(value: float, lang: str, decimals: int = 3) -> str:
    """A decimal as a reader of ``lang`` types it into a form field, so the field reads it back: grouped, with
    the language's decimal sign (1,234.5 / 1.234,5), at most ``decimals`` fraction digits. A number the
    field would refuse as ambiguous ("12.247" is twelve thousand in German) takes one fraction digit fewer."""
    from atlas.core.calculators.inputs import parse_number

    for places in range(decimals, -1, -1):
        shown = l10n.format_number(value, lang, places)
        try:
            parse_number(shown, integer=False)
        except ValueError:  # AmbiguousNumber among them
            continue
        return shown
    raise AssertionError(f"no field text for {value!r}")  # a whole number is never ambiguous


_SI_PREFIXES = ((1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def si(value: float, lang: str, unit: str, digits: int = 3) -> str:
    """A large count with a decimal SI prefix: 1.52e11 FLOP -> ``152 GFLOP``, 1.61e10 B -> ``16.1 GB``."""
    for factor, prefix in _SI_PREFIXES:
        if abs(value) >= factor:
            return f"{significant(value / factor, lang, digits)}\u00a0{prefix}{unit}"
    return f"{significant(value, lang, digits)}\u00a0{unit}"
