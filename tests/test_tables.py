"""Comparison tables and single figures: values, locale formatting, escaping."""

import re

import pytest

from atlas.data import tables


def row(html: str, device_id: str) -> str:
    match = re.search(rf'<tr data-device="{device_id}">(.*?)</tr>', html)
    assert match, f"no row for {device_id}"
    return match.group(1)


@pytest.mark.parametrize("lang, expected", [("en", ">3,350<"), ("de", ">3.350<")])
def test_h100_bandwidth_cell_per_locale(dataset, lang, expected):
    html = tables.device_table(dataset.devices, lang, columns=["name", "bandwidth"], ids=["h100-sxm"])
    assert expected in row(html, "h100-sxm")
    assert 'data-sort="3350"' in row(html, "h100-sxm")


@pytest.mark.parametrize("lang, expected", [("en", ">1,978.9<"), ("de", ">1.978,9<")])
def test_h100_fp8_dense_is_the_dense_figure(dataset, lang, expected):
    html = tables.device_table(dataset.devices, lang, columns=["name", "fp8.matrix.dense"], ids=["h100-sxm"])
    assert expected in row(html, "h100-sxm")


def test_headers_follow_language(dataset):
    en = tables.device_table(dataset.devices, "en", columns=["name", "bandwidth", "bf16.matrix.dense"])
    de = tables.device_table(dataset.devices, "de", columns=["name", "bandwidth", "bf16.matrix.dense"])
    assert "Memory bandwidth (GB/s)" in en
    assert "Speicherbandbreite (GB/s)" in de
    assert "BF16 Matrixeinheit, dicht (TFLOP/s)" in de


def test_field_label_for_running_text():
    assert tables.field_label("bf16.matrix.dense", "en") == "BF16 (matrix unit, dense)"
    assert tables.field_label("fp8.matrix.sparse", "de") == "FP8 (Matrixeinheit, mit Sparsity)"
    assert tables.field_label("bandwidth", "de") == "Speicherbandbreite"


def test_missing_figure_shows_a_dash_not_zero(dataset):
    html = tables.device_table(dataset.devices, "en", columns=["name", "fp8.matrix.dense"], ids=["a100-sxm-80gb"])
    assert ">—<" in row(html, "a100-sxm-80gb")


def test_strings_are_escaped():
    hostile = {
        "id": "x",
        "name": '<img src=x onerror=alert(1)>"',
        "vendor": "<b>V</b>",
        "kind": "gpu",
        "segment": "datacenter",
        "memory": {"capacity_gib": 1, "type": "HBM3", "bandwidth_gb_s": 1, "source": "s"},
        "compute": [],
        "software": ["<script>"],
        "sources": {"s": {"url": 'https://e.x/"><script>', "title": "<t>", "accessed": "2026-01-01"}},
    }
    html = tables.device_table({"x": hostile}, "en", columns=["name", "vendor", "software", "memory", "sources"])
    assert "<img" not in html and "<script>" not in html and "<b>" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;&quot;" in html


def test_unknown_column_is_an_error(dataset):
    with pytest.raises(ValueError, match="unknown field 'bf17.matrix'"):
        tables.device_table(dataset.devices, "en", columns=["name", "bf17.matrix"])


def test_sort_puts_largest_first(dataset):
    html = tables.device_table(dataset.devices, "en", columns=["name", "bandwidth"], sort="bandwidth")
    order = re.findall(r'data-device="([^"]+)"', html)
    assert order.index("h100-sxm") < order.index("a100-sxm-80gb")


def test_spec_in_prose(dataset):
    html = tables.spec(dataset.device("h100-sxm"), "bandwidth", "de")
    assert ">3.350\u00a0GB/s<" in html
    assert 'title="Quelle: NVIDIA H100 Tensor Core GPU, specifications"' in html


@pytest.mark.parametrize("lang, expected", [("en", ">25,000–40,000<"), ("de", ">25.000–40.000<")])
def test_price_range_cell(dataset, lang, expected):
    device = dict(dataset.device("h100-sxm"))
    device["price"] = {
        "usd": 25000,
        "usd_high": 40000,
        "kind": "street-range",
        "as_of": "2024-01",
        "source": "datasheet",
    }
    html = tables.device_table({"h100-sxm": device}, lang, columns=["name", "price"])
    assert expected in row(html, "h100-sxm")


@pytest.mark.parametrize("lang, expected", [("en", ">0.215<"), ("de", ">0,215<")])
def test_sub_unit_figures_keep_three_significant_digits(dataset, lang, expected):
    """Groq's 220 MiB of SRAM is 0.215 GiB; one decimal would show a misleading 0.2."""
    html = tables.device_table(dataset.devices, lang, columns=["name", "memory"], ids=["groq-lpu"])
    assert expected in row(html, "groq-lpu")


def test_row_header_is_the_short_name_with_the_full_name_as_tooltip(dataset):
    html = tables.device_table(dataset.devices, "en", columns=["name", "bandwidth"], ids=["h100-sxm"])
    assert '<th scope="row" title="NVIDIA H100 SXM5 80 GB">H100 SXM</th>' in html


def test_column_groups_span_every_column_once(dataset):
    columns = ["name", "vendor", "memory", "bandwidth", "bf16.matrix.dense", "fp8.matrix.dense", "tdp", "sources"]
    html = tables.device_table(dataset.devices, "de", columns=columns, kind="gpu", groups=True)
    groups = re.search(r'<tr class="atlas-col-groups"[^>]*>(.*?)</tr>', html).group(1)
    names = re.findall(r'<th scope="colgroup"(?: colspan="(\d+)")?[^>]*>([^<]*)</th>', groups)
    assert [(int(span or 1), text) for span, text in names] == [
        (2, "Gerät"), (2, "Speicher"), (2, "Spitzenleistung"), (1, "Leistung und Anbindung"), (1, "Weiteres")]
    assert "atlas-col-groups" not in tables.device_table(dataset.devices, "de", columns=columns, kind="gpu")


def test_filterable_rows_carry_what_the_filters_read(dataset):
    html = tables.device_table(dataset.devices, "en", ids=["h100-sxm"], filterable=True)
    assert "data-atlas-filterable" in html
    assert ('data-kind="gpu" data-vendor="NVIDIA" data-segment="datacenter" data-memory-gib="80"') in html


def test_filter_form_is_hidden_without_javascript_and_escapes_vendors(dataset):
    devices = {**dataset.devices, "x": {**dataset.devices["h100-sxm"], "id": "x", "vendor": '<b>"V"</b>'}}
    for lang, legend in (("en", "Filter the tables"), ("de", "Tabellen filtern")):
        html = tables.filter_form(devices, lang)
        assert html.startswith('<form class="atlas-filters" hidden ')
        assert f"<legend>{legend}</legend>" in html
        assert "<b>" not in html and "&lt;b&gt;&quot;V&quot;&lt;/b&gt;" in html
        assert 'name="max_price_usd"' not in html and 'name="max_price_usd"' in tables.filter_form(devices, lang, True)
