"""Macros for the data-set tables and single figures in prose."""

from __future__ import annotations

from html import escape

from atlas.core import l10n
from atlas.core.l10n import names
from atlas.data import tables
from atlas.data.safe import inline_text


def register(env, ctx):
    @env.macro
    def device_table(columns=tables.DEFAULT_COLUMNS, kind=None, ids=None, segment=None, sort=None,
                     groups=False, filterable=False):
        """Sortable comparison table; see atlas.data.tables.device_table."""
        return tables.device_table(
            ctx.dataset.devices, ctx.lang(), columns=columns, kind=kind, ids=ids, segment=segment, sort=sort,
            groups=groups, filterable=filterable,
        )

    @env.macro
    def device_filters(price=False):
        """The filters for the page's tables made with filterable=True; see atlas.data.tables.filter_form."""
        return tables.filter_form(ctx.dataset.devices, ctx.lang(), price=price)

    @env.macro
    def spec(device_id, field):
        """One figure of one device with its unit, e.g. spec('h100-sxm', 'bandwidth')."""
        return tables.spec(ctx.dataset.device(device_id), field, ctx.lang())

    @env.macro
    def device_name(device_id):
        """The device's full name as plain text in running Markdown (HTML and Markdown syntax escaped)."""
        return inline_text(names.device_name(ctx.dataset.device(device_id)["name"], ctx.lang()))

    @env.macro
    def label(key, **params):
        """A string from the translation table of the page's language."""
        return escape(l10n.t(ctx.lang(), key, **params))
