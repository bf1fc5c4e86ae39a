"""MkDocs hook: give every page the glossary's tooltips in its own language.

Appends the abbreviation definitions (``*[HBM]: …``) of the page's language,
built from ``atlas/core/l10n/<lang>/glossary.json`` by ``atlas.data.glossary``, to each
page's Markdown. The ``abbr`` extension turns each occurrence of a term into
``<abbr title="…">`` and Material's ``content.tooltips`` shows it on hover.
mkdocs-static-i18n builds each language with ``theme.language`` set to it.
"""

from __future__ import annotations

from atlas.data.glossary import abbreviation_markdown


def on_page_markdown(markdown, page, config, files, **kwargs):
    lang = config["theme"]["language"]
    return f"{markdown.rstrip()}\n\n{abbreviation_markdown(lang)}\n"
