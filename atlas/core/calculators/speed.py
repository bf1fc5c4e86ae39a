"""Speed estimates: how long a workload takes on a device, and how much faster B is than A.

Roofline (``atlas.core.calculators.roofline``): time = max(FLOPs / (peak x compute
efficiency), bytes / (bandwidth x memory efficiency)); the larger term names
the bound. Arithmetic intensity (FLOP/byte) of the workload is compared with
the device's critical intensity (peak / bandwidth). Energy: device-hours at
TDP (``atlas.core.calculators.energy``); for decode and prefill also per token (``energy``: joules per token, kWh and
electricity cost per million tokens at the power figure, all sequences' tokens together). Units: FLOPs and bytes are plain counts, peaks TFLOP/s,
bandwidth GB/s in results, time in seconds, energy in kWh, cost in US$.

Workloads (per unit of work):
- ``decode``: one step generating one token for each of ``batch`` sequences
  at position ``context``: reads the weights it needs once and the whole KV cache;
- ``prefill``: a prompt of ``context`` tokens for each of ``batch`` sequences;
- ``training``: ``tokens`` tokens at 6 FLOPs (8 with recomputation) per active
  parameter, modelled compute-bound (model FLOPs utilisation as efficiency);
- ``kernel``: given ``flops`` and ``bytes``.

Decode and prefill go through ``atlas.core.calculators.speed_model``: a sum of physical
terms (bytes read, FLOPs, fixed costs per step and layer, all-reduces,
pipeline hops, offloaded layers) each weighted by parameters fitted on
published measurements (``atlas.core.calculators.fitted``), per engine and device
class. ``placement`` decides how several devices share the work (``split``:
layer — stages one after another, llama.cpp's default; tensor — every device
holds a slice and they all-reduce twice per layer) and how many layers stay
in system memory (``gpu_layers``). The result says first whether the model
fits on the devices, with the shortfall and what would fit. Training and
kernels stay plain rooflines with fixed efficiencies.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from atlas.core.calculators import cost, engines, fit, fitted, roofline, speculative, trust
from atlas.core.calculators import defaults as d
from atlas.core.calculators import devices as dev
from atlas.core.calculators import energy as power
from atlas.core.calculators import speed_model as sm
from atlas.core.calculators.energy import energy_kwh
from atlas.core.calculators.inputs import Options
from atlas.core.calculators.memory import _largest, _per_device, kv_cache_bytes, weight_bytes
from atlas.core.calculators.messages import Message, ValidationError, error, render_text
from atlas.core.calculators.models import ModelSpec

WORKLOADS = ("decode", "prefill", "training", "kernel")


@dataclass(frozen=True)
class Work:
    """One unit of a workload: FLOPs, bytes moved (None: not modelled) and tokens (None: not tokens)."""

    flops: float
    bytes: float | None
    tokens: float | None


def workload(model: ModelSpec | None, opts: Options) -> Work:
    """FLOPs, bytes and tokens of one unit of ``opts.run.workload``."""
    quant = opts.quantisation
    if opts.run.workload == "kernel":
        return Work(opts.run.flops or 0.0, opts.run.bytes or 0.0, None)
    assert model is not None
    all_weights = weight_bytes(model, quant.weights, quant.group_size, quant.double_quant, quant.bpw)
    attention = 4 * model.heads * model.head_dim  # QK^T and AV: 2 FLOPs per multiply-add, twice
    if opts.run.workload == "decode":
        touched = model.params_touched(opts.run.batch) / model.params
        read = all_weights * touched + kv_cache_bytes(model, quant.kv_cache, opts.run.context, opts.run.batch)
        flops = opts.run.batch * (2 * model.active + attention * model.attention_span(opts.run.context))
        return Work(flops, read, opts.run.batch)
    if opts.run.workload == "prefill":
        tokens = opts.run.context * opts.run.batch
        touched = model.params_touched(tokens) / model.params
        moved = all_weights * touched + kv_cache_bytes(model, quant.kv_cache, opts.run.context, opts.run.batch)
        flops = 2 * model.active * tokens + opts.run.batch * attention * model.attention_pairs(opts.run.context)
        return Work(flops, moved, tokens)
    return Work(training_flops_per_token(opts) * model.active * opts.run.tokens, None, opts.run.tokens)


def training_flops_per_token(opts: Options) -> float:
    """FLOPs per active parameter and token of a training run: 6 for full training, 4 for adapters on frozen
    weights (LoRA, QLoRA: no weight gradients for those), 2 more where full recomputation repeats the forward pass."""
    base = d.TRAINING_FLOPS_PER_TOKEN if opts.training.training_mode == "full" else d.TRAINING_FLOPS_ADAPTERS
    return base.value + (d.TRAINING_FLOPS_RECOMPUTE.value - d.TRAINING_FLOPS_PER_TOKEN.value
                         if opts.training.gradient_checkpointing else 0)


def engine_for(device: dict, opts: Options) -> str:
    return opts.serving.engine or engines.default_engine(device, opts.quantisation.weights)


def split_for(engine: str, opts: Options) -> str:
    if opts.placement.num_devices <= 1:
        return "none"
    return opts.placement.split or ("layer" if engine == "llama.cpp" else "tensor")


def _memory_options(opts: Options, n: int) -> Options:
    """The inference on ``n`` devices as the memory estimate sees it: the model split over them."""
    return Options(quantisation=opts.quantisation).replace(
        context=opts.run.context, batch=opts.run.batch, num_devices=n, tp=n, moe_offload=opts.placement.moe_offload)


def power_covers_package(device: dict) -> bool:
    """Whether the device shares its memory with a CPU (a GPU share recorded, or its memory described as unified):
    its power figure in the data set is then the package's, module's or system's, CPU and memory included."""
    memory = device.get("memory", {})
    described = f"{memory.get('type') or ''} {memory.get('note') or ''}".lower()
    return dev.unified(device) or "unified" in described


