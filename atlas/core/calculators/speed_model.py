"""Where the time of LLM inference goes: a sum of physical terms, each weighted by a fitted parameter.

One decode step (``batch`` sequences each get one new token) or one prompt
(``prompt`` tokens for each of ``batch`` sequences) takes

    time = Σ_k θ_k · x_k

where each ``x_k`` is computed from the model, the device and the placement
(``terms``), and each ``θ_k`` comes from ``atlas.core.calculators.fitted`` — fitted on the
published measurements in ``data/inference/`` by ``python -m atlas.data fit``:

- ``mem``: bytes the step reads from device memory ÷ peak bandwidth (θ = 1 / memory efficiency):
  the weights a token touches (the input embedding table is only looked up; a
  mixture of experts reads the experts its tokens route to) and the KV cache.
- ``expert_mem``: of those bytes, the routed experts a step touches (a mixture of experts; expected distinct
  experts, 1 - (1 - k/E)^tokens of them per layer) ÷ peak bandwidth, at their own efficiency: many small
  matrices gathered by the router's choice, which the engines read below the rate of the dense weights
  (cross-validated: MoE decode at batch 1 was predicted 8 % fast with one efficiency for both).
- ``compute_decode`` / ``compute_prefill``: FLOPs of the matrix products ÷ the
  dense matrix peak of the precision the engine's kernels use
  (``engines.compute_precisions``); θ = 1 / compute efficiency.
- ``attention``: FLOPs of QK^T and AV over the cached tokens during prefill ÷ the same peak.
- ``attention_scores``: bytes of the attention scores of a prompt (one FP32 value per query, key and
  head) ÷ peak bandwidth; θ = 1 / efficiency counts the passes over them. Where attention is not
  fused the score matrix goes through memory; the cross-validated fit puts prompt attention here on
  every engine measured (its FLOP term ends near the top of its range), so long prompts slow with
  heads × positions over bandwidth rather than with FLOPs over the matrix peak.
- ``attention_kv``: bytes of the cached K and V a prompt's fused (flash) attention streams ÷ peak bandwidth: each
  block of ``QUERY_BLOCK`` queries reads the keys and values it attends to once, so the term grows with KV heads ×
  head size × attended pairs (grouped-query models with few KV heads pay little; cross-validated: prefill
  71.8 → 73.0 % within ×0.67–1.5, mostly prompts after a long context).
- ``dequant``: a prompt's quantised weights (GGUF blocks, MLX and GPTQ/AWQ groups, MXFP4 in llama.cpp: every
  format whose products run in 16 bits) are unpacked on the vector units once per tile of ``DEQUANT_TILE``
  tokens: active parameters × tokens ÷ tile ÷ the FP32 vector peak. Where the matrix units are many times the
  vector units (NVIDIA and AMD data-centre and GeForce cards) this, not the matrix peak, holds quantised prefill
  back; on Apple GPUs and Strix Halo, whose matrix and vector rates are one, it is a small share
  (cross-validated: prefill 73.0 → 75.2 % within ×0.67–1.5).
- ``step`` and ``layer_steps``: a fixed cost per step and per layer and step
  (kernel launches, synchronisation, sampling), in seconds — the term that
  makes small models on fast GPUs far slower than their bandwidth allows.
- ``allreduce`` (tensor parallel): two all-reduces per layer and step; θ is a
  latency in seconds per all-reduce, per link class (NVLink, Infinity Fabric,
  PCIe); ``allreduce_bytes``: ring all-reduce traffic 2(n-1)/n · bytes ÷ the
  one-way link bandwidth.
- ``hop`` (layer split): a stage boundary per step, in seconds per hop. A prompt of
  several micro-batches is pipelined through the stages, so its on-device terms
  shrink by (steps + n - 1) / (n · steps).
- A serving run (``serving_terms``, ``serving_run``): ``concurrency`` requests of ``input_tokens`` prompt tokens
  and ``output_tokens`` generated tokens each, as serving benchmarks time them: the prompts of all requests
  (one batched prefill of concurrency × input tokens) plus ``output_tokens`` decode steps at batch
  ``concurrency`` whose KV cache grows from the input length to input + output. Its terms are the sums of those
  phases' terms, so the same θ price it; output throughput = concurrency × output tokens ÷ time.
- ``host_mem`` and ``pcie_copy`` (offloading): layers kept in system memory are
  read by the CPU at host bandwidth during decode; during a prompt llama.cpp
  copies their weights to the GPU once per micro-batch over PCIe. Routed experts
  kept in system memory (``Placement.expert_share``, llama.cpp ``--n-cpu-moe``)
  are the same term: the bytes of the experts the tokens route to, read at host
  bandwidth (decode) or copied over PCIe (prompt); the rest stays in ``mem``.

Efficiency-type parameters are stored as logits (η = 1 / (1 + e^-z), so that
0 < η < 1 always); time-type parameters as natural logarithms of seconds.
Each parameter has a global value, and, where the fit found enough cases, a
correction per engine and per engine and device class; a combination the fit
never saw uses the coarser value. The prompt's matrix products are also
corrected per engine and kernel family (``kernel_family``: llama.cpp's K-quants,
whose kernels unpack sub-block scales per weight, apart from its plain block
formats), and attention per engine and device class (each vendor family has its
own attention kernels). Plain values in, plain values out; standard
library only (it runs in the browser).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from atlas.core.calculators import devices as dev
from atlas.core.calculators import engines
from atlas.core.calculators.defaults import GB, GIB
from atlas.core.calculators.memory import bits_per_weight, kv_cache_bytes, weight_bytes
from atlas.core.calculators.models import ModelSpec

# Feature name -> (kind, levels it is fitted at). "efficiency": θ = 1/sigmoid(z); "seconds": θ = exp(q).
FEATURES: dict[str, tuple[str, tuple[str, ...]]] = {
    "mem": ("efficiency", ("engine", "class", "engine_backend", "engine_class", "engine_weights")),
    "expert_mem": ("efficiency", ("engine", "engine_class")),
    "kv_mem": ("efficiency", ("engine", "engine_backend")),
    "compute_decode": ("efficiency", ("engine", "engine_weights")),
    "compute_prefill": ("efficiency", ("engine", "class", "engine_backend", "engine_class", "engine_kernel")),
    "attention": ("efficiency", ("engine", "engine_backend", "engine_class")),
    "attention_scores": ("efficiency", ("engine", "engine_backend", "engine_class")),
    "attention_kv": ("efficiency", ("engine", "engine_backend", "engine_class")),
    "dequant": ("efficiency", ("engine", "engine_kernel", "engine_class")),
    "step": ("seconds", ("engine", "engine_backend", "engine_class")),
    "layer_steps": ("seconds", ("engine", "engine_backend", "engine_class")),
    "prefill_layer_steps": ("seconds", ("engine", "engine_backend", "engine_class")),
    "allreduce": ("seconds", ("link",)),
    "allreduce_bytes": ("efficiency", ()),
    "hop": ("seconds", ("link",)),
    "host_mem": ("efficiency", ()),
    "pcie_copy": ("efficiency", ()),
}

# Micro-batch of a prompt: llama.cpp's default -ub 512; the server engines' chunked prefill handles thousands.
UBATCH_TOKENS = {"llama.cpp": 512, "mlx": 2048}
UBATCH_DEFAULT = 8192
# Logical batch of a prompt: llama.cpp's default -b 2048 hands a prompt to the back end in chunks of this many tokens,
# and its pipeline over a layer split drains at the end of every chunk (the server engines keep it full).
NBATCH_TOKENS = {"llama.cpp": 2048}
PCIE_ONE_WAY_GB_S = 32.0  # PCIe 4.0 x16, one direction, when a device states no host link
# Thunderbolt 5, one direction: 80 Gb/s each way (Intel's announcement of 2023-09-12: "80Gbps bidirectional", 120
# with Bandwidth Boost for displays; https://hothardware.com/news/intel-unveils-thunderbolt-5-with-a-massive-speed-increase-and-gaming-at-540hz).
THUNDERBOLT_ONE_WAY_GB_S = 10.0
ACTIVATION_BYTES = 2  # all-reduced activations are 16-bit
# Attention without a fused kernel writes the score matrix (one value per query, key and head) to memory and reads
# it back for the softmax and the product with V: 4 bytes an FP32 score, each pass charged to the fitted efficiency.
SCORE_BYTES = 4
# Fused (flash) attention streams the keys and values a block of queries attends to from memory once per block:
# a prompt reads its cached K and V pairs ÷ this many times (the query block of llama.cpp's CUDA kernels; the
# fitted efficiency absorbs other engines' block sizes).
QUERY_BLOCK = 64
# A prompt's quantised matrix products unpack each weight (scales, minimums, bit fields) on the vector units once per
# tile of tokens, beside the matrix units' multiply-adds: this many tokens share one unpacking (the fitted
# efficiency absorbs the engines' own tile sizes and operations per weight).
DEQUANT_TILE = 16
# A serving run's decode steps are summed in this many stretches of the KV length, each priced at its middle step
# (the terms are linear in the cached tokens, or piecewise linear where a sliding window caps them).
SERVING_STRETCHES = 16
# A maximum-throughput run states no concurrency: the engine runs as many requests as its KV cache holds at their
# full length, up to its largest batch. TensorRT-LLM's benchmark (trtllm-bench, tensorrt_llm/bench/build/tuning.py,
# calc_engine_setting and finetune_setting) gives the KV cache 0.95 of the devices' memory less the weights, holds
# each request at input + output tokens, and caps the batch at 4096.
ENGINE_KV_FRACTION = {"tensorrt-llm": 0.95}
ENGINE_KV_FRACTION_DEFAULT = 0.9  # vLLM's default --gpu-memory-utilization (of which the weights take their part)
ENGINE_MAX_BATCH = {"tensorrt-llm": 4096}  # an engine without a stated cap: what the memory holds


@dataclass(frozen=True)
class Placement:
    """Where the model lives: how many devices, how they split it, and how many layers stay on them."""

    num_devices: int = 1
    split: str = "none"  # none | layer | tensor
    gpu_layers: int | None = None  # None: every layer on the devices; fewer: the rest in system memory
    host_bandwidth_gb_s: float | None = None  # system memory bandwidth for offloaded layers (and experts)
    expert_share: float = 0.0  # mixture of experts: share of the routed-expert tensors kept in system memory


@dataclass(frozen=True)
class Case:
    """One LLM phase on one kind of device, as the model needs it."""

    phase: str  # "decode" | "prefill"
    weights: str
    kv_cache: str = "fp16"
    context: int = 0  # tokens already cached (decode: at the step; prefill: before the prompt)
    prompt: int = 512  # prefill: tokens per sequence
    batch: int = 1
    engine: str = "llama.cpp"
    backend: str | None = None  # None: engines.backend(engine, device)
    placement: Placement = field(default_factory=Placement)
    group_size: int = 128
    double_quant: bool = True
    bpw: float | None = None  # EXL2/EXL3: target bits per weight (None: the format's default)


@dataclass(frozen=True)
class Terms:
    """The x_k of one case, and what was decided on the way (peak used, device class, link)."""

    x: dict
    engine: str
    device_class: str
    link: str
    weights_family: str
    kernel: str  # kernel_family: the weight family, with llama.cpp's K-quants apart
    backend: str
    precision: str | None  # precision of the peak the compute terms divide by (None: no usable peak)
    peak_tflops: float | None
    peak_unit: str | None
    peak_note: str | None  # how the peak was found when it is not a stated dense figure
    tokens: float  # tokens the case produces (decode) or processes (prefill)
    flops: float
    bytes_read: float


def sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def link_one_way_gb_s(device: dict) -> float:
    """One-way device-to-device bandwidth: vendors state NVLink and PCIe as both directions added."""
    link = device.get("interconnect")
    kind = engines.link_class(device)
    if not link:
        return THUNDERBOLT_ONE_WAY_GB_S if kind == "thunderbolt" else PCIE_ONE_WAY_GB_S
    if kind == "network":  # Ethernet and InfiniBand rates are per direction
        return link["bandwidth_gb_s"]
    return link["bandwidth_gb_s"] / 2


def input_embedding_bytes(model: ModelSpec, weights: str, group_size: int, double_quant: bool,
                          bpw: float | None = None) -> float:
    """Bytes of the input embedding table when it is a separate matrix (a decode step looks up one row, not all):
    untied, or tied but a GGUF that keeps the checkpoint's stored head as output.weight of its own."""
    if model.tied_embeddings and not (model.stored_tied_head and engines.is_gguf(weights)):
        return 0.0
    return model.vocab * model.hidden * bits_per_weight(weights, group_size, double_quant, bpw=bpw) / 8


