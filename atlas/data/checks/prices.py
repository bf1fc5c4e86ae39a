"""Checks on a price list (``data/prices/``) that JSON Schema cannot express.

A price file is one dated list or announcement: launch MSRPs, a vendor's list
price, a range the press reported, or an on-demand cloud price list. Prices
live apart from the device specifications so that a new price never touches
a specification.

``price_problems`` checks one file on its own: the month the prices were
stated is not in the future, every source key used is defined and every
defined source is used, ``usd_high`` appears only in a street range and lies
above ``usd``, ``unit_count`` is at least 1 (and one whose count comes from another
page says so with ``unit_count_source``), and a cloud list names its
provider and region. ``price_references`` (a cross check) checks that every
priced device exists in ``data/hardware/`` and that a stated memory size is
one the device is sold with.
"""

from __future__ import annotations

import datetime
import difflib

from atlas.data.checks.common import not_in_future

CLOUD = "cloud-per-hour"
RANGE = "street-range"


def per_device_usd(price: dict) -> float:
    """US dollars per device: the quoted price divided by the devices it covers."""
    return price["usd"] / price.get("unit_count", 1)


def price_problems(entry: dict, today: datetime.date | None = None) -> list[tuple[tuple, str]]:
    """Problems of one schema-valid price file on its own."""
    today = today or datetime.date.today()
    problems = []
    kind = entry["kind"]
    if not not_in_future(entry["as_of"], today):
        problems.append((("as_of",), f"{entry['as_of']} is in the future; give the month the price was stated"))
    sources = entry.get("sources", {})
    for key, source in sources.items():
        if not not_in_future(source["accessed"], today):
            problems.append((("sources", key, "accessed"), f"{source['accessed']} is not a past date"))
    refs = [(("source",), entry["source"])]
    for i, price in enumerate(entry["prices"]):
        for key in ("source", "unit_count_source"):
            if key in price:
                refs.append((("prices", i, key), price[key]))
    used = {ref for _, ref in refs}
    for path, ref in refs:
        if ref not in sources:
            known = ", ".join(sorted(sources)) or "none"
            problems.append((path, f"names source '{ref}', which is not in 'sources' (known: {known})"))
    for key in sources:
        if key not in used:
            problems.append((("sources", key), "is listed but the file does not cite it; remove it or cite it"))
    if kind == CLOUD:
        for key in ("provider", "region"):
            if key not in entry:
                problems.append(((), f"a cloud-per-hour list needs '{key}'"))
    seen = {}
    for i, price in enumerate(entry["prices"]):
        if "usd_high" in price:
            if kind != RANGE:
                problems.append((("prices", i, "usd_high"), f"only a street-range has usd_high (this list is {kind})"))
            elif price["usd_high"] <= price["usd"]:
                problems.append(
                    (("prices", i, "usd_high"), f"{price['usd_high']:g} must be above usd ({price['usd']:g})")
                )
        if price.get("unit_count", 1) < 1:
            problems.append((("prices", i, "unit_count"), "must be at least 1"))
        if "unit_count_source" in price and "unit_count" not in price:
            problems.append((("prices", i, "unit_count_source"), "names the source of a unit_count that is not given"))
        key = (price["device"], price.get("instance"), price.get("memory_gib"), price.get("unit_count", 1))
        if key in seen:
            problems.append(
                (("prices", i), f"repeats prices[{seen[key]}] (same device, instance, memory and unit count)")
            )
        seen.setdefault(key, i)
    return problems


def memory_sizes(device: dict) -> list:
    """The memory capacities (GiB) a device is sold with: its configurations, else its one capacity."""
    memory = device["memory"]
    return [c["capacity_gib"] for c in memory.get("configurations", [])] or [memory["capacity_gib"]]


def reference_problems(entry: dict, devices: dict) -> list[tuple[tuple, str]]:
    """Problems of one price file against the devices: the id exists, a memory size is one it is sold with."""
    problems = []
    for i, price in enumerate(entry["prices"]):
        device = devices.get(price["device"])
        if device is None:
            close = difflib.get_close_matches(price["device"], list(devices), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            problems.append((("prices", i, "device"), f"unknown device '{price['device']}'{hint}"))
        elif "memory_gib" in price and price["memory_gib"] not in memory_sizes(device):
            sizes = ", ".join(f"{s:g}" for s in memory_sizes(device))
            problems.append(
                (
                    ("prices", i, "memory_gib"),
                    f"{price['memory_gib']:g} GiB is not a memory size of '{price['device']}' (sizes: {sizes})",
                )
            )
    return problems


def price_references(dataset) -> list:
    """DataErrors of every price naming a device that is not in ``data/hardware/``."""
    return [
        dataset.error("prices", entry_id, path, message)
        for entry_id, entry in dataset.prices.items()
        for path, message in reference_problems(entry, dataset.devices)
    ]


def prices_by_device(prices: dict) -> dict:
    """{device id: [(price file id, price entry), ...]} over every price file, in file order."""
    out: dict = {}
    for entry_id, entry in prices.items():
        for price in entry["prices"]:
            out.setdefault(price["device"], []).append((entry_id, price))
    return out
