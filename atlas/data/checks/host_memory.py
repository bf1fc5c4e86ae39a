"""Checks on a host-memory entry that JSON Schema cannot express.

Each check returns (path, message) pairs: a source key that does not exist or
is never cited, a peak bandwidth that does not follow from the bus width and
the transfer rate, a channel count that does not fit the bus, a typical size
above the stated maximum.
"""

from __future__ import annotations

import datetime

from atlas.data.checks.common import not_in_future

# How far a filed bandwidth may sit from bus bytes x transfer rate (vendors round: 460.8 vs 460.80, 136.5 vs 136.53).
BANDWIDTH_TOLERANCE = 0.01


def _refs(value) -> list:
    return value if isinstance(value, list) else [value]


def peak_bandwidth_gb_s(entry: dict) -> float:
    """Theoretical peak: bus width in bytes x transfer rate (MT/s), in GB/s."""
    return entry["bus_width_bits"] / 8 * entry["transfer_rate_mt_s"] / 1000


def host_memory_problems(entry: dict, today: datetime.date | None = None) -> list[tuple[tuple, str]]:
    """Semantic problems of one schema-valid host-memory entry."""
    today = today or datetime.date.today()
    problems: list[tuple[tuple, str]] = []
    sources = entry.get("sources", {})

    cited = [(("source",) if not isinstance(entry["source"], list) else ("source", i), ref)
             for i, ref in enumerate(_refs(entry["source"]))]
    if "bandwidth_source" in entry:
        cited.append((("bandwidth_source",), entry["bandwidth_source"]))
    cited.append((("capacity", "source"), entry["capacity"]["source"]))
    for path, ref in cited:
        if ref not in sources:
            known = ", ".join(sorted(sources)) or "none"
            problems.append((path, f"names source '{ref}', which is not in 'sources' (known: {known})"))
    used = {ref for _, ref in cited}
    for key in sources:
        if key not in used:
            problems.append((("sources", key), "is listed but no value cites it; remove it or cite it"))

    origin = entry.get("origin", "stated")
    if origin == "stated" and "bandwidth_source" not in entry:
        problems.append((("bandwidth_source",), "a stated bandwidth names the document that states it"))

    peak = peak_bandwidth_gb_s(entry)
    if abs(entry["bandwidth_gb_s"] - peak) > BANDWIDTH_TOLERANCE * peak:
        problems.append(
            (
                ("bandwidth_gb_s",),
                f"{entry['bandwidth_gb_s']} GB/s differs from bus width x transfer rate "
                f"({entry['bus_width_bits']} bits / 8 x {entry['transfer_rate_mt_s']} MT/s = {peak:.1f} GB/s)",
            )
        )
    if entry["bus_width_bits"] % entry["channels"]:
        problems.append((("bus_width_bits",), f"{entry['bus_width_bits']} bits do not split into {entry['channels']} equal channels"))
    if entry["memory_type"].upper().startswith("DDR") and entry["bus_width_bits"] != 64 * entry["channels"]:
        problems.append((("bus_width_bits",), "a DDR4/DDR5 channel is 64 bits wide (without ECC)"))

    sizes = entry["typical_capacity_gib"]
    if sizes != sorted(sizes):
        problems.append((("typical_capacity_gib",), "list the sizes smallest first"))
    top = entry["capacity"].get("max_gib")
    if top is not None and max(sizes) > top:
        problems.append((("typical_capacity_gib",), f"{max(sizes):g} GiB is above the stated maximum of {top:g} GiB"))

    for key, source in sources.items():
        if not not_in_future(source["accessed"], today):
            problems.append((("sources", key, "accessed"), f"{source['accessed']} is not a past date"))
    return problems
