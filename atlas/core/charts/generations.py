"""Generations over time: peak dense throughput and memory bandwidth by launch
year, one series per vendor, in two stacked log-scale panels that share the
year axis — so the reader sees compute outgrow memory bandwidth. Each
vendor's line joins the devices that set a new record; every device is a point.

Peak in TFLOP/s (10^12 operations per second), bandwidth in GB/s (10^9 bytes
per second). A device may carry the precision its peak was taken from
(``"precision": "fp16"`` where it has no BF16 figure); the table shows it.
"""

from __future__ import annotations

import math

from atlas.core import l10n
from atlas.core.calculators.roofline import critical_intensity
from atlas.core.charts import svg

PLOT_LEFT = 86.0
PLOT_RIGHT = svg.WIDTH - 20.0
PANEL_HEIGHT = 170.0
PANEL_GAP = 44.0
TOP_PANEL = (30.0, 30.0 + PANEL_HEIGHT)
BOTTOM_PANEL = (TOP_PANEL[1] + PANEL_GAP, TOP_PANEL[1] + PANEL_GAP + PANEL_HEIGHT)


def _check(devices, lang, precision):
    if f"precision.{precision}" not in l10n.labels(lang):
        raise svg.ChartError(l10n.t(lang, "charts.error.unknown_choice", what="precision", value=str(precision)))
    if not devices:
        raise svg.ChartError(l10n.t(lang, "charts.error.no_devices"))
    clean = []
    for d in devices:
        label = svg.check_text(d.get("label"), lang, "label")
        year = d.get("launch_year")
        if isinstance(year, bool) or not isinstance(year, int):
            raise svg.ChartError(l10n.t(lang, "charts.error.not_a_number", what=f"{label}: launch_year", value=str(year)))
        used = d.get("precision") or precision
        if f"precision.{used}" not in l10n.labels(lang):
            raise svg.ChartError(l10n.t(lang, "charts.error.unknown_choice", what="precision", value=str(used)))
        clean.append({"id": str(d.get("id") or ""), "label": label, "vendor": svg.check_text(d.get("vendor"), lang,
                      f"{label}: vendor"), "launch_year": year, "precision": used,
                      "peak_tflops": svg.check_number(d.get("peak_tflops"), lang, f"{label}: peak_tflops"),
                      "bandwidth_gb_s": svg.check_number(d.get("bandwidth_gb_s"), lang, f"{label}: bandwidth_gb_s")})
    clean.sort(key=lambda d: (d["launch_year"], d["vendor"], d["label"]))
    return clean


def scales(devices, lang: str = "en", precision: str = "bf16"):
    """(years, compute, bandwidth) scales of the chart for these devices (tests use them too)."""
    return _scales(_check(devices, lang, precision))


def _scales(devices):
    years = [d["launch_year"] for d in devices]
    xs = svg.LinearScale(min(years) - 0.5, max(years) + 0.5, PLOT_LEFT, PLOT_RIGHT)
    peaks = [d["peak_tflops"] for d in devices]
    bws = [d["bandwidth_gb_s"] for d in devices]
    compute = svg.LogScale(svg.decade_floor(min(peaks) / 1.2), svg.decade_ceil(max(peaks) * 1.2), *TOP_PANEL[::-1])
    bandwidth = svg.LogScale(svg.decade_floor(min(bws) / 1.2), svg.decade_ceil(max(bws) * 1.2), *BOTTOM_PANEL[::-1])
    return xs, compute, bandwidth


def frontier(devices, key: str) -> list[tuple[int, float]]:
    """(year, value) each time ``devices`` set a new best ``key``: the line a vendor's series draws."""
    out, best = [], 0.0
    for year in sorted({d["launch_year"] for d in devices}):
        top = max(d[key] for d in devices if d["launch_year"] == year)
        if top > best:
            out.append((year, top))
            best = top
    return out


def _growth(devices, key):
    """(first year, best then, last year, best then) over all devices."""
    first, last = devices[0]["launch_year"], devices[-1]["launch_year"]
    best = lambda year: max(d[key] for d in devices if d["launch_year"] == year)  # noqa: E731
    return first, best(first), last, best(last)


