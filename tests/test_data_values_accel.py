"""Published reference values of the TPUs, ASICs, FPGAs and NPUs in the data set.

Each assertion names the primary source the figure comes from, so a wrong
edit to a device file fails here with the source to check against. Units as
in the schema: GiB, GB/s, TFLOP/s (TOPS for integer precisions), W.
"""

import pytest

from atlas.core.calculators.fields import field_value
from atlas.data.frame import KINDS


def value(dataset, device_id: str, field: str):
    found = field_value(dataset.device(device_id), field)
    assert found is not None, f"{device_id} does not state {field}"
    return found.value


# --- Google TPUs: Cloud TPU documentation, "System architecture" of each version ---

TPUS = ("tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-v7", "tpu-8t", "tpu-8i")


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
        # Google's v5p announcement (cloud.google.com/blog/.../introducing-cloud-tpu-v5p-and-ai-hypercomputer):
        # "459 TFLOPs Bf16 / 918 TOPs INT8"; Google's JAX tpu_info.py: int8_ops_per_second 9.18e14 per chip
        ("tpu-v5p", "int8.matrix.dense", 918),
        ("tpu-v5p", "memory", 95),
        ("tpu-v5p", "bandwidth", 2765),
        ("tpu-v5p", "interconnect", 1200),
        # https://docs.cloud.google.com/tpu/docs/v6e: 918 TFLOPs bf16, 1836 TOPs int8, 32 GB, 1638 GBps
        ("tpu-v6e", "bf16.matrix.dense", 918),
        ("tpu-v6e", "int8.matrix.dense", 1836),
        ("tpu-v6e", "memory", 32),
        ("tpu-v6e", "bandwidth", 1638),
        # https://docs.cloud.google.com/tpu/docs/tpu7x: 2307 bf16, 4614 fp8, 192 GiB, "HBM bandwidth per chip
        # (GB/s)" 7380, bidirectional ICI 1200 GB/s
        ("tpu-v7", "bf16.matrix.dense", 2307),
        ("tpu-v7", "fp8.matrix.dense", 4614),
        ("tpu-v7", "memory", 192),
        ("tpu-v7", "bandwidth", 7380),
        ("tpu-v7", "interconnect", 1200),
        # "Inside the eighth-generation TPU: An architecture deep dive" (Google Cloud Blog, 2026-04-22,
        # https://cloud.google.com/blog/products/compute/tpu-8t-and-tpu-8i-technical-deep-dive), table
        # "TPU 8t and TPU 8i at a glance": "HBM Capacity" 216 / 288 GB, "HBM Bandwidth" 6,528 / 8,601 GB/s,
        # "Peak FP4 PFLOPs" 12.6 / 10.1 per chip
        ("tpu-8t", "fp4.matrix.dense", 12600),
        ("tpu-8t", "memory", 216),
        ("tpu-8t", "bandwidth", 6528),
        ("tpu-8i", "fp4.matrix.dense", 10100),
        ("tpu-8i", "memory", 288),
        ("tpu-8i", "bandwidth", 8601),
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


def test_tpu8_files_only_the_fp4_peak_google_states(dataset):
    """The deep dive gives one FP4 peak per chip; BF16 or FP8 must not be derived from it."""
    for device_id in ("tpu-8t", "tpu-8i"):
        assert [e["precision"] for e in dataset.device(device_id)["compute"]] == ["fp4"]
    # The training chip has more compute, the serving chip more and faster memory.
    assert value(dataset, "tpu-8t", "fp4.matrix.dense") > value(dataset, "tpu-8i", "fp4.matrix.dense")
    assert value(dataset, "tpu-8i", "bandwidth") > value(dataset, "tpu-8t", "bandwidth")


@pytest.mark.parametrize("device_id", ["tpu-8t", "tpu-8i"])
def test_tpu8_memory_type_is_what_google_states(dataset, device_id):
    """The deep dive says "HBM" without a generation; HBM3E comes only from analysts' reports."""
    assert field_value(dataset.device(device_id), "memory_type").value == "HBM"


def test_tpu7x_has_no_int8_figure(dataset):
    """Google's TPU7x table and its JAX tpu_info list no int8 peak; one must not be filled in by analogy."""
    assert field_value(dataset.device("tpu-v7"), "int8.matrix") is None