ENERGY_KEYS = ("watts", "watts_per_device", "watts_source", "watts_scope", "joules_per_token",
               "kwh_per_million_tokens", "usd_per_million_tokens", "electricity_usd_per_kwh")


def energy_per_token(device: dict, n: int, tokens_per_s: float, price_usd_per_kwh: float | None) -> dict:
    """Energy per token of ``n`` devices at the data set's power figure (``power.tdp_w``, each device drawing it
    the whole time: an upper bound) at ``tokens_per_s`` — all sequences' tokens, so a batch shares the power —
    and its cost at ``price_usd_per_kwh`` (None without a price). Every value None when the device states no
    power (the keys stay, so a page's data-result path always resolves).
    The data set records no measured power yet, so ``watts_source`` is "tdp"."""
    tdp = dev.tdp_w(device)
    if not tdp or not tokens_per_s:
        return dict.fromkeys(ENERGY_KEYS)
    watts = tdp * n
    per = power.per_token(watts, tokens_per_s, price_usd_per_kwh)
    return {"watts": watts, "watts_per_device": tdp, "watts_source": "tdp",
            "watts_scope": "package" if power_covers_package(device) else "device",
            "joules_per_token": per["joules_per_token"], "kwh_per_million_tokens": per["kwh_per_million_tokens"],
            "usd_per_million_tokens": per["cost_per_million_tokens"], "electricity_usd_per_kwh": price_usd_per_kwh}


def energy_notes(entries: list[dict], opts: Options) -> list[Message]:
    """What the energy figures of the results (device, baseline) rest on: the power figures, an upper bound
    (real draw at batch 1 is below TDP); which of them cover a whole package or system; and, without a price
    per kWh, why no electricity cost is shown."""
    found = [e for e in entries if e and (e.get("energy") or {}).get("watts")]
    if not found:
        return []
    out = [Message("note.energy_tdp", {})]
    out += [Message("note.energy_package", {"device": e["name"], "watts": e["energy"]["watts_per_device"]})
            for e in found if e["energy"]["watts_scope"] == "package"]
    if opts.cost.electricity_usd_per_kwh is None:
        out.append(Message("note.energy_no_price", {}))
    return out


def speculation_bytes(model: ModelSpec, opts: Options, draft: ModelSpec | None) -> float:
    """Bytes one device holds for the drafter: the draft model's weights, KV cache and workspace, or the weights of
    the model's MTP modules; 0 without speculation."""
    n = opts.placement.num_devices
    if opts.run.workload != "decode" or opts.serving.speculative == "none":
        return 0.0
    if opts.serving.speculative == "draft":
        if draft is None:
            return 0.0
        per = _per_device(draft, _memory_options(opts, n), [])
        return per["weights"] + per["kv_cache"] + per["activations"]
    per = _per_device(model, _memory_options(opts, n), [])
    return per["weights"] * speculative.mtp_params(model) / model.count_params()


def fit_verdict(model: ModelSpec, opts: Options, device: dict, engine: str, extra_bytes: float = 0.0,
                device_id: str | None = None) -> fit.Verdict:
    """``fit.verdict`` for decode or prefill on ``opts.placement.num_devices`` of ``device`` with ``engine``: the model split
    over the devices, the reader's layers on the GPU and experts in system RAM, ``extra_bytes`` (a drafter) beside
    it; suggestions only when it does not fit."""
    return fit.verdict(model, _memory_options(opts, opts.placement.num_devices), device, device_id=device_id,
                       gpu_layers=opts.placement.gpu_layers, extra_bytes=extra_bytes, engine=engine, suggest_when_fits=False)


