"""The device figures the estimators use, looked up in one place.

Peaks are always *dense* figures (a sparse figure never applies to dense
work), from the matrix unit of the requested precision when the device states
one, else from its vector unit. When the vendor publishes only the 2:4-sparse
matrix figure (NVIDIA's H200, some GeForce and workstation cards), the dense
peak is that figure times ``defaults.SPARSE_TO_DENSE`` (one half), and the
result says so. When the device lacks the precision, the lookup falls back
along ``defaults.PRECISION_FALLBACKS`` and says so.
Units: capacity in bytes, bandwidth in bytes/s, peaks in TFLOP/s (TOPS for
integer precisions), power in W.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from atlas.core.calculators.defaults import GB, GIB, MATRIX_RATE_RATIO, PRECISION_FALLBACKS, SPARSE_TO_DENSE
from atlas.core.calculators.messages import ValidationError, error
from atlas.core.l10n.names import device_name

# memory.type of an accelerator without memory of its own (Hailo-8: a vision accelerator beside a host); its
# capacity and bandwidth are null in the data set.
NO_MEMORY = "none"


@dataclass(frozen=True)
class Peak:
    """A device's dense peak for a precision, and how it was found."""

    tflops: float
    precision: str  # the precision the figure is for
    unit: str  # "matrix" or "vector"
    requested: str  # the precision asked for
    from_sparse: float | None = None  # the vendor's sparse figure this dense peak was derived from
    scaled_from: str | None = None  # precision of the matrix figure this peak was scaled from (an estimate)
    origin: str = "stated"  # stated, derived or estimate (as the data set marks the figure)

    @property
    def fell_back(self) -> bool:
        return self.precision != self.requested


def name(device: dict, lang: str = "en") -> str:
    """The name a result or picker shows (``short_name``, else ``name``), in ``lang``: German translates the
    descriptive words ("16-core CPU" -> "16-Kern-CPU", see ``atlas.core.l10n.names``)."""
    return device_name(device.get("short_name") or device["name"], lang)



def has_own_memory(device: dict) -> bool:
    """False for an accelerator without memory of its own to hold a model (``memory.type`` "none")."""
    return str(device.get("memory", {}).get("type", "")).lower() != NO_MEMORY


def require_own_memory(device: dict, field: str = "device") -> None:
    """Refuse a device without memory of its own: no language-model estimate is meaningful for it.

    Raises ``ValidationError`` on ``field`` (``device``, or ``baseline`` for the speed calculator's baseline), so
    every front end shows the localized message (``error.device_without_memory``) at the field that chose it."""
    if not has_own_memory(device):
        raise ValidationError([error(field, "error.device_without_memory", device=name(device))])


def configurations(device: dict) -> list[dict]:
    """The memory configurations the device is sold with (one, the default, when the data lists none)."""
    memory = device["memory"]
    listed = memory.get("configurations")
    if listed:
        return [{"bandwidth_gb_s": memory["bandwidth_gb_s"], **c} for c in listed]
    return [{"capacity_gib": memory["capacity_gib"], "bandwidth_gb_s": memory["bandwidth_gb_s"]}]


def configured(device: dict, capacity_gib: float | None = None, label: str | None = None) -> dict:
    """The device with the memory configuration of ``capacity_gib`` (and ``label`` for binned chips).

    Returns the device unchanged when neither is given; raises KeyError when no configuration matches.
    """
    if capacity_gib is None and label is None:
        return device
    for config in configurations(device):
        if capacity_gib is not None and config["capacity_gib"] != capacity_gib:
            continue
        if label is not None and config.get("label") != label:
            continue
        memory = {**device["memory"], "capacity_gib": config["capacity_gib"], "bandwidth_gb_s": config["bandwidth_gb_s"]}
        return {**device, "memory": memory}
    raise KeyError(capacity_gib)


# A device choice with a memory size: "apple-m3-max@64" is the Apple M3 Max with 64 GiB. The plain id is the
# default configuration, so links and command lines written before sizes were choices keep their meaning.
CHOICE_SEPARATOR = "@"


def split_choice(value: str) -> tuple[str, float | None]:
    """``(device id, GiB)`` of a device choice; GiB is None for a plain id. ``ValueError`` for a bad size."""
    device_id, sep, size = value.partition(CHOICE_SEPARATOR)
    if not sep:
        return device_id, None
    gib = float(size.strip().replace(",", "."))
    if not math.isfinite(gib) or gib <= 0 or gib > 1_000_000:
        raise ValueError(size)
    return device_id, gib


