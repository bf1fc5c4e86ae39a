"""Published reference values in the GPU/CPU half of the data set.

Each assertion names the document the value comes from, so a failing test
points at the page to re-read. A data mistake is a bug: these tests pin the
figures that other pages, calculators and kernel demos divide by.
"""

import math

import pytest

from atlas.fields import field_value

# The ids other engineers' pages use, by the folder each must live in.
REQUIRED = {
    "nvidia": [
        "v100-sxm2-32gb", "a100-sxm-80gb", "a100-pcie-40gb", "h100-sxm", "h100-pcie", "h200-sxm", "b200",
        "rtx-3090", "rtx-4060", "rtx-4090", "rtx-5090", "l4", "l40s", "rtx-pro-6000-blackwell", "dgx-spark",
    ],
    "amd": ["mi250x", "mi300x", "mi325x", "mi355x", "radeon-rx-7900-xtx", "epyc-9654"],
    "intel": ["gaudi-3"],
}
ALL_REQUIRED = [i for ids in REQUIRED.values() for i in ids]

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


@pytest.mark.parametrize("folder", sorted(REQUIRED))
def test_required_devices_are_in_their_vendor_folder(dataset, folder):
    for device_id in REQUIRED[folder]:
        assert device_id in dataset.devices, device_id
        assert dataset.files["devices"][device_id] == f"data/hardware/{folder}/{device_id}.yaml"


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


@pytest.mark.parametrize("device_id", ALL_REQUIRED)
def test_sources_are_dated_and_published(dataset, device_id):
    for key, source in dataset.device(device_id)["sources"].items():
        assert source["accessed"] == "2026-12-02", (device_id, key)
        assert source.get("publisher"), (device_id, key)


# --- Consumer and workstation cards --------------------------------------------

CONSUMER = ["rtx-3090", "rtx-4060", "rtx-4090", "rtx-5090", "radeon-rx-7900-xtx"]


def test_no_consumer_or_workstation_card_claims_hbm(dataset):
    cards = [d for d in dataset.devices.values() if d["kind"] == "gpu" and d["segment"] in ("consumer", "workstation")]
    assert {d["id"] for d in cards} >= set(CONSUMER) | {"rtx-pro-6000-blackwell", "dgx-spark"}
    for device in cards:
        assert not device["memory"]["type"].upper().startswith("HBM"), device["id"]


def test_rtx_4090_shader_and_tensor_figures_are_kept_apart(dataset):
    # Ada whitepaper: 82.6 TFLOPS FP32 and FP16 on the shaders; Tensor FP16/BF16 165.2 with
    # FP32 accumulate (330.3 with FP16 accumulate, which we keep only in the note).
    assert value(dataset, "rtx-4090", "fp32.vector") == 82.6
    assert value(dataset, "rtx-4090", "fp16.vector") == 82.6
    assert value(dataset, "rtx-4090", "fp16.matrix") == 165.2
    assert value(dataset, "rtx-4090", "bf16.matrix") == 165.2
    assert value(dataset, "rtx-4090", "fp8.matrix.sparse") == 660.6
    entry = next(e for e in dataset.device("rtx-4090")["compute"] if (e["precision"], e["unit"], e["sparsity"]) == ("fp16", "matrix", "dense"))
    assert "FP32 accumulate" in entry["note"] and "330.3" in entry["note"]


@pytest.mark.parametrize(
    "device_id, bf16_fp32_acc, fp32",
    [
        ("rtx-3090", 71, 35.6),  # GA102 whitepaper, appendix A
        ("rtx-4090", 165.2, 82.6),  # Ada whitepaper
        ("rtx-5090", 209.5, 104.8),  # RTX Blackwell whitepaper
    ],
)
def test_geforce_tensor_figures_use_fp32_accumulate(dataset, device_id, bf16_fp32_acc, fp32):
    assert value(dataset, device_id, "bf16.matrix.dense") == bf16_fp32_acc
    assert value(dataset, device_id, "fp16.matrix.dense") == bf16_fp32_acc
    assert value(dataset, device_id, "fp32.vector.dense") == fp32


