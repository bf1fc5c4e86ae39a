"""mkdocs-macros module: a thin layer that exposes ``atlas`` to the pages.

Pages opt in with ``render_macros: true`` in their front matter (so Jinja
never touches code blocks elsewhere). Every macro takes plain arguments,
reads the page's language from the theme and returns HTML built by tested
functions in ``atlas``.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import l10n  # noqa: E402
from atlas import tables  # noqa: E402
from atlas.dataset import load_dataset  # noqa: E402


def define_env(env):
    dataset = load_dataset()

    def lang() -> str:
        return env.conf["theme"]["language"]

    @env.macro
    def device_table(columns=tables.DEFAULT_COLUMNS, kind=None, ids=None, segment=None, sort=None):
        """Sortable comparison table; see atlas.tables.device_table."""
        return tables.device_table(dataset.devices, lang(), columns=columns, kind=kind, ids=ids, segment=segment, sort=sort)

    @env.macro
    def spec(device_id, field):
        """One figure of one device with its unit, e.g. spec('h100-sxm', 'bandwidth')."""
        return tables.spec(dataset.device(device_id), field, lang())

    @env.macro
    def device_name(device_id):
        """The device's full name, escaped."""
        from html import escape

        return escape(dataset.device(device_id)["name"])

    @env.macro
    def label(key, **params):
        """A string from the translation table of the page's language."""
        from html import escape

        return escape(l10n.t(lang(), key, **params))
