"""The calculator forms, built from ``atlas.core.calculators.inputs.PARAMETERS`` and the catalog.

Each field is named exactly like the parameter (``context``, ``kv_cache``), so
the form, the URL query string, ``atlas.core.calculators.api.handle`` and the command
line (``--kv-cache``) share one vocabulary. Fields are grouped by ``LAYOUT``;
a group with a condition (``model=custom``, ``mode!=inference``) is shown
only when the condition holds. Numbers are text fields (``inputmode``), so
whatever the reader types reaches Python's parser unchanged and gets its
localized message there.
"""

from __future__ import annotations

import math
import re

from atlas.core import l10n
from atlas.core.calculators import defaults as d
from atlas.core.calculators import devices as dev
from atlas.core.calculators import speculative
from atlas.core.calculators.inputs import BY_NAME, CUSTOM, CUSTOM_FIELDS, Param, params_for
from atlas.core.calcview.markup import attrs, el, text, void
from atlas.core.calcview.numbers import field_value
from atlas.core.l10n.names import device_name as localized_name

# (group name, condition or None, parameter names): the order of the fields. A parameter not listed here joins the
# group its table entry names (``Param.group``; None: the command's last group), at its end (``groups``).
LAYOUT: dict[str, list[tuple[str, str | None, tuple[str, ...]]]] = {
    "vram": [
        ("main", None, ("model", "mode", "weights", "kv_cache", "context", "batch")),
        ("hardware", None, ("device", "num_devices", "memory_gib", "gpu_memory_percent", "ram_gib", "moe_offload")),
        ("custom", f"model={CUSTOM}", CUSTOM_FIELDS),
        ("training", "mode!=inference", ("optimizer", "lora_rank", "gradient_checkpointing")),
        ("parallel", None, ("tp", "zero")),
        ("quantisation", None, ("group_size", "double_quant", "bpw", "overhead_gib")),
    ],
    "speed": [
        ("main", None, ("model", "workload", "device", "baseline", "weights", "kv_cache", "context", "batch")),
        ("custom", f"model={CUSTOM}", CUSTOM_FIELDS),
        ("serving", "workload=decode", ("target_tokens_per_s",)),
        ("speculative", "workload=decode", ("speculative", "draft_model", "draft_tokens", "acceptance_percent")),
        ("training", "workload=training", ("training_mode", "tokens", "gradient_checkpointing")),
        ("kernel", "workload=kernel", ("flops", "bytes")),
        ("placement", None, ("engine", "num_devices", "split", "gpu_layers", "moe_offload", "host_bandwidth_gb_s",
                        "gpu_memory_percent")),
        ("cost", None, ("price_per_hour", "purchase_usd", "baseline_price_per_hour", "baseline_purchase_usd",
                         "amortisation_years", "electricity_usd_per_kwh")),
        ("efficiency", None, ("precision", "compute_efficiency", "memory_efficiency", "group_size", "double_quant", "bpw")),
    ],
}
# Groups shown folded (``<details>``): options most readers leave alone.
FOLDED = {"parallel", "quantisation", "efficiency", "placement", "cost"}
# Parameters whose term the glossary explains: parameter -> glossary slug (atlas/data/glossary.py ENTRIES).
GLOSSARY = {
    "weights": "quantisation", "kv_cache": "kv-cache", "context": "kv-cache", "batch": "batching",
    "mode": "fine-tuning", "lora_rank": "lora", "device": "gpu", "baseline": "gpu", "workload": "prefill-decode",
    "precision": "precision", "compute_efficiency": "mfu", "memory_efficiency": "memory-bandwidth",
    "flops": "flops", "bytes": "arithmetic-intensity", "host_bandwidth_gb_s": "memory-bandwidth",
}
GLOSSARY_PAGE = "../../glossary/"  # from /calculators/<name>/ and /de/calculators/<name>/
# Fields that start empty although their parameter has a default: empty lets the calculator choose
# (inference on N devices is tensor parallel over all N), a typed value is the reader's choice.
EMPTY_AT_FIRST = {"tp"}
# Groups whose fields always go into the URL when shown (a custom model must be complete in a link).
ALWAYS_IN_URL = {"custom"}

# Custom-model fields prefilled from a preset: parameter -> (section, key) in data/models/<id>.yaml.
PRESET_FIELDS = {
    "params_b": ("parameters", "total_b"),
    "layers": ("architecture", "layers"),
    "hidden": ("architecture", "hidden"),
    "intermediate": ("architecture", "intermediate"),
    "heads": ("architecture", "heads"),
    "kv_heads": ("architecture", "kv_heads"),
    "head_dim": ("architecture", "head_dim"),
    "vocab": ("architecture", "vocab"),
}


def groups(command: str) -> list[tuple[str, str | None, tuple[str, ...]]]:
    """``LAYOUT[command]`` with every parameter of the command the layout does not list added at the end of the
    group its table entry names (the last group where it names none), so a parameter needs only its table entry
    (and labels) to be in the form. ``ValueError`` for a group the command's form does not have."""
    layout = LAYOUT[command]
    listed = {name for _, _, names in layout for name in names}
    added: dict[str, list[str]] = {}
    for param in params_for(command):
        if param.name not in listed:
            added.setdefault(param.group or layout[-1][0], []).append(param.name)
    unknown = set(added) - {group for group, _, _ in layout}
    if unknown:
        raise ValueError(f"form of {command!r} has no group {', '.join(sorted(unknown))} "
                         f"(parameters {', '.join(n for g in sorted(unknown) for n in added[g])})")
    return [(group, condition, names + tuple(added.get(group, ()))) for group, condition, names in layout]


def layout_names(command: str) -> list[str]:
    """The parameter names of ``command`` in form order."""
    return [name for _, _, names in groups(command) for name in names]


def field_id(command: str, name: str) -> str:
    return f"calc-{command}-{name.replace('_', '-')}"


def _label(name: str, lang: str) -> str:
    return l10n.t(lang, f"param.{name}")


def _choice_label(param: Param, value: str, lang: str, catalog) -> str:
    if param.kind == "model":
        return catalog.models[value]["name"] if value != CUSTOM else l10n.t(lang, "calc.custom_model")
    if param.kind == "device":  # one choice per memory size: "Apple M3 Max · 64 GiB"
        device_id, gib = dev.split_choice(value)
        device = catalog.devices[device_id]
        gib = device["memory"]["capacity_gib"] if gib is None else gib
        return l10n.t(lang, "calc.device_option", name=device_name(device, lang),
                      gib=l10n.format_number(gib, lang, 1))
    key = {  # a choice's label is "<parameter>.<value>" unless listed here
        "weights": f"format.{value}",
        "kv_cache": f"format.{value}",
        "mode": f"mode.{value}",
        "training_mode": f"mode.{value}",
        "workload": f"workload.{value}",
        "precision": f"precision.{value}",
        "optimizer": f"calc.optimizer.{value}",
        "engine": f"engine.{value}",
    }.get(param.name, f"{param.name}.{value}")
    return l10n.t(lang, key)


def device_name(device: dict, lang: str = "en") -> str:
    """The device's name for a picker whose choices carry the memory size: a size in the name itself
    ("RTX 4060 Ti 16GB") is left out where the device is sold with several; in ``lang`` (``devices.name``)."""
    name = dev.name(device)
    if len({c["capacity_gib"] for c in dev.configurations(device)}) > 1:
        name = re.sub(r"\s*\b\d+\s?GB$", "", name) or name
    return localized_name(name, lang)


def choices(param: Param, catalog) -> list[str]:
    """The values a select offers, in display order."""
    if param.kind == "model":  # a custom architecture is typed in for the model only, never for a draft model
        presets = sorted(catalog.models, key=lambda m: catalog.models[m]["name"].lower())
        return presets + [CUSTOM] if param.name == "model" else presets
    if param.kind == "device":  # a device sold with several memory sizes once per size, smallest first
        ordered = sorted(catalog.devices, key=lambda d: device_name(catalog.devices[d]).lower())
        return [value for d in ordered
                for value, _ in sorted(dev.choices(d, catalog.devices[d]), key=lambda c: c[1])]
    return list(param.choices)


# What an empty field means where the parameter itself has no default (the estimator fills it in).
HELP_DEFAULTS = {"host_bandwidth_gb_s": d.DEFAULT_HOST_BANDWIDTH.value}
# Figures a help text states, from where the estimators keep them (placeholders of ``help.<name>``).
HELP_FIGURES = {
    "draft_model": {"percent": speculative.DRAFT_MAX_ACTIVE_PERCENT},
    "training_mode": {"full": d.TRAINING_FLOPS_PER_TOKEN.value, "adapters": d.TRAINING_FLOPS_ADAPTERS.value},
}


def _described_by(command: str, name: str) -> str:
    return f"{field_id(command, name)}-help {field_id(command, name)}-error"


