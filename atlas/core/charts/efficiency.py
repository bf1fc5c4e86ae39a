"""Performance per watt and per dollar: one horizontal bar per device, best first,
with the caveat shown under the chart.

Metrics (peak in TFLOP/s, 10^12 operations per second, of one precision):

- ``power``: 1000 × peak ÷ TDP (W) = GFLOP/s per watt (GOPS/W for integers);
- ``price``: peak ÷ (purchase price in US$ ÷ 1000) = TFLOP/s per 1,000 US$.
  A reported price range gives a range: the bar ends at the value for the
  high price, a thin line reaches the value for the low price;
- ``cloud_price``: peak ÷ US$ per device-hour = TFLOP/s per US$/h.

Prices are dated: each device carries ``price_as_of`` ("YYYY-MM"), shown in
the table.
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.charts import svg

METRICS = ("power", "price", "cloud_price")
PLOT_LEFT = 170.0
PLOT_RIGHT = svg.WIDTH - 70.0
PLOT_TOP = 10.0
BAR_HEIGHT, BAR_GAP = 18.0, 8.0


def _month(as_of, lang: str) -> str:
    """A price's month in words ("November 2022"); text that is not a YYYY-MM month stays as it is."""
    try:
        return l10n.format_month(as_of, lang)
    except (ValueError, AttributeError):
        return as_of or ""


def metric_values(device: dict, metric: str) -> tuple[float, float]:
    """(low, high) of ``metric`` for a checked device; equal unless its price is a range."""
    peak = device["peak_tflops"]
    if metric == "power":
        value = 1000.0 * peak / device["tdp_w"]
        return value, value
    if metric == "cloud_price":
        value = peak / device["price_usd"]
        return value, value
    high_price = device.get("price_usd_high") or device["price_usd"]
    return peak / (high_price / 1000.0), peak / (device["price_usd"] / 1000.0)


def _check(devices, lang, metric, precision):
    if metric not in METRICS:
        raise svg.ChartError(l10n.t(lang, "charts.error.unknown_choice", what="metric", value=str(metric)))
    if f"precision.{precision}" not in l10n.labels(lang):
        raise svg.ChartError(l10n.t(lang, "charts.error.unknown_choice", what="precision", value=str(precision)))
    if not devices:
        raise svg.ChartError(l10n.t(lang, "charts.error.no_devices"))
    clean = []
    for d in devices:
        label = svg.check_text(d.get("label"), lang, "label")
        item = {"id": str(d.get("id") or ""), "label": label,
                "peak_tflops": svg.check_number(d.get("peak_tflops"), lang, f"{label}: peak_tflops")}
        if metric == "power":
            item["tdp_w"] = svg.check_number(d.get("tdp_w"), lang, f"{label}: tdp_w")
        else:
            item["price_usd"] = svg.check_number(d.get("price_usd"), lang, f"{label}: price_usd")
            if d.get("price_usd_high") is not None:
                item["price_usd_high"] = svg.check_number(d.get("price_usd_high"), lang, f"{label}: price_usd_high")
            item["price_as_of"] = svg.check_text(d.get("price_as_of"), lang, f"{label}: price_as_of")
            item["price_kind"] = d.get("price_kind") or ("cloud-per-hour" if metric == "cloud_price" else "list")
        item["low"], item["high"] = metric_values(item, metric)
        clean.append(item)
    clean.sort(key=lambda d: (-d["low"], d["label"]))
    return clean


def _units(lang, metric, precision):
    integer = precision.startswith("int")
    return {
        "value": l10n.t(lang, f"charts.efficiency.unit.{metric}{'_int' if integer else ''}"),
        "peak": l10n.t(lang, "unit.tops" if integer else "unit.tflops"),
        "precision": l10n.t(lang, f"precision.{precision}"),
    }


def scale_for(devices, metric: str = "power", lang: str = "en", precision: str = "bf16") -> svg.LinearScale:
    """The value axis the chart uses (tests use it too)."""
    return _scale(_check(devices, lang, metric, precision))


def _scale(devices):
    return svg.LinearScale(0.0, svg.linear_top(max(d["high"] for d in devices) * 1.02), PLOT_LEFT, PLOT_RIGHT)


def _value_text(d, lang):
    if d["high"] > d["low"] * (1 + 1e-9):
        return f'{svg.fmt(d["low"], lang)}–{svg.fmt(d["high"], lang)}'
    return svg.fmt(d["low"], lang)


