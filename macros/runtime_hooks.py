"""MkDocs hook: add the in-page Python runtime to the site.

Registered in ``mkdocs.yml`` under ``hooks:``. Adds Pyodide (copied from the
pinned npm package), the zip of the project's stdlib-only Python packages
(built from their source folders, never checked into ``docs/``) and the JSON
export of the data set. Only pages that include ``pyodide-client.mjs`` (the
calculators) ever load them; see ``atlas/webbundle.py``.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import Abort
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

from atlas import webbundle
from atlas.dataset import load_dataset


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
    except (OSError, KeyError, ValueError) as exc:
        raise Abort(f"Cannot add the in-page Python runtime to the site: {exc}") from None
    for dest, content in generated.items():
        if files.get_file_from_path(dest) is not None:
            continue
        if isinstance(content, Path):
            files.append(File.generated(config, dest, abs_src_path=str(content)))
        else:
            files.append(File.generated(config, dest, content=content))
    return files
