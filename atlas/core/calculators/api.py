"""The one entry point every front end calls: ``handle(request, catalog)``.

``request = {"command": "vram" | "speed" | "fit", "params": {name: value}, "lang": "en" | "de"}``
with parameter names and values as documented in ``atlas.core.calculators.inputs``.

Success: ``{"ok": True, "result": R}``, ``R`` being exactly what
``python -m atlas <command> ... --json`` prints. Bad input:
``{"ok": False, "errors": [{"field", "key", "params", "message"}]}``, the
message in the request's language. Any unexpected exception becomes one
``error.internal`` entry: a front end never sees a traceback, NaN or Infinity.
"""

from __future__ import annotations

import math

from atlas.core import l10n
from atlas.core.calculators import devices as dev
from atlas.core.calculators import energy as power
from atlas.core.calculators import fit, kv_quality, measured, planner, speculative
from atlas.core.calculators.catalog import Catalog, CatalogError
from atlas.core.calculators.inputs import BY_NAME, CUSTOM, Options, default_of, parse
from atlas.core.calculators.memory import (
    custom_device,
    estimate_memory,
    formats_that_fit,
    max_batch,
    max_context,
    presets_that_fit,
    tp_errors,
    with_capacity,
)
from atlas.core.calculators.messages import Message, ValidationError, error
from atlas.core.calculators.models import ModelSpec
from atlas.core.calculators.speed import engine_for, estimate_speed

COMMANDS = ("vram", "speed", "fit")


def options(values: dict, **overrides) -> Options:
    """The options an estimator reads, from the parsed parameters (``inputs.parse``) and ``overrides``: each
    parameter of the table in its section (``opts.quantisation.weights``); keys that are no parameter (such as
    ``weights_automatic``) stay out, parameters not given keep the table's defaults."""
    return Options.of(**{**{name: value for name, value in values.items() if name in BY_NAME}, **overrides})


def resolve_model(values: dict, catalog: Catalog) -> ModelSpec | None:
    """The preset named by ``values["model"]``, a custom model from the custom fields, or None."""
    model_id = values.get("model")
    if model_id is None:
        return None
    if model_id == CUSTOM:
        return ModelSpec.custom(
            params_b=values["params_b"],
            layers=values["layers"],
            hidden=values["hidden"],
            heads=values["heads"],
            kv_heads=values["kv_heads"],
            vocab=values["vocab"],
            head_dim=values["head_dim"],
            intermediate=values["intermediate"],
        )
    return ModelSpec.from_preset(model_id, catalog.models[model_id])


def published_weights(values: dict, model: ModelSpec | None) -> str | None:
    """The format a preset's checkpoint is published in, when the reader left the weight format on Automatic
    (``values["weights_automatic"]``, set by ``handle``); None for a custom model, a chosen format or a preset
    without a stated format (these keep ``inputs``' default)."""
    if not values.get("weights_automatic") or model is None or values.get("model") in (None, CUSTOM):
        return None
    return model.published_format


def _weights_source(values: dict, published: str | None) -> str:
    return "published" if published else "default" if values.get("weights_automatic") else "chosen"


def readers_device(values: dict, device: dict, notes: list) -> dict:
    """``device`` with the GPU share of unified memory the reader set (``gpu_memory_percent``), and a note saying
    what was set, or that the device has memory of its own."""
    percent = values.get("gpu_memory_percent")
    if percent is None:
        return device
    share = device.get("memory", {}).get("gpu_share")
    if not share:
        notes.append(Message("note.gpu_percent_ignored", {"device": dev.name(device) or "—"}))
        return device
    notes.append(Message("note.gpu_percent_set", {"device": dev.name(device), "percent": percent,
                                                   "default": 100 * share["default_share"]}))
    return dev.with_gpu_percent(device, percent)