def generations_svg(devices, lang: str, precision: str = "bf16", title: str | None = None) -> str:
    """The chart as an ``<svg data-chart="generations">`` string.

    ``devices``: ``[{"id", "label", "vendor", "launch_year", "peak_tflops",
    "bandwidth_gb_s"}]`` plus an optional ``"precision"`` per device when its
    peak is not of ``precision`` (the default precision of the chart).
    """
    devices = _check(devices, lang, precision)
    xs, compute, bandwidth = _scales(devices)
    vendors = sorted({d["vendor"] for d in devices})
    years = list(range(devices[0]["launch_year"], devices[-1]["launch_year"] + 1))
    step = max(1, math.ceil(len(years) / 12))
    ticks = years[::step]
    precision_label = l10n.t(lang, f"precision.{precision}")
    out = []
    panels = (
        (compute, TOP_PANEL, "peak_tflops", l10n.t(lang, "charts.generations.compute_axis", precision=precision_label,
                                                   unit=l10n.t(lang, "unit.tflops"))),
        (bandwidth, BOTTOM_PANEL, "bandwidth_gb_s", l10n.t(lang, "charts.generations.bandwidth_axis",
                                                           unit=l10n.t(lang, "unit.gb_s"))),
    )
    for scale, (top, bottom), key, heading in panels:
        out.append(f'<g class="atlas-panel" data-panel="{key}">')
        out.append(svg.axes_frame(PLOT_LEFT, top, PLOT_RIGHT, bottom))
        out.append(svg.y_ticks(scale, scale.ticks(), PLOT_LEFT, PLOT_RIGHT, lang))
        for year in ticks:
            x = xs(year)
            out.append(svg.line(x, top, x, bottom, "atlas-grid"))
        out.append(svg.text(PLOT_LEFT, top - 10, heading, cls="atlas-axis-label"))
        for v, vendor in enumerate(vendors):
            mine = [d for d in devices if d["vendor"] == vendor]
            best = frontier(mine, key)
            path = " ".join(f"{svg.n(xs(y))},{svg.n(scale(val))}" for y, val in best)
            group = [f'<g {svg.series_attrs(v, "atlas-series")} data-vendor="{svg.esc(vendor)}">']
            if len(best) > 1:
                group.append(f'<polyline points="{path}" fill="none" stroke="currentColor" stroke-width="2"/>')
            for d in mine:
                tip = f'{d["label"]} ({d["launch_year"]}): {svg.exact(d[key], lang)} ' + l10n.t(
                    lang, "unit.tflops" if key == "peak_tflops" else "unit.gb_s")
                group.append(f'<circle cx="{svg.n(xs(d["launch_year"]))}" cy="{svg.n(scale(d[key]))}" r="4" '
                             f'fill="currentColor" data-device="{svg.esc(d["id"])}"><title>{svg.esc(tip)}</title></circle>')
            group.append("</g>")
            out.append("".join(group))
        out.append("</g>")
    for year in ticks:
        out.append(svg.text(xs(year), BOTTOM_PANEL[1] + 16, str(year), anchor="middle", cls="atlas-tick"))
    out.append(svg.text((PLOT_LEFT + PLOT_RIGHT) / 2, BOTTOM_PANEL[1] + 36, l10n.t(lang, "charts.generations.x_axis"),
                        anchor="middle", cls="atlas-axis-label"))
    legend, legend_height = svg.legend(list(enumerate(vendors)), PLOT_LEFT, BOTTOM_PANEL[1] + 48,
                                       PLOT_RIGHT - PLOT_LEFT)
    out.append(legend)

    desc = l10n.t(lang, "charts.generations.desc", count=len(devices), precision=precision_label)
    y0, c0, y1, c1 = _growth(devices, "peak_tflops")
    if y1 > y0:
        _, b0, _, b1 = _growth(devices, "bandwidth_gb_s")
        desc += " " + l10n.t(lang, "charts.generations.desc_growth", first=y0, last=y1,
                             compute=svg.fmt(c1 / c0, lang, 2), bandwidth=svg.fmt(b1 / b0, lang, 2))
    title = title or l10n.t(lang, "charts.generations.title", precision=precision_label)
    return svg.svg_root("generations", BOTTOM_PANEL[1] + 48 + legend_height + 4, title, desc, "".join(out), lang)


def generations_tables(devices, lang: str, precision: str = "bf16") -> list[str]:
    """Every device of the chart with year, peak (and its precision), bandwidth and their ratio."""
    devices = _check(devices, lang, precision)
    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    headers = [t("col.name"), t("col.vendor"), t("col.launch_year"), t("charts.col.precision"),
               t("charts.col.peak_plain", unit=t("unit.tflops")), t("charts.col.bandwidth", unit=t("unit.gb_s")),
               t("charts.col.ridge", unit=t("charts.unit.flop_per_byte"))]
    rows = [(d["id"], [d["label"], d["vendor"], str(d["launch_year"]), t(f"precision.{d['precision']}"),
                       svg.exact(d["peak_tflops"], lang), svg.exact(d["bandwidth_gb_s"], lang),
                       svg.fmt(critical_intensity(d["peak_tflops"], d["bandwidth_gb_s"]), lang)]) for d in devices]
    return [svg.table(headers, rows)]


def generations_figure(devices, lang: str, precision: str = "bf16", caption: str | None = None) -> str:
    """The chart for a page: SVG plus its numbers in a collapsible table."""
    picture = generations_svg(devices, lang, precision)
    return svg.figure(picture, generations_tables(devices, lang, precision), lang, caption)
