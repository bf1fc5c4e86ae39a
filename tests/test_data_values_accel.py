"""Published reference values of the TPUs, ASICs, FPGAs and NPUs in the data set.

Each assertion names the primary source the figure comes from, so a wrong
edit to a device file fails here with the source to check against. Units as
in the schema: GiB, GB/s, TFLOP/s (TOPS for integer precisions), W.
"""

import pytest

from atlas.fields import field_value


def value(dataset, device_id: str, field: str):
    found = field_value(dataset.device(device_id), field)
    assert found is not None, f"{device_id} does not state {field}"
    return found.value


# --- Google TPUs: Cloud TPU documentation, "System architecture" of each version ---

TPUS = ("tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-v7")


@pytest.mark.parametrize(
    "device_id, field, expected",
    [
        # https://docs.cloud.google.com/tpu/docs/v4: "275 teraflops (bf16 or int8)", "32 GiB, 1200 GBps"
        ("tpu-v4", "bf16.matrix.dense", 275),
        ("tpu-v4", "int8.matrix.dense", 275),
        ("tpu-v4", "memory", 32),
        ("tpu-v4", "bandwidth", 1200),
        # https://docs.cloud.google.com/tpu/docs/v5e: 197 TFLOPs bf16, 393 TOPs int8, "16 GB, 819 GBps"
        ("tpu-v5e", "bf16.matrix.dense", 197),
        ("tpu-v5e", "int8.matrix.dense", 393),
        ("tpu-v5e", "memory", 16),
        ("tpu-v5e", "bandwidth", 819),
        ("tpu-v5e", "interconnect", 400),
        # https://docs.cloud.google.com/tpu/docs/v5p: 459 TFLOPs bf16, 95 GiB, 2765 GBps, ICI 1200 GBps
        ("tpu-v5p", "bf16.matrix.dense", 459),
        ("tpu-v5p", "memory", 95),
        ("tpu-v5p", "bandwidth", 2765),
        ("tpu-v5p", "interconnect", 1200),
        # https://docs.cloud.google.com/tpu/docs/v6e: 918 TFLOPs bf16, 1836 TOPs int8, 32 GB, 1638 GBps
        ("tpu-v6e", "bf16.matrix.dense", 918),
        ("tpu-v6e", "int8.matrix.dense", 1836),
        ("tpu-v6e", "memory", 32),
        ("tpu-v6e", "bandwidth", 1638),
        # https://docs.cloud.google.com/tpu/docs/tpu7x: 2307 bf16, 4614 fp8, 192 GiB, 7380 GBps
        ("tpu-v7", "bf16.matrix.dense", 2307),
        ("tpu-v7", "fp8.matrix.dense", 4614),
        ("tpu-v7", "memory", 192),
        ("tpu-v7", "bandwidth", 7380),
    ],
)
def test_tpu_reference_values(dataset, device_id, field, expected):
    assert value(dataset, device_id, field) == expected


@pytest.mark.parametrize("device_id", TPUS)
def test_every_tpu_is_a_cloud_only_tpu(dataset, device_id):
    device = dataset.device(device_id)
    assert (device["kind"], device["segment"], device["availability"]) == ("tpu", "cloud-only", "cloud-only")


@pytest.mark.parametrize("device_id", TPUS)
def test_tpu_peaks_are_dense_matrix_figures(dataset, device_id):
    """Google quotes MXU peaks without sparsity; a sparse or vector entry would be a filing mistake."""
    for entry in dataset.device(device_id)["compute"]:
        assert (entry["unit"], entry["sparsity"]) == ("matrix", "dense"), entry


def test_tpu_int8_doubles_bf16_from_v5_on(dataset):
    """v4 runs int8 at the bf16 rate; v5e, v5p and v6e run it at twice the rate (Google's tables)."""
    assert value(dataset, "tpu-v4", "int8.matrix") == value(dataset, "tpu-v4", "bf16.matrix")
    for device_id in ("tpu-v5e", "tpu-v5p", "tpu-v6e"):
        ratio = value(dataset, device_id, "int8.matrix") / value(dataset, device_id, "bf16.matrix")
        assert ratio == pytest.approx(2, abs=0.01), device_id