@pytest.mark.parametrize(
    "device_id, gbps_per_pin, bus_bits",
    [
        ("rtx-3090", 19.5, 384),
        ("rtx-4090", 21, 384),
        ("rtx-5090", 28, 512),
        ("rtx-4060", 17, 128),
        ("rtx-pro-6000-blackwell", 28, 512),
        ("radeon-rx-7900-xtx", 20, 384),
        ("l40s", 18, 384),
    ],
)
def test_gddr_bandwidth_is_data_rate_times_bus_width(dataset, device_id, gbps_per_pin, bus_bits):
    """Peak GDDR bandwidth (GB/s) = per-pin data rate (Gbit/s) x bus width (bits) / 8."""
    assert value(dataset, device_id, "bandwidth") == pytest.approx(gbps_per_pin * bus_bits / 8)


@pytest.mark.parametrize(
    "device_id, usd, as_of",
    [
        ("rtx-3090", 1499, "2020-09"),
        ("rtx-4090", 1599, "2022-09"),
        ("rtx-4060", 299, "2023-05"),
        ("rtx-5090", 1999, "2025-01"),
        ("radeon-rx-7900-xtx", 999, "2022-11"),
    ],
)
def test_launch_prices(dataset, device_id, usd, as_of):
    price = dataset.device(device_id)["price"]
    assert (price["usd"], price["kind"], price["as_of"]) == (usd, "launch-msrp", as_of)


def test_only_cards_with_a_dated_launch_price_have_one(dataset):
    priced = {i for i in ALL_REQUIRED if "price" in dataset.device(i)}
    assert priced == {"rtx-3090", "rtx-4090", "rtx-4060", "rtx-5090", "radeon-rx-7900-xtx"}


def test_sparse_only_vendor_figures_stay_sparse(dataset):
    # RTX 4060 "242 AI TOPS", RTX PRO 6000 "4000 AI TOPS", DGX Spark "1 PFLOP FP4": all with sparsity.
    assert value(dataset, "rtx-4060", "fp8.matrix.sparse") == 242
    assert value(dataset, "rtx-pro-6000-blackwell", "fp4.matrix.sparse") == 4000
    assert value(dataset, "dgx-spark", "fp4.matrix.sparse") == 1000
    for device_id in ("rtx-4060", "rtx-pro-6000-blackwell", "dgx-spark"):
        assert all(e["sparsity"] == "sparse" for e in dataset.device(device_id)["compute"] if e["unit"] == "matrix")


def test_workstation_figures(dataset):
    # RTX PRO 6000 Blackwell product page: 96 GB GDDR7, 1,792 GB/s, 125 TFLOPS FP32, 600 W.
    assert value(dataset, "rtx-pro-6000-blackwell", "memory") == 96
    assert value(dataset, "rtx-pro-6000-blackwell", "fp32.vector") == 125
    assert value(dataset, "rtx-pro-6000-blackwell", "tdp") == 600
    # DGX Spark product page: 128 GB LPDDR5x at 273 GB/s.
    assert value(dataset, "dgx-spark", "memory") == 128
    assert value(dataset, "dgx-spark", "bandwidth") == 273
    assert value(dataset, "dgx-spark", "memory_type") == "LPDDR5X"


# --- AMD and Intel ------------------------------------------------------------


def test_mi300x_and_mi325x_share_compute_differ_in_memory(dataset):
    # CDNA 3 whitepaper, table 2: 1,307.4 TFLOPS BF16 dense (2,614.9 sparse) for both;
    # 192 GB at 5.3 TB/s and 750 W vs 256 GB at 6 TB/s and 1,000 W.
    assert value(dataset, "mi300x", "bf16.matrix.dense") == 1307.4
    assert value(dataset, "mi300x", "bf16.matrix.sparse") == 2614.9
    assert value(dataset, "mi300x", "fp8.matrix.dense") == 2614.9
    assert value(dataset, "mi300x", "fp64.matrix") == 163.4
    assert (value(dataset, "mi300x", "memory"), value(dataset, "mi300x", "bandwidth"), value(dataset, "mi300x", "tdp")) == (192, 5300, 750)
    assert (value(dataset, "mi325x", "memory"), value(dataset, "mi325x", "bandwidth"), value(dataset, "mi325x", "tdp")) == (256, 6000, 1000)
    mi300x = {(e["precision"], e["unit"], e["sparsity"]): e["tflops"] for e in dataset.device("mi300x")["compute"]}
    mi325x = {(e["precision"], e["unit"], e["sparsity"]): e["tflops"] for e in dataset.device("mi325x")["compute"]}
    assert mi300x == mi325x


