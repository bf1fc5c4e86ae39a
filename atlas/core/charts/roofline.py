"""Roofline chart: attainable throughput against arithmetic intensity, log–log.

A device with peak ``P`` (TFLOP/s, 10^12 operations per second) and memory
bandwidth ``B`` (GB/s, 10^9 bytes per second) attains ``min(P, I × B)`` on
work with arithmetic intensity ``I`` (operations per byte moved). The roof
bends at the ridge point (critical intensity) ``P ÷ B``: below it the work is
limited by memory bandwidth, above it by compute. For the H100 SXM at BF16:
989.4 × 10^12 ÷ 3,350 × 10^9 ≈ 295 FLOP/byte. The formulas are the
estimators' (``atlas.core.calculators.roofline``); this module only draws them.
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.calculators.roofline import attainable_tflops, bound, critical_intensity
from atlas.core.charts import svg

PLOT_LEFT, PLOT_TOP = 74.0, 16.0
PLOT_RIGHT = svg.WIDTH - 20.0
PLOT_BOTTOM = 336.0


def _labels(lang: str, precision: str, unit: str, sparsity: str) -> dict:
    integer = precision.startswith("int")
    return {
        "precision": l10n.t(
            lang,
            "charts.precision_label",
            precision=l10n.t(lang, f"precision.{precision}"),
            unit=l10n.t(lang, f"unit_kind.{unit}"),
            sparsity=l10n.t(lang, f"sparsity.{sparsity}"),
        ),
        "throughput_unit": l10n.t(lang, "unit.tops" if integer else "unit.tflops"),
        "intensity_unit": l10n.t(lang, "charts.unit.op_per_byte" if integer else "charts.unit.flop_per_byte"),
    }


def _check(devices, markers, lang, precision, unit, sparsity):
    if f"precision.{precision}" not in l10n.labels(lang):
        raise svg.ChartError(l10n.t(lang, "charts.error.unknown_choice", what="precision", value=str(precision)))
    if unit not in ("matrix", "vector"):
        raise svg.ChartError(l10n.t(lang, "charts.error.unknown_choice", what="unit", value=str(unit)))
    if sparsity not in ("dense", "sparse"):
        raise svg.ChartError(l10n.t(lang, "charts.error.unknown_choice", what="sparsity", value=str(sparsity)))
    if not devices:
        raise svg.ChartError(l10n.t(lang, "charts.error.no_devices"))
    clean = []
    for d in devices:
        label = svg.check_text(d.get("label"), lang, "label")
        clean.append(
            {
                "id": str(d.get("id") or ""),
                "label": label,
                "peak_tflops": svg.check_number(d.get("peak_tflops"), lang, f"{label}: peak_tflops"),
                "bandwidth_gb_s": svg.check_number(d.get("bandwidth_gb_s"), lang, f"{label}: bandwidth_gb_s"),
            }
        )
    marks = []
    for m in markers or []:
        label = svg.check_text(m.get("label"), lang, "markers.label")
        mark = {"label": label, "intensity": svg.check_number(m.get("intensity"), lang, f"{label}: intensity")}
        if m.get("tflops") is not None:
            mark["tflops"] = svg.check_number(m.get("tflops"), lang, f"{label}: tflops")
        marks.append(mark)
    return clean, marks


def _domains(devices, markers):
    ridges = [critical_intensity(d["peak_tflops"], d["bandwidth_gb_s"]) for d in devices]
    intensities = [m["intensity"] for m in markers]
    x_lo = svg.decade_floor(min([min(ridges) / 100] + [i / 2 for i in intensities]))
    x_hi = svg.decade_ceil(max([max(ridges) * 10] + [i * 2 for i in intensities]))
    tops = [d["peak_tflops"] for d in devices] + [m["tflops"] for m in markers if "tflops" in m]
    lows = [attainable_tflops(d["peak_tflops"], d["bandwidth_gb_s"], x_lo) for d in devices]
    lows += [m["tflops"] for m in markers if "tflops" in m]
    y_hi = svg.nice_ceil(max(tops) * 1.25)
    y_lo = svg.nice_floor(min(lows) * 0.8)
    return (x_lo, x_hi), (y_lo, y_hi)


def scales(devices, markers=()):
    """The (x, y) log scales a chart of these devices and markers uses (tests use them too)."""
    (x_lo, x_hi), (y_lo, y_hi) = _domains(devices, list(markers))
    return (
        svg.LogScale(x_lo, x_hi, PLOT_LEFT, PLOT_RIGHT),
        svg.LogScale(y_lo, y_hi, PLOT_BOTTOM, PLOT_TOP),
    )


def roofline_svg(devices, lang: str, precision: str = "bf16", unit: str = "matrix", sparsity: str = "dense",
                 markers=None, title: str | None = None) -> str:
    """The roofline as an ``<svg data-chart="roofline">`` string.

    ``devices``: ``[{"id", "label", "peak_tflops", "bandwidth_gb_s"}]`` — peak in
    TFLOP/s (TOPS for integer precisions) of ``precision`` on ``unit``
    (matrix|vector) with ``sparsity`` (dense|sparse), bandwidth in GB/s.
    ``markers``: optional workloads ``[{"label", "intensity"}]`` in operations
    per byte, drawn as vertical lines; with ``"tflops"`` also a measured point.
    Raises ``ChartError`` (message in ``lang``) for unusable input.
    """
    devices, markers = _check(devices, markers, lang, precision, unit, sparsity)
    labels = _labels(lang, precision, unit, sparsity)
    xs, ys = scales(devices, markers)
    out = [svg.axes_frame(PLOT_LEFT, PLOT_TOP, PLOT_RIGHT, PLOT_BOTTOM)]
    out.append(svg.x_ticks(xs, xs.ticks(), PLOT_TOP, PLOT_BOTTOM, lang))
    out.append(svg.y_ticks(ys, ys.ticks(), PLOT_LEFT, PLOT_RIGHT, lang))
    out.append(svg.text((PLOT_LEFT + PLOT_RIGHT) / 2, PLOT_BOTTOM + 36, l10n.t(
        lang, "charts.roofline.x_axis", unit=labels["intensity_unit"]), anchor="middle", cls="atlas-axis-label"))
    out.append(svg.text(18, (PLOT_TOP + PLOT_BOTTOM) / 2, l10n.t(
        lang, "charts.roofline.y_axis", unit=labels["throughput_unit"]), anchor="middle", cls="atlas-axis-label",
        rotate=True))

    rows = svg.tag_rows([xs(m["intensity"]) for m in markers], [i + 1 for i in range(len(markers))])
    for m, row in zip(markers, rows, strict=True):
        x = xs(m["intensity"])
        out.append(f'<g class="atlas-marker" data-intensity="{svg.n(m["intensity"])}">')
        out.append(svg.line(x, PLOT_TOP, x, PLOT_BOTTOM, "atlas-marker-line", 'stroke-dasharray="4 3"'))
        out.append(svg.line_tag(markers.index(m) + 1, x, PLOT_TOP + 11 + 12 * row))
        if "tflops" in m:
            out.append(f'<circle cx="{svg.n(x)}" cy="{svg.n(ys(m["tflops"]))}" r="4.5" fill="currentColor">'
                       f'<title>{svg.esc(m["label"])}</title></circle>')
        out.append("</g>")

    legend_items = []
    for i, d in enumerate(devices):
        peak, bw = d["peak_tflops"], d["bandwidth_gb_s"]
        ridge = critical_intensity(peak, bw)
        x_lo, x_hi = xs.lo, xs.hi
        points = [(x_lo, attainable_tflops(peak, bw, x_lo))]
        if x_lo < ridge < x_hi:
            points.append((ridge, peak))
        points.append((x_hi, attainable_tflops(peak, bw, x_hi)))
        path = " ".join(f"{svg.n(xs(x))},{svg.n(ys(y))}" for x, y in points)
        tip = l10n.t(lang, "charts.roofline.ridge_tip", device=d["label"], ridge=svg.fmt(ridge, lang),
                     unit=labels["intensity_unit"], peak=svg.fmt(peak, lang, 4), peak_unit=labels["throughput_unit"])
        out.append(
            f'<g {svg.series_attrs(i, "atlas-series")} data-device="{svg.esc(d["id"])}">'
            f'<polyline points="{path}" fill="none" stroke="currentColor" stroke-width="2.5"/>'
            f'<circle class="atlas-ridge" cx="{svg.n(xs(ridge))}" cy="{svg.n(ys(peak))}" r="4" fill="currentColor" '
            f'data-ridge="{ridge:.6g}"><title>{svg.esc(tip)}</title></circle></g>'
        )
        legend_items.append((i, d["label"]))
    legend, legend_height = svg.legend(legend_items, PLOT_LEFT, PLOT_BOTTOM + 48, PLOT_RIGHT - PLOT_LEFT)
    out.append(legend)
    marker_notes, notes_height = svg.notes([m["label"] for m in markers], PLOT_LEFT, PLOT_BOTTOM + 52 + legend_height)
    out.append(marker_notes)

    ridges = "; ".join(
        l10n.t(lang, "charts.roofline.ridge_item", device=d["label"],
               ridge=svg.fmt(critical_intensity(d["peak_tflops"], d["bandwidth_gb_s"]), lang), unit=labels["intensity_unit"])
        for d in devices
    )
    title = title or l10n.t(lang, "charts.roofline.title", precision=labels["precision"])
    desc = l10n.t(lang, "charts.roofline.desc", precision=labels["precision"], ridges=ridges)
    height = PLOT_BOTTOM + 48 + legend_height + notes_height + 4
    return svg.svg_root("roofline", height, title, desc, "".join(out), lang)


def roofline_tables(devices, lang: str, precision: str = "bf16", unit: str = "matrix", sparsity: str = "dense",
                    markers=None) -> list[str]:
    """The numbers behind the roofline: one table of devices, one of workloads (if any)."""
    devices, markers = _check(devices, markers, lang, precision, unit, sparsity)
    labels = _labels(lang, precision, unit, sparsity)
    tu, iu = labels["throughput_unit"], labels["intensity_unit"]
    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    rows = [
        (d["id"], [d["label"], svg.exact(d["peak_tflops"], lang), svg.exact(d["bandwidth_gb_s"], lang),
                   svg.fmt(critical_intensity(d["peak_tflops"], d["bandwidth_gb_s"]), lang)])
        for d in devices
    ]
    headers = [t("col.name"), t("charts.col.peak", precision=labels["precision"], unit=tu),
               t("charts.col.bandwidth", unit=t("unit.gb_s")), t("charts.col.ridge", unit=iu)]
    out = [svg.table(headers, rows)]
    if markers:
        mrows = []
        for m in markers:
            for d in devices:
                peak, bw = d["peak_tflops"], d["bandwidth_gb_s"]
                where = bound(peak, bw, m["intensity"])
                mrows.append((None, [m["label"], svg.fmt(m["intensity"], lang), d["label"],
                                     svg.fmt(attainable_tflops(peak, bw, m["intensity"]), lang),
                                     t(f"charts.bound.{where}")]))
        mheaders = [t("charts.col.workload"), t("charts.col.intensity", unit=iu), t("col.name"),
                    t("charts.col.attainable", unit=tu), t("charts.col.bound")]
        out.append(svg.table(mheaders, mrows))
    return out


def roofline_figure(devices, lang: str, precision: str = "bf16", unit: str = "matrix", sparsity: str = "dense",
             markers=None, caption: str | None = None) -> str:
    """The roofline figure for a page: SVG plus its numbers in a collapsible table.

    Same arguments as ``roofline_svg``; ``caption`` is optional text under the picture.
    """
    picture = roofline_svg(devices, lang, precision, unit, sparsity, markers)
    return svg.figure(picture, roofline_tables(devices, lang, precision, unit, sparsity, markers), lang, caption)
