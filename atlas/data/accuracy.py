"""The speed model's cross-validated accuracy, as tables and chart inputs for the accuracy page.

Reads ``atlas/data/fit_report.json`` (written by ``python -m atlas.data fit`` together
with ``atlas/core/calculators/fitted.py``): every published measurement with the
prediction of a fit that left its source out. Nothing here computes an
estimate; it only shows how far the estimates were from the measurements.
"""

from __future__ import annotations

import json
import math
from html import escape

from atlas.core import l10n
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


def chart_points(report: dict, colour_by: str = "engine") -> list[dict]:
    return [
        {"id": f"{c['source']}#{i}", "label": case_label(c), "group": str(c.get(colour_by) or "-"),
         "measured": c["measured_tokens_per_s"], "predicted": c["predicted_tokens_per_s"]}
        for i, c in enumerate(report["cases"])
    ]


def _pct(value: float, lang: str) -> str:
    return l10n.format_number(100 * value, lang, 0) + "\u202f%"


def summary_table(report: dict, lang: str) -> str:
    """One row per group of cases: count, share within ×0.8–1.25 and ×0.67–1.5, median and worst ratio, target."""
    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    head = "".join(f'<th scope="col">{escape(t(k))}</th>' for k in (
        "accuracy.col.group", "accuracy.col.cases", "accuracy.col.within_25", "accuracy.col.within_50",
        "accuracy.col.median", "accuracy.col.worst", "accuracy.col.target"))
    rows = []
    summary = report["summary"]["cross_validated"]
    for group in GROUPS + ("all",):
        figures = summary.get(group)
        if not figures:
            continue
        target = TARGETS.get(group)
        target_text = ""
        if target:
            key, share = target
            met = figures[key] >= share
            target_text = t("accuracy.target_met" if met else "accuracy.target_missed", share=_pct(share, lang),
                            band="×0,8–1,25" if key == "within_0.8_1.25" and lang == "de" else
                            "×0.8–1.25" if key == "within_0.8_1.25" else
                            "×0,67–1,5" if lang == "de" else "×0.67–1.5")
        rows.append(
            f'<tr data-group="{escape(group)}"><th scope="row">{escape(t("accuracy.group." + group))}</th>'
            f'<td data-value="{figures["cases"]}">{l10n.format_number(figures["cases"], lang, 0)}</td>'
            f'<td data-value="{figures["within_0.8_1.25"]}">{_pct(figures["within_0.8_1.25"], lang)}</td>'
            f'<td data-value="{figures["within_0.67_1.5"]}">{_pct(figures["within_0.67_1.5"], lang)}</td>'
            f'<td data-value="{figures["median_ratio"]}">{escape(svg.fmt(figures["median_ratio"], lang))}</td>'
            f'<td data-value="{figures["worst_ratio"]}">{escape(svg.fmt(figures["worst_ratio"], lang))}</td>'
            f"<td>{escape(target_text)}</td></tr>"
        )
    return f'<table class="atlas-accuracy"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def breakdown_table(report: dict, lang: str, by: str = "engine") -> str:
    """Share within ×0.67–1.5 and median ratio per engine (or device class, backend)."""
    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    groups: dict[str, list[float]] = {}
    for case in report["cases"]:
        groups.setdefault(str(case.get(by) or "-"), []).append(case["ratio"])
    head = "".join(f'<th scope="col">{escape(t(k))}</th>' for k in (
        f"accuracy.col.by_{by}", "accuracy.col.cases", "accuracy.col.within_25", "accuracy.col.within_50",
        "accuracy.col.median"))
    rows = []
    for name, ratios in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        r25 = sum(0.8 <= r <= 1.25 for r in ratios) / len(ratios)
        r50 = sum(0.67 <= r <= 1.5 for r in ratios) / len(ratios)
        median = sorted(ratios)[len(ratios) // 2]
        rows.append(f"<tr><th scope=\"row\">{escape(name)}</th><td>{l10n.format_number(len(ratios), lang, 0)}</td><td>{_pct(r25, lang)}</td>"
                    f"<td>{_pct(r50, lang)}</td><td>{escape(svg.fmt(median, lang))}</td></tr>")
    return f'<table class="atlas-accuracy"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def worst_table(report: dict, inference: dict, lang: str, count: int = 12) -> str:
    """The ``count`` cases furthest from their measurement, with a link to each source."""
    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    cases = sorted(report["cases"], key=lambda c: -abs(math.log(c["ratio"])))[:count]
    head = "".join(f'<th scope="col">{escape(t(k))}</th>' for k in (
        "accuracy.col.case", "accuracy.col.measured", "accuracy.col.predicted", "accuracy.col.ratio",
        "accuracy.col.source"))
    rows = []
    for c in cases:
        link = f'<a href="#source-{escape(c["source"])}">{escape(c["source"])}</a>'
        predicted_over_measured = c["predicted_tokens_per_s"] / c["measured_tokens_per_s"]
        rows.append(f"<tr><th scope=\"row\">{escape(case_label(c))}</th>"
                    f"<td>{escape(svg.fmt(c['measured_tokens_per_s'], lang))}</td>"
                    f"<td>{escape(svg.fmt(c['predicted_tokens_per_s'], lang))}</td>"
                    f"<td>{escape(svg.fmt(predicted_over_measured, lang))}</td><td>{link}</td></tr>")
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
