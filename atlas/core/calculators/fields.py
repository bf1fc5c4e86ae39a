"""The vocabulary of device figures: one name per value a page can show.

A *field* is a string a page author writes in a macro call:

- plain fields: ``name``, ``vendor``, ``kind``, ``segment``, ``architecture``,
  ``launch_year``, ``availability``, ``form_factor``, ``memory`` (GiB),
  ``memory_type``, ``bandwidth`` (GB/s), ``tdp`` (W), ``interconnect``
  (GB/s), ``software``, ``price`` (US$), ``sources``;
- compute fields: ``<precision>.<unit>.<sparsity>``, e.g. ``bf16.matrix.dense``
  or ``fp32.vector.dense``; ``<precision>.<unit>`` means dense.

``field_value`` returns the raw value, its unit key (a key of the label
tables) and the key of the source it comes from, so tables, prose and charts
show the same figure with the same unit and source.
"""

from __future__ import annotations

from dataclasses import dataclass

PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4", "int8", "int4")
UNITS = ("matrix", "vector")
SPARSITIES = ("dense", "sparse")

PLAIN_FIELDS = (
    "name",
    "vendor",
    "kind",
    "segment",
    "architecture",
    "launch_year",
    "availability",
    "form_factor",
    "memory",
    "memory_type",
    "bandwidth",
    "tdp",
    "interconnect",
    "software",
    "price",
    "sources",
)
NUMERIC_FIELDS = {
    "memory": "unit.gib",
    "bandwidth": "unit.gb_s",
    "tdp": "unit.w",
    "interconnect": "unit.gb_s",
    "price": "unit.usd",
}


@dataclass(frozen=True)
class ComputeField:
    precision: str
    unit: str
    sparsity: str

    @property
    def key(self) -> str:
        return f"{self.precision}.{self.unit}.{self.sparsity}"

    @property
    def unit_label(self) -> str:
        return "unit.tops" if self.precision.startswith("int") else "unit.tflops"


@dataclass(frozen=True)
class Value:
    """A figure as pages show it: raw value, unit label key, source key (or None).

    A price range is a (low, high) tuple."""

    value: object
    unit: str | None = None
    source: str | None = None


def parse_field(name: str):
    """Return ``name`` for a plain field or a ``ComputeField``; raise ``ValueError`` otherwise."""
    if name in PLAIN_FIELDS:
        return name
    parts = name.split(".")
    if len(parts) == 2:
        parts.append("dense")
    if len(parts) == 3 and parts[0] in PRECISIONS and parts[1] in UNITS and parts[2] in SPARSITIES:
        return ComputeField(*parts)
    raise ValueError(
        f"unknown field {name!r}: use one of {', '.join(PLAIN_FIELDS)} "
        f"or <precision>.<unit>[.<sparsity>] with precision in {', '.join(PRECISIONS)}, "
        f"unit in {', '.join(UNITS)}, sparsity in {', '.join(SPARSITIES)}"
    )


def compute_value(device: dict, field: ComputeField) -> Value | None:
    for entry in device.get("compute", []):
        if (entry["precision"], entry["unit"], entry["sparsity"]) == (field.precision, field.unit, field.sparsity):
            return Value(entry["tflops"], field.unit_label, entry["source"])
    return None


def field_value(device: dict, name: str) -> Value | None:
    """The value of field ``name`` for ``device``, or None when the device does not state it."""
    field = parse_field(name)
    if isinstance(field, ComputeField):
        return compute_value(device, field)
    memory = device.get("memory", {})
    if field == "memory":  # None for a device without memory of its own (memory.type "none")
        return None if memory.get("capacity_gib") is None else Value(memory["capacity_gib"], "unit.gib", memory["source"])
    if field == "memory_type":  # a dash, like capacity and bandwidth, for a device without memory of its own
        return None if memory.get("type") == "none" else Value(memory["type"], None, memory["source"])
    if field == "bandwidth":
        return None if memory.get("bandwidth_gb_s") is None else Value(memory["bandwidth_gb_s"], "unit.gb_s",
                                                                         memory["source"])
    if field == "tdp":
        power = device.get("power")
        return Value(power["tdp_w"], "unit.w", power["source"]) if power else None
    if field == "interconnect":
        link = device.get("interconnect")
        return Value(link["bandwidth_gb_s"], "unit.gb_s", link["source"]) if link else None
    if field == "price":
        price = device.get("price")
        if not price:
            return None
        unit = "unit.usd_per_hour" if price["kind"] == "cloud-per-hour" else "unit.usd"
        value = (price["usd"], price["usd_high"]) if "usd_high" in price else price["usd"]
        return Value(value, unit, price["source"])
    if field == "sources":
        return Value(device["sources"])
    value = device.get(field)
    return None if value is None else Value(value)


def field_number(device: dict, name: str) -> float:
    """The single number field ``name`` states for ``device`` (in the unit its ``Value`` names);
    ``ValueError`` if the device does not state it or states no single number (a range, a text)."""
    value = field_value(device, name)
    if value is None or isinstance(value.value, bool) or not isinstance(value.value, (int, float)):
        raise ValueError(f"device {device['id']!r} states no single number for {name!r}")
    return float(value.value)