def kernel_family(weights: str) -> str:
    """The family whose kernels a weight format runs through (``engines.weight_family``), with llama.cpp's K-quants
    apart from its plain block formats: a K-quant's 256-weight super-blocks carry 6-bit sub-block scales and
    minimums that its matrix kernels unpack per weight, a Q4_0 or Q8_0 block one 16-bit scale."""
    family = engines.weight_family(weights)
    if family == "gguf" and "_k" in weights:
        return "gguf_k"
    return family


def engine_peak(engine: str, device: dict, weights: str) -> tuple[dev.Peak | None, str | None]:
    """The matrix peak the engine's kernels run at, and a note when it is not a stated dense figure."""
    wanted = engines.compute_precisions(engine, device, weights)
    found = dev.matrix_peak(device, wanted, accumulate=engines.accumulate(engine, device, weights))
    if found is None:
        return None, None
    note = None
    if found.from_sparse:
        note = "sparse_halved"
    elif found.scaled_from:
        note = "scaled"
    elif found.unit == "vector":
        note = "vector"
    return found, note


def terms(model: ModelSpec, device: dict, case: Case) -> Terms:
    """The physical terms x_k of ``case`` on ``device`` (see the module docstring)."""
    engine = case.engine
    cls = engines.device_class(device)
    link = engines.link_class(device)
    place = case.placement
    n = max(1, place.num_devices)
    split = place.split if n > 1 else "none"
    bandwidth = dev.bandwidth_bytes_s(device)
    peak, peak_note = engine_peak(engine, device, case.weights)
    peak_flops = peak.tflops * 1e12 if peak else None

    all_weights = weight_bytes(model, case.weights, case.group_size, case.double_quant, case.bpw)
    embed_in = input_embedding_bytes(model, case.weights, case.group_size, case.double_quant, case.bpw)
    layer_weights = max(all_weights - model.embedding_params * all_weights / model.params, 0.0)
    gpu_share = 1.0
    if place.gpu_layers is not None and place.gpu_layers < model.layers:
        gpu_share = max(place.gpu_layers, 0) / model.layers
    attention_width = 4 * model.heads * model.head_dim  # QK^T and AV, 2 FLOPs per multiply-add

    x = {k: 0.0 for k in FEATURES}
    if case.phase == "decode":
        tokens = float(case.batch)
        touched = model.params_touched(case.batch) / model.params
        weights_read = (all_weights - embed_in) * touched
        kv = kv_cache_bytes(model, case.kv_cache, max(case.context, 1), case.batch)
        flops = case.batch * (2 * model.active + attention_width * model.attention_span(max(case.context, 1)))
        steps = 1
        attention_flops = 0.0
        scores_bytes = 0.0
        kv_stream_bytes = 0.0
    else:
        tokens = float(case.prompt * case.batch)
        ubatch = UBATCH_TOKENS.get(engine, UBATCH_DEFAULT)
        steps = max(1, math.ceil(tokens / ubatch))
        touched = model.params_touched(tokens) / model.params
        weights_read = (all_weights - embed_in) * touched * steps
        kv = kv_cache_bytes(model, case.kv_cache, case.context + case.prompt, case.batch)
        pairs = model.attention_pairs(case.context + case.prompt) - model.attention_pairs(case.context)
        attention_flops = case.batch * attention_width * pairs
        scores_bytes = case.batch * model.heads * pairs * SCORE_BYTES
        per_pair = (kv_cache_bytes(model, case.kv_cache, 2, 1) - kv_cache_bytes(model, case.kv_cache, 1, 1)) \
            / max(1, model.attention_layers)
        kv_stream_bytes = case.batch * pairs * per_pair / QUERY_BLOCK
        flops = 2 * model.active * tokens + attention_flops

    # Routed experts: the bytes of those the tokens route to (expected distinct experts, ``params_touched``); the
    # share kept in system memory leaves the device's share.
    experts_read = experts_off = 0.0
    if model.is_moe and model.experts:
        _shared, routed_params = model.expert_split()
        routed = 1 - (1 - model.active_experts / model.experts) ** max(tokens, 1)
        experts_read = (all_weights - embed_in) * routed_params * routed / model.params * steps
        experts_off = experts_read * place.expert_share * gpu_share
    experts_on_device = experts_read * gpu_share - experts_off
    weights_on_device, kv_on_device = (weights_read - experts_read) * gpu_share, kv * gpu_share
    if split == "tensor":  # every device reads its slice at the same time
        weights_on_device, kv_on_device, experts_on_device = (weights_on_device / n, kv_on_device / n,
                                                              experts_on_device / n)
    x["mem"] = weights_on_device / bandwidth
    x["expert_mem"] = experts_on_device / bandwidth
    x["kv_mem"] = kv_on_device / bandwidth
    x["attention_scores"] = scores_bytes * gpu_share / (n if split == "tensor" else 1) / bandwidth
    x["attention_kv"] = kv_stream_bytes * gpu_share / (n if split == "tensor" else 1) / bandwidth
    if gpu_share < 1.0 or experts_off:
        host = (place.host_bandwidth_gb_s or 0) * GB
        off = (weights_read + kv) * (1 - gpu_share) + experts_off
        if case.phase == "decode":
            x["host_mem"] = off / host if host else math.inf
        else:
            copied = layer_weights * touched * (1 - gpu_share) * steps + experts_off
            x["pcie_copy"] = copied / (PCIE_ONE_WAY_GB_S * GB)
    vector = dev.dense_figure(device, "fp32", "vector")
    if case.phase == "prefill" and vector and engines.weight_family(case.weights) != "float" \
            and engines.compute_precisions(engine, device, case.weights)[0] in ("fp16", "bf16"):
        # weights the products take in 16 bits are unpacked first (FP8, FP4 or INT8 products read them as stored)
        active = model.active * tokens * gpu_share / (n if split == "tensor" else 1)
        x["dequant"] = active / DEQUANT_TILE / (vector * 1e12)
    if peak_flops:
        linear = flops - attention_flops
        if split == "tensor":
            linear, attention_flops = linear / n, attention_flops / n
        if case.phase == "decode":
            if peak.unit != "matrix":
                # On a vector unit one sequence's matrix-vector products overlap the weight reads they wait for;
                # each further sequence adds its FLOPs (cross-validated: charging the first one too made Apple
                # GPUs' decode 20-30 % slow).
                linear *= (case.batch - 1) / case.batch
            x["compute_decode"] = linear / peak_flops
        else:
            x["compute_prefill"] = linear / peak_flops
            x["attention"] = attention_flops / peak_flops
    x["step"] = steps
    x["layer_steps" if case.phase == "decode" else "prefill_layer_steps"] = model.layers * steps
    if split == "tensor":
        reduces = 2 * model.layers * steps
        per_reduce = (tokens / steps) * model.hidden * ACTIVATION_BYTES
        x["allreduce"] = reduces
        x["allreduce_bytes"] = reduces * 2 * (n - 1) / n * per_reduce / (link_one_way_gb_s(device) * GB)
    elif split == "layer":
        x["hop"] = (n - 1) * steps
        if case.phase == "prefill" and steps > 1:
            # llama.cpp pipelines a prompt's micro-batches through the stages: each stage holds 1/n of the
            # layers and the last micro-batch of a logical batch leaves n - 1 stage-times after the first one
            # entered; the pipeline fills and drains once per logical batch (-b), not once per prompt.
            chunks = math.ceil(tokens / NBATCH_TOKENS.get(engine, tokens))
            pipeline = (steps + chunks * (n - 1)) / (n * steps)
            for feature in ("mem", "expert_mem", "kv_mem", "compute_prefill", "attention", "attention_scores",
                            "attention_kv", "dequant", "prefill_layer_steps"):
                x[feature] *= pipeline
    return Terms(
        x=x,
        engine=engine,
        device_class=cls,
        link=link,
        weights_family=engines.weight_family(case.weights),
        kernel=kernel_family(case.weights),
        backend=case.backend or engines.backend(engine, device),
        precision=peak.precision if peak else None,
        peak_tflops=peak.tflops if peak else None,
        peak_unit=peak.unit if peak else None,
        peak_note=peak_note,
        tokens=tokens,
        flops=flops,
        bytes_read=weights_read + kv,
    )


