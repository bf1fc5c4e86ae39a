"""Memory capacity against memory bandwidth, one labelled point per device,
coloured (and shaped) by kind, log–log, with optional threshold lines such as
"the weights of a 70B model at 4-bit fit here".

Capacity in GiB (2^30 bytes), bandwidth in GB/s (10^9 bytes per second).
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.charts import svg

KINDS = ("gpu", "tpu", "asic", "fpga", "npu", "cpu")
# Fallback colours per kind; charts.css sets them per palette.
KIND_COLOURS = {"gpu": "#0072b2", "tpu": "#009e73", "asic": "#d55e00", "fpga": "#cc79a7", "npu": "#b07800",
                "cpu": "#6b6b6b"}

PLOT_LEFT, PLOT_TOP = 100.0, 16.0
PLOT_RIGHT = svg.WIDTH - 20.0
PLOT_BOTTOM = 376.0
LABEL_SIZE = 11.0


def shape(kind: str, x: float, y: float, r: float = 5.0) -> str:
    """The marker of ``kind`` centred on (x, y): circle, square, diamond, triangles, cross."""
    n = svg.n
    if kind == "tpu":
        return f'<rect x="{n(x - r)}" y="{n(y - r)}" width="{n(2 * r)}" height="{n(2 * r)}" fill="currentColor"/>'
    if kind == "asic":
        return f'<path d="M{n(x)} {n(y - r - 1)}L{n(x + r + 1)} {n(y)}L{n(x)} {n(y + r + 1)}L{n(x - r - 1)} {n(y)}Z" fill="currentColor"/>'
    if kind == "fpga":
        return f'<path d="M{n(x)} {n(y - r - 1)}L{n(x + r + 1)} {n(y + r)}L{n(x - r - 1)} {n(y + r)}Z" fill="currentColor"/>'
    if kind == "npu":
        return f'<path d="M{n(x)} {n(y + r + 1)}L{n(x + r + 1)} {n(y - r)}L{n(x - r - 1)} {n(y - r)}Z" fill="currentColor"/>'
    if kind == "cpu":
        return (f'<path d="M{n(x - r)} {n(y - r)}L{n(x + r)} {n(y + r)}M{n(x + r)} {n(y - r)}L{n(x - r)} {n(y + r)}" '
                f'stroke="currentColor" stroke-width="2.5" fill="none"/>')
    return f'<circle cx="{n(x)}" cy="{n(y)}" r="{n(r)}" fill="currentColor"/>'


def _check(devices, thresholds, lang):
    if not devices:
        raise svg.ChartError(l10n.t(lang, "charts.error.no_devices"))
    clean = []
    for d in devices:
        label = svg.check_text(d.get("label"), lang, "label")
        kind = d.get("kind", "gpu")
        if kind not in KINDS:
            raise svg.ChartError(l10n.t(lang, "charts.error.unknown_choice", what="kind", value=str(kind)))
        clean.append({"id": str(d.get("id") or ""), "label": label, "kind": kind,
                      "capacity_gib": svg.check_number(d.get("capacity_gib"), lang, f"{label}: capacity_gib"),
                      "bandwidth_gb_s": svg.check_number(d.get("bandwidth_gb_s"), lang, f"{label}: bandwidth_gb_s")})
    lines = []
    for t in thresholds or []:
        label = svg.check_text(t.get("label"), lang, "thresholds.label")
        if (t.get("capacity_gib") is None) == (t.get("bandwidth_gb_s") is None):
            raise svg.ChartError(l10n.t(lang, "charts.error.threshold_axis", label=label))
        axis = "capacity_gib" if t.get("capacity_gib") is not None else "bandwidth_gb_s"
        lines.append({"label": label, "axis": axis, "value": svg.check_number(t.get(axis), lang, f"{label}: {axis}")})
    return clean, lines


def _scales(devices, lines):
    caps = [d["capacity_gib"] for d in devices] + [t["value"] for t in lines if t["axis"] == "capacity_gib"]
    bws = [d["bandwidth_gb_s"] for d in devices] + [t["value"] for t in lines if t["axis"] == "bandwidth_gb_s"]
    return (
        svg.LogScale(svg.decade_floor(min(caps) / 1.5), svg.decade_ceil(max(caps) * 1.5), PLOT_LEFT, PLOT_RIGHT),
        svg.LogScale(svg.decade_floor(min(bws) / 1.5), svg.decade_ceil(max(bws) * 1.5), PLOT_BOTTOM, PLOT_TOP),
    )


def scales(devices, thresholds=None, lang: str = "en"):
    """The (x, y) log scales the chart uses for these inputs (tests use them too)."""
    return _scales(*_check(devices, thresholds, lang))


def _place_labels(points):
    """Greedy label placement, top to bottom: right of the point, else left, nudged up or
    down (with a leader line) until the label covers no other label or point.

    ``points`` is ``[(x, y, label)]``; returns ``[(x, y, anchor, leader) or None]`` in
    the same order. None means no free spot: the point keeps its tooltip and the
    table row, but no label on the picture.
    """
    placed = [None] * len(points)
    boxes = [(x - 6, y - 6, x + 6, y + 6) for x, y, _ in points]  # labels never cover a point
    order = sorted(range(len(points)), key=lambda i: (points[i][1], points[i][0], points[i][2]))
    for i in order:
        x, y, label = points[i]
        # The page's font runs up to a tenth wider than the estimate; a line of text is about 1.2 em high.
        width = svg.text_width(label, LABEL_SIZE) * 1.1 + 2
        for dy in (0, -13, 13, -26, 26, -39, 39):
            for side in ("start", "end"):
                lx = x + 8 if side == "start" else x - 8
                left = lx if side == "start" else lx - width
                if left < PLOT_LEFT + 2 or left + width > PLOT_RIGHT + 16:
                    continue
                top, bottom = y + dy - 9.5, y + dy + 3.5
                if top < PLOT_TOP or bottom > PLOT_BOTTOM - 2:
                    continue
                box = (left, top, left + width, bottom)
                if all(box[2] <= b[0] or box[0] >= b[2] or box[3] <= b[1] or box[1] >= b[3] for b in boxes):
                    placed[i] = (lx, y + dy + 3.5, side, abs(dy) > 13)
                    boxes.append(box)
                    break
            if placed[i]:
                break
    return placed


def capacity_bandwidth_svg(devices, lang: str, thresholds=None, title: str | None = None) -> str:
    """The scatter as an ``<svg data-chart="capacity-bandwidth">`` string.

    ``devices``: ``[{"id", "label", "kind", "capacity_gib", "bandwidth_gb_s"}]``,
    kind one of gpu, tpu, asic, fpga, npu, cpu.
    ``thresholds``: optional ``[{"label", "capacity_gib"}]`` (vertical line) or
    ``[{"label", "bandwidth_gb_s"}]`` (horizontal line).
    """
    devices, lines = _check(devices, thresholds, lang)
    xs, ys = _scales(devices, lines)
    out = [svg.axes_frame(PLOT_LEFT, PLOT_TOP, PLOT_RIGHT, PLOT_BOTTOM)]
    out.append(svg.x_ticks(xs, xs.ticks(), PLOT_TOP, PLOT_BOTTOM, lang))
    out.append(svg.y_ticks(ys, ys.ticks(), PLOT_LEFT, PLOT_RIGHT, lang))
    out.append(svg.text((PLOT_LEFT + PLOT_RIGHT) / 2, PLOT_BOTTOM + 36, l10n.t(
        lang, "charts.scatter.x_axis", unit=l10n.t(lang, "unit.gib")), anchor="middle", cls="atlas-axis-label"))
    out.append(svg.text(18, (PLOT_TOP + PLOT_BOTTOM) / 2, l10n.t(
        lang, "charts.scatter.y_axis", unit=l10n.t(lang, "unit.gb_s")), anchor="middle", cls="atlas-axis-label",
        rotate=True))
    vertical = [(number, xs(t["value"])) for number, t in enumerate(lines, start=1) if t["axis"] == "capacity_gib"]
    tag_row = dict(zip([nr for nr, _ in vertical], svg.tag_rows([x for _, x in vertical], [nr for nr, _ in vertical]),
                       strict=True))
    for number, t in enumerate(lines, start=1):
        out.append(f'<g class="atlas-threshold" data-{t["axis"].replace("_", "-")}="{t["value"]:.6g}">')
        if t["axis"] == "capacity_gib":
            x = xs(t["value"])
            out.append(svg.line(x, PLOT_TOP, x, PLOT_BOTTOM, "atlas-threshold-line", 'stroke-dasharray="5 3"'))
            out.append(svg.line_tag(number, x, PLOT_TOP + 11 + 12 * tag_row[number]))
        else:
            y = ys(t["value"])
            out.append(svg.line(PLOT_LEFT, y, PLOT_RIGHT, y, "atlas-threshold-line", 'stroke-dasharray="5 3"'))
            out.append(svg.line_tag(number, PLOT_RIGHT - 14, y - 4))
        out.append("</g>")
    points = [(xs(d["capacity_gib"]), ys(d["bandwidth_gb_s"]), svg.shorten(d["label"], 22)) for d in devices]
    for d, (x, y, label), spot in zip(devices, points, _place_labels(points), strict=True):
        tip = l10n.t(lang, "charts.scatter.tip", device=d["label"], kind=l10n.t(lang, f"kind.{d['kind']}"),
                     capacity=svg.exact(d["capacity_gib"], lang), gib=l10n.t(lang, "unit.gib"),
                     bandwidth=svg.exact(d["bandwidth_gb_s"], lang), gb_s=l10n.t(lang, "unit.gb_s"))
        out.append(
            f'<g class="atlas-point atlas-kind-{d["kind"]}" color="{KIND_COLOURS[d["kind"]]}" '
            f'data-device="{svg.esc(d["id"])}" data-x="{svg.n(x)}" data-y="{svg.n(y)}">'
            f'{shape(d["kind"], x, y)}<title>{svg.esc(tip)}</title></g>'
        )
        if spot is None:
            continue
        lx, ly, anchor, leader = spot
        if leader:
            out.append(svg.line(x, y, lx, ly - 3.5, "atlas-leader", 'stroke-opacity="0.4"'))
        out.append(svg.text(lx, ly, label, anchor=anchor, cls="atlas-point-label", size=LABEL_SIZE))
    kinds = [k for k in KINDS if any(d["kind"] == k for d in devices)]
    legend_out = ['<g class="atlas-legend">']
    for i, kind in enumerate(kinds):
        x = PLOT_LEFT + i * 100
        y = PLOT_BOTTOM + 58
        legend_out.append(f'<g class="atlas-legend-item atlas-kind-{kind}" color="{KIND_COLOURS[kind]}">'
                          f'{shape(kind, x + 6, y)}</g>')
        legend_out.append(svg.text(x + 16, y + 4, l10n.t(lang, f"kind.{kind}"), cls="atlas-label"))
    legend_out.append("</g>")
    out.append("".join(legend_out))
    line_notes, notes_height = svg.notes([t["label"] for t in lines], PLOT_LEFT, PLOT_BOTTOM + 72)
    out.append(line_notes)

    kinds_text = ", ".join(
        f'{l10n.t(lang, f"kind.{k}")} {sum(1 for d in devices if d["kind"] == k)}' for k in kinds)
    desc = l10n.t(lang, "charts.scatter.desc", count=len(devices), kinds=kinds_text)
    if lines:
        desc += " " + l10n.t(lang, "charts.scatter.desc_thresholds", thresholds="; ".join(
            f'{t["label"]} ({svg.fmt(t["value"], lang)} '
            f'{l10n.t(lang, "unit.gib" if t["axis"] == "capacity_gib" else "unit.gb_s")})' for t in lines))
    title = title or l10n.t(lang, "charts.scatter.title")
    return svg.svg_root("capacity-bandwidth", PLOT_BOTTOM + 72 + notes_height, title, desc, "".join(out), lang)


def capacity_bandwidth_tables(devices, lang: str, thresholds=None) -> list[str]:
    """Devices (and thresholds) with their figures, as tables."""
    devices, lines = _check(devices, thresholds, lang)
    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    rows = [(d["id"], [d["label"], t(f"kind.{d['kind']}"), svg.exact(d["capacity_gib"], lang),
                       svg.exact(d["bandwidth_gb_s"], lang)]) for d in devices]
    out = [svg.table([t("col.name"), t("col.kind"), t("charts.col.capacity", unit=t("unit.gib")),
                      t("charts.col.bandwidth", unit=t("unit.gb_s"))], rows)]
    if lines:
        trows = [(None, [x["label"], svg.fmt(x["value"], lang) if x["axis"] == "capacity_gib" else "",
                         svg.fmt(x["value"], lang) if x["axis"] == "bandwidth_gb_s" else ""]) for x in lines]
        out.append(svg.table([t("charts.col.threshold"), t("charts.col.capacity", unit=t("unit.gib")),
                              t("charts.col.bandwidth", unit=t("unit.gb_s"))], trows))
    return out


def capacity_bandwidth_figure(devices, lang: str, thresholds=None, caption: str | None = None) -> str:
    """The scatter for a page: SVG plus its numbers in a collapsible table."""
    picture = capacity_bandwidth_svg(devices, lang, thresholds)
    return svg.figure(picture, capacity_bandwidth_tables(devices, lang, thresholds), lang, caption)
