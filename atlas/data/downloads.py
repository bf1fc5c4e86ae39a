"""The data set as files a reader downloads from the site: JSON and CSV.

Written into the built site under ``downloads/`` at build time (see
``macros/download_hooks.py``) from the same validated data as every page:

- ``accelerator-atlas.json``: ``atlas.data.export`` (devices and models with
  every source, ``schema_version`` at the top);
- ``accelerator-atlas-devices.csv``: one row per device (``atlas.data.frame``),
  units in the column names (``memory_gib``, ``bandwidth_gb_s``, ``tdp_w``,
  compute as ``bf16_matrix_dense_tflops`` or ``int8_matrix_dense_tops``),
  ``schema_version`` as a column and the source URLs in the last column;
- ``accelerator-atlas-models.csv``: one row per model preset, nested keys
  joined by dots (``architecture.layers``), source URLs in the last column;
- ``accelerator-atlas-speed-accuracy.csv``: every published measurement the
  speed model is checked against (``atlas/data/fit_report.json``), with the
  cross-validated prediction: the numbers behind the accuracy page's chart.

Cells a device does not state are empty. The output is deterministic: the
same data gives the same bytes.
"""

from __future__ import annotations

import io
import math

import pandas as pd

from atlas.core import l10n
from atlas.core.calculators.fields import NUMERIC_FIELDS, ComputeField, parse_field
from atlas.data.accuracy import load_report, predicted_over_measured
from atlas.data.dataset import Dataset
from atlas.data.export import EXPORT_SCHEMA_VERSION, export_json
from atlas.data.frame import device_frame

FOLDER = "downloads"  # in the site
JSON_FILE = "accelerator-atlas.json"
DEVICES_CSV = "accelerator-atlas-devices.csv"
MODELS_CSV = "accelerator-atlas-models.csv"
ACCURACY_CSV = "accelerator-atlas-speed-accuracy.csv"
# The accuracy file's columns: what identifies a measured case, then tokens per second measured and predicted and
# their ratio (predicted ÷ measured, the accuracy page's one convention).
ACCURACY_CASE_COLUMNS = ("source", "group", "device", "num_devices", "split", "model", "weights", "engine", "backend",
                         "phase", "batch", "prompt_tokens", "generated_tokens", "context_depth")

SCHEMA_VERSION = EXPORT_SCHEMA_VERSION
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

# Plain fields of atlas.core.calculators.fields whose CSV column names carry their unit.
_UNIT_SUFFIX = {"unit.gib": "gib", "unit.gb_s": "gb_s", "unit.w": "w"}


def csv_column(name: str) -> str:
    """CSV column of field ``name``: 'bandwidth' -> 'bandwidth_gb_s', 'int8.matrix.dense' -> 'int8_matrix_dense_tops'."""
    field = parse_field(name)
    if isinstance(field, ComputeField):
        return f"{field.key.replace('.', '_')}_{field.unit_label.removeprefix('unit.')}"
    unit = NUMERIC_FIELDS.get(field)
    return f"{field}_{_UNIT_SUFFIX[unit]}" if unit in _UNIT_SUFFIX else field


def _source_urls(entry: dict) -> str:
    return " ".join(source["url"] for source in entry["sources"].values())


