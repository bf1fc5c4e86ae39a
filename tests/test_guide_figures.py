"""The decision guide's worked examples — a device's TDP for a year, the energy and
its cost at sourced electricity prices (``atlas.core.calculators.energy``) — and the dated
price table, with known values."""

import re

import pytest

from atlas.core.calculators.energy import energy_cost
from atlas.core.calculators.fields import field_number
from atlas.data import prices
from atlas.data.reference_prices import ELECTRICITY_PRICES, electricity_price
from macros import guide_macros


def test_field_number_of_a_missing_value_is_an_error(dataset):
    # the A100 has no FP8 tensor cores, so the data set states no FP8 figure
    with pytest.raises(ValueError, match="states no single number for 'fp8.matrix.dense'"):
        field_number(dataset.device("a100-sxm-80gb"), "fp8.matrix.dense")
    with pytest.raises(ValueError, match="states no single number for 'memory_type'"):
        field_number(dataset.device("h100-sxm"), "memory_type")
    assert field_number(dataset.device("h100-sxm"), "tdp") == 700


def test_energy_of_an_h100_running_a_year(dataset):
    # 700 W x 8,760 h = 6,132 kWh
    assert guide_macros.yearly_kwh(dataset.device("h100-sxm"), 24) == pytest.approx(6132)
    assert guide_macros.yearly_kwh(dataset.device("h100-sxm"), 8) == pytest.approx(2044)
    with pytest.raises(ValueError):
        guide_macros.yearly_kwh(dataset.device("h100-sxm"), 25)


def test_energy_cost_at_the_stored_prices():
    # Eurostat, second half of 2023: Finland 0.089 and Cyprus 0.276 EUR/kWh (non-household)
    assert electricity_price("eu-nonhousehold-low-2023h2").eur_per_kwh == 0.089
    assert electricity_price("eu-nonhousehold-high-2023h2").eur_per_kwh == 0.276
    assert energy_cost(6132, 0.089) == pytest.approx(545.748)
    assert energy_cost(6132, 0.276) == pytest.approx(1692.432)


def test_every_stored_price_cites_an_https_source():
    for price in ELECTRICITY_PRICES.values():
        assert price.source_url.startswith("https://")
        assert 0 < price.eur_per_kwh < 1


def test_unknown_price_key_names_the_known_ones():
    with pytest.raises(KeyError, match="eu-nonhousehold-low-2023h2"):
        electricity_price("mars")


@pytest.mark.parametrize(
    "lang, amount, price", [("en", "€546", "0.089\u00a0€/kWh"), ("de", "546 €", "0,089\u00a0€/kWh")]
)
def test_money_and_price_are_localized(lang, amount, price):
    assert guide_macros.euros(545.748, lang) == amount
    span = guide_macros.price_span("eu-nonhousehold-low-2023h2", lang)
    assert f">{price}<" in span
    assert "ec.europa.eu" not in span  # the tooltip names the source; the link sits in the page's sources
    assert "Eurostat" in span


def _price(kind, usd, as_of, usd_high=None, provider=None):
    """One entry as atlas.data.price_lists.prices_by_device gives it (plain values, per device)."""
    return {"kind": kind, "usd": usd, "usd_high": usd_high, "as_of": as_of, "provider": provider, "region": None,
            "list": None, "source_title": f"Source of {provider or kind}", "source_url": "https://example.org/" + kind}


@pytest.mark.parametrize("lang, expected", [("en", "25,000–40,000\u00a0US$"), ("de", "25.000–40.000\u00a0US-$")])
def test_price_table_shows_the_newest_purchase_price_with_range_kind_and_month(dataset, lang, expected):
    prices_of = {"h100-sxm": [_price("street-range", 25000, "2024-01", usd_high=40000),
                              _price("list", 30000, "2023-06")]}
    html = prices.price_table(prices_of, dataset.devices, lang)
    row = re.search(r'<tr data-device="h100-sxm" data-basis="purchase">(.*?)</tr>', html).group(1)
    assert expected in row and (">January 2024<" if lang == "en" else ">Januar 2024<") in row  # the newer of the two
    assert 'data-sort="2024-01"' in row
    kind = "reported street price" if lang == "en" else "berichteter Marktpreis"
    assert f">{kind}<" in row
    assert 'href="https://example.org/street-range"' in row and ">Source of street-range</a>" in row


@pytest.mark.parametrize("lang, expected", [
    ("en", "2.5\u00a0US$/h (median of 3 providers, 2–4)"), ("de", "2,5\u00a0US-$/h (Median von 3 Anbietern, 2–4)")])
def test_price_table_gives_the_cloud_median_of_each_providers_newest_price(dataset, lang, expected):
    prices_of = {"h100-sxm": [_price("cloud-per-hour", 9.0, "2025-01", provider="A"),  # superseded by A's newer
                              _price("cloud-per-hour", 2.0, "2026-09", provider="A"),
                              _price("cloud-per-hour", 2.5, "2026-08", provider="B"),
                              _price("cloud-per-hour", 4.0, "2026-11", provider="C")]}
    html = prices.price_table(prices_of, dataset.devices, lang)
    row = re.search(r'<tr data-device="h100-sxm" data-basis="cloud">(.*?)</tr>', html).group(1)
    assert expected in row and ">November 2026<" in row
    assert re.findall(r">([ABC])</a>", row) == ["A", "B", "C"]


def test_price_table_puts_cloud_prices_last_and_skips_unpriced(dataset):
    prices_of = {"a100-sxm-80gb": [_price("cloud-per-hour", 1.7, "2026-09", provider="X")],
                 "h100-sxm": [_price("list", 30000, "2024-06"), _price("cloud-per-hour", 2.7, "2026-09", provider="X")],
                 "no-such-device": [_price("list", 1, "2024-06")]}
    html = prices.price_table(prices_of, dataset.devices, "en")
    assert re.findall(r'data-device="([^"]+)" data-basis="([^"]+)"', html) == [
        ("h100-sxm", "purchase"), ("a100-sxm-80gb", "cloud"), ("h100-sxm", "cloud")]
    assert "2.7\u00a0US$/h" in html and "(median" not in html  # one provider: no range


def test_price_table_without_prices_says_so():
    assert "No device in the data set states a dated price yet." in prices.price_table({}, {}, "en")
