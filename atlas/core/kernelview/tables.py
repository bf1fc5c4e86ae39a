"""The two-column table of figures each demo shows: quantity, value."""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.calcview.markup import el, text
from atlas.core.calcview.results import value


def row(label: str, path: str, raw, shown: str) -> str:
    """One figure: its label, and its value in ``data-result=path`` with the raw ``data-value``."""
    return el("tr", el("th", text(label), scope="row") + value("td", path, raw, shown))


def figures_table(rows: list[str], lang: str) -> str:
    """The rows under a "Quantity | Value" header."""
    head = el("thead", el("tr", el("th", text(l10n.t(lang, "kdemo.col.quantity")), scope="col")
                       + el("th", text(l10n.t(lang, "kdemo.col.value")), scope="col")))
    return el("table", head + el("tbody", "".join(rows)))
