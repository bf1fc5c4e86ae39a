"""Published reference values in the GPU/CPU half of the data set.

``PUBLISHED`` is one row per figure: device, field, the value the vendor
prints, and the document that prints it, so a failing row points at the page
to re-read. The tests below it check what a single row cannot: dense vs
sparse pairs, accumulate modes, memory technology, derived figures.
"""

import math
from datetime import date
from decimal import Decimal

import pytest

from atlas.core.calculators.fields import field_value

# The ids other engineers' pages use, by the folder each must live in.
REQUIRED = {
    "nvidia": [
        "v100-sxm2-32gb", "a100-sxm-80gb", "a100-pcie-40gb", "h100-sxm", "h100-pcie", "h200-sxm", "b200",
        "rtx-3090", "rtx-4060", "rtx-4090", "rtx-5090", "l4", "l40s", "rtx-pro-6000-blackwell", "dgx-spark",
        "b300",
    ],
    "amd": ["mi250x", "mi300x", "mi325x", "mi355x", "radeon-rx-7900-xtx", "epyc-9654"],
    "intel": ["gaudi-3"],
}
ALL_REQUIRED = [i for ids in REQUIRED.values() for i in ids]

NVIDIA_DATACENTER = [
    "v100-sxm2-32gb", "a100-sxm-80gb", "a100-pcie-40gb", "h100-sxm", "h100-pcie", "h200-sxm", "b200", "b300", "rubin", "l4", "l40s",
]

HOPPER_WP = "Hopper whitepaper V1.04, table 3 (H100 SXM5)"
HOPPER_WP_PCIE = "Hopper whitepaper V1.04, tables 1 and 3 (H100 PCIe): BF16 '756/1513', TDP '350 Watts'"
H100_PAGE = "H100 product page, H100 SXM column"
H100_BRIEF = "H100 PCIe product brief PB-11133-001"
A100_DS = "A100 80 GB datasheet (r4)"
A100_40_DS = "A100 40 GB datasheet"
V100_DS = "V100 datasheet"
H200_DS = "H200 datasheet: Tensor Core figures footnoted 'With sparsity'"
BW_DS = "Blackwell datasheet, HGX B200 per GPU"
DGX_B200 = "DGX B200 page: FP4 144 | 72 PFLOPS for eight GPUs"
# The HGX B300 column of the Blackwell Ultra datasheet as independent transcriptions quote it (the PDF was not read).
BWU_DS = "Blackwell Ultra datasheet, HGX B300 per GPU: '270 GB HBM3E | 7.7 TB/s', FP4 '18 | 14 PFLOPS', up to 1,100 W"
BWU_BLOG = "NVIDIA Blackwell Ultra blog (2025-08-22): NVLink 5 '1.8 TB/s bidirectional (18 links x 100 GB/s)'"
RUBIN_BLOG = "NVIDIA Vera Rubin platform blog (January 2026, updated 2026-03-16): 'Up to 288 GB of HBM4', 'up to 22 TB/s', tables 2-4"
L4_PAGE = "L4 product page"
L40S_PAGE = "L40S product page"
GA102_WP = "GA102 whitepaper, appendix A (RTX 3090)"
GA102_NVLINK = "GA102 whitepaper: four x4 links, '112.5 GB/sec total bandwidth between two GPUs'"
ADA_WP = "Ada whitepaper (RTX 4090)"
RTXBW_WP = "RTX Blackwell whitepaper, appendix A (RTX 5090)"
RTX4060_PAGE = "RTX 4060 product page: '242 AI TOPS' (Ada: INT8 sparse, equal to FP8 with FP16 accumulate, sparse)"
PRO6000_DS = "RTX PRO 6000 Blackwell Workstation Edition datasheet"
SPARK_PAGE = "DGX Spark product page"
CDNA3_WP = "CDNA 3 whitepaper, table 2 and endnotes MI300-11, MI325-019"
MI355X_DS = "MI355X GPU datasheet (LE-92703-00)"
RX7900_PAGE = "RX 7900 XTX product page"
EPYC_PAGE = "EPYC 9654 product page"
GAUDI3_WP = "Intel Gaudi 3 white paper"

