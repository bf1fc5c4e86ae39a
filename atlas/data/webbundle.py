"""The files the build adds to the site for the in-page Python runtime.

Pyodide itself is copied from ``node_modules/pyodide`` (pinned in
``package.json``). The project's own stdlib-only code, the folder ``atlas/core/``, is zipped
whole at build time, so no copy of them is
ever checked into ``docs/``; the worker unpacks the zip into Pyodide's file
system. Everything here is deterministic: the same sources give the same
bytes, so the version hash in the page changes only when the code does.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

from atlas.data import REPO_ROOT

# Files of the pinned npm package that the browser needs. The lock file is
# written trimmed (see ``pyodide_lock``), the rest is copied as it is.
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")
PYODIDE_DIR = "assets/vendor/pyodide"  # in the site
BUNDLE_PATH = "assets/python/atlas-python.zip"  # in the site
DATA_PATH = "assets/data/atlas-data.json"  # in the site

# What goes into the bundle from each package folder.
BUNDLED_SUFFIXES = (".py", ".json")
_FIXED_TIME = (2020, 1, 1, 0, 0, 0)


def bundle_files(root: Path = REPO_ROOT) -> list[Path]:
    """The files the browser bundle holds, in a stable order: ``atlas/__init__.py`` and every ``.py`` and
    ``.json`` file under ``atlas/core/`` — the core folder whole, no list of files to keep up to date.

    Raises ``FileNotFoundError`` if the core folder is missing, so a moved package stops the build.
    """
    core = root / "atlas" / "core"
    if not (core / "__init__.py").is_file():
        raise FileNotFoundError(f"the browser core is not at {core}")
    files = [
        p for p in core.rglob("*")
        if p.is_file() and p.suffix in BUNDLED_SUFFIXES and "__pycache__" not in p.parts
    ]
    return sorted([root / "atlas" / "__init__.py", *files])


def bundle_zip(root: Path = REPO_ROOT) -> bytes:
    """A zip of :func:`bundle_files` (paths relative to ``root``), byte-for-byte reproducible."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for path in bundle_files(root):
            info = zipfile.ZipInfo(path.relative_to(root).as_posix(), date_time=_FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, path.read_bytes())
    return buf.getvalue()


def version_of(content: bytes) -> str:
    """A short content hash, appended to URLs (``?v=…``) so browsers never mix old and new files."""
    return hashlib.sha256(content).hexdigest()[:12]


def pyodide_files(node_modules: Path = REPO_ROOT / "node_modules") -> list[tuple[Path, str]]:
    """(file in node_modules, path in the site) for each Pyodide runtime file."""
    return [(node_modules / "pyodide" / name, f"{PYODIDE_DIR}/{name}") for name in PYODIDE_FILES]


def pyodide_lock(node_modules: Path = REPO_ROOT / "node_modules") -> bytes:
    """Pyodide's ``pyodide-lock.json`` with its header only and no packages.

    ``loadPyodide`` reads the lock file and refuses one whose ABI header does
    not match the runtime; the site installs no package from the Pyodide
    distribution, so the 120 kB list of packages would be dead weight.
    """
    import json

    with open(node_modules / "pyodide" / "pyodide-lock.json", encoding="utf-8") as fh:
        info = json.load(fh)["info"]
    return json.dumps({"info": info, "packages": {}}, sort_keys=True).encode("utf-8")


def pyodide_version(node_modules: Path = REPO_ROOT / "node_modules") -> str:
    """The installed Pyodide npm package's version (e.g. ``314.0.8``)."""
    import json

    with open(node_modules / "pyodide" / "package.json", encoding="utf-8") as fh:
        return json.load(fh)["version"]


def site_bundle(root: Path = REPO_ROOT) -> tuple[bytes, str]:
    """The bundle the site ships (the folder ``atlas/core/`` whole, see :func:`bundle_files`) and its version hash."""
    content = bundle_zip(root)
    return content, version_of(content)


def site_data(dataset) -> tuple[bytes, str]:
    """The data export the browser reads (``atlas-data.json``) and its version hash."""
    from atlas.data.export import export_json

    content = export_json(dataset).encode("utf-8")
    return content, version_of(content)
