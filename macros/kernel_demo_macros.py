"""Macros for the in-page kernel demos: ``{{ systolic_demo() }}`` and ``{{ roofline_demo() }}``.

Each renders the whole demo with ``atlas.core.kernelview.page`` (form, the result for the
default inputs, computed by the same ``atlas/demos/`` modules the page shows)
and declares the Python runtime the calculators use, through the page values
``overrides/main.html`` writes into ``<head>`` (``atlas_runtime``,
``atlas_start``, ``atlas_modules``; see ``macros/calculator_macros.py``).
Only the page that calls one of these macros loads Pyodide. The simulator
needs no data; the roofline explorer fetches the data export for the peaks.
"""

from __future__ import annotations

from atlas.core.calcview.page import config_json, runtime_options
from atlas.core.kernelview.page import ENTRY_POINTS, demo_html
from atlas.data import webbundle
from macros.calculator_macros import SCRIPT, START, relative_to_page


def register(env, ctx):
    def demo(name: str, needs_data: bool) -> str:
        versions = {"bundle": webbundle.site_bundle()[1]}
        if needs_data:
            versions["data"] = webbundle.site_data(ctx.dataset)[1]
        script = relative_to_page(SCRIPT, env.page.url)
        env.page.meta["atlas_runtime"] = config_json(runtime_options(versions, warm=[ENTRY_POINTS[name]]))
        env.page.meta["atlas_start"] = relative_to_page(START, env.page.url)
        env.page.meta["atlas_modules"] = [script]
        return demo_html(name, ctx.lang(), ctx.catalog(), script)

    @env.macro
    def systolic_demo():
        """The systolic-array simulator with its inputs, Run button, result and step-through."""
        return demo("systolic", needs_data=False)

    @env.macro
    def roofline_demo():
        """The roofline explorer: device, precision and arithmetic intensity in, attainable throughput out."""
        return demo("roofline", needs_data=True)