PUBLISHED = [
    ("h100-sxm", "bf16.matrix.dense", 989.4, HOPPER_WP),
    ("h100-sxm", "bf16.matrix.sparse", 1978.9, HOPPER_WP),
    ("h100-sxm", "fp8.matrix.dense", 1978.9, HOPPER_WP),
    ("h100-sxm", "fp64.vector", 33.5, HOPPER_WP),
    ("h100-sxm", "bandwidth", 3350, H100_PAGE + ": 3.35 TB/s"),
    ("h100-sxm", "tdp", 700, H100_PAGE + ": 'Up to 700W'"),
    ("h100-sxm", "interconnect", 900, H100_PAGE),
    ("a100-sxm-80gb", "bandwidth", 2039, A100_DS),
    ("a100-sxm-80gb", "memory", 80, A100_DS),
    ("a100-sxm-80gb", "bf16.matrix.dense", 312, A100_DS),
    ("a100-pcie-40gb", "bandwidth", 1555, A100_40_DS),
    ("a100-pcie-40gb", "tdp", 250, A100_40_DS),
    ("a100-pcie-40gb", "tf32.matrix.dense", 156, A100_40_DS),
    ("v100-sxm2-32gb", "fp16.matrix.dense", 125, V100_DS),
    ("v100-sxm2-32gb", "fp64.vector", 7.8, V100_DS),
    ("v100-sxm2-32gb", "bandwidth", 900, V100_DS),
    ("h100-pcie", "bf16.matrix.sparse", 1513, HOPPER_WP_PCIE),
    ("h100-pcie", "bf16.matrix.dense", 756, HOPPER_WP_PCIE),
    ("h100-pcie", "fp8.matrix.dense", 1513, HOPPER_WP_PCIE),
    ("h100-pcie", "tdp", 350, HOPPER_WP_PCIE),
    ("h100-pcie", "bandwidth", 2000, H100_BRIEF + ": 2,000 GB/s"),
    ("h100-pcie", "fp64.vector", 26, H100_BRIEF),
    ("h200-sxm", "memory", 141, H200_DS),
    ("h200-sxm", "bandwidth", 4800, H200_DS),
    ("h200-sxm", "memory_type", "HBM3e", H200_DS),
    ("h200-sxm", "tdp", 700, H200_DS),
    ("h200-sxm", "fp8.matrix.sparse", 3958, H200_DS),
    ("b200", "fp4.matrix.sparse", 18000, BW_DS),
    ("b200", "fp4.matrix.dense", 72000 / 8, DGX_B200),
    ("b200", "bf16.matrix.dense", 2250, "HGX page: 'Dense is one-half sparse spec shown'"),
    ("b200", "memory", 180, BW_DS),
    ("b200", "bandwidth", 7700, BW_DS),
    ("b200", "tdp", 1000, BW_DS),
    ("b200", "interconnect", 1800, BW_DS),
    ("b300", "memory", 270, BWU_DS),
    ("b300", "memory_type", "HBM3e", BWU_DS),
    ("b300", "bandwidth", 7700, BWU_DS),
    ("b300", "tdp", 1100, BWU_DS),
    ("b300", "fp4.matrix.dense", 14000, BWU_DS),
    ("b300", "fp8.matrix.sparse", 9000, BWU_DS + ": FP8/FP6 '9 PFLOPS'"),
    ("b300", "fp8.matrix.dense", 4500, "HGX page: 'Dense is one-half sparse spec shown'"),
    ("b300", "bf16.matrix.sparse", 4500, BWU_DS + ": FP16/BF16 '4.5 PFLOPS'"),
    ("b300", "bf16.matrix.dense", 2250, "HGX page: 'Dense is one-half sparse spec shown'"),
    ("b300", "fp32.vector", 75, BWU_DS),
    ("b300", "fp64.vector", 1.2, BWU_DS),
    ("b300", "interconnect", 1800, BWU_BLOG),
    ("rubin", "memory", 288, RUBIN_BLOG),
    ("rubin", "memory_type", "HBM4", RUBIN_BLOG),
    ("rubin", "bandwidth", 22000, RUBIN_BLOG),
    ("rubin", "fp4.matrix.dense", 35000, RUBIN_BLOG + ": 'NVFP4 training (PFLOPS) 35', footnoted 'Dense compute'"),
    ("rubin", "fp32.vector", 130, RUBIN_BLOG + ": 'FP32 vector (TFLOPS) 130'"),
    ("rubin", "fp64.vector", 33, RUBIN_BLOG + ": 'FP64 vector (TFLOPS) 33'"),
    ("rubin", "interconnect", 3600, RUBIN_BLOG + ": NVLink 6 '3,600' GB/s bidirectional"),
    ("l4", "fp16.matrix.sparse", 242, L4_PAGE),
    ("l4", "fp16.matrix.dense", 121, L4_PAGE + ": 'one-half lower without sparsity'"),
    ("l4", "tdp", 72, L4_PAGE),
    ("l40s", "fp32.vector", 91.6, L40S_PAGE),
    ("l40s", "fp8.matrix.dense", 733, L40S_PAGE),
    ("l40s", "bandwidth", 864, L40S_PAGE),
    ("rtx-3090", "fp32.vector", 35.6, GA102_WP),
    ("rtx-3090", "int8.matrix.dense", 284, GA102_WP),
    ("rtx-3090", "interconnect", 112.5, GA102_NVLINK),
    ("rtx-4090", "fp32.vector", 82.6, ADA_WP),
    ("rtx-4090", "fp16.vector", 82.6, ADA_WP),  # on the shaders, not the Tensor Cores
    ("rtx-4090", "fp8.matrix.sparse", 660.6, ADA_WP + ", FP32 accumulate"),
    ("rtx-4090", "int8.matrix.sparse", 1321.2, ADA_WP),
    ("rtx-5090", "fp4.matrix.sparse", 3352, RTXBW_WP),
    ("rtx-5090", "fp4.matrix.dense", 1676, RTXBW_WP + ": FP4 with FP32 accumulate '1676/3352'"),
    ("rtx-5090", "tdp", 575, RTXBW_WP),
    ("rtx-4060", "int8.matrix.sparse", 242, RTX4060_PAGE),
    ("rtx-4060", "bandwidth", 272, RTX4060_PAGE + ": 17 Gbps on 128 bits"),
    ("rtx-4060", "tdp", 115, RTX4060_PAGE),
    ("rtx-pro-6000-blackwell", "memory", 96, PRO6000_DS),
    ("rtx-pro-6000-blackwell", "bandwidth", 1792, PRO6000_DS),
    ("rtx-pro-6000-blackwell", "fp32.vector", 125, PRO6000_DS),
    ("rtx-pro-6000-blackwell", "fp4.matrix.sparse", 4000, PRO6000_DS + ": '4000 AI TOPS', 'Effective FP4 TOPS with sparsity'"),
    ("rtx-pro-6000-blackwell", "tdp", 600, PRO6000_DS + ": 'Total board power: 600 W'"),
    ("dgx-spark", "memory", 128, SPARK_PAGE),
    ("dgx-spark", "bandwidth", 273, SPARK_PAGE),
    ("dgx-spark", "memory_type", "LPDDR5X", SPARK_PAGE),
    ("dgx-spark", "fp4.matrix.sparse", 1000, SPARK_PAGE + ": '1 PFLOP FP4'"),
    ("mi300x", "bf16.matrix.dense", 1307.4, CDNA3_WP),
    ("mi300x", "bf16.matrix.sparse", 2614.9, CDNA3_WP),
    ("mi300x", "fp8.matrix.dense", 2614.9, CDNA3_WP),
    ("mi300x", "fp64.matrix", 163.4, CDNA3_WP),
    ("mi300x", "tf32.matrix", 653.7, CDNA3_WP + " (table 1 misprints 490.3)"),
    ("mi300x", "interconnect", 896, CDNA3_WP + ": 'P2P ring peak aggregate I/O bandwidth 896 GB/s'"),
    ("mi300x", "memory", 192, CDNA3_WP),
    ("mi300x", "bandwidth", 5300, CDNA3_WP),
    ("mi300x", "tdp", 750, CDNA3_WP),
    ("mi325x", "memory", 256, CDNA3_WP),
    ("mi325x", "bandwidth", 6000, CDNA3_WP),
    ("mi325x", "tdp", 1000, CDNA3_WP),
    ("mi250x", "bf16.matrix", 383, CDNA3_WP),
    ("mi250x", "fp64.vector", 47.9, CDNA3_WP),
    ("mi250x", "bandwidth", 3.2 * 8192 / 8, CDNA3_WP + ": 3.2 Gbps x 8,192 bits"),
    ("mi355x", "memory", 288, MI355X_DS),
    ("mi355x", "bandwidth", 8000, MI355X_DS),
    ("mi355x", "bf16.matrix", 2516.6, MI355X_DS),
    ("mi355x", "bf16.matrix.sparse", 5033.2, MI355X_DS),
    ("mi355x", "fp8.matrix", 5033.2, MI355X_DS),
    ("mi355x", "int8.matrix", 5033.2, MI355X_DS),
    ("mi355x", "fp4.matrix", 10066.3, MI355X_DS),
    ("mi355x", "fp64.vector", 78.6, MI355X_DS),
    ("mi355x", "tdp", 1400, MI355X_DS),
    ("mi355x", "interconnect", 7 * 153.6, MI355X_DS + ": seven links of 153.6 GB/s"),
    ("radeon-rx-7900-xtx", "fp32.vector", 61.4, RX7900_PAGE),
    ("radeon-rx-7900-xtx", "fp16.vector", 122.8, RX7900_PAGE),
    ("radeon-rx-7900-xtx", "tdp", 355, RX7900_PAGE),
    ("epyc-9654", "tdp", 360, EPYC_PAGE),
    ("epyc-9654", "bandwidth", 460.8, EPYC_PAGE + ": 'Per Socket Mem BW'"),
    ("gaudi-3", "bf16.matrix", 1835, GAUDI3_WP),
    ("gaudi-3", "fp8.matrix", 1835, GAUDI3_WP),
    ("gaudi-3", "bf16.vector", 28.7, GAUDI3_WP),
    ("gaudi-3", "bandwidth", 3700, GAUDI3_WP),
    ("gaudi-3", "interconnect", 1200, GAUDI3_WP + ": 24 x 200 GbE"),
    ("gaudi-3", "tdp", 900, GAUDI3_WP + ": HL-325L air-cooled OAM"),
    # The Register, 2024-04-12, from Intel's Gaudi 3 white paper: "128GB of HBM2e VRAM with 3.7TB/s",
    # "The non-China, PCIe HL-338 has a TDP of 600 watts"
    ("gaudi-3-pcie", "memory", 128, "The Register on the Gaudi 3 white paper"),
    ("gaudi-3-pcie", "bandwidth", 3700, "The Register on the Gaudi 3 white paper"),
    ("gaudi-3-pcie", "tdp", 600, "The Register on the Gaudi 3 white paper: HL-338"),
    # Ultralytics' Jetson table (NVIDIA's module table): "16GB 128-bit LPDDR5 102.4GB/s"; NVIDIA's Jetson Orin
    # NX series datasheet: "power configurable between 10W and 25W"
    ("jetson-orin-nx-16gb", "memory", 16, "NVIDIA Jetson module table (Ultralytics guide)"),
    ("jetson-orin-nx-16gb", "bandwidth", 102.4, "NVIDIA Jetson module table (Ultralytics guide)"),
    ("jetson-orin-nx-16gb", "tdp", 25, "NVIDIA Jetson Orin NX series datasheet"),
]


