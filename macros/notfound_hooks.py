"""MkDocs hook: one 404 page per language.

mkdocs-static-i18n builds each language into the same ``site_dir`` and every
build writes ``404.html`` at its root, so the last language built (German)
replaced the English page there. This hook keeps the default language's page
at ``/404.html`` (what GitHub Pages serves for any missing path) and writes
each other language's page to ``/<lang>/404.html``.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.plugins import event_priority

from atlas.core.l10n import DEFAULT_LANGUAGE


@event_priority(-120)  # after csp_hooks.py (-110) has put the policy into the page
def on_post_template(output_content, template_name, config, **kwargs):
    lang = config["theme"]["language"]
    if template_name != "404.html" or lang == DEFAULT_LANGUAGE:
        return output_content
    site_dir = Path(config["site_dir"])
    (site_dir / lang).mkdir(parents=True, exist_ok=True)
    (site_dir / lang / "404.html").write_text(output_content, encoding="utf-8")
    default_page = site_dir / "404.html"
    return default_page.read_text(encoding="utf-8") if default_page.is_file() else output_content


def on_env(env, config, files, **kwargs):
    """Templates translate with the site's tables: ``{{ atlas_t(config.theme.language, "notfound.title") }}``."""
    from atlas.core import l10n

    env.globals["atlas_t"] = l10n.t
    return env
