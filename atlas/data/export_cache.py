"""The validated export, kept on disk and keyed by the content it was made from.

Validating the whole data set takes about a second; a command-line answer should take a
fraction of that. ``cached_export_json`` validates once and keeps the export's JSON text in
``.cache/atlas/`` (or ``$ATLAS_CACHE_DIR``), named by a SHA-256 of everything the export depends
on: every file under ``data/`` (schemas included), the source of the ``atlas.data`` package that
validates and exports it, and today's date (some checks compare dates with today). Any edit to
the data or to the checks gives another key, so a cached export is always one that passed
validation for exactly these files. Where the cache folder cannot be written, the export is
made and returned all the same.
"""

from __future__ import annotations

import datetime
import hashlib
import os
from pathlib import Path

from atlas.data import REPO_ROOT
from atlas.data.buildcache import cache_dir

PACKAGE_DIR = Path(__file__).resolve().parent
DATA_DIR = REPO_ROOT / "data"  # as atlas.data.dataset.DATA_DIR, which is imported only on a cache miss (jsonschema is slow to import)


def content_key(data_dir: Path | str = DATA_DIR, today: datetime.date | None = None) -> str:
    """SHA-256 (hex) over the data files, the ``atlas.data`` sources and ``today``: the export's identity."""
    data_dir = Path(data_dir)
    digest = hashlib.sha256((today or datetime.date.today()).isoformat().encode())
    for folder, pattern in ((data_dir, "*"), (PACKAGE_DIR, "*.py")):
        for path in sorted(p for p in folder.rglob(pattern) if p.is_file()):
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def cached_export_json(data_dir: Path | str = DATA_DIR, today: datetime.date | None = None) -> str:
    """The export's JSON text (``atlas.data.export.export_json``) of the validated data set under ``data_dir``.

    Raises ``DataValidationError`` like ``load_dataset`` when the data are invalid (nothing is cached then).
    """
    path = cache_dir() / f"export-{content_key(data_dir, today)}.json"
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        pass
    from atlas.data.dataset import load_dataset
    from atlas.data.export import export_json

    text = export_json(load_dataset(data_dir, today=today))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)  # atomic: a reader never sees half a file
        for old in path.parent.glob("export-*.json"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError:
        pass
    return text