def value(dataset, device_id, field):
    found = field_value(dataset.device(device_id), field)
    assert found is not None, f"{device_id} does not state {field}"
    return found.value


def entry(dataset, device_id, precision, unit, sparsity="dense"):
    return next(e for e in dataset.device(device_id)["compute"] if (e["precision"], e["unit"], e["sparsity"]) == (precision, unit, sparsity))


@pytest.mark.parametrize("device_id, field, expected, document", PUBLISHED, ids=lambda v: v if isinstance(v, str) else None)
def test_published_value(dataset, device_id, field, expected, document):
    wanted = pytest.approx(expected) if isinstance(expected, float) else expected
    assert value(dataset, device_id, field) == wanted, document


@pytest.mark.parametrize("folder", sorted(REQUIRED))
def test_required_devices_are_in_their_vendor_folder(dataset, folder):
    for device_id in REQUIRED[folder]:
        assert device_id in dataset.devices, device_id
        assert dataset.files["devices"][device_id] == f"data/hardware/{folder}/{device_id}.yaml"


@pytest.mark.parametrize("device_id", ALL_REQUIRED)
def test_sources_are_dated_and_published(dataset, device_id):
    for key, source in dataset.device(device_id)["sources"].items():
        # read during the catalogue's audit (2 December 2026) or since, never in the future
        assert "2026-12-02" <= str(source["accessed"]) <= date.today().isoformat(), (device_id, key)
        assert source.get("publisher"), (device_id, key)


