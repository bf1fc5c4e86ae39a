"""The roofline explorer: one device, one precision, one arithmetic intensity.

The device's dense peak comes from the estimators' one lookup
(``atlas.core.calculators.devices.peak``, the same the kernel demos and the roofline
tables use through ``atlas.core.calculators.demo_peaks.peak``): the matrix unit's figure where
the device states one, else half its sparse figure where that is all the
vendor publishes, else the vector unit's. A device that lacks the precision
altogether is an error on the precision field, never a silent fallback to
another precision. Bandwidth is the device's peak memory bandwidth in GB/s.
Everything else comes from ``atlas/core/kernels/roofline.py`` (``explore``), the file
the page shows; the picture is ``atlas.core.charts.roofline_figure``.

Units: peak in TFLOP/s (TOPS for integer precisions), bandwidth in GB/s,
intensity in operations per byte.
"""

from __future__ import annotations

from atlas.core import charts, l10n
from atlas.core.calculators import devices as dev
from atlas.core.calculators.inputs import PRECISIONS, suggestions
from atlas.core.calcview.markup import el, text
from atlas.core.calcview.results import value
from atlas.core.kernels import roofline
from atlas.core.kernelview import inputs
from atlas.core.kernelview.tables import figures_table, row


def usable(device: dict) -> bool:
    """Whether the explorer can show ``device``: it states a memory bandwidth and some compute."""
    return bool((device.get("memory") or {}).get("bandwidth_gb_s")) and bool(device.get("compute"))


def roof(device: dict, precision: str):
    """(dense ``atlas.core.calculators.devices.Peak`` of exactly ``precision``, bandwidth in GB/s), or None.

    A figure the estimators scale from another matrix precision (``Peak.scaled_from``) is not shown: the
    explorer draws what the device states, and a TPU's MXU has no TF32 mode to scale to.
    """
    if not usable(device):  # no memory bandwidth (e.g. memory.type "none"): no roof to draw
        return None
    found = dev.peak(device, precision)
    if found is None or found.fell_back or found.scaled_from:
        return None
    return found, dev.bandwidth_bytes_s(device) / 1e9


def stated_precisions(device: dict) -> list[str]:
    """The precisions the explorer can show for ``device``, in ``PRECISIONS`` order."""
    return [p for p in PRECISIONS if roof(device, p)]


def run(values: dict, typed: dict, lang: str, catalog) -> tuple[dict | None, list[dict]]:
    """(result, []) for ``values`` (device, precision, intensity), or (None, errors) naming every bad field."""
    errors = []
    devices = {k: d for k, d in catalog.devices.items() if usable(d)}
    device_id, precision = values["device"], values["precision"]
    device = devices.get(device_id)
    if device is None:
        errors.append(inputs.message("device", "error.unknown_value", lang, field="device",
                                     value=typed.get("device", device_id), suggestions=suggestions(device_id, devices)))
    if precision not in PRECISIONS:
        errors.append(inputs.message("precision", "error.unknown_value", lang, field="precision",
                                     value=typed.get("precision", precision),
                                     suggestions=suggestions(precision, PRECISIONS)))
    elif device is not None and roof(device, precision) is None:
        available = ", ".join(l10n.t(lang, f"precision.{p}") for p in stated_precisions(device))
        errors.append(inputs.message("precision", "kdemo.error.no_precision", lang, device=dev.name(device, lang),
                                     precision=precision, available=available))
    try:
        roofline.positive("intensity", values["intensity"])
    except roofline.InputError as exc:
        errors.append(inputs.field_error(exc, typed, lang))
    if errors:
        return None, errors
    peak, bandwidth = roof(device, precision)
    return {
        "device": device_id,
        "device_name": dev.name(device, lang),
        "precision": precision,
        "unit": peak.unit,
        "from_sparse": peak.from_sparse,
        "roofline": roofline.explore(peak.tflops, bandwidth, values["intensity"]),
    }, []


# --- HTML ---------------------------------------------------------------------------------


def _t(lang: str, key: str, **params) -> str:
    return l10n.t(lang, key, **params)


def figure_label(result: dict, lang: str) -> str:
    """Which figure the peak is: 'BF16, matrix unit, dense' (+ ', half the sparse 1,979')."""
    label = ", ".join((_t(lang, f"precision.{result['precision']}"), _t(lang, f"unit_kind.{result['unit']}"),
                       _t(lang, "sparsity.dense")))
    if result["from_sparse"]:
        label += ", " + _t(lang, "kernels.half_sparse", sparse=l10n.format_number(result["from_sparse"], lang, 3))
    return label