def test_tpu_int8_doubles_bf16_from_v5_on(dataset):
    """v4 runs int8 at the bf16 rate; v5e, v5p and v6e run it at twice the rate (Google's tables)."""
    assert value(dataset, "tpu-v4", "int8.matrix") == value(dataset, "tpu-v4", "bf16.matrix")
    for device_id in ("tpu-v5e", "tpu-v5p", "tpu-v6e"):
        ratio = value(dataset, device_id, "int8.matrix") / value(dataset, device_id, "bf16.matrix")
        assert ratio == pytest.approx(2, abs=0.01), device_id


# --- AWS Neuron documentation: Trainium2 and Inferentia2 architecture pages ---


@pytest.mark.parametrize(
    "device_id, field, expected",
    [
        # Trainium2: "1,299 FP8 TFLOPS, 667 BF16/FP16/TF32 TFLOPS, 2,563 ... sparse TFLOPS, 181 FP32 TFLOPS",
        # "96 GiB of device memory with 2.9 TB/sec", NeuronLink-v3 "1.28 TB/sec bandwidth per chip"
        ("trainium2", "fp8.matrix.dense", 1299),
        ("trainium2", "bf16.matrix.dense", 667),
        ("trainium2", "fp8.matrix.sparse", 2563),
        ("trainium2", "fp32.matrix.dense", 181),
        ("trainium2", "memory", 96),
        ("trainium2", "bandwidth", 2900),
        ("trainium2", "interconnect", 1280),
        # Trainium3: "2,517 MXFP8/MXFP4 TFLOPS, 671 BF16/FP16/TF32 TFLOPS, 2,517 FP16/BF16/TF32 sparse TFLOPS,
        # 183 FP32 TFLOPS", "144 GiB of device memory, with 4.9 TB/sec", NeuronLink-v4 "2.56 TB/sec bandwidth per device"
        ("trainium3", "fp8.matrix.dense", 2517),
        ("trainium3", "fp4.matrix.dense", 2517),
        ("trainium3", "bf16.matrix.dense", 671),
        ("trainium3", "tf32.matrix.dense", 671),
        ("trainium3", "fp32.matrix.dense", 183),
        ("trainium3", "memory", 144),
        ("trainium3", "bandwidth", 4900),
        ("trainium3", "interconnect", 2560),
        # Inferentia2: "380 INT8 TOPS, 190 FP16/BF16/cFP8/TF32 TFLOPS, and 47.5 FP32 TFLOPS", 32 GiB HBM
        ("inferentia2", "int8.matrix.dense", 380),
        ("inferentia2", "bf16.matrix.dense", 190),
        ("inferentia2", "fp32.matrix.dense", 47.5),
        ("inferentia2", "memory", 32),
        ("inferentia2", "bandwidth", 820),
    ],
)
def test_aws_reference_values(dataset, device_id, field, expected):
    assert value(dataset, device_id, field) == expected


@pytest.mark.parametrize("device_id", ["trainium2", "trainium3"])
def test_trainium_sparse_figure_is_not_filed_for_16_bit_formats(dataset, device_id):
    """AWS's one sparse figure is ~3.8x the BF16 rate (patterns beyond 2:4); filing it as BF16 sparse would mislead."""
    for field in ("bf16.matrix.sparse", "fp16.matrix.sparse", "tf32.matrix.sparse"):
        assert field_value(dataset.device(device_id), field) is None


def test_trainium3_chip_figures_match_aws_ultraserver_table(dataset):
    """AWS's Trn3 architecture page, Gen2 UltraServer (144 Trainium3): "362 PetaFLOPS of dense MXFP8 compute";
    table rows "MXFP8/MXFP4 TFLOPS 362,448", "FP16/BF16/TF32 TFLOPS 96,624", "FP32 TFLOPS 26,352",
    "Device Memory (GiB) 20,736". The per-chip figures filed from the Trainium3 page are the dense ones."""
    chips = 144
    assert chips * value(dataset, "trainium3", "fp8.matrix.dense") == 362_448
    assert chips * value(dataset, "trainium3", "bf16.matrix.dense") == 96_624
    assert chips * value(dataset, "trainium3", "fp32.matrix.dense") == 26_352
    assert chips * value(dataset, "trainium3", "memory") == 20_736


def test_trainium3_doubles_trainium2_at_fp8(dataset):
    # AWS's "2x" per chip: MXFP8 2,517 vs cFP8 1,299 TFLOPS; BF16 stays at about the same rate.
    assert value(dataset, "trainium3", "fp8.matrix.dense") / value(dataset, "trainium2", "fp8.matrix.dense") == pytest.approx(1.94, abs=0.01)
    assert value(dataset, "trainium3", "bf16.matrix.dense") / value(dataset, "trainium2", "bf16.matrix.dense") == pytest.approx(1.0, abs=0.01)


