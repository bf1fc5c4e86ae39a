"""Memory breakdown: one stacked horizontal bar per case (weights, KV cache,
activations, gradients, optimiser states, overhead), with optional vertical
lines at device capacities. Part names come from the estimators' labels
(``breakdown.<part>`` in ``l10n``), so chart and calculator say the same.

Sizes come in the keys of the estimators' JSON (``calculators``): each key
names its part and its unit, ``weights_gb`` (10^9 bytes), ``weights_gib``
(2^30 bytes) or ``weights_bytes``. The chart shows GiB by default, the unit
device capacities are stored in (``capacity_gib``), so bars and capacity
lines compare like with like.
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.charts import svg

PARTS = ("weights", "kv_cache", "activations", "gradients", "optimizer", "overhead")
UNIT_BYTES = {"bytes": 1, "gb": 10**9, "gib": 2**30}

PLOT_LEFT = 180.0
PLOT_RIGHT = svg.WIDTH - 24.0
BAR_HEIGHT, BAR_GAP = 26.0, 14.0


def split_key(key: str):
    """``"kv_cache_gib"`` -> ``("kv_cache", "gib")``; None if the key is not a part with a unit."""
    for unit in UNIT_BYTES:
        suffix = "_" + unit
        if key.endswith(suffix) and key[: -len(suffix)] in PARTS:
            return key[: -len(suffix)], unit
    return None


def parts_in_bytes(parts: dict, lang: str, what: str = "parts") -> dict:
    """``{"weights_gb": 16.1, ...}`` -> ``{"weights": 16.1e9, ...}`` in PARTS order, zeros dropped."""
    if not isinstance(parts, dict) or not parts:
        raise svg.ChartError(l10n.t(lang, "charts.error.no_parts", what=what))
    out = {}
    for key, value in parts.items():
        split = split_key(str(key))
        if split is None:
            raise svg.ChartError(l10n.t(lang, "charts.error.unknown_part", name=str(key), parts=", ".join(PARTS)))
        part, unit = split
        if part in out:
            raise svg.ChartError(l10n.t(lang, "charts.error.part_twice", part=part))
        out[part] = svg.check_number(value, lang, f"{what}.{key}", allow_zero=True) * UNIT_BYTES[unit]
    return {p: out[p] for p in PARTS if out.get(p)}


def label_lines(label: str, limit: int = 26, most: int = 3) -> list[str]:
    """A bar label in at most ``most`` lines of about ``limit`` characters, broken after commas where possible."""
    lines, rest = [], label
    while len(rest) > limit and len(lines) < most - 1:
        cut = rest.rfind(", ", 0, limit + 1)
        if cut > 0:
            lines.append(rest[: cut + 1])
            rest = rest[cut + 2 :]
        else:
            lines.append(rest[:limit])
            rest = rest[limit:]
    lines.append(svg.shorten(rest, limit))
    return lines


def _check(bars, capacities, lang, unit):
    if unit not in ("gib", "gb"):
        raise svg.ChartError(l10n.t(lang, "charts.error.unknown_choice", what="unit", value=str(unit)))
    if not bars:
        raise svg.ChartError(l10n.t(lang, "charts.error.no_bars"))
    scale = UNIT_BYTES[unit]
    clean = []
    for bar in bars:
        label = svg.check_text(bar.get("label"), lang, "label")
        parts = {p: b / scale for p, b in parts_in_bytes(bar.get("parts"), lang, label).items()}
        if not parts:
            raise svg.ChartError(l10n.t(lang, "charts.error.no_parts", what=label))
        clean.append({"label": label, "parts": parts, "total": sum(parts.values())})
    caps = []
    for c in capacities or []:
        label = svg.check_text(c.get("label"), lang, "capacities.label")
        caps.append({"label": label, "size": svg.check_number(c.get("capacity_gib"), lang, f"{label}: capacity_gib")
                     * UNIT_BYTES["gib"] / scale})
    return clean, caps


def scale_for(bars, capacities=None, unit: str = "gib", lang: str = "en") -> svg.LinearScale:
    """The x scale the chart uses for these inputs (tests use it too)."""
    return _scale(*_check(bars, capacities, lang, unit))


def _scale(bars, caps) -> svg.LinearScale:
    top = svg.linear_top(max([b["total"] for b in bars] + [c["size"] for c in caps]) * 1.02)
    return svg.LinearScale(0.0, top, PLOT_LEFT, PLOT_RIGHT)


CAPACITY_LABEL_SIZE = 11.0
CAPACITY_ROW = 16.0  # height of one row of capacity labels above the plot


def _capacity_labels(caps, xs, lang: str, unit_label: str):
    """Place each capacity line's label ("H100 SXM: 80 GiB") in the first row above the plot where its box
    overlaps no label already placed (widths estimated from the font size), so neighbouring lines never
    write over each other. Returns ``[(x of the line, label, anchor, row)]`` in the order of ``caps``."""
    placed = []
    boxes: list[tuple[float, float, int]] = []  # (left, right, row)
    for cap in caps:
        x = xs(cap["size"])
        label = l10n.t(lang, "charts.breakdown.capacity_label", device=svg.shorten(cap["label"], 28),
                       value=svg.fmt(cap["size"], lang), unit=unit_label)
        anchor = "end" if x > (PLOT_LEFT + PLOT_RIGHT) / 2 else "start"
        width = svg.text_width(label, CAPACITY_LABEL_SIZE)
        left, right = (x - 4 - width, x - 4) if anchor == "end" else (x + 4, x + 4 + width)
        row = 0
        while any(r == row and not (right + 4 <= bl or left >= br + 4) for bl, br, r in boxes):
            row += 1
        boxes.append((left, right, row))
        placed.append((x, label, anchor, row))
    return placed


def _plot_top(caps, xs, lang: str, unit_label: str) -> float:
    """The plot's top edge: room for as many rows of capacity labels as their placement needs."""
    rows = 1 + max((row for *_, row in _capacity_labels(caps, xs, lang, unit_label)), default=-1)
    return 10.0 + CAPACITY_ROW * rows


