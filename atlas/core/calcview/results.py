"""The result of a calculation as HTML: numbers, breakdown, devices, charts, notes.

The same function renders the pre-computed result at build time and every
live result in the browser. Each number the command line prints with
``--json`` sits in an element ``data-result="<path>"`` (``total_gib``,
``breakdown.weights_gib``, ``fits[0].count``, ``device.time_s``) whose
``data-value`` is the JSON value itself and whose text is that value
formatted for the reader, so a test or a reader can check the page against
``python -m atlas … --json``.
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlencode

from atlas.core import charts, l10n
from atlas.core.calculators import kv_quality, measured, planner, trust
from atlas.core.calculators.defaults import MAX_DEVICES_FOR_FIT
from atlas.core.calculators.speed import RUN_FIGURES, holds_model
from atlas.core.calcview import numbers
from atlas.core.calcview.markup import el, fill, prose, text
from atlas.core.charts import estimates
from atlas.core.l10n.names import device_name

BREAKDOWN = ("weights", "kv_cache", "activations", "gradients", "optimizer", "overhead")
# What the speed result's ``time_s`` is the time of, per workload.
TIME_ROW = {"decode": "calc.row.time_token", "prefill": "calc.row.time_prefill", "training": "calc.row.time_run",
            "kernel": "calc.row.time"}
FITS_SHOWN = 12  # devices listed before the rest fold away


def _t(lang: str, key: str, **params) -> str:
    return l10n.t(lang, key, **params)


def value(tag: str, path: str, raw, shown: str, **extra) -> str:
    """An element holding one result value: ``data-result`` path, raw JSON ``data-value``, shown text."""
    return el(tag, prose(shown), data_result=path, data_value=json.dumps(raw, allow_nan=False), **extra)


def _table(head: list[str], rows: list[str], caption: str | None = None) -> str:
    cap = el("caption", text(caption)) if caption else ""
    thead = el("thead", el("tr", "".join(el("th", text(h), scope="col") for h in head)))
    return el("table", cap + thead + el("tbody", "".join(rows)))


def _notes(result: dict, lang: str) -> str:
    if not result.get("notes"):
        return ""
    items = "".join(
        value("li", f"notes[{i}].message", note["message"], note["message"]) for i, note in enumerate(result["notes"])
    )
    return el("h3", text(_t(lang, "calc.heading.notes"))) + el("ul", items, class_="atlas-calc-notes")


def _chart(draw, lang: str) -> str:
    """A chart, or a short note instead if the chart refuses these numbers (the numbers stay in the tables)."""
    try:
        return draw()
    except charts.ChartError as exc:
        return el("p", text(_t(lang, "calc.chart_unavailable", reason=str(exc))), class_="atlas-calc-chart-missing")


class Sentence:
    """One translated sentence whose placeholders are result values: as HTML (each value in its
    ``data-result`` element) and as plain text (the sticky summary on phones)."""

    def __init__(self, template: str, **parts):
        self.template = template
        self.parts = parts  # name -> plain text, or (path, raw JSON value, shown text)

    def html(self) -> str:
        return fill(self.template, **{name: value("strong", *part) if isinstance(part, tuple) else text(part)
                                      for name, part in self.parts.items()})

    def plain(self) -> str:
        return self.template.format(**{name: part[2] if isinstance(part, tuple) else part
                                       for name, part in self.parts.items()})


# --- memory -------------------------------------------------------------------


def _verdict_device(verdict: dict, lang: str) -> str:
    gib = numbers.significant(verdict["capacity_gib"], lang)
    count = verdict["num_devices"]
    if verdict["name"]:
        name = device_name(verdict["name"], lang)
        if count == 1:
            return _t(lang, "verdict.device.one", name=name, gib=gib)
        return _t(lang, "verdict.device.many", count=l10n.format_number(count, lang, 0), name=name, gib=gib)
    if count == 1:
        return _t(lang, "verdict.device.custom_one", gib=gib)
    return _t(lang, "verdict.device.custom_many", count=l10n.format_number(count, lang, 0), gib=gib)


def _need(lang: str) -> str:
    """'Memory needed: {need} GiB.' from the headline's own label."""
    return f"{_t(lang, 'calc.vram.total')} {{need}}\u00a0{_t(lang, 'unit.gib')}."


def memory_verdict(result: dict, lang: str) -> Sentence:
    """The one-line answer: fits with its margin, short by how much, or runs only with offloading; without
    a device of the reader's, the memory needed and the smallest device that holds it. With the weight format
    left on Automatic for a preset, the format it is published in is named ("as published: MXFP4")."""
    answer = _memory_verdict(result, lang)
    moe = _moe_sentence(result, lang)
    if moe is not None:
        answer = Sentence(answer.template + " " + moe.template, **answer.parts, **moe.parts)
    return Sentence(answer.template + _published(result, lang), **answer.parts)


