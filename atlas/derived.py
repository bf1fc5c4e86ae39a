"""Figures derived from device figures, so pages can show the arithmetic.

Every function takes plain numbers in the units its arguments name and
returns a plain number; pages call them through ``macros/content_macros.py``
with inputs read from the data set, so a derived figure changes when the
data changes.
"""

from __future__ import annotations

import math


def _positive(**values: float) -> None:
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise ValueError(f"{name} must be a positive number; got {value!r}")


def critical_intensity(peak_tflops: float, bandwidth_gb_s: float) -> float:
    """Operations per byte at which a device's peak compute (10¹² op/s) and
    memory bandwidth (10⁹ byte/s) take the same time: work with fewer
    operations per byte moved is limited by memory, not by compute."""
    _positive(peak_tflops=peak_tflops, bandwidth_gb_s=bandwidth_gb_s)
    return peak_tflops * 1e12 / (bandwidth_gb_s * 1e9)


def matmul_flops(m: int, n: int, k: int) -> int:
    """Floating-point operations of an (m×k)·(k×n) matrix product: one
    multiply and one add per term, 2·m·n·k."""
    _positive(m=m, n=n, k=k)
    return 2 * m * n * k


def matmul_bytes(m: int, n: int, k: int, bytes_per_value: float) -> float:
    """Bytes a matrix product must move at least: read both inputs (m·k and
    k·n values) and write the m·n result once, each value ``bytes_per_value``
    bytes wide."""
    _positive(m=m, n=n, k=k, bytes_per_value=bytes_per_value)
    return (m * k + k * n + m * n) * bytes_per_value


def matmul_intensity(m: int, n: int, k: int, bytes_per_value: float) -> float:
    """Arithmetic intensity (FLOP per byte) of a matrix product that moves
    each input and output value exactly once."""
    return matmul_flops(m, n, k) / matmul_bytes(m, n, k, bytes_per_value)


def transfer_time_s(gigabytes: float, bandwidth_gb_s: float) -> float:
    """Seconds to move ``gigabytes`` (10⁹ bytes) at ``bandwidth_gb_s`` (10⁹ byte/s)."""
    _positive(gigabytes=gigabytes, bandwidth_gb_s=bandwidth_gb_s)
    return gigabytes / bandwidth_gb_s


def compute_time_s(flops: float, peak_tflops: float) -> float:
    """Seconds to execute ``flops`` operations at ``peak_tflops`` (10¹² op/s)."""
    _positive(flops=flops, peak_tflops=peak_tflops)
    return flops / (peak_tflops * 1e12)


def attainable_tflops(peak_tflops: float, bandwidth_gb_s: float, intensity: float) -> float:
    """Roofline: the most a device can reach (10¹² op/s) for work of
    ``intensity`` operations per byte: min(peak, intensity × bandwidth)."""
    _positive(peak_tflops=peak_tflops, bandwidth_gb_s=bandwidth_gb_s, intensity=intensity)
    return min(peak_tflops, intensity * bandwidth_gb_s * 1e9 / 1e12)
