"""The validated data set as one JSON document for the estimators.

``export_dataset`` returns ``{"schema_version": 1, "devices": {id: device},
"models": {id: model}, "prices": {...}, "measurements": {...}}`` with every device
and model exactly as in its YAML file (dates as ISO strings), and the published
LLM speed measurements flattened to one plain row per case (``measured_rows``),
which the calculators list beside an estimate, never use for it. The command line (``python -m atlas.data export out.json``), the
calculators' own command line and the site build all produce it here, and the
browser fetches it as ``atlas-data.json``; ``atlas.core.calculators.catalog.Catalog``
reads it with the standard library alone.
"""

from __future__ import annotations

import json
from pathlib import Path

from atlas.data.checks.inference import cases as file_cases
from atlas.data.dataset import DATA_DIR, Dataset, load_dataset
from atlas.data.price_lists import prices_by_device

EXPORT_SCHEMA_VERSION = 1


def export_dataset(dataset: Dataset) -> dict:
    """The JSON-able export of ``dataset`` (devices, models and every device's dated prices, by id, in id order)."""
    return {
        "schema_version": EXPORT_SCHEMA_VERSION,
        "devices": dataset.devices,
        "models": dataset.models,
        "prices": prices_by_device(dataset),
        "measurements": measured_rows(dataset),
        "kv_quality": kv_quality_rows(dataset),
    }


def kv_quality_rows(dataset: Dataset) -> list:
    """The measured quality changes of quantised KV caches (``data/kv-quality/``), one dict per measurement with
    its source (``{id, url, title, publisher, where}``), in file and measurement order; read by
    ``atlas.core.calculators.kv_quality``."""
    rows = []
    for source_id, entry in dataset.kv_quality.items():
        source = {"id": source_id, **{key: str(entry["source"][key]) for key in ("url", "title", "publisher", "where")}}
        rows += [{**row, "source": source} for row in entry["measurements"]]
    return rows


# What a reader needs to judge a measured case beside an estimate; the rest of the case stays in data/inference/.
MEASURED_FIELDS = ("device", "model", "engine", "weights", "num_devices", "batch", "prompt_tokens", "generated_tokens",
                   "context_depth", "memory_gib", "decode_tokens_per_s", "prefill_tokens_per_s", "date", "power_w",
                   "power_scope")


def measured_rows(dataset: Dataset) -> dict:
    """The LLM speed measurements as a compact table for the browser.

    ``{"columns": [*MEASURED_FIELDS, "source"], "rows": [[value or None, ...], ...], "sources": [{id, url, title,
    publisher}, ...]}``: one row per measured case (the file's defaults filled in), ``source`` an index into
    ``sources``; rows in file-id and case order. ``atlas.core.calculators.catalog.Catalog`` turns the rows back into dicts."""
    sources, rows = [], []
    for source_id in sorted(dataset.inference):
        entry = dataset.inference[source_id]
        measured = [case for case in file_cases(entry) if case.get("kind", "llm") == "llm"
                    and ("decode_tokens_per_s" in case or "prefill_tokens_per_s" in case)]
        if not measured:
            continue
        cited = entry.get("source", {})
        sources.append({"id": source_id, **{key: str(cited[key]) for key in ("url", "title", "publisher") if key in cited}})
        for case in measured:
            row = [case.get(key) for key in MEASURED_FIELDS]
            row[MEASURED_FIELDS.index("date")] = str(case["date"]) if case.get("date") is not None else None
            rows.append(row + [len(sources) - 1])
    return {"columns": [*MEASURED_FIELDS, "source"], "rows": rows, "sources": sources}


def export_json(dataset: Dataset) -> str:
    """The export as compact, deterministic JSON text (sorted keys, UTF-8, no NaN)."""
    return json.dumps(export_dataset(dataset), ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)


def write_export(path: Path | str, data_dir: Path | str = DATA_DIR) -> Path:
    """Validate the data set under ``data_dir`` and write its export to ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(export_json(load_dataset(data_dir)) + "\n", encoding="utf-8")
    return path