def serving_terms(model: ModelSpec, device: dict, case: Case, concurrency: int, input_tokens: int,
                  output_tokens: int) -> Terms:
    """The terms of a whole serving run: ``concurrency`` requests, each a prompt of ``input_tokens`` and
    ``output_tokens`` generated tokens. The prompts of all requests are one batched prefill (priced as any prompt
    is); the decode steps run at batch ``concurrency`` with the cache growing from ``input_tokens`` to
    ``input_tokens + output_tokens`` (step k holds ``input_tokens + k`` tokens). ``case`` gives the weights,
    engine and placement; its phase, context, prompt and batch are replaced. ``tokens`` is the output tokens of
    the run, so tokens ÷ predicted time is its output throughput."""
    concurrency, input_tokens, output_tokens = max(1, int(concurrency)), max(0, int(input_tokens)), max(1, int(output_tokens))
    x = {k: 0.0 for k in FEATURES}
    flops = bytes_read = 0.0
    first = None
    if input_tokens:
        first = terms(model, device, replace(case, phase="prefill", context=0, prompt=input_tokens, batch=concurrency))
        for k, v in first.x.items():
            x[k] += v
        flops, bytes_read = first.flops, first.bytes_read
    stretches = min(output_tokens, SERVING_STRETCHES)
    for i in range(stretches):
        start, end = output_tokens * i // stretches, output_tokens * (i + 1) // stretches
        middle = input_tokens + (start + end - 1) // 2
        step = terms(model, device, replace(case, phase="decode", context=middle, batch=concurrency))
        for k, v in step.x.items():
            x[k] += v * (end - start)
        flops += step.flops * (end - start)
        bytes_read += step.bytes_read * (end - start)
        first = first or step
    return replace(first, x=x, tokens=float(concurrency * output_tokens), flops=flops, bytes_read=bytes_read)


