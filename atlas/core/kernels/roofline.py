"""Roofline explorer: how fast can a kernel of a given arithmetic intensity run?

The roofline model (Williams, Waterman and Patterson, "Roofline: an
insightful visual performance model for multicore architectures",
Communications of the ACM 52(4), 2009) bounds a kernel's throughput by the
device's peak compute and by its memory bandwidth times the kernel's
arithmetic intensity I (operations per byte moved to or from memory):

    attainable = min(peak, I * bandwidth)

The two bounds meet at the ridge point (critical intensity) I* = peak /
bandwidth: below it a kernel is memory-bound, above it compute-bound. The
formulas are the site's one copy in ``atlas/core/calculators/roofline.py``, which the
speed calculator, the charts and the pages use too; this file checks the
explorer's inputs and puts the figures together.

Units: peak in TFLOP/s (10^12 operations/s), bandwidth in GB/s (10^9
bytes/s), intensity in FLOP/byte, attainable in TFLOP/s. Standard library
only: this file runs unchanged in the browser (Pyodide). Bad input raises
``InputError`` with a translation key (``kernels.error.*`` in
``atlas/core/l10n/<lang>/kernels.json``) and the offending field.
"""

from __future__ import annotations

import math
import sys

from atlas.core.calculators.roofline import attainable_tflops, bound, critical_intensity


# Arithmetic intensity of two example kernels, from their operation and byte
# counts (no device figures): markers the explorer's page shows. A matrix
# product's is atlas.core.calculators.roofline.matmul_intensity.
def triad_intensity(bytes_per_element: int = 4) -> float:
    """STREAM triad a = b + s*c: 2 operations per 3 elements moved."""
    return 2 / (3 * bytes_per_element)


def decode_intensity(bytes_per_weight: float = 2, batch: int = 1) -> float:
    """LLM decoding, weights only: each weight is read once per step and used for 2 operations
    per sequence in the batch (the KV cache, which the speed calculator adds, is left out)."""
    return 2 * batch / bytes_per_weight


class InputError(ValueError):
    """A bad input: ``field`` names it, ``key`` is its translation key, ``params`` fill the message."""

    def __init__(self, field: str, key: str, **params):
        self.field, self.key, self.params = field, key, params
        super().__init__(f"{field}: {key} {params}")


MAXIMUM = 1e12  # largest value a roofline input takes (FLOP/byte, TFLOP/s, GB/s)


def positive(field: str, value) -> float:
    """``value`` as a positive finite float, or ``InputError``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(field, "kernels.error.not_a_number", value=str(value)[:40]) from None
    if not math.isfinite(number):
        raise InputError(field, "kernels.error.not_finite", value=str(value)[:40])
    if number <= 0:
        raise InputError(field, "kernels.error.not_positive", value=str(value)[:40])
    if number > MAXIMUM:
        raise InputError(field, "kernels.error.too_large", value=str(value)[:40], high=int(MAXIMUM))
    return number


def explore(peak_tflops: float, bandwidth_gb_s: float, intensity: float) -> dict:
    """Everything the explorer shows for one device and one intensity.

    Returns ``ridge_flop_per_byte``, ``attainable_tflops``, ``percent_of_peak``
    (of the compute peak), ``bound`` ("memory" or "compute") and
    ``speedup_to_ridge`` (how much more intensity would reach the compute
    roof; 1 once compute-bound).
    """
    peak = positive("peak_tflops", peak_tflops)
    bandwidth = positive("bandwidth_gb_s", bandwidth_gb_s)
    intensity = positive("intensity", intensity)
    ridge = critical_intensity(peak, bandwidth)
    attainable = attainable_tflops(peak, bandwidth, intensity)
    return {
        "peak_tflops": peak,
        "bandwidth_gb_s": bandwidth,
        "intensity": intensity,
        "ridge_flop_per_byte": ridge,
        "attainable_tflops": attainable,
        "percent_of_peak": 100 * attainable / peak,
        "bound": bound(peak, bandwidth, intensity),
        "speedup_to_ridge": max(1.0, ridge / intensity),
    }


def sweep(peak_tflops: float, bandwidth_gb_s: float, intensities) -> list[dict]:
    """``explore`` for each intensity, in the order given."""
    return [explore(peak_tflops, bandwidth_gb_s, i) for i in intensities]


def log_intensities(low: float = 0.125, high: float = 1024, per_octave: int = 1) -> list[float]:
    """Intensities from ``low`` to ``high`` spaced by factors of 2 (``per_octave`` points per doubling)."""
    low, high = positive("low", low), positive("high", high)
    steps = round(math.log2(high / low) * per_octave)
    return [low * 2 ** (i / per_octave) for i in range(steps + 1)]


if __name__ == "__main__":  # a quick look from the command line: peak TFLOP/s, bandwidth GB/s, intensity
    if len(sys.argv) != 4:
        sys.exit("usage: python -m atlas.core.kernels.roofline PEAK_TFLOPS BANDWIDTH_GB_S INTENSITY")
    try:
        for key, value in explore(*sys.argv[1:4]).items():
            print(f"{key}: {value}")
    except InputError as exc:
        sys.exit(f"error: {exc.field} must be a positive number, got {exc.params.get('value')!r}")
