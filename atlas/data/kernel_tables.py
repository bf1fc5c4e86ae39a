"""HTML for the kernel-demo pages: measured-vs-peak tables, roofline and
systolic-array results pre-rendered at build time.

Measurements come from ``data/measurements/``; peaks are looked up in the
device's file through ``atlas.core.calculators.demo_peaks`` (the same lookup the demos use), so
a measurement never stores a hardware figure. Every string from a data file
is HTML-escaped; numbers are formatted for the page's language. Elements
that show a computed result carry ``data-result="<key>"`` with the key of
the Python result they come from.
"""

from __future__ import annotations

from html import escape

from atlas.core import l10n
from atlas.core.calculators import demo_peaks
from atlas.core.calculators.fields import parse_field
from atlas.core.calculators.roofline import attainable_tflops, critical_intensity, matmul_intensity
from atlas.core.kernels import roofline, systolic
from atlas.core.kernels.demo_workloads import BACKENDS, DEMOS, FUSED_OPS, fma_intensity
from atlas.core.l10n.names import device_name
from atlas.data.tables import format_figure

MEASUREMENT_COLUMNS = ("device", "backend", "params", "measured", "peak", "percent", "software", "date")
UNIT_KEYS = {"gb_s": "unit.gb_s", "tflops": "unit.tflops"}


def format_date(iso: str, lang: str) -> str:
    """'2026-12-02' in English, '2.12.2026' in German."""
    if lang == "de":
        year, month, day = iso.split("-")
        return f"{int(day)}.{int(month)}.{year}"
    return iso


def percent_text(value: float, lang: str) -> str:
    return l10n.t(lang, "kernels.percent", value=l10n.format_number(value, lang, 1))


def field_label(field: str, lang: str) -> str:
    """'bf16.matrix.dense' -> 'BF16, matrix unit, dense'; 'bandwidth' -> 'Memory bandwidth'."""
    parsed = parse_field(field)
    if isinstance(parsed, str):
        return l10n.t(lang, f"col.{parsed}")
    return ", ".join(
        (
            l10n.t(lang, f"precision.{parsed.precision}"),
            l10n.t(lang, f"unit_kind.{parsed.unit}"),
            l10n.t(lang, f"sparsity.{parsed.sparsity}"),
        )
    )


def peak_label(peak: dict, lang: str) -> str:
    """Which figure a peak is: 'BF16, matrix unit, dense' (+ 'half the sparse 1,979' where derived)."""
    text = field_label(peak["field"], lang)
    if peak["from_sparse"]:
        text += ", " + l10n.t(lang, "kernels.half_sparse", sparse=format_figure(peak["from_sparse"], lang))
    return text


# Recorded with a result but fixed by the demo, not chosen on its command line: the element
# type of the bandwidth and fused demos (FP32; FP64 in NumPy's bandwidth demo) and the
# precision of the intensity sweep (FP32 FMAs).
DESCRIPTIVE_PARAMS = {"bandwidth": {"dtype"}, "fused": {"dtype"}, "intensity": {"precision"}}


def options_text(params: dict, demo: str) -> str:
    """The ``demo``'s options as typed on the command line: '--precision bf16 --size 8192'."""
    parts = []
    for key, value in params.items():
        if key in DESCRIPTIVE_PARAMS.get(demo, ()):
            continue
        text = ",".join(str(v) for v in value) if isinstance(value, list) else str(value)
        parts.append(f"--{key} {text}")
    return " ".join(parts)


def measurement_row(entry: dict, devices_by_id: dict, lang: str) -> str:
    device = devices_by_id.get(entry["device"]) if entry["device"] else None
    unit = l10n.t(lang, UNIT_KEYS[entry["result"]["unit"]])
    value = entry["result"]["value"]
    if device:
        who = f'{escape(device_name(device["name"], lang))}'
    else:
        who = f'{escape(entry["device_name"])} <small>({escape(l10n.t(lang, "kernels.not_in_dataset"))})</small>'
    peak = demo_peaks.peak(device, entry["demo"], entry["params"].get("precision")) if device else None
    backend = f'{escape(l10n.t(lang, "kernels.backend." + entry["backend"]))} · {escape(l10n.t(lang, "kernels.platform." + entry["platform"]))}'
    measured_title = escape(l10n.t(lang, "kernels.measured_title", command=entry["command"]))
    cells = [
        f'<th scope="row">{who}</th>',
        f"<td>{backend}</td>",
        f"<td><code>{escape(options_text(entry['params'], entry['demo']))}</code></td>",
        f'<td data-sort="{value!r}" title="{measured_title}" data-result="measured">{escape(l10n.format_significant(value, lang, 3))}\u00a0{escape(unit)}</td>',
    ]
    if peak:
        text = l10n.t(lang, "kernels.peak_figure", value=format_figure(peak["value"], lang), unit=unit, what=peak_label(peak, lang))
        share = demo_peaks.percent_of(value, peak["value"])
        cells.append(f'<td data-sort="{peak["value"]!r}" title="{escape(peak["source"] or "")}">{escape(text)}</td>')
        cells.append(f'<td data-sort="{share!r}" data-result="percent_of_peak">{escape(percent_text(share, lang))}</td>')
    else:
        dash, title = escape(l10n.t(lang, "table.not_stated")), escape(l10n.t(lang, "kernels.no_peak_title"))
        cells.append(f'<td data-sort="-1" title="{title}">{dash}</td>')
        cells.append(f'<td data-sort="-1" title="{title}">{dash}</td>')
    software = ", ".join(f"{k} {v}" for k, v in entry["software"].items())
    cells.append(f"<td><small>{escape(software)}</small></td>")
    cells.append(f'<td data-sort="{escape(entry["date"])}">{escape(format_date(entry["date"], lang))}</td>')
    device_attr = f' data-device="{escape(entry["device"])}"' if entry["device"] else ""
    return f'<tr data-measurement="{escape(entry["id"])}"{device_attr}>{"".join(cells)}</tr>'


