"""Macros for the decision guide's worked examples: energy, its cost and dated prices.

Thin wrappers: the arithmetic is the estimators' (``atlas.core.calculators.energy``, the
formula the speed calculator's training energy uses), the prices live in
``atlas.data.reference_prices`` and ``atlas.data.prices``; every number is formatted
for the page's language and every string is escaped.

- ``energy_per_year(device_id, hours_per_day=24)`` — kWh at TDP.
- ``energy_cost_per_year(device_id, price, hours_per_day=24)`` — in euros.
- ``electricity_price(price)`` — the stored price with its source as tooltip.
- ``price_table()`` — every device with a dated price.
"""

from __future__ import annotations

from html import escape

from atlas.core import l10n
from atlas.core.calculators.energy import HOURS_PER_YEAR, energy_cost, energy_kwh
from atlas.core.calculators.fields import field_number
from atlas.data import prices
from atlas.data.reference_prices import electricity_price as lookup_price


def yearly_kwh(device: dict, hours_per_day: float) -> float:
    """kWh per year of a device drawing its TDP for ``hours_per_day`` hours a day."""
    if not 0 < hours_per_day <= 24:
        raise ValueError(f"hours_per_day must be in (0, 24]; got {hours_per_day!r}")
    return energy_kwh(field_number(device, "tdp"), HOURS_PER_YEAR * hours_per_day / 24)


def euros(amount: float, lang: str) -> str:
    return l10n.t(lang, "money.eur", amount=l10n.format_number(amount, lang, 0))


def price_span(key: str, lang: str) -> str:
    price = lookup_price(key)
    text = f"{l10n.format_number(price.eur_per_kwh, lang, 3)}\u00a0{l10n.t(lang, 'unit.eur_per_kwh')}"
    title = l10n.t(
        lang, "electricity.title", region=l10n.t(lang, price.region_key), period=price.period, title=price.source_title
    )
    return f'<span class="atlas-spec" title="{escape(title)}">{escape(text)}</span>'


def register(env, ctx):
    @env.macro
    def energy_per_year(device_id, hours_per_day=24):
        """Energy per year at TDP, in kWh, e.g. '6,132 kWh'."""
        kwh = yearly_kwh(ctx.dataset.device(device_id), hours_per_day)
        return escape(f"{l10n.format_number(kwh, ctx.lang(), 0)}\u00a0{l10n.t(ctx.lang(), 'unit.kwh')}")

    @env.macro
    def energy_cost_per_year(device_id, price, hours_per_day=24):
        """Electricity cost per year at TDP and a stored price, in euros."""
        kwh = yearly_kwh(ctx.dataset.device(device_id), hours_per_day)
        return escape(euros(energy_cost(kwh, lookup_price(price).eur_per_kwh), ctx.lang()))

    @env.macro
    def electricity_price(price):
        """A stored electricity price with region, period and source as tooltip."""
        return price_span(price, ctx.lang())

    @env.macro
    def hours_per_year():
        """8,760 in the page's number format."""
        return escape(l10n.format_number(HOURS_PER_YEAR, ctx.lang(), 0))

    @env.macro
    def price_table():
        """Every device with a dated price: its newest purchase price and its median cloud price, with sources."""
        return prices.price_table(ctx.catalog().prices, ctx.dataset.devices, ctx.lang())