MIN_CONTEXT_TIP = 512  # tokens: a shorter context is no configuration to run instead


def training_memory_options(opts: Options, n: int) -> Options:
    """Training on ``n`` devices as the memory calculator counts it (``opts.training.training_mode``: full, LoRA or
    QLoRA, the frozen weights of QLoRA in NF4): weights, gradients and the optimiser's states (its default, AdamW) of
    what is trained, and the activations of ``opts.run.batch`` sequences of ``opts.run.context`` tokens; over several
    devices data parallel and fully sharded (ZeRO-3/FSDP: each holds a share of the weights, gradients and states,
    and the activations of its own sequences)."""
    mode = opts.training.training_mode
    memory = Options(quantisation=opts.quantisation).replace(
        mode=mode, context=opts.run.context, batch=opts.run.batch, num_devices=n, zero=3 if n > 1 else 0,
        gradient_checkpointing=opts.training.gradient_checkpointing)
    return memory.replace(weights="nf4") if mode == "qlora" else memory


def training_devices_needed(model: ModelSpec, opts: Options, device: dict) -> int | None:
    """The fewest devices (more than the reader's) on which the training run fits (``training_memory_options``);
    None when no number does: the activations do not shrink with more data-parallel devices."""
    usable = dev.usable_bytes(device)

    def short_on(n: int) -> bool:
        return fit.need_bytes(model, training_memory_options(opts, n), device) > usable

    if short_on(d.MAX_DEVICES_FOR_FIT):
        return None
    most = _largest(short_on, opts.placement.num_devices, d.MAX_DEVICES_FOR_FIT)
    return (most or opts.placement.num_devices) + 1


def training_verdict(model: ModelSpec, opts: Options, device: dict, device_id: str | None = None) -> fit.Verdict:
    """``fit.verdict`` for the training run on ``opts.placement.num_devices`` of ``device``
    (``training_memory_options``); when it does not fit, the devices it needs in that same setting (not one replica
    split evenly, activations included, as the memory calculator's list of devices counts)."""
    out = fit.verdict(model, training_memory_options(opts, opts.placement.num_devices), device, device_id=device_id,
                      suggest_when_fits=False)
    if not out["fits"]:
        out["suggestions"]["num_devices"] = training_devices_needed(model, opts, device)
    return out


def fit_changes(verdict: fit.Verdict, opts: Options) -> dict:
    """The verdict's suggestions as changes of the speed calculator's options, nearest first (``INSTEAD_ORDER``):
    experts to system RAM, layers on the GPU, the format with the most memory that fits, a shorter context, more
    devices. Empty when it fits."""
    if verdict["fits"]:
        return {}
    tips = verdict["suggestions"]
    changes = {}
    if tips.get("gradient_checkpointing_gib"):
        changes["gradient_checkpointing"] = True
    if tips["moe_offload"]:
        changes["moe_offload"] = "fit"
    if tips["gpu_layers"]:
        changes["gpu_layers"] = tips["gpu_layers"]
    if tips["formats"]:
        changes["weights"] = tips["formats"][0]["weights"]
    if tips["max_context"] is not None and MIN_CONTEXT_TIP <= tips["max_context"] < opts.run.context:
        changes["context"] = tips["max_context"]
    if tips["num_devices"] and tips["num_devices"] > opts.placement.num_devices:
        changes["num_devices"] = tips["num_devices"]
    return {k: changes[k] for k in INSTEAD_ORDER if k in changes}


def speculation(t: sm.Terms, model: ModelSpec, device: dict, case: sm.Case, opts: Options,
                draft: ModelSpec | None, plain_step_s: float) -> dict | None:
    """Decode with a drafter: tokens per run, the speed-up over plain decoding and its parts (None: no drafter)."""
    serving = opts.serving
    if case.phase != "decode" or serving.speculative == "none" or (serving.speculative == "draft" and draft is None):
        return None
    drafted = serving.draft_tokens or speculative.default_drafted(serving.speculative, model)
    acceptance = (serving.acceptance_percent / 100 if serving.acceptance_percent is not None
                  else speculative.default_acceptance(serving.speculative, serving.task_type))
    verify_case = replace(case, batch=case.batch * (drafted + 1))
    verify = sm.terms(model, device, verify_case)
    x = dict(verify.x)
    x["kv_mem"] = t.x["kv_mem"]  # k + 1 positions of one sequence read its KV cache once
    verify_s = sm.predict(replace(verify, x=x), fitted.PARAMS)["time_s"]
    if serving.speculative == "draft":
        draft_s = sm.predict(sm.terms(draft, device, case), fitted.PARAMS)["time_s"]
    else:
        draft_s = plain_step_s * speculative.mtp_step_share(model)
    factor = speculative.speedup(acceptance, drafted, draft_s, verify_s, plain_step_s)
    drafter = draft if serving.speculative == "draft" else None
    return {"method": serving.speculative, "draft_model": drafter.id if drafter is not None else None,
            "draft_model_name": drafter.name if drafter is not None else None,
            "draft_tokens": drafted, "acceptance": acceptance,
            "acceptance_source": "reader" if serving.acceptance_percent is not None else "default",
            "task_type": serving.task_type if serving.speculative == "draft" else None,
            "tokens_per_run": speculative.tokens_per_run(acceptance, drafted), "speedup": factor,
            "draft_step_s": draft_s, "verify_step_s": verify_s, "plain_step_s": plain_step_s}


