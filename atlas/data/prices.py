"""A table of the dated device prices in the data set.

Prices age quickly and come in kinds that must not be compared blindly (a
launch MSRP, a vendor list price, a range reported by the press, an hourly
cloud rate), so this table shows, per device, its newest purchase price with
kind, month and source, and its on-demand cloud price as the median over the
newest price of each provider (the figure the speed calculator's cost uses,
``atlas.core.calculators.cost``), with the range and every provider's source. Devices
without a price are left out.
"""

from __future__ import annotations

from html import escape

from atlas.core import l10n
from atlas.core.calculators import cost
from atlas.core.l10n.names import device_name
from atlas.data.safe import http_url
from atlas.data.tables import format_figure

COLUMNS = ("col.name", "col.price_kind", "col.price_amount", "col.price_as_of", "col.sources")


def price_rows(prices_by_device: dict, devices: dict) -> list[tuple[dict, str, dict]]:
    """(device, "purchase" | "cloud", the newest purchase price | ``cost.cloud_median``): purchase rows by name,
    then cloud rows by name."""
    purchase, cloud = [], []
    for device_id, prices in prices_by_device.items():
        device = devices.get(device_id)
        if device is None:
            continue
        bought = cost.purchase_price(prices)
        if bought:
            purchase.append((device, "purchase", bought))
        median = cost.cloud_median(prices)
        if median:
            cloud.append((device, "cloud", median))
    by_name = lambda row: row[0]["name"]  # noqa: E731
    return sorted(purchase, key=by_name) + sorted(cloud, key=by_name)


def amount_text(price: dict, lang: str) -> str:
    """'25,000–40,000' or '2.5' in the page's number format, without the unit."""
    if price.get("usd_high"):
        return "–".join(format_figure(v, lang) for v in (price["usd"], price["usd_high"]))
    return format_figure(price["usd"], lang)


def source_link(title: str, url: str) -> str:
    """The source's title, linked when its URL is http(s) (as validation demands; data that skipped it stays text)."""
    safe = http_url(url)
    return f'<a href="{escape(safe)}" rel="noopener">{escape(title)}</a>' if safe else f"<span>{escape(title)}</span>"


def price_table(prices_by_device: dict, devices: dict, lang: str) -> str:
    """HTML table of every priced device (``atlas.data.price_lists.prices_by_device``); a localized note when none is."""
    rows = price_rows(prices_by_device, devices)
    if not rows:
        return f'<p class="atlas-empty">{escape(l10n.t(lang, "prices.none"))}</p>'
    head = "".join(f'<th scope="col">{escape(l10n.t(lang, key))}</th>' for key in COLUMNS)
    body = []
    for device, basis, shown in rows:
        if basis == "purchase":
            price = shown
            unit = l10n.t(lang, "unit.usd")
            kind, sort_value, as_of = l10n.t(lang, "price." + price["kind"]), price["usd"], price["as_of"]
            amount = f"{escape(amount_text(price, lang))}\u00a0{escape(unit)}"
            sources = source_link(price["source_title"], price["source_url"])
        else:
            unit = l10n.t(lang, "unit.usd_per_hour")
            kind, sort_value, as_of = l10n.t(lang, "price.cloud-per-hour"), shown["usd"], shown["as_of"]
            amount = f"{escape(format_figure(shown['usd'], lang))}\u00a0{escape(unit)}"
            if shown["providers"] > 1:
                amount += " " + escape(l10n.t(lang, "prices.cloud_median", count=shown["providers"],
                                              low=format_figure(shown["low"], lang),
                                              high=format_figure(shown["high"], lang)))
            sources = ", ".join(source_link(p.get("provider") or p["source_title"], p["source_url"])
                                for p in shown["prices"])
        body.append(
            f'<tr data-device="{escape(device["id"])}" data-basis="{basis}">'
            f'<th scope="row">{escape(device_name(device["name"], lang))}</th>'
            f"<td>{escape(kind)}</td>"
            f'<td data-sort="{sort_value!r}">{amount}</td>'
            f'<td data-sort="{escape(as_of)}">{escape(l10n.format_month(as_of, lang))}</td>'
            f"<td>{sources}</td>"
            "</tr>"
        )
    caption = escape(l10n.t(lang, "prices.caption"))
    return (
        '<table data-atlas-table="prices" data-sortable>'
        f"<caption>{caption}</caption>"
        f"<thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )
