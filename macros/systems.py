"""Macros for the interconnects page (docs/hardware/interconnects*.md): a table of the data set's device-to-device
links, and the link latencies the speed model was fitted with (``atlas.core.calculators.fitted``)."""

from __future__ import annotations

import math

from atlas.core import l10n
from atlas.core.calculators import engines, fitted
from atlas.core.calculators.fields import field_number
from atlas.data import tables
from atlas.data.safe import inline_text as escape  # data strings sit in Markdown pages: HTML and Markdown neutral


def link_rows(devices: dict, ids) -> list[dict]:
    """One row per device in ``ids`` (in that order): its link's name, bandwidth in GB/s and link class."""
    rows = []
    for device_id in ids:
        device = devices[device_id]
        link = device.get("interconnect")
        if not link:
            raise ValueError(f"device {device_id!r} states no interconnect")
        rows.append({"device": device, "link": link["name"], "gb_s": link["bandwidth_gb_s"],
                     "class": engines.link_class(device)})
    return rows


def link_table(devices: dict, ids, lang: str) -> str:
    """A sortable table: device, link, GB/s per device (the data set's ``interconnect`` with its source)."""
    head = "".join(f'<th scope="col">{escape(l10n.t(lang, f"systems.col.{c}"))}</th>'
                   for c in ("device", "link", "bandwidth"))
    body = []
    for row in link_rows(devices, ids):
        device = row["device"]
        body.append(f'<tr data-device="{escape(device["id"])}">{tables.name_cell(device, lang)}'
                    f'<td>{escape(row["link"])}</td>{tables.cell(device, "interconnect", lang)}</tr>')
    caption = escape(l10n.t(lang, "systems.caption"))
    return (f'<table data-atlas-table="links" data-sortable><caption>{caption}</caption>'
            f'<thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>')


def fitted_seconds(feature: str, link: str, params: dict | None = None) -> float:
    """Seconds per all-reduce (``allreduce``) or per stage boundary (``hop``) the fit gives ``link``."""
    entry = (params or fitted.PARAMS)[feature]
    return math.exp(entry["global"] + entry.get("link", {}).get(link, 0.0))


def fitted_latency_text(feature: str, link: str, lang: str) -> str:
    """That time in microseconds, two significant digits, with its unit (no-break space)."""
    return f"{l10n.format_significant(fitted_seconds(feature, link) * 1e6, lang, 2)}\u00a0µs"


def register(env, ctx):
    @env.macro
    def link_table_html(ids):
        """The device-to-device links of the devices ``ids``, from the data set."""
        return link_table(ctx.dataset.devices, ids, ctx.lang())

    @env.macro
    def fitted_link_latency(feature, link):
        """The speed model's fitted time per all-reduce or per stage boundary on one link class."""
        return fitted_latency_text(feature, link, ctx.lang())

    @env.macro
    def link_gb_s(device_id, factor=1, decimals=0):
        """A device's interconnect bandwidth times ``factor`` (e.g. 8 GPUs of an HGX board), in GB/s or, with
        factor > 1 and a total over 10,000 GB/s, in TB/s."""
        value = ctx.dataset.device(device_id)["interconnect"]["bandwidth_gb_s"] * factor
        if value >= 10_000:
            return f"{l10n.format_number(value / 1000, ctx.lang(), 1)}\u00a0TB/s"
        return f"{l10n.format_number(value, ctx.lang(), decimals)}\u00a0GB/s"

    register_benchmarks(env, ctx)


def measured_nth(inference: dict, source: str, index: int, field: str) -> float:
    """``field`` of case number ``index`` of ``data/inference/<source>.yaml`` (for sources whose cases differ only in
    what their notes say, such as the scenarios of one MLPerf submission)."""
    return inference[source]["cases"][index][field]


def peak_ratio(devices: dict, a: str, field_a: str, b: str, field_b: str) -> float:
    """Figure ``field_a`` of device ``a`` divided by figure ``field_b`` of device ``b`` (e.g. fp4.matrix.sparse of a
    B200 over fp8.matrix.dense of an H100: the factor a vendor's headline comparison implies)."""
    return field_number(devices[a], field_a) / field_number(devices[b], field_b)


def register_benchmarks(env, ctx):
    @env.macro
    def measured_case_value(source, index, field, decimals=0, divide=1):
        """A measured figure of one case of an inference source, optionally divided (e.g. by the accelerator count)."""
        value = measured_nth(ctx.dataset.inference, source, index, field) / divide
        return escape(l10n.format_number(value, ctx.lang(), decimals))

    @env.macro
    def figure_ratio(a, field_a, b, field_b, decimals=1):
        """The ratio of two devices' figures, in the page's number format."""
        return escape(l10n.format_number(peak_ratio(ctx.dataset.devices, a, field_a, b, field_b), ctx.lang(), decimals))
