"""The site's one copy of the roofline and energy formulas (``atlas.core.calculators.roofline``,
``atlas.core.calculators.energy``), with known values, and the places that must call it."""

from __future__ import annotations

import math

import pytest

import atlas.core.kernels.roofline as kernel_roofline
from atlas.core.calculators import energy, roofline


def test_critical_intensity_of_known_devices():
    # A100 80 GB SXM: 312 TFLOP/s BF16 dense over 2,039 GB/s; H100 SXM: 989.4 over 3,350 GB/s
    # (the ridge the JAX scaling book quotes as about 295 for the H100).
    assert roofline.critical_intensity(312, 2039) == pytest.approx(153.02, abs=0.01)
    assert roofline.critical_intensity(989.4, 3350) == pytest.approx(295.34, abs=0.01)


def test_attainable_below_at_and_above_the_ridge():
    assert roofline.attainable_tflops(989.4, 3350, 1) == pytest.approx(3.35)
    assert roofline.attainable_tflops(989.4, 3350, 100) == 335.0
    assert roofline.attainable_tflops(989.4, 3350, 1000) == 989.4
    ridge = roofline.critical_intensity(989.4, 3350)
    assert roofline.attainable_tflops(989.4, 3350, ridge) == pytest.approx(989.4)
    assert roofline.bound(989.4, 3350, ridge * 0.99) == "memory"
    assert roofline.bound(989.4, 3350, ridge) == "compute"


def test_times():
    # 16 GB of BF16 weights (8e9 parameters) read once from an H100: 4.8 ms, at most ~210 tokens/s.
    assert roofline.transfer_time_s(16e9, 3350) == pytest.approx(0.0047761, rel=1e-4)
    assert 1 / roofline.transfer_time_s(16e9, 3350) == pytest.approx(209.4, abs=0.1)
    assert roofline.compute_time_s(2 * 4096**3, 989.4) == pytest.approx(1.389e-4, rel=1e-3)
    # at half the peak it takes twice as long
    assert roofline.compute_time_s(1e15, 1000, 0.5) == pytest.approx(2.0)
    assert roofline.transfer_time_s(1e12, 1000, 0.5) == pytest.approx(2.0)


def test_roofline_time_takes_the_larger_term():
    # 1e12 FLOPs and 1e10 bytes on 100 TFLOP/s and 1,000 GB/s: 10 ms of compute, 10 ms of memory.
    even = roofline.roofline_time(1e12, 1e10, 100, 1000)
    assert even == {"time_s": pytest.approx(0.01), "compute_time_s": pytest.approx(0.01),
                    "memory_time_s": pytest.approx(0.01), "bound": "compute"}
    slow_memory = roofline.roofline_time(1e12, 1e10, 100, 1000, compute_efficiency=1.0, memory_efficiency=0.5)
    assert slow_memory["time_s"] == pytest.approx(0.02) and slow_memory["bound"] == "memory"
    no_bytes = roofline.roofline_time(1e12, None, 100, 1000, 0.4)  # training: compute only
    assert no_bytes["memory_time_s"] == 0.0 and no_bytes["time_s"] == pytest.approx(0.025)


def test_matmul_arithmetic():
    assert roofline.matmul_flops(2, 3, 4) == 48
    assert roofline.matmul_flops(4096, 4096, 4096) == 137_438_953_472
    assert roofline.matmul_bytes(2, 3, 4, 2) == (8 + 12 + 6) * 2
    # a 4096³ product in BF16: 2·4096³ FLOPs over 3·4096²·2 bytes = 1,365 FLOP per byte
    assert roofline.matmul_intensity(4096, 4096, 4096, 2) == pytest.approx(4096 / 3)
    assert roofline.matmul_intensity(1, 4096, 4096, 2) == pytest.approx(4096 / 4098)


@pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf, "3", True, None])
def test_bad_input_raises_instead_of_returning_nonsense(bad):
    with pytest.raises(ValueError, match="must be a positive number"):
        roofline.critical_intensity(bad, 3350)
    with pytest.raises(ValueError, match="must be a positive number"):
        roofline.attainable_tflops(989.4, bad, 1)
    with pytest.raises(ValueError, match="must be a positive number"):
        roofline.transfer_time_s(16e9, bad)
    with pytest.raises(ValueError, match="must be a positive number"):
        roofline.matmul_intensity(4096, 4096, bad, 2)
    with pytest.raises(ValueError):
        energy.energy_kwh(bad, 10)
    with pytest.raises(ValueError):
        energy.energy_cost(10, bad)


def test_energy_of_an_h100_running_a_year():
    # 700 W (H100 SXM datasheet) for 8,760 h = 6,132 kWh; at 0.089 EUR/kWh 545.75 EUR
    assert energy.HOURS_PER_YEAR == 8760
    assert energy.energy_kwh(700, energy.HOURS_PER_YEAR) == pytest.approx(6132)
    assert energy.energy_cost(6132, 0.089) == pytest.approx(545.748)
    assert energy.energy_cost(6132, 0.276) == pytest.approx(1692.432)


def test_the_kernel_explorer_uses_these_formulas():
    # atlas/core/kernels/roofline.py is shown on its page; its roofline is this module's, not a copy.
    assert kernel_roofline.critical_intensity is roofline.critical_intensity
    assert kernel_roofline.attainable_tflops is roofline.attainable_tflops
    result = kernel_roofline.explore("989.4", "3350", "2")
    assert result["ridge_flop_per_byte"] == roofline.critical_intensity(989.4, 3350)
    assert result["attainable_tflops"] == roofline.attainable_tflops(989.4, 3350, 2) == pytest.approx(6.7)
