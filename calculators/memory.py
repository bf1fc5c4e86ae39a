"""Memory estimates: can I run, fine-tune or train this model, and on what?

All sizes are bytes inside this module; results report GiB (2^30 bytes),
the unit device capacities are stored in, under keys ending in ``_gib``.

The estimate has six parts: weights, KV cache, activations (training) or
workspace (inference), gradients, optimiser states and a fixed runtime
overhead per device. Sharding follows Megatron/ZeRO: tensor parallelism over
``tp`` devices splits weights, gradients, optimiser states, KV cache and
activations; ZeRO stage 1/2/3 (FSDP full sharding = stage 3) additionally
splits optimiser states / gradients / weights over the ``num_devices / tp``
data-parallel replicas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from calculators import defaults as d
from calculators import devices as dev
from calculators.messages import Message
from calculators.models import ModelSpec

BREAKDOWN_KEYS = ("weights", "kv_cache", "activations", "gradients", "optimizer", "overhead")


@dataclass(frozen=True)
class MemoryOptions:
    """What is run and how. Sizes: ``overhead_gib`` in GiB; counts are plain integers."""

    mode: str = "inference"  # inference | full | lora | qlora
    weights: str = "bf16"
    kv_cache: str = "fp16"
    context: int = 4096  # tokens per sequence
    batch: int = 1  # concurrent sequences (inference) or micro-batch per replica (training)
    group_size: int = 128  # int4 (GPTQ/AWQ) quantisation group
    double_quant: bool = True  # nf4
    optimizer: str = "adamw"
    gradient_checkpointing: bool = False
    lora_rank: int = d.LORA_RANK.value
    num_devices: int = 1
    tp: int = 1
    zero: int = 0
    overhead_gib: float = d.RUNTIME_OVERHEAD_GIB.value

    @property
    def training(self) -> bool:
        return self.mode != "inference"

    @property
    def dp(self) -> int:
        return max(1, self.num_devices // self.tp)


# --- the formulas -------------------------------------------------------------


def bits_per_weight(weights: str, group_size: int = 128, double_quant: bool = True) -> float:
    """Bits per stored weight of ``weights``, group/block overhead included."""
    fmt = d.WEIGHT_FORMATS[weights]
    if fmt.kind == "int4":
        return d.int4_bits(group_size)
    if fmt.kind == "nf4":
        return d.nf4_bits(double_quant)
    return fmt.bits


def weight_bytes(model: ModelSpec, weights: str, group_size: int = 128, double_quant: bool = True) -> float:
    """Bytes of the model's weights stored as ``weights``.

    Formats that quantise only the linear layers keep the embeddings and the
    output head at 16 bit; GGUF bits per weight already average over all tensors.
    """
    bits = bits_per_weight(weights, group_size, double_quant)
    if d.WEIGHT_FORMATS[weights].keeps_embeddings_16bit:
        embeddings = min(model.embedding_params, model.params)
        return (model.params - embeddings) * bits / 8 + embeddings * 2
    return model.params * bits / 8


def kv_cache_bytes(model: ModelSpec, kv_cache: str, context: int, batch: int) -> float:
    """KV cache of ``batch`` sequences of ``context`` tokens.

    Per token and layer it holds K and V for each KV head (grouped-query
    attention: KV heads, not attention heads), or MLA's latent and RoPE key;
    sliding-window layers hold at most ``window`` tokens.
    """
    return batch * model.cached_tokens(context) * model.kv_elements_per_token_layer * d.KV_FORMATS[kv_cache]


def training_activation_bytes(model: ModelSpec, context: int, batch: int, tp: int, checkpointing: bool) -> float:
    """Activations kept for the backward pass of one micro-batch on one device (Korthikanti et al. 2022).

    Per layer s*b*h*34/t bytes (16-bit, memory-efficient attention, tensor +
    sequence parallel over t); with full recomputation 2*s*b*h per layer plus
    one layer's full set during its recompute; plus fp32 logits 4*s*b*v/t.
    """
    sbh = context * batch * model.hidden
    full_layer = sbh * d.ACTIVATION_BYTES_PER_SBH.value / tp
    if checkpointing:
        layers = model.layers * sbh * d.CHECKPOINT_BYTES_PER_SBH.value / tp + full_layer
    else:
        layers = model.layers * full_layer
    logits = context * batch * model.vocab * d.LOGITS_BYTES.value / tp
    return layers + logits


def inference_workspace_bytes(model: ModelSpec, context: int, batch: int, tp: int) -> float:
    """Temporaries of one forward pass: fp32 hidden states and MLP activations of one prefill chunk
    (at most ``PREFILL_CHUNK_TOKENS`` tokens) plus the last token's logits of each sequence."""
    chunk = min(context * batch, d.PREFILL_CHUNK_TOKENS.value)
    per_token = 2 * model.hidden + 2 * model.intermediate
    return d.WORKSPACE_BYTES * (chunk * per_token + batch * model.vocab) / tp


