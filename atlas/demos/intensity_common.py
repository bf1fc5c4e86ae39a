"""Shared by the intensity demos: the FMA chain's constants, its float64
reference, the operation and byte counts, and the ``--fmas`` option.

Per element: 1 float32 read + 1 float32 write = 8 bytes; FMAS steps of
y = y * A + B = 2 * FMAS operations. Intensity = 2 * FMAS / 8 FLOP/byte.
"""

from __future__ import annotations

import argparse

from atlas.core.kernels.demo_workloads import FMA_BYTES_PER_ELEMENT as BYTES_PER_ELEMENT
from atlas.core.kernels.demo_workloads import fma_intensity as intensity

A = 0.999  # |A| < 1 keeps y bounded; A**1024 = 0.36, so y still depends on x
B = 0.001
DEFAULT_FMAS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]


def fma_list(text: str) -> list[int]:
    """'1,4,16' -> [1, 4, 16]; each a positive integer."""
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"each FMA count must be at least 1, got {text!r}")
    return values


def reference(x, fmas: int):
    """y after ``fmas`` steps, in float64: A**n * x + B * (1 - A**n) / (1 - A)."""
    import numpy as np

    an = A**fmas
    return an * np.asarray(x, dtype=np.float64) + B * (1 - an) / (1 - A)


def tolerance(fmas: int) -> float:
    """Relative error allowed after ``fmas`` float32 roundings (a few ulp per step)."""
    return max(1e-6, 4e-7 * fmas)


def point(fmas: int, size: int, seconds: float) -> dict:
    """One point of the sweep: intensity, achieved TFLOP/s and GB/s."""
    return {
        "fmas": fmas,
        "intensity": intensity(fmas),
        "seconds": seconds,
        "achieved_tflops": 2 * fmas * size / seconds / 1e12,
        "achieved_gb_s": BYTES_PER_ELEMENT * size / seconds / 1e9,
    }
