"""The systolic-array demo: cycles, utilisation and the data flow of one product.

Every number comes from ``atlas/core/kernels/systolic.py``, the file the page shows:

- ``summary`` gives cycles, weight tiles, multiply-adds and utilisation of
  X (M x K) times W (K x N) on a ``size`` x ``size`` array (``tile_cycles``
  splits a tile into loading and streaming);
- ``simulate`` runs the product register by register when it is small enough
  for a browser (at most ``SIMULATE_LIMIT`` PE-cycles): its cycle count, its
  count of useful multiply-adds and the largest difference of its product
  from ``matmul`` are shown beside the formula's figures;
- with ``trace=True`` it also records the frames of the step-through, drawn
  when the array has at most ``TRACE_MAX_SIZE`` PEs per side and the product
  at most ``TRACE_MAX_CELLS`` PE-cycles of streaming work;
- the chart sweeps ``summary`` over M, for square products and for the
  reader's K and N.

Elements that show a result value carry ``data-result="<path in result>"``
and ``data-value`` (the raw JSON value), as in the calculators.
"""

from __future__ import annotations

import math

from atlas.core import charts, l10n
from atlas.core.calcview.markup import el, text
from atlas.core.calcview.results import value
from atlas.core.charts.systolic import pe_grid_svg, utilisation_figure
from atlas.core.kernels import systolic
from atlas.core.kernelview import inputs
from atlas.core.kernelview.tables import figures_table, row

SIMULATE_LIMIT = 250_000  # PE-cycles (size^2 x cycles) simulated value by value in the page
TRACE_MAX_SIZE = 16  # PEs per side drawn in the step-through
TRACE_MAX_CELLS = 2048  # streaming PE-cycles drawn (tiles x M x size^2)
TRACE_MAX_FRAMES = 64  # streaming cycles drawn, one grid each
SWEEP_TOP = 4096  # the chart's M runs from 1 to this (or to the reader's M if larger)


def operands(m: int, k: int, n: int) -> tuple[list[list[float]], list[list[float]]]:
    """X (M x K) and W (K x N) of small whole numbers, so the simulated product
    must equal the plain one exactly: X[i][j] = (i + 2j) mod 7 - 3, W[i][j] = (2i + j) mod 5 - 2."""
    x = [[float((i + 2 * j) % 7 - 3) for j in range(k)] for i in range(m)]
    w = [[float((2 * i + j) % 5 - 2) for j in range(n)] for i in range(k)]
    return x, w


def sweep_sizes(m: int) -> list[int]:
    """M for the chart: about two points per doubling from 1 to ``SWEEP_TOP`` (or M), and M itself."""
    top = max(SWEEP_TOP, m)
    return sorted({round(2 ** (i / 2)) for i in range(math.floor(2 * math.log2(top)) + 1)} | {m})


def run(values: dict, typed: dict, lang: str) -> tuple[dict | None, list[dict]]:
    """(result, []) for the parameters ``values``, or (None, errors) naming every bad field."""
    values, errors = dict(values), []
    while True:  # each bad field is reported, then replaced by its default to find the next one
        try:
            summary = systolic.summary(values["m"], values["k"], values["n"], values["size"])
            break
        except systolic.InputError as exc:
            errors.append(inputs.field_error(exc, typed, lang))
            values[exc.field] = inputs.default("systolic", exc.field)
    if errors:
        return None, errors
    m, k, n, size = summary["m"], summary["k"], summary["n"], summary["size"]
    pe_cycles = size * size * summary["cycles"]
    trace_cells = summary["tiles"] * m * size * size
    frames = summary["tiles"] * (systolic.tile_cycles(m, size) - size)
    traced = size <= TRACE_MAX_SIZE and trace_cells <= TRACE_MAX_CELLS and frames <= TRACE_MAX_FRAMES
    simulation = trace = None
    if pe_cycles <= SIMULATE_LIMIT:
        x, w = operands(m, k, n)
        done = systolic.simulate(x, w, size, trace=traced)
        expected = systolic.matmul(x, w)
        error = max(abs(a - b) for got, want in zip(done["y"], expected, strict=True) for a, b in zip(got, want, strict=True))
        simulation = {"cycles": done["cycles"], "busy": done["busy"], "max_error": error}
        if traced:
            trace = {"frames": [{"tile": list(f["tile"]), "cycle": f["cycle"], "active": f["active"]}
                                for f in done["frames"]]}
    sizes = sweep_sizes(m)
    result = {
        "summary": summary,
        "tile": {"load_cycles": size, "stream_cycles": systolic.tile_cycles(m, size) - size},
        "pe_cycles": pe_cycles,
        "trace_cells": trace_cells,
        "trace_frames": frames,
        "simulation": simulation,
        "trace": trace,
        "sweep": {
            "sizes": sizes,
            "square": [systolic.utilisation(s, s, s, size) for s in sizes],
            "rows": [systolic.utilisation(s, k, n, size) for s in sizes],
        },
        "limits": {"simulate_pe_cycles": SIMULATE_LIMIT, "trace_size": TRACE_MAX_SIZE,
                   "trace_cells": TRACE_MAX_CELLS, "trace_frames": TRACE_MAX_FRAMES},
    }
    return result, []


