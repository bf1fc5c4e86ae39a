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

Roofline (``charts.roofline``)::

    roofline_svg(devices, lang, precision="bf16", unit="matrix", sparsity="dense", markers=None)
    roofline_figure(devices, lang, precision="bf16", unit="matrix", sparsity="dense", markers=None, caption=None)

    devices = [{"id": "h100-sxm", "label": "H100 SXM", "peak_tflops": 989.4, "bandwidth_gb_s": 3350}]
    markers = [{"label": "LLM decode, batch 1", "intensity": 1.0}]          # operations per byte
    markers = [{"label": "my kernel", "intensity": 12.0, "tflops": 30.5}]   # also draws a measured point

  ``peak_tflops`` is 10^12 operations/s of ``precision`` (fp64 … int4) on
  ``unit`` (matrix|vector) with ``sparsity`` (dense|sparse); ``bandwidth_gb_s``
  is 10^9 bytes/s. Ridge point = 1000 × peak ÷ bandwidth operations per byte.

Memory breakdown (``charts.breakdown``)::

    memory_breakdown_svg(bars, lang, capacities=None, unit="gib")
    memory_breakdown_figure(bars, lang, capacities=None, unit="gib", caption=None)

    bars = [{"label": "Llama 3.1 70B, Q4_K_M",
             "parts": {"weights_gb": 42.5, "kv_cache_gb": 2.7, "overhead_gb": 1.2}}]
    capacities = [{"label": "H100 SXM", "capacity_gib": 80}]

  Part keys are ``weights``, ``kv_cache``, ``activations``, ``gradients``,
  ``optimizer``, ``overhead`` with the unit as suffix: ``_gb`` (10^9 bytes),
  ``_gib`` (2^30 bytes) or ``_bytes`` — the estimators' ``breakdown`` object
  can be passed as it is. The axis shows GiB (``unit="gb"`` for GB).
"""

from charts.breakdown import memory_breakdown_figure, memory_breakdown_svg
from charts.efficiency import efficiency_figure, efficiency_svg
from charts.generations import generations_figure, generations_svg
from charts.roofline import roofline_figure, roofline_svg
from charts.scatter import capacity_bandwidth_figure, capacity_bandwidth_svg
from charts.svg import ChartError

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