@pytest.mark.parametrize("device_id", ALL_REQUIRED)
def test_every_gpu_and_cpu_states_the_basics(dataset, device_id):
    device = dataset.device(device_id)
    assert device["launch_year"] >= 2017
    assert "power" in device
    assert device["software"]
    if device_id != "dgx-spark":  # NVIDIA gives no FP32 figure for the DGX Spark
        assert field_value(device, "fp32.vector") is not None or field_value(device, "bf16.vector") is not None


# --- NVIDIA data centre -----------------------------------------------------


def test_nvidia_datacenter_parts(dataset):
    for device_id in NVIDIA_DATACENTER:
        device = dataset.device(device_id)
        assert (device["vendor"], device["kind"], device["segment"]) == ("NVIDIA", "gpu", "datacenter")


def test_v100_has_fp16_tensor_cores_only(dataset):
    v100 = dataset.device("v100-sxm2-32gb")
    assert {e["precision"] for e in v100["compute"] if e["unit"] == "matrix"} == {"fp16"}
    assert all(e["sparsity"] == "dense" for e in v100["compute"])  # no sparsity before Ampere


def test_h200_dense_tensor_figures_are_derived_halves_of_the_sparse_ones(dataset):
    # The H200 datasheet and product page footnote the Tensor Core figures "With sparsity" and state
    # no dense figure; the dense ones are filed as derived (one half, the 2:4 rule), never as stated.
    h200 = dataset.device("h200-sxm")
    assert '"With sparsity"' in h200["notes"]
    for precision in ("tf32", "bf16", "fp16", "fp8", "int8"):
        dense = entry(dataset, "h200-sxm", precision, "matrix", "dense")
        assert dense["origin"] == "derived" and "one half" in dense["method"]
        assert dense["tflops"] == pytest.approx(value(dataset, "h200-sxm", f"{precision}.matrix.sparse") / 2)


