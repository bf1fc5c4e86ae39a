"""MkDocs hook: add the in-page Python runtime to the site.

Registered in ``mkdocs.yml`` under ``hooks:``. Adds Pyodide (copied from the
pinned npm package), the zip of the project's stdlib-only Python packages
(built from their source folders, never checked into ``docs/``) and the JSON
export of the data set. Only pages that include ``pyodide-client.mjs`` (the
calculators) ever load them; see ``atlas/data/webbundle.py``.

It also writes the service worker ``sw.js`` at the site root (from
``docs/assets/javascripts/sw.js`` with a manifest of the runtime files and
their content hashes in front, see ``service_worker``) and, after the build,
a gzip copy beside each large runtime file (``precompress``) for servers that
send pre-compressed files (nginx ``gzip_static``, Apache, see README.md).

Pyodide's standard library is shipped trimmed to what the pages can import (``webbundle.pyodide_stdlib``);
the snapshot step proves it complete and stops the build when a module is missing.

And a memory snapshot of Pyodide with the project's packages imported and warmed
(``make_snapshot``: ``macros/make_snapshot.mjs`` run in Node), which the worker
restores instead of starting CPython (about ten times faster). Its name carries
its content hash and ``on_page_context`` adds it to each page's runtime
options; it is made again whenever Pyodide, the bundle, the data export or the
script change (cached in ``.cache/snapshot/`` by a hash of those inputs). When
Node or the script fails the build goes on without it and the pages start as
before.
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from mkdocs.exceptions import Abort
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

from atlas.core.calcview.page import ENTRY_POINT as CALCULATOR_ENTRY_POINT
from atlas.core.calcview.page import config_json
from atlas.core.kernelview.page import ENTRY_POINTS as KERNEL_ENTRY_POINTS
from atlas.data import REPO_ROOT, webbundle
from atlas.data.buildcache import disk_cached
from atlas.data.dataset import load_dataset_once

log = logging.getLogger("mkdocs.hooks.runtime")

SW_SOURCE = "assets/javascripts/sw.js"  # in docs/; served at the site root as SW_PATH
SW_PATH = "sw.js"
# Files compressed after the build: the runtime the calculator pages load, when at least this large.
PRECOMPRESS_MIN_BYTES = 1024

SNAPSHOT_SCRIPT = Path(__file__).with_name("make_snapshot.mjs")
# Ignored by git, like every build output. ATLAS_SNAPSHOT_CACHE moves it (say, for builds of throw-away copies
# of the repository that should share one cache: its entries are named by what went into them).
SNAPSHOT_CACHE = Path(os.environ.get("ATLAS_SNAPSHOT_CACHE") or REPO_ROOT / ".cache" / "snapshot")
SNAPSHOT_CACHE_KEEP = 4  # snapshots kept there (the newest), about 31 MB each
SNAPSHOT_TIMEOUT_S = 300
SNAPSHOT_GZIP_LEVEL = 6
# What the snapshot warms: every entry point a page with the runtime warms (the calculators, the kernel demos).
SNAPSHOT_WARM = (CALCULATOR_ENTRY_POINT, *KERNEL_ENTRY_POINTS.values())
# How make_snapshot.mjs reports a module missing from the trimmed standard library (it then exits with 3).
STDLIB_MISSING = "atlas-stdlib-missing:"
# Set ATLAS_SNAPSHOT=0 to build without a snapshot (the pages then start Pyodide from scratch).
SNAPSHOT_ENV = "ATLAS_SNAPSHOT"


def sw_manifest(contents: dict[str, bytes]) -> dict:
    """The service worker's manifest: each runtime file's path in the site and a hash of its content,
    and a version over all of them (it changes whenever one file does)."""
    files = {path: webbundle.version_of(content) for path, content in sorted(contents.items())}
    version = webbundle.version_of(json.dumps(files, sort_keys=True).encode("utf-8"))
    return {"version": version, "files": files}


def service_worker(source: str, manifest: dict) -> str:
    """The text of ``sw.js``: the manifest as one line in front of the worker's source."""
    return f"self.ATLAS_SW_MANIFEST = {json.dumps(manifest, sort_keys=True)};\n{source}"


def gzip_cached(raw: bytes) -> bytes:
    """``raw`` compressed at level 9 without name or time stamp. Pyodide's files are the same in every build:
    their gzip copies come from the build cache."""
    return disk_cached("gzip", f"{webbundle.version_of(raw)}-9.gz", lambda: gzip.compress(raw, compresslevel=9, mtime=0))


def warm_build_cache() -> None:
    """Make what every build of this checkout reads from the build cache and would otherwise make itself: the
    trimmed standard library and the gzip copies of Pyodide's files and of that library. ``make test`` runs it
    (``python -m macros.runtime_hooks``) beside its other set-up steps, so that the site builds its tests start
    side by side do not each make them (seconds of CPU apiece)."""
    for raw in [src.read_bytes() for src, _ in webbundle.pyodide_files()] + [webbundle.pyodide_stdlib()]:
        gzip_cached(raw)


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
        packed = gzip_cached(raw)
        if len(packed) <= 0.95 * len(raw):  # an already-compressed zip gains next to nothing
            path.with_name(path.name + ".gz").write_bytes(packed)
            written[rel] = (len(raw), len(packed))
    return written