def llm_device_result(device_id: str, device: dict, model: ModelSpec, opts: Options, field: str,
                      notes: list, prices: list | None = None, engine: str | None = None,
                      instead: bool = True, draft: ModelSpec | None = None) -> dict:
    """The fitted speed model's result for decode or prefill on ``opts.placement.num_devices`` of ``device``."""
    quant = opts.quantisation
    dev.require_own_memory(device, field)  # refused at the field that chose it (device or baseline)
    engine = engine or engine_for(device, opts)
    split = split_for(engine, opts)
    n = opts.placement.num_devices
    host = opts.placement.host_bandwidth_gb_s or d.DEFAULT_HOST_BANDWIDTH.value
    verdict = fit_verdict(model, opts, device, engine, speculation_bytes(model, opts, draft), device_id)
    moe = verdict["moe_offload"]
    placement = sm.Placement(num_devices=n, split=split, gpu_layers=opts.placement.gpu_layers, host_bandwidth_gb_s=host,
                             expert_share=moe["share"] if moe else 0.0)
    if opts.run.workload == "decode":
        case = sm.Case("decode", quant.weights, quant.kv_cache, context=opts.run.context, batch=opts.run.batch, engine=engine,
                       placement=placement, group_size=quant.group_size, double_quant=quant.double_quant, bpw=quant.bpw)
    else:
        case = sm.Case("prefill", quant.weights, quant.kv_cache, context=0, prompt=opts.run.context, batch=opts.run.batch,
                       engine=engine, placement=placement, group_size=quant.group_size, double_quant=quant.double_quant,
                       bpw=quant.bpw)
    t = sm.terms(model, device, case)
    if t.peak_tflops is None and opts.run.workload == "prefill":
        raise ValidationError([error(field, "error.no_peak_prefill", device=dev.name(device))])
    wanted = engines.compute_precisions(engine, device, quant.weights)[0]
    if t.precision is not None and t.precision != wanted:
        notes.append(Message("note.fallback", {"device": dev.name(device), "wanted": wanted, "used": t.precision}))
    if t.peak_tflops is None:
        notes.append(Message("note.no_compute_peak", {"device": dev.name(device)}))
    elif t.peak_note == "sparse_halved":
        notes.append(Message("note.sparse_halved", {"device": dev.name(device), "precision": t.precision,
                                                    "sparse": t.peak_tflops * 2, "dense": t.peak_tflops}))
    elif t.peak_note == "scaled":
        notes.append(Message("note.peak_scaled", {"device": dev.name(device), "precision": t.precision,
                                                  "tflops": t.peak_tflops}))
    elif t.peak_note == "vector":
        notes.append(Message("note.vector_unit", {"device": dev.name(device), "precision": t.precision}))
    predicted = sm.predict(t, fitted.PARAMS)
    parts = predicted["parts_s"]
    time = predicted["time_s"]
    spec = speculation(t, model, device, case, opts, draft, time)
    if spec:
        time /= spec["speedup"]  # seconds per step of batch tokens, drafting and verification included
    bandwidth_gb_s = dev.bandwidth_bytes_s(device) / d.GB
    out = {
        "id": device_id,
        "name": dev.name(device),
        "precision": t.precision,
        "unit": t.peak_unit,
        "peak_tflops": t.peak_tflops,
        "bandwidth_gb_s": bandwidth_gb_s,
        "critical_intensity": roofline.critical_intensity(t.peak_tflops, bandwidth_gb_s) if t.peak_tflops else None,
        "time_s": time,
        "compute_time_s": sum(v for k, v in parts.items() if sm.BOUND_OF[k] == "compute"),
        "memory_time_s": sum(v for k, v in parts.items() if sm.BOUND_OF[k] == "memory"),
        "overhead_time_s": sum(v for k, v in parts.items() if sm.BOUND_OF[k] == "overhead"),
        "communication_time_s": sum(v for k, v in parts.items() if sm.BOUND_OF[k] == "communication"),
        "time_parts_s": parts,
        "bound": sm.bound(parts),
        "tokens_per_s": t.tokens / time,
        "tokens_per_s_per_sequence": t.tokens / time / opts.run.batch,
        # Decode: one sequence's output speed in multiples of silent reading speed (defaults.reading_tokens_per_s).
        "reading_speed_factor": (t.tokens / time / opts.run.batch / d.reading_tokens_per_s())
        if opts.run.workload == "decode" else None,
        "attainable_tflops": t.flops / time / 1e12 / n,
        "engine": engine,
        "split": split,
        "device_class": t.device_class,
        "efficiencies": sm.efficiencies(t, fitted.PARAMS),
        "memory": verdict,
        "accuracy": trust.accuracy_for(opts.run.workload, n, opts.run.batch, engine, t.device_class),
        "speculative": spec,
    }
    sold_in_sizes = bool(device["memory"].get("configurations"))
    hourly = cost.hourly_cost(prices or [], dev.tdp_w(device), n, opts.cost.price_per_hour, opts.cost.purchase_usd,
                              opts.cost.amortisation_years, opts.cost.electricity_usd_per_kwh,
                              dev.capacity_bytes(device) / d.GIB if sold_in_sizes else None)
    if hourly:
        hourly["usd_per_million_tokens"] = cost.per_million_tokens(hourly["usd_per_hour"], out["tokens_per_s"])
    out["cost"] = hourly
    out["energy"] = energy_per_token(device, n, out["tokens_per_s"], opts.cost.electricity_usd_per_kwh)
    if instead:
        out["memory"]["runs_instead"] = runs_instead(device_id, device, model, opts, engine, out["memory"], prices)
    return out