def _units(precision: str, lang: str) -> tuple[str, str]:
    """(throughput unit, intensity unit): TFLOP/s and FLOP/byte, or TOPS and operations/byte for integers."""
    integer = precision.startswith("int")
    return (_t(lang, "unit.tops" if integer else "unit.tflops"),
            _t(lang, "charts.unit.op_per_byte" if integer else "charts.unit.flop_per_byte"))


def _figure(number: float, lang: str) -> str:
    return l10n.format_significant(number, lang, 3)


def _chart(result: dict, lang: str) -> str:
    r = result["roofline"]
    _, iunit = _units(result["precision"], lang)
    device = {"id": result["device"], "label": result["device_name"], "peak_tflops": r["peak_tflops"],
              "bandwidth_gb_s": r["bandwidth_gb_s"]}
    marker = {"label": _t(lang, "kdemo.roofline.marker", intensity=_figure(r["intensity"], lang), unit=iunit),
              "intensity": r["intensity"], "tflops": r["attainable_tflops"]}
    try:
        return charts.roofline_figure([device], lang, result["precision"], result["unit"], "dense", [marker])
    except charts.ChartError as exc:
        return el("p", text(_t(lang, "kdemo.chart_unavailable", reason=str(exc))), class_="atlas-kdemo-note")


def result_html(result: dict, lang: str) -> str:
    """The explorer's result as HTML in ``lang``: attainable throughput, the bound, the numbers, the roofline."""
    r = result["roofline"]
    tunit, iunit = _units(result["precision"], lang)
    bound = _t(lang, f"kernels.roofline.bound.{r['bound']}")
    headline = el(
        "p",
        text(_t(lang, "kdemo.roofline.attainable")) + " "
        + el("strong", value("span", "roofline.attainable_tflops", r["attainable_tflops"],
                             _figure(r["attainable_tflops"], lang)) + "\u00a0" + text(tunit))
        + " · " + text(_t(lang, "kdemo.roofline.limited_by")) + " "
        + el("strong", value("span", "roofline.bound", r["bound"], bound)),
        class_="atlas-calc-headline",
    )
    if r["bound"] == "memory":
        advice = _t(lang, "kdemo.roofline.advice.memory", factor=_figure(r["speedup_to_ridge"], lang))
    else:
        advice = _t(lang, "kdemo.roofline.advice.compute")
    summary = el("p", text(advice), class_="atlas-calc-summary")
    rows = [
        row(_t(lang, "kdemo.roofline.row.peak", figure=figure_label(result, lang), unit=tunit),
             "roofline.peak_tflops", r["peak_tflops"], l10n.format_number(r["peak_tflops"], lang, 3)),
        row(_t(lang, "kdemo.roofline.row.bandwidth", unit=_t(lang, "unit.gb_s")), "roofline.bandwidth_gb_s",
             r["bandwidth_gb_s"], l10n.format_number(r["bandwidth_gb_s"], lang, 3)),
        row(_t(lang, "kdemo.roofline.row.ridge", unit=iunit), "roofline.ridge_flop_per_byte",
             r["ridge_flop_per_byte"], _figure(r["ridge_flop_per_byte"], lang)),
        row(_t(lang, "kdemo.roofline.row.intensity", unit=iunit), "roofline.intensity", r["intensity"],
             _figure(r["intensity"], lang)),
        row(_t(lang, "kdemo.roofline.row.attainable", unit=tunit), "roofline.attainable_tflops",
             r["attainable_tflops"], _figure(r["attainable_tflops"], lang)),
        row(_t(lang, "kdemo.roofline.row.share"), "roofline.percent_of_peak", r["percent_of_peak"],
             _t(lang, "kernels.percent", value=_figure(r["percent_of_peak"], lang))),
        row(_t(lang, "kdemo.roofline.row.to_ridge"), "roofline.speedup_to_ridge", r["speedup_to_ridge"],
             _t(lang, "kdemo.times", value=_figure(r["speedup_to_ridge"], lang))),
    ]
    chart = el("h3", text(_t(lang, "kdemo.roofline.heading.chart"))) + _chart(result, lang)
    return headline + summary + figures_table(rows, lang) + chart
