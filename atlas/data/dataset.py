"""Load and validate the data set under ``data/``.

The data set is a set of *collections*: each is a folder of YAML files, one
entry per file, with a JSON Schema and a function for the checks a schema
cannot express. ``load_dataset`` reads them all, collects every error (not
just the first) and either returns the entries or raises
``DataValidationError`` whose lines each name file, line, entry and field.
"""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from atlas.data import REPO_ROOT
from atlas.data.checks.common import text_problems
from atlas.data.checks.devices import device_problems, runtime_name_key
from atlas.data.checks.host_memory import host_memory_problems
from atlas.data.checks.inference import inference_problems, inference_references
from atlas.data.checks.measurements import measurement_problems, measurement_references
from atlas.data.checks.models import model_problems
from atlas.data.checks.prices import price_problems, price_references
from atlas.data.errors import DataError, DataValidationError, dotted
from atlas.data.schema import schema_problems
from atlas.data.yamlfile import YamlSyntaxError, read_yaml

_ID_LINE = re.compile(r"^id:\s*['\"]?([a-z0-9][a-z0-9.-]*)")
_KEY_LINE = re.compile(r"^\s*(?:-\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*:")

DATA_DIR = REPO_ROOT / "data"


# KV-cache quality metrics compared with a 16-bit cache's value (the others are measured against that cache).
KV_METRICS_WITH_BASELINE = ("perplexity", "humaneval_pass1_percent")


def kv_quality_problems(data: dict, today: datetime.date) -> list:
    """A perplexity or benchmark score needs the 16-bit cache's value beside it; a divergence or agreement
    measured against that cache has none."""
    problems = []
    for index, row in enumerate(data.get("measurements", [])):
        with_baseline = row["metric"] in KV_METRICS_WITH_BASELINE
        if with_baseline and "baseline" not in row:
            problems.append((("measurements", index, "metric"),
                             f"{row['metric']} needs 'baseline', the value with the 16-bit cache"))
        if not with_baseline and "baseline" in row:
            problems.append((("measurements", index, "baseline"),
                             f"{row['metric']} is measured against the 16-bit cache; remove 'baseline'"))
    return problems


@dataclass(frozen=True)
class Collection:
    """A folder of one-entry YAML files sharing a schema."""

    name: str  # "devices"
    entry_kind: str  # "device", used in error messages
    folder: str  # relative to data/
    schema: str  # file name in data/schema/
    checks: Callable[[dict, datetime.date], list] | None = None
    id_matches_filename: bool = True


def identical_figures(dataset: Dataset) -> list[DataError]:
    """Two devices with the same memory, compute, link and power figures: usually a copied file not yet edited.
    A variant that differs only in its link or its power rating (the A800, an A100 with NVLink cut to 400 GB/s) is
    a device of its own."""
    seen, errors = {}, []
    for device_id, device in dataset.devices.items():
        memory = {k: device["memory"][k] for k in ("capacity_gib", "bandwidth_gb_s")}
        compute = sorted((e["precision"], e["unit"], e["sparsity"], e["tflops"]) for e in device["compute"])
        link = (device.get("interconnect") or {}).get("bandwidth_gb_s")
        tdp = (device.get("power") or {}).get("tdp_w")
        key = repr((memory, compute, link, tdp))
        if key in seen:
            errors.append(
                dataset.error(
                    "devices",
                    device_id,
                    ("memory",),
                    f"memory, compute, link and power figures are identical to '{seen[key]}'; replace the copied figures "
                    "with this device's own",
                )
            )
        else:
            seen[key] = device_id
    return errors


def shared_runtime_names(dataset: Dataset) -> list[DataError]:
    """A runtime name listed by two devices: the kernel demos could not tell which one they run on."""
    owner, errors = {}, []
    for device_id, device in dataset.devices.items():
        for index, name in enumerate(device.get("runtime_names", [])):
            key = runtime_name_key(name)
            if key in owner and owner[key] != device_id:
                errors.append(
                    dataset.error(
                        "devices",
                        device_id,
                        ("runtime_names", index),
                        f"runtime name {name!r} is already listed by '{owner[key]}'; a name may identify one "
                        "device only",
                    )
                )
            owner.setdefault(key, device_id)
    return errors


# Checks that look at several entries at once; each returns a list of DataError.
# They run only when every entry is valid on its own.
CROSS_CHECKS: list[Callable[[Dataset], list[DataError]]] = [
    identical_figures,
    shared_runtime_names,
    measurement_references,
    inference_references,
    price_references,
]

COLLECTIONS: tuple[Collection, ...] = (
    Collection("devices", "device", "hardware", "device.schema.json", device_problems),
    Collection("models", "model", "models", "model.schema.json", model_problems),
    Collection("measurements", "measurement", "measurements", "measurement.schema.json", measurement_problems),
    Collection("inference", "inference measurements", "inference", "inference.schema.json", inference_problems),
    Collection("host_memory", "host memory", "host-memory", "host-memory.schema.json", host_memory_problems),
    Collection("prices", "price list", "prices", "price.schema.json", price_problems),
    Collection("kv_quality", "KV-cache quality source", "kv-quality", "kv-quality.schema.json", kv_quality_problems),
)


@dataclass
class Dataset:
    """Validated entries by collection name, then by id, in id order."""

    entries: dict = field(default_factory=dict)  # {"devices": {id: dict}}
    files: dict = field(default_factory=dict)  # {"devices": {id: relative path}}
    docs: dict = field(default_factory=dict)  # {"devices": {id: YamlDocument}} for line numbers
    kinds: dict = field(default_factory=dict)  # {"devices": "device"}

    def error(self, collection: str, entry_id: str, path: tuple, message: str) -> DataError:
        """A DataError pointing at ``path`` inside entry ``entry_id`` of ``collection``."""
        doc = self.docs[collection][entry_id]
        return DataError(
            self.files[collection][entry_id],
            doc.line_of(path),
            entry_id,
            dotted(path) or None,
            message,
            self.kinds[collection],
        )

    @property
    def devices(self) -> dict:
        return self.entries.get("devices", {})

    @property
    def models(self) -> dict:
        return self.entries.get("models", {})

    @property
    def measurements(self) -> dict:
        return self.entries.get("measurements", {})

    @property
    def inference(self) -> dict:
        """Published inference measurements, one entry per source file (``data/inference/``)."""
        return self.entries.get("inference", {})

    @property
    def host_memory(self) -> dict:
        """Host-memory platforms (data/host-memory/): system memory of CPU platforms, by id."""
        return self.entries.get("host_memory", {})

    @property
    def prices(self) -> dict:
        """Dated price lists, one entry per list or announcement (``data/prices/``)."""
        return self.entries.get("prices", {})

    @property
    def kv_quality(self) -> dict:
        """Measured quality changes of quantised KV caches, one entry per source (``data/kv-quality/``)."""
        return self.entries.get("kv_quality", {})

    def device(self, device_id: str) -> dict:
        try:
            return self.devices[device_id]
        except KeyError:
            raise KeyError(f"unknown device id {device_id!r}") from None


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _guess_location(path: Path, line: int) -> tuple[str | None, str | None]:
    """For a file that does not parse: its id and the key on ``line``, read from the raw text."""
    try:
        text = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None, None
    entry = next((m.group(1) for t in text if (m := _ID_LINE.match(t))), None)
    key = None
    if 0 < line <= len(text) and (m := _KEY_LINE.match(text[line - 1])):
        key = m.group(1)
    return entry, key


