"""MkDocs hook: add the in-page Python runtime to the site.

Registered in ``mkdocs.yml`` under ``hooks:``. Adds Pyodide (copied from the
pinned npm package), the zip of the project's stdlib-only Python packages
(built from their source folders, never checked into ``docs/``) and the JSON
export of the data set. Only pages that include ``pyodide-client.mjs`` (the
calculators) ever load them; see ``atlas/webbundle.py``.

It also writes the service worker ``sw.js`` at the site root (from
``docs/assets/javascripts/sw.js`` with a manifest of the runtime files and
their content hashes in front, see ``service_worker``) and, after the build,
a gzip copy beside each large runtime file (``precompress``) for servers that
send pre-compressed files (nginx ``gzip_static``, Apache, see README.md).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from mkdocs.exceptions import Abort
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

from atlas import REPO_ROOT, webbundle
from atlas.dataset import load_dataset

SW_SOURCE = "assets/javascripts/sw.js"  # in docs/; served at the site root as SW_PATH
SW_PATH = "sw.js"
# Files compressed after the build: the runtime the calculator pages load, when at least this large.
PRECOMPRESS_MIN_BYTES = 1024


def sw_manifest(contents: dict[str, bytes]) -> dict:
    """The service worker's manifest: each runtime file's path in the site and a hash of its content,
    and a version over all of them (it changes whenever one file does)."""
    files = {path: webbundle.version_of(content) for path, content in sorted(contents.items())}
    version = webbundle.version_of(json.dumps(files, sort_keys=True).encode("utf-8"))
    return {"version": version, "files": files}


def service_worker(source: str, manifest: dict) -> str:
    """The text of ``sw.js``: the manifest as one line in front of the worker's source."""
    return f"self.ATLAS_SW_MANIFEST = {json.dumps(manifest, sort_keys=True)};\n{source}"


def precompress(site_dir: Path, paths, min_bytes: int = PRECOMPRESS_MIN_BYTES) -> dict[str, tuple[int, int]]:
    """Write ``path.gz`` beside each file of ``paths`` (relative to ``site_dir``) that gzip makes at least 5 % smaller.

    Deterministic (no file name, no time stamp in the gzip header), so the same build gives the same
    bytes. Returns {path: (bytes, gzip bytes)} for the files written."""
    written = {}
    for rel in paths:
        path = Path(site_dir) / rel
        if not path.is_file() or path.stat().st_size < min_bytes:
            continue
        raw = path.read_bytes()
        packed = gzip.compress(raw, compresslevel=9, mtime=0)
        if len(packed) <= 0.95 * len(raw):  # an already-compressed zip gains next to nothing
            path.with_name(path.name + ".gz").write_bytes(packed)
            written[rel] = (len(raw), len(packed))
    return written


@event_priority(-100)  # after mkdocs-static-i18n, which expects every file to exist on disk
def on_files(files, config, **kwargs):
    generated = {}
    try:
        for src, dest in webbundle.pyodide_files():
            if not src.is_file():
                raise FileNotFoundError(f"Missing {src}: run 'npm ci' (make serve and make test do it for you).")
            generated[dest] = src
        generated[f"{webbundle.PYODIDE_DIR}/pyodide-lock.json"] = webbundle.pyodide_lock()
        generated[webbundle.BUNDLE_PATH] = webbundle.site_bundle()[0]
        generated[webbundle.DATA_PATH] = webbundle.site_data(load_dataset())[0]
        contents = {dest: (src.read_bytes() if isinstance(src, Path) else src) for dest, src in generated.items()}
        source = files.get_file_from_path(SW_SOURCE)
        sw_src = Path(source.abs_src_path) if source is not None else REPO_ROOT / "docs" / SW_SOURCE
        generated[SW_PATH] = service_worker(sw_src.read_text(encoding="utf-8"), sw_manifest(contents))
        if source is not None:
            files.remove(source)  # served at the root only: its scope must cover every page and de/
    except (OSError, KeyError, ValueError) as exc:
        raise Abort(f"Cannot add the in-page Python runtime to the site: {exc}") from None
    _RUNTIME_PATHS[:] = sorted(dest for dest in generated if dest != SW_PATH)
    for dest, content in generated.items():
        if files.get_file_from_path(dest) is not None:
            continue
        if isinstance(content, Path):
            files.append(File.generated(config, dest, abs_src_path=str(content)))
        else:
            files.append(File.generated(config, dest, content=content))
    return files


_RUNTIME_PATHS: list[str] = []  # set by on_files, read by on_post_build


# Also compressed: Material's search index (one per language), which every page fetches (about 1.8 MB of JSON).
PRECOMPRESS_EXTRA = "search_index.json"


@event_priority(-100)  # after the search plugin has written its index
def on_post_build(config, **kwargs):
    site_dir = Path(config["site_dir"])
    extra = [p.relative_to(site_dir).as_posix() for p in sorted(site_dir.rglob(PRECOMPRESS_EXTRA))]
    precompress(site_dir, [*_RUNTIME_PATHS, *extra])
