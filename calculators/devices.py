"""The device figures the estimators use, looked up in one place.

Peaks are always *dense* figures (a sparse figure never applies to dense
work), from the matrix unit of the requested precision when the device states
one, else from its vector unit. When the vendor publishes only the 2:4-sparse
matrix figure (NVIDIA's H200, some GeForce and workstation cards), the dense
peak is that figure times ``defaults.SPARSE_TO_DENSE`` (one half), and the
result says so. When the device lacks the precision, the lookup falls back
along ``defaults.PRECISION_FALLBACKS`` and says so.
Units: capacity in bytes, bandwidth in bytes/s, peaks in TFLOP/s (TOPS for
integer precisions), power in W.
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.defaults import GB, GIB, PRECISION_FALLBACKS, SPARSE_TO_DENSE


@dataclass(frozen=True)
class Peak:
    """A device's dense peak for a precision, and how it was found."""

    tflops: float
    precision: str  # the precision the figure is for
    unit: str  # "matrix" or "vector"
    requested: str  # the precision asked for
    from_sparse: float | None = None  # the vendor's sparse figure this dense peak was derived from

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


def is_sram_only(device: dict) -> bool:
    """True when the device computes from on-chip SRAM only (no HBM/DRAM), e.g. Groq, Cerebras."""
    return device["memory"]["type"].upper().startswith("SRAM")


def tdp_w(device: dict) -> float | None:
    power = device.get("power")
    return power["tdp_w"] if power else None


def figure(device: dict, precision: str, unit: str, sparsity: str = "dense") -> float | None:
    """The stated TFLOP/s of ``precision`` on ``unit`` with ``sparsity``, or None."""
    for entry in device.get("compute", []):
        if (entry["precision"], entry["unit"], entry["sparsity"]) == (precision, unit, sparsity):
            return entry["tflops"]
    return None


def dense_figure(device: dict, precision: str, unit: str) -> float | None:
    """The dense TFLOP/s of ``precision`` on ``unit``, or None."""
    return figure(device, precision, unit, "dense")


def _derived_from_sparse(device: dict, precision: str, dense: float) -> float | None:
    """The vendor's sparse figure when the data set files the dense matrix figure as derived from it (one half)."""
    for entry in device.get("compute", []):
        if (entry["precision"], entry["unit"], entry["sparsity"]) == (precision, "matrix", "dense"):
            if entry.get("origin") != "derived":
                return None
            break
    sparse = figure(device, precision, "matrix", "sparse")
    if sparse and abs(sparse * SPARSE_TO_DENSE.value - dense) <= 1e-6 * sparse:
        return sparse
    return None


def peak(device: dict, precision: str) -> Peak | None:
    """The dense peak to use for ``precision``; None if the device states nothing usable.

    Order for each precision in the fallback chain: the dense matrix-unit
    figure, half the sparse matrix-unit figure when that is all the vendor
    gives, the dense vector-unit figure. A dense figure the data set files as
    derived from the sparse one (origin: derived, exactly one half) keeps
    ``from_sparse`` so that readers are told where it comes from.
    """
    for candidate in PRECISION_FALLBACKS.get(precision, (precision,)):
        tflops = dense_figure(device, candidate, "matrix")
        if tflops:
            return Peak(tflops, candidate, "matrix", precision, from_sparse=_derived_from_sparse(device, candidate, tflops))
        sparse = figure(device, candidate, "matrix", "sparse")
        if sparse:
            return Peak(sparse * SPARSE_TO_DENSE.value, candidate, "matrix", precision, from_sparse=sparse)
        tflops = dense_figure(device, candidate, "vector")
        if tflops:
            return Peak(tflops, candidate, "vector", precision)
    return None
