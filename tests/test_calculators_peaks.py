"""The one peak lookup: dense matrix figures first, half of a sparse-only figure, then vector units."""

import copy
from functools import cache

import pytest

from atlas.core.calculators import devices as dev
from atlas.core.calculators.api import handle
from atlas.core.calculators.catalog import Catalog
from atlas.data.export import export_dataset
from calculators_support import catalog, ok
from conftest import shared_dataset


def device(device_id):
    return catalog().devices[device_id]


@cache
def sparse_only_catalog() -> Catalog:
    """The shipped catalog with the H200's dense Tensor Core figures removed, as its datasheet states them:
    NVIDIA gives the H200 Tensor Core figures "with sparsity" only (the data set files the dense ones as derived)."""
    data = copy.deepcopy(export_dataset(shared_dataset()))
    h200 = data["devices"]["h200-sxm"]
    h200["compute"] = [e for e in h200["compute"] if not (e["unit"] == "matrix" and e["sparsity"] == "dense" and e.get("origin") == "derived")]
    return Catalog.from_dict(data)


def sparse_only_h200():
    return sparse_only_catalog().devices["h200-sxm"]


def ok_sparse_only(command: str, lang: str = "en", **params) -> dict:
    response = handle({"command": command, "params": params, "lang": lang}, sparse_only_catalog())
    assert response["ok"], response
    return response["result"]


def test_dense_matrix_figure_is_used_as_stated():
    peak = dev.peak(device("h100-sxm"), "bf16")
    assert (peak.tflops, peak.unit, peak.precision, peak.from_sparse) == (989.4, "matrix", "bf16", None)


def test_derived_dense_twin_is_half_the_sparse_figure():
    # The data set files the H200's dense BF16 as derived: one half of the datasheet's sparse 1,979.
    assert dev.dense_figure(device("h200-sxm"), "bf16", "matrix") == pytest.approx(dev.figure(device("h200-sxm"), "bf16", "matrix", "sparse") / 2)


def test_sparse_only_vendor_figure_is_halved_and_flagged():
    # NVIDIA's H200 datasheet gives tensor figures "with sparsity" only (1,979 TFLOPS BF16).
    sparse = dev.figure(sparse_only_h200(), "bf16", "matrix", "sparse")
    assert dev.dense_figure(sparse_only_h200(), "bf16", "matrix") is None
    peak = dev.peak(sparse_only_h200(), "bf16")
    assert peak.from_sparse == sparse
    assert peak.tflops == pytest.approx(sparse / 2)
    assert peak.unit == "matrix"


def test_sparse_halving_beats_falling_back_to_vector_units():
    # Without the rule the H200 would fall back to its FP32 vector peak (67 TFLOP/s) for BF16 prefill.
    result = ok_sparse_only("speed", model="llama-3.1-8b", weights="bf16", workload="prefill", device="h200-sxm", baseline="h100-sxm")
    # Both compute-bound at the same dense peak (half of 1,979): the speed-up is about 1 (the H200's faster memory
    # shortens only the weight and score reads) — not the 989/67 = 15x that falling back to the vector unit would
    # give the H100.
    assert dev.peak(sparse_only_h200(), "bf16").tflops == pytest.approx(989.5)
    assert result["speedup"] == pytest.approx(1.0, rel=0.1)
    keys = [n["key"] for n in result["notes"]]
    assert "note.sparse_halved" in keys and "note.vector_unit" not in keys


@pytest.mark.parametrize("lang, text", [("en", "only the 2:4-sparse BF16 figure (1,979 TFLOP/s)"), ("de", "nur den Wert mit 2:4-Sparsity (1.979\u00a0TFLOP/s)")])
def test_sparse_note_is_localized(lang, text):
    result = ok_sparse_only("speed", lang=lang, model="llama-3.1-8b", weights="bf16", workload="prefill", device="h200-sxm", baseline="h100-sxm")
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
