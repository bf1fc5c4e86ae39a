"""The translation tables and number formatting shared by build and browser."""

import json
import math

import pytest
from babel.numbers import format_decimal

from atlas.core import l10n

VALUES = [0, 1, 7.5, 80, 989.4, 1978.9, 3350, 3350.5, 12345.678, 1234567.891, 0.0412, 2.675, 1e9, -42.25]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("decimals", [0, 1, 2])
def test_format_number_matches_babel(lang, value, decimals):
    pattern = "#,##0" + ("." + "#" * decimals if decimals else "")
    expected = format_decimal(value, format=pattern, locale=lang)
    assert l10n.format_number(value, lang, decimals) == expected


def test_known_examples():
    assert l10n.format_number(3350.5, "en") == "3,350.5"
    assert l10n.format_number(3350.5, "de") == "3.350,5"
    assert l10n.format_number(80.0, "de") == "80"
    assert l10n.format_significant(1978.9, "de") == "1.979"
    assert l10n.format_significant(0.0412, "de") == "0,0412"
    # derived figures in running text round the whole part too: 58,958 GPU-hours -> "59,000"
    assert l10n.format_rounded(58958, "en", 2) == "59,000"
    assert l10n.format_rounded(1978.9, "de", 3) == "1.980"
    assert l10n.format_rounded(295.343, "en", 3) == "295"
    assert l10n.format_rounded(0.0047761, "de", 2) == "0,0048"
    assert l10n.format_rounded(0, "en", 2) == "0"


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_never_reach_a_page(bad):
    with pytest.raises(ValueError):
        l10n.format_number(bad, "en")
    with pytest.raises(ValueError):
        l10n.format_rounded(bad, "en")


def test_unknown_language_is_refused():
    with pytest.raises(ValueError, match="unsupported language"):
        l10n.format_number(1, "fr")


def test_tables_have_the_same_keys_and_no_empty_text():
    en, de = l10n.labels("en"), l10n.labels("de")
    assert set(en) == set(de), set(en) ^ set(de)
    for lang, table in (("en", en), ("de", de)):
        empty = [k for k, v in table.items() if not str(v).strip()]
        assert not empty, f"{lang}: empty translations {empty}"


def test_placeholders_match_between_languages():
    import string

    fields = lambda s: sorted(f for _, f, _, _ in string.Formatter().parse(s) if f)  # noqa: E731
    en, de = l10n.labels("en"), l10n.labels("de")
    mismatched = [k for k in en if fields(en[k]) != fields(de[k])]
    assert not mismatched


def test_german_is_german():
    assert l10n.t("de", "col.memory") == "Speicher"
    assert l10n.t("de", "col.bandwidth") == "Speicherbandbreite"
    assert l10n.t("en", "col.bandwidth") == "Memory bandwidth"


def test_each_area_file_exists_in_both_languages():
    names = {lang: [p.name for p in l10n.table_files(lang)] for lang in l10n.LANGUAGES}
    assert names["en"] == names["de"] and "site.json" in names["en"]
    for lang in l10n.LANGUAGES:
        for path in l10n.table_files(lang):
            with open(path, encoding="utf-8") as fh:
                assert isinstance(json.load(fh), dict), path


def test_german_addresses_the_reader_with_du_throughout():
    """The pages use the du-form; labels and messages must not switch to the formal Sie."""
    import re

    formal = re.compile(r"\b(Sie|Ihr|Ihre|Ihren|Ihrem|Ihrer|Ihres)\b")
    offenders = {k: v for k, v in l10n.labels("de").items() if formal.search(v)}
    assert not offenders