def serving_run(model: ModelSpec, device: dict, case: Case, concurrency: int, input_tokens: int, output_tokens: int,
                params: dict) -> dict:
    """A serving run's time and throughput under fitted ``params`` (see ``serving_terms``): seconds of the run and
    of its prompts, output tokens/s of all requests together, and tokens/s each user sees."""
    t = serving_terms(model, device, case, concurrency, input_tokens, output_tokens)
    result = predict(t, params)
    prompts = 0.0
    if input_tokens > 0:
        prompts = predict(terms(model, device, replace(case, phase="prefill", context=0, prompt=int(input_tokens),
                                                       batch=max(1, int(concurrency)))), params)["time_s"]
    seconds = result["time_s"]
    return {"time_s": seconds, "prefill_s": prompts, "parts_s": result["parts_s"],
            "output_tokens_per_s": t.tokens / seconds, "per_user_tokens_per_s": max(1, int(output_tokens)) / seconds}


def max_throughput_concurrency(model: ModelSpec, device: dict, case: Case, input_tokens: int,
                               output_tokens: int) -> int:
    """The concurrency of a maximum-throughput run that states none: the requests whose KV cache at
    ``input_tokens + output_tokens`` fits the engine's share of the devices' memory less the weights, at most the
    engine's largest batch (at least one)."""
    n = max(1, case.placement.num_devices)
    memory = dev.usable_bytes(device) * n
    weights = weight_bytes(model, case.weights, case.group_size, case.double_quant, case.bpw)
    per_request = kv_cache_bytes(model, case.kv_cache, max(1, input_tokens + output_tokens), 1)
    if case.placement.split == "tensor" and model.kv_heads and n > model.kv_heads:
        per_request *= n / model.kv_heads  # each device holds at least one KV head
    budget = (memory - weights) * ENGINE_KV_FRACTION.get(case.engine, ENGINE_KV_FRACTION_DEFAULT)
    fits = math.floor(budget / per_request) if per_request > 0 else 1
    return max(1, min(fits, ENGINE_MAX_BATCH.get(case.engine, fits)))


