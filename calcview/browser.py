"""Entry point of the calculators in the browser (registered in ``pyweb.ENTRY_POINTS``).

The worker writes the build's data export to ``pyweb.data_path("atlas-data.json")``;
the catalog is read from it once and kept for the page's lifetime.
"""

from __future__ import annotations

import pyweb
from calculators import model_import
from calculators.catalog import Catalog
from calcview import render

_catalog: Catalog | None = None


def catalog() -> Catalog:
    """The catalog from the data export the worker fetched (read once)."""
    global _catalog
    if _catalog is None:
        with open(pyweb.data_path("atlas-data.json"), encoding="utf-8") as fh:
            _catalog = Catalog.from_json(fh.read())
    return _catalog


def import_model_entry(payload: dict) -> dict:
    """Entry point ``calculators.import_model``: a reader's config.json or GGUF header, estimated with this catalog."""
    wants_estimate = isinstance(payload, dict) and bool(payload.get("command"))
    return model_import.import_model(payload, catalog() if wants_estimate else None)


def render_entry(payload: dict) -> dict:
    """``calcview.render`` on the page's request ``{"command", "params", "lang"}``."""
    return render(payload, catalog())


def warm() -> None:
    """Read the catalog and import the chart code before the first request."""
    import charts  # noqa: F401

    catalog()