def _moe_sentence(result: dict, lang: str) -> Sentence | None:
    """Mixture of experts with experts in system RAM: where the reader's option puts what, or, when the model
    does not fit a device with its own memory, the fewest MoE layers whose experts must go there (with the
    speed, where the device is in the data set)."""
    verdict = result.get("verdict")
    if not verdict:
        return None
    placed, path = verdict.get("moe_offload"), "verdict.moe_offload"
    key = "verdict.moe_offload"
    if not placed:
        placed, path = verdict["suggestions"].get("moe_offload"), "verdict.suggestions.moe_offload"
        if not placed:
            return None
        key = "verdict.moe_suggest_speed" if placed.get("tokens_per_s") else "verdict.moe_suggest"
    parts = {"layers": l10n.format_number(placed["cpu_moe_layers"], lang, 0),
             "moe_layers": l10n.format_number(placed["moe_layers"], lang, 0),
             "gpu": (f"{path}.gpu_gib", placed["gpu_gib"], numbers.gib(placed["gpu_gib"], lang)),
             "ram": (f"{path}.ram_gib", placed["ram_gib"], numbers.gib(placed["ram_gib"], lang))}
    template = _t(lang, key)
    if placed.get("tokens_per_s"):
        parts["tokens"] = (f"{path}.tokens_per_s", placed["tokens_per_s"],
                           numbers.significant(placed["tokens_per_s"], lang))
    if placed.get("ram_fits") is False:
        template += " " + _t(lang, "verdict.moe_offload_ram_short")
        parts["ram_total"] = numbers.significant(placed["ram_available_gib"], lang)
    # The verdict's own placeholders ({ram}, {device}) stay the verdict's: these get a prefix, in one pass.
    template = re.sub(r"\{(\w+)\}", lambda m: "{moe_" + m.group(1) + "}" if m.group(1) in parts else m.group(0),
                      template)
    return Sentence(template, **{f"moe_{name}": part for name, part in parts.items()})


def _memory_verdict(result: dict, lang: str) -> Sentence:
    verdict = result.get("verdict")
    if not verdict:
        fitting = [f for f in result["fits"] if f["count"] == 1]
        need = ("total_gib", result["total_gib"], numbers.gib(result["total_gib"], lang))
        if fitting:
            smallest = min(fitting, key=lambda f: (f["usable_gib"], f["name"]))
            device = _t(lang, "verdict.device.one", name=device_name(smallest["name"], lang),
                        gib=numbers.significant(smallest["capacity_gib"], lang))
            return Sentence(_need(lang) + " " + _t(lang, "verdict.smallest"),
                            need=need, device=device)
        return Sentence(_need(lang) + " " + _t(lang, "verdict.nothing"), need=need)
    device = _verdict_device(verdict, lang)
    need = ("verdict.need_gib", verdict["need_gib"], numbers.gib(verdict["need_gib"], lang))
    margin = ("verdict.margin_gib", verdict["margin_gib"], numbers.gib(abs(verdict["margin_gib"]), lang))
    offload = verdict["offload"]
    if verdict["fits"]:
        return Sentence(_t(lang, "verdict.fits"), device=device, need=need, margin=margin)
    if offload:
        parts = {"device": device,
                 "offload": ("verdict.offload.offload_gib", offload["offload_gib"],
                             numbers.gib(offload["offload_gib"], lang)),
                 "ram": numbers.significant(offload["ram_gib"], lang)}
        if offload["fits"]:
            return Sentence(_t(lang, "verdict.offload"), share=l10n.format_number(100 * offload["share_offloaded"], lang, 0),
                            **parts)
        return Sentence(_t(lang, "verdict.offload_short"), **parts)
    return Sentence(_t(lang, "verdict.short"), device=device, need=need, margin=margin)


def _speed_link(result: dict, device: str | None) -> str:
    query = {"model": result["model"], "weights": result["weights"], "kv_cache": result["kv_cache"],
             "context": result["context"], "batch": result["batch"]}
    if device:
        query["device"] = device
    if result["num_devices"] > 1:
        query["num_devices"] = result["num_devices"]
    if result["model"] == "custom":
        return "../speed/"
    return "../speed/?" + urlencode({k: v for k, v in query.items() if v is not None})