def plain_id(choice: str) -> str:
    """The data set's id of a device choice ("apple-m3-max@64" -> "apple-m3-max"): what prices are filed under."""
    return choice.partition(CHOICE_SEPARATOR)[0]


def choice_value(device_id: str, device: dict, capacity_gib: float) -> str:
    """The choice value of ``device`` with ``capacity_gib``: the plain id for its default configuration."""
    if capacity_gib == device["memory"]["capacity_gib"]:
        return device_id
    size = int(capacity_gib) if float(capacity_gib).is_integer() else capacity_gib
    return f"{device_id}{CHOICE_SEPARATOR}{size}"


def choices(device_id: str, device: dict) -> list[tuple[str, float]]:
    """``(choice value, GiB)`` for each memory configuration of the device, the default first, then by size; none
    for a device without memory of its own, which the calculators' device pickers therefore leave out."""
    if not has_own_memory(device):
        return []
    default = device["memory"]["capacity_gib"]
    sizes = sorted({c["capacity_gib"] for c in configurations(device)} | {default}, key=lambda c: (c != default, c))
    return [(choice_value(device_id, device, c), c) for c in sizes]


def chosen(device: dict, capacity_gib: float | None) -> dict:
    """The device with ``capacity_gib`` of memory: a configuration the data set lists (with its bandwidth), else
    the size the reader owns with the device's bandwidth. The data set's GPU share of unified memory is kept."""
    if capacity_gib is None:
        return device
    try:
        return configured(device, capacity_gib)
    except KeyError:
        return {**device, "memory": {**device["memory"], "capacity_gib": capacity_gib}}


def with_gpu_percent(device: dict, percent: float | None) -> dict:
    """The device with the GPU allowed ``percent`` of its unified memory (the reader's system setting, e.g. macOS
    ``iogpu.wired_limit_mb`` or the Linux GTT limit); unchanged when ``percent`` is None or the device has memory of
    its own (no ``memory.gpu_share``)."""
    share = device["memory"].get("gpu_share")
    if percent is None or not share:
        return device
    reader = {**share, "default_share": percent / 100, "platform_share": share["default_share"], "set_by_reader": True}
    return {**device, "memory": {**device["memory"], "gpu_share": reader}}


def gpu_share(device: dict) -> float:
    """Share of the memory the GPU may use by default (1 unless the data set records a unified-memory limit)."""
    share = device["memory"].get("gpu_share")
    return share["default_share"] if share else 1.0


def unified(device: dict) -> bool:
    """Whether the device's memory is shared with the CPU (the data set records a GPU share): "system memory" is
    then the same memory, so nothing is offloaded to it."""
    return bool(device.get("memory", {}).get("gpu_share"))


def unified_share(device: dict) -> float | None:
    """The GPU's share of a unified memory as results report it (``gpu_share``): None for memory of its own."""
    return gpu_share(device) if unified(device) else None


def usable_bytes(device: dict) -> float:
    """Memory a model may use: the capacity, times the GPU's share on a unified-memory device."""
    return capacity_bytes(device) * gpu_share(device)


def capacity_bytes(device: dict) -> float:
    """Memory capacity in bytes (the data set stores GiB); 0 for a device without memory of its own, which holds
    no model (lists of all devices, such as ``memory.fits``, then count it as holding nothing)."""
    if not has_own_memory(device):
        return 0.0
    return device["memory"]["capacity_gib"] * GIB


def bandwidth_bytes_s(device: dict) -> float:
    """Peak memory bandwidth in bytes/s (the data set stores GB/s). A device without memory of its own is refused
    (``require_own_memory``): there is no bandwidth to estimate a speed from."""
    require_own_memory(device)
    return device["memory"]["bandwidth_gb_s"] * GB


def is_sram_only(device: dict) -> bool:
    """True when the device computes from on-chip SRAM only (no HBM/DRAM), e.g. Groq, Cerebras."""
    return device["memory"]["type"].upper().startswith("SRAM")


def tdp_w(device: dict) -> float | None:
    power = device.get("power")
    return power["tdp_w"] if power else None


def compute_entry(device: dict, precision: str, unit: str, sparsity: str = "dense",
                  accumulate: str | None = None) -> dict | None:
    """The compute entry of ``precision`` on ``unit`` with ``sparsity`` that frameworks use, or None.

    Where a device lists a precision twice (FP16 and FP32 accumulate on GeForce cards), the FP32-accumulate
    entry is the one frameworks and this lookup use. Figures of a separate NPU (``component: npu``, e.g.
    Apple's Neural Engine) are not the GPU's and are skipped.
    """
    matching = [e for e in device.get("compute", []) if e.get("component", "main") != "npu"
                and (e["precision"], e["unit"], e["sparsity"]) == (precision, unit, sparsity)]
    if accumulate:
        wanted = [e for e in matching if e.get("accumulate") == accumulate]
        if wanted:
            return wanted[0]
    default = [e for e in matching if e.get("accumulate") in (None, "fp32", "int32")]
    return (default or matching or [None])[0]


