"""Chart inputs computed by the estimators (build side): memory breakdowns,
capacity thresholds and workload intensities, never typed into a page.

Every figure comes from ``atlas.core.calculators.api.handle`` — the function the
calculators, the command line and the browser run — with the parameters the
calculators document (``atlas.core.calculators.inputs``: ``model``, ``weights``,
``kv_cache``, ``context``, ``batch``, ``mode``, ``workload``, …). Sizes stay in
the unit the estimators name in their keys (``…_gib``); ``atlas.core.charts.estimates``
turns results into chart inputs with labels in the page's language (the
in-page calculators use the same functions).
"""

from __future__ import annotations

from atlas.core.calculators.api import handle
from atlas.core.calculators.catalog import Catalog
from atlas.core.charts import estimates
from atlas.data.dataset import Dataset
from atlas.data.export import export_dataset


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


def breakdown_bar(case: dict, lang: str, cat: Catalog) -> dict:
    """One bar of the memory-breakdown chart: ``{"label", "parts"}`` from a ``vram`` estimate.

    ``case`` holds the estimator's parameters (``{"model": "llama-3.1-70b",
    "weights": "q4_k_m", "context": 8192}``) and optionally a ``label``.
    """
    return estimates.vram_bar(estimate("vram", _estimate_params(case), lang, cat), lang, case.get("label"))


def capacity_threshold(case: dict, lang: str, cat: Catalog) -> dict:
    """A vertical line for the capacity/bandwidth chart: the total memory a ``vram`` estimate needs (GiB)."""
    return estimates.vram_threshold(estimate("vram", _estimate_params(case), lang, cat), lang, case.get("label"))


def workload_marker(case: dict, device_id: str, lang: str, cat: Catalog) -> dict:
    """A roofline marker at the arithmetic intensity the ``speed`` estimator computes for a workload.

    ``case`` holds speed parameters (``{"workload": "decode", "model": "llama-3.1-8b",
    "weights": "bf16", "batch": 1}``); ``device_id`` is any device of the chart
    (the intensity is the workload's, not the device's).
    """
    result = estimate("speed", {"device": device_id, **_estimate_params(case)}, lang, cat)
    return estimates.speed_marker(result, lang, case.get("label"))


def workload_intensity(case: dict, device_id: str, lang: str, cat: Catalog) -> float:
    """The arithmetic intensity (FLOP/byte) the ``speed`` estimator computes for a workload, as
    ``workload_marker`` draws it; ``EstimateError`` when the workload moves no modelled bytes (training)."""
    result = estimate("speed", {"device": device_id, **_estimate_params(case)}, lang, cat)
    if not result["arithmetic_intensity"]:
        raise EstimateError(f"speed {case}: the estimators model no bytes for this workload, so it has no intensity")
    return result["arithmetic_intensity"]
