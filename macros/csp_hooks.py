"""MkDocs hook: the Content-Security-Policy on every page and in ``_headers``.

Registered in ``mkdocs.yml`` under ``hooks:``. Each page (and the 404 page)
gets a ``<meta http-equiv="Content-Security-Policy">`` with the hashes of its
own inline scripts; after both languages are built, ``_headers`` (read by
Netlify and Cloudflare Pages) gets the policy with the hashes of all pages.
The policy itself is in ``atlas/data/csp.py``.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.plugins import event_priority

from atlas.data import csp


@event_priority(-110)  # last: after every plugin that changes the page
def on_post_page(output, page, config, **kwargs):
    return csp.with_meta_policy(output)


@event_priority(-110)
def on_post_template(output_content, template_name, config, **kwargs):
    if template_name.endswith(".html"):
        return csp.with_meta_policy(output_content)
    return output_content


@event_priority(-110)  # after mkdocs-static-i18n (-100) has built the other languages into site_dir
def on_post_build(config, **kwargs):
    site_dir = Path(config["site_dir"])
    (site_dir / "_headers").write_text(csp.headers_file(site_dir), encoding="utf-8")
