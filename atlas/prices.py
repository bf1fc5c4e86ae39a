"""A table of the dated device prices in the data set.

Prices age quickly and come in kinds that must not be compared blindly (a
launch MSRP, a vendor list price, a range reported by the press, an hourly
cloud rate), so this table shows each price with its kind, the month it
was stated and its source. Devices without a ``price`` block are left out.
"""

from __future__ import annotations

from html import escape

import l10n
from atlas.safe import http_url
from atlas.tables import format_figure

COLUMNS = ("col.name", "col.price_kind", "col.price_amount", "col.price_as_of", "col.sources")


def priced_devices(devices: dict) -> list[dict]:
    """Devices that state a price, by kind (purchase before cloud) and then by name."""
    rows = [d for d in devices.values() if d.get("price")]
    return sorted(rows, key=lambda d: (d["price"]["kind"] == "cloud-per-hour", d["name"]))


def amount_text(price: dict, lang: str) -> str:
    """'25,000–40,000' or '2.5' in the page's number format, without the unit."""
    if "usd_high" in price:
        return "–".join(format_figure(v, lang) for v in (price["usd"], price["usd_high"]))
    return format_figure(price["usd"], lang)


def source_link(source: dict) -> str:
    """The source's title, linked when its URL is http(s) (as validation demands; data that skipped it stays text)."""
    url = http_url(source["url"])
    title = escape(source["title"])
    return f'<a href="{escape(url)}" rel="noopener">{title}</a>' if url else f"<span>{title}</span>"


def price_table(devices: dict, lang: str) -> str:
    """HTML table of every priced device; a localized note when none is priced."""
    rows = priced_devices(devices)
    if not rows:
        return f'<p class="atlas-empty">{escape(l10n.t(lang, "prices.none"))}</p>'
    head = "".join(f'<th scope="col">{escape(l10n.t(lang, key))}</th>' for key in COLUMNS)
    body = []
    for device in rows:
        price = device["price"]
        unit = l10n.t(lang, "unit.usd_per_hour" if price["kind"] == "cloud-per-hour" else "unit.usd")
        source = device["sources"][price["source"]]
        note = f' title="{escape(price["note"])}"' if price.get("note") else ""
        body.append(
            f'<tr data-device="{escape(device["id"])}">'
            f'<th scope="row">{escape(device["name"])}</th>'
            f'<td{note}>{escape(l10n.t(lang, "price." + price["kind"]))}</td>'
            f'<td data-sort="{price["usd"]!r}">{escape(amount_text(price, lang))}\u00a0{escape(unit)}</td>'
            f'<td data-sort="{escape(price["as_of"])}">{escape(price["as_of"])}</td>'
            f"<td>{source_link(source)}</td>"
            "</tr>"
        )
    caption = escape(l10n.t(lang, "prices.caption"))
    return (
        '<table data-atlas-table="prices" data-sortable>'
        f"<caption>{caption}</caption>"
        f"<thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )
