"""The device figures the estimators use, looked up in one place.

Peaks are always *dense* figures (a sparse figure never applies to dense
work), from the matrix unit of the requested precision when the device states
one, else from its vector unit. When the device lacks the precision, the
lookup falls back along ``defaults.PRECISION_FALLBACKS`` and says so.
Units: capacity in bytes, bandwidth in bytes/s, peaks in TFLOP/s (TOPS for
integer precisions), power in W.
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.defaults import GB, GIB, PRECISION_FALLBACKS


@dataclass(frozen=True)
class Peak:
    """A device's dense peak for a precision, and how it was found."""

    tflops: float
    precision: str  # the precision the figure is for
    unit: str  # "matrix" or "vector"
    requested: str  # the precision asked for

    @property
    def fell_back(self) -> bool:
        return self.precision != self.requested


def name(device: dict) -> str:
    return device.get("short_name") or device["name"]


def capacity_bytes(device: dict) -> float:
    """Memory capacity in bytes (the data set stores GiB)."""
    return device["memory"]["capacity_gib"] * GIB


def bandwidth_bytes_s(device: dict) -> float:
    """Peak memory bandwidth in bytes/s (the data set stores GB/s)."""
    return device["memory"]["bandwidth_gb_s"] * GB


def tdp_w(device: dict) -> float | None:
    power = device.get("power")
    return power["tdp_w"] if power else None


def dense_figure(device: dict, precision: str, unit: str) -> float | None:
    """The dense TFLOP/s of ``precision`` on ``unit``, or None."""
    for entry in device.get("compute", []):
        if entry["precision"] == precision and entry["unit"] == unit and entry["sparsity"] == "dense":
            return entry["tflops"]
    return None


def peak(device: dict, precision: str) -> Peak | None:
    """The dense peak to use for ``precision`` (matrix unit first), falling back as documented; None if none."""
    for candidate in PRECISION_FALLBACKS.get(precision, (precision,)):
        for unit in ("matrix", "vector"):
            tflops = dense_figure(device, candidate, unit)
            if tflops:
                return Peak(tflops, candidate, unit, precision)
    return None
