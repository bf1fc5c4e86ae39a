"""Chart inputs computed by the estimators (build side): memory breakdowns,
capacity thresholds and workload intensities, never typed into a page.

Every figure comes from ``calculators.api.handle`` — the function the
calculators, the command line and the browser run — with the parameters the
calculators document (``calculators.inputs``: ``model``, ``weights``,
``kv_cache``, ``context``, ``batch``, ``mode``, ``workload``, …). Sizes stay in
the unit the estimators name in their keys (``…_gib``); labels are written in
the page's language.
"""

from __future__ import annotations

import l10n
from atlas.dataset import Dataset
from atlas.export import export_dataset
from calculators.api import handle
from calculators.catalog import Catalog


class EstimateError(ValueError):
    """The estimators refused the parameters a page gave; the message says which and why."""


def catalog(dataset: Dataset) -> Catalog:
    """The estimators' view of the validated data set."""
    return Catalog.from_dict(export_dataset(dataset))


def estimate(command: str, params: dict, lang: str, cat: Catalog) -> dict:
    """The estimators' result for ``command`` ("vram" | "speed"), or ``EstimateError`` with their messages."""
    answer = handle({"command": command, "params": dict(params), "lang": lang}, cat)
    if not answer.get("ok"):
        messages = "; ".join(e.get("message", e.get("key", "?")) for e in answer.get("errors", []))
        raise EstimateError(f"{command} {params}: {messages}")
    return answer["result"]


def _estimate_params(case: dict) -> dict:
    """The parameters of a case without the chart-only keys (``label``)."""
    return {k: v for k, v in case.items() if k != "label"}


def case_label(result: dict, lang: str) -> str:
    """"Llama 3.1 70B, Q4_K_M, 8,192 tokens" — what a memory estimate is for, in ``lang``."""
    parts = [result["model_name"], l10n.t(lang, f"format.{result['weights']}")]
    if result.get("mode", "inference") != "inference":
        parts.append(l10n.t(lang, f"mode.{result['mode']}"))
    parts.append(l10n.t(lang, "charts.estimate.context", context=l10n.format_number(result["context"], lang, 0)))
    if result.get("batch", 1) != 1:
        parts.append(l10n.t(lang, "charts.estimate.batch", batch=l10n.format_number(result["batch"], lang, 0)))
    return ", ".join(parts)


def breakdown_bar(case: dict, lang: str, cat: Catalog) -> dict:
    """One bar of the memory-breakdown chart: ``{"label", "parts"}`` from a ``vram`` estimate.

    ``case`` holds the estimator's parameters (``{"model": "llama-3.1-70b",
    "weights": "q4_k_m", "context": 8192}``) and optionally a ``label``.
    Sharded estimates show what one device holds (``per_device``).
    """
    result = estimate("vram", _estimate_params(case), lang, cat)
    parts = result["per_device"] if result.get("num_devices", 1) > 1 else result["breakdown"]
    return {"label": case.get("label") or case_label(result, lang), "parts": dict(parts)}


def capacity_threshold(case: dict, lang: str, cat: Catalog) -> dict:
    """A vertical line for the capacity/bandwidth chart: the total memory a ``vram`` estimate needs (GiB)."""
    result = estimate("vram", _estimate_params(case), lang, cat)
    label = case.get("label") or l10n.t(
        lang, "charts.estimate.threshold", case=case_label(result, lang),
        value=l10n.format_significant(result["total_gib"], lang, 3), unit=l10n.t(lang, "unit.gib"))
    return {"label": label, "capacity_gib": result["total_gib"]}


def workload_marker(case: dict, device_id: str, lang: str, cat: Catalog) -> dict:
    """A roofline marker at the arithmetic intensity the ``speed`` estimator computes for a workload.

    ``case`` holds speed parameters (``{"workload": "decode", "model": "llama-3.1-8b",
    "weights": "bf16", "batch": 1}``); ``device_id`` is any device of the chart
    (the intensity is the workload's, not the device's).
    """
    params = {"device": device_id, **_estimate_params(case)}
    result = estimate("speed", params, lang, cat)
    label = case.get("label")
    if not label:
        model = result.get("model_name")
        key = "charts.estimate.marker_prefill" if result["workload"] == "prefill" else "charts.estimate.marker"
        label = l10n.t(lang, key, model=model or "", workload=l10n.t(lang, f"charts.workload.{result['workload']}"),
                       batch=l10n.format_number(result["batch"], lang, 0),
                       context=l10n.format_number(result["context"], lang, 0)).strip(" ,")
    return {"label": label, "intensity": result["arithmetic_intensity"]}