def test_b200_states_its_power_configuration(dataset):
    assert "1,000 W" in dataset.device("b200")["power"]["note"]
    assert "1,000 W" in dataset.device("b200")["notes"]


def test_b300_keeps_the_hgx_configuration_and_no_unpaired_fp4_sparse_figure(dataset):
    # HGX B300 (1,100 W, 270 GB usable), not GB300 NVL72 (1,400 W, 279 GB) nor the chip's 288 GB.
    b300 = dataset.device("b300")
    assert "1,100 W" in b300["power"]["note"] and "1,100 W" in b300["notes"]
    assert "288 GB" in b300["memory"]["note"] and "279 GB" in b300["memory"]["note"]
    # NVIDIA's FP4 '18 | 14' is not a 2:4 pair (1.3x); only the stated dense figure is filed.
    assert field_value(b300, "fp4.matrix.sparse") is None
    assert "18 | 14" in entry(dataset, "b300", "fp4", "matrix")["note"]
    # Blackwell Ultra trades FP64 for low-precision throughput: about 1/30 of B200's.
    assert value(dataset, "b300", "fp64.vector") < value(dataset, "b200", "fp64.vector") / 25
    assert field_value(b300, "int8.matrix") is None  # the two NVIDIA documents disagree
    # TF32: half the datasheet's sparse 2.2 PFLOPS per its footnote, not the HGX page's 18 PFLOPS / 8 / 2 = 1.125.
    assert value(dataset, "b300", "tf32.matrix.dense") == value(dataset, "b300", "tf32.matrix.sparse") / 2 == 1100
    assert entry(dataset, "b300", "tf32", "matrix")["source"] == "datasheet"