def efficiency_svg(devices, lang: str, metric: str = "power", precision: str = "bf16", title: str | None = None) -> str:
    """Bars of peak per watt or per dollar as an ``<svg data-chart="efficiency-<metric>">`` string.

    ``devices``: ``[{"id", "label", "peak_tflops", "tdp_w"}]`` for ``power``;
    ``[{"id", "label", "peak_tflops", "price_usd", "price_usd_high" (optional),
    "price_as_of", "price_kind"}]`` for ``price`` and ``cloud_price`` (US$, or US$ per hour).
    """
    devices = _check(devices, lang, metric, precision)
    units = _units(lang, metric, precision)
    xs = _scale(devices)
    bottom = PLOT_TOP + len(devices) * (BAR_HEIGHT + BAR_GAP) + BAR_GAP
    out = [svg.axes_frame(PLOT_LEFT, PLOT_TOP, PLOT_RIGHT, bottom)]
    out.append(svg.x_ticks(xs, xs.ticks(), PLOT_TOP, bottom, lang))
    axis = l10n.t(lang, "charts.efficiency.axis", precision=units["precision"], unit=units["value"])
    out.append(svg.text((PLOT_LEFT + PLOT_RIGHT) / 2, bottom + 36, axis, anchor="middle", cls="atlas-axis-label"))
    for i, d in enumerate(devices):
        y = PLOT_TOP + BAR_GAP + i * (BAR_HEIGHT + BAR_GAP)
        x_low, x_high = xs(d["low"]), xs(d["high"])
        value = _value_text(d, lang)
        out.append(f'<g {svg.series_attrs(0, "atlas-bar")} data-device="{svg.esc(d["id"])}" '
                   f'data-value="{d["low"]:.6g}">')
        out.append(f'<rect x="{svg.n(PLOT_LEFT)}" y="{svg.n(y)}" width="{svg.n(max(x_low - PLOT_LEFT, 0.5))}" '
                   f'height="{svg.n(BAR_HEIGHT)}" fill="currentColor"><title>{svg.esc(d["label"] + ": " + value + " " + units["value"])}</title></rect>')
        if x_high > x_low + 0.5:
            mid = y + BAR_HEIGHT / 2
            out.append(svg.line(x_low, mid, x_high, mid, "atlas-range", 'stroke-width="2"'))
            out.append(svg.line(x_high, mid - 5, x_high, mid + 5, "atlas-range", 'stroke-width="2"'))
        out.append("</g>")
        out.append(svg.text(PLOT_LEFT - 8, y + BAR_HEIGHT / 2 + 4, svg.shorten(d["label"], 26), anchor="end",
                            cls="atlas-label"))
        out.append(svg.text(x_high + 6, y + BAR_HEIGHT / 2 + 4, value, cls="atlas-label", size=11))
    desc = l10n.t(lang, "charts.efficiency.desc", metric=axis, items="; ".join(
        f'{d["label"]} {_value_text(d, lang)}' for d in devices)) + " " + caveat(metric, lang)
    title = title or l10n.t(lang, f"charts.efficiency.title.{metric}", precision=units["precision"])
    return svg.svg_root(f"efficiency-{metric.replace('_', '-')}", bottom + 48, title, desc, "".join(out), lang)


def caveat(metric: str, lang: str) -> str:
    """The caveat shown with the chart, in ``lang``."""
    return l10n.t(lang, f"charts.efficiency.caveat.{metric}")


def efficiency_tables(devices, lang: str, metric: str = "power", precision: str = "bf16") -> list[str]:
    """The inputs and results of every bar, with the price date where prices are used."""
    devices = _check(devices, lang, metric, precision)
    units = _units(lang, metric, precision)
    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    peak = t("charts.col.peak", precision=units["precision"], unit=units["peak"])
    result = t("charts.efficiency.col.result", unit=units["value"])
    if metric == "power":
        headers = [t("col.name"), peak, f'{t("col.tdp")} ({t("unit.w")})', result]
        rows = [(d["id"], [d["label"], svg.exact(d["peak_tflops"], lang), svg.exact(d["tdp_w"], lang),
                           _value_text(d, lang)]) for d in devices]
    else:
        money = t("unit.usd_per_hour" if metric == "cloud_price" else "unit.usd")
        headers = [t("col.name"), peak, f'{t("col.price")} ({money})', t("charts.col.price_kind"),
                   t("charts.col.as_of"), result]
        rows = []
        for d in devices:
            price = svg.exact(d["price_usd"], lang)
            if d.get("price_usd_high"):
                price += "–" + svg.exact(d["price_usd_high"], lang)
            kind_key = f'price.{d["price_kind"]}'
            kind = t(kind_key) if kind_key in l10n.labels(lang) else d["price_kind"]
            rows.append((d["id"], [d["label"], svg.exact(d["peak_tflops"], lang), price, kind, _month(d["price_as_of"], lang),
                                   _value_text(d, lang)]))
    return [svg.table(headers, rows)]


def efficiency_figure(devices, lang: str, metric: str = "power", precision: str = "bf16",
                      caption: str | None = None) -> str:
    """The chart for a page: SVG, the caveat, and its numbers in a collapsible table."""
    picture = efficiency_svg(devices, lang, metric, precision)
    return svg.figure(picture, efficiency_tables(devices, lang, metric, precision), lang, caption,
                      note=caveat(metric, lang))
