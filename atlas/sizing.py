"""Sizing figures for worked examples: devices needed, energy and its cost.

Each function takes plain values (or a device dict from the data set) and
returns a plain number; the macros format it for the page's language. The
units are in the names: ``_gib`` = 2^30 bytes, ``_w`` = watts,
``_kwh`` = kilowatt-hours. (Roofline figures such as the critical arithmetic
intensity live in ``atlas.derived``.)

- ``devices_to_hold``: how many devices it takes for a given number of bytes
  to fit into their memory (e.g. an SRAM-only chip holding model weights).
- ``energy_kwh`` and ``energy_cost``: energy of a device running at its TDP
  for a number of hours, and what that energy costs at a given price.
"""

from __future__ import annotations

import math

from atlas.fields import field_value

GIB = 2**30  # bytes
HOURS_PER_YEAR = 24 * 365  # 8,760 h; leap years are ignored on purpose


def _positive(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number; got {value!r}")
    return float(value)


def device_figure(device: dict, field: str) -> float:
    """The raw numeric value of ``field`` for ``device``; ``ValueError`` if it is not stated."""
    value = field_value(device, field)
    if value is None or isinstance(value.value, (tuple, str, list)):
        raise ValueError(f"device {device['id']!r} states no single number for {field!r}")
    return float(value.value)


def devices_to_hold(total_bytes: float, capacity_gib: float) -> int:
    """Smallest number of devices with ``capacity_gib`` each whose memory holds ``total_bytes``.

    Only capacity is counted: no room is left for activations, KV cache or
    runtime buffers, so the real number is at least this one.
    """
    return math.ceil(_positive("total_bytes", total_bytes) / (_positive("capacity_gib", capacity_gib) * GIB))


def energy_kwh(power_w: float, hours: float) -> float:
    """Energy in kWh of ``power_w`` watts drawn for ``hours`` hours."""
    return _positive("power_w", power_w) * _positive("hours", hours) / 1000


def energy_cost(kwh: float, price_per_kwh: float) -> float:
    """Cost of ``kwh`` kilowatt-hours at ``price_per_kwh`` (same currency out as in)."""
    return _positive("kwh", kwh) * _positive("price_per_kwh", price_per_kwh)
