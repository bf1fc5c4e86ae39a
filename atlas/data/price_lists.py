"""Every dated price of every device, from the price lists in ``data/prices/`` and the older ``price`` blocks.

``prices_by_device`` is what the data export carries to the calculators
(``catalog.prices``) and what the comparison page's price column and the
per-dollar chart read: one list per device, each price per *device* (an
instance price divided by its ``unit_count``), with kind, month, provider,
region and source. Build side only.
"""

from __future__ import annotations

from atlas.data.dataset import Dataset


def prices_by_device(dataset: Dataset) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for device_id, device in dataset.devices.items():
        block = device.get("price")
        if block:
            source = device["sources"][block["source"]]
            out.setdefault(device_id, []).append({
                "kind": block["kind"], "usd": block["usd"], "usd_high": block.get("usd_high"), "as_of": block["as_of"],
                "provider": None, "region": None, "list": None, "memory_gib": None,
                "source_title": source["title"], "source_url": source["url"],
            })
    for list_id, entry in dataset.prices.items():
        for row in entry["prices"]:
            count = row.get("unit_count", 1)
            source = entry["sources"][row.get("source", entry["source"])]
            out.setdefault(row["device"], []).append({
                "kind": entry["kind"], "usd": row["usd"] / count,
                "usd_high": row["usd_high"] / count if row.get("usd_high") else None,
                "as_of": entry["as_of"], "provider": entry.get("provider"), "region": entry.get("region"),
                "list": list_id, "instance": row.get("instance"), "memory_gib": row.get("memory_gib"),
                "source_title": source["title"], "source_url": source["url"],
            })
    for rows in out.values():
        rows.sort(key=lambda r: (r["kind"], r["as_of"], r["provider"] or "", r["usd"]))
    return dict(sorted(out.items()))
