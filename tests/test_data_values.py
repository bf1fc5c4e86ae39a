"""Published reference values in the GPU/CPU half of the data set.

Each assertion names the document the value comes from, so a failing test
points at the page to re-read. A data mistake is a bug: these tests pin the
figures that other pages, calculators and kernel demos divide by.
"""

import math

import pytest

from atlas.fields import field_value

NVIDIA_DATACENTER = [
    "v100-sxm2-32gb",
    "a100-sxm-80gb",
    "a100-pcie-40gb",
    "h100-sxm",
    "h100-pcie",
    "h200-sxm",
    "b200",
    "l4",
    "l40s",
]


def value(dataset, device_id, field):
    found = field_value(dataset.device(device_id), field)
    assert found is not None, f"{device_id} does not state {field}"
    return found.value


def test_nvidia_datacenter_parts_are_present(dataset):
    missing = [i for i in NVIDIA_DATACENTER if i not in dataset.devices]
    assert not missing
    for device_id in NVIDIA_DATACENTER:
        device = dataset.device(device_id)
        assert (device["vendor"], device["kind"], device["segment"]) == ("NVIDIA", "gpu", "datacenter")


# --- NVIDIA data centre -----------------------------------------------------


def test_h100_sxm_tensor_figures(dataset):
    # Hopper whitepaper, table 3 (H100 SXM5): 989.4 dense / 1,978.9 sparse BF16.
    assert value(dataset, "h100-sxm", "bf16.matrix.dense") == 989.4
    assert value(dataset, "h100-sxm", "bf16.matrix.sparse") == 1978.9
    assert value(dataset, "h100-sxm", "fp8.matrix.dense") == 1978.9
    assert value(dataset, "h100-sxm", "fp64.vector") == 33.5
    assert value(dataset, "h100-sxm", "bandwidth") == 3350


def test_a100_figures(dataset):
    # A100 datasheet (r4): 80 GB HBM2e at 2,039 GB/s on SXM4, 312 TFLOPS dense BF16.
    assert value(dataset, "a100-sxm-80gb", "bandwidth") == 2039
    assert value(dataset, "a100-sxm-80gb", "memory") == 80
    assert value(dataset, "a100-sxm-80gb", "bf16.matrix.dense") == 312
    # A100 40 GB PCIe datasheet: same peaks, 1,555 GB/s, 250 W.
    assert value(dataset, "a100-pcie-40gb", "bandwidth") == 1555
    assert value(dataset, "a100-pcie-40gb", "tdp") == 250
    assert value(dataset, "a100-pcie-40gb", "tf32.matrix.dense") == 156


def test_v100_has_fp16_tensor_cores_only(dataset):
    # V100 datasheet: 125 TFLOPS tensor performance, 7.8 FP64, 900 GB/s.
    v100 = dataset.device("v100-sxm2-32gb")
    assert value(dataset, "v100-sxm2-32gb", "fp16.matrix.dense") == 125
    assert value(dataset, "v100-sxm2-32gb", "fp64.vector") == 7.8
    assert value(dataset, "v100-sxm2-32gb", "bandwidth") == 900
    matrix_precisions = {e["precision"] for e in v100["compute"] if e["unit"] == "matrix"}
    assert matrix_precisions == {"fp16"}
    assert all(e["sparsity"] == "dense" for e in v100["compute"])  # no sparsity before Ampere


def test_h100_pcie_figures(dataset):
    # H100 datasheet (SXM | PCIe): 1,513 TFLOPS sparse BF16, 2 TB/s, 300-350 W.
    assert value(dataset, "h100-pcie", "bf16.matrix.sparse") == 1513
    assert value(dataset, "h100-pcie", "bf16.matrix.dense") == 756.5
    assert value(dataset, "h100-pcie", "bandwidth") == 2000
    assert value(dataset, "h100-pcie", "fp64.vector") == 26