# The figures of a speed result that exist only if the model runs: where the device (or the baseline) cannot hold
# it, the command line and the page show "does not fit" in their place (the device's own figures, its peak,
# bandwidth, power and hourly price, stay).
RUN_FIGURES = ("time_s", "tokens_per_s", "tokens_per_s_per_sequence", "bound", "compute_time_s", "memory_time_s",
               "overhead_time_s", "communication_time_s", "attainable_tflops", "cost.usd_per_million_tokens",
               "energy.joules_per_token", "energy.kwh_per_million_tokens", "energy.usd_per_million_tokens",
               "device_hours", "energy_kwh", "cost_usd")


def holds_model(entry: dict) -> bool:
    """Whether the device of a speed result (``result["device"]`` or ``result["baseline"]``) holds the model: its
    fit verdict, and True for a result without one (a kernel or a plain roofline)."""
    return (entry.get("memory") or {}).get("fits", True) is not False


def fit_notes(device_result: dict, opts: Options) -> list[Message]:
    """The fit verdict first: fits with its margin, or the shortfall and what would fit."""
    verdict = device_result["memory"]
    out = []
    if verdict["gpu_share"] is not None and verdict["gpu_share"] < 1:
        out.append(Message("note.unified_share", {"device": device_result["name"], "share": 100 * verdict["gpu_share"],
                                                  "available": verdict["usable_gib"]}))
    if verdict["fits"]:
        out.append(Message("note.fits", {"needed": verdict["need_gib"], "available": verdict["usable_gib"],
                                         "margin": verdict["margin_gib"]}))
        return out
    out.append(Message("note.does_not_fit", {"needed": verdict["need_gib"], "available": verdict["usable_gib"],
                                             "short": -verdict["margin_gib"]}))
    tips = fit_changes(verdict, opts)
    if "gradient_checkpointing" in tips:
        out.append(Message("note.fit_gradient_checkpointing", {}))
    if "weights" in tips:
        out.append(Message("note.fit_weights", {"weights": tips["weights"]}))
    if "context" in tips:
        out.append(Message("note.fit_context", {"context": tips["context"]}))
    if "num_devices" in tips:
        out.append(Message("note.fit_devices", {"num_devices": tips["num_devices"]}))
    if "gpu_layers" in tips:
        out.append(Message("note.fit_gpu_layers", {"gpu_layers": tips["gpu_layers"]}))
    return out


def moe_note(device_result: dict, opts: Options) -> Message | None:
    """Where the reader's expert offload puts what: GPU and system RAM, and the host bandwidth read per token."""
    moe = device_result.get("memory", {}).get("moe_offload")
    if not moe:
        return None
    return Message("note.moe_offload", {"cpu_moe_layers": moe["cpu_moe_layers"], "moe_layers": moe["moe_layers"],
                                        "gpu_gib": moe["gpu_gib"], "ram_gib": moe["ram_gib"],
                                        "host_gb_s": opts.placement.host_bandwidth_gb_s or d.DEFAULT_HOST_BANDWIDTH.value})