def test_mi250x_and_mi355x(dataset):
    # CDNA 3 whitepaper endnote MI300-11: MI250X 383 TFLOPS FP16/BF16, 47.9 FP64, no sparsity, no FP8.
    assert value(dataset, "mi250x", "bf16.matrix") == 383
    assert value(dataset, "mi250x", "fp64.vector") == 47.9
    assert value(dataset, "mi250x", "bandwidth") == pytest.approx(3.2 * 8192 / 8)
    assert field_value(dataset.device("mi250x"), "fp8.matrix") is None
    # MI355X product page: 288 GB HBM3e, 8 TB/s, 2.5 PF BF16, 10.1 PF MXFP4, 78.6 TF FP64, 1,400 W.
    assert value(dataset, "mi355x", "memory") == 288
    assert value(dataset, "mi355x", "bandwidth") == 8000
    assert value(dataset, "mi355x", "bf16.matrix") == 2500
    assert value(dataset, "mi355x", "fp4.matrix") == 10100
    assert value(dataset, "mi355x", "fp64.vector") == 78.6
    assert value(dataset, "mi355x", "tdp") == 1400
    assert field_value(dataset.device("mi355x"), "tf32.matrix") is None  # CDNA 4 has no TF32 matrix path


def test_radeon_rx_7900_xtx(dataset):
    # AMD product page: 61.4 TFLOPS FP32, 122.8 TFLOPS FP16, 24 GB at 960 GB/s, 355 W.
    assert value(dataset, "radeon-rx-7900-xtx", "fp32.vector") == 61.4
    assert value(dataset, "radeon-rx-7900-xtx", "fp16.vector") == 122.8
    assert value(dataset, "radeon-rx-7900-xtx", "tdp") == 355


def test_epyc_9654_figures_are_cores_times_clock_times_flop_per_cycle(dataset):
    """AMD product page: 96 cores, 2.4 GHz base, 12 channels DDR5-4800, 360 W.
    Zen 4 optimization guide: two 256-bit FMA pipes per core, so 16 FP64 / 32 FP32 FLOP per cycle."""
    cores, base_ghz = 96, 2.4
    assert value(dataset, "epyc-9654", "fp64.vector") == pytest.approx(cores * base_ghz * 16 / 1000)
    assert value(dataset, "epyc-9654", "fp32.vector") == pytest.approx(cores * base_ghz * 32 / 1000)
    assert value(dataset, "epyc-9654", "bandwidth") == pytest.approx(12 * 8 * 4800 / 1000)
    assert value(dataset, "epyc-9654", "tdp") == 360
    assert dataset.device("epyc-9654")["kind"] == "cpu"
    for entry in dataset.device("epyc-9654")["compute"]:
        assert "96 cores" in entry["note"] and "2.4 GHz" in entry["note"]


def test_gaudi_3(dataset):
    # Intel Gaudi 3 white paper: 1,835 TFLOPS BF16 and FP8 on the MMEs, 28.7 BF16 vector,
    # 128 GB HBM2e, 3.7 TB/s, 24 x 200 GbE (1,200 GB/s), 900 W air-cooled OAM.
    gaudi = dataset.device("gaudi-3")
    assert gaudi["kind"] == "asic"
    assert value(dataset, "gaudi-3", "bf16.matrix") == 1835
    assert value(dataset, "gaudi-3", "fp8.matrix") == 1835
    assert value(dataset, "gaudi-3", "bf16.vector") == 28.7
    assert value(dataset, "gaudi-3", "bandwidth") == 3700
    assert value(dataset, "gaudi-3", "interconnect") == 1200
    assert value(dataset, "gaudi-3", "tdp") == 900


# --- Whole half of the data set -------------------------------------------------


@pytest.mark.parametrize("device_id", ALL_REQUIRED)
def test_every_gpu_and_cpu_states_the_basics(dataset, device_id):
    device = dataset.device(device_id)
    assert device["launch_year"] >= 2017
    assert "power" in device
    assert device["software"]
    if device_id != "dgx-spark":  # NVIDIA gives no FP32 figure for the DGX Spark
        assert field_value(device, "fp32.vector") is not None or field_value(device, "bf16.vector") is not None
