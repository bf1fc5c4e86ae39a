"""MkDocs hooks: refuse a broken data set before anything is written, and
add the vendored browser files from ``node_modules`` to the site.

Registered in ``mkdocs.yml`` under ``hooks:``. The data set is validated in
``on_config`` (before MkDocs cleans or writes ``site/``), so a bad data file
stops the build with one line per problem and leaves no partial site.
"""

from __future__ import annotations

from mkdocs.exceptions import Abort
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

from atlas.data import REPO_ROOT
from atlas.data.dataset import load_dataset_once
from atlas.data.errors import DataValidationError

NODE_MODULES = REPO_ROOT / "node_modules"

# (file in node_modules, path in the built site). Copied, never linked to a CDN.
VENDORED = [
    ("tablesort/dist/tablesort.min.js", "assets/vendor/tablesort/tablesort.min.js"),
    ("tablesort/src/sorts/tablesort.number.js", "assets/vendor/tablesort/tablesort.number.js"),
]


@event_priority(100)  # before every plugin, so no plugin works on bad data
def on_config(config, **kwargs):
    try:
        load_dataset_once()
    except DataValidationError as exc:
        raise Abort(f"Data validation failed; no site was written.\n{exc}") from None
    return config


def vendored_file(src_rel: str, dest_rel: str, config) -> File:
    src = NODE_MODULES / src_rel
    if not src.is_file():
        raise Abort(f"Missing {src}: run 'npm ci' (make serve and make test do it for you).")
    return File.generated(config, dest_rel, abs_src_path=str(src))


def on_files(files, config, **kwargs):
    for src_rel, dest_rel in VENDORED:
        if files.get_file_from_path(dest_rel) is None:
            files.append(vendored_file(src_rel, dest_rel, config))
    return files