def memory_breakdown_svg(bars, lang: str, capacities=None, unit: str = "gib", title: str | None = None) -> str:
    """Stacked bars as an ``<svg data-chart="memory-breakdown">`` string.

    ``bars``: ``[{"label": "Llama 3.1 70B, Q4_K_M", "parts": {"weights_gb": 42.5,
    "kv_cache_gb": 2.7, ...}}]`` (see module docstring for the keys).
    ``capacities``: optional ``[{"label": "H100 SXM", "capacity_gib": 80}]``.
    ``unit``: "gib" (default) or "gb" for the axis and labels.
    """
    bars, caps = _check(bars, capacities, lang, unit)
    xs = _scale(bars, caps)
    unit_label = l10n.t(lang, f"unit.{unit}")
    top = _plot_top(caps, xs, lang, unit_label)
    bottom = top + len(bars) * (BAR_HEIGHT + BAR_GAP) + BAR_GAP
    out = [svg.axes_frame(PLOT_LEFT, top, PLOT_RIGHT, bottom)]
    out.append(svg.x_ticks(xs, xs.ticks(), top, bottom, lang))
    out.append(svg.text((PLOT_LEFT + PLOT_RIGHT) / 2, bottom + 36,
                        l10n.t(lang, "charts.breakdown.x_axis", unit=unit_label), anchor="middle",
                        cls="atlas-axis-label"))
    used = [p for p in PARTS if any(p in b["parts"] for b in bars)]
    for i, bar in enumerate(bars):
        y = top + BAR_GAP + i * (BAR_HEIGHT + BAR_GAP)
        out.append(f'<g class="atlas-bar" data-total="{bar["total"]:.6g}">')
        lines = label_lines(bar["label"])
        size = 12 if len(lines) == 1 else 11
        for j, text in enumerate(lines):
            baseline = y + BAR_HEIGHT / 2 + 4 + (j - (len(lines) - 1) / 2) * 12
            out.append(svg.text(PLOT_LEFT - 8, baseline, text, anchor="end", cls="atlas-label", size=size))
        x = 0.0
        for part in PARTS:
            size = bar["parts"].get(part)
            if not size:
                continue
            x0, x1 = xs(x), xs(x + size)
            value = svg.fmt(size, lang)
            tip = l10n.t(lang, "charts.breakdown.tip", part=l10n.t(lang, f"breakdown.{part}"), value=value,
                         unit=unit_label)
            out.append(
                f'<g class="atlas-part atlas-part-{part}" color="{_PART_COLOURS[part]}" data-part="{part}">'
                f'<rect x="{svg.n(x0)}" y="{svg.n(y)}" width="{svg.n(max(x1 - x0, 0.5))}" height="{svg.n(BAR_HEIGHT)}" '
                f'fill="currentColor"><title>{svg.esc(tip)}</title></rect></g>'
            )
            if x1 - x0 > svg.text_width(value, 11) + 8:
                out.append(svg.text((x0 + x1) / 2, y + BAR_HEIGHT / 2 + 4, value, anchor="middle",
                                    cls="atlas-part-value", size=11))
            x += size
        total = l10n.t(lang, "charts.breakdown.total_label", value=svg.fmt(bar["total"], lang), unit=unit_label)
        out.append(svg.text(xs(bar["total"]) + 6, y + BAR_HEIGHT / 2 + 4, total, cls="atlas-label"))
        out.append("</g>")
    for cap, (x, label, anchor, row) in zip(caps, _capacity_labels(caps, xs, lang, unit_label), strict=True):
        label_y = top - 6 - CAPACITY_ROW * row
        out.append(f'<g class="atlas-capacity" data-capacity="{cap["size"]:.6g}">')
        out.append(svg.line(x, label_y + 2, x, bottom, "atlas-capacity-line",
                            'stroke-dasharray="5 3" stroke-width="1.5"'))
        out.append(svg.text(x + (-4 if anchor == "end" else 4), label_y, label, anchor=anchor,
                            cls="atlas-label", size=CAPACITY_LABEL_SIZE))
        out.append("</g>")
    items = [((f"atlas-part-{p}", _PART_COLOURS[p]), l10n.t(lang, f"breakdown.{p}")) for p in used]
    legend, legend_height = svg.legend(items, PLOT_LEFT, bottom + 48, PLOT_RIGHT - PLOT_LEFT, swatch="box")
    out.append(legend)

    cases = "; ".join(
        l10n.t(lang, "charts.breakdown.desc_item", label=b["label"],
               parts=", ".join(f'{l10n.t(lang, f"breakdown.{p}")} {svg.fmt(v, lang)}' for p, v in b["parts"].items()),
               total=svg.fmt(b["total"], lang), unit=unit_label)
        for b in bars
    )
    desc = l10n.t(lang, "charts.breakdown.desc", unit=unit_label, cases=cases)
    if caps:
        desc += " " + l10n.t(lang, "charts.breakdown.desc_capacities", capacities=", ".join(
            f'{c["label"]} {svg.fmt(c["size"], lang)} {unit_label}' for c in caps))
    title = title or l10n.t(lang, "charts.breakdown.title")
    return svg.svg_root("memory-breakdown", bottom + 48 + legend_height + 4, title, desc, "".join(out), lang)


