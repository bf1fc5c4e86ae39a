"""Speed estimates: how long a workload takes on a device, and how much faster B is than A.

Roofline (``calculators.roofline``): time = max(FLOPs / (peak x compute
efficiency), bytes / (bandwidth x memory efficiency)); the larger term names
the bound. Arithmetic intensity (FLOP/byte) of the workload is compared with
the device's critical intensity (peak / bandwidth). Energy: device-hours at
TDP (``calculators.energy``). Units: FLOPs and bytes are plain counts, peaks TFLOP/s,
bandwidth GB/s in results, time in seconds, energy in kWh, cost in US$.

Workloads (per unit of work):
- ``decode``: one step generating one token for each of ``batch`` sequences
  at position ``context``: reads the weights it needs once and the whole KV cache;
- ``prefill``: a prompt of ``context`` tokens for each of ``batch`` sequences;
- ``training``: ``tokens`` tokens at 6 FLOPs (8 with recomputation) per active
  parameter, modelled compute-bound (model FLOPs utilisation as efficiency);
- ``kernel``: given ``flops`` and ``bytes``.
With ``num_devices`` > 1 the work splits evenly (communication not modelled).
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators import defaults as d
from calculators import devices as dev
from calculators import roofline
from calculators.energy import energy_kwh
from calculators.memory import kv_cache_bytes, weight_bytes
from calculators.messages import Message, ValidationError, error
from calculators.models import ModelSpec

WORKLOADS = ("decode", "prefill", "training", "kernel")


@dataclass(frozen=True)
class SpeedOptions:
    workload: str = "decode"
    weights: str = "bf16"
    precision: str | None = None  # compute precision; None: the weight format's
    kv_cache: str = "fp16"
    context: int = 4096
    batch: int = 1
    group_size: int = 128
    double_quant: bool = True
    num_devices: int = 1
    tokens: float = 1e9  # training tokens
    gradient_checkpointing: bool = False
    flops: float | None = None  # kernel
    bytes: float | None = None  # kernel
    compute_efficiency: float | None = None
    memory_efficiency: float | None = None
    price_per_hour: float | None = None  # US$ per device-hour

    @property
    def compute_precision(self) -> str:
        return self.precision or d.WEIGHT_FORMATS[self.weights].compute

    def efficiency(self, kind: str) -> float:
        given = self.compute_efficiency if kind == "compute" else self.memory_efficiency
        return given if given is not None else d.EFFICIENCIES[self.workload][kind].value


@dataclass(frozen=True)
class Work:
    """One unit of a workload: FLOPs, bytes moved (None: not modelled) and tokens (None: not tokens)."""

    flops: float
    bytes: float | None
    tokens: float | None


def workload(model: ModelSpec | None, opts: SpeedOptions) -> Work:
    """FLOPs, bytes and tokens of one unit of ``opts.workload``."""
    if opts.workload == "kernel":
        return Work(opts.flops or 0.0, opts.bytes or 0.0, None)
    assert model is not None
    all_weights = weight_bytes(model, opts.weights, opts.group_size, opts.double_quant)
    attention = 4 * model.heads * model.head_dim  # QK^T and AV: 2 FLOPs per multiply-add, twice
    if opts.workload == "decode":
        touched = model.params_touched(opts.batch) / model.params
        read = all_weights * touched + kv_cache_bytes(model, opts.kv_cache, opts.context, opts.batch)
        flops = opts.batch * (2 * model.active + attention * model.attention_span(opts.context))
        return Work(flops, read, opts.batch)
    if opts.workload == "prefill":
        tokens = opts.context * opts.batch
        touched = model.params_touched(tokens) / model.params
        moved = all_weights * touched + kv_cache_bytes(model, opts.kv_cache, opts.context, opts.batch)
        flops = 2 * model.active * tokens + opts.batch * attention * model.attention_pairs(opts.context)
        return Work(flops, moved, tokens)
    per_token = d.TRAINING_FLOPS_RECOMPUTE if opts.gradient_checkpointing else d.TRAINING_FLOPS_PER_TOKEN
    return Work(per_token.value * model.active * opts.tokens, None, opts.tokens)


def device_result(device_id: str, device: dict, work: Work, opts: SpeedOptions, field: str, notes: list) -> dict:
    """The roofline result of ``work`` on ``opts.num_devices`` of ``device``."""
    precision = opts.compute_precision if opts.workload != "kernel" or opts.precision else "bf16"
    peak = dev.peak(device, precision)
    if peak is None:
        raise ValidationError([error(field, "error.no_peak", device=dev.name(device), precision=precision)])
    if peak.fell_back:
        notes.append(Message("note.fallback", {"device": dev.name(device), "wanted": precision, "used": peak.precision}))
    if peak.unit == "vector":
        notes.append(Message("note.vector_unit", {"device": dev.name(device), "precision": peak.precision}))
    if peak.from_sparse:
        notes.append(
            Message(
                "note.sparse_halved",
                {"device": dev.name(device), "precision": peak.precision, "sparse": peak.from_sparse, "dense": peak.tflops},
            )
        )
    n = opts.num_devices
    bandwidth_gb_s = dev.bandwidth_bytes_s(device) / d.GB
    line = roofline.roofline_time(work.flops, work.bytes, peak.tflops * n, bandwidth_gb_s * n,
                                  opts.efficiency("compute"), opts.efficiency("memory"))
    time = line["time_s"]
    out = {
        "id": device_id,
        "name": dev.name(device),
        "precision": peak.precision,
        "unit": peak.unit,
        "peak_tflops": peak.tflops,
        "bandwidth_gb_s": bandwidth_gb_s,
        "critical_intensity": roofline.critical_intensity(peak.tflops, bandwidth_gb_s),
        **line,
        "tokens_per_s": (work.tokens / time) if work.tokens else None,
        "attainable_tflops": work.flops / time / 1e12 / n,
    }
    if opts.workload == "training":
        hours = time * n / 3600
        tdp = dev.tdp_w(device)
        out["device_hours"] = hours
        out["energy_kwh"] = energy_kwh(tdp, hours) if tdp else None
        out["cost_usd"] = hours * opts.price_per_hour if opts.price_per_hour is not None else None
    return out


def reason(device: dict, baseline: dict) -> Message:
    """Why the device is faster or slower than the baseline, in one sentence."""
    if device["bound"] == baseline["bound"] == "memory":
        return Message("reason.memory_bound", {"ratio": device["bandwidth_gb_s"] / baseline["bandwidth_gb_s"]})
    if device["bound"] == baseline["bound"] == "compute":
        return Message(
            "reason.compute_bound",
            {"ratio": device["peak_tflops"] / baseline["peak_tflops"], "precision": device["precision"]},
        )
    return Message("reason.mixed", {"device_bound": device["bound"], "baseline_bound": baseline["bound"]})


def estimate_speed(
    model: ModelSpec | None,
    opts: SpeedOptions,
    device_id: str,
    device: dict,
    baseline_id: str | None = None,
    baseline: dict | None = None,
) -> tuple[dict, list, Message | None]:
    """The speed result dict, its notes and the comparison reason (None without a baseline)."""
    notes: list[Message] = []
    work = workload(model, opts)
    dev_result = device_result(device_id, device, work, opts, "device", notes)
    base_result = device_result(baseline_id, baseline, work, opts, "baseline", notes) if baseline else None
    why = reason(dev_result, base_result) if base_result else None
    if model is not None and opts.precision is None and d.WEIGHT_FORMATS[opts.weights].kind in ("int4", "nf4", "gguf", "exl", "mlx"):
        notes.append(Message("note.weight_only", {"weights": opts.weights, "precision": opts.compute_precision}))
    if model is not None and model.is_moe and opts.workload in ("decode", "prefill"):
        notes.append(Message("note.moe_touched", {"active_b": model.active / 1e9, "total_b": model.params / 1e9}))
    if opts.workload == "training":
        per_token = d.TRAINING_FLOPS_RECOMPUTE if opts.gradient_checkpointing else d.TRAINING_FLOPS_PER_TOKEN
        notes.append(Message("note.training_compute_bound", {"flops_per_token": per_token.value}))
    if opts.num_devices > 1:
        notes.append(Message("note.multi_device", {"num_devices": opts.num_devices}))
    if model is not None and model.max_context and opts.context > model.max_context and opts.workload != "training":
        notes.append(Message("note.context_exceeds", {"context": opts.context, "max_context": model.max_context}))
    result = {
        "workload": opts.workload,
        "model": model.id if model else None,
        "model_name": model.name if model else None,
        "weights": opts.weights if model else None,
        "precision": opts.compute_precision if model or opts.precision else "bf16",
        "kv_cache": opts.kv_cache,
        "context": opts.context,
        "batch": opts.batch,
        "num_devices": opts.num_devices,
        "flops": work.flops,
        "bytes": work.bytes,
        "tokens": work.tokens,
        "arithmetic_intensity": (work.flops / work.bytes) if work.bytes else None,
        "compute_efficiency": opts.efficiency("compute"),
        "memory_efficiency": opts.efficiency("memory"),
        "device": dev_result,
        "baseline": base_result,
        "speedup": (base_result["time_s"] / dev_result["time_s"]) if base_result else None,
    }
    return result, notes, why