def suggestions_html(result: dict, lang: str) -> str:
    """What would fit on the reader's device, from the estimator's own reverse questions."""
    verdict = result.get("verdict")
    if not verdict:
        return ""
    tips = verdict["suggestions"]
    items = []
    # training: the usual remedy first (PEFT's QLoRA recipe turns it on by default)
    if tips.get("gradient_checkpointing_gib"):
        items.append(Sentence(_t(lang, "verdict.suggest.gradient_checkpointing"),
                              gib=("verdict.suggestions.gradient_checkpointing_gib", tips["gradient_checkpointing_gib"],
                                   numbers.gib(tips["gradient_checkpointing_gib"], lang))).html())
    if tips["max_context"] is not None:
        key = "verdict.suggest.context_model" if tips["max_context_limited_by"] == "model" else "verdict.suggest.context"
        items.append(Sentence(_t(lang, key), context=("verdict.suggestions.max_context", tips["max_context"],
                                                   l10n.format_number(tips["max_context"], lang, 0))).html())
    if tips["formats"]:
        formats = ", ".join(
            text(_t(lang, "verdict.suggest.format_item", format=_t(lang, f"format.{f['weights']}"),
                    gib=numbers.gib(f["per_device_gib"], lang)))
            for f in tips["formats"])
        key = "verdict.suggest.formats_more" if verdict["fits"] else "verdict.suggest.formats"
        items.append(fill(_t(lang, key), formats=formats))
    if tips.get("configuration_gib"):
        sizes = ", ".join(numbers.significant(c, lang) for c in verdict["configurations_gib"])
        items.append(Sentence(_t(lang, "verdict.suggest.configuration"), sizes=sizes,
                              gib=("verdict.suggestions.configuration_gib", tips["configuration_gib"],
                                   numbers.significant(tips["configuration_gib"], lang))).html())
    if tips["num_devices"]:
        items.append(Sentence(_t(lang, "verdict.suggest.num_devices"),
                              count=("verdict.suggestions.num_devices", tips["num_devices"],
                                     l10n.format_number(tips["num_devices"], lang, 0))).html())
    if tips["devices"]:
        devices = ", ".join(text(_t(lang, "verdict.device.one", name=device_name(f["name"], lang),
                                    gib=numbers.significant(f["capacity_gib"], lang))) for f in tips["devices"])
        items.append(fill(_t(lang, "verdict.suggest.devices"), devices=devices))
    if result["mode"] == "inference" and (verdict["fits"] or verdict["offload"]):
        items.append(el("a", text(_t(lang, "verdict.suggest.speed")), href=_speed_link(result, verdict["device"])))
    if not items:
        return ""
    heading = _t(lang, "verdict.heading.options" if verdict["fits"] else "verdict.heading.suggestions")
    return el("p", text(heading), class_="atlas-calc-suggestions-heading") + el(
        "ul", "".join(el("li", item) for item in items), class_="atlas-calc-suggestions")


def memory_answer(result: dict, lang: str) -> str:
    """The verdict line and its suggestions, first in the result."""
    verdict = result.get("verdict")
    state = "none" if not verdict else "fits" if verdict["fits"] else (
        "offload" if verdict["offload"] and verdict["offload"]["fits"] else "short")
    line = el("p", memory_verdict(result, lang).html(), class_="atlas-calc-verdict", data_verdict=state)
    hint = el("p", text(_t(lang, "verdict.none")), class_="atlas-calc-hint") if not verdict else ""
    return el("div", line + suggestions_html(result, lang) + hint, class_="atlas-calc-answer")


def _capacities(fits: list[dict], need_gib: float, lang: str = "en") -> list[dict]:
    """Capacity lines for the chart: the smallest devices (at most three) with at least ``need_gib``,
    what the bar shows (the whole model, or one device's share of a sharded one)."""
    holding = sorted((f for f in fits if f["capacity_gib"] >= need_gib), key=lambda f: (f["capacity_gib"], f["name"]))
    seen, out = set(), []
    for f in holding:
        if f["capacity_gib"] not in seen:
            seen.add(f["capacity_gib"])
            out.append({"label": device_name(f["name"], lang), "capacity_gib": f["capacity_gib"]})
        if len(out) == 3:
            break
    return out


def memory_html(result: dict, lang: str) -> str:
    """The memory calculator's result (``python -m atlas vram --json``) as HTML in ``lang``."""
    unit = _t(lang, "unit.gib")
    n = result["num_devices"]
    total = memory_answer(result, lang)
    if result.get("verdict"):  # else the answer line itself states the memory needed
        total += el(
            "p",
            text(_t(lang, "calc.vram.total")) + " "
            + el("strong", value("span", "total_gib", result["total_gib"], numbers.gib(result["total_gib"], lang))
                 + "\u00a0" + text(unit)),
            class_="atlas-calc-headline",
        )
    if n > 1:
        total += el(
            "p",
            text(_t(lang, "calc.vram.per_device", count=l10n.format_number(n, lang, 0))) + " "
            + el("strong", value("span", "per_device_gib", result["per_device_gib"],
                                 numbers.gib(result["per_device_gib"], lang)) + "\u00a0" + text(unit)),
        )
    params = numbers.significant(result["params_b"], lang)
    summary = el(
        "p",
        text(_t(lang, "calc.vram.summary_one" if params == "1" else "calc.vram.summary", model=result["model_name"], mode=_t(lang, f"mode.{result['mode']}"),
                weights=_t(lang, f"format.{result['weights']}"),
                bits=l10n.format_number(result["bits_per_weight"], lang, 2), params=params)),
        class_="atlas-calc-summary",
    )
    bar = estimates.vram_bar(result, lang)  # one device's share when sharded
    need = result["per_device_gib"] if n > 1 else result["total_gib"]
    chart = _chart(lambda: charts.memory_breakdown_svg([bar], lang, capacities=_capacities(result["fits"], need, lang) or None),
                   lang)
    head = [_t(lang, "calc.col.part"), _t(lang, "calc.col.gib_total" if n > 1 else "calc.col.gib")]
    if n > 1:
        head.append(_t(lang, "calc.col.gib_per_device"))
    rows = []
    for part in BREAKDOWN:
        cells = el("th", text(_t(lang, f"breakdown.{part}")), scope="row")
        cells += value("td", f"breakdown.{part}_gib", result["breakdown"][f"{part}_gib"],
                       numbers.gib(result["breakdown"][f"{part}_gib"], lang))
        if n > 1:
            cells += value("td", f"per_device.{part}_gib", result["per_device"][f"{part}_gib"],
                           numbers.gib(result["per_device"][f"{part}_gib"], lang))
        rows.append(el("tr", cells))
    total_cells = el("th", text(_t(lang, "breakdown.total")), scope="row") + value(
        "td", "total_gib", result["total_gib"], numbers.gib(result["total_gib"], lang))
    if n > 1:
        total_cells += value("td", "per_device_gib", result["per_device_gib"], numbers.gib(result["per_device_gib"], lang))
    rows.append(el("tr", total_cells, class_="atlas-calc-total-row"))
    breakdown = el("h3", text(_t(lang, "calc.heading.breakdown"))) + el("div", chart, class_="atlas-calc-chart") + _table(
        head, rows)
    return total + summary + breakdown + fits_html(result["fits"], lang) + kv_quality_html(result, lang) \
        + _notes(result, lang)