def memory_breakdown_tables(bars, lang: str, capacities=None, unit: str = "gib") -> list[str]:
    """The numbers behind the bars (and the capacities) as tables."""
    bars, caps = _check(bars, capacities, lang, unit)
    unit_label = l10n.t(lang, f"unit.{unit}")
    used = [p for p in PARTS if any(p in b["parts"] for b in bars)]
    headers = [l10n.t(lang, "charts.col.case")]
    headers += [f'{l10n.t(lang, f"breakdown.{p}")} ({unit_label})' for p in used]
    headers.append(l10n.t(lang, "charts.col.total", unit=unit_label))
    zero = svg.fmt(0, lang)
    rows = [(None, [b["label"]] + [svg.fmt(b["parts"][p], lang) if p in b["parts"] else zero for p in used]
             + [svg.fmt(b["total"], lang)]) for b in bars]
    out = [svg.table(headers, rows)]
    if caps:
        cap_rows = [(None, [c["label"], svg.fmt(c["size"], lang)]) for c in caps]
        out.append(svg.table([l10n.t(lang, "col.name"), l10n.t(lang, "charts.col.capacity", unit=unit_label)],
                             cap_rows))
    return out


def memory_breakdown_figure(bars, lang: str, capacities=None, unit: str = "gib", caption: str | None = None) -> str:
    """The breakdown figure for a page: SVG plus its numbers in a collapsible table."""
    picture = memory_breakdown_svg(bars, lang, capacities, unit)
    return svg.figure(picture, memory_breakdown_tables(bars, lang, capacities, unit), lang, caption)


# Fallback colours of the parts; charts.css sets them per palette.
_PART_COLOURS = {
    "weights": "#0072b2",
    "kv_cache": "#e69f00",
    "activations": "#009e73",
    "gradients": "#cc79a7",
    "optimizer": "#d55e00",
    "overhead": "#7f7f7f",
}