def snapshot_name(content: bytes) -> str:
    """The snapshot's file name in the Pyodide folder of the site: its content hash in the name."""
    return f"atlas-snapshot-{webbundle.version_of(content)}.bin"


def snapshot_key(pyodide: dict[str, bytes], bundle: bytes, data: dict[str, bytes], warm, script: bytes,
                 node: str) -> str:
    """A hash of everything that goes into a snapshot: it names the cached copy, so a change to Pyodide,
    the bundle, the data export, the entry points warmed, the script or Node makes a new one."""
    parts = {
        "pyodide": {name: webbundle.version_of(content) for name, content in sorted(pyodide.items())},
        "bundle": webbundle.version_of(bundle),
        "data": {name: webbundle.version_of(content) for name, content in sorted(data.items())},
        "warm": list(warm),
        "script": webbundle.version_of(script),
        "node": node,
    }
    return webbundle.version_of(json.dumps(parts, sort_keys=True).encode("utf-8"))


def make_snapshot(pyodide_dir: Path, pyodide: dict[str, bytes], bundle: bytes, data: dict[str, bytes],
                  warm=SNAPSHOT_WARM, cache: Path = SNAPSHOT_CACHE, script: Path = SNAPSHOT_SCRIPT) -> bytes | None:
    """Pyodide's memory after it has done what the worker does before "ready" (bundle unpacked, pyweb
    imported, ``warm`` warmed), made by ``script`` in Node; None (with an INFO line) when Node is
    missing or the script fails, so the build goes on and the pages start without it. Python starts there on
    the trimmed standard library of ``pyodide`` (when it has one), and imports every module of it and of the
    bundle after the snapshot: a module missing from it raises Abort, since the pages would fail too."""
    if os.environ.get(SNAPSHOT_ENV, "1") == "0":
        log.info("No Pyodide memory snapshot: %s=0", SNAPSHOT_ENV)
        return None
    node = shutil.which("node")
    try:
        if node is None:
            raise OSError("node is not installed ('make setup' installs it)")
        version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=60, check=True)
        key = snapshot_key(pyodide, bundle, data, warm, script.read_bytes(), version.stdout.strip())
        cached = cache / f"{key}.bin"
        if cached.is_file():
            return cached.read_bytes()
        with tempfile.TemporaryDirectory(prefix="atlas-snapshot-") as tmp:
            tmp = Path(tmp)
            (tmp / "bundle.zip").write_bytes(bundle)
            stdlib = {}
            if webbundle.STDLIB_NAME in pyodide:  # the trimmed standard library the site ships, checked there
                (tmp / webbundle.STDLIB_NAME).write_bytes(pyodide[webbundle.STDLIB_NAME])
                stdlib = {"stdlib": str(tmp / webbundle.STDLIB_NAME),
                          "stdlib_full": webbundle.stdlib_module_names(pyodide_dir.parent)}
            files = {}
            for i, (name, content) in enumerate(sorted(data.items())):
                files[name] = str(tmp / f"data-{i}")
                (tmp / f"data-{i}").write_bytes(content)
            job = {"pyodide": str(pyodide_dir), "bundle": str(tmp / "bundle.zip"), "data": files,
                   "warm": list(warm), "out": str(tmp / "snapshot.bin"), **stdlib}
            (tmp / "job.json").write_text(json.dumps(job), encoding="utf-8")
            run = subprocess.run([node, str(script), str(tmp / "job.json")], capture_output=True, text=True,
                                 timeout=SNAPSHOT_TIMEOUT_S)
            if run.returncode != 0:
                output = f"{run.stdout}\n{run.stderr}"
                missing = [line for line in output.splitlines()
                           if line.startswith(STDLIB_MISSING) or "ModuleNotFoundError" in line]
                if stdlib and (run.returncode == 3 or missing):
                    raise Abort("The trimmed Python standard library (atlas/data/webbundle.py, STDLIB_ROOTS) lacks "
                                "a module the pages need: " + "; ".join(missing[:10]))
                raise RuntimeError((run.stderr or run.stdout).strip()[-400:])
            content = (tmp / "snapshot.bin").read_bytes()
        cache.mkdir(parents=True, exist_ok=True)
        cached.with_suffix(".tmp").write_bytes(content)
        cached.with_suffix(".tmp").replace(cached)
        _prune(cache, "*.bin")
        return content
    except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as exc:
        log.info("No Pyodide memory snapshot, the calculators start without one: %s", exc)
        return None


def _prune(cache: Path, pattern: str) -> None:
    """Keep the newest SNAPSHOT_CACHE_KEEP files matching ``pattern`` in ``cache``."""
    for old in sorted(cache.glob(pattern), key=lambda p: p.stat().st_mtime, reverse=True)[SNAPSHOT_CACHE_KEEP:]:
        old.unlink(missing_ok=True)