def fits_html(fits: list[dict], lang: str) -> str:
    """Which devices of the data set hold the model, and how many of each."""
    heading = el("h3", text(_t(lang, "calc.heading.fits")))
    fitting = [(i, f) for i, f in enumerate(fits) if f["count"]]
    if not fitting:
        most = l10n.format_number(MAX_DEVICES_FOR_FIT, lang, 0)
        return heading + el("p", text(_t(lang, "calc.fits.none", max=most)), class_="atlas-calc-none")
    head = [_t(lang, "calc.col.device"), _t(lang, "calc.col.count"), _t(lang, "calc.col.per_device_gib"),
            _t(lang, "calc.col.capacity_gib")]

    def row(i: int, f: dict) -> str:
        return el(
            "tr",
            el("th", text(device_name(f["name"], lang)), scope="row")
            + value("td", f"fits[{i}].count", f["count"], l10n.format_number(f["count"], lang, 0))
            + value("td", f"fits[{i}].per_device_gib", f["per_device_gib"], numbers.gib(f["per_device_gib"], lang))
            + value("td", f"fits[{i}].capacity_gib", f["capacity_gib"], numbers.gib(f["capacity_gib"], lang)),
            data_device=f["device"],
        )

    shown = _table(head, [row(i, f) for i, f in fitting[:FITS_SHOWN]], caption=_t(lang, "calc.fits.caption"))
    rest = fitting[FITS_SHOWN:]
    if rest:
        summary = el("summary", text(_t(lang, "calc.fits.more", count=l10n.format_number(len(rest), lang, 0))))
        shown += el("details", summary + _table(head, [row(i, f) for i, f in rest]), class_="atlas-calc-more")
    return heading + shown


# --- speed --------------------------------------------------------------------


def _published(result: dict, lang: str) -> str:
    """" Weight format as published: MXFP4." when Automatic took the preset's published format, else ""."""
    if result.get("weights_source") != "published":
        return ""
    return " " + _t(lang, "answer.published", weights=_t(lang, f"format.{result['weights']}"))


def does_not_fit(result: dict) -> bool:
    """Whether the speed answer is "does not fit" first (the device or the baseline cannot hold the model)."""
    return bool(result.get("reason")) and result["reason"]["key"] == "reason.does_not_fit"


def speed_verdict(result: dict, lang: str) -> Sentence:
    """The one-line answer: tokens per second in words (decode: against reading speed) and what limits it;
    prefill and kernels: the time; training: the whole run. When the device or the baseline cannot hold the
    model, "does not fit" with the shortfall and the nearest configuration that runs (the result's ``reason``,
    the command line's words) comes first; for the reader's own device no speed of what cannot run."""
    published = _published(result, lang)
    if does_not_fit(result):
        reason = ("reason.message", result["reason"]["message"], result["reason"]["message"])
        if result["fits"] is False:
            return Sentence("{reason}" + published, reason=reason)
        answer = _speed_answer(result, lang)  # only the baseline is short: then the device's own speed
        return Sentence("{reason} " + answer.template + published, reason=reason, **answer.parts)
    answer = _speed_answer(result, lang)
    cost = _cost_sentence(result, lang)
    if cost is not None:
        answer = Sentence(answer.template + " " + cost.template, **answer.parts, **cost.parts)
    return Sentence(answer.template + published, **answer.parts)


