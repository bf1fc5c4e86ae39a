"""Entry point of the calculators in the browser (registered in ``atlas.core.pyweb.ENTRY_POINTS``).

The worker writes the build's data export to ``atlas.core.pyweb.data_path("atlas-data.json")``;
the catalog is read from it once and kept for the page's lifetime.
"""

from __future__ import annotations

from atlas.core import l10n, pyweb
from atlas.core.calculators import gpu_detect, model_import
from atlas.core.calculators.catalog import Catalog
from atlas.core.calcview import render
from atlas.core.calcview.form import PRESET_FIELDS
from atlas.core.calcview.numbers import field_value, typed_decimal

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


def import_fields_entry(payload: dict) -> dict:
    """Entry point ``calculators.import_fields``: a reader's config.json (or GGUF header) as the values of
    the custom-model fields, so the form computes with it and the link carries it.

    Answers ``{"ok": true, "name", "fields": {parameter: text as typed}, "weights": format | None}``,
    or ``calculators.import_model``'s errors (with ``need_bytes`` for a GGUF header that needs more).
    The fields hold what a custom model has (size, layers, widths, heads, vocabulary); what they cannot
    say — experts, sliding windows, a file's exact bytes — the note under the box states.
    """
    lang = payload.get("lang") if isinstance(payload, dict) else None
    lang = lang if lang in l10n.LANGUAGES else l10n.DEFAULT_LANGUAGE
    answer = model_import.import_model({k: v for k, v in payload.items() if k not in ("command", "params")}
                                       if isinstance(payload, dict) else payload)
    if not answer["ok"]:
        return answer
    preset = answer["model"]
    fields = {"model": "custom"}
    for name, (section, key) in PRESET_FIELDS.items():
        value = preset.get(section, {}).get(key)
        if value is not None:
            # as the reader types it: 8.03, not 8.029995008; 12.25, not 12.247 (a thousands group in German)
            fields[name] = typed_decimal(value, lang) if isinstance(value, float) else field_value(value, lang)
    return {"ok": True, "name": preset.get("name"), "fields": fields, "weights": answer.get("weights")}


def gpu_detect_entry(payload: dict) -> dict:
    """Entry point ``atlas.core.calculators.gpu_detect``: the WebGPU adapter info the page read (``{"adapter": {vendor,
    architecture, device, description}, "lang"}``, nothing leaves the page) matched to the catalogue's devices,
    with the localized lines to show."""
    payload = payload if isinstance(payload, dict) else {}
    return gpu_detect.message(payload.get("adapter"), catalog().devices, payload.get("lang"))


def render_entry(payload: dict) -> dict:
    """``atlas.core.calcview.render`` on the page's request ``{"command", "params", "lang"}``."""
    return render(payload, catalog())


def warm() -> None:
    """Read the catalog and import the chart code before the first request."""
    from atlas.core import charts  # noqa: F401

    catalog()