# --- HTML ---------------------------------------------------------------------------------


def _t(lang: str, key: str, **params) -> str:
    return l10n.t(lang, key, **params)


def _whole(number: int, lang: str) -> str:
    return l10n.format_number(number, lang, 0)


def percent(share: float, lang: str) -> str:
    """A share in [0, 1] as per cent with three significant digits: 26.7% (26,7 % in German)."""
    return _t(lang, "kernels.percent", value=l10n.format_significant(100 * share, lang, 3))


def _numbers(result: dict, lang: str) -> str:
    s, sim = result["summary"], result["simulation"]
    rows = [
        row(_t(lang, "kdemo.systolic.row.tiles"), "summary.tiles", s["tiles"], _whole(s["tiles"], lang)),
        row(_t(lang, "kdemo.systolic.row.cycles"), "summary.cycles", s["cycles"], _whole(s["cycles"], lang)),
    ]
    if sim:
        rows.append(row(_t(lang, "kdemo.systolic.row.cycles_simulated"), "simulation.cycles", sim["cycles"],
                         _whole(sim["cycles"], lang)))
    rows.append(row(_t(lang, "kdemo.systolic.row.macs"), "summary.macs", s["macs"], _whole(s["macs"], lang)))
    if sim:
        rows.append(row(_t(lang, "kdemo.systolic.row.busy"), "simulation.busy", sim["busy"], _whole(sim["busy"], lang)))
        rows.append(row(_t(lang, "kdemo.systolic.row.max_error"), "simulation.max_error", sim["max_error"],
                         l10n.format_significant(sim["max_error"], lang, 3)))
    rows.append(row(_t(lang, "kdemo.systolic.row.pe_cycles"), "pe_cycles", result["pe_cycles"],
                     _whole(result["pe_cycles"], lang)))
    rows.append(row(_t(lang, "kdemo.systolic.row.utilisation"), "summary.utilisation", s["utilisation"],
                     percent(s["utilisation"], lang)))
    table = figures_table(rows, lang)
    if sim:
        note = _t(lang, "kdemo.systolic.simulated")
    else:
        note = _t(lang, "kdemo.systolic.not_simulated", pe_cycles=_whole(result["pe_cycles"], lang),
                  limit=_whole(result["limits"]["simulate_pe_cycles"], lang))
    return table + el("p", text(note), class_="atlas-kdemo-note")


def _frame_items(frame: dict, k0: int, n0: int, rows_used: int, cols_used: int) -> tuple[list[str], list[str], int]:
    """(activations entering at the left, sums leaving at the bottom, PEs working on real weights)."""
    active = frame["active"]
    size = len(active)
    entering = [f"X[{line[0]}][{k0 + r}]" for r, line in enumerate(active) if line[0] is not None and r < rows_used]
    leaving = [f"Y[{m}][{n0 + c}]" for c, m in enumerate(active[size - 1]) if m is not None and c < cols_used]
    busy = sum(1 for r, line in enumerate(active) for c, m in enumerate(line)
               if m is not None and r < rows_used and c < cols_used)
    return entering, leaving, busy


def _stepper_controls(count: int, lang: str) -> str:
    buttons = [
        el("button", text(_t(lang, "kdemo.step.first")), type="button", class_="atlas-kdemo-button", data_step="first"),
        el("button", text(_t(lang, "kdemo.step.prev")), type="button", class_="atlas-kdemo-button", data_step="prev"),
        el("button", text(_t(lang, "kdemo.step.play")), type="button", class_="atlas-kdemo-button atlas-kdemo-button--primary",
           data_step="play", aria_pressed="false", data_label_play=_t(lang, "kdemo.step.play"),
           data_label_pause=_t(lang, "kdemo.step.pause")),
        el("button", text(_t(lang, "kdemo.step.next")), type="button", class_="atlas-kdemo-button", data_step="next"),
        el("button", text(_t(lang, "kdemo.step.last")), type="button", class_="atlas-kdemo-button", data_step="last"),
    ]
    slider = el("label", text(_t(lang, "kdemo.step.slider")) + " "
                + f'<input type="range" min="0" max="{count - 1}" value="0" step="1" data-step="to">',
                class_="atlas-stepper-slider")
    return el("div", "".join(buttons) + slider, class_="atlas-stepper-controls", data_stepper_controls=True,
              hidden=True)