def _cost_sentence(result: dict, lang: str) -> Sentence | None:
    """Cost per million tokens of each device that has a price (its own: typed, cloud median or purchase
    amortised, with the price's date), for the devices that hold the model; None when neither has one."""
    templates, parts = [], {}
    for which in ("device", "baseline"):
        entry = result.get(which)
        cost = (entry or {}).get("cost")
        if not cost or not cost.get("usd_per_million_tokens") or not (entry.get("memory") or {}).get("fits", True):
            continue
        key = {"given": "answer.cost.given", "cloud": "answer.cost.cloud"}.get(cost["basis"], "answer.cost.purchase")
        if cost["basis"] == "purchase" and not cost.get("as_of"):
            key = "answer.cost.purchase_given"
        if cost["basis"] == "cloud" and cost.get("providers") == 1:
            key = "answer.cost.cloud_one"  # "the median of 1 cloud providers" reads wrong in both languages
        usd = cost["usd_per_million_tokens"]
        parts.update({
            f"{which}_usd": (f"{which}.cost.usd_per_million_tokens", usd,
                             l10n.format_number(usd, lang, 3 if usd < 1 else 2)),
            f"{which}_name": device_name(entry["name"], lang),
            f"{which}_hourly": l10n.format_number(cost["usd_per_device_hour"], lang, 2),
            f"{which}_providers": l10n.format_number(cost.get("providers") or 0, lang, 0),
            f"{which}_as_of": l10n.format_month(str(cost["as_of"])[:7], lang) if cost.get("as_of") else "",
            f"{which}_purchase": l10n.format_number(cost.get("purchase_usd") or 0, lang, 0),
            f"{which}_years": numbers.significant(cost.get("amortisation_years") or 0, lang),
        })
        template = _t(lang, key)
        for name in ("usd", "device", "hourly", "providers", "as_of", "purchase", "years"):
            template = template.replace("{" + name + "}", "{" + which + "_" + ("name" if name == "device" else name) + "}")
        templates.append(template)
    return Sentence(" ".join(templates), **parts) if templates else None


def _devices_name(result: dict, entry: dict, lang: str) -> str:
    """"RTX 4090", or "2 × RTX 4090" when the answer is for several devices: a headline never reads as one card's
    speed when the model is split over two."""
    count = result.get("num_devices") or 1
    name = device_name(entry["name"], lang)
    if count <= 1:
        return name
    return _t(lang, "cli.device_count", count=l10n.format_number(count, lang, 0), name=name)


def _speed_answer(result: dict, lang: str) -> Sentence:
    """Tokens per second (or time) on the device(s) and what limits it."""
    entry = result["device"]
    time = ("device.time_s", entry["time_s"], numbers.duration(entry["time_s"], lang))
    bound = _t(lang, f"speed.answer.bound.{entry['bound']}")
    if result["workload"] == "decode" and entry.get("tokens_per_s_per_sequence"):
        speed = entry["tokens_per_s_per_sequence"]
        template = _t(lang, "speed.answer.tokens") + _engine(entry, lang)
        parts = {"device": _devices_name(result, entry, lang),
                 "tokens": ("device.tokens_per_s_per_sequence", speed, numbers.significant(speed, lang))}
        factor = entry.get("reading_speed_factor")
        if factor is not None:
            key = "speed.answer.reading" if factor >= 1 else "speed.answer.reading_slower"
            template += " (" + _t(lang, key) + ")"
            parts["factor"] = ("device.reading_speed_factor", factor, numbers.significant(factor, lang, 2))
        return Sentence(_with_bound(template, lang), bound=bound, **parts)
    key = "speed.answer.training" if result["workload"] == "training" else "speed.answer.time"
    return Sentence(_with_bound(_t(lang, key) + _engine(entry, lang), lang), device=_devices_name(result, entry, lang),
                    time=time, bound=bound)


def _engine(entry: dict, lang: str) -> str:
    """" with llama.cpp": the engine the fitted speed model assumed on this device ("" for plain rooflines)."""
    if not entry.get("engine"):
        return ""
    return " " + _t(lang, "answer.engine", engine=_t(lang, f"engine.{entry['engine']}"))


def _with_bound(answer_template: str, lang: str) -> str:
    """``answer_template`` followed by what limits it, punctuated as ``lang`` does (its placeholders kept)."""
    return _t(lang, "speed.answer.with_bound").replace("{answer}", answer_template)


def speed_comparison(result: dict, lang: str) -> Sentence | None:
    """"X is 2.04× faster/slower than Y": the factor always at least 1, the direction in words; "2 × X" and
    "2 × Y" when the model is split over several of each (the baseline runs on as many devices as the device)."""
    if result["speedup"] is None:
        return None
    compare = result.get("comparison") or {"direction": "faster" if result["speedup"] >= 1 else "slower",
                                           "factor": max(result["speedup"], 1 / result["speedup"])}
    shown = l10n.format_number(compare["factor"], lang, 2)
    key = "calc.speed.compare_same" if shown == l10n.format_number(1, lang, 2) else \
        f"cli.compare_{compare['direction']}"  # the command line's sentence
    if compare.get("both_fit") is False and key != "calc.speed.compare_same":
        key = f"compare.if_fit_{compare['direction']}"  # one of the two cannot hold the model: hypothetical
    template = _t(lang, key)
    engine, base_engine = result["device"].get("engine"), result["baseline"].get("engine")
    if engine and base_engine:  # which software each ran on: the engine alone can move the factor by 2×
        template += " " + (_t(lang, "compare.engine_same") if engine == base_engine else _t(lang, "compare.engines"))
    return Sentence(template, device=_devices_name(result, result["device"], lang),
                    baseline=_devices_name(result, result["baseline"], lang),
                    factor=("speedup", result["speedup"], shown),
                    engine=_t(lang, f"engine.{engine}") if engine else "",
                    baseline_engine=_t(lang, f"engine.{base_engine}") if base_engine else "")


