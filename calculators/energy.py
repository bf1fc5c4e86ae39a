"""Energy and its cost: one formula for the speed estimator and the pages' worked examples.

Units are in the names: ``_w`` = watts, ``hours``, ``_kwh`` = kilowatt-hours;
a price per kWh gives a cost in the same currency. Bad input (not a number,
not finite, not positive) raises ``ValueError`` naming the argument.
Standard library only.
"""

from __future__ import annotations

from calculators.checks import positive

HOURS_PER_YEAR = 24 * 365  # 8,760 h; leap years are ignored on purpose


def energy_kwh(power_w: float, hours: float) -> float:
    """Energy in kWh of ``power_w`` watts drawn for ``hours`` hours."""
    return positive("power_w", power_w) * positive("hours", hours) / 1000


def energy_cost(kwh: float, price_per_kwh: float) -> float:
    """Cost of ``kwh`` kilowatt-hours at ``price_per_kwh`` (same currency out as in)."""
    return positive("kwh", kwh) * positive("price_per_kwh", price_per_kwh)