def trainable_params(model: ModelSpec, opts: MemoryOptions) -> float:
    if opts.mode == "full":
        return model.params
    if opts.mode in ("lora", "qlora"):
        return model.lora_params(opts.lora_rank)
    return 0.0


def optimizer_bytes_per_param(optimizer: str, master_copy: bool) -> float:
    """Optimiser bytes per trainable parameter; minus the fp32 master copy when weights are already fp32."""
    per = d.OPTIMIZERS[optimizer].value
    return per if master_copy else per - d.MASTER_COPY_BYTES


# --- the estimate -------------------------------------------------------------


def _per_device(model: ModelSpec, opts: MemoryOptions, notes: list) -> dict:
    """Bytes each device holds, by breakdown key."""
    tp, dp, zero = opts.tp, opts.dp, opts.zero if opts.training else 0
    base = weight_bytes(model, opts.weights, opts.group_size, opts.double_quant)
    trainable = trainable_params(model, opts)
    sixteen_bit = opts.mode != "full" or opts.weights != "fp32"
    grad_bytes = trainable * (d.GRADIENT_BYTES_16BIT if sixteen_bit else 4)
    adapter_bytes = trainable * 2 if opts.mode in ("lora", "qlora") else 0.0
    optim = trainable * optimizer_bytes_per_param(opts.optimizer, master_copy=sixteen_bit) if opts.training else 0.0

    weights = (base + adapter_bytes) / tp / (dp if zero >= 3 else 1)
    gradients = grad_bytes / tp / (dp if zero >= 2 else 1)
    optimizer = optim / tp / (dp if zero >= 1 else 1)

    if opts.training:
        kv = 0.0
        activations = training_activation_bytes(model, opts.context, opts.batch, tp, opts.gradient_checkpointing)
    else:
        kv_total = kv_cache_bytes(model, opts.kv_cache, opts.context, opts.batch)
        if model.mla_rank:
            split = 1  # one latent per token serves every head: it cannot be split by heads
            if tp > 1:
                notes.append(Message("note.mla_replicated", {"tp": tp}))
        else:
            split = min(tp, model.kv_heads)
            if tp > model.kv_heads:
                notes.append(Message("note.kv_replicated", {"tp": tp, "kv_heads": model.kv_heads}))
        kv = kv_total / split
        activations = inference_workspace_bytes(model, opts.context, opts.batch, tp)
    overhead = opts.overhead_gib * d.GIB
    return {
        "weights": weights,
        "kv_cache": kv,
        "activations": activations,
        "gradients": gradients,
        "optimizer": optimizer,
        "overhead": overhead,
    }


def _gib(values: dict) -> dict:
    return {f"{k}_gib": v / d.GIB for k, v in values.items()}


