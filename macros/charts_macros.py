"""Macros for the charts: pick devices from the data set, draw with ``charts``.

Each macro selects devices like ``device_table`` (``ids`` in that order, or
``kind``/``segment``/``vendor`` filters), turns them into plain chart inputs
(``atlas.data.chart_inputs``) and returns the figure HTML (SVG plus a collapsible
data table) in the page's language. Devices that lack a figure a chart needs
are left out; if none is left the page says so in its language (as
``device_table`` does), while a device listed in ``ids`` without the figure
fails the build with a clear message.
See ``atlas/core/charts/__init__.py`` for the parameters and examples.
"""

from __future__ import annotations

from html import escape

from atlas.core import charts, l10n
from atlas.data import chart_estimates
from atlas.data.chart_inputs import PURCHASE_PRICES, chart_device, chart_devices, kernel_markers


def _first(precision) -> str:
    return precision if isinstance(precision, str) else list(precision)[0]


def register(env, ctx):
    def select(ids, kind, segment, vendor, require, precision="bf16", unit="matrix", sparsity="dense",
               price_kinds=None):
        return chart_devices(ctx.dataset.devices, ids=ids, kind=kind, segment=segment, vendor=vendor,
                             precision=precision, unit=unit, sparsity=sparsity, require=require,
                             price_kinds=price_kinds, prices=ctx.catalog().prices, lang=ctx.lang())

    def empty() -> str:
        return f'<p class="atlas-empty">{escape(l10n.t(ctx.lang(), "charts.empty"))}</p>'

    @env.macro
    def roofline_chart(ids=None, kind=None, segment=None, vendor=None, precision="bf16", unit="matrix",
                       sparsity="dense", workloads=None, kernel_examples=None, markers=None, caption=None):
        """Roofline of the selected devices at one precision.

        workloads: speed-estimator parameters, e.g. [{"workload": "decode", "model": "llama-3.1-8b",
        "weights": "bf16", "batch": 1}], drawn at the intensity the estimator computes;
        kernel_examples: True or names ("triad", "decode", "fma", "matmul") of the kernel demos' example
        workloads, at the intensities ``atlas.core.kernels.roofline`` derives;
        markers: explicit [{"label", "intensity"}] (operations per byte).
        """
        devices = select(ids, kind, segment, vendor, ("peak_tflops", "bandwidth_gb_s"), precision, unit, sparsity)
        if not devices:
            return empty()
        if ids is None:  # legend from the highest roof down
            devices.sort(key=lambda d: (-d["peak_tflops"], d["label"]))
        marks = [chart_estimates.workload_marker(w, devices[0]["id"], ctx.lang(), ctx.catalog()) for w in workloads or []]
        if kernel_examples:
            marks += kernel_markers(ctx.lang(), precision, None if kernel_examples is True else kernel_examples)
        marks += list(markers or [])
        return charts.roofline_figure(devices, ctx.lang(), precision, unit, sparsity, marks, caption)

    @env.macro
    def capacity_bandwidth_chart(ids=None, kind=None, segment=None, vendor=None, thresholds=None, caption=None):
        """Memory capacity against bandwidth, by kind.

        thresholds: memory-estimator parameters, e.g. [{"model": "llama-3.1-70b", "weights": "q4_k_m",
        "context": 8192}] (a vertical line at the total the estimator computes), or explicit
        [{"label", "capacity_gib" | "bandwidth_gb_s"}].
        """
        devices = select(ids, kind, segment, vendor, ("capacity_gib", "bandwidth_gb_s"))
        if not devices:
            return empty()
        lines = [chart_estimates.capacity_threshold(t, ctx.lang(), ctx.catalog()) if "model" in t else t
                 for t in thresholds or []]
        return charts.capacity_bandwidth_figure(devices, ctx.lang(), lines, caption)

    @env.macro
    def memory_breakdown_chart(cases, devices=None, unit="gib", caption=None):
        """Stacked memory bars of memory-estimator cases, with the capacity of ``devices`` (ids) as lines.

        cases: [{"model": "llama-3.1-70b", "weights": "q4_k_m", "context": 8192}, ...] with any
        parameter of the vram calculator (mode, batch, kv_cache, num_devices, ...) and an optional label.
        """
        bars = [chart_estimates.breakdown_bar(case, ctx.lang(), ctx.catalog()) for case in cases]
        capacities = [{"label": d["label"], "capacity_gib": d["capacity_gib"]}
                      for d in (chart_device(ctx.dataset.device(i), lang=ctx.lang()) for i in devices or [])]
        return charts.memory_breakdown_figure(bars, ctx.lang(), capacities, unit, caption)

    @env.macro
    def generations_chart(ids=None, kind=None, segment=None, vendor=None, precision=("bf16", "fp16"), caption=None):
        """Peak (first of ``precision`` a device states, dense, matrix units) and bandwidth by launch year."""
        devices = select(ids, kind, segment, vendor, ("peak_tflops", "bandwidth_gb_s"), precision)
        if not devices:
            return empty()
        return charts.generations_figure(devices, ctx.lang(), _first(precision), caption)

    @env.macro
    def efficiency_chart(metric="power", ids=None, kind=None, segment=None, vendor=None, precision="bf16",
                         caption=None):
        """Peak per watt of TDP (metric="power"), per purchase price ("price") or per cloud hour ("cloud_price")."""
        if metric == "power":
            devices = select(ids, kind, segment, vendor, ("peak_tflops", "tdp_w"), precision)
        else:
            kinds = ("cloud-per-hour",) if metric == "cloud_price" else PURCHASE_PRICES
            devices = select(ids, kind, segment, vendor, ("peak_tflops", "price_usd"), precision, price_kinds=kinds)
        if not devices:
            return empty()
        return charts.efficiency_figure(devices, ctx.lang(), metric, precision, caption)
