"""Entry points of the kernel demos in the browser (registered in ``atlas.core.pyweb.ENTRY_POINTS``).

The roofline explorer reads device peaks from the data export the worker
fetched (``atlas-data.json``), through the calculators' catalog, read once.
"""

from __future__ import annotations

import os

from atlas.core import pyweb
from atlas.core.calcview.browser import catalog
from atlas.core.kernelview import render


def systolic_entry(payload: dict) -> dict:
    """``atlas.core.kernelview.render`` of the systolic-array demo on the page's ``{"params", "lang"}``."""
    return render({**(payload if isinstance(payload, dict) else {}), "command": "systolic"})


def roofline_entry(payload: dict) -> dict:
    """``atlas.core.kernelview.render`` of the roofline explorer on the page's ``{"params", "lang"}``."""
    return render({**(payload if isinstance(payload, dict) else {}), "command": "roofline"}, catalog())


def warm() -> None:
    """Import the simulator, the model and the chart code before the first request, and read the
    catalog where the page fetched the data export (the roofline explorer's page; the simulator needs none)."""
    import atlas.core.kernels.roofline  # noqa: F401
    import atlas.core.kernels.systolic  # noqa: F401
    from atlas.core import charts  # noqa: F401

    if os.path.exists(pyweb.data_path("atlas-data.json")):
        catalog()