def level_keys(t: Terms) -> dict:
    """The key of ``t`` at each level a parameter can be corrected at."""
    return {"engine": t.engine, "class": t.device_class, "engine_class": f"{t.engine}|{t.device_class}",
            "engine_backend": f"{t.engine}|{t.backend}",
            "engine_weights": f"{t.engine}|{t.weights_family}", "engine_kernel": f"{t.engine}|{t.kernel}",
            "link": t.link}


def raw_parameter(params: dict, feature: str, t: Terms) -> float:
    """The fitted logit or log-seconds of ``feature`` for ``t``: global value plus the corrections that exist."""
    entry = params[feature]
    value = entry["global"]
    keys = level_keys(t)
    for level in FEATURES[feature][1]:
        value += entry.get(level, {}).get(keys[level], 0.0)
    return value


def theta(params: dict, feature: str, t: Terms) -> float:
    """The weight θ of ``feature``: 1/efficiency or seconds."""
    value = raw_parameter(params, feature, t)
    if FEATURES[feature][0] == "efficiency":
        return 1.0 / sigmoid(value)
    return math.exp(value)


def predict(t: Terms, params: dict) -> dict:
    """Seconds per term and in total for terms ``t`` under fitted ``params``."""
    parts = {}
    for feature, x in t.x.items():
        if x:
            parts[feature] = theta(params, feature, t) * x
    total = sum(parts.values())
    return {"time_s": total, "parts_s": parts}


def efficiencies(t: Terms, params: dict) -> dict:
    """The efficiencies and fixed costs that apply to ``t`` (for the explanation)."""
    out = {}
    for feature, (kind, _levels) in FEATURES.items():
        value = raw_parameter(params, feature, t)
        out[feature] = sigmoid(value) if kind == "efficiency" else math.exp(value)
    return out


BOUND_OF = {
    "mem": "memory",
    "expert_mem": "memory",
    "kv_mem": "memory",
    "host_mem": "memory",
    "compute_decode": "compute",
    "compute_prefill": "compute",
    "attention": "compute",
    "attention_scores": "memory",
    "attention_kv": "memory",
    "dequant": "compute",
    "step": "overhead",
    "layer_steps": "overhead",
    "prefill_layer_steps": "overhead",
    "allreduce": "communication",
    "allreduce_bytes": "communication",
    "hop": "communication",
    "pcie_copy": "communication",
}


def bound(parts: dict) -> str:
    """What the largest share of the time goes to: memory, compute, overhead or communication."""
    totals: dict[str, float] = {}
    for feature, seconds in parts.items():
        totals[BOUND_OF[feature]] = totals.get(BOUND_OF[feature], 0.0) + seconds
    return max(totals, key=totals.get) if totals else "memory"


def gib(value: float) -> float:
    return value / GIB
