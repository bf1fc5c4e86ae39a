"""Localisation shared by the build, the command line and the browser.

Standard library only: this package is shipped to Pyodide together with
``calculators`` and ``charts``. It holds the one translation table per language
and the number formatting rules for each language. A language's table is
stored by area (``en/site.json``, ``en/calculators.json``, ...) and merged on
load; a key defined in two files of one language is an error.

Number formatting follows CLDR as Babel implements it (tests compare the two):
English ``3,350.5``, German ``3.350,5``.
"""

from __future__ import annotations

import json
import math
from decimal import ROUND_HALF_EVEN, Context, Decimal
from functools import cache
from pathlib import Path

LANGUAGES = ("en", "de")
DEFAULT_LANGUAGE = "en"

# CLDR symbols for the languages the site ships (Babel: Locale(l).number_symbols["latn"]).
_SYMBOLS = {
    "en": {"group": ",", "decimal": ".", "minus": "-"},
    "de": {"group": ".", "decimal": ",", "minus": "-"},
}

_HERE = Path(__file__).resolve().parent


def check_language(lang: str) -> str:
    """Return ``lang`` if the site ships it, else raise ``ValueError``."""
    if lang not in LANGUAGES:
        raise ValueError(f"unsupported language {lang!r}; expected one of {', '.join(LANGUAGES)}")
    return lang


def table_files(lang: str) -> list[Path]:
    """The JSON files that together form the table of ``lang``, in name order."""
    return sorted((_HERE / check_language(lang)).glob("*.json"))


@cache
def labels(lang: str) -> dict:
    """The flat translation table of ``lang`` (key -> text)."""
    table: dict = {}
    for path in table_files(lang):
        with open(path, encoding="utf-8") as fh:
            part = json.load(fh)
        twice = sorted(set(table) & set(part))
        if twice:
            raise ValueError(f"{path.name}: keys already defined in another {lang} file: {', '.join(twice)}")
        table.update(part)
    return table


def t(lang: str, key: str, **params) -> str:
    """Translate ``key`` into ``lang`` and fill ``{name}`` placeholders.

    A missing key raises ``KeyError``: the tests keep both tables complete, so
    a missing key is a bug, never a silent English fallback.
    """
    text = labels(lang)[key]
    return text.format(**params) if params else text


def format_number(value: float, lang: str, decimals: int = 1, *, trim: bool = True) -> str:
    """Format ``value`` with the grouping and decimal symbols of ``lang``.

    ``decimals`` is the maximum number of fraction digits (rounded half to
    even, as Babel does); with ``trim`` trailing zeros are dropped, so
    ``format_number(80.0, "en")`` gives ``"80"`` and ``3350.5`` gives
    ``"3,350.5"`` (``"3.350,5"`` in German). Raises ``ValueError`` for NaN
    and infinities: they must never reach a page.
    """
    check_language(lang)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"not a number: {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"cannot format non-finite number {value!r}")
    sym = _SYMBOLS[lang]
    quantum = Decimal(1).scaleb(-decimals)
    exact = Decimal(repr(float(value)))
    # Enough digits for the whole part plus the decimals: Decimal's default 28 fails from 1e28 on.
    context = Context(prec=max(28, exact.adjusted() + decimals + 2))
    rounded = exact.quantize(quantum, rounding=ROUND_HALF_EVEN, context=context)
    whole, _, frac = f"{abs(rounded):f}".partition(".")
    if trim:
        frac = frac.rstrip("0")
    groups = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    out = sym["group"].join(groups)
    if frac:
        out += sym["decimal"] + frac
    return (sym["minus"] if rounded < 0 else "") + out


def format_month(iso_month: str, lang: str) -> str:
    """A month given as ``YYYY-MM`` (the data set's ``as_of``) in words: "November 2022" in
    English, "November 2022" / "März 2025" in German; ISO dates do not belong in running text."""
    year, _, month = iso_month.partition("-")
    if not (len(year) == 4 and year.isdigit() and month.isdigit() and 1 <= int(month) <= 12 and len(month) == 2):
        raise ValueError(f"not a month (YYYY-MM): {iso_month!r}")
    return f"{t(lang, f'month.{int(month)}')} {year}"


def format_significant(value: float, lang: str, digits: int = 3) -> str:
    """Format ``value`` with about ``digits`` significant digits (at least the
    whole number part): 1978.9 -> "1,979", 3.35 -> "3.35", 0.0412 -> "0.0412"."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"not a number: {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"cannot format non-finite number {value!r}")
    if value == 0:
        return format_number(0, lang, 0)
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    return format_number(value, lang, decimals)


def format_rounded(value: float, lang: str, digits: int = 3) -> str:
    """``value`` rounded to ``digits`` significant digits, the whole number part included, for
    figures derived in running text: 58,958 -> "59,000" with 2 digits, 1978.9 -> "1,980" with 3,
    3.35 -> "3.35" (``format_significant`` keeps the whole part: "58,958", "1,979")."""
    if not isinstance(value, bool) and isinstance(value, (int, float)) and value and math.isfinite(value):
        value = round(value, digits - 1 - math.floor(math.log10(abs(value))))
    return format_significant(value, lang, digits)