def test_h200_memory_and_sparse_only_tensor_figures(dataset):
    # H200 datasheet: 141 GB HBM3e at 4.8 TB/s, 700 W, 3,958 TFLOPS FP8 "with sparsity".
    assert value(dataset, "h200-sxm", "memory") == 141
    assert value(dataset, "h200-sxm", "bandwidth") == 4800
    assert value(dataset, "h200-sxm", "memory_type") == "HBM3e"
    assert value(dataset, "h200-sxm", "tdp") == 700
    assert value(dataset, "h200-sxm", "fp8.matrix.sparse") == 3958
    # NVIDIA gives no dense H200 tensor figure; the data set must not invent one.
    assert field_value(dataset.device("h200-sxm"), "bf16.matrix.dense") is None


def test_b200_figures_assume_the_1000_w_hgx_configuration(dataset):
    # Blackwell datasheet (HGX B200, per GPU): 18 PFLOPS sparse FP4, 4.5 PFLOPS sparse BF16,
    # 180 GB HBM3e at 7.7 TB/s, up to 1,000 W. DGX B200: FP4 144 | 72 PFLOPS for 8 GPUs.
    assert value(dataset, "b200", "fp4.matrix.sparse") == 18000
    assert value(dataset, "b200", "fp4.matrix.dense") == 72000 / 8
    assert value(dataset, "b200", "bf16.matrix.dense") == 2250
    assert value(dataset, "b200", "memory") == 180
    assert value(dataset, "b200", "bandwidth") == 7700
    assert value(dataset, "b200", "tdp") == 1000
    assert value(dataset, "b200", "interconnect") == 1800
    assert "1,000 W" in dataset.device("b200")["power"]["note"]


def test_l4_and_l40s(dataset):
    # L4 product page: 242 TFLOPS FP16 "with sparsity", half without; 300 GB/s, 72 W.
    assert value(dataset, "l4", "fp16.matrix.sparse") == 242
    assert value(dataset, "l4", "fp16.matrix.dense") == 121
    assert value(dataset, "l4", "tdp") == 72
    # L40S product page: 91.6 TFLOPS FP32, 733 | 1,466 FP8, 48 GB at 864 GB/s, 350 W.
    assert value(dataset, "l40s", "fp32.vector") == 91.6
    assert value(dataset, "l40s", "fp8.matrix.dense") == 733
    assert value(dataset, "l40s", "bandwidth") == 864


# Pairs the vendor itself prints inconsistently; kept as published and explained in the device's note.
PUBLISHED_INCONSISTENT_PAIRS = {("l40s", "bf16", "matrix"), ("l40s", "fp16", "matrix")}


def sparse_dense_pairs(device):
    figures = {(e["precision"], e["unit"], e["sparsity"]): e["tflops"] for e in device["compute"]}
    for (precision, unit, sparsity), sparse in figures.items():
        if sparsity == "sparse" and (precision, unit, "dense") in figures:
            yield precision, unit, figures[(precision, unit, "dense")], sparse


def test_nvidia_datacenter_sparse_figures_are_twice_dense(dataset):
    """Since Ampere, 2:4 sparsity exactly doubles Tensor Core throughput.

    Allowed slack is one unit in the last printed digit (989.4 x 2 = 1,978.8
    is printed 1,978.9 in the Hopper whitepaper).
    """
    checked = 0
    for device_id in NVIDIA_DATACENTER:
        device = dataset.device(device_id)
        for precision, unit, dense, sparse in sparse_dense_pairs(device):
            if (device_id, precision, unit) in PUBLISHED_INCONSISTENT_PAIRS:
                assert "does not match" in next(
                    e["note"] for e in device["compute"] if (e["precision"], e["unit"], e["sparsity"]) == (precision, unit, "dense")
                )
                continue
            assert math.isclose(sparse, 2 * dense, abs_tol=0.1 + 1e-9), (device_id, precision, dense, sparse)
            checked += 1
    assert checked >= 30  # the A100s, H100s, B200, L4 and L40S state 34 pairs


@pytest.mark.parametrize("device_id", NVIDIA_DATACENTER)
def test_sources_are_dated_and_published(dataset, device_id):
    for key, source in dataset.device(device_id)["sources"].items():
        assert source["accessed"] == "2026-12-02", (device_id, key)
        assert source.get("publisher"), (device_id, key)
