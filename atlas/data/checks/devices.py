"""Checks on a device that JSON Schema cannot express.

Each check returns (path, message) pairs. They catch the mistakes that slip
through review: a figure without a source, a TB/s value typed into a GB/s
field, a sparse number filed as dense, a dense figure larger than its sparse
twin.
"""

from __future__ import annotations

import datetime
import re

from atlas.data.checks.common import not_in_future

# Plausible ranges per memory technology: (capacity GiB min, max), (bandwidth GB/s min, max).
# Wide on purpose: they catch unit mix-ups (TB/s typed as GB/s, MiB as GiB), not outliers.
# The LPDDR floor admits one x32 LPDDR4X package, the memory of an M.2 accelerator module such as the Hailo-10H:
# Kingston's LPDDR4X parts are organised "x 32 bits" at "4266Mbps maximum" (Mouser, Kingston LPDDR4x Low-Power
# DRAMs, https://www.mouser.cn/new/kingston/kingston-lpddr4x-drams/), 4,266 Mb/s x 32 bits / 8 = 17.1 GB/s.
MEMORY_RANGES = {
    "HBM": ((4, 1024), (300, 50_000)),
    "GDDR": ((2, 128), (100, 4_000)),
    "LPDDR": ((1, 2_048), (10, 2_000)),
    "DDR": ((1, 24_576), (20, 2_000)),
    "SRAM": ((0.001, 100), (1_000, 100_000_000)),
}

# Expected ratio of a sparse (2:4) figure to its dense twin.
SPARSE_RATIO = (1.5, 2.5)

# A number as sources write it: 1,671 or 1671 or 835.5.
_NUMBER = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
# A figure the text quotes as a vendor's sparse one: '1,671 TFLOPS with sparsity', '"3,341 TOPS*" (with sparsity)'.
SPARSE_QUOTE = re.compile(
    _NUMBER + r"\s*(?:T?FLOP/s|T?FLOPS|TOPS|teraFLOPS)?[\s*)\"']*,?\s*\(?[\s*]*with sparsity",
    re.IGNORECASE,
)
# The rule a derived dense figure states: 'one half of the sparse 1,979 TFLOP/s', 'one half of the stated sparse 2,200'.
HALF_OF_SPARSE = re.compile(r"one half of the (?:stated )?sparse " + _NUMBER, re.IGNORECASE)


def parse_number(text: str) -> float:
    return float(text.replace(",", ""))


def close(a: float, b: float, rel: float = 0.005) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b))


def sparsity_problems(compute: list[dict]) -> list[tuple[tuple, str]]:
    """Dense figures that are really 'with sparsity' figures, and derived halves that are not half.

    The audit of issue 32 found dense figures copied from a vendor's sparse column. A sparse twin
    filed in the same file is caught by the ratio check; these rules catch what it cannot see:
    a dense figure equal to a number its own note or method quotes as a sparse one, and a dense
    figure derived as 'one half of the sparse N' that is not N / 2.
    """
    problems: list[tuple[tuple, str]] = []
    for i, entry in enumerate(compute):
        if entry["sparsity"] != "dense":
            continue
        value = entry["tflops"]
        for field in ("note",) if entry.get("origin") == "derived" else ("note", "method"):
            text = entry.get(field) or ""
            for match in SPARSE_QUOTE.finditer(text):
                quoted = parse_number(match.group(1))
                if close(value, quoted):
                    problems.append(
                        (
                            ("compute", i, "tflops"),
                            f"dense figure {value:g} equals the 'with sparsity' figure its {field} quotes "
                            f"({match.group(1)}); the dense rate is one half of it (file it as derived)",
                        )
                    )
        if entry.get("origin") == "derived":
            match = HALF_OF_SPARSE.search(entry.get("method") or "")
            if match and not close(value, parse_number(match.group(1)) / 2, rel=0.01):
                problems.append(
                    (
                        ("compute", i, "tflops"),
                        f"{value:g} is not one half of the sparse {match.group(1)} its method derives it from",
                    )
                )
    return problems


