"""The speed model's cross-validated accuracy, as tables and chart inputs for the accuracy page.

Reads ``atlas/data/fit_report.json`` (written by ``python -m atlas.data fit`` together
with ``atlas/core/calculators/fitted.py``): every published measurement with the
prediction of a fit that left its source out. Nothing here computes an
estimate; it only shows how far the estimates were from the measurements.
"""

from __future__ import annotations

import json
import math
import re
from html import escape

from atlas.core import l10n
from atlas.core.calculators import messages
from atlas.core.charts import svg
from atlas.data.dataset import REPO_ROOT

REPORT = REPO_ROOT / "atlas" / "data" / "fit_report.json"
GROUPS = ("decode-single-batch1", "decode-multi-or-batched", "prefill")
# Issue 33's targets, cross-validated leaving each source out.
TARGETS = {"decode-single-batch1": ("within_0.8_1.25", 0.90), "decode-multi-or-batched": ("within_0.67_1.5", 0.80),
           "prefill": ("within_0.67_1.5", 0.75)}


def load_report(path=REPORT) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def case_label(case: dict) -> str:
    """'RTX 4090 · llama-3.1-8b q4_k_m · tg128 · llama.cpp' — compact, from the case's own fields."""
    parts = [case["device"] + (f" ×{case['num_devices']} {case.get('split')}" if (case.get("num_devices") or 1) > 1
                               else ""), f"{case['model']} {case['weights']}"]
    if case["phase"] == "prefill":
        parts.append(f"pp{case.get('prompt_tokens')}")
    else:
        parts.append(f"tg{case.get('generated_tokens') or ''}" + (f" b{case['batch']}" if (case.get("batch") or 1) > 1
                                                                else ""))
    if case.get("context_depth"):
        parts.append(f"d{case['context_depth']}")
    parts.append(case["engine"])
    return " · ".join(parts)


def chart_points(report: dict, colour_by: str = "engine", lang: str | None = None) -> list[dict]:
    """One point per case; with ``lang``, engines by their names (vLLM, TensorRT-LLM) in the legend."""
    def group(case):
        name = str(case.get(colour_by) or "-")
        return engine_label(name, lang) if lang and colour_by == "engine" else name

    return [
        {"id": f"{c['source']}#{i}", "label": case_label(c), "group": group(c),
         "measured": c["measured_tokens_per_s"], "predicted": c["predicted_tokens_per_s"]}
        for i, c in enumerate(report["cases"])
    ]


def _pct(value: float, lang: str) -> str:
    return l10n.format_number(100 * value, lang, 0) + "\u202f%"


# The page's one ratio convention: predicted ÷ measured tokens per second (above 1: the estimate is too fast). The fit
# stores the inverse (``ratio``: predicted ÷ measured time, i.e. measured ÷ predicted tokens/s); every figure the page
# shows is computed here from the cases' tokens per second, so text, tables and chart say the same thing.
BANDS = {"within_0.8_1.25": (0.8, 1.25), "within_0.67_1.5": (0.67, 1.5)}


def predicted_over_measured(case: dict) -> float:
    return case["predicted_tokens_per_s"] / case["measured_tokens_per_s"]


def page_figures(cases: list[dict]) -> dict | None:
    """Cases, share within each band, median and worst of predicted ÷ measured tokens/s; None without cases."""
    ratios = sorted(predicted_over_measured(c) for c in cases)
    if not ratios:
        return None
    middle = len(ratios) // 2
    figures = {"cases": len(ratios),
               "median_ratio": ratios[middle] if len(ratios) % 2 else (ratios[middle - 1] + ratios[middle]) / 2,
               "worst_ratio": max(ratios, key=lambda r: abs(math.log(r))), "min_ratio": ratios[0],
               "max_ratio": ratios[-1],
               "measured_min": min(c["measured_tokens_per_s"] for c in cases),
               "measured_max": max(c["measured_tokens_per_s"] for c in cases)}
    for key, (lo, hi) in BANDS.items():
        figures[key] = sum(lo <= r <= hi for r in ratios) / len(ratios)
    return figures


def case_class(case: dict, devices: dict | None) -> str | None:
    """The device class (``engines.device_class``) of the case's device, None for a device the data set lacks."""
    from atlas.core.calculators import engines

    device = (devices or {}).get(case["device"])
    return engines.device_class(device) if device else None


def _matches(case: dict, devices: dict | None, filters: dict) -> bool:
    for name, want in filters.items():
        if name == "group":
            ok = case["group"] == want
        elif name == "device_class":
            ok = case_class(case, devices) == want
        elif name == "min_devices":
            ok = (case.get("num_devices") or 1) >= want
        elif name == "min_batch":
            ok = (case.get("batch") or 1) >= want
        elif name == "max_batch":
            ok = (case.get("batch") or 1) <= want
        elif name in ("engine", "source", "split", "phase", "device"):
            ok = case.get(name) == want
        else:
            raise ValueError(f"unknown filter {name!r}")
        if not ok:
            return False
    return True


