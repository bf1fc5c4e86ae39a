"""Build the site from a data set full of hostile strings that skipped validation.

``python tests/hostile_build.py SITE_DIR``: loads the real data set, puts a
hostile string into every free-text field and a ``javascript:``/``data:`` URL
into every source (``hostile.mixed_hostile_dataset``), makes every part of the
build (hooks, macros, downloads, the calculators' data) read that data set
instead, and runs ``mkdocs build --strict``. Used by ``test_injection_site.py``.
"""

from __future__ import annotations

import sys

import atlas.data.dataset  # the project is installed (make setup); run as a script, tests/ is first on sys.path
from hostile import mixed_hostile_dataset

HOSTILE = mixed_hostile_dataset(atlas.data.dataset.load_dataset())
atlas.data.dataset.load_dataset = lambda *args, **kwargs: HOSTILE  # what every hook and macro module imports

if __name__ == "__main__":
    from mkdocs.__main__ import cli

    sys.argv = ["mkdocs", "build", "--strict", "--site-dir", sys.argv[1]]
    cli()