def estimate_problems(compute: list[dict]) -> list[tuple[tuple, str]]:
    """An estimate where the same file holds a stated figure of the same precision and unit.

    A stated figure of the same precision and unit (a sparse twin, another accumulate) usually
    gives the figure by a stated rule, so the figure is derived from it, not estimated from cores
    and clocks. An estimate may stand next to it only if its method names that figure, saying why
    it is not derived from it (e.g. the vendor does not say whether the figure counts sparsity).
    """
    problems: list[tuple[tuple, str]] = []
    for i, entry in enumerate(compute):
        if entry.get("origin") != "estimate":
            continue
        quoted = [parse_number(n) for n in re.findall(_NUMBER, entry.get("method") or "")]
        for j, other in enumerate(compute):
            if (
                j == i
                or other.get("origin", "stated") != "stated"
                or (other["precision"], other["unit"], other.get("component"))
                != (entry["precision"], entry["unit"], entry.get("component"))
            ):
                continue
            if not any(close(other["tflops"], q) for q in quoted):
                problems.append(
                    (
                        ("compute", i, "origin"),
                        f"is an estimate, but compute[{j}] states {other['precision']} {other['unit']} "
                        f"{other['sparsity']} {other['tflops']:g}; derive this figure from it, or name it in "
                        "'method' and say why it is not used",
                    )
                )
                break
    return problems


def runtime_name_key(name: str) -> str:
    """How a reported device name is compared with ``runtime_names``: case and repeated spaces ignored."""
    return " ".join(name.split()).casefold()


def figure_key(entry: dict) -> tuple:
    """What makes a compute figure unique: precision, unit, sparsity and accumulate (None when not stated)."""
    return (entry["precision"], entry["unit"], entry["sparsity"], entry.get("accumulate"))


# memory.type of an accelerator without memory of its own (capacity and bandwidth null; see the schema).
NO_MEMORY = "none"


def memory_family(memory_type: str) -> str | None:
    """'HBM3e' -> 'HBM', 'GDDR6X' -> 'GDDR', 'LPDDR5X' -> 'LPDDR', 'DDR5' -> 'DDR'."""
    upper = memory_type.upper()
    for family in ("LPDDR", "GDDR", "HBM", "DDR", "SRAM"):
        if upper.startswith(family):
            return family
    return None


