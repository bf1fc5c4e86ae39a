"""The one peak lookup: dense matrix figures first, half of a sparse-only figure, then vector units."""

import pytest

from calculators import devices as dev
from calculators_support import catalog, ok


def device(device_id):
    return catalog().devices[device_id]


def test_dense_matrix_figure_is_used_as_stated():
    peak = dev.peak(device("h100-sxm"), "bf16")
    assert (peak.tflops, peak.unit, peak.precision, peak.from_sparse) == (989.4, "matrix", "bf16", None)


def test_sparse_only_vendor_figure_is_halved_and_flagged():
    # NVIDIA's H200 datasheet gives tensor figures "with sparsity" only (1,979 TFLOPS BF16).
    sparse = dev.figure(device("h200-sxm"), "bf16", "matrix", "sparse")
    assert dev.dense_figure(device("h200-sxm"), "bf16", "matrix") is None
    peak = dev.peak(device("h200-sxm"), "bf16")
    assert peak.from_sparse == sparse
    assert peak.tflops == pytest.approx(sparse / 2)
    assert peak.unit == "matrix"


def test_sparse_halving_beats_falling_back_to_vector_units():
    # Without the rule the H200 would fall back to its FP32 vector peak (67 TFLOP/s) for BF16 prefill.
    result = ok("speed", model="llama-3.1-8b", weights="bf16", workload="prefill", device="h200-sxm", baseline="h100-sxm")
    # Both compute-bound at the same peak (the H200's dense BF16 is half its sparse figure, as the H100's): the
    # speed-up is about 1, not the 989/67 = 15x that falling back to the vector unit would give the H100.
    assert dev.peak(device("h200-sxm"), "bf16").tflops == pytest.approx(989.5)
    assert result["speedup"] == pytest.approx(1.0, rel=0.05)
    keys = [n["key"] for n in result["notes"]]
    assert "note.sparse_halved" in keys and "note.vector_unit" not in keys


@pytest.mark.parametrize("lang, text", [("en", "only the 2:4-sparse BF16 figure (1,979 TFLOP/s)"), ("de", "nur den Wert mit 2:4-Sparsity (1.979 TFLOP/s)")])
def test_sparse_note_is_localized(lang, text):
    result = ok("speed", lang=lang, model="llama-3.1-8b", weights="bf16", workload="prefill", device="h200-sxm", baseline="h100-sxm")
    note = next(n for n in result["notes"] if n["key"] == "note.sparse_halved")
    assert text in note["message"]


def test_sram_only_devices_carry_no_gpu_runtime_overhead():
    # Groq's 230 MB of SRAM per chip is smaller than the 1 GiB CUDA-style runtime overhead;
    # charging it per chip made a 70B model "fit on no number of chips".
    result = ok("vram", model="llama-3.1-70b", weights="int8", context=2048)
    fits = {f["device"]: f for f in result["fits"]}
    groq = catalog().devices["groq-lpu"]
    assert fits["groq-lpu"]["count"] is not None
    assert fits["groq-lpu"]["per_device_gib"] <= groq["memory"]["capacity_gib"]
    assert fits["h100-sxm"]["per_device_gib"] > result["breakdown"]["weights_gib"]  # GPUs keep their overhead