def run_vram(values: dict, catalog: Catalog, lang: str) -> dict:
    model = resolve_model(values, catalog)
    published = published_weights(values, model) if values.get("mode") == "inference" else None
    opts = options(values, **({"weights": published} if published else {}))
    problems = tp_errors(model, opts.placement.tp)
    if problems:
        raise ValidationError(problems)
    result, notes = estimate_memory(model, opts, catalog.devices)
    result["weights_source"] = _weights_source(values, published)
    if published:
        notes.insert(0, Message("note.published_format", {"weights": published, "model": model.name}))
    result["verdict"] = None
    device_id, memory_gib = values.get("device"), values.get("memory_gib")
    if device_id or memory_gib:
        device = catalog.devices[device_id] if device_id else custom_device(memory_gib)
        if device_id and memory_gib:
            device = with_capacity(device, memory_gib)
        device = readers_device(values, device, notes)
        result["verdict"] = fit.verdict(model, opts, device, device_id=device_id, ram_gib=values.get("ram_gib"),
                                        device_list=catalog.devices, fit_list=result["fits"])
        tip = result["verdict"]["suggestions"]["moe_offload"]
        if tip and device_id:
            tip["tokens_per_s"] = moe_speed(model, opts, device_id, device, catalog)
        if result["verdict"]["ram_ignored"]:
            notes.append(Message("note.ram_ignored", {"mode": opts.training.mode}))
    result["notes"] = [n.render(lang) for n in notes]
    result["kv_quality"] = kv_quality.answer(model, opts.quantisation.kv_cache, opts.run.context, opts.run.batch,
                                             kv_quality.rows_of(catalog)) if not opts.trains else None
    return result


def moe_speed(model: ModelSpec, opts: Options, device_id: str, device: dict, catalog: Catalog) -> float | None:
    """Decode tokens/s of one sequence with the experts the memory verdict suggests in system RAM (llama.cpp,
    the speed calculator's defaults for the host bandwidth), or None when the speed model cannot say."""
    speed_opts = Options(quantisation=opts.quantisation).replace(
        workload="decode", context=opts.run.context, batch=opts.run.batch, num_devices=opts.placement.num_devices,
        engine="llama.cpp", moe_offload="fit")
    try:
        result, _, _ = estimate_speed(model, speed_opts, device_id, device, prices=catalog.prices)
    except ValidationError:
        return None
    return result["device"]["tokens_per_s_per_sequence"]


def run_fit(values: dict, catalog: Catalog, lang: str) -> dict:
    """The reverse questions on one device: with a model, the longest context, the concurrent sequences and the
    memory of each weight format; without one, which presets fit."""
    device_id = values["device"]
    notes = []
    dev.require_own_memory(catalog.devices[device_id])  # an accelerator without memory holds no model at all
    device = readers_device(values, catalog.devices[device_id], notes)
    n = values["num_devices"]
    opts = options(values, weights=values["weights"] or default_of("weights"), num_devices=n)
    model = resolve_model(values, catalog)
    result = {"device": device_id, "name": dev.name(device), "num_devices": n,
              "weights": values["weights"], "kv_cache": opts.quantisation.kv_cache, "context": opts.run.context,
              "batch": opts.run.batch,
              "model": model.id if model else None, "model_name": model.name if model else None,
              "formats": None, "max_context": None, "max_batch": None, "presets": None}
    if model is None:
        presets = presets_that_fit(catalog.models, opts, device_id, device, n)
        result["presets"] = presets["presets"]
        result.update({k: presets[k] for k in ("capacity_gib", "usable_gib", "gpu_share")})
    else:
        formats = formats_that_fit(model, opts, device_id, device, n)
        result["formats"] = formats["formats"]
        result.update({k: formats[k] for k in ("capacity_gib", "usable_gib", "gpu_share")})
        if values["weights"] is None:  # the format with the most bits that fits, else the default (bf16)
            fitting = [f["weights"] for f in formats["formats"] if f["fits"]]
            opts = opts.replace(weights=fitting[0] if fitting else default_of("weights"))
            result["weights"] = opts.quantisation.weights
        result["max_context"] = max_context(model, opts, device_id, device, n)
        result["max_batch"] = max_batch(model, opts, device_id, device, n)
        if model.max_context and opts.run.context > model.max_context:
            notes.append(Message("note.context_exceeds", {"context": opts.run.context, "max_context": model.max_context}))
    if result["gpu_share"]:
        notes.append(Message("note.gpu_share", {"devices": [dev.name(device)]}))
    notes.append(Message("note.overhead", {"gib": opts.placement.overhead_gib}))
    notes.append(Message("note.fits_rule", {}))
    result["notes"] = [m.render(lang) for m in notes]
    return result