def select(report: dict, devices: dict | None = None, without: dict | None = None, **filters) -> list[dict]:
    """The report's cases that match every filter (group, engine, device_class, source, split, phase, device,
    min_devices, min_batch, max_batch) and not all of ``without``'s."""
    return [c for c in report["cases"] if _matches(c, devices, filters)
            and not (without and _matches(c, devices, without))]


def figure_text(figures: dict | None, what: str, lang: str) -> str:
    """One page figure as text: a share as a percentage, a ratio with two decimals, a count, tokens/s."""
    if figures is None:
        return "–"
    value = figures[what]
    if what.startswith("within_"):
        return _pct(value, lang)
    if what == "cases":
        return l10n.format_number(value, lang, 0)
    if what.startswith("measured_"):
        return l10n.format_number(value, lang, 0)
    return l10n.format_number(value, lang, 2, trim=False)


def _band(key: str, lang: str) -> str:
    lo, hi = BANDS[key]
    return "×" + l10n.format_number(lo, lang, 2) + "–" + l10n.format_number(hi, lang, 2)


def target_text(figures: dict, group: str, lang: str) -> str:
    target = TARGETS.get(group)
    if not target:
        return l10n.t(lang, "accuracy.target_held_out") if group == "serving-max-throughput" else ""
    key, share = target
    met = figures[key] >= share
    return l10n.t(lang, "accuracy.target_met" if met else "accuracy.target_missed", share=_pct(share, lang),
                  band=_band(key, lang), reached=_pct(figures[key], lang))


def summary_table(report: dict, lang: str) -> str:
    """One row per group of cases: count, share within ×0.8–1.25 and ×0.67–1.5, median and worst predicted ÷
    measured, target."""
    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    head = "".join(f'<th scope="col">{escape(t(k))}</th>' for k in (
        "accuracy.col.group", "accuracy.col.cases", "accuracy.col.within_25", "accuracy.col.within_50",
        "accuracy.col.median", "accuracy.col.worst", "accuracy.col.target"))
    rows = []
    for group in GROUPS + ("serving-max-throughput", "all"):
        figures = page_figures(report["cases"] if group == "all" else select(report, group=group))
        if not figures:
            continue
        rows.append(
            f'<tr data-group="{escape(group)}"><th scope="row">{escape(t("accuracy.group." + group))}</th>'
            f'<td data-value="{figures["cases"]}">{figure_text(figures, "cases", lang)}</td>'
            f'<td data-value="{figures["within_0.8_1.25"]:.4f}">{figure_text(figures, "within_0.8_1.25", lang)}</td>'
            f'<td data-value="{figures["within_0.67_1.5"]:.4f}">{figure_text(figures, "within_0.67_1.5", lang)}</td>'
            f'<td data-value="{figures["median_ratio"]:.4f}">{figure_text(figures, "median_ratio", lang)}</td>'
            f'<td data-value="{figures["worst_ratio"]:.4f}">{figure_text(figures, "worst_ratio", lang)}</td>'
            f'<td class="atlas-accuracy-text">{escape(target_text(figures, group, lang))}</td></tr>'
        )
    return f'<table class="atlas-accuracy"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _breakdown_name(case: dict, devices: dict | None, by: str, lang: str) -> str:
    if by == "device_class":
        cls = case_class(case, devices)
        return cls or "-"
    if by == "engine_device_class":
        return f"{case['engine']}|{case_class(case, devices) or '-'}"
    return str(case.get(by) or "-")


def engine_label(engine: str, lang: str) -> str:
    """'vLLM' for 'vllm': the calculators' name of an engine; 'other engines' for the sources' catch-all."""
    if engine == "other":
        return l10n.t(lang, "accuracy.engine_other")
    return messages.display("engine", engine, lang)


def _breakdown_label(name: str, by: str, lang: str) -> str:
    from atlas.core.calculators import engines

    def cls_label(cls):
        return l10n.t(lang, f"accuracy.class.{cls}") if cls in engines.DEVICE_CLASSES else cls

    if by == "device_class":
        return cls_label(name)
    if by == "engine_device_class":
        engine, cls = name.split("|", 1)
        return f"{engine_label(engine, lang)} · {cls_label(cls)}"
    return engine_label(name, lang) if by == "engine" else name


