"""HTML comparison tables and single figures for the pages.

Every string from the data set is HTML-escaped here; numbers are formatted
for the page's language by ``atlas.core.l10n.format_number``; each cell carries its raw
value in ``data-sort`` so the in-browser sorter orders numbers, not text.
"""

from __future__ import annotations

from html import escape

from atlas.core import l10n
from atlas.core.calculators.fields import NUMERIC_FIELDS, ComputeField, field_value, parse_field
from atlas.core.l10n.names import device_name
from atlas.data.frame import select_devices
from atlas.data.safe import http_url, inline_text

DEFAULT_COLUMNS = ("name", "vendor", "launch_year", "memory", "bandwidth", "bf16.matrix.dense", "tdp", "sources")

# Fields whose value is a label key prefix (kind -> "kind.gpu").
_ENUM_FIELDS = {"kind", "segment", "availability"}


def format_figure(value: float, lang: str) -> str:
    """Device figures: three significant digits below 1 (0.215 GiB of on-chip SRAM),
    up to one decimal below 10,000, whole numbers above (1,978.9 stays exact)."""
    if value and abs(value) < 1:
        return l10n.format_significant(value, lang, 3)
    return l10n.format_number(value, lang, 1 if abs(value) < 10_000 else 0)


def field_label(name: str, lang: str) -> str:
    """Localised name of field ``name`` for running text, without its unit: 'BF16 (matrix unit, dense)',
    'Memory bandwidth'."""
    field = parse_field(name)
    if isinstance(field, ComputeField):
        unit = l10n.t(lang, f"unit_kind.{field.unit}")
        return f"{l10n.t(lang, f'precision.{field.precision}')} ({unit}, {l10n.t(lang, f'sparsity.{field.sparsity}')})"
    return l10n.t(lang, f"col.{field}")


def column_header(name: str, lang: str) -> str:
    """Localised header text of column ``name``, with its unit."""
    field = parse_field(name)
    if isinstance(field, ComputeField):
        title = l10n.t(
            lang,
            "col.compute",
            precision=l10n.t(lang, f"precision.{field.precision}"),
            unit=l10n.t(lang, f"unit_kind.{field.unit}"),
            sparsity=l10n.t(lang, f"sparsity.{field.sparsity}"),
        )
        return f"{title} ({l10n.t(lang, field.unit_label)})"
    title = l10n.t(lang, f"col.{field}")
    if field in NUMERIC_FIELDS:
        title += f" ({l10n.t(lang, NUMERIC_FIELDS[field])})"
    return title


def _sources_cell(device: dict, lang: str) -> str:
    links = []
    for i, source in enumerate(device["sources"].values(), start=1):
        url = http_url(source["url"])
        if url is None:  # only http(s) becomes a link, even for data that skipped validation
            links.append(f'<span title="{escape(source["title"])}">[{i}]</span>')
        else:
            links.append(f'<a href="{escape(url)}" title="{escape(source["title"])}" rel="noopener">[{i}]</a>')
    return " ".join(links)


def _source_title(device: dict, value, lang: str) -> str:
    source = device["sources"].get(value.source) if value.source else None
    if not source:
        return ""
    return f' title="{escape(l10n.t(lang, "spec.source_title", title=source["title"]))}"'


def cell(device: dict, name: str, lang: str) -> str:
    """One ``<td>`` for ``device`` and column ``name``."""
    if name == "sources":
        return f"<td>{_sources_cell(device, lang)}</td>"
    value = field_value(device, name)
    if value is None:
        dash = escape(l10n.t(lang, "table.not_stated"))
        title = escape(l10n.t(lang, "table.not_stated_title"))
        return f'<td data-sort="-1" title="{title}">{dash}</td>'
    raw = value.value
    if name in _ENUM_FIELDS:
        return f"<td>{escape(l10n.t(lang, f'{name}.{raw}'))}</td>"
    if name == "software":
        return f"<td>{escape(', '.join(raw))}</td>"
    if name == "launch_year":
        return f'<td data-sort="{raw}">{raw}</td>'
    if isinstance(raw, tuple):  # a price range
        text = "–".join(format_figure(v, lang) for v in raw)
        return f'<td data-sort="{raw[0]!r}"{_source_title(device, value, lang)}>{text}</td>'
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        text = format_figure(raw, lang)
        return f'<td data-sort="{raw!r}"{_source_title(device, value, lang)}>{text}</td>'
    return f"<td>{escape(str(raw))}</td>"


