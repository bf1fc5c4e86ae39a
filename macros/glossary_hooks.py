"""MkDocs hook: give every page the glossary's tooltips in its own language.

Appends the abbreviation definitions (``*[HBM]: …``) of the page's language,
built from ``l10n/<lang>/glossary.json`` by ``atlas.glossary``, to each
page's Markdown. The ``abbr`` extension turns each occurrence of a term into
``<abbr title="…">`` and Material's ``content.tooltips`` shows it on hover.
mkdocs-static-i18n builds each language with ``theme.language`` set to it.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from atlas.glossary import abbreviation_markdown  # noqa: E402


def on_page_markdown(markdown, page, config, files, **kwargs):
    lang = config["theme"]["language"]
    return f"{markdown.rstrip()}\n\n{abbreviation_markdown(lang)}\n"