def test_rubin_files_no_emulated_or_compressed_peak(dataset):
    rubin = dataset.device("rubin")
    # 'NVFP4 inference 50 PFLOPS' counts adaptive compression; FP32/FP64 matrix figures are emulated.
    assert value(dataset, "rubin", "fp4.matrix.dense") == 35000
    assert field_value(rubin, "fp4.matrix.sparse") is None
    assert field_value(rubin, "fp32.matrix") is None and field_value(rubin, "fp64.matrix") is None
    assert "50 PFLOPS" in entry(dataset, "rubin", "fp4", "matrix")["note"]
    assert "Dense compute" in entry(dataset, "rubin", "fp4", "matrix")["note"]  # Table 2's footnote since March 2026
    # The blog gives no 16-bit, FP8 or power figure; the product page's preliminary ones are not filed unread.
    for field in ("bf16.matrix", "fp8.matrix", "tdp"):
        assert field_value(rubin, field) is None, field


# Pairs the vendor itself prints inconsistently; kept as published and explained in the device's note.
PUBLISHED_INCONSISTENT_PAIRS = {("l40s", "bf16", "matrix"), ("l40s", "fp16", "matrix")}


def sparse_dense_pairs(device):
    figures = {(e["precision"], e["unit"], e["sparsity"]): e["tflops"] for e in device["compute"]}
    for (precision, unit, sparsity), sparse in figures.items():
        if sparsity == "sparse" and (precision, unit, "dense") in figures:
            yield precision, unit, figures[(precision, unit, "dense")], sparse


def last_digit(figure):
    """One unit in the last digit a figure is printed with: 1978.9 -> 0.1, 1513 -> 1."""
    return 10.0 ** Decimal(repr(figure)).as_tuple().exponent


def test_last_digit():
    assert (last_digit(1978.9), last_digit(1513), last_digit(362.05)) == (pytest.approx(0.1), 1, pytest.approx(0.01))


def test_nvidia_datacenter_sparse_figures_are_twice_dense(dataset):
    """Since Ampere, 2:4 sparsity exactly doubles Tensor Core throughput.

    Both figures are rounded to the digits they are printed with, so the sparse
    one may differ from twice the dense one by one unit in the dense figure's
    last digit plus half a unit in its own (989.4 x 2 = 1,978.8 is printed
    1,978.9; the H100 PCIe whitepaper column prints 756 and 1513).
    """
    checked = 0
    for device_id in NVIDIA_DATACENTER:
        device = dataset.device(device_id)
        for precision, unit, dense, sparse in sparse_dense_pairs(device):
            if (device_id, precision, unit) in PUBLISHED_INCONSISTENT_PAIRS:
                assert "does not match" in entry(dataset, device_id, precision, unit)["note"]
                continue
            slack = last_digit(dense) + last_digit(sparse) / 2
            assert math.isclose(sparse, 2 * dense, abs_tol=slack + 1e-9), (device_id, precision, dense, sparse)
            checked += 1
    assert checked >= 30  # the A100s, H100s, B200, L4 and L40S state 34 pairs


# --- Consumer and workstation cards --------------------------------------------

CONSUMER = ["rtx-3090", "rtx-4060", "rtx-4090", "rtx-5090", "radeon-rx-7900-xtx"]


def test_no_consumer_or_workstation_card_claims_hbm(dataset):
    cards = [d for d in dataset.devices.values() if d["kind"] == "gpu" and d["segment"] in ("consumer", "workstation")]
    assert {d["id"] for d in cards} >= set(CONSUMER) | {"rtx-pro-6000-blackwell", "dgx-spark"}
    for device in cards:
        assert not device["memory"]["type"].upper().startswith("HBM"), device["id"]


