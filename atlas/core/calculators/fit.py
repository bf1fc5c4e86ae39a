"""The fit verdict: does a configuration run on the reader's devices, and if not, what would.

One function, ``verdict``, answers for both calculators (``memory`` for the VRAM calculator, ``speed`` for the
speed calculator, which adds the drafter of speculative decoding as ``extra_bytes``), so both state the same need,
the same usable memory and the same suggestions for the same configuration.

- Need per device: the memory estimate of this very configuration (``memory._per_device``: its tensor parallelism,
  ZeRO stage, replicas), the layers the reader keeps on the device (``gpu_layers``, llama.cpp) scaling weights and
  KV cache, plus ``extra_bytes``. A device whose memory is on-chip SRAM (Groq, Cerebras) keeps no runtime overhead
  in it: its runtime and program live outside that memory.
- Usable memory: the capacity, times the GPU's share on a unified-memory device (``devices.usable_bytes``).
  ``gpu_share`` in the result is that share on a unified-memory device and None on a device with memory of its own
  (``devices.unified_share``) — the one rule everywhere.
- Mixture of experts: with the reader's ``moe_offload`` on a device with its own memory (inference), the routed
  experts of some layers sit in system RAM (``memory.expert_offload``) and the device holds the rest.
- Suggestions, each from the same need: the longest context that fits, the formats that fit (most memory first),
  the number of these devices that holds one replica split evenly, the layers on the GPU (llama.cpp, a device with
  its own memory), the experts to move to system RAM, a larger configuration of the device, and the smallest other
  devices that hold it alone.

The result shapes are the ``TypedDict``s below; ``tests/test_fit_verdict_shape.py`` checks the command line's
``--json`` against them.
"""

import math
from typing import NotRequired, TypedDict

from atlas.core.calculators import defaults as d
from atlas.core.calculators import devices as dev
from atlas.core.calculators import engines
from atlas.core.calculators.inputs import Options
from atlas.core.calculators.memory import (
    MAX_CONTEXT_SEARCH,
    _largest,
    _per_device,
    _replica,
    beyond_published,
    expert_offload,
    weight_bytes,
)
from atlas.core.calculators.models import ModelSpec

SUGGESTED_FORMATS = 3  # formats that fit, most memory (bits per weight) first
SUGGESTED_DEVICES = 3  # other devices that hold the model alone, smallest memory first


class MoeOffload(TypedDict):
    """Routed experts of ``cpu_moe_layers`` of ``moe_layers`` MoE layers in system RAM (``memory.expert_offload``)."""

    mode: str  # "experts" (all of them) | "fit" (as few as needed)
    cpu_moe_layers: int
    moe_layers: int
    share: float
    gpu_gib: float  # per device
    ram_gib: float  # in all
    experts_gib: float
    usable_gib: float
    fits: bool
    ram_fits: NotRequired[bool]  # with the reader's system RAM
    ram_available_gib: NotRequired[float]
    tokens_per_s: NotRequired[float | None]  # the VRAM calculator's suggestion: decode speed with it


class RamOffload(TypedDict):
    """Layers that do not fit offloaded to the reader's system RAM (llama.cpp), all devices together."""

    ram_gib: float
    offload_gib: float
    fits: bool
    share_offloaded: float


class FormatTip(TypedDict):
    weights: str
    per_device_gib: float
    headroom_gib: float


class DeviceTip(TypedDict):
    device: str
    name: str
    capacity_gib: float
    per_device_gib: float


class Suggestions(TypedDict):
    max_context: int | None  # the longest context that fits, None when it is the one asked for
    max_context_limited_by: str | None  # "memory" | "model" | None (not even one token fits)
    formats: list[FormatTip]  # inference: formats that fit, most memory first (fits: only larger ones)
    num_devices: int | None  # does not fit: how many of these devices hold one replica split evenly
    gpu_layers: int | None  # does not fit, llama.cpp on a device with its own memory: layers that fit on it
    configuration_gib: float | None  # a memory size the device is sold in that holds it, when not the one assumed
    moe_offload: MoeOffload | None  # does not fit: the fewest MoE layers whose experts go to system RAM
    devices: list[DeviceTip]  # does not fit: the smallest other devices that hold it alone
    # training that does not fit without recomputing activations: the need per device with gradient checkpointing,
    # when that fits (PEFT's QLoRA recipe turns it on by default)
    gradient_checkpointing_gib: float | None


class Verdict(TypedDict):
    device: str | None
    name: str | None
    num_devices: int
    capacity_gib: float
    usable_gib: float
    gpu_share: float | None  # unified memory: the GPU's share of it; None: memory of its own
    need_gib: float  # per device, a drafter's memory included
    margin_gib: float  # usable minus need; negative: what is missing
    fits: bool
    speculation_gib: float  # the drafter's part of need_gib
    offload: RamOffload | None
    moe_offload: MoeOffload | None
    ram_ignored: bool  # system RAM was given but cannot help (training, unified memory, SRAM, it fits)
    configurations_gib: list[float]  # the memory sizes the device is sold in (empty: one)
    suggestions: Suggestions
    runs_instead: NotRequired[dict | None]  # speed calculator: the nearest configuration that runs, with its speed


