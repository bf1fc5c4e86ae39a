"""Macro for the download links on the comparison page."""

from __future__ import annotations

import posixpath

from atlas.data.downloads import download_list


def register(env, ctx):
    @env.macro
    def download_links():
        """Markdown list of the data set downloads (JSON, CSV) with their schema version, in the page's language."""
        here = posixpath.dirname(env.page.file.src_uri) or "."
        return download_list(ctx.dataset, ctx.lang(), lambda path: posixpath.relpath(path, here))