def breakdown_table(report: dict, lang: str, by: str = "engine", devices: dict | None = None,
                    group: str | None = None) -> str:
    """Cases, share within ×0.8–1.25 and ×0.67–1.5 and median predicted ÷ measured per engine (or device class,
    back end, engine and device class), of all cases or of one ``group``. By device class every class of
    ``engines.DEVICE_CLASSES`` has a row, those without measured cases included."""
    from atlas.core.calculators import engines

    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    groups: dict[str, list[dict]] = {}
    for case in (select(report, group=group) if group else report["cases"]):
        groups.setdefault(_breakdown_name(case, devices, by, lang), []).append(case)
    if by == "device_class" and group is None:
        for cls in engines.DEVICE_CLASSES:
            groups.setdefault(cls, [])
    head = "".join(f'<th scope="col">{escape(t(k))}</th>' for k in (
        f"accuracy.col.by_{by}", "accuracy.col.cases", "accuracy.col.within_25", "accuracy.col.within_50",
        "accuracy.col.median"))
    rows = []
    for name, cases in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        figures = page_figures(cases)
        label = escape(_breakdown_label(name, by, lang))
        if figures is None:
            rows.append(f'<tr data-name="{escape(name)}"><th scope="row">{label}</th><td data-value="0">0</td>'
                        f'<td colspan="3" class="atlas-accuracy-text">{escape(t("accuracy.no_cases"))}</td></tr>')
            continue
        rows.append(f'<tr data-name="{escape(name)}"><th scope="row">{label}</th>'
                    f"<td>{figure_text(figures, 'cases', lang)}</td>"
                    f"<td>{figure_text(figures, 'within_0.8_1.25', lang)}</td>"
                    f"<td>{figure_text(figures, 'within_0.67_1.5', lang)}</td>"
                    f"<td>{figure_text(figures, 'median_ratio', lang)}</td></tr>")
    return f'<table class="atlas-accuracy"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def worst_table(report: dict, inference: dict, lang: str, count: int = 12) -> str:
    """The ``count`` cases furthest from their measurement, with a link to each source."""
    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    cases = sorted(report["cases"], key=lambda c: -abs(math.log(predicted_over_measured(c))))[:count]
    head = "".join(f'<th scope="col">{escape(t(k))}</th>' for k in (
        "accuracy.col.case", "accuracy.col.measured", "accuracy.col.predicted", "accuracy.col.ratio",
        "accuracy.col.source"))
    rows = []
    for c in cases:
        link = f'<a href="#source-{escape(c["source"])}">{escape(c["source"])}</a>'
        rows.append(f"<tr><th scope=\"row\">{escape(case_label(c))}</th>"
                    f"<td>{escape(svg.fmt(c['measured_tokens_per_s'], lang))}</td>"
                    f"<td>{escape(svg.fmt(c['predicted_tokens_per_s'], lang))}</td>"
                    f"<td>{l10n.format_number(predicted_over_measured(c), lang, 2, trim=False)}</td><td>{link}</td></tr>")
    return f'<table class="atlas-accuracy"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def sources_list(report: dict, inference: dict, lang: str) -> str:
    """Every source the model was fitted on, with its case count, linked."""
    counts: dict[str, int] = {}
    for c in report["cases"]:
        counts[c["source"]] = counts.get(c["source"], 0) + 1
    items = []
    for source_id in sorted(counts):
        link = f"<code>{escape(source_id)}</code>"
        items.append(f'<li id="source-{escape(source_id)}">{link} '
                     f"({escape(l10n.t(lang, 'accuracy.cases_n', n=counts[source_id]))})</li>")
    return f'<ul class="atlas-sources">{"".join(items)}</ul>'


# The fit's reasons for leaving a measurement out (``fit_speed.build_cases``), in the reader's language.
REFUSED_REASONS = (
    (re.compile(r"engine (\S+) is measured by one source only"), "accuracy.refused.one_source", "engine"),
    (re.compile(r"weight format (\S+) is not modelled"), "accuracy.refused.format", "format"),
    (re.compile(r"weight format not stated"), "accuracy.refused.no_format", None),
    (re.compile(r"maximum-throughput run whose concurrency the source does not state"),
     "accuracy.refused.no_concurrency", None),
)


def refused_reason(reason: str, lang: str) -> str:
    for pattern, key, field in REFUSED_REASONS:
        match = pattern.fullmatch(reason)
        if match:
            value = match.group(1) if field else None
            return l10n.t(lang, key, **({field: engine_label(value, lang) if field == "engine" else value}
                                        if field else {}))
    return reason


