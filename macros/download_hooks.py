"""MkDocs hook: add the data set downloads (JSON, CSV) to the site.

Registered in ``mkdocs.yml`` under ``hooks:``. The files are generated from
the validated data set at build time (``atlas.data.downloads``), never checked
into ``docs/``, and land in ``downloads/`` of the site for both languages.
"""

from __future__ import annotations

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

from atlas.data.dataset import load_dataset_once
from atlas.data.downloads import download_files


@event_priority(-100)  # after mkdocs-static-i18n, which expects every file it sorts to exist on disk
def on_files(files, config, **kwargs):
    for dest, text in download_files(load_dataset_once()).items():
        if files.get_file_from_path(dest) is None:
            files.append(File.generated(config, dest, content=text))
    return files
