"""Build outputs kept on disk between builds, named by a hash of what went into them.

A site build makes some of its files the same way every time from inputs that rarely change: the gzip copies
of Pyodide's files, the trimmed standard library. Each is kept under ``.cache/`` (ignored by git, like every
build output) by the hash of its inputs, so the next build, a test's build of a throw-away copy or
``mkdocs serve`` reads it instead of making it again. ``ATLAS_BUILD_CACHE`` moves the folder (the tests point
the builds of their copies at the repository's)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from atlas.data import REPO_ROOT


def cache_dir() -> Path:
    """Where cached build outputs and exports live: ``$ATLAS_CACHE_DIR``, else ``.cache/atlas`` in the checkout."""
    return Path(os.environ.get("ATLAS_CACHE_DIR") or REPO_ROOT / ".cache" / "atlas")


def disk_cached(folder: str, key: str, make: Callable[[], bytes], keep: int = 32) -> bytes:
    """``make()``, kept as ``<cache>/<folder>/<key>``; the ``keep`` newest files of the folder stay.

    Written under a temporary name and renamed, so builds running side by side never read half a file."""
    path = cache_dir() / folder / key
    try:
        return path.read_bytes()
    except OSError:
        pass
    content = make()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        partial.write_bytes(content)
        partial.replace(path)
        kept = sorted((p for p in path.parent.iterdir() if not p.name.endswith(".tmp")),
                      key=lambda p: p.stat().st_mtime, reverse=True)
        for old in kept[keep:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass  # a cache that cannot be written costs time, not the build
    return content