def need_bytes(model: ModelSpec, opts: Options, device: dict, gpu_layers: int | None = None) -> float:
    """Bytes one of ``opts.placement.num_devices`` devices holds for this configuration, with ``gpu_layers`` of the model's
    layers (None: all) keeping their weights and KV cache on it; no runtime overhead on an SRAM-only device."""
    per = _per_device(model, opts, [])
    return _need(model, per, device, gpu_layers)


def _need(model: ModelSpec, per: dict, device: dict, gpu_layers: int | None) -> float:
    share = 1.0 if gpu_layers is None or gpu_layers >= model.layers else max(gpu_layers, 0) / model.layers
    overhead = 0.0 if dev.is_sram_only(device) else per["overhead"]
    return ((per["weights"] + per["kv_cache"]) * share + per["activations"] + per["gradients"] + per["optimizer"]
            + overhead)


def _with(opts: Options, **changes) -> Options:
    return opts.replace(**changes)


def _with_ram(offload: dict | None, ram_gib: float | None) -> dict | None:
    if offload and ram_gib is not None:
        offload.update({"ram_fits": offload["ram_gib"] <= ram_gib, "ram_available_gib": ram_gib})
    return offload


def verdict(model: ModelSpec, opts: Options, device: dict, *, device_id: str | None = None,
            gpu_layers: int | None = None, extra_bytes: float = 0.0, engine: str | None = None,
            ram_gib: float | None = None, device_list: dict | None = None, fit_list: list[dict] | None = None,
            suggest_when_fits: bool = True) -> Verdict:
    """Does this configuration run on ``opts.placement.num_devices`` of ``device``, and if not, what would.

    ``extra_bytes``: memory per device beside the model (the drafter of speculative decoding). ``engine``: the
    inference engine when one is chosen (the speed calculator); layers on the GPU are suggested for llama.cpp, and
    for no engine (the VRAM calculator, whose offload is llama.cpp's). ``ram_gib``: the reader's system RAM, for
    the layers (``offload``) or experts that do not fit. ``device_list``/``fit_list``: the data set's devices and
    ``memory.fits`` for them, to suggest other devices. ``suggest_when_fits``: also suggest a longer context and
    formats with more bits when it fits (the VRAM calculator); else suggestions only when it does not fit.
    """
    dev.require_own_memory(device)
    n = opts.placement.num_devices
    sram = dev.is_sram_only(device)
    unified = dev.unified(device)
    usable = dev.usable_bytes(device)
    per = _per_device(model, opts, [])
    need = _need(model, per, device, gpu_layers)
    # Mixture of experts, experts in system RAM (the reader's option; never on unified memory, where system
    # memory is the same memory, nor on SRAM-only devices): the device holds the rest.
    discrete = not opts.trains and not unified and not sram
    moe = expert_offload(model, opts, usable, opts.placement.moe_offload) if opts.placement.moe_offload and discrete else None
    if moe:
        need = moe["gpu_gib"] * d.GIB
        _with_ram(moe, ram_gib)
    total = need + extra_bytes
    fits_here = total <= usable
    offload = None
    if ram_gib is not None and not fits_here and discrete:
        offload_bytes = (total - usable) * n
        offload = {"ram_gib": ram_gib, "offload_gib": offload_bytes / d.GIB, "fits": offload_bytes <= ram_gib * d.GIB,
                   "share_offloaded": offload_bytes / (total * n)}
    memory = device["memory"]
    sizes = sorted({c["capacity_gib"] for c in memory.get("configurations", [])} or {memory["capacity_gib"]})
    out: Verdict = {
        "device": device_id,
        "name": dev.name(device) if device_id else None,
        "num_devices": n,
        "capacity_gib": dev.capacity_bytes(device) / d.GIB,
        "usable_gib": usable / d.GIB,
        "gpu_share": dev.unified_share(device),
        "need_gib": total / d.GIB,
        "margin_gib": (usable - total) / d.GIB,
        "fits": fits_here,
        "speculation_gib": extra_bytes / d.GIB,
        "offload": offload,
        "moe_offload": moe,
        "ram_ignored": ram_gib is not None and offload is None and not fits_here,
        "configurations_gib": sizes if len(sizes) > 1 else [],
        "suggestions": {"max_context": None, "max_context_limited_by": None, "formats": [], "num_devices": None,
                        "gpu_layers": None, "configuration_gib": None, "moe_offload": None, "devices": [],
                        "gradient_checkpointing_gib": None},
    }
    if fits_here and not suggest_when_fits:
        return out
    tips = out["suggestions"]

    def fits_with(o: Options) -> bool:
        return need_bytes(model, o, device, gpu_layers) + extra_bytes <= usable

    limit = model.max_context or MAX_CONTEXT_SEARCH
    longest = _largest(lambda c: fits_with(_with(opts, context=c)), 1, limit)
    tips["max_context"] = longest if longest != opts.run.context else None
    tips["max_context_limited_by"] = (None if longest is None else "model" if longest == limit and model.max_context
                                      else "memory")
    if not opts.trains:
        tips["formats"] = _formats(model, opts, device, gpu_layers, extra_bytes, usable, fits_here)
    holding = [c for c in sizes if c * d.GIB * dev.gpu_share(device) >= total]
    if len(sizes) > 1 and holding and holding[0] != dev.capacity_bytes(device) / d.GIB:
        tips["configuration_gib"] = holding[0]
    if fits_here:
        return out
    tips["num_devices"] = _devices_needed(model, opts, device, gpu_layers, extra_bytes, usable)
    if opts.trains and not opts.training.gradient_checkpointing:
        recomputed = need_bytes(model, _with(opts, gradient_checkpointing=True), device, gpu_layers) + extra_bytes
        tips["gradient_checkpointing_gib"] = recomputed / d.GIB if recomputed <= usable else None
    if discrete and engine in (None, "llama.cpp"):
        layers = next((k for k in range(model.layers - 1, 0, -1)
                       if _need(model, per, device, k) + extra_bytes <= usable), None)
        tips["gpu_layers"] = layers
        if opts.placement.moe_offload is None:
            tip = expert_offload(model, opts, usable, "fit")
            tips["moe_offload"] = _with_ram(tip, ram_gib) if tip and tip["fits"] else None
    if fit_list:
        tips["devices"] = _other_devices(device_id, device, device_list or {}, fit_list)
    return out