def snapshot_gzip(content: bytes, cache: Path = SNAPSHOT_CACHE) -> bytes:
    """The snapshot's gzip copy, cached by its content hash: compressing 31 MB takes seconds (level 9 took
    about 20 s on the 2-CPU machine for 1 % less than level 6), so a rebuild reuses it."""
    cached = cache / f"{webbundle.version_of(content)}.gz"
    if cached.is_file():
        return cached.read_bytes()
    packed = gzip.compress(content, compresslevel=SNAPSHOT_GZIP_LEVEL, mtime=0)
    try:
        cache.mkdir(parents=True, exist_ok=True)
        cached.with_suffix(".tmp").write_bytes(packed)
        cached.with_suffix(".tmp").replace(cached)
        _prune(cache, "*.gz")
    except OSError:
        pass
    return packed


@event_priority(-100)  # after mkdocs-static-i18n, which expects every file to exist on disk
def on_files(files, config, **kwargs):
    generated = {}
    try:
        for src, dest in webbundle.pyodide_files():
            if not src.is_file():
                raise FileNotFoundError(f"Missing {src}: run 'npm ci' (make serve and make test do it for you).")
            generated[dest] = src
        generated[f"{webbundle.PYODIDE_DIR}/pyodide-lock.json"] = webbundle.pyodide_lock()
        generated[f"{webbundle.PYODIDE_DIR}/{webbundle.STDLIB_NAME}"] = webbundle.pyodide_stdlib()
        generated[webbundle.BUNDLE_PATH] = webbundle.site_bundle()[0]
        generated[webbundle.DATA_PATH] = webbundle.site_data(load_dataset_once())[0]
        contents = {dest: (src.read_bytes() if isinstance(src, Path) else src) for dest, src in generated.items()}
        pyodide_dir = REPO_ROOT / "node_modules" / "pyodide"
        snapshot = make_snapshot(
            pyodide_dir,
            {dest.rsplit("/", 1)[1]: contents[dest] for dest in contents if dest.startswith(webbundle.PYODIDE_DIR)},
            contents[webbundle.BUNDLE_PATH],
            {webbundle.DATA_PATH.rsplit("/", 1)[1]: contents[webbundle.DATA_PATH]},
        )
        _STDLIB[:] = [webbundle.version_of(contents[f"{webbundle.PYODIDE_DIR}/{webbundle.STDLIB_NAME}"])]
        _SNAPSHOT[:] = []
        if snapshot is not None:
            name = snapshot_name(snapshot)
            generated[f"{webbundle.PYODIDE_DIR}/{name}"] = contents[f"{webbundle.PYODIDE_DIR}/{name}"] = snapshot
            _SNAPSHOT.append(name)
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
_SNAPSHOT: list[str] = []  # the snapshot's file name in the Pyodide folder, when the build made one
_STDLIB: list[str] = []  # the content hash of the trimmed python_stdlib.zip this build ships


def with_snapshot(runtime_json: str, name: str | None, stdlib: str | None = None) -> str:
    """A page's runtime options (``<meta name="atlas-runtime">``) naming the snapshot of this build and the
    version of its standard library. The stdlib keeps Pyodide's file name but changes with the core's imports, so
    the page asks for ``python_stdlib.zip?v=<hash>``: a service worker of an older build never answers that with
    its own copy (sw.js serves only the hash in its manifest)."""
    options = json.loads(runtime_json)
    for key, value in (("snapshot", name), ("stdlib", stdlib)):
        if value:
            options[key] = value
        else:
            options.pop(key, None)
    return config_json(options)


def on_page_context(context, page, config, **kwargs):
    # The macros (calculator_macros, kernel_demo_macros) declared the page's runtime; name the snapshot.
    if page.meta.get("atlas_runtime"):
        page.meta["atlas_runtime"] = with_snapshot(page.meta["atlas_runtime"], _SNAPSHOT[0] if _SNAPSHOT else None,
                                                   _STDLIB[0] if _STDLIB else None)
    return context


# Also compressed: Material's search index (one per language), which every page fetches (about 1.8 MB of JSON).
PRECOMPRESS_EXTRA = "search_index.json"


@event_priority(-107)  # after search_hooks.py (-105) has written one search index per language
def on_post_build(config, **kwargs):
    site_dir = Path(config["site_dir"])
    extra = [p.relative_to(site_dir).as_posix() for p in sorted(site_dir.rglob(PRECOMPRESS_EXTRA))]
    snapshot = f"{webbundle.PYODIDE_DIR}/{_SNAPSHOT[0]}" if _SNAPSHOT else None
    precompress(site_dir, [*(p for p in _RUNTIME_PATHS if p != snapshot), *extra])
    if snapshot and (site_dir / snapshot).is_file():
        path = site_dir / snapshot
        path.with_name(path.name + ".gz").write_bytes(snapshot_gzip(path.read_bytes()))


if __name__ == "__main__":
    warm_build_cache()