@pytest.mark.parametrize(
    "device_id, fp32_accumulate, fp16_accumulate, fp32",
    [
        ("rtx-3090", 71, "142", 35.6),  # GA102 whitepaper, appendix A
        ("rtx-4090", 165.2, "330.3", 82.6),  # Ada whitepaper
        ("rtx-5090", 209.5, "419", 104.8),  # RTX Blackwell whitepaper
    ],
)
def test_geforce_tensor_figures_use_fp32_accumulate(dataset, device_id, fp32_accumulate, fp16_accumulate, fp32):
    """GeForce Tensor Cores run FP16 at half rate when accumulating in FP32, which training uses.
    The data set stores that rate; the FP16-accumulate rate appears only in the note."""
    assert value(dataset, device_id, "bf16.matrix.dense") == fp32_accumulate
    assert value(dataset, device_id, "fp16.matrix.dense") == fp32_accumulate
    note = entry(dataset, device_id, "fp16", "matrix")["note"]
    assert "FP32 accumulate" in note and fp16_accumulate in note
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


def test_rtx_4060_ai_tops_are_filed_as_int8(dataset):
    """NVIDIA's "242 AI TOPS" name no precision. On Ada the sparse INT8 rate and the sparse
    FP8 rate with FP16 accumulate are this figure: 24 SMs x 2,048 operations per SM and clock
    x 2.46 GHz boost, doubled by 2:4 sparsity. GeForce FP8 figures here use FP32 accumulate,
    which runs at half that rate, so the figure is filed as INT8 and no FP8 figure is stored."""
    rtx4060 = dataset.device("rtx-4060")
    assert value(dataset, "rtx-4060", "int8.matrix.sparse") == pytest.approx(24 * 2048 * 2.46 * 2 / 1000, abs=0.5)
    assert not any(e["precision"] == "fp8" for e in rtx4060["compute"])
    # The RTX 4090's INT8 sparse figure is the same kind of number: its "AI TOPS".
    assert value(dataset, "rtx-4090", "int8.matrix.sparse") == pytest.approx(1321.2)


def test_sparse_only_vendor_figures_get_only_derived_dense_twins(dataset):
    for device_id in ("rtx-4060", "rtx-pro-6000-blackwell", "dgx-spark"):
        compute = dataset.device(device_id)["compute"]
        sparse = {e["precision"]: e["tflops"] for e in compute if e["unit"] == "matrix" and e["sparsity"] == "sparse"}
        for e in compute:
            if e["unit"] == "matrix" and e["sparsity"] == "dense":
                assert e["origin"] == "derived" and e["tflops"] == pytest.approx(sparse[e["precision"]] / 2), device_id


# --- AMD, Intel and the CPU -------------------------------------------------------


def test_mi355x_datasheet_figures(dataset):
    """AMD's datasheet gives exact figures; the product page rounds them to one decimal in PFLOPS
    (2.5, 5.0, 10.1). Sparse figures are exactly twice dense and exist only for FP16, BF16, FP8 and INT8."""
    mi355x = dataset.device("mi355x")
    rounded = {"bf16": 2.5, "fp16": 2.5, "fp8": 5.0, "int8": 5.0, "fp6": 10.1, "fp4": 10.1}
    for precision, pflops in rounded.items():
        assert round(value(dataset, "mi355x", f"{precision}.matrix") / 1000, 1) == pflops, precision
    for precision, _unit, dense, sparse in sparse_dense_pairs(mi355x):
        assert math.isclose(sparse, 2 * dense, abs_tol=0.1 + 1e-9), precision
    assert {e["precision"] for e in mi355x["compute"] if e["sparsity"] == "sparse"} == {"bf16", "fp16", "fp8", "int8"}
    # 256 CUs x 2.4 GHz x 4,096 FP16 FLOP per CU and clock
    assert value(dataset, "mi355x", "fp16.matrix") == pytest.approx(256 * 2.4 * 4096 / 1000, abs=0.05)