def resolve_draft(values: dict, model: ModelSpec | None, opts: Options, device: dict,
                  catalog: Catalog) -> ModelSpec | None:
    """The draft model of speculative decoding, after checking that the engine, the model and the draft allow the
    method the reader chose (localized field errors otherwise); None without a draft model."""
    method = opts.serving.speculative
    if method == "none" or model is None or opts.run.workload != "decode":
        return None
    problems = []
    engine = engine_for(device, opts)
    if method not in speculative.SUPPORT.get(engine, ()):
        problems.append(error("speculative", "error.speculative_engine", engine=engine, method=method,
                              engines=[e for e, m in speculative.SUPPORT.items() if method in m]))
    draft = None
    if method == "mtp" and not model.mtp_layers:
        problems.append(error("speculative", "error.no_mtp", model=model.name))
    if method == "draft":
        draft_id = values.get("draft_model")
        if draft_id is None:  # the smallest preset of the same publisher and tokenizer
            draft_id = speculative.default_draft(model.id, catalog.models)
            if draft_id is None:
                problems.append(error("draft_model", "error.no_default_draft", model=model.name,
                                      percent=speculative.DRAFT_MAX_ACTIVE_PERCENT))
        if draft_id == CUSTOM:
            problems.append(error("draft_model", "error.draft_custom"))
        elif draft_id is not None:
            draft = ModelSpec.from_preset(draft_id, catalog.models[draft_id])
            if draft.vocab != model.vocab:
                problems.append(error("draft_model", "error.draft_vocab", draft=draft.name, model=model.name,
                                      draft_vocab=draft.vocab, vocab=model.vocab))
    if problems:
        raise ValidationError(problems)
    return draft


def speculation_note(entry: dict, lang: str = "en") -> Message:
    """What the drafter does to the speed, in one sentence."""
    spec = entry["speculative"]
    task = spec["method"] == "draft" and spec["acceptance_source"] == "default"
    return Message(f"note.speculative_{spec['method']}" + ("_task" if task else ""), {
        "draft": spec["draft_model_name"] or "", "tokens": spec["draft_tokens"], "percent": 100 * spec["acceptance"],
        "per_run": spec["tokens_per_run"], "speedup": spec["speedup"], "device": entry["name"],
        "gib": entry["memory"]["speculation_gib"],
        "source": "reader" if spec["acceptance_source"] == "reader" else "spec_bench" if task else "deepseek",
        "task": l10n.t(lang, f"task_type.{spec['task_type']}") if task else ""})


def run_speed(values: dict, catalog: Catalog, lang: str) -> dict:
    model = resolve_model(values, catalog) if values["workload"] != "kernel" else None
    published = published_weights(values, model) if values["workload"] in ("decode", "prefill") else None
    opts = options(values, **({"weights": published} if published else {}))
    baseline_id = values["baseline"]
    readers = []
    device = readers_device(values, catalog.devices[values["device"]], readers)
    draft = resolve_draft(values, model, opts, device, catalog)
    if opts.serving.speculative != "none" and opts.run.workload != "decode":
        readers.append(Message("note.speculative_decode_only", {}))
    result, notes, why = estimate_speed(
        model,
        opts,
        values["device"],
        device,
        baseline_id,
        catalog.devices[baseline_id] if baseline_id else None,
        catalog.prices,
        draft,
    )
    for which in ("device", "baseline"):
        if result.get(which) and result[which].get("speculative"):
            readers.append(speculation_note(result[which], lang))
    notes[:0] = readers
    notes.extend(measured_power_notes(result, values, model, catalog))
    if published:
        notes.insert(0, Message("note.published_format", {"weights": published, "model": model.name}))
    result["weights_source"] = _weights_source(values, published) if model is not None else None
    result["reason"] = why.render(lang) if why else None
    result["notes"] = [n.render(lang) for n in notes]
    result["measured"] = measured_beside(result, values, model, catalog)
    result["kv_quality"] = kv_quality.answer(model, opts.quantisation.kv_cache, opts.run.context, opts.run.batch,
                                             kv_quality.rows_of(catalog)) \
        if model is not None and opts.run.workload in ("decode", "prefill") else None
    result["plan"] = None
    if opts.serving.target_tokens_per_s is not None and model is not None and opts.run.workload == "decode" \
            and not opts.roofline_only:
        result["plan"] = planner.plan(model, opts, values["device"], device, opts.serving.target_tokens_per_s,
                                      catalog.prices.get(dev.plain_id(values["device"])), draft)
    elif opts.serving.target_tokens_per_s is not None:
        result["notes"].append(Message("note.plan_decode_only", {}).render(lang))
    return result


def _measured_on(catalog: Catalog, choice: str) -> list:
    """The measured cases of the device a choice names (``id`` or ``id@GiB``); none for a choice that names none."""
    try:
        return catalog.measurements_on(dev.split_choice(choice)[0])
    except ValueError:
        return []


