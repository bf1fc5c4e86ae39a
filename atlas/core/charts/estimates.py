"""Chart inputs from the estimators' results, for the build and the browser alike.

``atlas.core.calculators.api.handle`` answers ``vram`` and ``speed`` requests with plain
dicts (the JSON of ``python -m atlas … --json``). These functions turn
such a result into the inputs of the charts here, with labels in the page's
language, so the macros and the in-page calculators draw the same picture
from the same result. Standard library only; nothing is recomputed.
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.l10n.names import device_name


def case_label(result: dict, lang: str) -> str:
    """What a ``vram`` result is for: "Llama 3.1 70B, Q4_K_M, 8,192 tokens" (mode and batch when not default)."""
    parts = [result["model_name"], l10n.t(lang, f"format.{result['weights']}")]
    if result.get("mode", "inference") != "inference":
        parts.append(l10n.t(lang, f"mode.{result['mode']}"))
    parts.append(l10n.t(lang, "charts.estimate.context", context=l10n.format_number(result["context"], lang, 0)))
    if result.get("batch", 1) != 1:
        parts.append(l10n.t(lang, "charts.estimate.batch", batch=l10n.format_number(result["batch"], lang, 0)))
    return ", ".join(parts)


def vram_bar(result: dict, lang: str, label: str | None = None) -> dict:
    """One memory-breakdown bar ``{"label", "parts"}``; a sharded estimate shows one device's share."""
    parts = result["per_device"] if result.get("num_devices", 1) > 1 else result["breakdown"]
    return {"label": label or case_label(result, lang), "parts": dict(parts)}


def vram_threshold(result: dict, lang: str, label: str | None = None) -> dict:
    """A capacity line ``{"label", "capacity_gib"}`` at the total memory a ``vram`` result needs."""
    label = label or l10n.t(
        lang, "charts.estimate.threshold", case=case_label(result, lang),
        value=l10n.format_significant(result["total_gib"], lang, 3), unit=l10n.t(lang, "unit.gib"))
    return {"label": label, "capacity_gib": result["total_gib"]}


def speed_marker(result: dict, lang: str, label: str | None = None) -> dict:
    """A roofline marker ``{"label", "intensity"}`` at a ``speed`` result's arithmetic intensity (FLOP/byte)."""
    if not label:
        key = "charts.estimate.marker_prefill" if result["workload"] == "prefill" else "charts.estimate.marker"
        label = l10n.t(lang, key, model=result.get("model_name") or "",
                       workload=l10n.t(lang, f"charts.workload.{result['workload']}"),
                       batch=l10n.format_number(result.get("batch", 1), lang, 0),
                       context=l10n.format_number(result.get("context", 0), lang, 0)).strip(" ,")
    return {"label": label, "intensity": result["arithmetic_intensity"]}


def speed_roofline(result: dict, lang: str) -> dict:
    """Keyword arguments for ``roofline_figure``/``roofline_svg`` from a ``speed`` result:
    its device and baseline (peak TFLOP/s and bandwidth GB/s as the estimator used them),
    the precision, and the workload as a marker (none when the result has no intensity,
    e.g. a kernel given without bytes).

    ``atlas.core.charts.roofline_figure(lang=lang, **speed_roofline(result, lang))``
    """
    devices = []
    for key in ("device", "baseline"):
        d = result.get(key)
        if d:
            devices.append({"id": d["id"], "label": device_name(d.get("name"), lang) or d["id"], "peak_tflops": d["peak_tflops"],
                            "bandwidth_gb_s": d["bandwidth_gb_s"]})
    first = result["device"]
    return {
        "devices": devices,
        "precision": first.get("precision") or result["precision"],
        "unit": first.get("unit", "matrix"),
        "markers": [speed_marker(result, lang)] if result.get("arithmetic_intensity") else [],
    }