def name_cell(device: dict, lang: str = "en") -> str:
    """The row header: the short name (tables stay narrow), the full product name as its tooltip; both in ``lang``
    (German translates the descriptive words, see ``atlas.core.l10n.names``)."""
    full = device_name(device["name"], lang)
    short = device.get("short_name")
    if not short or short == device["name"]:
        return f'<th scope="row">{escape(full)}</th>'
    return f'<th scope="row" title="{escape(full)}">{escape(device_name(short, lang))}</th>'


# Column groups of the header row above the column names, in the order a table usually lists them.
_GROUP_OF = {
    "name": "device", "vendor": "device", "kind": "device", "segment": "device", "architecture": "device",
    "launch_year": "device", "form_factor": "device",
    "memory": "memory", "memory_type": "memory", "bandwidth": "memory",
    "tdp": "power", "interconnect": "power",
    "availability": "other", "software": "other", "price": "other", "sources": "other",
}


def column_group(name: str) -> str:
    """The group key of column ``name``: device, memory, compute, power or other."""
    field = parse_field(name)
    return "compute" if isinstance(field, ComputeField) else _GROUP_OF[field]


def _group_row(columns, lang: str) -> str:
    """A header row naming each run of neighbouring columns of one group (``colspan``)."""
    runs: list[list] = []
    for c in columns:
        group = column_group(c)
        if runs and runs[-1][0] == group:
            runs[-1][1] += 1
        else:
            runs.append([group, 1])
    cells = []
    for group, span in runs:
        span_attr = f' colspan="{span}"' if span > 1 else ""
        cells.append(f'<th scope="colgroup"{span_attr} data-sort-method="none">'
                     f'{escape(l10n.t(lang, f"table.group.{group}"))}</th>')
    return f'<tr class="atlas-col-groups" data-sort-method="none">{"".join(cells)}</tr>'


def _price_usd(device: dict):
    """The one-off price in US$ for the price filter (the low end of a range); None for cloud or no price."""
    price = device.get("price")
    if not price or price.get("kind") == "cloud-per-hour":
        return None
    return price["usd"]


def _filter_attrs(device: dict) -> str:
    """What the comparison page's filters read from a row (tables.js): kind, vendor, segment, memory, price."""
    attrs = [f'data-kind="{escape(device["kind"])}"', f'data-vendor="{escape(device["vendor"])}"',
             f'data-segment="{escape(device.get("segment", ""))}"']
    capacity = (device.get("memory") or {}).get("capacity_gib")
    if capacity is not None:
        attrs.append(f'data-memory-gib="{capacity!r}"')
    price = _price_usd(device)
    if price is not None:
        attrs.append(f'data-price-usd="{price!r}"')
    return " " + " ".join(attrs)