def measured_beside(result: dict, values: dict, model: ModelSpec | None, catalog: Catalog) -> dict | None:
    """Published measurements of this device (and baseline) with this or a similar model (``atlas.core.calculators.measured``):
    ``{"device": {"cases", "total"}, "baseline": ... | None}``; None for workloads that are not an LLM phase."""
    if model is None or result["workload"] not in ("decode", "prefill"):
        return None

    def listed(which: str, choice: str | None):
        entry = result[which]
        if not choice or not entry:
            return None
        return measured.alongside(_measured_on(catalog, choice), catalog.models, choice, model, result["workload"],
                                  num_devices=result["num_devices"], batch=result["batch"], weights=result["weights"],
                                  engine=entry.get("engine"))

    return {"device": listed("device", values["device"]), "baseline": listed("baseline", values["baseline"])}


def measured_power_notes(result: dict, values: dict, model: ModelSpec | None, catalog: Catalog) -> list[Message]:
    """Beside the energy per token at TDP (an upper bound): where the data set has a measured power for the same
    device (and number of devices) in this phase (``measured.measured_power``), the energy per token at that power
    for the estimated speed, stored as ``result[which]["energy"]["measured"]`` (``{"power_w", "power_scope",
    "joules_per_token", "kwh_per_million_tokens", "model", "engine", "weights", "tokens_per_s", "source"}``), and a
    note naming the power, its source and what it covers. [] for workloads that are not an LLM phase."""
    if model is None or result["workload"] not in ("decode", "prefill"):
        return []
    out = []
    for which in ("device", "baseline"):
        entry, choice = result.get(which), values.get(which)
        energy = (entry or {}).get("energy") or {}
        if not choice or not entry.get("tokens_per_s"):
            continue
        found = measured.measured_power(_measured_on(catalog, choice), choice, result["workload"], model.id,
                                        result["num_devices"], entry.get("engine"), result["weights"])
        if found is None:
            continue
        per = power.per_token(found["power_w"], entry["tokens_per_s"])
        found.update(joules_per_token=per["joules_per_token"], kwh_per_million_tokens=per["kwh_per_million_tokens"])
        energy = {**energy, "measured": found}
        entry["energy"] = energy
        spec = catalog.models.get(found.get("model"))
        out.append(Message(f"note.energy_measured_{found['power_scope']}", {
            "device": entry.get("name", choice), "watts": float(found["power_w"]),
            "joules": per["joules_per_token"], "source": found.get("source", {}).get("title", ""),
            "model": (spec or {}).get("name", found.get("model", "")), "engine": found.get("engine", ""),
            "measured_tps": float(found["tokens_per_s"])}))
    return out


def non_finite(value, path: str = "") -> str | None:
    """The path of the first NaN or infinite number inside ``value``, or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return path or "result"
    if isinstance(value, dict):
        for key, item in value.items():
            found = non_finite(item, f"{path}.{key}" if path else str(key))
            if found:
                return found
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = non_finite(item, f"{path}[{i}]")
            if found:
                return found
    return None


def _errors(errors, lang: str) -> dict:
    return {"ok": False, "errors": [e.render(lang) for e in errors]}


def handle(request: dict, catalog) -> dict:
    """Answer one request; see the module docstring for the shapes. Never raises."""
    lang = l10n.DEFAULT_LANGUAGE
    try:
        if not isinstance(request, dict):
            return _errors([error(None, "error.bad_request")], lang)
        requested_lang = request.get("lang", lang)
        if requested_lang in l10n.LANGUAGES:
            lang = requested_lang
        else:
            return _errors([error("lang", "error.unknown_value", field="lang", value=str(requested_lang)[:20],
                                  suggestions=list(l10n.LANGUAGES))], lang)
        if not isinstance(catalog, Catalog):
            catalog = Catalog.from_dict(catalog)
        command = request.get("command")
        raw = request.get("params") or {}
        values = parse(command, raw, catalog)
        given = raw.get("weights") if isinstance(raw, dict) else None
        values["weights_automatic"] = given is None or (isinstance(given, str) and not given.strip())
        runner = {"vram": run_vram, "speed": run_speed, "fit": run_fit}[command]
        result = runner(values, catalog, lang)
        where = non_finite(result)
        if where:
            return _errors([error(None, "error.not_computable", where=where)], lang)
        return {"ok": True, "result": result}
    except ValidationError as exc:
        return _errors(exc.errors, lang)
    except CatalogError:
        return _errors([error(None, "error.bad_data")], lang)
    except Exception:  # noqa: BLE001 - the contract: never a traceback in a front end
        return _errors([error(None, "error.internal")], lang)
