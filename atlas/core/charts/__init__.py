"""Charts for Accelerator Atlas: inline SVG drawn from plain values.

Standard library only (plus ``l10n``), so the same code runs at build time in
the macros and in the browser under Pyodide. Every function takes plain values
(lists of dicts, numbers, a language code ``"en"``/``"de"``) and returns a
string; the same input always gives the same bytes.

Each chart comes as two functions:

- ``<chart>_svg(...)`` returns the ``<svg>`` element alone: ``data-chart="<name>"``,
  ``role="img"``, ``<title>`` and ``<desc>`` in the page's language, a ``viewBox``
  (crisp at any zoom) and colours from ``currentColor`` / CSS classes styled by
  ``docs/assets/stylesheets/charts.css`` for Material's light and dark palettes.
- ``<chart>_figure(...)`` returns ``<figure>`` with that SVG and the numbers
  behind it as tables in a collapsible ``<details>`` block — what pages and the
  calculators show, so a chart is never the only place a number lives.

Bad input raises ``ChartError`` (a ``ValueError``) whose message is already in
the requested language.

Roofline (``atlas.core.charts.roofline``)::

    roofline_svg(devices, lang, precision="bf16", unit="matrix", sparsity="dense", markers=None)
    roofline_figure(devices, lang, precision="bf16", unit="matrix", sparsity="dense", markers=None, caption=None)

    devices = [{"id": "h100-sxm", "label": "H100 SXM", "peak_tflops": 989.4, "bandwidth_gb_s": 3350}]
    markers = [{"label": "LLM decode, batch 1", "intensity": 1.0}]          # operations per byte
    markers = [{"label": "my kernel", "intensity": 12.0, "tflops": 30.5}]   # also draws a measured point

  ``peak_tflops`` is 10^12 operations/s of ``precision`` (fp64 … int4) on
  ``unit`` (matrix|vector) with ``sparsity`` (dense|sparse); ``bandwidth_gb_s``
  is 10^9 bytes/s. Ridge point (critical intensity) = peak ÷ bandwidth operations
  per byte; every roofline formula is ``atlas.core.calculators.roofline``'s, which this
  package only draws.

Memory breakdown (``atlas.core.charts.breakdown``)::

    memory_breakdown_svg(bars, lang, capacities=None, unit="gib")
    memory_breakdown_figure(bars, lang, capacities=None, unit="gib", caption=None)

    bars = [{"label": "Llama 3.1 70B, Q4_K_M",
             "parts": {"weights_gb": 42.5, "kv_cache_gb": 2.7, "overhead_gb": 1.2}}]
    capacities = [{"label": "H100 SXM", "capacity_gib": 80}]

  Part keys are ``weights``, ``kv_cache``, ``activations``, ``gradients``,
  ``optimizer``, ``overhead`` with the unit as suffix: ``_gb`` (10^9 bytes),
  ``_gib`` (2^30 bytes) or ``_bytes`` — the estimators' ``breakdown`` object
  can be passed as it is. The axis shows GiB (``unit="gb"`` for GB).

Memory capacity against bandwidth (``atlas.core.charts.scatter``)::

    capacity_bandwidth_svg(devices, lang, thresholds=None)
    capacity_bandwidth_figure(devices, lang, thresholds=None, caption=None)

    devices = [{"id": "h100-sxm", "label": "H100 SXM", "kind": "gpu", "capacity_gib": 80, "bandwidth_gb_s": 3350}]
    thresholds = [{"label": "...", "capacity_gib": 43.9}, {"label": "...", "bandwidth_gb_s": 1000}]

Generations over time (``atlas.core.charts.generations``)::

    generations_svg(devices, lang, precision="bf16")
    generations_figure(devices, lang, precision="bf16", caption=None)

    devices = [{"id", "label", "vendor", "launch_year", "peak_tflops", "bandwidth_gb_s",
                "precision": "fp16"}]   # "precision" only where it differs from the chart's

Performance per watt and per dollar (``atlas.core.charts.efficiency``)::

    efficiency_svg(devices, lang, metric="power", precision="bf16")
    efficiency_figure(devices, lang, metric="power", precision="bf16", caption=None)

    metric "power":       devices = [{"id", "label", "peak_tflops", "tdp_w"}]     -> GFLOP/s per W
    metric "price":       devices = [{"id", "label", "peak_tflops", "price_usd", "price_usd_high" (range only),
                                      "price_as_of": "2024-01", "price_kind": "street-range"}]
                                                                                -> TFLOP/s per 1,000 US$
    metric "cloud_price": the same with US$ per device-hour                     -> TFLOP/s per US$/h

  The figure shows the caveat (peak vs real work, dated prices) under the chart.

From the estimators' results (``atlas.core.charts.estimates``), for the in-page calculators::

    from atlas.core import charts
    from atlas.core.calculators.api import handle
    from atlas.core.charts import estimates
    result = handle({"command": "speed", ...}, catalog)["result"]
    html = charts.roofline_figure(lang=lang, **estimates.speed_roofline(result, lang))   # device, baseline, workload
    result = handle({"command": "vram", ...}, catalog)["result"]
    html = charts.memory_breakdown_figure([estimates.vram_bar(result, lang)], lang,
                                          capacities=[{"label": "H100 SXM", "capacity_gib": 80}])

  ``estimates.vram_threshold(result, lang)`` and ``estimates.speed_marker(result, lang)``
  give a capacity line and a roofline marker with labels in ``lang``.

Macros for pages (``macros/charts_macros.py``)
----------------------------------------------

Pages with ``render_macros: true`` pick devices like ``device_table``: ``ids``
(a list, in that order; each listed device must state the figures the chart
needs) or the filters ``kind`` (gpu, tpu, asic, fpga, npu, cpu; a name or a
list), ``segment`` and ``vendor``. Filtered devices without the figure are
left out; if none is left the page says so in its language. ``caption`` adds
a line under the picture. Every macro returns the figure with its data table
in the page's language::

    {{ roofline_chart(kind="gpu", precision="bf16") }}
    {{ roofline_chart(ids=["h100-sxm", "a100-sxm-80gb"], precision="fp8", unit="matrix", sparsity="dense",
                      markers=[{"label": "My kernel", "intensity": 12}]) }}
    {{ capacity_bandwidth_chart(kind=["gpu", "tpu"]) }}
    {{ generations_chart(vendor="NVIDIA", kind="gpu") }}        # precision=("bf16", "fp16"): first one stated
    {{ efficiency_chart("power", kind="gpu") }}                 # or "price", "cloud_price"

Figures a page would otherwise type by hand come from the estimators
(``atlas.core.calculators.api.handle``), given as calculator parameters::

    {{ roofline_chart(kind="gpu", workloads=[
        {"workload": "decode", "model": "llama-3.1-8b", "weights": "bf16", "batch": 1}]) }}
    {{ roofline_chart(ids=["h100-sxm", "a100-sxm-80gb"], kernel_examples=["triad", "matmul"]) }}
                                        # the kernel demos' examples (atlas.core.kernels.roofline); True for all
    {{ capacity_bandwidth_chart(kind="gpu", thresholds=[
        {"model": "llama-3.1-70b", "weights": "q4_k_m", "context": 8192}]) }}   # line at the estimated total
    {{ memory_breakdown_chart([{"model": "llama-3.1-70b", "weights": "q4_k_m", "context": 8192},
                               {"model": "llama-3.1-8b", "weights": "bf16", "mode": "lora"}],
                              devices=["rtx-4090", "h100-sxm"]) }}              # capacity lines of these devices

Any case may carry a ``label`` to replace the generated one; a parameter the
estimators refuse stops the build with their message.
"""

from atlas.core.charts.breakdown import memory_breakdown_figure, memory_breakdown_svg
from atlas.core.charts.efficiency import efficiency_figure, efficiency_svg
from atlas.core.charts.generations import generations_figure, generations_svg
from atlas.core.charts.roofline import roofline_figure, roofline_svg
from atlas.core.charts.scatter import capacity_bandwidth_figure, capacity_bandwidth_svg
from atlas.core.charts.svg import ChartError

__all__ = [
    "ChartError",
    "capacity_bandwidth_figure",
    "capacity_bandwidth_svg",
    "efficiency_figure",
    "efficiency_svg",
    "generations_figure",
    "generations_svg",
    "memory_breakdown_figure",
    "memory_breakdown_svg",
    "roofline_figure",
    "roofline_svg",
]
