"""German typography, checked mechanically (rules and exclusions: tests/german_typography.py).

The checker runs on the German Markdown sources, on the German translation strings and on the
built German pages; its own tests below show that it fails on each kind of error and passes
on the correct form.
"""

from __future__ import annotations

import json

import pytest
from german_typography import (
    NBSP,
    NNBSP,
    check_text,
    drop_elements,
    html_prose,
    l10n_prose,
    markdown_prose,
    without_names,
)

from atlas import REPO_ROOT

BAD = [
    ("percent", "eine Auslastung von 40%"),
    ("percent", "eine Auslastung von 40 %"),
    ("percent", "eine Auslastung von 46,2\u2009%"),
    ("unit", "die Karte hat 80 GB Speicher"),
    ("unit", "mit 3.350 GB/s Bandbreite"),
    ("unit", "bei 700 W Leistung"),
    ("unit", "rund 989 TFLOP/s in BF16"),
    ("unit", "16,5 GiB pro Gerät"),
    ("decimal_point", f"das Modell braucht 1.5{NBSP}GB"),
    ("decimal_point", "rund 3.3× kleiner"),
    ("decimal_point", f"ein Fehler von 0.5{NNBSP}%"),
    ("iso_date", "Einführungspreis, Stand 2022-11"),
    ("iso_date", "Pressemitteilung vom 2022-11-03"),
    ("kb", "Block-RAMs mit je 36 Kb"),
    ("kb", "Blöcke zu 288 Kbit"),
    ("one_plural", "ein Modell mit 1 Milliarden Parametern"),
    ("one_plural", f"(1{NBSP}Millionen Tokens)"),
    ("grouping", "ein Kontext von 32768 Tokens"),
    ("grouping", "mit 8192 Tokens Kontext"),
]

GOOD = [
    f"eine Auslastung von 40{NNBSP}%",
    f"eine Auslastung von 46,2{NBSP}%",
    f"die Karte hat 80{NBSP}GB Speicher, 3.350{NBSP}GB/s und 700{NNBSP}W",
    f"das Modell braucht 1,5{NBSP}GB, 1.234{NBSP}GB sind gruppiert",
    "rund 3,3× kleiner; Llama 3.1 8B, CUDA 12.4, PCIe 4.0 x16, Abschnitt 3.3",
    "Einführungspreis, Stand November 2022; am 3. November 2022; 2022–2024",
    f"Block-RAMs mit je 36 kbit, ein Download von 12{NBSP}kB",
    "ein Modell mit 1 Milliarde Parametern, 0,1 Milliarden, 2 Milliarden",
    "ein Kontext von 32.768 Tokens im Jahr 2024; RTX 4090, EPYC 9654",
]


@pytest.mark.parametrize("rule, text", BAD)
def test_checker_finds_each_error(rule, text):
    assert rule in {p.rule for p in check_text(text)}, text


@pytest.mark.parametrize("text", GOOD)
def test_checker_accepts_the_german_forms(text):
    assert check_text(text) == []


def test_markdown_prose_leaves_out_code_urls_and_macros():
    source = (
        "---\ntitle: Titel mit 80 GB\n---\n"
        "Text mit `--size 268435456` und [Link](https://example.org/2022-11/40%).\n\n"
        "```bash\npython -m x --rows 32768 --mem 80 GB\n```\n\n"
        "    ```python\n    n = 8192\n    ```\n"
        "{{ spec(\"h100-sxm\", \"memory\") }} und {{ num(x) }} %\n"
    )
    problems = check_text(markdown_prose(source))
    # The title is prose; a macro stands for a number, so "{{ num(x) }} %" is a missing U+202F.
    assert sorted(p.rule for p in problems) == ["percent", "unit"]


def test_l10n_placeholders_stand_for_numbers():
    assert [p.rule for p in check_text(l10n_prose("Enthält {gib} GiB"))] == ["unit"]
    assert check_text(l10n_prose(f"Enthält {{gib}}{NBSP}GiB, {{share}}{NNBSP}%")) == []


def test_html_prose_drops_code_cited_titles_and_named_elements():
    page = (
        "<article><p>Die <abbr title='x'>NVIDIA</abbr> A100 80 GB SXM hat 2.039&nbsp;GB/s.</p>"
        "<pre><code>--rows 32768</code></pre>"
        '<p><a href="https://example.org">Arc B580 is 10% faster (3 December 2024)</a></p>'
        '<figure class="atlas-figure"><figure class="x">17 GiB</figure>80 GB</figure>'
        "<p>Rest mit 40 %</p></article>"
    )
    text = without_names(html_prose(drop_elements(page, "figure", "atlas-figure")), ["NVIDIA A100 80 GB SXM"])
    assert [p.rule for p in check_text(text)] == ["percent"]


def _german_sources():
    return sorted((REPO_ROOT / "docs").rglob("*.de.md"))


@pytest.mark.parametrize("path", _german_sources(), ids=lambda p: str(p.relative_to(REPO_ROOT / "docs")))
def test_german_markdown_follows_the_typography(path):
    problems = check_text(markdown_prose(path.read_text(encoding="utf-8")))
    assert not problems, "\n".join(map(str, problems))


def test_german_translation_strings_follow_the_typography():
    problems = []
    for path in sorted((REPO_ROOT / "l10n" / "de").glob("*.json")):
        for key, text in json.loads(path.read_text(encoding="utf-8")).items():
            problems += [f"{path.name} {key}: {p}" for p in check_text(l10n_prose(text))]
    assert not problems, "\n".join(problems)


def test_built_german_pages_follow_the_typography(built_site, dataset):
    """Every German page as built, calculator results and chart tables included."""
    names = [n for d in dataset.devices.values() for n in (d.get("name"), d.get("short_name")) if n]
    names += [n for m in dataset.models.values() for n in (m.get("name"), m.get("short_name")) if n]
    pages = sorted((built_site / "de").rglob("*.html"))
    assert len(pages) > 10
    problems = []
    for page in pages:
        html = page.read_text(encoding="utf-8")
        problems += [f"{page.relative_to(built_site)}: {p}" for p in check_text(without_names(html_prose(html), names))]
    assert not problems, "\n".join(problems)
