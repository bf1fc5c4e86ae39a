"""The roofline model: every roofline formula of the site, in one place.

A device with peak compute ``peak_tflops`` (10^12 operations per second:
TFLOP/s for float formats, TOPS for integers) and memory bandwidth
``bandwidth_gb_s`` (10^9 bytes per second) runs work of arithmetic intensity
``intensity`` (operations per byte moved to or from memory) at most at

    attainable = min(peak, intensity × bandwidth)

(Williams, Waterman and Patterson, "Roofline", Communications of the ACM 52(4),
2009). The two roofs meet at the *critical intensity* (ridge point)
peak ÷ bandwidth: work below it is memory-bound, work at or above it
compute-bound. The H100 SXM at BF16: 989.4 × 10^12 ÷ 3,350 × 10^9 ≈ 295
FLOP per byte.

The estimators (``atlas.core.calculators.speed``), the charts, the kernel demos'
roofline explorer and the pages' worked figures all call these functions.
Standard library only, so the same code runs in the build and in the
browser. Bad input (not a number, not finite, not positive) raises
``ValueError`` naming the argument.
"""

from __future__ import annotations

from atlas.core.calculators.checks import non_negative, positive

TERA = 1e12  # operations per TFLOP
GIGA = 1e9  # bytes per GB


# --- the device's roofline --------------------------------------------------------------


def critical_intensity(peak_tflops: float, bandwidth_gb_s: float) -> float:
    """Operations per byte at which ``peak_tflops`` (10^12 op/s) and ``bandwidth_gb_s``
    (10^9 byte/s) take the same time: peak ÷ bandwidth, the roofline's ridge point."""
    return positive("peak_tflops", peak_tflops) * TERA / (positive("bandwidth_gb_s", bandwidth_gb_s) * GIGA)


def attainable_tflops(peak_tflops: float, bandwidth_gb_s: float, intensity: float) -> float:
    """The most work of ``intensity`` operations per byte can reach, in 10^12 op/s:
    min(peak, intensity × bandwidth)."""
    memory_roof = positive("intensity", intensity) * positive("bandwidth_gb_s", bandwidth_gb_s) * GIGA / TERA
    return min(positive("peak_tflops", peak_tflops), memory_roof)


def bound(peak_tflops: float, bandwidth_gb_s: float, intensity: float) -> str:
    """"memory" below the critical intensity, "compute" at or above it."""
    return "memory" if positive("intensity", intensity) < critical_intensity(peak_tflops, bandwidth_gb_s) else "compute"


# --- times ---------------------------------------------------------------------------------


def compute_time_s(flops: float, peak_tflops: float, efficiency: float = 1.0) -> float:
    """Seconds to execute ``flops`` operations at ``efficiency`` (0–1] of ``peak_tflops`` (10^12 op/s)."""
    rate = positive("peak_tflops", peak_tflops) * TERA * positive("efficiency", efficiency)
    return non_negative("flops", flops) / rate


def transfer_time_s(bytes_moved: float, bandwidth_gb_s: float, efficiency: float = 1.0) -> float:
    """Seconds to move ``bytes_moved`` bytes at ``efficiency`` (0–1] of ``bandwidth_gb_s`` (10^9 byte/s)."""
    rate = positive("bandwidth_gb_s", bandwidth_gb_s) * GIGA * positive("efficiency", efficiency)
    return non_negative("bytes_moved", bytes_moved) / rate


def roofline_time(flops: float, bytes_moved: float | None, peak_tflops: float, bandwidth_gb_s: float,
                  compute_efficiency: float = 1.0, memory_efficiency: float = 1.0) -> dict:
    """The roofline time of ``flops`` operations that move ``bytes_moved`` bytes (None: not modelled).

    time = max(flops ÷ (peak × compute efficiency), bytes ÷ (bandwidth × memory efficiency));
    returns ``{"time_s", "compute_time_s", "memory_time_s", "bound"}``, the bound
    being the larger term ("compute" when both are equal).
    """
    compute = compute_time_s(flops, peak_tflops, compute_efficiency)
    memory = transfer_time_s(bytes_moved, bandwidth_gb_s, memory_efficiency) if bytes_moved else 0.0
    return {
        "time_s": max(compute, memory),
        "compute_time_s": compute,
        "memory_time_s": memory,
        "bound": "compute" if compute >= memory else "memory",
    }


# --- a matrix product ---------------------------------------------------------------------


def matmul_flops(m: int, n: int, k: int) -> int:
    """Operations of an (m×k)·(k×n) matrix product: one multiply and one add per term, 2·m·n·k."""
    return 2 * positive("m", m) * positive("n", n) * positive("k", k)


def matmul_bytes(m: int, n: int, k: int, bytes_per_value: float) -> float:
    """Bytes a matrix product moves at least: both inputs (m·k and k·n values) read and the
    m·n result written once, each value ``bytes_per_value`` bytes wide."""
    values = positive("m", m) * positive("k", k) + k * positive("n", n) + m * n
    return values * positive("bytes_per_value", bytes_per_value)


def matmul_intensity(m: int, n: int, k: int, bytes_per_value: float) -> float:
    """Operations per byte of a matrix product that moves each input and output value exactly once."""
    return matmul_flops(m, n, k) / matmul_bytes(m, n, k, bytes_per_value)