def device_result(device_id: str, device: dict, work: Work, opts: Options, field: str, notes: list) -> dict:
    """The roofline result of ``work`` on ``opts.placement.num_devices`` of ``device``."""
    dev.require_own_memory(device, field)
    precision = opts.compute_precision if opts.run.workload != "kernel" or opts.run.precision else "bf16"
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
    n = opts.placement.num_devices
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
    if opts.run.workload == "training":
        hours = time * n / 3600
        tdp = dev.tdp_w(device)
        out["device_hours"] = hours
        out["energy_kwh"] = energy_kwh(tdp, hours) if tdp else None
        out["cost_usd"] = hours * opts.cost.price_per_hour if opts.cost.price_per_hour is not None else None
    return out


def reason(device: dict, baseline: dict) -> Message:
    """Why the device is faster or slower than the baseline, in one sentence."""
    names = {"device": device["name"], "baseline": baseline["name"]}
    if device["bound"] == baseline["bound"] == "memory":
        return Message("reason.memory_bound", {"ratio": device["bandwidth_gb_s"] / baseline["bandwidth_gb_s"], **names})
    if device["bound"] == baseline["bound"] == "compute":
        return Message(
            "reason.compute_bound",
            {"ratio": device["peak_tflops"] / baseline["peak_tflops"], "precision": device["precision"], **names},
        )
    return Message("reason.mixed", {"device_bound": device["bound"], "baseline_bound": baseline["bound"], **names})


@dataclass(frozen=True)
class Sentences(Message):
    """A message of several sentences (``parts``, each a ``Message``) under one key; ``params`` the parts'
    parameters together, for a reader of the JSON."""

    parts: tuple = field(default_factory=tuple)

    def render(self, lang: str) -> dict:
        return {"key": self.key, "params": dict(self.params),
                "message": " ".join(render_text(m.key, m.params, lang) for m in self.parts)}


# The nearest change first; a mixture of experts keeps its experts in system RAM before whole layers go there.
INSTEAD_ORDER = ("gradient_checkpointing", "moe_offload", "gpu_layers", "weights", "context", "num_devices")


def runs_instead(device_id: str, device: dict, model: ModelSpec, opts: Options, engine: str, verdict: dict,
                 prices: list | None = None) -> dict | None:
    """The nearest configuration that runs when this one does not fit (``verdict`` from ``fit_verdict``), with
    its speed: the reader's own model and format with the layers that do not fit in system memory (llama.cpp,
    a device with its own memory), else the format with the most bits that fits, else a shorter context, else
    more devices. None when it fits or nothing the verdict suggests runs."""
    for change, value in fit_changes(verdict, opts).items():  # the nearest first
        alt = opts.replace(**{change: value})
        r = llm_device_result(device_id, device, model, alt, "device", [], prices, engine=engine, instead=False)
        out = {"change": change, change: value, "time_s": r["time_s"], "tokens_per_s": r["tokens_per_s"],
               "tokens_per_s_per_sequence": r["tokens_per_s_per_sequence"], "bound": r["bound"],
               "need_gib": r["memory"]["need_gib"]}
        if change == "gpu_layers":
            out["layers"] = model.layers
        if change == "moe_offload":
            moe = r["memory"]["moe_offload"]
            out.update({k: moe[k] for k in ("cpu_moe_layers", "moe_layers", "gpu_gib", "ram_gib")})
            out["host_gb_s"] = opts.placement.host_bandwidth_gb_s or d.DEFAULT_HOST_BANDWIDTH.value
        return out
    return None


def training_instead(device_id: str, device: dict, model: ModelSpec, opts: Options, verdict: dict) -> dict | None:
    """The nearest configuration in which training runs when this one does not fit (``training_verdict``), with its
    speed: gradient checkpointing, else a shorter context, else more devices, else more devices with gradient
    checkpointing; None when it fits or none of them runs."""
    candidates = [(change, {change: value}) for change, value in fit_changes(verdict, opts).items()]
    if not candidates and not opts.training.gradient_checkpointing:  # neither alone: more devices, recomputing
        recomputing = opts.replace(gradient_checkpointing=True)
        count = training_devices_needed(model, recomputing, device)
        if count:
            candidates.append(("num_devices_checkpointing", {"num_devices": count, "gradient_checkpointing": True}))
    if not candidates:
        return None
    change, values = candidates[0]  # the nearest
    alt = opts.replace(**values)
    r = device_result(device_id, device, workload(model, alt), alt, "device", [])
    return {"change": change, **values, "time_s": r["time_s"], "tokens_per_s": r["tokens_per_s"],
            "tokens_per_s_per_sequence": None, "bound": r["bound"],
            "need_gib": training_verdict(model, alt, device, device_id)["need_gib"]}


