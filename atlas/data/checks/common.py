"""Checks that apply to every data file, whatever it describes."""

from __future__ import annotations

import datetime
import re

# A tag opening ("<script", "</b", "<!--", "<?xml") or a script URL. A plain
# "<" followed by a space or digit ("< 5 %") stays allowed.
_MARKUP = re.compile(r"<\s*[A-Za-z/!?]|javascript:|data:text/html|\bon[a-z]+\s*=", re.IGNORECASE)
# What a spreadsheet runs as a formula when a CSV cell starts with it (the downloads are CSV).
_FORMULA = re.compile(r"^\s*[=+@]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


def iter_strings(value, path=()):
    """Yield (path, string) for every string (and mapping key) inside ``value``."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                yield path + (key,), key
            yield from iter_strings(item, path + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from iter_strings(item, path + (i,))


def text_problems(data) -> list[tuple[tuple, str]]:
    """Strings that look like markup or hide control characters.

    Pages escape every string anyway; refusing them here keeps the data set
    readable and makes an injection attempt fail loudly in review.
    """
    problems = []
    for path, text in iter_strings(data):
        if _MARKUP.search(text):
            problems.append((path, "contains markup or a script URL; write plain text"))
        elif _CONTROL.search(text):
            problems.append((path, "contains control or bidirectional-override characters"))
        elif _FORMULA.match(text):
            problems.append((path, f"starts with {text.strip()[0]!r}, which spreadsheets run as a formula; reword it"))
    return problems


def not_in_future(text: str, today: datetime.date) -> bool:
    """True if an ISO date 'YYYY-MM-DD' or month 'YYYY-MM' is not after ``today``."""
    parts = [int(p) for p in text.split("-")]
    if len(parts) == 2:
        return (parts[0], parts[1]) <= (today.year, today.month)
    try:
        return datetime.date(*parts) <= today
    except ValueError:
        return False
