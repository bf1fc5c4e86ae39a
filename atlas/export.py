"""The validated data set as one JSON document for the estimators.

``export_dataset`` returns ``{"schema_version": 1, "devices": {id: device},
"models": {id: model}}`` with every entry exactly as in its YAML file (dates as
ISO strings). The command line (``python -m atlas export out.json``), the
calculators' own command line and the site build all produce it here, and the
browser fetches it as ``atlas-data.json``; ``calculators.catalog.Catalog``
reads it with the standard library alone.
"""

from __future__ import annotations

import json
from pathlib import Path

from atlas.dataset import DATA_DIR, Dataset, load_dataset
from atlas.price_lists import prices_by_device

EXPORT_SCHEMA_VERSION = 1


def export_dataset(dataset: Dataset) -> dict:
    """The JSON-able export of ``dataset`` (devices, models and every device's dated prices, by id, in id order)."""
    return {
        "schema_version": EXPORT_SCHEMA_VERSION,
        "devices": dataset.devices,
        "models": dataset.models,
        "prices": prices_by_device(dataset),
    }


def export_json(dataset: Dataset) -> str:
    """The export as compact, deterministic JSON text (sorted keys, UTF-8, no NaN)."""
    return json.dumps(export_dataset(dataset), ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)


def write_export(path: Path | str, data_dir: Path | str = DATA_DIR) -> Path:
    """Validate the data set under ``data_dir`` and write its export to ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(export_json(load_dataset(data_dir)) + "\n", encoding="utf-8")
    return path