def _cell(value) -> str:
    """Text of one CSV cell: 80.0 -> "80" (pandas stores whole numbers as floats next to empty
    cells), 19.5 -> "19.5", NaN or None -> ""."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(float(value))
    text = str(value)
    # A spreadsheet runs a cell that starts like a formula; validation refuses such strings, and this
    # keeps a download harmless even for data that skipped it.
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _to_csv(frame: pd.DataFrame) -> str:
    frame = frame.astype(object).map(_cell)
    buffer = io.StringIO()
    frame.to_csv(buffer, lineterminator="\n")
    return buffer.getvalue()


def devices_csv(devices: dict) -> str:
    """One row per device: raw values in the units their column names state (US dollars for prices)."""
    frame = device_frame(devices).drop(columns=["price"])
    frame.columns = [csv_column(c) for c in frame.columns]
    # Drop compute columns no device states (fp6 on vector units, ...); keep every plain field.
    empty = [c for c in frame.columns if c.endswith(("_tflops", "_tops")) and frame[c].isna().all()]
    frame = frame.drop(columns=empty)
    price = {i: d.get("price", {}) for i, d in devices.items()}
    frame.insert(0, "schema_version", [devices[i]["schema_version"] for i in frame.index])
    frame["price_kind"] = [price[i].get("kind") for i in frame.index]
    frame["price_usd"] = [price[i].get("usd") for i in frame.index]
    frame["price_usd_high"] = [price[i].get("usd_high") for i in frame.index]
    frame["price_as_of"] = [price[i].get("as_of") for i in frame.index]
    frame["source_urls"] = [_source_urls(devices[i]) for i in frame.index]
    return _to_csv(frame)


def models_csv(models: dict) -> str:
    """One row per model preset, nested keys joined by dots; sources as URLs."""
    rows = [{k: v for k, v in model.items() if k != "sources"} for model in models.values()]
    frame = pd.json_normalize(rows, sep=".").set_index("id")
    frame["source_urls"] = [_source_urls(models[i]) for i in frame.index]
    first = ["schema_version", "name", "vendor", "release_year"]
    frame = frame[first + [c for c in frame.columns if c not in first]]
    return _to_csv(frame)


def accuracy_csv(report: dict) -> str:
    """One row per case of the speed model's accuracy report, in the report's order (the ``case`` column counts
    from 0, as the accuracy chart's ``data-case`` does): what was measured, measured and predicted tokens per
    second, and predicted ÷ measured."""
    rows = [{"case": i, **{k: c.get(k) for k in ACCURACY_CASE_COLUMNS},
             "measured_tokens_per_s": c["measured_tokens_per_s"], "predicted_tokens_per_s": c["predicted_tokens_per_s"],
             "predicted_over_measured": round(predicted_over_measured(c), 4)}
            for i, c in enumerate(report["cases"])]
    return _to_csv(pd.DataFrame(rows).set_index("case"))


def data_set_files(dataset: Dataset) -> dict[str, str]:
    """{path in the site: text} of the data set's downloads (devices and models), which the comparison page lists."""
    return {
        f"{FOLDER}/{JSON_FILE}": export_json(dataset) + "\n",
        f"{FOLDER}/{DEVICES_CSV}": devices_csv(dataset.devices),
        f"{FOLDER}/{MODELS_CSV}": models_csv(dataset.models),
    }


def download_files(dataset: Dataset, report: dict | None = None) -> dict[str, str]:
    """{path in the site: text} of every download: the data set's and the accuracy page's (``report``: the speed
    model's accuracy report, by default the committed one)."""
    return {**data_set_files(dataset),
            f"{FOLDER}/{ACCURACY_CSV}": accuracy_csv(report if report is not None else load_report())}


def file_size(text: str, lang: str) -> str:
    """Size of ``text`` in UTF-8 as kB (10³ bytes), localised: '13.9 kB' / '13,9 kB'."""
    return f"{l10n.format_number(len(text.encode('utf-8')) / 1000, lang, 1)}\u00a0kB"


def download_list(dataset: Dataset, lang: str, href) -> str:
    """A Markdown list linking every download with its size; ``href(path in site)`` makes the link
    relative to the page. Labels come from the ``download.*`` keys of the translation table."""
    files = data_set_files(dataset)
    items = []
    for key, name in (("json", JSON_FILE), ("devices_csv", DEVICES_CSV), ("models_csv", MODELS_CSV)):
        path = f"{FOLDER}/{name}"
        label = l10n.t(lang, f"download.{key}")
        items.append(f"- [{label}]({href(path)}) ({file_size(files[path], lang)})")
    note = l10n.t(
        lang, "download.note", version=SCHEMA_VERSION, devices=len(dataset.devices), models=len(dataset.models)
    )
    return "\n".join(items) + "\n\n" + note
