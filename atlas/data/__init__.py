"""Data loading and validation, export, the speed-model fit and the site's build-time tables.

``REPO_ROOT`` is the repository checkout (``data/``, ``docs/``, ``node_modules/`` live there); the project is
installed in editable mode, so it is the folder two above this package (``atlas/data/``).
"""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