def _short(entry: dict, key: str, **extra) -> Message:
    verdict = entry["memory"]
    return Message(key, {"device": entry["name"], "needed": verdict["need_gib"], "available": verdict["usable_gib"],
                         "short": -verdict["margin_gib"], **extra})


def _instead(entry: dict, workload: str) -> Message:
    alt = entry["memory"]["runs_instead"]
    if alt is None:
        return Message("fit.instead.none", {"device": entry["name"]})
    speed = alt["tokens_per_s_per_sequence"] if workload == "decode" else alt["tokens_per_s"]
    return Message(f"fit.instead.{alt['change']}", {k: v for k, v in alt.items() if k in (
        "gpu_layers", "layers", "weights", "context", "num_devices", "cpu_moe_layers", "moe_layers", "gpu_gib",
        "ram_gib")} | {"tokens": speed, "device": entry["name"]})


def fit_reason(dev_result: dict, base_result: dict | None, workload: str) -> Sentences | None:
    """"Does not fit" first when the device or the baseline cannot hold the model, its KV cache and the runtime:
    the shortfall of each that cannot, then the nearest configuration that runs there and its speed (labelled as
    such); None when both fit. The one verdict behind it is ``fit_verdict``'s."""
    device_short = dev_result.get("memory") and not dev_result["memory"]["fits"]
    base_short = base_result is not None and base_result.get("memory") and not base_result["memory"]["fits"]
    if not device_short and not base_short:
        return None
    parts = []
    if device_short:
        parts.append(_short(dev_result, "fit.does_not_fit"))
        if base_short:
            parts.append(_short(base_result, "fit.baseline_short_too"))
        parts.append(_instead(dev_result, workload))
    else:
        parts.append(_short(base_result, "fit.baseline_does_not_fit"))
        parts.append(_instead(base_result, workload))
    params = {"fits": not device_short, "baseline_fits": not base_short if base_result is not None else None}
    if base_short:
        params.update({"baseline": base_result["name"], "baseline_short": -base_result["memory"]["margin_gib"]})
    for m in parts:
        for k, v in m.params.items():
            params.setdefault(k, v)
    return Sentences("reason.does_not_fit", params, tuple(parts))