def device_problems(device: dict, today: datetime.date | None = None) -> list[tuple[tuple, str]]:
    """Semantic problems of one schema-valid device."""
    today = today or datetime.date.today()
    problems: list[tuple[tuple, str]] = []
    sources = device.get("sources", {})

    # Every number-bearing block names a source that exists; every source is used.
    used = set()
    blocks = [((key,), device[key]) for key in ("memory", "power", "interconnect", "price") if key in device]
    blocks += [(("compute", i), entry) for i, entry in enumerate(device.get("compute", []))]
    memory_block = device.get("memory", {})
    if "gpu_share" in memory_block:
        blocks.append((("memory", "gpu_share"), memory_block["gpu_share"]))
    blocks += [
        (("memory", "configurations", j), config)
        for j, config in enumerate(memory_block.get("configurations", []))
        if "source" in config
    ]
    for path, block in blocks:
        ref = block.get("source")
        used.add(ref)
        if ref not in sources:
            known = ", ".join(sorted(sources)) or "none"
            problems.append((path + ("source",), f"names source '{ref}', which is not in 'sources' (known: {known})"))
    for key in sources:
        if key not in used:
            problems.append((("sources", key), "is listed but no value cites it; remove it or cite it"))

    # One figure per (precision, unit, sparsity, accumulate).
    seen = {}
    for i, entry in enumerate(device.get("compute", [])):
        key = figure_key(entry)
        if key in seen:
            label = "/".join(k for k in key if k)
            problems.append((("compute", i), f"repeats {label} already given at compute[{seen[key]}]"))
        else:
            seen[key] = i

    # Sparse figures are about twice their dense twin, never smaller.
    figures = {figure_key(e): e["tflops"] for e in device.get("compute", [])}
    for i, entry in enumerate(device.get("compute", [])):
        if entry["sparsity"] != "sparse":
            continue
        dense = figures.get((entry["precision"], entry["unit"], "dense", entry.get("accumulate")))
        if dense:
            ratio = entry["tflops"] / dense
            if not SPARSE_RATIO[0] <= ratio <= SPARSE_RATIO[1]:
                problems.append(
                    (
                        ("compute", i, "tflops"),
                        f"sparse figure is {ratio:.2f}x the dense one; expected about 2x "
                        "(is one of them filed with the wrong sparsity?)",
                    )
                )

    # Dense figures that are 'with sparsity' ones; estimates where a stated figure exists.
    problems += sparsity_problems(device.get("compute", []))
    problems += estimate_problems(device.get("compute", []))

    # Memory capacity and bandwidth in the range of their technology.
    memory = device.get("memory", {})
    family = memory_family(memory.get("type", ""))
    if family:
        (cap_lo, cap_hi), (bw_lo, bw_hi) = MEMORY_RANGES[family]
        cap = memory.get("capacity_gib")
        if cap is not None and not cap_lo <= cap <= cap_hi:
            problems.append(
                (
                    ("memory", "capacity_gib"),
                    f"{cap} GiB is implausible for {family} ({cap_lo}–{cap_hi} GiB); check the unit",
                )
            )
        bw = memory.get("bandwidth_gb_s")
        if bw is not None and not bw_lo <= bw <= bw_hi:
            problems.append(
                (
                    ("memory", "bandwidth_gb_s"),
                    f"{bw} GB/s is implausible for {family} ({bw_lo}–{bw_hi} GB/s); check the unit (GB/s, not TB/s)",
                )
            )
    elif memory.get("type") == NO_MEMORY:
        pass  # no capacity or bandwidth to check (the schema makes them null)
    elif memory.get("type"):
        problems.append(
            (
                ("memory", "type"),
                f"unknown memory technology '{memory['type']}' (expected HBM…, GDDR…, LPDDR…, DDR… or SRAM)",
            )
        )

    # The default memory size is one of the configurations the device is sold with.
    configurations = memory.get("configurations")
    if configurations and memory.get("capacity_gib") not in [c["capacity_gib"] for c in configurations]:
        sizes = ", ".join(f"{c['capacity_gib']:g}" for c in configurations)
        problems.append(
            (("memory", "capacity_gib"), f"{memory['capacity_gib']:g} GiB is not one of the configurations ({sizes} GiB)")
        )
    if family:
        for j, config in enumerate(configurations or []):
            cap, bw = config["capacity_gib"], config.get("bandwidth_gb_s")
            if not cap_lo <= cap <= cap_hi:
                problems.append((("memory", "configurations", j, "capacity_gib"), f"{cap} GiB is implausible for {family}"))
            if bw is not None and not bw_lo <= bw <= bw_hi:
                problems.append((("memory", "configurations", j, "bandwidth_gb_s"), f"{bw} GB/s is implausible for {family}"))
    share = memory.get("gpu_share")
    if share and "max_share" in share and share["max_share"] < share["default_share"]:
        problems.append((("memory", "gpu_share", "max_share"), "is below default_share"))

    # Dates are not in the future.
    launch_date = device.get("launch_date")
    if launch_date and int(launch_date[:4]) != device.get("launch_year"):
        problems.append((("launch_date",), f"year of {launch_date} differs from launch_year {device.get('launch_year')}"))
    if device.get("launch_year", 0) > today.year + 1:
        problems.append((("launch_year",), f"{device['launch_year']} is more than a year ahead"))
    price = device.get("price")
    if price and not not_in_future(price["as_of"], today):
        problems.append((("price", "as_of"), f"{price['as_of']} is in the future"))
    if price and ("usd_high" in price) != (price["kind"] == "street-range"):
        problems.append((("price", "usd_high"), "is given exactly when kind is street-range"))
    elif price and "usd_high" in price and price["usd_high"] <= price["usd"]:
        problems.append((("price", "usd_high"), f"must be above usd ({price['usd']})"))
    for key, source in sources.items():
        if isinstance(source, dict) and "accessed" in source and not not_in_future(source["accessed"], today):
            problems.append((("sources", key, "accessed"), f"{source['accessed']} is not a past date"))
    return problems