def _devices_needed(model: ModelSpec, opts: Options, device: dict, gpu_layers: int | None, extra_bytes: float,
                    usable: float) -> int | None:
    """How many of these devices hold it (None: more than ``MAX_DEVICES_FOR_FIT``). Inference: the fewest over
    which the model splits (tensor parallel, as the estimate splits it for that many: a KV cache that cannot be
    split by heads stays whole on each) so that each holds its part. Training: one replica fully sharded over them
    (weights, gradients, optimiser states and activations split evenly), each keeping its own runtime overhead."""
    if opts.trains:
        shardable, fixed = _replica(model, opts)
        own_fixed = 0.0 if dev.is_sram_only(device) else fixed
        if usable - extra_bytes <= own_fixed:
            return None
        count = max(1, math.ceil(shardable / (usable - extra_bytes - own_fixed) - 1e-12))
        return count if count <= d.MAX_DEVICES_FOR_FIT else None

    def short_on(m: int) -> bool:  # true, then false as m grows: the need per device falls with more devices
        return need_bytes(model, _with(opts, num_devices=m, tp=m), device, gpu_layers) + extra_bytes > usable

    most = _largest(short_on, 1, d.MAX_DEVICES_FOR_FIT)
    if most is None:
        return 1
    return most + 1 if most < d.MAX_DEVICES_FOR_FIT else None


def _formats(model: ModelSpec, opts: Options, device: dict, gpu_layers: int | None, extra_bytes: float,
             usable: float, fits_here: bool) -> list[FormatTip]:
    """Fits here: the formats with more memory that fit too; else the ones with the most memory that fit. Only
    formats an engine on this device reads (MLX's only on Apple silicon) and none beyond the published one."""
    quant = opts.quantisation
    rows = []
    for name in d.WEIGHT_FORMATS:
        if d.WEIGHT_FORMATS[name].kind == "mlx" and not engines.runs_on("mlx", device):
            continue
        if beyond_published(model, name, quant):
            continue
        need = need_bytes(model, _with(opts, weights=name), device, gpu_layers) + extra_bytes
        size = weight_bytes(model, name, quant.group_size, quant.double_quant, quant.bpw)
        rows.append((-size, name, need))
    rows.sort()
    current = weight_bytes(model, quant.weights, quant.group_size, quant.double_quant, quant.bpw)
    out, seen = [], set()
    for size, name, need in rows:
        wanted = need <= usable and name != quant.weights and (-size > current or not fits_here)
        if wanted and round(need / d.GIB, 2) not in seen:  # bf16 and fp16 take the same memory: name the first only
            seen.add(round(need / d.GIB, 2))
            out.append({"weights": name, "per_device_gib": need / d.GIB, "headroom_gib": (usable - need) / d.GIB})
    return out[:SUGGESTED_FORMATS]


def _other_devices(device_id: str | None, device: dict, device_list: dict, fit_list: list[dict]) -> list[DeviceTip]:
    """The smallest other devices that hold it alone, the same kind and segment as the reader's first."""
    unified = dev.unified(device)

    def kinship(entry: dict) -> int:
        """0: the same kind and segment as the reader's device (a GPU owner is shown GPUs first), 1: same kind."""
        other = device_list.get(entry["device"], {})
        if not device_id:
            return 0
        same_kind = other.get("kind") == device.get("kind") and dev.unified(other) == unified
        return 0 if same_kind and other.get("segment") == device.get("segment") else 1 if same_kind else 2

    others = sorted((f for f in fit_list if f["count"] == 1 and f["device"] != device_id),
                    key=lambda f: (kinship(f), f["usable_gib"], f["name"]))[:SUGGESTED_DEVICES]
    return [{"device": f["device"], "name": f["name"], "capacity_gib": f["capacity_gib"],
             "per_device_gib": f["per_device_gib"]} for f in others]