def estimate_speed(
    model: ModelSpec | None,
    opts: Options,
    device_id: str,
    device: dict,
    baseline_id: str | None = None,
    baseline: dict | None = None,
    prices: dict | None = None,
    draft: ModelSpec | None = None,
) -> tuple[dict, list, Message | None]:
    """The speed result dict, its notes and the comparison reason (None without a baseline); ``draft``: the draft
    model of ``opts.serving.speculative == "draft"``."""
    quant = opts.quantisation
    notes: list[Message] = []
    work = workload(model, opts)
    if model is not None and opts.run.workload in ("decode", "prefill") and not opts.roofline_only:
        prices = prices or {}
        dev_result = llm_device_result(device_id, device, model, opts, "device", notes,
                                       prices.get(dev.plain_id(device_id)), draft=draft)
        # A comparison runs both on the same software: the engine given, else the device's default — where that
        # engine runs on the baseline at all (MLX only on Apple silicon), else the baseline's own default.
        # The baseline's prices are its own: a price typed for the device is not applied to it.
        base_opts = opts.replace(price_per_hour=opts.cost.baseline_price_per_hour,
                                 purchase_usd=opts.cost.baseline_purchase_usd)
        base_engine = dev_result["engine"] if baseline is None or engines.runs_on(dev_result["engine"], baseline) \
            else engines.default_engine(baseline, opts.quantisation.weights)
        base_result = (llm_device_result(baseline_id, baseline, model, base_opts, "baseline", notes,
                                         prices.get(dev.plain_id(baseline_id)), engine=base_engine, draft=draft)
                       if baseline else None)
        work = Work(work.flops, work.bytes, work.tokens if opts.run.workload == "prefill" else opts.run.batch)
    else:
        dev_result = device_result(device_id, device, work, opts, "device", notes)
        base_result = device_result(baseline_id, baseline, work, opts, "baseline", notes) if baseline else None
        if model is not None and opts.run.workload == "training":  # no training time for what cannot be trained
            for entry, entry_id, entry_device in ((dev_result, device_id, device), (base_result, baseline_id, baseline)):
                if entry is not None:
                    entry["memory"] = training_verdict(model, opts, entry_device, entry_id)
                    entry["memory"]["runs_instead"] = training_instead(entry_id, entry_device, model, opts,
                                                                       entry["memory"])
    why = reason(dev_result, base_result) if base_result else None
    does_not_fit = fit_reason(dev_result, base_result, opts.run.workload) if "memory" in dev_result else None
    weight_only = d.WEIGHT_FORMATS[quant.weights].kind in ("int4", "nf4", "gguf", "exl", "mlx")
    if model is not None and opts.run.precision is None and weight_only:
        notes.append(Message("note.weight_only", {"weights": quant.weights, "precision": opts.compute_precision}))
    if model is not None and model.is_moe and opts.run.workload in ("decode", "prefill"):
        notes.append(Message("note.moe_touched", {"active_b": model.active / 1e9, "total_b": model.params / 1e9}))
    if model is not None and "memory" in dev_result:
        placed = moe_note(dev_result, opts)
        if placed is not None:
            notes.append(placed)
    if opts.placement.moe_offload and model is not None and not model.is_moe and opts.run.workload in ("decode", "prefill"):
        notes.append(Message("note.moe_offload_dense", {"model": model.name}))
    notes.extend(energy_notes([dev_result, base_result], opts))
    if opts.run.workload == "training":
        notes.append(Message("note.training_compute_bound", {"flops_per_token": training_flops_per_token(opts)}))
        if model is not None:
            mode = opts.training.training_mode
            notes.append(Message("note.training_memory" + ("" if mode == "full" else "_adapters"),
                                 {"batch": opts.run.batch, "context": opts.run.context, "mode": mode,
                                  "rank": d.LORA_RANK.value}))
            if opts.placement.num_devices > 1:
                notes.append(Message("note.training_sharded", {"num_devices": opts.placement.num_devices}))
    if opts.placement.num_devices > 1 and "split" not in dev_result:
        notes.append(Message("note.multi_device", {"num_devices": opts.placement.num_devices}))
    if opts.placement.num_devices > 1 and "split" in dev_result:
        notes.append(Message(f"note.split_{dev_result['split']}", {"num_devices": opts.placement.num_devices}))
    if opts.placement.gpu_layers is not None and model is not None and opts.placement.gpu_layers < model.layers \
            and opts.run.workload in ("decode", "prefill"):
        host_gb_s = opts.placement.host_bandwidth_gb_s or d.DEFAULT_HOST_BANDWIDTH.value
        notes.append(Message("note.offload", {"gpu_layers": opts.placement.gpu_layers, "layers": model.layers,
                                              "host_gb_s": host_gb_s}))
    if model is not None and model.max_context and opts.run.context > model.max_context and opts.run.workload != "training":
        notes.append(Message("note.context_exceeds", {"context": opts.run.context, "max_context": model.max_context}))
    result = {
        "workload": opts.run.workload,
        "model": model.id if model else None,
        "model_name": model.name if model else None,
        "weights": quant.weights if model else None,
        "precision": opts.compute_precision if model or opts.run.precision else "bf16",
        "kv_cache": quant.kv_cache,
        "context": opts.run.context,
        "batch": opts.run.batch,
        "num_devices": opts.placement.num_devices,
        "flops": work.flops,
        "bytes": work.bytes,
        "tokens": work.tokens,
        "arithmetic_intensity": (work.flops / work.bytes) if work.bytes else None,
        "compute_efficiency": opts.efficiency("compute"),
        "memory_efficiency": opts.efficiency("memory"),
        "device": dev_result,
        "baseline": base_result,
        "speedup": (base_result["time_s"] / dev_result["time_s"]) if base_result else None,
        "engine": dev_result.get("engine"),
        "split": dev_result.get("split"),
        "gpu_layers": opts.placement.gpu_layers,
        "moe_offload": opts.placement.moe_offload,
    }
    if dev_result.get("memory"):
        first = fit_notes(dev_result, opts)
        if does_not_fit is not None and why is not None:
            first.append(why)  # the comparison's reason stays, after the fit; the answer's reason is the fit
        notes[:0] = first
    # The device holds the model (its KV cache and runtime): fit_verdict's answer; None for training and kernels.
    result["fits"] = dev_result["memory"]["fits"] if "memory" in dev_result else None
    if base_result:
        ratio = result["speedup"]
        result["comparison"] = {"direction": "faster" if ratio >= 1 else "slower",
                                "factor": ratio if ratio >= 1 else 1 / ratio,
                                # False: at least one of the two cannot hold the model, the factor is hypothetical
                                "both_fit": does_not_fit is None}
    return result, notes, does_not_fit or why