def fits(model: ModelSpec, opts: MemoryOptions, device_list: dict) -> list[dict]:
    """How many of each device hold one replica, its memory split evenly over them.

    The replica's memory (this configuration with tp = 1, no data
    parallelism) minus the runtime overhead is what splits (tensor/pipeline
    parallel for inference, fully sharded for training); every device keeps
    its own overhead — except devices whose memory is on-chip SRAM (Groq,
    Cerebras): their runtime and program live outside that memory, so the
    CUDA-style runtime overhead does not apply there. Sorted by count, then
    by capacity; ``count`` is None when more than ``MAX_DEVICES_FOR_FIT``
    would be needed.
    """
    single = MemoryOptions(**{**opts.__dict__, "tp": 1, "num_devices": 1, "zero": 0})
    per = _per_device(model, single, [])
    fixed = per["overhead"]
    shardable = sum(per.values()) - fixed
    out = []
    for device_id, device in device_list.items():
        capacity = dev.capacity_bytes(device)
        own_fixed = 0.0 if dev.is_sram_only(device) else fixed
        count = None
        if capacity > own_fixed:
            needed = max(1, math.ceil(shardable / (capacity - own_fixed) - 1e-12))
            count = needed if needed <= d.MAX_DEVICES_FOR_FIT else None
        entry = {
            "device": device_id,
            "name": dev.name(device),
            "count": count,
            "capacity_gib": capacity / d.GIB,
            "per_device_gib": ((shardable / count + own_fixed) / d.GIB) if count else None,
        }
        out.append(entry)
    out.sort(key=lambda e: (e["count"] is None, e["count"] or 0, e["capacity_gib"], e["device"]))
    return out


def estimate_memory(model: ModelSpec, opts: MemoryOptions, device_list: dict) -> tuple[dict, list]:
    """The memory estimate as a result dict (sizes in GiB) and its notes (``Message``s)."""
    notes: list[Message] = []
    per_device = _per_device(model, opts, notes)
    breakdown = _gib({k: per_device[k] * opts.num_devices for k in BREAKDOWN_KEYS})
    per_device_gib = _gib({k: per_device[k] for k in BREAKDOWN_KEYS})

    fmt = d.WEIGHT_FORMATS[opts.weights]
    if fmt.keeps_embeddings_16bit:
        notes.append(Message("note.embeddings_16bit", {"weights": opts.weights}))
    if fmt.kind == "gguf":
        notes.append(Message("note.gguf_average", {"weights": opts.weights, "bits": bits_per_weight(opts.weights)}))
    if model.is_moe:
        notes.append(Message("note.moe_all_experts", {"total_b": model.params / 1e9, "active_b": model.active / 1e9}))
    if not opts.training and model.window and model.window_layers and opts.context > model.window:
        notes.append(Message("note.sliding_window", {"layers": model.window_layers, "window": model.window}))
    if not opts.training and model.mla_rank:
        notes.append(Message("note.mla", {"elements": model.kv_elements_per_token_layer}))
    if model.max_context and opts.context > model.max_context:
        notes.append(Message("note.context_exceeds", {"context": opts.context, "max_context": model.max_context}))
    if opts.zero and not opts.training:
        notes.append(Message("note.zero_ignored", {"zero": opts.zero}))
    if opts.training:
        key = "note.activations_checkpointed" if opts.gradient_checkpointing else "note.activations_formula"
        notes.append(Message(key, {}))
        if opts.mode in ("lora", "qlora"):
            notes.append(Message("note.lora_params", {"rank": opts.lora_rank, "params_m": trainable_params(model, opts) / 1e6}))
    notes.append(Message("note.overhead", {"gib": opts.overhead_gib}))
    notes.append(Message("note.fits_rule", {}))

    result = {
        "model": model.id,
        "model_name": model.name,
        "params_b": model.params / 1e9,
        "active_params_b": model.active / 1e9,
        "mode": opts.mode,
        "weights": opts.weights,
        "bits_per_weight": bits_per_weight(opts.weights, opts.group_size, opts.double_quant),
        "kv_cache": opts.kv_cache,
        "context": opts.context,
        "batch": opts.batch,
        "num_devices": opts.num_devices,
        "tp": opts.tp,
        "zero": opts.zero,
        "optimizer": opts.optimizer,
        "gradient_checkpointing": opts.gradient_checkpointing,
        "trainable_params_b": trainable_params(model, opts) / 1e9,
        "total_gib": sum(breakdown.values()),
        "per_device_gib": sum(per_device_gib.values()),
        "breakdown": breakdown,
        "per_device": per_device_gib,
        "fits": fits(model, opts, device_list),
    }
    return result, notes
