"""MkDocs hook: one search index per language.

mkdocs-static-i18n builds the languages one after the other into the same
``site_dir`` and then writes one search index with the pages of all of them
to ``/search/search_index.json``, the index Material's search fetches on
every page: a reader searching "H100" on an English page got the German
pages as well, as many as the English ones, and the other way round.

This hook splits that index by language. ``/search/search_index.json`` keeps
the default language's pages, ``/<lang>/search/search_index.json`` each other
language's, with their locations relative to ``/<lang>/`` and that language's
stemmer only. Each page of another language tells Material's script that its
site starts at ``/<lang>/`` (the ``base`` in ``<script id="__config">``), so
its search fetches that language's index and opens the results there.
Material reads this base for nothing else the site uses (no instant
navigation, no version selector); the stored preferences such as the colour
scheme keep the site root as their scope (``__md_scope`` is set from the
template's ``base_url``, not from this JSON).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mkdocs.plugins import event_priority

from atlas.core.l10n import DEFAULT_LANGUAGE, LANGUAGES

SEARCH_INDEX = "search/search_index.json"

_CONFIG_SCRIPT = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.S)


def location_language(location: str) -> str:
    """The language of a search entry from its location ("de/compare/#fp8" is German, "compare/" English)."""
    first = location.split("/", 1)[0]
    return first if first in LANGUAGES and first != DEFAULT_LANGUAGE else DEFAULT_LANGUAGE


def split_search_index(index: dict) -> dict[str, dict]:
    """One index per language from the combined one: each keeps its own entries (their locations relative to
    that language's folder) and the configuration (separator, pipeline), with only its own stemmer."""
    docs_by_language: dict[str, list] = {lang: [] for lang in LANGUAGES}
    for doc in index["docs"]:
        lang = location_language(doc["location"])
        if lang != DEFAULT_LANGUAGE:
            doc = {**doc, "location": doc["location"][len(lang) + 1:]}
        docs_by_language[lang].append(doc)
    return {lang: {**index, "config": {**index["config"], "lang": [lang]}, "docs": docs}
            for lang, docs in docs_by_language.items()}


def with_search_base(html: str, lang: str) -> str:
    """A page of ``lang`` whose Material configuration starts the site at its language's folder: its search
    fetches ``<lang>/search/search_index.json`` and opens the results relative to ``<lang>/``."""
    if lang == DEFAULT_LANGUAGE:
        return html

    def rebase(match: re.Match) -> str:
        config = json.loads(match.group(2))
        config["base"] = f"{config['base'].rstrip('/')}/{lang}/"  # a folder: "search/…" resolves inside it
        return match.group(1) + json.dumps(config, separators=(",", ":")) + match.group(3)

    return _CONFIG_SCRIPT.sub(rebase, html, count=1)


def on_post_page(output, page, config, **kwargs):
    return with_search_base(output, config["theme"]["language"])


def on_post_template(output_content, template_name, config, **kwargs):
    if template_name == "404.html":  # notfound_hooks.py (-120) then puts it at /<lang>/404.html
        return with_search_base(output_content, config["theme"]["language"])
    return output_content


# After mkdocs-static-i18n (-100) has written the combined index, before runtime_hooks.py (-107) compresses it.
@event_priority(-105)

def on_post_build(config, **kwargs):
    site_dir = Path(config["site_dir"])
    combined = site_dir / SEARCH_INDEX
    if not combined.is_file():
        return
    indexes = split_search_index(json.loads(combined.read_text(encoding="utf-8")))
    for lang, index in indexes.items():
        path = combined if lang == DEFAULT_LANGUAGE else site_dir / lang / SEARCH_INDEX
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
