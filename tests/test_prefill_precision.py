"""Which precision each engine's matrix products run in, per weight format (issue 33).

llama.cpp multiplies its block quants in INT8 (the MMQ kernels), F16 weights in FP16 with FP16 accumulate and
BF16 weights in BF16 with FP32 accumulate; vLLM runs weight-only quants as 16-bit products and FP8 on FP8 units.
"""

from __future__ import annotations

import pytest

from calculators import engines
from calculators import speed_model as sm
from calculators_support import catalog, ok


@pytest.fixture(scope="module")
def devices():
    return catalog().devices


@pytest.mark.parametrize(("engine", "device_id", "weights", "first", "acc"), [
    ("llama.cpp", "rtx-5090", "q4_k_m", "int8", "fp16"),
    ("llama.cpp", "rtx-5090", "q8_0", "int8", "fp16"),
    ("llama.cpp", "rtx-5090", "q4_0", "int8", "fp16"),
    ("llama.cpp", "rtx-5090", "iq4_xs", "int8", "fp16"),
    ("llama.cpp", "rtx-5090", "mxfp4", "int8", "fp16"),
    ("llama.cpp", "h100-sxm", "q4_k_m", "int8", "fp16"),
    ("llama.cpp", "radeon-rx-7900-xtx", "q4_k_m", "int8", None),
    ("llama.cpp", "rtx-5090", "fp16", "fp16", "fp16"),
    ("llama.cpp", "rtx-5090", "bf16", "bf16", None),
    ("llama.cpp", "apple-m4-max", "q4_k_m", "fp16", None),
    ("vllm", "h100-sxm", "bf16", "bf16", None),
    ("vllm", "h100-sxm", "awq", "bf16", None),
    ("vllm", "h100-sxm", "gptq", "bf16", None),
    ("vllm", "h100-sxm", "fp8", "fp8", None),
    ("vllm", "h100-sxm", "q4_k_m", "bf16", None),
])
def test_precision_per_engine_and_weight_format(devices, engine, device_id, weights, first, acc):
    device = devices[device_id]
    assert engines.compute_precisions(engine, device, weights)[0] == first
    assert engines.accumulate(engine, device, weights) == acc
    assert engines.uses_mmq(engine, device, weights) == (first == "int8" and engine == "llama.cpp")


def test_quantised_weights_take_the_int8_peak_and_fall_back_to_fp16_without_int8_units(devices):
    peak, _ = sm.engine_peak("llama.cpp", devices["rtx-5090"], "q4_k_m")
    assert (peak.precision, peak.tflops) == ("int8", 838)
    # The RTX PRO 6000 Blackwell states sparse FP4 only: INT8 is scaled from it (4,000 sparse -> 2,000 dense -> 1,000).
    peak, note = sm.engine_peak("llama.cpp", devices["rtx-pro-6000-blackwell"], "q4_k_m")
    assert (peak.precision, peak.tflops, note) == ("int8", 1000, "sparse_halved")
    # Volta has FP16 tensor cores but no INT8 ones: the FP16-accumulate figure.
    peak, _ = sm.engine_peak("llama.cpp", devices["v100-sxm2-32gb"], "q4_k_m")
    assert peak.precision == "fp16"


def test_same_chip_cards_prefill_alike_with_quantised_weights():
    """RTX PRO 6000 Blackwell and RTX 5090 are both GB202 (188 against 170 SMs at similar clocks)."""
    for weights in ("q4_k_m", "q8_0", "fp16"):
        r = ok("speed", model="llama-3.1-8b", weights=weights, workload="prefill", engine="llama.cpp",
               device="rtx-pro-6000-blackwell", baseline="rtx-5090")
        assert 0.8 <= r["speedup"] <= 1.25, (weights, r["speedup"])
        assert r["device"]["precision"] == r["baseline"]["precision"]


def test_bf16_weights_keep_the_geforce_half_rate():
    """llama.cpp runs BF16 through cuBLAS with FP32 compute: GeForce halves that rate, the workstation card does
    not, so the BF16 gap between the two GB202 cards is real (peaks 500 against 209.5 TFLOP/s)."""
    r = ok("speed", model="llama-3.1-8b", weights="bf16", workload="prefill", engine="llama.cpp",
           device="rtx-pro-6000-blackwell", baseline="rtx-5090")
    assert r["device"]["precision"] == r["baseline"]["precision"] == "bf16"
    assert (r["device"]["peak_tflops"], r["baseline"]["peak_tflops"]) == (500, 209.5)
    assert r["speedup"] > 1.8
