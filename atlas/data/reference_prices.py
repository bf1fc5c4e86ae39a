"""Electricity prices used in the worked cost examples, each with its source.

Not hardware figures (those live in ``data/``), but they follow the same
rule: one place, a primary source, a date, and the unit in the name
(``eur_per_kwh`` = euros per kilowatt-hour, excluding VAT and other
recoverable taxes, as Eurostat publishes non-household prices).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ElectricityPrice:
    """One published electricity price: value, currency, period and source."""

    key: str
    eur_per_kwh: float
    period: str  # e.g. "2023-H2"
    region_key: str  # translation key of the region label
    source_url: str
    source_title: str


_EUROSTAT = (
    "https://ec.europa.eu/eurostat/statistics-explained/index.php?title=Electricity_price_statistics&oldid=412280"
)
_EUROSTAT_TITLE = "Eurostat, Electricity price statistics (data extracted April 2024)"

ELECTRICITY_PRICES: dict[str, ElectricityPrice] = {
    p.key: p
    for p in (
        # "Non-household electricity prices in the EU were highest in Cyprus (€0.276 per KWh)
        #  and lowest in Finland (€0.089 per KWh) in the second half of 2023."
        ElectricityPrice("eu-nonhousehold-low-2023h2", 0.089, "2023-H2", "region.finland", _EUROSTAT, _EUROSTAT_TITLE),
        ElectricityPrice("eu-nonhousehold-high-2023h2", 0.276, "2023-H2", "region.cyprus", _EUROSTAT, _EUROSTAT_TITLE),
    )
}


def electricity_price(key: str) -> ElectricityPrice:
    """The price stored under ``key``; ``KeyError`` naming the known keys otherwise."""
    try:
        return ELECTRICITY_PRICES[key]
    except KeyError:
        raise KeyError(f"unknown electricity price {key!r}; known: {', '.join(ELECTRICITY_PRICES)}") from None
