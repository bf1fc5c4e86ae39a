"""What a token costs: a price per device-hour, and the cost per million tokens it gives.

The hourly cost comes from, in this order:

1. ``price_per_hour`` given by the reader (``basis: "given"``);
2. a purchase price (``purchase_usd`` given, or the device's launch, list or
   reported price from the data set) amortised over ``amortisation_years`` of
   round-the-clock use, plus electricity at the device's TDP when
   ``electricity_usd_per_kwh`` is given (``basis: "purchase"``) — when the
   reader names no purchase price and the device has a cloud price, the cloud
   price is preferred;
3. the device's on-demand cloud prices in the data set: the median over the
   newest price of each provider (``basis: "cloud"``), with the range.

cost per million tokens = US$ per hour ÷ (tokens per second × 3,600) × 10^6,
for ``num_devices`` devices. Plain values in, plain values out; standard
library only. Prices are US$; nothing is converted.
"""

from __future__ import annotations

import statistics

from atlas.core.calculators.energy import HOURS_PER_YEAR, energy_kwh

PURCHASE_KINDS = ("launch-msrp", "list", "street-range")


def cloud_prices(prices: list[dict]) -> list[dict]:
    """The newest on-demand price of each provider (per device-hour)."""
    newest: dict[str, dict] = {}
    for p in prices:
        if p["kind"] != "cloud-per-hour":
            continue
        key = p.get("provider") or p.get("list") or "?"
        if key not in newest or p["as_of"] > newest[key]["as_of"]:
            newest[key] = p
    return sorted(newest.values(), key=lambda p: p["usd"])


def cloud_median(prices: list[dict]) -> dict | None:
    """The median of the newest on-demand price of each provider (per device-hour), with range and count."""
    clouds = cloud_prices(prices)
    if not clouds:
        return None
    values = [p["usd"] for p in clouds]
    return {"usd": statistics.median(values), "low": min(values), "high": max(values), "providers": len(clouds),
            "as_of": max(p["as_of"] for p in clouds), "prices": clouds}


def purchase_price(prices: list[dict], capacity_gib: float | None = None) -> dict | None:
    """The newest purchase price (a range counts at its middle).

    ``capacity_gib``: the memory configuration asked about, for a device sold with several sizes. When the
    device's prices name their memory (``memory_gib``), only a price of that very size counts — a Mac Studio's
    96 GB price is not the price of its 512 GB configuration — and None is the honest answer for a size
    without one."""
    rows = [p for p in prices if p["kind"] in PURCHASE_KINDS]
    if capacity_gib is not None and any(p.get("memory_gib") for p in rows):
        rows = [p for p in rows if p.get("memory_gib") is not None and abs(p["memory_gib"] - capacity_gib) < 0.5]
    if not rows:
        return None
    best = max(rows, key=lambda p: p["as_of"])
    usd = (best["usd"] + best["usd_high"]) / 2 if best.get("usd_high") else best["usd"]
    return {**best, "usd_mid": usd}


def hourly_cost(prices: list[dict], tdp_w: float | None, num_devices: int, price_per_hour: float | None = None,
                purchase_usd: float | None = None, amortisation_years: float = 3.0,
                electricity_usd_per_kwh: float | None = None, capacity_gib: float | None = None) -> dict | None:
    """US$ per hour for ``num_devices`` devices and how it was found; None when nothing is known.
    ``capacity_gib``: the memory configuration of a device sold with several sizes (see ``purchase_price``)."""
    if price_per_hour is not None:
        return {"basis": "given", "usd_per_hour": price_per_hour * num_devices, "usd_per_device_hour": price_per_hour}
    cloud = cloud_median(prices)
    if purchase_usd is None and cloud:
        per_device = cloud["usd"]
        return {"basis": "cloud", "usd_per_hour": per_device * num_devices, "usd_per_device_hour": per_device,
                "low": cloud["low"], "high": cloud["high"], "providers": cloud["providers"], "as_of": cloud["as_of"]}
    bought = purchase_price(prices, capacity_gib)
    usd = purchase_usd if purchase_usd is not None else (bought["usd_mid"] if bought else None)
    if usd is None:
        return None
    per_device = usd / (amortisation_years * HOURS_PER_YEAR)
    power = None
    if electricity_usd_per_kwh is not None and tdp_w:
        power = energy_kwh(tdp_w, 1.0) * electricity_usd_per_kwh
        per_device += power
    out = {"basis": "purchase", "usd_per_hour": per_device * num_devices, "usd_per_device_hour": per_device,
           "purchase_usd": usd, "amortisation_years": amortisation_years, "electricity_usd_per_hour": power}
    if purchase_usd is None and bought:
        out["as_of"], out["price_kind"] = bought["as_of"], bought["kind"]
        out["price_memory_gib"] = bought.get("memory_gib")
        out["source_title"], out["source_url"] = bought.get("source_title"), bought.get("source_url")
    return out


def per_million_tokens(usd_per_hour: float, tokens_per_s: float) -> float:
    """US$ per million tokens at ``tokens_per_s`` (all devices together)."""
    return usd_per_hour / (tokens_per_s * 3600) * 1e6
