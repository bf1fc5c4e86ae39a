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

Weights are counted per tensor group (embeddings, output head, attention,
linear attention, dense FFN, routed and shared experts, router, norms,
encoders): the architecture gives each group's share of the card's total,
the format the bits of each tensor, so "which tensors stay in higher
precision" follows the files as their tools write them (llama.cpp's
per-tensor recipe for GGUF, experts-only MXFP4 for gpt-oss-style mixtures,
16-bit embeddings for GPTQ/AWQ/FP8/NVFP4/ExLlama). The KV cache is counted
per layer kind: full attention caches the context, sliding-window layers at
most their window, MLA layers one latent per token, linear-attention layers
a fixed state.

The reverse questions (``max_context``, ``formats_that_fit``, ``max_batch``,
``presets_that_fit``) answer with JSON-able dicts.
"""

from __future__ import annotations

import math
from functools import lru_cache

from atlas.core.calculators import defaults as d
from atlas.core.calculators import devices as dev
from atlas.core.calculators.inputs import Options
from atlas.core.calculators.messages import FieldError, Message, error
from atlas.core.calculators.models import TENSOR_GROUPS, ModelSpec, Tensor

BREAKDOWN_KEYS = ("weights", "kv_cache", "activations", "gradients", "optimizer", "overhead")


# --- weight formats -------------------------------------------------------------


def _use_more_bits(i: int, n: int) -> bool:
    """llama.cpp's use_more_bits: the first and last eighth of the layers and every third one between."""
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


_ATTN_V_LIKE = ("attn_v", "attn_kv_b")
_LOW_BIT = ("iq2_xxs", "iq2_xs", "iq1_s")


