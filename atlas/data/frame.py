"""The device data set as a pandas table: selection, sorting and CSV export.

One row per device, one column per field (see ``atlas.core.calculators.fields``), raw values
in the units the field names state. Pages format these values; downloads
write them as they are.
"""

from __future__ import annotations

import pandas as pd

from atlas.core.calculators.fields import PLAIN_FIELDS, PRECISIONS, SPARSITIES, UNITS, field_value

KINDS = ("gpu", "tpu", "asic", "fpga", "npu", "cpu")
SEGMENTS = ("datacenter", "workstation", "consumer", "edge", "cloud-only")

ALL_COMPUTE_FIELDS = tuple(f"{p}.{u}.{s}" for p in PRECISIONS for u in UNITS for s in SPARSITIES)


def device_frame(devices: dict, fields=None) -> pd.DataFrame:
    """A DataFrame indexed by device id with the raw value of each field (NaN when not stated)."""
    fields = list(fields or [f for f in PLAIN_FIELDS if f != "sources"] + list(ALL_COMPUTE_FIELDS))
    rows = {}
    for device_id, device in devices.items():
        row = {}
        for name in fields:
            value = field_value(device, name)
            raw = None if value is None else value.value
            row[name] = ", ".join(raw) if isinstance(raw, list) else raw
        rows[device_id] = row
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=fields)
    frame.index.name = "id"
    return frame


def _as_list(value, allowed, what):
    if value is None:
        return None
    items = [value] if isinstance(value, str) else list(value)
    for item in items:
        if item not in allowed:
            raise ValueError(f"unknown {what} {item!r}; expected one of {', '.join(allowed)}")
    return items


def select_devices(devices: dict, kind=None, ids=None, segment=None, sort=None) -> list[dict]:
    """Devices filtered by kind/segment, or the listed ids in order; optionally sorted by a field.

    Sorting by a numeric field puts the largest first and devices without
    the figure last; ties and text fields sort by name.
    """
    if ids is not None:
        missing = [i for i in ids if i not in devices]
        if missing:
            raise ValueError(f"unknown device id(s): {', '.join(missing)}")
        return [devices[i] for i in ids]
    kinds = _as_list(kind, KINDS, "kind")
    segments = _as_list(segment, SEGMENTS, "segment")
    frame = device_frame(
        devices, ["name", "kind", "segment"] + ([sort] if sort and sort not in ("name", "kind", "segment") else [])
    )
    if kinds:
        frame = frame[frame["kind"].isin(kinds)]
    if segments:
        frame = frame[frame["segment"].isin(segments)]
    if sort and sort != "name":
        numeric = pd.to_numeric(frame[sort], errors="coerce")
        if numeric.notna().any():
            frame = frame.assign(_key=numeric).sort_values(
                ["_key", "name"], ascending=[False, True], na_position="last"
            )
        else:
            frame = frame.sort_values([sort, "name"])
    else:
        frame = frame.sort_values("name")
    return [devices[i] for i in frame.index]