# --- SRAM-only designs ----------------------------------------------------------


def test_groq_sram_is_220_mib(dataset):
    # Groq product briefs via ALCF: 230 MB of on-chip memory (decimal) = the 220 MiB of Groq's ISCA 2020 paper.
    device = dataset.device("groq-lpu")
    assert device["memory"]["type"] == "SRAM"
    assert device["memory"]["capacity_gib"] == pytest.approx(220 / 1024, abs=0.001)
    assert device["memory"]["capacity_gib"] * 2**30 == pytest.approx(230e6, rel=0.01)


def test_groq_peaks(dataset):
    # GroqChip product description (via ALCF): 750 TOPS (INT8) and 188 TFLOPS (FP16) at 900 MHz.
    assert value(dataset, "groq-lpu", "int8.matrix.dense") == 750
    assert value(dataset, "groq-lpu", "fp16.matrix.dense") == 188
    # GroqChip brief "up to 80 TB/s on-die memory bandwidth", as quoted by TechPowerUp: the note must say so.
    assert value(dataset, "groq-lpu", "bandwidth") == 80_000
    assert "as quoted by TechPowerUp" in dataset.device("groq-lpu")["memory"]["note"]


def test_groq_c2c_bandwidth_is_both_directions_of_16_links(dataset):
    # Linley Newsletter, 10 Nov 2020: 16 chip-to-chip links of four 30 Gbit/s lanes, 480 GB/s in total.
    per_direction_gb_s = 16 * 4 * 30 / 8
    assert value(dataset, "groq-lpu", "interconnect") == 2 * per_direction_gb_s == 480


def test_cerebras_wse3_sram_and_sparse_only_peak(dataset):
    # Cerebras WSE-3 announcement: 44 GB on-chip SRAM (decimal GB), 21 PB/s, 125 PFLOPS peak AI compute.
    device = dataset.device("cerebras-wse-3")
    assert device["memory"]["type"] == "SRAM"
    assert device["memory"]["capacity_gib"] * 2**30 == pytest.approx(44e9, rel=0.01)
    assert value(dataset, "cerebras-wse-3", "bandwidth") == 21_000_000
    # 125 PFLOPS counts sparsity: it must never appear as a dense figure.
    assert value(dataset, "cerebras-wse-3", "fp16.vector.sparse") == 125_000
    assert all(e["sparsity"] == "sparse" for e in device["compute"])


def test_cerebras_peak_cannot_be_dense(dataset):
    """900,000 cores x 8 FP16 lanes x 2 FLOP (The Next Platform) would need ~8.7 GHz for 125 PFLOP/s dense."""
    flop_per_clock = 900_000 * 8 * 2
    clock_ghz_needed = value(dataset, "cerebras-wse-3", "fp16.vector.sparse") * 1e12 / flop_per_clock / 1e9
    assert clock_ghz_needed > 5
    note = dataset.device("cerebras-wse-3")["compute"][0]["note"]
    assert "names neither the precision nor whether sparsity is counted" in note


# --- Cards, SoCs, FPGAs and NPUs -----------------------------------------------