def load_collection(collection: Collection, data_dir: Path, root: Path, today: datetime.date):
    """Entries {id: data}, files {id: path}, documents {id: YamlDocument} and errors of one collection."""
    entries, files, docs, errors = {}, {}, {}, []
    first_line = {}
    folder = data_dir / collection.folder
    paths = sorted(p for p in folder.rglob("*") if p.suffix in (".yaml", ".yml")) if folder.is_dir() else []
    for path in paths:
        rel = _relative(path, root)

        def err(line, entry, fld, message, rel=rel):
            errors.append(DataError(rel, line, entry, fld, message, collection.entry_kind))

        try:
            doc = read_yaml(path)
        except YamlSyntaxError as exc:
            entry, key = _guess_location(path, exc.line)
            err(exc.line, entry, key, exc.message)
            continue
        data = doc.data
        if not isinstance(data, dict):
            err(1, None, None, f"expected one {collection.entry_kind} as a mapping of keys to values")
            continue
        entry_id = data.get("id") if isinstance(data.get("id"), str) else None
        for path_, line in doc.duplicate_keys:
            err(line, entry_id, dotted(path_), "key appears twice; YAML keeps only the last one")
        problems = schema_problems(data, collection.schema)
        problems += text_problems(data)
        if not problems and collection.checks:
            problems += collection.checks(data, today)
        for p, message in problems:
            err(doc.line_of(p), entry_id, dotted(p) or None, message)
        if entry_id is None:
            continue
        if collection.id_matches_filename and path.stem != entry_id:
            err(doc.line_of(("id",)), entry_id, "id", f"must match the file name '{path.stem}'")
        if entry_id in files:
            err(
                doc.line_of(("id",)),
                entry_id,
                "id",
                f"duplicate id; already used in {files[entry_id]}:{first_line[entry_id]}",
            )
            continue
        files[entry_id] = rel
        docs[entry_id] = doc
        first_line[entry_id] = doc.line_of(("id",))
        entries[entry_id] = data
    return dict(sorted(entries.items())), files, docs, errors


def load_dataset(
    data_dir: Path | str = DATA_DIR,
    root: Path | str | None = None,
    collections: tuple[Collection, ...] = COLLECTIONS,
    today: datetime.date | None = None,
) -> Dataset:
    """Load every collection under ``data_dir``; raise ``DataValidationError`` on any error."""
    data_dir = Path(data_dir)
    root = Path(root) if root else (REPO_ROOT if data_dir.resolve().is_relative_to(REPO_ROOT) else data_dir.parent)
    today = today or datetime.date.today()
    dataset, errors = Dataset(), []
    for collection in collections:
        entries, files, docs, errs = load_collection(collection, data_dir, root, today)
        dataset.entries[collection.name] = entries
        dataset.files[collection.name] = files
        dataset.docs[collection.name] = docs
        dataset.kinds[collection.name] = collection.entry_kind
        errors += errs
    if not errors:  # checks across entries and collections need every entry to be valid on its own
        for check in CROSS_CHECKS:
            errors += check(dataset)
    if errors:
        raise DataValidationError(errors)
    return dataset


def files_fingerprint(data_dir: Path | str = DATA_DIR) -> tuple:
    """Every file under ``data_dir`` with its size and modification time: changes when any file does."""
    found = []
    stack = [str(data_dir)]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir():
                    stack.append(entry.path)
                elif entry.is_file():
                    stat = entry.stat()
                    found.append((entry.path, stat.st_size, stat.st_mtime_ns))
    return tuple(sorted(found))


_ONCE: dict = {}  # the last data set load_dataset_once gave, under its key


def load_dataset_once(data_dir: Path | str = DATA_DIR) -> Dataset:
    """``load_dataset``, kept while no file under ``data_dir`` changes (and for the day).

    A site build asks for the data set in several hooks and the macros, once per language (eight loads of
    about seven seconds of CPU each); this gives them one, and ``mkdocs serve`` a fresh one after an edit.
    The data set is shared: callers read it and never change it. A load that fails is not kept."""
    key = (str(Path(data_dir).resolve()), files_fingerprint(data_dir), datetime.date.today())
    if _ONCE.get("key") != key:
        _ONCE.clear()
        _ONCE["dataset"] = load_dataset(data_dir)
        _ONCE["key"] = key
    return _ONCE["dataset"]