def refused_list(report: dict, lang: str) -> str:
    """The measurements the fit leaves out, per reason: how many, from how many sources."""
    items = []
    for reason, by_source in sorted(report["summary"].get("refused", {}).items(),
                                    key=lambda kv: (-sum(kv[1].values()), kv[0])):
        n = sum(by_source.values())
        measurements = l10n.t(lang, "accuracy.refused.measurements_" + ("one" if n == 1 else "other"),
                              n=l10n.format_number(n, lang, 0))
        sources = l10n.t(lang, "accuracy.refused.sources_" + ("one" if len(by_source) == 1 else "other"),
                         n=l10n.format_number(len(by_source), lang, 0))
        items.append(f"<li>{escape(refused_reason(reason, lang))}: "
                     f"{escape(l10n.t(lang, 'accuracy.refused.count', measurements=measurements, sources=sources))}</li>")
    return f'<ul class="atlas-refused">{"".join(items)}</ul>'


def all_devices_answered(report: dict) -> bool:
    """Issue 33's fourth target: no measurement left out for its device. True when every reason the fit gives is
    one of the known ones, none of which is about a device (an unknown reason counts against it)."""
    return all(any(pattern.fullmatch(reason) for pattern, _, _ in REFUSED_REASONS)
               for reason in report["summary"].get("refused", {}))


def target_status(report: dict, group: str, lang: str) -> str:
    """'missed: 78 % within ×0.8–1.25, target 90 %' for a group with a target; 'met'/'missed' for ``answered``."""
    if group == "answered":
        return l10n.t(lang, "accuracy.answered_met" if all_devices_answered(report) else "accuracy.answered_missed")
    return target_text(page_figures(select(report, group=group)), group, lang)


def refused_cases(report: dict) -> int:
    return sum(n for by_source in report["summary"].get("refused", {}).values() for n in by_source.values())


# The error statement next to a speed result (``atlas.core.calculators.trust``): the cross-validated figures per phase,
# per phase and engine, and per phase, engine and device class, written to ``atlas/core/calculators/accuracy_groups.py``.
GROUPS_PY = REPO_ROOT / "atlas" / "core" / "calculators" / "accuracy_groups.py"


def _figures(ratios: list[float]) -> dict:
    """The figures of ``atlas.data.fit_speed.summarise`` for one group of cases (ratios as the report stores them)."""
    logs = sorted(abs(math.log(r)) for r in ratios)
    ordered = sorted(ratios)
    middle = len(ordered) // 2
    median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return {
        "cases": len(ratios),
        "within_0.8_1.25": round(sum(0.8 <= r <= 1.25 for r in ratios) / len(ratios), 4),
        "within_0.67_1.5": round(sum(0.67 <= r <= 1.5 for r in ratios) / len(ratios), 4),
        "median_ratio": round(median, 4),
        "median_abs_error": round(math.exp(logs[len(logs) // 2]) - 1, 4),
        "p80_abs_error": round(math.exp(logs[min(len(logs) - 1, int(0.8 * len(logs)))]) - 1, 4),
    }


def group_figures(report: dict, devices: dict) -> dict:
    """{'prefill': {...}, 'prefill|llama.cpp': {...}, 'prefill|llama.cpp|nvidia-geforce': {...}, ...}: the
    cross-validated figures of every group of the report's cases (``atlas.core.calculators.trust``)."""
    from atlas.core.calculators import engines, trust

    ratios: dict[str, list[float]] = {}
    for case in report["cases"]:
        device = devices.get(case["device"])
        cls = engines.device_class(device) if device else None
        keys = [trust.group_key(case["group"]), trust.group_key(case["group"], case["engine"])]
        if cls:
            keys.append(trust.group_key(case["group"], case["engine"], cls))
        for key in keys:
            ratios.setdefault(key, []).append(case["ratio"])
    return {key: _figures(values) for key, values in sorted(ratios.items())}


def groups_module(report: dict, devices: dict) -> str:
    import pprint

    return (
        '"""Cross-validated error of the speed model per group of measured cases — written by ``python -m atlas.data fit``\n'
        "from ``atlas/data/fit_report.json`` (``atlas.data.accuracy.write_groups``); do not edit.\n\n"
        "GROUPS: per phase ('prefill'), phase and engine ('prefill|llama.cpp') and phase, engine and device class\n"
        "('prefill|llama.cpp|nvidia-geforce'): cases, share within ×0.8–1.25 and ×0.67–1.5, median ratio, median\n"
        "and 80th-percentile error. ``atlas.core.calculators.trust`` picks the group a speed result belongs to.\n"
        '"""\n\n'
        f"DATE = {report['summary'].get('date', '')!r}\n\n"
        f"GROUPS = {pprint.pformat(group_figures(report, devices), width=110, sort_dicts=True)}\n"
    )


def write_groups(report: dict | None = None, devices: dict | None = None) -> None:
    """Write ``atlas/core/calculators/accuracy_groups.py`` from the report (by default the committed one)."""
    if devices is None:
        from atlas.data.dataset import load_dataset

        devices = load_dataset().devices
    GROUPS_PY.write_text(groups_module(report or load_report(), devices), encoding="utf-8")