def test_mi300x_and_mi325x_share_compute(dataset):
    # Same die and clock; the CDNA 3 whitepaper prints identical compute columns.
    figures = {i: {(e["precision"], e["unit"], e["sparsity"]): e["tflops"] for e in dataset.device(i)["compute"]} for i in ("mi300x", "mi325x")}
    assert figures["mi300x"] == figures["mi325x"]


def test_missing_precisions_stay_missing(dataset):
    assert field_value(dataset.device("mi250x"), "fp8.matrix") is None  # CDNA 2: no FP8
    assert not any(e["sparsity"] == "sparse" for e in dataset.device("mi250x")["compute"])  # nor sparsity
    assert field_value(dataset.device("mi355x"), "tf32.matrix") is None  # CDNA 4: no TF32 matrix path
    assert field_value(dataset.device("a100-sxm-80gb"), "fp8.matrix") is None  # Ampere: no FP8


def test_epyc_9654_figures_are_cores_times_clock_times_flop_per_cycle(dataset):
    """AMD product page: 96 cores, 2.4 GHz base, 12 channels DDR5-4800.
    Zen 4 optimization guide: two 256-bit FMA pipes per core, so 16 FP64 / 32 FP32 FLOP per cycle."""
    cores, base_ghz = 96, 2.4
    assert value(dataset, "epyc-9654", "fp64.vector") == pytest.approx(cores * base_ghz * 16 / 1000)
    assert value(dataset, "epyc-9654", "fp32.vector") == pytest.approx(cores * base_ghz * 32 / 1000)
    assert value(dataset, "epyc-9654", "bandwidth") == pytest.approx(12 * 8 * 4800 / 1000)
    # A typical configuration, not the 6 TB platform maximum: one 32 GB RDIMM per channel.
    assert value(dataset, "epyc-9654", "memory") == 12 * 32
    assert "6 TB" in dataset.device("epyc-9654")["memory"]["note"]
    assert dataset.device("epyc-9654")["kind"] == "cpu"
    for compute in dataset.device("epyc-9654")["compute"]:
        assert "96 cores" in compute["note"] and "2.4 GHz" in compute["note"]


def test_gaudi_3_is_an_asic(dataset):
    assert (dataset.device("gaudi-3")["kind"], dataset.device("gaudi-3")["vendor"]) == ("asic", "Intel")


def test_gaudi_3_pcie_compute_is_the_oam_peak_marked_as_an_estimate(dataset):
    """No stored source states the HL-338 card's peaks: they are the OAM's, and must say so."""
    for precision in ("bf16", "fp8"):
        card = entry(dataset, "gaudi-3-pcie", precision, "matrix")
        oam = entry(dataset, "gaudi-3", precision, "matrix")
        assert card["tflops"] == oam["tflops"]
        assert card.get("origin") == "estimate" and "gaudi-3 entry" in card["method"]


def test_jetson_orin_nx_gpu_estimates_follow_the_agx_orin_tensor_core_rate(dataset):
    """The Orin NX 16GB GPU figures scale the AGX Orin's stated GPU split (171 sparse TOPS on 64 Tensor Cores
    at 1.3 GHz) to 32 Tensor Cores at 918 MHz; the dense figure is half the sparse one."""
    agx = entry(dataset, "jetson-agx-orin-64gb", "int8", "matrix", "sparse")["tflops"]
    per_core_clock = agx / (64 * 1.3)
    sparse = entry(dataset, "jetson-orin-nx-16gb", "int8", "matrix", "sparse")
    dense = entry(dataset, "jetson-orin-nx-16gb", "int8", "matrix", "dense")
    assert sparse["tflops"] == pytest.approx(per_core_clock * 32 * 0.918, abs=0.05)
    assert dense["tflops"] == pytest.approx(sparse["tflops"] / 2, abs=0.05)
    assert {sparse.get("origin"), dense.get("origin")} == {"estimate"}
    # The module's headline 100 TOPS counts the DLA too and must not be filed as a GPU figure.
    assert all(e["tflops"] != 100 for e in dataset.device("jetson-orin-nx-16gb")["compute"])