def measurements_table(
    measurements: dict, devices_by_id: dict, lang: str, demo: str, backend: str | None = None, op: str | None = None
) -> str:
    """A sortable table of the recorded measurements of ``demo``, best first.

    ``backend`` keeps one backend; ``op`` keeps one operation of the fused
    demo ("softmax" or "layernorm"). Without ``op`` the fused demo's rows are
    grouped by operation, and the options column names it (``--op ...``).
    """
    if demo not in DEMOS:
        raise ValueError(f"unknown demo {demo!r}; expected one of {', '.join(DEMOS)}")
    if backend is not None and backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    if op is not None and (demo != "fused" or op not in FUSED_OPS):
        raise ValueError(f"unknown op {op!r} for the {demo} demo; the fused demo has {', '.join(FUSED_OPS)}")
    rows = [
        m
        for m in measurements.values()
        if m["demo"] == demo and (backend is None or m["backend"] == backend) and (op is None or m["params"].get("op") == op)
    ]
    if not rows:
        message = l10n.t(lang, "kernels.no_measurements_op" if op else "kernels.no_measurements")
        return f'<p class="atlas-empty" data-result="no_measurements">{escape(message)}</p>'
    rows.sort(key=lambda m: (m["params"].get("op", ""), m["device"] is None, m["device"] or m["device_name"], m["backend"], -m["result"]["value"]))
    head = "".join(f'<th scope="col">{escape(l10n.t(lang, "kernels.col." + c))}</th>' for c in MEASUREMENT_COLUMNS)
    body = "".join(measurement_row(m, devices_by_id, lang) for m in rows)
    caption = escape(l10n.t(lang, "kernels.table_caption"))
    op_attr = f' data-op="{escape(op)}"' if op else ""
    return (
        f'<table data-atlas-table="measurements" data-demo="{escape(demo)}"{op_attr} data-sortable>'
        f"<caption>{caption}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


FIGURE_KINDS = ("value", "percent", "peak", "ms", "speedup")


def measured_figure(measurements: dict, devices_by_id: dict, lang: str, measurement_id: str, what: str = "value", fmas: int | None = None) -> str:
    """One figure of one recorded measurement, formatted as the tables format it, for prose:
    ``value`` (e.g. '86.1 TFLOP/s'), ``percent`` of the device's peak (e.g. '8.7%'), the ``peak``
    itself, ``ms`` (the median time) or the fused demo's ``speedup`` over the unfused steps
    (e.g. '4.9×'). ``fmas`` picks one point of an intensity sweep instead of
    its best. An unknown id, or a percentage of a device without a peak, stops the build."""
    if what not in FIGURE_KINDS:
        raise ValueError(f"unknown figure {what!r}; expected one of {', '.join(FIGURE_KINDS)}")
    entry = measurements.get(measurement_id)
    if entry is None:
        raise ValueError(f"no recorded measurement {measurement_id!r}")
    unit = l10n.t(lang, UNIT_KEYS[entry["result"]["unit"]])
    details = entry.get("details", {})
    value, seconds = entry["result"]["value"], details.get("median_s", details.get("fused_s"))
    if fmas is not None:
        point = next((pt for pt in entry.get("details", {}).get("points", []) if pt["fmas"] == fmas), None)
        if point is None:
            raise ValueError(f"{measurement_id} has no point at {fmas} FMAs")
        value, seconds = point["achieved_tflops"], point["seconds"]
    if what == "value":
        return f"{l10n.format_significant(value, lang, 3)}\u00a0{unit}"
    if what == "speedup":
        speedup = entry.get("details", {}).get("speedup")
        if speedup is None:
            raise ValueError(f"{measurement_id} records no speed-up")
        return f"{l10n.format_number(speedup, lang, 1)}×"
    if what == "ms":
        if seconds is None:
            raise ValueError(f"{measurement_id} records no time")
        return f"{l10n.format_significant(seconds * 1e3, lang, 3)}\u00a0ms"
    device = devices_by_id.get(entry["device"]) if entry["device"] else None
    peak = demo_peaks.peak(device, entry["demo"], entry["params"].get("precision")) if device else None
    if peak is None:
        raise ValueError(f"{measurement_id}: no peak to compare with")
    if what == "peak":
        return f"{format_figure(peak['value'], lang)}\u00a0{unit}"
    return percent_text(demo_peaks.percent_of(value, peak["value"]), lang)


def device_roof(devices_by_id: dict, device_id: str, precision: str, demo: str = "matmul") -> tuple[dict, dict, float]:
    """(device, its peak for ``demo`` at ``precision`` as ``atlas.core.calculators.demo_peaks.peak`` gives it, bandwidth in GB/s).

    ``demo`` "matmul" takes the matrix unit where stated, "intensity" the
    vector unit. ValueError if the device lacks the precision or a bandwidth.
    """
    if device_id not in devices_by_id:
        raise ValueError(f"unknown device id {device_id!r}")
    device = devices_by_id[device_id]
    peak, bandwidth = demo_peaks.peak(device, demo, precision), demo_peaks.peak(device, "bandwidth")
    if not (peak and bandwidth) or not peak["field"].startswith(precision + "."):
        raise ValueError(f"device {device_id!r} states no {precision} peak or no bandwidth")
    return device, peak, bandwidth["value"]


def _figure(value: float, lang: str) -> str:
    return l10n.format_significant(value, lang, 3)


def roofline_table(devices_by_id: dict, lang: str, ids, precision: str = "bf16", intensities=(1, 10, 100, 1000), demo: str = "matmul") -> str:
    """Peak, bandwidth, ridge point and attainable TFLOP/s at each intensity, one row per device.

    The peak is the one the ``demo`` compares with (see ``device_roof``); its
    cell names the figure (unit, and half the sparse figure where that is all
    the vendor states)."""
    head = [
        l10n.t(lang, "kernels.roofline.col.device"),
        l10n.t(lang, "kernels.roofline.col.peak", precision=l10n.t(lang, f"precision.{precision}")),
        l10n.t(lang, "kernels.roofline.col.bandwidth"),
        l10n.t(lang, "kernels.roofline.col.ridge"),
    ] + [l10n.t(lang, "kernels.roofline.col.at", intensity=l10n.format_number(i, lang, 2)) for i in intensities]
    body = []
    for device_id in ids:
        device, figure, bandwidth = device_roof(devices_by_id, device_id, precision, demo)
        peak = figure["value"]
        cells = [f'<th scope="row">{escape(device_name(device["name"], lang))}</th>']
        cells.append(f'<td data-sort="{peak!r}" title="{escape(peak_label(figure, lang))}">{format_figure(peak, lang)}</td>')
        cells.append(f'<td data-sort="{bandwidth!r}">{format_figure(bandwidth, lang)}</td>')
        ridge = critical_intensity(peak, bandwidth)
        cells.append(f'<td data-sort="{ridge!r}" data-result="ridge_flop_per_byte">{_figure(ridge, lang)}</td>')
        for intensity in intensities:
            value = attainable_tflops(peak, bandwidth, intensity)
            cells.append(f'<td data-sort="{value!r}" data-result="attainable_tflops">{_figure(value, lang)}</td>')
        body.append(f'<tr data-device="{escape(device_id)}">{"".join(cells)}</tr>')
    header = "".join(f'<th scope="col">{escape(h)}</th>' for h in head)
    caption = escape(l10n.t(lang, "kernels.roofline.caption"))
    return (
        f'<table data-atlas-table="roofline" data-sortable><caption>{caption}</caption>'
        f"<thead><tr>{header}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def workloads(precision: str = "bf16") -> list[tuple[str, dict, float]]:
    """(label key, label params, intensity) of the example workloads: triad and decoding from
    ``atlas.core.kernels.roofline``, the FMA chain from its demo, the matrix product from ``atlas.core.calculators.roofline``."""
    return [
        ("kernels.roofline.workload.triad", {}, roofline.triad_intensity(4)),
        ("kernels.roofline.workload.decode", {"batch": 1}, roofline.decode_intensity(2, 1)),
        ("kernels.roofline.workload.decode", {"batch": 64}, roofline.decode_intensity(2, 64)),
        ("kernels.roofline.workload.fma", {"fmas": 256}, fma_intensity(256)),
        ("kernels.roofline.workload.matmul", {"n": 4096}, matmul_intensity(4096, 4096, 4096, 2)),
    ]


def roofline_workloads(devices_by_id: dict, lang: str, device_id: str, precision: str = "bf16") -> str:
    """Where example workloads sit on one device's roofline: intensity, attainable, share of peak, bound."""
    device, figure, bandwidth = device_roof(devices_by_id, device_id, precision)
    peak = figure["value"]
    cols = ("workload", "intensity", "attainable", "share", "bound")
    head = "".join(f'<th scope="col">{escape(l10n.t(lang, "kernels.roofline.col." + c))}</th>' for c in cols)
    body = []
    for key, params, intensity in workloads(precision):
        params = {k: l10n.format_number(v, lang, 0) for k, v in params.items()}
        result = roofline.explore(peak, bandwidth, intensity)
        body.append(
            f'<tr data-workload="{escape(key.rsplit(".", 1)[1])}">'
            f'<th scope="row">{escape(l10n.t(lang, key, **params))}</th>'
            f'<td data-sort="{intensity!r}" data-result="intensity">{_figure(intensity, lang)}</td>'
            f'<td data-sort="{result["attainable_tflops"]!r}" data-result="attainable_tflops">{_figure(result["attainable_tflops"], lang)}</td>'
            f'<td data-sort="{result["percent_of_peak"]!r}" data-result="percent_of_peak">{escape(percent_text(result["percent_of_peak"], lang))}</td>'
            f'<td data-result="bound">{escape(l10n.t(lang, "kernels.roofline.bound." + result["bound"]))}</td></tr>'
        )
    caption = l10n.t(
        lang,
        "kernels.roofline.workload_caption",
        device=device_name(device["name"], lang),
        figure=peak_label(figure, lang),
        peak=format_figure(peak, lang),
        bandwidth=format_figure(bandwidth, lang),
        ridge=_figure(critical_intensity(peak, bandwidth), lang),
    )
    return (
        f'<table data-atlas-table="roofline-workloads" data-device-id="{escape(device_id)}">'
        f"<caption>{escape(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def systolic_table(lang: str, size: int = 128, sizes=(8, 32, 128, 256, 1024, 4096)) -> str:
    """Cycles and utilisation of square products on a ``size`` x ``size`` array (``atlas.core.kernels.systolic``)."""
    cols = ("size", "tiles", "cycles", "utilisation")
    head = "".join(f'<th scope="col">{escape(l10n.t(lang, "kernels.systolic.col." + c))}</th>' for c in cols)
    body = []
    for result in systolic.sweep(sizes, size):
        body.append(
            f'<tr data-size="{result["m"]}"><th scope="row">{l10n.format_number(result["m"], lang, 0)}</th>'
            f'<td data-result="tiles">{l10n.format_number(result["tiles"], lang, 0)}</td>'
            f'<td data-result="cycles">{l10n.format_number(result["cycles"], lang, 0)}</td>'
            f'<td data-result="utilisation">{escape(l10n.t(lang, "kernels.percent", value=_figure(100 * result["utilisation"], lang)))}</td></tr>'
        )
    caption = escape(l10n.t(lang, "kernels.systolic.caption", size=size))
    return (
        f'<table data-atlas-table="systolic"><caption>{caption}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def systolic_trace(lang: str, size: int = 4, m: int = 6, per_line: int = 5) -> str:
    """The data flow of one small product, cycle by cycle, as text grids side by side."""
    x = [[float(i + j) for j in range(size)] for i in range(m)]
    w = [[1.0] * size for _ in range(size)]
    run = systolic.simulate(x, w, size, trace=True)
    word = l10n.t(lang, "kernels.systolic.cycle")
    width = max(2 * size - 1, len(word) + 4)
    blocks = []
    for frame in run["frames"]:
        lines = [f"{word} {frame['cycle']}".ljust(width)]
        lines += [" ".join("·" if v is None else str(v) for v in row).ljust(width) for row in frame["active"]]
        blocks.append(lines)
    text_lines = []
    for start in range(0, len(blocks), per_line):
        group = blocks[start : start + per_line]
        for i in range(size + 1):
            text_lines.append("   ".join(b[i] for b in group).rstrip())
        text_lines.append("")
    caption = l10n.t(lang, "kernels.systolic.trace_caption", m=m, size=size, cycles=run["cycles"], load=size)
    return (
        f'<figure class="atlas-systolic-trace"><pre data-result="frames">{escape(chr(10).join(text_lines).rstrip())}</pre>'
        f"<figcaption>{escape(caption)}</figcaption></figure>"
    )