def _gguf_type(ftype: str, t: Tensor, model: ModelSpec, state: dict) -> str:
    """The ggml type llama.cpp's quantize gives tensor ``t`` in a file of type ``ftype``
    (llama_tensor_get_type_impl for the file types this package offers; no importance matrix except where the
    type requires one; LLM_TYPE_70B's attn_v bump is not modelled). ``state`` carries the counters."""
    base = d.GGUF_FILE_TYPES[ftype]
    n_layer, n_expert = model.layers, model.experts
    gqa = model.heads // model.kv_heads if model.kv_heads else 1
    role = t.role
    tied = model.tied_embeddings and not model.stored_tied_head  # a stored head is output.weight of its own
    if role in d.GGUF_UNQUANTISED_BITS:
        return {32: "f32", 16: "f16"}[d.GGUF_UNQUANTISED_BITS[role]]
    if model.checkpoint_dtype == "mxfp4" and model.is_moe and t.group == "experts":
        # gpt-oss-style checkpoints (experts trained in MXFP4): published GGUFs of every label keep the expert
        # tensors in MXFP4 as converted (bartowski/openai_gpt-oss-20b-GGUF: "All quants keep the feed forward
        # networks at mxfp4"; unsloth/gpt-oss-20b-GGUF: Q2_K to Q5_K_M files 11.5-11.7 GB, F16 13.8 GB). The other
        # tensors take the label's type by the rules below; their 2880-wide rows are not a multiple of the K-quant
        # block (256), so Q6_K falls back to Q8_0 and Q4_K to Q5_0 (tensor_type_fallback), which is why a Q6_K file
        # weighs about what llama.cpp's MXFP4_MOE file (experts MXFP4, every other matrix Q8_0) does.
        return "mxfp4"
    new = base
    if role == "output" or (tied and role == "token_embd"):
        if model.hidden % d.GGML_TYPES[base].block:
            new = "q8_0"
        elif ftype in ("iq2_xxs", "iq2_xs", "iq3_xxs", "iq1_s"):
            new = "q5_k"
        elif base != "q8_0":
            new = "q6_k"
    elif role == "token_embd":
        if ftype in _LOW_BIT:
            new = "q2_k"
        elif ftype == "iq3_xxs":
            new = "iq3_s"
    elif ftype in _LOW_BIT:
        if role in _ATTN_V_LIKE:
            new = "q4_k" if gqa >= 4 or n_expert >= 4 else "q2_k"
            state["v"] += 1
        elif n_expert == 8 and role == "attn_k":
            new = "q4_k"
        elif role == "ffn_down":
            if state["down"] < n_layer // 8:
                new = "q2_k"
            state["down"] += 1
        elif role == "attn_output":
            new = "q5_k" if n_expert == 8 else "iq2_xxs" if ftype == "iq1_s" else base
    elif role == "attn_qkv":
        # Fused Q/K/V (Phi-3's qkv_proj): llama_tensor_get_type's own attn_qkv rule, which raises every layer's
        # tensor, not the attn_v rule (llama.cpp b4456-era src/llama-quant.cpp; current master routes attn_qkv
        # through the attn_v rule instead, which keeps Q4_K/Q5_K on the layers use_more_bits leaves out).
        new = {"q3_k_m": "q4_k", "q3_k_l": "q4_k", "iq3_m": "q4_k", "q4_k_m": "q5_k", "q5_k_m": "q6_k"}.get(ftype, base)
    elif role in _ATTN_V_LIKE:
        i, n = state["v"], state["n_v"]
        if ftype == "q2_k":
            new = "q4_k" if gqa >= 4 else "q3_k"
        elif ftype == "iq3_xxs":
            new = "q4_k" if gqa >= 4 else "iq3_xxs"  # IQ3_XXS needs an importance matrix anyway
        elif ftype == "iq3_m":
            new = "q4_k"
        elif ftype == "q3_k_m":
            new = "q5_k" if i < 2 else "q4_k"
        elif ftype == "q3_k_l":
            new = "q5_k"
        elif ftype in ("iq4_nl", "iq4_xs") and gqa >= 4:
            new = "q5_k"
        elif ftype in ("q4_k_m", "q5_k_m") and _use_more_bits(i, n):
            new = "q6_k"
        elif ftype == "q4_k_s" and i < 4:
            new = "q5_k"
        if n_expert == 8:
            new = "q8_0"
        state["v"] += 1
    elif role == "attn_k":
        if n_expert == 8:
            new = "q8_0"
        elif ftype == "iq3_xxs":
            new = "iq2_s"
    elif role == "attn_q":
        if ftype == "iq3_xxs":
            new = "iq2_s"
    elif role == "ffn_down":
        i = t.layer if t.layer is not None else 0
        if ftype == "q2_k":
            new = "q3_k"
        elif ftype == "q3_k_m":
            new = "q5_k" if i < n_layer // 16 else "q4_k"
        elif ftype == "iq3_m" and (i < n_layer // 8 or (n_expert == 8 and _use_more_bits(i, n_layer))):
            new = "q4_k"
        elif ftype == "q3_k_l":
            new = "q5_k"
        elif ftype == "q4_k_m":
            if _use_more_bits(i, n_layer):
                new = "q6_k"
        elif i < n_layer // 8 and ftype in ("iq4_nl", "iq4_xs"):
            new = "q5_k"  # without an importance matrix
        elif ftype == "q5_k_m" and _use_more_bits(i, n_layer):
            new = "q6_k"
        elif ftype == "q4_k_s" and i < n_layer // 8:
            new = "q5_k"
    elif role == "attn_output":
        if n_expert == 8:
            if ftype in ("q2_k", "iq3_xxs", "q3_k_s", "q3_k_m", "iq4_nl", "q4_k_s", "q4_k_m", "iq3_m", "iq4_xs"):
                new = "q5_k"
        else:
            new = {"q2_k": "q3_k", "iq3_xxs": "iq3_s", "q3_k_m": "q4_k", "q3_k_l": "q5_k", "iq3_m": "q4_k"}.get(ftype, base)
    # A row length the block does not divide falls back (tensor_type_fallback), else F16.
    if t.cols % d.GGML_TYPES[new].block:
        new = d.GGML_FALLBACK.get(new, "f16")
        if t.cols % d.GGML_TYPES[new].block:
            new = "f16"
    return new


def gguf_tensor_types(model: ModelSpec, ftype: str) -> list[tuple[Tensor, str]]:
    """Each tensor of a llama.cpp ``ftype`` file of ``model`` (``ModelSpec.gguf_tensors``: a stored tied head
    and kept MTP modules included) with the ggml type the file stores it in."""
    tensors = model.gguf_tensors()
    state = {"v": 0, "down": 0, "n_v": sum(t.role in _ATTN_V_LIKE for t in tensors)}
    return [(t, _gguf_type(ftype, t, model, state)) for t in tensors]


def _exl_bpw(bpw: float | None) -> float:
    return bpw if bpw else d.EXL_BPW.value


def _linear_bits(fmt: d.WeightFormat, group_size: int, double_quant: bool, bpw: float | None) -> float:
    if fmt.kind == "int4":
        return d.int4_bits(group_size)
    if fmt.kind == "nf4":
        return d.nf4_bits(double_quant)
    if fmt.kind == "exl":
        return _exl_bpw(bpw)
    return fmt.bits


_SMALL_ROLES = ("norm", "router", "ssm_small")


def _tensor_bits(model: ModelSpec, weights: str, group_size: int, double_quant: bool,
                 bpw: float | None, gguf_file: bool = False) -> list[tuple[Tensor, float, float]]:
    """(tensor, bits per weight, extra bytes per tensor) for every tensor of ``model`` stored as ``weights``.

    GGUF types count the tensors llama.cpp loads from the file (a stored tied head yes, MTP modules no: it
    creates them with TENSOR_SKIP); ``gguf_file`` counts every tensor of a GGUF file of that type instead
    (for a float type, an F16/BF16 GGUF), MTP modules included."""
    fmt = d.WEIGHT_FORMATS[weights]
    if fmt.scope == "recipe":
        return [(t, d.GGML_TYPES[ty].bits, 0.0) for t, ty in gguf_tensor_types(model, weights)
                if gguf_file or t.extra != "mtp"]
    bits = _linear_bits(fmt, group_size, double_quant, bpw)
    small = fmt.small_bits if fmt.small_bits is not None else bits
    out = []
    for t in (model.gguf_tensors() if gguf_file else model.tensors()):
        if t.group == "encoders" and fmt.kind != "float":
            out.append((t, 16.0, 0.0))
        elif fmt.scope == "all":
            out.append((t, small if t.role in _SMALL_ROLES else bits, 0.0))
        elif t.group in ("embeddings", "output"):
            out.append((t, fmt.head_bits if (t.group == "output" and fmt.head_bits) else 16.0, 0.0))
        elif t.role in _SMALL_ROLES:
            out.append((t, small, 0.0))
        elif fmt.scope == "experts" and model.is_moe and t.group != "experts":
            out.append((t, 16.0, 0.0))
        else:
            out.append((t, bits, fmt.tensor_scale_bytes * t.count))
    return out


@lru_cache(maxsize=4096)
def _weight_groups(model: ModelSpec, weights: str, group_size: int, double_quant: bool,
                   bpw: float | None, gguf_file: bool = False) -> tuple:
    rows = _tensor_bits(model, weights, group_size, double_quant, bpw, gguf_file)
    # Scale the architecture's tensors to the card's total: embeddings and head as counted (at most the total),
    # the encoders as stated, the rest in the architecture's proportions. What a GGUF holds beyond the card's
    # count (a stored tied head, MTP modules: Tensor.extra) is added as counted.
    counted = [t for t, _, _ in rows if not t.extra]
    embeddings = sum(t.params for t in counted if t.group in ("embeddings", "output"))
    encoders = sum(t.params for t in counted if t.group == "encoders")
    rest = sum(t.params for t in counted if t.group not in ("embeddings", "output", "encoders"))
    emb_total = min(embeddings, model.params)
    rest_total = max(0.0, model.params - emb_total - (encoders if model.encoders_in_total else 0.0))
    emb_scale = emb_total / embeddings if embeddings else 0.0
    rest_scale = rest_total / rest if rest else 0.0
    groups = {g: [0.0, 0.0] for g in TENSOR_GROUPS}
    for t, bits, extra in rows:
        scale = (1.0 if t.extra or t.group == "encoders" else emb_scale if t.group in ("embeddings", "output")
                 else rest_scale)
        params = t.params * scale
        groups[t.group][0] += params
        groups[t.group][1] += params * bits / 8 + extra
    return tuple((g, p, b) for g, (p, b) in groups.items())


def weight_groups(model: ModelSpec, weights: str, group_size: int = 128, double_quant: bool = True,
                  bpw: float | None = None, gguf_file: bool = False) -> dict[str, dict]:
    """Parameters, bytes and average bits of each tensor group of ``model`` stored as ``weights``
    (groups without parameters left out). ``gguf_file``: the tensors of a llama.cpp GGUF file of that type
    (the file size's share of the weights; MTP modules the file keeps but llama.cpp does not load count here
    only), not the weights in memory."""
    return {g: {"params": p, "bytes": b, "bits": b * 8 / p}
            for g, p, b in _weight_groups(model, weights, group_size, double_quant, bpw, gguf_file) if p > 0}


def weight_bytes(model: ModelSpec, weights: str, group_size: int = 128, double_quant: bool = True,
                 bpw: float | None = None) -> float:
    """Bytes of the model's weights stored as ``weights``, summed over its tensor groups.

    Floats store every tensor alike; GPTQ/AWQ, NF4, INT8, FP8 keep the
    embeddings and the output head at 16 bit; GGUF files follow llama.cpp's
    per-tensor recipe; see ``weight_groups``. A model read from a file
    (``ModelSpec.file_weights``) in its own format weighs what the file holds.
    """
    if model.file_weight_bytes is not None and weights == model.file_weights:
        return model.file_weight_bytes
    return sum(b for _, _, b in _weight_groups(model, weights, group_size, double_quant, bpw))


@lru_cache(maxsize=1)
def _reference_model() -> ModelSpec:
    a = d.GGUF_REFERENCE_ARCH
    return ModelSpec(id="llama-3-8b", name="Llama-3-8B", params=d.GGUF_REFERENCE_PARAMS, layers=a["layers"],
                     hidden=a["hidden"], intermediate=a["intermediate"], heads=a["heads"], kv_heads=a["kv_heads"],
                     head_dim=a["head_dim"], vocab=a["vocab"])


def bits_per_weight(weights: str, group_size: int = 128, double_quant: bool = True, model: ModelSpec | None = None,
                    bpw: float | None = None) -> float:
    """Bits per stored weight of ``weights``, group/block overhead included.

    For the quantised layers of int4/nf4/exl/mlx/mx formats the format's own
    figure; for a GGUF type the average over all tensors of ``model`` (without
    one: of llama.cpp's reference Llama-3-8B).
    """
    fmt = d.WEIGHT_FORMATS[weights]
    if fmt.kind == "gguf":
        m = model or _reference_model()
        return weight_bytes(m, weights) * 8 / m.params
    return _linear_bits(fmt, group_size, double_quant, bpw)


def average_bits_per_weight(model: ModelSpec, weights: str, group_size: int = 128, double_quant: bool = True,
                            bpw: float | None = None) -> float:
    """Weight bytes x 8 / parameters: the bits per weight over all of the model's tensors."""
    return weight_bytes(model, weights, group_size, double_quant, bpw) * 8 / model.params


# --- KV cache -----------------------------------------------------------------


def kv_cache_by_kind(model: ModelSpec, kv_cache: str, context: int, batch: int) -> dict[str, float]:
    """Bytes of the cache of ``batch`` sequences of ``context`` tokens, per layer kind: ``full`` and
    ``sliding`` attention layers (K and V per KV head, or MLA's latent plus RoPE key, in ``kv_cache``) and the
    fixed ``linear`` state (fp32, ``defaults.LINEAR_STATE_BYTES``)."""
    per = model.kv_elements_per_token_layer * d.KV_FORMATS[kv_cache]
    tokens = model.cached_tokens_by_kind(context)
    state = model.linear_layers * model.state_elements_per_layer * d.LINEAR_STATE_BYTES.value
    return {"full": batch * tokens["full"] * per, "sliding": batch * tokens["sliding"] * per,
            "linear": batch * state}


def kv_cache_bytes(model: ModelSpec, kv_cache: str, context: int, batch: int) -> float:
    """KV cache of ``batch`` sequences of ``context`` tokens.

    Per token and attention layer it holds K and V for each KV head (grouped-query
    attention: KV heads, not attention heads), or MLA's latent and RoPE key;
    sliding-window layers hold at most ``window`` tokens; linear-attention
    layers hold a state that does not grow with the context.
    """
    return sum(kv_cache_by_kind(model, kv_cache, context, batch).values())


def tp_errors(model: ModelSpec, tp: int, field: str = "tp") -> list[FieldError]:
    """Why tensor parallelism over ``tp`` devices cannot split ``model``'s attention (empty: it can).

    The attention heads must divide by ``tp``; KV heads must divide by it
    too, or, when ``tp`` exceeds them, ``tp`` must be a multiple of them (each
    KV head then lives on tp/kv_heads devices), as vLLM requires.
    """
    if tp <= 1:
        return []
    errors = []
    divisors = [t for t in range(1, model.heads + 1) if model.heads % t == 0]
    if model.heads % tp:
        errors.append(error(field, "error.tp_heads", tp=tp, heads=model.heads, model=model.name,
                            degrees=[t for t in divisors if not _kv_problem(model, t)][:12]))
    elif _kv_problem(model, tp):
        errors.append(error(field, "error.tp_kv_heads", tp=tp, kv_heads=model.kv_heads, model=model.name,
                            degrees=[t for t in divisors if not _kv_problem(model, t)][:12]))
    return errors


def _kv_problem(model: ModelSpec, tp: int) -> bool:
    if model.mla_rank:
        return False  # one latent per token, replicated on every device
    k = model.kv_heads
    return bool(k % tp) if tp <= k else bool(tp % k)


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


def trainable_params(model: ModelSpec, opts: Options) -> float:
    if opts.training.mode == "full":
        return model.params
    if opts.training.mode in ("lora", "qlora"):
        return model.lora_params(opts.training.lora_rank)
    return 0.0


def optimizer_bytes_per_param(optimizer: str, master_copy: bool) -> float:
    """Optimiser bytes per trainable parameter; minus the fp32 master copy when weights are already fp32."""
    per = d.OPTIMIZERS[optimizer].value
    return per if master_copy else per - d.MASTER_COPY_BYTES


# --- the estimate -------------------------------------------------------------


def _kv_split(model: ModelSpec, tp: int, notes: list) -> dict[str, int]:
    """Over how many devices each kind of cache splits under tensor parallelism ``tp``."""
    if model.mla_rank:
        attention = 1  # one latent per token serves every head: it cannot be split by heads
        if tp > 1:
            notes.append(Message("note.mla_replicated", {"tp": tp}))
    else:
        attention = min(tp, model.kv_heads)
        if tp > model.kv_heads and model.attention_layers:
            notes.append(Message("note.kv_replicated", {"tp": tp, "kv_heads": model.kv_heads}))
    linear = min(tp, model.linear_value_heads) if model.linear_layers else 1
    return {"full": attention, "sliding": attention, "linear": max(1, linear)}


def _per_device(model: ModelSpec, opts: Options, notes: list) -> dict:
    """Bytes each device holds, by breakdown key."""
    tp, dp, zero = opts.placement.tp, opts.data_parallel, opts.training.zero if opts.trains else 0
    base = _weights(model, opts)
    trainable = trainable_params(model, opts)
    sixteen_bit = opts.training.mode != "full" or opts.quantisation.weights != "fp32"
    grad_bytes = trainable * (d.GRADIENT_BYTES_16BIT if sixteen_bit else 4)
    adapter_bytes = trainable * 2 if opts.training.mode in ("lora", "qlora") else 0.0
    optim = trainable * optimizer_bytes_per_param(opts.training.optimizer, master_copy=sixteen_bit) if opts.trains else 0.0

    weights = (base + adapter_bytes) / tp / (dp if zero >= 3 else 1)
    gradients = grad_bytes / tp / (dp if zero >= 2 else 1)
    optimizer = optim / tp / (dp if zero >= 1 else 1)

    if opts.trains:
        kv = 0.0
        activations = training_activation_bytes(model, opts.run.context, opts.run.batch, tp,
                                                opts.training.gradient_checkpointing)
    else:
        split = _kv_split(model, tp, notes)
        by_kind = kv_cache_by_kind(model, opts.quantisation.kv_cache, opts.run.context, opts.run.batch)
        kv = sum(by_kind[k] / split[k] for k in by_kind)
        activations = inference_workspace_bytes(model, opts.run.context, opts.run.batch, tp)
    overhead = opts.placement.overhead_gib * d.GIB
    return {
        "weights": weights,
        "kv_cache": kv,
        "activations": activations,
        "gradients": gradients,
        "optimizer": optimizer,
        "overhead": overhead,
    }


def _weights(model: ModelSpec, opts: Options) -> float:
    """``weight_bytes`` for these options, looked up at call time (callers may substitute a file's exact bytes)."""
    quant = opts.quantisation
    if quant.bpw is None:
        return weight_bytes(model, quant.weights, quant.group_size, quant.double_quant)
    return weight_bytes(model, quant.weights, quant.group_size, quant.double_quant, quant.bpw)


def _gib(values: dict) -> dict:
    return {f"{k}_gib": v / d.GIB for k, v in values.items()}


def _replica(model: ModelSpec, opts: Options) -> tuple[float, float]:
    """(shardable bytes of one replica, runtime overhead per device) for this configuration with tp = 1."""
    single = opts.replace(tp=1, num_devices=1, zero=0)
    per = _per_device(model, single, [])
    return sum(per.values()) - per["overhead"], per["overhead"]


def _needed_per_device(shardable: float, fixed: float, device: dict, count: int) -> float:
    own_fixed = 0.0 if dev.is_sram_only(device) else fixed
    return shardable / count + own_fixed


def fits(model: ModelSpec, opts: Options, device_list: dict) -> list[dict]:
    """How many of each device hold one replica, its memory split evenly over them.

    The replica's memory (this configuration with tp = 1, no data
    parallelism) minus the runtime overhead is what splits (tensor/pipeline
    parallel for inference, fully sharded for training); every device keeps
    its own overhead — except devices whose memory is on-chip SRAM (Groq,
    Cerebras): their runtime and program live outside that memory, so the
    CUDA-style runtime overhead does not apply there. A unified-memory device
    (``memory.gpu_share``) offers only its default GPU share of the capacity
    (``usable_gib``). For a device sold with several memory sizes
    (``memory.configurations``) ``smallest_configuration_gib`` names the
    smallest that holds the replica on one device. Sorted by count, then by
    capacity; ``count`` is None when more than ``MAX_DEVICES_FOR_FIT`` would
    be needed.
    """
    shardable, fixed = _replica(model, opts)
    out = []
    for device_id, device in device_list.items():
        capacity = dev.capacity_bytes(device)
        usable = dev.usable_bytes(device)
        own_fixed = 0.0 if dev.is_sram_only(device) else fixed
        count = None
        if usable > own_fixed:
            needed = max(1, math.ceil(shardable / (usable - own_fixed) - 1e-12))
            count = needed if needed <= d.MAX_DEVICES_FOR_FIT else None
        share = dev.gpu_share(device)
        sizes = sorted(c["capacity_gib"] for c in device.get("memory", {}).get("configurations", []))
        one = [c for c in sizes if c * d.GIB * share - own_fixed >= shardable]
        entry = {
            "device": device_id,
            "name": dev.name(device),
            "count": count,
            "capacity_gib": capacity / d.GIB,
            "usable_gib": usable / d.GIB,
            "gpu_share": dev.unified_share(device),
            "per_device_gib": ((shardable / count + own_fixed) / d.GIB) if count else None,
            # Devices sold with several memory sizes: the smallest that holds the replica alone (None: none does).
            "smallest_configuration_gib": one[0] if one else None,
        }
        out.append(entry)
    out.sort(key=lambda e: (e["count"] is None, e["count"] or 0, e["capacity_gib"], e["device"]))
    return out


def expert_bytes(model: ModelSpec, opts: Options) -> float:
    """Bytes of the routed-expert tensors of all layers (the ``experts`` group, scaled like ``_groups_gib``)."""
    if not model.is_moe:
        return 0.0
    return _groups_gib(model, opts).get("experts", {}).get("gib", 0.0) * d.GIB


MOE_OFFLOAD = ("experts", "fit")


def expert_offload(model: ModelSpec, opts: Options, usable: float, mode: str = "fit") -> dict | None:
    """Mixture of experts with the routed-expert tensors of some layers in system RAM and everything else
    (attention, shared experts, embeddings, KV cache, workspace) on the device, as llama.cpp's
    ``--n-cpu-moe N`` (the experts of the first N MoE layers) or ``-ot exps=CPU`` (all of them) places it.

    ``mode`` "experts": every MoE layer's experts in RAM; "fit": the fewest MoE layers whose experts must
    leave for the rest to fit in ``usable`` bytes per device (all of them when even that does not fit).
    The experts are taken as equal in size per MoE layer. None for a dense model and for training.
    Sizes per device for the GPU (the replica split over ``opts.placement.tp`` devices as the estimate splits it),
    in all for system RAM."""
    if not model.is_moe or opts.trains or model.moe_layers == 0:
        return None
    layers = model.moe_layers
    experts = expert_bytes(model, opts)
    if experts <= 0:
        return None
    full = sum(_per_device(model, opts, []).values())

    def gpu(k: int) -> float:
        return full - experts * k / layers / opts.placement.tp

    k = layers
    if mode == "fit":
        k = next((i for i in range(0, layers + 1) if gpu(i) <= usable), layers)
    return {"mode": mode, "cpu_moe_layers": k, "moe_layers": layers, "share": k / layers,
            "gpu_gib": gpu(k) / d.GIB, "ram_gib": experts * k / layers / d.GIB, "experts_gib": experts / d.GIB,
            "usable_gib": usable / d.GIB, "fits": gpu(k) <= usable}


def _groups_gib(model: ModelSpec, opts: Options) -> dict:
    """Weights per tensor group in billions of parameters, bits and GiB, adding up to the weights estimate."""
    quant = opts.quantisation
    groups = weight_groups(model, quant.weights, quant.group_size, quant.double_quant, quant.bpw)
    total = sum(v["bytes"] for v in groups.values())
    scale = _weights(model, opts) / total if total else 1.0
    return {g: {"params_b": v["params"] / 1e9, "bits": v["bits"] * scale, "gib": v["bytes"] * scale / d.GIB}
            for g, v in groups.items()}


def estimate_memory(model: ModelSpec, opts: Options, device_list: dict) -> tuple[dict, list]:
    """The memory estimate as a result dict (sizes in GiB) and its notes (``Message``s)."""
    quant = opts.quantisation
    notes: list[Message] = []
    per_device = _per_device(model, opts, notes)
    breakdown = _gib({k: per_device[k] * opts.placement.num_devices for k in BREAKDOWN_KEYS})
    per_device_gib = _gib({k: per_device[k] for k in BREAKDOWN_KEYS})

    fmt = d.WEIGHT_FORMATS[quant.weights]
    bits = bits_per_weight(quant.weights, quant.group_size, quant.double_quant, model, quant.bpw)
    if fmt.keeps_embeddings_16bit and not (fmt.scope == "experts" and model.is_moe):
        notes.append(Message("note.embeddings_16bit", {"weights": quant.weights}))
    if fmt.scope == "experts" and model.is_moe:
        notes.append(Message("note.experts_only", {"weights": quant.weights, "bits": fmt.bits}))
    if fmt.kind == "gguf":
        notes.append(Message("note.gguf_average", {"weights": quant.weights, "bits": bits}))
    if fmt.head_bits:
        notes.append(Message("note.head_bits", {"weights": quant.weights, "bits": _exl_bpw(quant.bpw),
                                                "head_bits": fmt.head_bits}))
    if model.is_moe:
        notes.append(Message("note.moe_all_experts", {"total_b": model.params / 1e9, "active_b": model.active / 1e9}))
    if not opts.trains and model.sliding_layers and opts.run.context > model.window:
        notes.append(Message("note.sliding_window", {"layers": model.sliding_layers, "window": model.window}))
    if not opts.trains and model.mla_rank:
        notes.append(Message("note.mla", {"elements": model.kv_elements_per_token_layer}))
    if not opts.trains and model.linear_layers:
        notes.append(Message("note.linear_state", {"layers": model.linear_layers,
                                                   "mib": model.state_elements_per_layer * model.linear_layers
                                                   * d.LINEAR_STATE_BYTES.value / 2**20}))
    if model.encoder_params:
        notes.append(Message("note.encoders", {"params_b": model.encoder_params / 1e9}))
    if model.max_context and opts.run.context > model.max_context:
        notes.append(Message("note.context_exceeds", {"context": opts.run.context, "max_context": model.max_context}))
    if opts.training.zero and not opts.trains:
        notes.append(Message("note.zero_ignored", {"zero": opts.training.zero}))
    if opts.trains:
        key = "note.activations_checkpointed" if opts.training.gradient_checkpointing else "note.activations_formula"
        notes.append(Message(key, {}))
        if opts.training.mode in ("lora", "qlora"):
            notes.append(Message("note.lora_params", {"rank": opts.training.lora_rank,
                                                      "params_m": trainable_params(model, opts) / 1e6}))
    notes.append(Message("note.overhead", {"gib": opts.placement.overhead_gib}))
    notes.append(Message("note.fits_rule", {}))
    fit_list = fits(model, opts, device_list)
    shared = [e["name"] for e in fit_list if e["gpu_share"]]
    if shared:
        notes.append(Message("note.gpu_share", {"devices": shared}))

    kv_kinds = kv_cache_by_kind(model, quant.kv_cache, opts.run.context, opts.run.batch) if not opts.trains else None
    result = {
        "model": model.id,
        "model_name": model.name,
        "params_b": model.params / 1e9,
        "active_params_b": model.active / 1e9,
        "mode": opts.training.mode,
        "weights": quant.weights,
        "bits_per_weight": bits,
        "average_bits_per_weight": _weights(model, opts) * 8 / model.params,
        "kv_cache": quant.kv_cache,
        "context": opts.run.context,
        "batch": opts.run.batch,
        "num_devices": opts.placement.num_devices,
        "tp": opts.placement.tp,
        "zero": opts.training.zero,
        "optimizer": opts.training.optimizer,
        "gradient_checkpointing": opts.training.gradient_checkpointing,
        "trainable_params_b": trainable_params(model, opts) / 1e9,
        "total_gib": sum(breakdown.values()),
        "per_device_gib": sum(per_device_gib.values()),
        "breakdown": breakdown,
        "per_device": per_device_gib,
        "weights_by_group": _groups_gib(model, opts),
        "kv_cache_by_layer_kind": {f"{k}_gib": v / d.GIB for k, v in kv_kinds.items()} if kv_kinds else None,
        "layer_kinds": {"full": model.full_layers, "sliding": model.sliding_layers, "linear": model.linear_layers},
        "checkpoint_dtype": model.checkpoint_dtype,
        "fits": fit_list,
    }
    return result, notes


# --- reverse questions ----------------------------------------------------------


def _device_entry(device_id: str, device: dict, num_devices: int) -> dict:
    return {"device": device_id, "name": dev.name(device), "num_devices": num_devices,
            "capacity_gib": dev.capacity_bytes(device) / d.GIB, "usable_gib": dev.usable_bytes(device) / d.GIB,
            "gpu_share": dev.unified_share(device)}


def _per_device_need(model: ModelSpec, opts: Options, device: dict, num_devices: int) -> float:
    """Bytes each of ``num_devices`` devices needs: the replica split evenly, plus its own runtime overhead."""
    shardable, fixed = _replica(model, opts)
    return _needed_per_device(shardable, fixed, device, num_devices)


def _fits(model: ModelSpec, opts: Options, device: dict, num_devices: int) -> bool:
    return _per_device_need(model, opts, device, num_devices) <= dev.usable_bytes(device)


def _largest(fits_at, low: int, high: int) -> int | None:
    """The largest n in [low, high] with fits_at(n) true, fits_at being monotone (true, then false); None if none."""
    if not fits_at(low):
        return None
    if fits_at(high):
        return high
    while high - low > 1:
        mid = (low + high) // 2
        if fits_at(mid):
            low = mid
        else:
            high = mid
    return low


MAX_CONTEXT_SEARCH = 10_000_000  # tokens; the calculators' own limit on context
MAX_BATCH_SEARCH = 100_000  # sequences


def max_context(model: ModelSpec, opts: Options, device_id: str, device: dict, num_devices: int = 1) -> dict:
    """The longest context (tokens per sequence, ``opts.run.batch`` sequences) that fits on ``num_devices`` of
    ``device``, at most the model's ``max_context``. ``context`` is None when not even one token fits."""
    limit = model.max_context or MAX_CONTEXT_SEARCH
    best = _largest(lambda c: _fits(model, opts.replace(context=c), device, num_devices),
                    1, limit)
    out = _device_entry(device_id, device, num_devices)
    out.update({
        "model": model.id, "weights": opts.quantisation.weights, "kv_cache": opts.quantisation.kv_cache,
        "batch": opts.run.batch,
        "context": best, "model_max_context": model.max_context,
        "limited_by": None if best is None else "model" if best == limit and model.max_context else "memory",
        "per_device_gib": (_per_device_need(model, opts.replace(context=best), device,
                                            num_devices) / d.GIB) if best else None,
    })
    return out


def max_batch(model: ModelSpec, opts: Options, device_id: str, device: dict, num_devices: int = 1) -> dict:
    """How many concurrent sequences of ``opts.run.context`` tokens fit beside the weights on ``num_devices`` of
    ``device`` (0 when not even one does)."""
    quant = opts.quantisation
    best = _largest(lambda b: _fits(model, opts.replace(batch=b), device, num_devices),
                    1, MAX_BATCH_SEARCH)
    out = _device_entry(device_id, device, num_devices)
    seq = kv_cache_bytes(model, quant.kv_cache, opts.run.context, 1)
    out.update({
        "model": model.id, "weights": quant.weights, "kv_cache": quant.kv_cache, "context": opts.run.context,
        "batch": best or 0, "kv_cache_per_sequence_gib": seq / d.GIB,
        "per_device_gib": (_per_device_need(model, opts.replace(batch=best), device,
                                            num_devices) / d.GIB) if best else None,
    })
    return out


def beyond_published(model: ModelSpec, weights: str, quant) -> bool:
    """Whether ``weights`` stores ``model`` in more bytes than the format it is published in (BF16 where the preset
    names none, as for a custom model): more bits than the checkpoint holds add memory and time, not quality, so
    no suggestion offers such a format (FP32 for a BF16 model, BF16 for gpt-oss's MXFP4)."""
    args = (quant.group_size, quant.double_quant, quant.bpw)
    published = weight_bytes(model, model.published_format or "bf16", *args)
    return weight_bytes(model, weights, *args) > published * (1 + 1e-9)


def formats_that_fit(model: ModelSpec, opts: Options, device_id: str, device: dict,
                     num_devices: int = 1) -> dict:
    """Memory per weight format for this model, context and batch, and whether it fits; most bits first."""
    usable = dev.usable_bytes(device)
    rows = []
    quant = opts.quantisation  # group size, double quantisation and EXL bits stay as given; the format varies
    for name in d.WEIGHT_FORMATS:
        need = _per_device_need(model, opts.replace(weights=name), device, num_devices)
        rows.append({
            "weights": name,
            "bits_per_weight": bits_per_weight(name, quant.group_size, quant.double_quant, model, quant.bpw),
            "weights_gib": weight_bytes(model, name, quant.group_size, quant.double_quant, quant.bpw) / d.GIB,
            "per_device_gib": need / d.GIB,
            "fits": need <= usable,
            "headroom_gib": (usable - need) / d.GIB,
        })
    rows.sort(key=lambda r: (-r["weights_gib"], r["weights"]))
    out = _device_entry(device_id, device, num_devices)
    out.update({"model": model.id, "kv_cache": quant.kv_cache, "context": opts.run.context, "batch": opts.run.batch,
                "formats": rows})
    return out


def presets_that_fit(models: dict, opts: Options, device_id: str, device: dict, num_devices: int = 1) -> dict:
    """For each preset (``{id: preset dict}``): memory per device in ``opts.quantisation.weights`` at ``opts.run.context``,
    whether it fits, and the format with the most bits per weight that fits, up to the one it is published in."""
    quant = opts.quantisation
    usable = dev.usable_bytes(device)
    rows = []
    for model_id in sorted(models):
        model = ModelSpec.from_preset(model_id, models[model_id])
        need = _per_device_need(model, opts, device, num_devices)
        best = None
        for name in sorted(d.WEIGHT_FORMATS, key=lambda f: -weight_bytes(model, f, quant.group_size,
                                                                          quant.double_quant, quant.bpw)):
            if not beyond_published(model, name, quant) and _fits(model, opts.replace(weights=name), device,
                                                                  num_devices):
                best = name
                break
        rows.append({"model": model_id, "name": model.name, "params_b": model.params / 1e9,
                     "per_device_gib": need / d.GIB, "fits": need <= usable, "best_format": best})
    rows.sort(key=lambda r: (not r["fits"], r["per_device_gib"], r["model"]))
    out = _device_entry(device_id, device, num_devices)
    out.update({"weights": quant.weights, "kv_cache": quant.kv_cache, "context": opts.run.context, "batch": opts.run.batch,
                "presets": rows})
    return out


# --- devices the reader describes ------------------------------------------------------


def custom_device(memory_gib: float) -> dict:
    """A device that is not in the data set, described by its memory alone (GiB per device)."""
    return {"name": "", "memory": {"capacity_gib": memory_gib, "type": "custom"}}


def with_capacity(device: dict, memory_gib: float) -> dict:
    """``device`` with another memory size (one of its configurations, or what the reader owns)."""
    return {**device, "memory": {**device["memory"], "capacity_gib": memory_gib}}
