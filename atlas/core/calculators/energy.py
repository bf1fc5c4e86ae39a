"""Energy and its cost: one formula for the speed estimator and the pages' worked examples.

Units are in the names: ``_w`` = watts, ``hours``, ``_kwh`` = kilowatt-hours,
``joules``; a price per kWh gives a cost in the same currency. Bad input (not a number,
not finite, not positive) raises ``ValueError`` naming the argument.
Standard library only.
"""

from __future__ import annotations

from atlas.core.calculators.checks import positive

HOURS_PER_YEAR = 24 * 365  # 8,760 h; leap years are ignored on purpose


def energy_kwh(power_w: float, hours: float) -> float:
    """Energy in kWh of ``power_w`` watts drawn for ``hours`` hours."""
    return positive("power_w", power_w) * positive("hours", hours) / 1000


def energy_cost(kwh: float, price_per_kwh: float) -> float:
    """Cost of ``kwh`` kilowatt-hours at ``price_per_kwh`` (same currency out as in)."""
    return positive("kwh", kwh) * positive("price_per_kwh", price_per_kwh)


JOULES_PER_KWH = 3.6e6


def per_token(power_w: float, tokens_per_s: float, price_per_kwh: float | None = None) -> dict:
    """Energy per generated (or prefilled) token when ``power_w`` watts deliver ``tokens_per_s`` tokens per
    second — all sequences' tokens together, so a batch shares the power: ``joules_per_token`` (= W / tokens/s),
    ``kwh_per_million_tokens`` (the hours a million tokens take, through ``energy_kwh``) and, with a price per
    kWh, ``cost_per_million_tokens`` in that price's currency (None without a price; 0 at a price of 0)."""
    hours = 1e6 / positive("tokens_per_s", tokens_per_s) / 3600
    kwh = energy_kwh(power_w, hours)
    cost = None
    if price_per_kwh is not None:
        cost = energy_cost(kwh, price_per_kwh) if price_per_kwh > 0 else 0.0
    return {"joules_per_token": power_w / tokens_per_s, "kwh_per_million_tokens": kwh,
            "cost_per_million_tokens": cost}