@pytest.mark.parametrize(
    "device_id, field, expected",
    [
        # Tenstorrent Wormhole n300s spec table: 24 GB GDDR6, 576 GB/s, FP8 466, FP16 131 TFLOPS, TBP 300 W
        ("tenstorrent-wormhole-n300", "memory", 24),
        ("tenstorrent-wormhole-n300", "bandwidth", 576),
        ("tenstorrent-wormhole-n300", "fp8.matrix.dense", 466),
        ("tenstorrent-wormhole-n300", "fp16.matrix.dense", 131),
        ("tenstorrent-wormhole-n300", "tdp", 300),
        # Tenstorrent Blackhole spec table (docs.tenstorrent.com/aibs/blackhole/specifications.html), p150a column:
        # 32 GB GDDR6, 512 GB/s, "TeraFLOPS (FP8)" 774, "TeraFLOPS (FP16)" 194, TBP 300W, 4x QSFP-DD 800G
        ("tenstorrent-blackhole-p150a", "memory", 32),
        ("tenstorrent-blackhole-p150a", "bandwidth", 512),
        ("tenstorrent-blackhole-p150a", "fp8.matrix.dense", 774),
        ("tenstorrent-blackhole-p150a", "fp16.matrix.dense", 194),
        ("tenstorrent-blackhole-p150a", "tdp", 300),
        ("tenstorrent-blackhole-p150a", "interconnect", 4 * 800 / 8),
        # Apple newsroom (Oct 2024): M4 Max up to 128 GB unified memory, 546 GB/s; M4 Neural Engine 38 TOPS
        ("apple-m4-max", "memory", 128),
        ("apple-m4-max", "bandwidth", 546),
        ("apple-m4-max", "int8.matrix.dense", 38),
        # Apple Mac Studio (2025) specs: M3 Ultra up to 512 GB unified memory, 819 GB/s
        ("apple-m3-ultra", "memory", 512),
        ("apple-m3-ultra", "bandwidth", 819),
        # Intel ARK, Core Ultra 9 288V: NPU Peak TOPS (Int8) 48, 32 GB on-package memory, base power 30 W
        ("intel-core-ultra-9-288v-npu", "int8.matrix.dense", 48),
        ("intel-core-ultra-9-288v-npu", "memory", 32),
        ("intel-core-ultra-9-288v-npu", "tdp", 30),
    ],
)
def test_card_soc_reference_values(dataset, device_id, field, expected):
    assert value(dataset, device_id, field) == expected


def test_blackhole_bandwidth_follows_bus_and_data_rate(dataset):
    # Tenstorrent: 256-bit GDDR6 bus at 16 GT/s
    assert value(dataset, "tenstorrent-blackhole-p150a", "bandwidth") == 256 * 16 / 8


def test_blackhole_price_is_a_dated_launch_price(dataset):
    # Hardwareluxx on Tenstorrent Dev Day (April 2025): p150a 1,299 USD when orders opened.
    price = dataset.device("tenstorrent-blackhole-p150a")["price"]
    assert (price["usd"], price["kind"], price["as_of"]) == (1299, "launch-msrp", "2025-04")
    assert "as quoted by Hardwareluxx" in price["note"]


def test_apple_neural_engine_figure_says_its_precision_is_unknown(dataset):
    """Apple's '38 trillion operations per second' names no number format; the entry must not pass it off as INT8."""
    entry = next(e for e in dataset.device("apple-m4-max")["compute"] if e["tflops"] == 38)
    assert "precision unknown" in entry["note"] and "assumption" in entry["note"]


def test_m3_ultra_gpu_peak_follows_its_stated_derivation(dataset):
    """80 cores x 128 FP32 ALUs x 2 FLOP x 1.398 GHz, as the entry's note says."""
    assert value(dataset, "apple-m3-ultra", "fp32.vector.dense") == pytest.approx(80 * 128 * 2 * 1.398 / 1000, abs=0.05)


def test_npu_bandwidth_follows_lpddr5x_8533_on_128_bits(dataset):
    assert value(dataset, "intel-core-ultra-9-288v-npu", "bandwidth") == pytest.approx(8533e6 * 16 / 1e9, abs=0.1)


def test_vc1902_ai_engine_peak_follows_amd_formula(dataset):
    # AMD PG389: 256 INT8 operations per clock per AI Engine; VC1902 has 400 AI Engines (UG1702),
    # clocked at 1.25 GHz on the VCK190's -2MP part.
    assert value(dataset, "versal-ai-core-vc1902", "int8.matrix.dense") == pytest.approx(400 * 256 * 1.25e9 / 1e12)


# --- FPGAs ---------------------------------------------------------------------

FPGAS = ("versal-ai-core-vc1902", "alveo-v80", "stratix-10-nx")


@pytest.mark.parametrize(
    "device_id, field, expected",
    [
        # AMD PG313, HBM Controller: two HBM2e stacks, "a maximum throughput of 819 GB/s";
        # AMD AMR V80 board documentation: 32 GB HBM; AMD AVED V80 design: 4x QSFP (QSFP56, 200G each)
        ("alveo-v80", "memory", 32),
        ("alveo-v80", "bandwidth", 819),
        ("alveo-v80", "interconnect", 100),
        # Langhammer et al., "Stratix 10 NX Architecture and Applications", FPGA '21:
        # "143 INT8/FP16 TOPs/FLOPs, or 286 INT4/FP12 TOPS/FLOPs at 600MHz"
        ("stratix-10-nx", "int8.matrix.dense", 143),
        ("stratix-10-nx", "int4.matrix.dense", 286),
        # Intel HBM2 IP user guide: 256 GB/s per HBM2 interface at 1 GHz, two stacks
        ("stratix-10-nx", "bandwidth", 512),
    ],
)
def test_fpga_reference_values(dataset, device_id, field, expected):
    assert value(dataset, device_id, field) == expected


def test_v80_bandwidth_is_the_hbm2e_peak_not_the_older_alveo_figure(dataset):
    """Two stacks x 1,024 bit x 3.2 Gbit/s (PG313); 460 GB/s is the HBM2 figure of U50/U55C/U280 (UG1393)."""
    hbm2e_peak = 2 * 1024 * 3.2e9 / 8 / 1e9
    assert value(dataset, "alveo-v80", "bandwidth") == pytest.approx(hbm2e_peak, abs=0.5)
    older_alveo_hbm2 = 32 * 14.375
    assert value(dataset, "alveo-v80", "bandwidth") > 1.7 * older_alveo_hbm2


def test_v80_dsp_peak_follows_its_stated_derivation(dataset):
    # 10,848 DSP58 x 3 INT8 MACs (AM004 dot-product mode) x 2 operations x 1,070 MHz (DS960, -2 at 0.88 V)
    assert value(dataset, "alveo-v80", "int8.vector.dense") == pytest.approx(10_848 * 3 * 2 * 1.07e9 / 1e12, abs=0.05)


def test_stratix_10_nx_peaks_follow_the_tensor_block_arithmetic(dataset):
    # 3,960 AI Tensor Blocks x 30 INT8 multipliers x 2 operations x 600 MHz; INT4 doubles the multipliers
    assert value(dataset, "stratix-10-nx", "int8.matrix.dense") == pytest.approx(3960 * 30 * 2 * 0.6e9 / 1e12, abs=0.5)
    assert value(dataset, "stratix-10-nx", "int4.matrix") == 2 * value(dataset, "stratix-10-nx", "int8.matrix")
    # 2 stacks x 8 channels x 128 bit x 1 GHz double data rate
    assert value(dataset, "stratix-10-nx", "bandwidth") == 2 * 8 * 128 * 2 * 1e9 / 8 / 1e9


def test_stratix_10_nx_block_floating_point_is_not_filed_as_fp16(dataset):
    """The designers' 143 'FP16' TFLOPS is shared-exponent block FP16, not IEEE FP16."""
    device = dataset.device("stratix-10-nx")
    assert {e["precision"] for e in device["compute"]} == {"int8", "int4"}
    assert "block floating point" in device["notes"]


@pytest.mark.parametrize(
    "device_id, unit",
    [
        ("versal-ai-core-vc1902", "matrix"),  # AI Engine array
        ("alveo-v80", "vector"),  # generic DSP58 slices
        ("stratix-10-nx", "matrix"),  # AI Tensor Blocks
    ],
)
def test_fpga_peaks_name_the_unit_they_run_on(dataset, device_id, unit):
    device = dataset.device(device_id)
    assert device["kind"] == "fpga"
    for entry in device["compute"]:
        assert (entry["unit"], entry["sparsity"]) == (unit, "dense"), entry
        assert entry.get("note"), f"{device_id}: an FPGA peak must say what it assumes"


def test_apple_socs_are_filed_as_gpus_with_the_reason_stated(dataset):
    for device_id in ("apple-m4-max", "apple-m3-ultra"):
        device = dataset.device(device_id)
        assert device["kind"] == "gpu"
        assert "Neural Engine" in device["notes"] and "NPU" in device["notes"]


# --- Every kind is represented --------------------------------------------------

# The GPU and CPU halves of the data set come from another branch (data-gpus);
# until it is merged those two kinds may be missing, every other kind may not.
KINDS_FROM_OTHER_BRANCH = {"gpu", "cpu"}


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_has_a_device(dataset, kind):
    devices = [d["id"] for d in dataset.devices.values() if d["kind"] == kind]
    if not devices and kind in KINDS_FROM_OTHER_BRANCH:
        pytest.skip(f"no '{kind}' device yet: that half of the data set comes from the data-gpus branch")
    assert devices, f"no device of kind '{kind}' in the data set"


def test_at_least_three_fpgas(dataset):
    fpgas = sorted(d["id"] for d in dataset.devices.values() if d["kind"] == "fpga")
    assert len(fpgas) >= 3, fpgas
    assert set(FPGAS) <= set(fpgas)