def figure(device: dict, precision: str, unit: str, sparsity: str = "dense") -> float | None:
    """The TFLOP/s of ``precision`` on ``unit`` with ``sparsity`` (see ``compute_entry``), or None."""
    entry = compute_entry(device, precision, unit, sparsity)
    return entry["tflops"] if entry else None


def dense_figure(device: dict, precision: str, unit: str) -> float | None:
    """The dense TFLOP/s of ``precision`` on ``unit``, or None."""
    return figure(device, precision, unit, "dense")


def _matrix(device: dict, candidate: str, requested: str, accumulate: str | None = None) -> Peak | None:
    """The dense matrix peak of ``candidate``: stated or derived, else half the sparse figure."""
    entry = compute_entry(device, candidate, "matrix", "dense", accumulate)
    if entry:
        origin = entry.get("origin", "stated")
        sparse = figure(device, candidate, "matrix", "sparse") if origin == "derived" else None
        # A dense figure the data set derives as one half of the sparse one keeps where it came from.
        from_sparse = sparse if sparse and abs(sparse * SPARSE_TO_DENSE.value - entry["tflops"]) <= 1e-6 * sparse else None
        return Peak(entry["tflops"], candidate, "matrix", requested, from_sparse=from_sparse, origin=origin)
    sparse = figure(device, candidate, "matrix", "sparse")
    if sparse:
        return Peak(sparse * SPARSE_TO_DENSE.value, candidate, "matrix", requested, from_sparse=sparse,
                    origin="derived")
    return None


def _scaled(device: dict, wanted: str, requested: str) -> Peak | None:
    """An estimate of ``wanted`` on the matrix unit from the nearest matrix precision the device states.

    Used only when the device states a matrix figure, but none in ``wanted``'s fallback chain (Rubin files
    FP4 only, the RTX PRO 6000 Blackwell sparse FP4 only): tensor cores halve their rate for each doubling
    of the operand width (``defaults.MATRIX_RATE_RATIO``).
    """
    if wanted not in MATRIX_RATE_RATIO.value:
        return None
    best = None
    for other, ratio in MATRIX_RATE_RATIO.value.items():
        found = _matrix(device, other, requested)
        if found is None:
            continue
        distance = abs(math.log2(ratio / MATRIX_RATE_RATIO.value[wanted]))
        if best is None or distance < best[0]:
            best = (distance, found, ratio)
    if best is None:
        return None
    _, found, ratio = best
    tflops = found.tflops * MATRIX_RATE_RATIO.value[wanted] / ratio
    return Peak(tflops, wanted, "matrix", requested, from_sparse=found.from_sparse, scaled_from=found.precision,
                origin="estimate")


def peak(device: dict, precision: str) -> Peak | None:
    """The dense peak to use for ``precision``; None if the device states nothing usable.

    Order: the requested precision on the matrix unit (dense, else half the
    sparse figure), then on the vector unit; then the other precisions of the
    fallback chain on the matrix unit; then an estimate scaled from the
    nearest matrix precision the device states (never a drop from a matrix
    unit to a vector unit while the device has any matrix figure); only then
    the chain's vector figures.
    """
    found = _matrix(device, precision, precision)
    if found:
        return found
    tflops = dense_figure(device, precision, "vector")
    if tflops:
        return Peak(tflops, precision, "vector", precision)
    return matrix_peak(device, PRECISION_FALLBACKS.get(precision, (precision,)), requested=precision)


def matrix_peak(device: dict, wanted: tuple[str, ...], requested: str | None = None,
                accumulate: str | None = None) -> Peak | None:
    """The first matrix peak of ``wanted``, else one scaled from another matrix figure, else a vector figure.

    ``accumulate``: the accumulator the kernels use (fp16 for llama.cpp's FP16 matrix products on CUDA), taken
    where the device lists a separate rate for it.
    """
    requested = requested or wanted[0]
    for candidate in wanted:
        found = _matrix(device, candidate, requested, accumulate)
        if found:
            return found
    scaled = _scaled(device, wanted[0], requested)
    if scaled:
        return scaled
    for candidate in wanted + ("fp32",):
        tflops = dense_figure(device, candidate, "vector")
        if tflops:
            return Peak(tflops, candidate, "vector", requested)
    return None
