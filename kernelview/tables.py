"""The two-column table of figures each demo shows: quantity, value."""

from __future__ import annotations

import l10n
from calcview.markup import el, text
from calcview.results import value


def row(label: str, path: str, raw, shown: str) -> str:
    """One figure: its label, and its value in ``data-result=path`` with the raw ``data-value``."""
    return el("tr", el("th", text(label), scope="row") + value("td", path, raw, shown))


def figures_table(rows: list[str], lang: str) -> str:
    """The rows under a "Quantity | Value" header."""
    head = el("thead", el("tr", el("th", text(l10n.t(lang, "kdemo.col.quantity")), scope="col")
                       + el("th", text(l10n.t(lang, "kdemo.col.value")), scope="col")))
    return el("table", head + el("tbody", "".join(rows)))