def trace_html(result: dict, lang: str) -> str:
    """The step-through: one PE grid per streaming cycle, with what enters and leaves the array.

    Without JavaScript every frame is shown; ``stepper.mjs`` shows one at a time with controls.
    """
    s, frames = result["summary"], result["trace"]["frames"]
    size, n_tiles = s["size"], math.ceil(s["n"] / s["size"])
    none = _t(lang, "kdemo.systolic.frame_none")
    items = []
    for i, frame in enumerate(frames):
        kt, nt = frame["tile"]
        k0, n0 = kt * size, nt * size
        rows_used, cols_used = min(size, s["k"] - k0), min(size, s["n"] - n0)
        entering, leaving, busy = _frame_items(frame, k0, n0, rows_used, cols_used)
        title = _t(lang, "kdemo.systolic.frame_title", cycle=_whole(frame["cycle"], lang),
                   tile=_whole(kt * n_tiles + nt + 1, lang), tiles=_whole(s["tiles"], lang),
                   busy=_whole(busy, lang), pes=_whole(size * size, lang))
        picture = pe_grid_svg(frame["active"], lang, rows_used, cols_used, title)
        caption = "<br>".join((
            el("strong", text(title)),
            text(_t(lang, "kdemo.systolic.frame_in", items=", ".join(entering) or none)),
            text(_t(lang, "kdemo.systolic.frame_out", items=", ".join(leaving) or none)),
        ))
        items.append(el("li", picture + el("p", caption, class_="atlas-frame-caption"), class_="atlas-frame",
                        data_frame=i, data_cycle=frame["cycle"]))
    legend = _t(lang, "kdemo.systolic.trace_caption", first=_whole(frames[0]["cycle"], lang),
                last=_whole(frames[-1]["cycle"], lang), load=_whole(size, lang))
    return el("div", _stepper_controls(len(frames), lang) + el("ol", "".join(items), class_="atlas-frames")
              + el("p", text(legend), class_="atlas-kdemo-note"),
              class_="atlas-stepper", data_stepper=True, data_result="trace_frames", data_value=result["trace_frames"])


def _sweep_chart(result: dict, lang: str) -> str:
    s, sweep = result["summary"], result["sweep"]
    series = [
        {"label": _t(lang, "kdemo.systolic.series.square"),
         "points": [{"size": x, "utilisation": u} for x, u in zip(sweep["sizes"], sweep["square"], strict=True)]},
        {"label": _t(lang, "kdemo.systolic.series.rows", k=_whole(s["k"], lang), n=_whole(s["n"], lang)),
         "points": [{"size": x, "utilisation": u} for x, u in zip(sweep["sizes"], sweep["rows"], strict=True)]},
    ]
    marker = {"label": _t(lang, "kdemo.systolic.marker", m=_whole(s["m"], lang), k=_whole(s["k"], lang),
                          n=_whole(s["n"], lang), share=percent(s["utilisation"], lang)),
              "size": s["m"], "utilisation": s["utilisation"]}
    caption = _t(lang, "kdemo.systolic.sweep_caption", size=_whole(s["size"], lang))
    try:
        return utilisation_figure(series, lang, marker, caption)
    except charts.ChartError as exc:
        return el("p", text(_t(lang, "kdemo.chart_unavailable", reason=str(exc))), class_="atlas-kdemo-note")


def result_html(result: dict, lang: str) -> str:
    """The systolic demo's result as HTML in ``lang``: headline, numbers, step-through, chart."""
    s, tile = result["summary"], result["tile"]
    headline = el(
        "p",
        text(_t(lang, "kdemo.systolic.cycles")) + " "
        + el("strong", value("span", "summary.cycles", s["cycles"], _whole(s["cycles"], lang))) + " · "
        + text(_t(lang, "kdemo.systolic.utilisation")) + " "
        + el("strong", value("span", "summary.utilisation", s["utilisation"], percent(s["utilisation"], lang))),
        class_="atlas-calc-headline",
    )
    summary = el("p", text(_t(
        lang, "kdemo.systolic.summary", m=_whole(s["m"], lang), k=_whole(s["k"], lang), n=_whole(s["n"], lang),
        size=_whole(s["size"], lang), tiles=_whole(s["tiles"], lang), macs=_whole(s["macs"], lang),
        load=_whole(tile["load_cycles"], lang), stream=_whole(tile["stream_cycles"], lang))),
        class_="atlas-calc-summary")
    if result["trace"]:
        trace = trace_html(result, lang)
    else:
        trace = el("p", text(_t(lang, "kdemo.systolic.no_trace", size=_whole(TRACE_MAX_SIZE, lang),
                                cells=_whole(TRACE_MAX_CELLS, lang), frames=_whole(TRACE_MAX_FRAMES, lang),
                                have_size=_whole(s["size"], lang), have_cells=_whole(result["trace_cells"], lang),
                                have_frames=_whole(result["trace_frames"], lang))),
                   class_="atlas-kdemo-note")
    return (
        headline + summary
        + el("h3", text(_t(lang, "kdemo.systolic.heading.numbers"))) + _numbers(result, lang)
        + el("h3", text(_t(lang, "kdemo.systolic.heading.trace"))) + trace
        + el("h3", text(_t(lang, "kdemo.systolic.heading.sweep"))) + _sweep_chart(result, lang)
    )