def device_table(
    devices: dict,
    lang: str,
    columns=DEFAULT_COLUMNS,
    kind=None,
    ids=None,
    segment=None,
    sort=None,
    groups=False,
    filterable=False,
) -> str:
    """A sortable HTML table of the selected devices.

    ``kind``/``segment`` filter (a string or a list), ``ids`` picks devices
    in that order, ``sort`` is a column name to sort by (descending for
    numbers). Unknown columns, kinds or ids raise ``ValueError``.
    ``groups`` adds a header row that groups the columns (device, memory,
    compute, power, other); ``filterable`` lets ``filter_form`` on the same
    page hide rows (every row is in the HTML; without JavaScript all stay).
    """
    columns = list(columns)
    for name in columns:
        parse_field(name)
    rows = select_devices(devices, kind=kind, ids=ids, segment=segment, sort=sort)
    head = "".join(f'<th scope="col">{escape(column_header(c, lang))}</th>' for c in columns)
    if not rows:
        return f'<p class="atlas-empty">{escape(l10n.t(lang, "table.empty"))}</p>'
    body = []
    for device in rows:
        cells = []
        for c in columns:
            if c == "name":
                cells.append(name_cell(device, lang))
            else:
                cells.append(cell(device, c, lang))
        extra = _filter_attrs(device) if filterable else ""
        body.append(f'<tr data-device="{escape(device["id"])}"{extra}>{"".join(cells)}</tr>')
    caption = escape(l10n.t(lang, "table.caption_units"))
    group_row = _group_row(columns, lang) if groups else ""
    filter_attr = " data-atlas-filterable" if filterable else ""
    return (
        f'<table data-atlas-table="devices" data-sortable{filter_attr}>'
        f"<caption>{caption}</caption>"
        f"<thead>{group_row}<tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def filter_form(devices: dict, lang: str, price: bool = False) -> str:
    """The filters of a comparison page: kind, vendor, segment, memory at least X GiB and, with ``price``,
    price at most X US$. Hidden until tables.js runs (so without JavaScript the full tables show); the state
    goes into the address's query (kind, vendor, segment, min_memory_gib, max_price_usd)."""
    def t(key, **params):
        return escape(l10n.t(lang, key, **params))

    def select(name, values):
        options = [f'<option value="">{t("filter.any")}</option>']
        # one line each: a blank line inside the raw HTML block would hand the rest to Markdown
        options += [f'<option value="{escape(" ".join(str(v).split()))}">{escape(" ".join(str(label).split()))}</option>'
                    for v, label in values]
        return (f'<label>{t(f"filter.{name}")}<select name="{name}" data-filter="{name}">'
                f'{"".join(options)}</select></label>')

    all_devices = list(devices.values())
    kinds = sorted({d["kind"] for d in all_devices})
    vendors = sorted({d["vendor"] for d in all_devices}, key=str.casefold)
    segments = sorted({d["segment"] for d in all_devices if d.get("segment")})
    parts = [
        f"<legend>{t('filter.legend')}</legend>",
        select("kind", [(k, l10n.t(lang, f"kind.{k}")) for k in kinds]),
        select("vendor", [(v, v) for v in vendors]),
        select("segment", [(s, l10n.t(lang, f"segment.{s}")) for s in segments]),
        f'<label>{t("filter.min_memory_gib")}<input type="number" name="min_memory_gib" min="0" step="any" '
        f'inputmode="decimal" data-filter="min_memory_gib"></label>',
    ]
    if price:
        parts.append(f'<label>{t("filter.max_price_usd")}<input type="number" name="max_price_usd" min="0" '
                     f'step="any" inputmode="decimal" data-filter="max_price_usd"></label>')
    parts.append(f'<button type="reset">{t("filter.reset")}</button>')
    parts.append('<p class="atlas-filter-status" role="status" aria-live="polite"></p>')
    messages = (f'data-msg-all="{t("filter.status_all")}" data-msg-some="{t("filter.status_some")}" '
                f'data-msg-none="{t("filter.status_none")}"')
    return (f'<form class="atlas-filters" hidden {messages}><fieldset class="atlas-filters-set">'
            f'{"".join(parts)}</fieldset></form>')


def spec(device: dict, name: str, lang: str) -> str:
    """One figure of one device for running text, with its unit and source as a tooltip."""
    value = field_value(device, name)
    if value is None:
        raise ValueError(f"device {device['id']!r} does not state {name!r}")
    raw = value.value
    if isinstance(raw, tuple):
        text = "–".join(format_figure(v, lang) for v in raw)
    elif isinstance(raw, (int, float)) and not isinstance(raw, bool):
        text = format_figure(raw, lang)
    else:
        return inline_text(raw)  # spec() sits in running text: Markdown syntax stays text too
    if value.unit:
        text += "\u00a0" + l10n.t(lang, value.unit)
    source = device["sources"][value.source]
    return (
        f'<span class="atlas-spec" data-device="{escape(device["id"])}" data-field="{escape(name)}" '
        f'title="{inline_text(l10n.t(lang, "spec.source_title", title=source["title"]))}">{escape(text)}</span>'
    )