def _opt(fmt, raw, lang):
    return fmt(raw, lang) if raw is not None else _t(lang, "table.not_stated")


def speed_html(result: dict, lang: str) -> str:
    """The speed calculator's result (``python -m atlas speed --json``) as HTML in ``lang``."""
    entries = [("device", result["device"])] + ([("baseline", result["baseline"])] if result["baseline"] else [])
    headline = el("p", speed_verdict(result, lang).html(), class_="atlas-calc-verdict",
                  data_verdict="does_not_fit" if does_not_fit(result) else result["workload"])
    comparison = speed_comparison(result, lang)
    if comparison:
        headline += el("p", comparison.html(), class_="atlas-calc-headline")
    verdict = next((n for n in result["notes"] if n["key"] in ("note.fits", "note.does_not_fit")), None)
    if verdict and result.get("fits") is not False:  # else the headline says it already
        headline += el("p", text(verdict["message"]), class_="atlas-calc-fit",
                       data_fits="true" if verdict["key"] == "note.fits" else "false")
    if result.get("reason") and not does_not_fit(result):
        headline += value("p", "reason.message", result["reason"]["message"], result["reason"]["message"],
                          class_="atlas-calc-reason")
    tflops = _t(lang, "unit.tops" if str(result["precision"]).startswith("int") else "unit.tflops")
    # The parts of the time, so that they add up to it: compute always; memory where the workload's traffic is
    # modelled (not for training, which is counted as compute-bound); fixed costs and communication where a device
    # spends any.
    parts = [("compute_time_s", "calc.row.compute_time")]
    if result["bytes"] is not None:
        parts.append(("memory_time_s", "calc.row.memory_time"))
    parts += [(key, label) for key, label in (("overhead_time_s", "calc.row.overhead_time"),
                                              ("communication_time_s", "calc.row.communication_time"))
              if any(entry.get(key) for _, entry in entries)]
    rows_spec = [
        ("time_s", _t(lang, TIME_ROW[result["workload"]]), lambda v: numbers.duration(v, lang)),
        ("tokens_per_s", _t(lang, "calc.row.tokens_per_s"), lambda v: _opt(numbers.significant, v, lang)),
        ("bound", _t(lang, "calc.row.bound"), lambda v: _t(lang, f"bound.{v}")),
        *((key, _t(lang, label), lambda v: numbers.duration(v, lang)) for key, label in parts),
        ("peak_tflops", _t(lang, "calc.row.peak", unit=tflops), lambda v: numbers.significant(v, lang, 4)),
        ("precision", _t(lang, "calc.row.precision"), lambda v: _t(lang, f"precision.{v}")),
        ("unit", _t(lang, "calc.row.unit"), lambda v: _t(lang, f"unit_kind.{v}")),
        ("bandwidth_gb_s", _t(lang, "calc.row.bandwidth"), lambda v: numbers.significant(v, lang, 4)),
        ("attainable_tflops", _t(lang, "calc.row.attainable", unit=tflops), lambda v: numbers.significant(v, lang)),
        ("critical_intensity", _t(lang, "calc.row.critical"), lambda v: numbers.significant(v, lang)),
    ]
    if "engine" in result["device"]:
        rows_spec.insert(2, ("engine", _t(lang, "calc.row.engine"),
                             lambda v: _t(lang, f"engine.{v}") if v else _t(lang, "table.not_stated")))
        rows_spec.insert(3, ("tokens_per_s_per_sequence", _t(lang, "calc.row.tokens_per_s_per_sequence"),
                             lambda v: _opt(numbers.significant, v, lang)))
        rows_spec.append(("cost.usd_per_million_tokens", _t(lang, "calc.row.cost_per_million"),
                          lambda v: _opt(lambda x, lg: l10n.format_number(x, lg, 3 if x < 1 else 2), v, lang)))
        rows_spec.append(("cost.usd_per_device_hour", _t(lang, "calc.row.cost_per_hour"),
                          lambda v: _opt(lambda x, lg: l10n.format_number(x, lg, 2), v, lang)))
    if "energy" in result["device"]:  # per token at the power figure (atlas.core.calculators.speed.energy_per_token)
        rows_spec += [
            ("energy.watts", _t(lang, "energy.row.watts"), lambda v: numbers.significant(v, lang, 4)),
            ("energy.joules_per_token", _t(lang, "energy.row.joules_per_token"), lambda v: numbers.significant(v, lang)),
            ("energy.kwh_per_million_tokens", _t(lang, "energy.row.kwh_per_million"),
             lambda v: numbers.significant(v, lang)),
            ("energy.usd_per_million_tokens", _t(lang, "energy.row.cost_per_million"),
             lambda v: l10n.format_number(v, lang, 3 if v < 1 else 2)),
        ]
    if result["workload"] == "training":
        rows_spec += [
            ("device_hours", _t(lang, "calc.row.device_hours"), lambda v: numbers.significant(v, lang)),
            ("energy_kwh", _t(lang, "calc.row.energy"), lambda v: _opt(numbers.significant, v, lang)),
            ("cost_usd", _t(lang, "calc.row.cost"), lambda v: _opt(lambda x, lg: l10n.format_number(x, lg, 0), v, lang)),
        ]
    rows = []
    for key, label, fmt in rows_spec:
        cells = el("th", text(label), scope="row")
        for which, entry in entries:
            raw = entry
            for part in key.split("."):
                raw = raw.get(part) if isinstance(raw, dict) else None
            if key in RUN_FIGURES and not holds_model(entry):  # no time, speed or cost of what cannot run
                cells += el("td", text(_t(lang, "table.does_not_fit")), data_does_not_fit=f"{which}.{key}")
                continue
            # a figure the device does not state (no compute peak, bandwidth or power): "—", and the result's note says why
            cells += value("td", f"{which}.{key}", raw, fmt(raw) if raw is not None else _t(lang, "table.not_stated"))
        rows.append(el("tr", cells))
    head = [_t(lang, "calc.col.quantity")] + [device_name(entry["name"], lang) for _, entry in entries]
    table = _table(head, rows)
    flops = numbers.si(result["flops"], lang, _t(lang, "calc.unit.flop"))
    work = (_t(lang, "calc.speed.work_training", flops=flops,
               tokens=numbers.significant(result["tokens"], lang)) if result["workload"] == "training"
            else _t(lang, "calc.speed.work", flops=flops,
                    bytes=_opt(lambda v, lg: numbers.si(v, lg, _t(lg, "calc.unit.byte")), result["bytes"], lang)))
    workload = el(
        "p",
        text(work) + " "
        + (text(_t(lang, "calc.speed.intensity")) + " "
           + value("strong", "arithmetic_intensity", result["arithmetic_intensity"],
                   numbers.significant(result["arithmetic_intensity"], lang)) + " "
           + text(_t(lang, "charts.unit.flop_per_byte"))
           if result["arithmetic_intensity"] is not None else ""),
        class_="atlas-calc-summary",
    )
    roofline = el("h3", text(_t(lang, "calc.heading.roofline"))) + el("div", _chart(lambda: _roofline(result, lang), lang),
                                                                     class_="atlas-calc-chart")
    accuracy = ""
    figures = result["device"].get("accuracy")
    if figures and holds_model(result["device"]):  # no error band for a speed that is not shown
        accuracy = el("p", text(trust.statement(figures, lang)) + " "
                      + el("a", text(_t(lang, "accuracy.link")), href="../accuracy/"), class_="atlas-calc-accuracy")
    return (headline + accuracy + el("h3", text(_t(lang, "calc.heading.times"))) + table + price_sources_html(entries, lang)
            + workload
            + plan_html(result, lang) + measured_html(result, lang) + kv_quality_html(result, lang) + roofline
            + _notes(result, lang))


def plan_html(result: dict, lang: str) -> str:
    """The serving plan (``result["plan"]``, see ``atlas.core.calculators.planner``): the answer in words, the accuracy of
    its group, and per-user and total tokens/s against the number of users."""
    found = result.get("plan")
    if not found:
        return ""
    said = planner.sentences(found, device_name(result["device"]["name"], lang), result["num_devices"], result["context"], lang)
    body = value("p", "plan.concurrency", found["concurrency"], said[0], class_="atlas-calc-plan")
    body += "".join(el("p", text(sentence)) for sentence in said[1:])
    if found.get("accuracy"):
        body += el("p", text(trust.statement(found["accuracy"], lang)), class_="atlas-calc-accuracy")
    rows = []
    for i, point in enumerate(found["curve"]):
        rows.append(el("tr", el("td", text(l10n.format_number(point["concurrency"], lang, 0)))
                       + value("td", f"plan.curve[{i}].tokens_per_s_per_user", point["tokens_per_s_per_user"],
                               numbers.significant(point["tokens_per_s_per_user"], lang))
                       + value("td", f"plan.curve[{i}].tokens_per_s_total", point["tokens_per_s_total"],
                               l10n.format_number(point["tokens_per_s_total"], lang, 0))
                       + el("td", text(_t(lang, "yes" if point["fits"] else "no")))))
    head = [_t(lang, f"plan.col.{col}") for col in ("users", "per_user", "total", "fits")]
    return el("h3", text(_t(lang, "plan.heading"))) + el("div", body + _table(head, rows), data_plan="device")


def price_sources_html(entries: list, lang: str) -> str:
    """Where each device's purchase price comes from (a link to the dated source), below the table whose cost rows
    use it; nothing for a typed price or a cloud median (the comparison page lists every provider's price)."""
    lines = []
    for _, entry in entries:
        found = entry.get("cost") or {}
        url = str(found.get("source_url") or "")
        if found.get("basis") != "purchase" or not url.startswith(("https://", "http://")):
            continue
        link = el("a", text(str(found.get("source_title") or url)), href=url, rel="noopener")
        lines.append(el("p", fill(_t(lang, "calc.price_source"), device=text(device_name(entry["name"], lang)), source=link,
                                  as_of=text(l10n.format_month(str(found.get("as_of", ""))[:7], lang)
                                             if found.get("as_of") else "")),
                        class_="atlas-calc-price-source"))
    return "".join(lines)


def _source_link(row: dict, lang: str) -> str:
    source = row.get("source") or {}
    url, label = str(source.get("url", "")), str(source.get("publisher") or source.get("title") or "")
    shown = text(label) + (" " + text(row["date"]) if row.get("date") else "")
    if url.startswith(("https://", "http://")):
        return el("a", shown, href=url, title=str(source.get("title", "")), rel="noopener")
    return shown


def measured_html(result: dict, lang: str) -> str:
    """The published measurements beside the estimate (``result["measured"]``, see ``atlas.core.calculators.measured``):
    one table per device with each case's model, engine, setup, tokens/s and source; labelled as measured."""
    listed_by = result.get("measured") or {}
    parts = []
    for which in ("device", "baseline"):
        listed = listed_by.get(which)
        if listed is None or not result.get(which):
            continue
        name = device_name(result[which]["name"], lang)
        if not listed["cases"]:
            parts.append(el("p", text(_t(lang, "measured.none", device=name)), class_="atlas-calc-measured-none",
                            data_measured=which))
            continue
        rows = []
        for i, row in enumerate(listed["cases"]):
            shown = measured.described(row, lang)
            rows.append(el("tr", el("td", text(shown["model"])) + el("td", text(shown["engine"]))
                           + el("td", text(shown["setup"]))
                           + value("td", f"measured.{which}.cases[{i}].tokens_per_s", row["tokens_per_s"], shown["tokens_per_s"])
                           + el("td", _source_link(row, lang))))
        head = [_t(lang, f"measured.col.{col}") for col in ("model", "engine", "setup", "tokens_per_s", "source")]
        more = ""
        if listed["total"] > len(listed["cases"]):
            more = el("p", text(_t(lang, "measured.more", count=l10n.format_number(listed["total"], lang, 0),
                                   shown=l10n.format_number(len(listed["cases"]), lang, 0))))
        parts.append(el("div", el("p", text(_t(lang, "measured.intro", device=name))) + _table(head, rows) + more,
                        class_="atlas-calc-measured", data_measured=which))
    if not parts:
        return ""
    return el("h3", text(_t(lang, "measured.heading"))) + "".join(parts)


def kv_quality_html(result: dict, lang: str) -> str:
    """A quantised KV cache's cost (``result["kv_quality"]``, see ``atlas.core.calculators.kv_quality``): the memory saved
    against FP16 and the quality changes sources measured, each row with its model and source; "" for FP16/BF16."""
    answer = result.get("kv_quality")
    if not answer:
        return ""
    fmt = _t(lang, f"format.{answer['kv_cache']}")
    parts = [el("p", text(kv_quality.saved_sentence(answer, lang)), class_="atlas-calc-kvq-saved")]
    listed = answer["measurements"]
    if listed == []:
        parts.append(el("p", text(_t(lang, "kvq.none", format=fmt)), class_="atlas-calc-kvq-none"))
    elif listed:
        parts.append(el("p", text(_t(lang, "kvq.intro", format=fmt))))
        if not answer["same_scheme"]:
            parts.append(el("p", text(_t(lang, "kvq.related", format=fmt)), class_="atlas-calc-kvq-related"))
        rows = []
        for m in listed:
            shown = kv_quality.described(m, lang)
            cells = "".join(el("td", text(shown[key])) for key in ("model", "engine", "cache", "metric", "fp16",
                                                                   "quantised", "change"))
            rows.append(el("tr", cells + el("td", _source_link(m, lang))))
        head = [_t(lang, f"kvq.col.{col}") for col in ("model", "engine", "cache", "metric", "fp16", "quantised",
                                                        "change", "source")]
        parts.append(_table(head, rows))
    return el("section", el("h3", text(_t(lang, "kvq.heading"))) + "".join(parts), class_="atlas-calc-kvq",
              data_kv_cache=answer["kv_cache"])


def _roofline(result: dict, lang: str) -> str:
    """The roofline of the result's device and baseline with the workload marked (``atlas.core.charts.estimates``).

    A device that states no compute peak or no bandwidth has no roof to draw: it is left out (the table
    shows "—" and the result's notes say why); with neither device drawable a sentence says so instead."""
    spec = estimates.speed_roofline(result, lang)
    drawable = [d for d in spec["devices"] if d["peak_tflops"] is not None and d["bandwidth_gb_s"] is not None]
    if not drawable:
        names = " / ".join(d["label"] for d in spec["devices"])
        return el("p", text(_t(lang, "calc.chart.no_roofline", device=names)), class_="atlas-calc-chart-missing")
    spec["devices"] = drawable
    if spec["unit"] is None:  # the first device's unit is unknown without a peak: the drawn roofs use the requested one
        spec["unit"] = result.get("unit") or "matrix"
    return charts.roofline_svg(lang=lang, **spec)