def help_text(command: str, name: str, lang: str) -> str:
    """The one-line explanation of a field in ``lang`` (``help.<name>``, or ``help.<name>.<command>``
    where one command reads it differently); ``{default}`` is the parameter's default as typed."""
    key = f"help.{name}.{command}" if f"help.{name}.{command}" in l10n.labels(lang) else f"help.{name}"
    figures = HELP_FIGURES.get(name, {})
    if "{default}" not in l10n.labels(lang)[key]:
        return l10n.t(lang, key, **figures)
    # an empty field's value: the parameter's default, or where the parameter has none the estimator's own
    default = BY_NAME[name].default if BY_NAME[name].default is not None else HELP_DEFAULTS.get(name)
    if isinstance(default, bool) or not isinstance(default, (int, float, str)) or (
            isinstance(default, float) and not math.isfinite(default)):
        raise ValueError(f"help.{name} says what an empty field means, but {name} has no usable default: {default!r}")
    shown = l10n.format_number(default, lang, 2) if isinstance(default, (int, float)) else default
    return l10n.t(lang, key, default=shown, **figures)


def _help(command: str, name: str, lang: str) -> str:
    slug = GLOSSARY.get(name)
    link = ""
    if slug:
        term = l10n.t(lang, f"glossary.{slug}.term")
        link = " " + el("a", text(l10n.t(lang, "calc.glossary_link", term=term)), href=f"{GLOSSARY_PAGE}#{slug}")
    return el("p", text(help_text(command, name, lang)) + link, id=f"{field_id(command, name)}-help",
              class_="atlas-calc-help")


def _device_search(command: str, name: str, lang: str) -> str:
    """A search box that narrows the device list (calculator.mjs filters the options; without JavaScript
    the list is still complete)."""
    box_id = f"{field_id(command, name)}-search"
    return void("input", type="search", id=box_id, data_filter_for=field_id(command, name),
              placeholder=l10n.t(lang, "calc.device_search.placeholder"), aria_label=l10n.t(lang, "calc.device_search"),
              autocomplete="off", spellcheck="false", hidden=True, class_="atlas-calc-search")


def gpu_detect_html(command: str, lang: str) -> str:
    """"Detect my GPU" under the device picker: gpu-detect.mjs (loaded by pyodide-start.js where the browser has
    WebGPU) reads the adapter info in the page, asks ``atlas.core.calculators.gpu_detect`` which device it is and writes the
    answer into the status line as text. Hidden without JavaScript and without WebGPU; ``data-unavailable`` is
    what the line says when the answer cannot be had."""
    answer_id = f"{field_id(command, 'device')}-gpu"
    button = el("button", text(l10n.t(lang, "gpu_detect.button")), type="button", class_="md-button",
                data_gpu_detect_run=True, aria_controls=answer_id)
    answer = el("div", "", id=answer_id, class_="atlas-calc-gpu-answer", data_gpu_detect_answer=True,
                role="status", aria_live="polite")
    return el("div", button + answer, class_="atlas-calc-gpu", data_gpu_detect=field_id(command, "device"),
              data_unavailable=l10n.t(lang, "gpu_detect.unavailable"), hidden=True)


def _select(param: Param, value, command: str, lang: str, catalog) -> str:
    options = []
    # An empty first choice where the estimator fills one in: not for the model, nor for the device except in the
    # memory calculator (its verdict needs none); the draft model's is the smallest of the same tokenizer.
    optional_device = param.name == "device" and command == "vram"
    if param.default is None and param.name != "model" and (param.name != "device" or optional_device):
        key = f"calc.auto.{command}.{param.name}"
        key = key if key in l10n.labels(lang) else f"calc.auto.{param.name}"
        options.append(el("option", text(l10n.t(lang, key)), value=""))
    for choice in choices(param, catalog):
        gib = None
        if param.kind == "device":  # the size in the label, which calculator.mjs swaps for a typed memory size
            device_id, size = dev.split_choice(choice)
            size = catalog.devices[device_id]["memory"]["capacity_gib"] if size is None else size
            gib = l10n.format_number(size, lang, 1)
        options.append(el("option", text(_choice_label(param, choice, lang, catalog)), value=choice,
                          selected=(choice == value), data_gib=gib))
    return el("select", "".join(options), id=field_id(command, param.name), name=param.name,
              data_default=field_value(value, lang), aria_describedby=_described_by(command, param.name))


def _input(param: Param, value, command: str, lang: str) -> str:
    shown = field_value(value, lang)
    described = _described_by(command, param.name)
    if param.kind == "bool":
        return f'<input type="checkbox"{attrs(id=field_id(command, param.name), name=param.name, value="true", checked=bool(value), data_default=shown or "false", aria_describedby=described)}>'
    # An empty field means the default: the placeholder shows it (or says what the calculator does instead).
    placeholder = field_value(param.default, lang) or None
    if f"calc.placeholder.{param.name}" in l10n.labels(lang):
        placeholder = l10n.t(lang, f"calc.placeholder.{param.name}")
    return (
        f'<input type="text"{attrs(id=field_id(command, param.name), name=param.name, value=shown, data_default=shown, inputmode="numeric" if param.kind == "int" else "decimal", autocomplete="off", spellcheck="false", placeholder=placeholder, aria_describedby=described)}>'
    )


def field_html(command: str, name: str, value, lang: str, catalog) -> str:
    """One labelled field with its (empty, hidden) error line."""
    param = BY_NAME[name]
    control = (
        _select(param, value, command, lang, catalog)
        if param.kind in ("choice", "model", "device")
        else _input(param, value, command, lang)
    )
    label = el("label", text(_label(name, lang)), for_=field_id(command, name))
    error = el("p", "", id=f"{field_id(command, name)}-error", class_="atlas-calc-error", data_error_for=name,
               hidden=True, role="alert")
    helps = _help(command, name, lang)
    if param.kind == "bool":
        return el("div", control + label + helps + error, class_="atlas-calc-check")
    search = _device_search(command, name, lang) if param.kind == "device" else ""
    detect = gpu_detect_html(command, lang) if name == "device" else ""  # the reader's own device, not a baseline
    return el("div", label + search + control + detect + helps + error, class_="atlas-calc-field")


def _condition_holds(condition: str | None, values: dict) -> bool:
    if not condition:
        return True
    if "!=" in condition:
        name, _, wanted = condition.partition("!=")
        return str(values.get(name)) != wanted
    name, _, wanted = condition.partition("=")
    return str(values.get(name)) == wanted


def initial_values(command: str, page_defaults: dict, catalog) -> dict:
    """Field values before the reader changes anything: the parameter defaults, the page's
    choices over them, and the custom-model fields prefilled from the page's model."""
    values = {p.name: None if p.name in EMPTY_AT_FIRST else p.default for p in params_for(command)}
    values.update(page_defaults)
    preset = catalog.models.get(values.get("model") or "")
    if preset:
        for name, (section, key) in PRESET_FIELDS.items():
            if values.get(name) is None and key in preset.get(section, {}):
                values[name] = preset[section][key]
    return values


def import_html(command: str, lang: str) -> str:
    """A folded box to paste a config.json or pick a config.json or GGUF file: calculator.mjs reads it in the
    page (nothing is sent anywhere), asks ``calculators.import_fields`` for the custom-model fields and
    fills them in. Hidden until the runtime can read it (no JavaScript: no box)."""
    base = f"calc-{command}-import"
    area = el("label", text(l10n.t(lang, "calc.import.paste")), for_=f"{base}-text") + el(
        "textarea", "", id=f"{base}-text", rows="4", spellcheck="false", autocomplete="off", data_import_text=True,
        placeholder='{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, …}')
    file = el("label", text(l10n.t(lang, "calc.import.file")), for_=f"{base}-file") + void(
        "input", type="file", id=f"{base}-file", accept=".json,.gguf,application/json", data_import_file=True)
    button = el("button", text(l10n.t(lang, "calc.import.run")), type="button", class_="md-button",
                data_import_run=True)
    status = el("p", "", class_="atlas-calc-error", data_import_error=True, hidden=True, role="alert") + el(
        "p", "", class_="atlas-calc-hint", data_import_done=True, hidden=True, role="status")
    note = el("p", text(l10n.t(lang, "calc.import.note")), class_="atlas-calc-help")
    body = el("div", area + file + button + status + note, class_="atlas-calc-import-body")
    return el("details", el("summary", text(l10n.t(lang, "calc.import.title"))) + body,
              class_="atlas-calc-more atlas-calc-import", data_calc_import=True, hidden=True)


def form_html(command: str, values: dict, lang: str, catalog) -> str:
    """The whole form for ``command`` with ``values`` filled in."""
    parts = []
    for group, condition, names in groups(command):
        fields = "".join(field_html(command, name, values.get(name), lang, catalog) for name in names)
        legend = el("legend", text(l10n.t(lang, f"calc.group.{group}")))
        shown = _condition_holds(condition, values)
        extra = {
            "data_group": group,
            "data_when": condition,
            "data_always_in_url": group in ALWAYS_IN_URL or None,
            "hidden": not shown,
            "disabled": not shown,
        }
        if group in FOLDED:
            summary = el("summary", text(l10n.t(lang, f"calc.group.{group}")))
            parts.append(el("details", summary + el("fieldset", fields, class_="atlas-calc-group", **extra),
                            class_="atlas-calc-more"))
        else:
            parts.append(el("fieldset", legend + fields, class_="atlas-calc-group", **extra))
        if group == "main":
            parts.append(import_html(command, lang))
    return el("form", "".join(parts), class_="atlas-calc-form", data_calc_form=command, method="get",
              novalidate=True, autocomplete="off")
