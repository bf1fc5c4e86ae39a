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
    check_banned,
    check_source_units,
    check_text,
    drop_elements,
    html_prose,
    l10n_prose,
    markdown_prose,
    markdown_words,
    without_names,
)

from atlas.data import REPO_ROOT

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
    for path in sorted((REPO_ROOT / "atlas" / "core" / "l10n" / "de").glob("*.json")):
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


# --- Banned words and calques (CONTRIBUTING.de.md) ------------------------------------------------------------------

BAD_WORDS = [
    ("feintuning", "das Feintuning von LoRA-Adaptern"),
    ("feintuning", "ein Modell feintunen"),
    ("duennbesetzt", "dicht oder dünnbesetzt"),
    ("tensor_kerne", "die Tensor-Kerne der H100"),
    ("decoding", "Das Decoding ist speichergebunden"),
    ("decoding", "LLM-Decoding, BF16-Gewichte"),
    ("kernels", "wo seine Kernels laufen"),
    ("kernels", "in den CUDA-Kernels von llama.cpp"),
    ("skalenfaktor", "Gewichte, die sich einen Skalenfaktor teilen"),
    ("skalenfaktor", "plus die Blockskalen"),
    ("skalenfaktor", "speichert diese Skalen in 8 Bit"),
    ("lane", "ist eine Spur der Vektoreinheit eines SM"),
    ("lane", "jeder mit Vektorspuren und Matrixeinheiten"),
    ("lane", "Grafikprozessor: Tausende einfache Rechenspuren"),
    ("genitiv_dateiname", "GGUF-Typen: llama.cpps Vorgaben je Tensor"),
    ("tensor_cores_bindestrich", "mit dem üblichen Verhältnis der Tensor-Cores um"),
    ("koepfe", "Die Zahl der KV-Köpfe muss die der Attention-Köpfe teilen."),
    ("der_batch", "wie viele Anfragen auf ein gemeinsames Batch warten"),
    ("der_batch", "- **das Batch**: Offline-Durchsatz je Chip"),
    ("et_al", "nach Korthikanti et al. (2022)"),
    ("changelog", "Neu in Blackwell: FP4"),
    ("decodieren", "Spekulatives Decodieren beschleunigt nur die Tokenerzeugung."),
    ("changelog", "Der Rechner kennt jetzt auch die B300."),
    ("im_kopf", "Lies die Spalten mit dem Argument der Speichergebundenheit im Kopf"),
    ("lies_als", "Lies diese Werte als Obergrenze für Vergleiche"),
    ("lies_als", "Lies „–“ als „kein Gerät nennt einen solchen Wert“"),
    ("ist_das_was", "Die Latenz ist das, was du verkaufst."),
    ("wie_man_liest", "etwa 21-mal so schnell, wie man liest"),
    ("wie_man_liest", "langsamer, als man liest (0,43-fache Lesegeschwindigkeit)"),
    ("apostroph_s", "so typisiert, wie llama.cpp’s quantize es tut"),
    ("apostroph_s", "NVIDIA's Datenblatt"),
    ("nur_maus", "Fahre mit der Maus über eine Zahl, um ihre Herkunft zu sehen."),
    ("wie_man_liest", "nur das 0,4-Fache deines Lesetempos, also langsamer, als du liest"),
    ("replik", "Die Schätzung addiert sechs Anteile für eine Replik des Modells."),
    ("macht_sinn", "Ein Kauf macht erst ab hoher Auslastung Sinn."),
    ("macht_sinn", "ob es Sinn macht, zu mieten"),
    ("am_ende_des_tages", "Am Ende des Tages entscheidet die Bandbreite."),
    ("behauptung_geprueft", "## Verbreitete Behauptungen, geprüft"),
    ("behauptung_geprueft", "siehe die Auslastungsbehauptung, geprüft"),
    ("geshardet", "im Training vollständig geshardet"),
    ("lesegeschwindigkeit", "ungefähr das Vierfache der Lesegeschwindigkeit"),
    ("generierung", "warum weniger Byte die Textgenerierung beschleunigen"),
    ("generierung", "Während der Generierung hält jede Schicht die Keys"),
    ("nur_maus", "wer mit der Maus auf einen Messwert zeigt,\nsieht den Befehl."),
    ("decode_geschwindigkeit", "## Die Speicherkanäle bestimmen die Decode-Geschwindigkeit"),
    ("nebenlaeufigkeit", "Durchsatz bei einer Nebenläufigkeit von 64"),
    ("bandbreitengebunden", "Die Tokenerzeugung ist bandbreitengebunden."),
    ("bandbreitengebunden", "eher rechen- als bandbreitenbegrenzt"),
    ("bandbreitengebunden", "ein speicherbegrenzter Kernel"),
    ("daten_in_bewegung", "**Netzwerk und Daten in Bewegung.** FPGAs sitzen direkt am Netz."),
    ("meer_aus", "Die Logikfläche besteht aus einem Meer kleiner Lookup-Tabellen."),
    ("darueber_faehrt", "wer auf einen Messwert tippt oder mit der Maus\n    darüber fährt, sieht den Befehl"),
    ("us_dollar", "Kosten (US$)"),
    ("us_dollar", "Preis je Gerätestunde in US$"),
    ("darueber_faehrt", "Begriffe zeigen ihre Definition, wenn du darauf tippst oder mit der Maus darüber fährst."),
]

GOOD_WORDS = [
    "Spekulatives Decoding beschleunigt nur die Tokenerzeugung (Decode).",
    "das Fine-Tuning von LoRA-Adaptern; ein Modell per Fine-Tuning anpassen",
    "dicht oder mit Sparsity; die Tensor Cores und CUDA Cores der H100",
    "Die Tokenerzeugung ist speichergebunden; spekulatives\nDecoding ist nicht modelliert; Prefill und Decode",
    "eher rechen- als speichergebunden; ein speichergebundener Kernel; die Bandbreite begrenzt das Tempo",
    "wo seine Kernel laufen; die Laufzeit des fusionierten Kernels; des Kernels",
    "ein Skalierungsfaktor je Block; die Skalierungsfaktoren der Blöcke",
    "eines der Rechenwerke (englisch *Lane*) der Vektoreinheit",
    "Dein Produkt steht und fällt mit der Latenz.",
    "etwa das 21-Fache deines Lesetempos",
    "NVIDIAs Datenblatt, Cerebras' Wafer, wie quantize in llama.cpp es tut",
    "Tippe auf eine Zahl oder fahre mit der Maus darüber, um ihre Herkunft zu sehen.",
    "Grafikprozessor: Tausende einfache Rechenwerke; eine Spur von Zweifel",
    "GGUF-Typen: die Vorgaben von llama.cpp je Tensor; pandas' Rückgabewert",
    "die Tensor Cores der H100, FP8-Tensor-Cores, die Tensor-Core-Rate, *Tensor-Core*-Raten",
    "Die Zahl der KV-Heads muss die der Attention-Heads teilen.",
    "wie viele Anfragen auf einen gemeinsamen Batch warten; der Batch; ein Batch aus 32; das Batch-Verfahren",
    "nach Korthikanti u. a. (2022)",
    "Blackwell brachte FP4; der Rechner kennt die B300; ein neuer Lauf",
    "(tippe auf eine Zahl oder fahre\nmit der Maus darüber)",
    "für eine Kopie des Modells; Bildgenerierung mit Diffusionsmodellen; das Vierfache deines Lesetempos",
    "Ein Kauf lohnt sich erst ab hoher Auslastung; das ergibt Sinn; im Sinne des Erfinders",
    "## Verbreitete Behauptungen im Faktencheck; Werte, geprüft an Messungen; Sharding im Training",
    "das Tempo der Tokenerzeugung; Prefill und Decode; ein Decode-Schritt; die Decode-Phase",
    "Durchsatz bei 64 gleichzeitigen Anfragen; Netzwerk und Datenströme; eine riesige Zahl kleiner LUTs; am Meer",
    "Kosten (US-$); 2,5 US-$/h; Preis höchstens (US-$); US-Dollar",
    "Wer auf einen Messwert tippt oder mit der Maus darüberfährt, sieht den Befehl. Tippe auf eine Zahl oder fahre\n"
    "mit der Maus darüber.",
]


@pytest.mark.parametrize("rule, text", BAD_WORDS)
def test_banned_word_check_finds_each_word(rule, text):
    assert rule in {p.rule for p in check_banned(text)}, text


@pytest.mark.parametrize("text", GOOD_WORDS)
def test_banned_word_check_accepts_the_style_guide_forms(text):
    assert check_banned(text) == []


def test_banned_word_check_leaves_out_code_macros_and_cited_titles():
    source = (
        "Text mit `Feintuning` und {{ calc_link(\"vram\", text=\"Decoding\") }}.\n\n"
        "- Leviathan u. a.: [Fast Inference from Transformers via Speculative Decoding](https://arxiv.org/abs/2211.17192).\n"
        "- Horowitz: [Computing's energy problem](https://doi.org/10.1109/ISSCC.2014.6757323).\n\n"
        "```text\nFeintuning dünnbesetzt\n```\n"
        "Aber hier ist das Feintuning Prosa.\n"
    )
    assert [p.rule for p in check_banned(markdown_words(source))] == ["feintuning"]


def _param(path, name):
    return pytest.param(path, id=name)


def _german_params():
    return [_param(p, str(p.relative_to(REPO_ROOT / "docs"))) for p in _german_sources()]


@pytest.mark.parametrize("path", _german_params())
def test_german_markdown_has_no_banned_words(path):
    problems = check_banned(markdown_words(path.read_text(encoding="utf-8")))
    assert not problems, "\n".join(map(str, problems))


@pytest.mark.parametrize("path", [_param(p, p.name) for p in sorted((REPO_ROOT / "atlas" / "core" / "l10n" / "de").glob("*.json"))])
def test_german_translation_strings_have_no_banned_words(path):
    problems = []
    for key, text in json.loads(path.read_text(encoding="utf-8")).items():
        problems += [f"{key}: {p}" for p in check_banned(l10n_prose(text))]
    assert not problems, "\n".join(problems)


# --- Number and unit in hand-written page prose ---------------------------------------------------------------------

BAD_SOURCE_UNITS = [
    "| {{ intensity(\"h100-sxm\", \"bf16.matrix.dense\") }} FLOP/Byte |",
    "Llama 3.2 3B mit 4 Bit braucht insgesamt",
    "in BF16 (2 Byte pro Parameter)",
    "rund 1 FLOP/Byte, zwei Größenordnungen darunter",
    "Block-RAMs (bei AMD je 36 kbit)",
    "etwa 6 FLOPs pro Parameter und Token",
]


@pytest.mark.parametrize("source", BAD_SOURCE_UNITS)
def test_source_unit_check_finds_a_plain_space(source):
    assert [p.rule for p in check_source_units(markdown_prose(source))] == ["source_unit"], source


def test_source_unit_check_accepts_no_break_spaces_compounds_and_code():
    source = (
        f"| {{{{ intensity(\"h100-sxm\") }}}}{NBSP}FLOP/Byte | mit 4{NBSP}Bit, 2{NBSP}Byte, 36{NBSP}kbit\n"
        "16-Bit-Gewichte, 4-Bit-Quantisierung, ein 32-Bit-Register, FP8 mit 8 Bitbreiten?\n"
        "`--bits 4 Bit` und\n\n```text\n4 Bit 2 Byte\n```\n"
    )
    assert check_source_units(markdown_prose(source)) == []


@pytest.mark.parametrize("path", _german_params())
def test_german_markdown_joins_number_and_unit_with_a_no_break_space(path):
    problems = check_source_units(markdown_prose(path.read_text(encoding="utf-8")))
    assert not problems, "\n".join(map(str, problems))


BAD_L10N_UNITS = [
    "mit jeweils mindestens {target} Tokens/s",
    "≈ {usd} US-$ je Million Tokens",
    "({bits} Bit pro Gewicht)",
    "etwa 20 Tokens/s. Leer = keine Planung.",
    "TFLOP/s pro 1.000 US-$",
    "34 Byte je Token",
]


@pytest.mark.parametrize("text", BAD_L10N_UNITS)
def test_source_unit_check_finds_a_plain_space_after_a_placeholder(text):
    assert [p.rule for p in check_source_units(l10n_prose(text))] == ["source_unit"], text


def test_source_unit_check_accepts_rates_and_currency_without_a_number():
    text = (f"{{tokens}}{NBSP}Tokens/s insgesamt; Tokens/s je Nutzer; Kosten (US-$); 2,5{NBSP}US-$/h; "
            f"{{usd}}{NBSP}US-$ je Million Tokens; 8.192 Tokens; ein 16-Bit-Cache; {{bits}}{NBSP}Bit")
    assert check_source_units(l10n_prose(text)) == []


@pytest.mark.parametrize("path", [_param(p, p.name) for p in sorted((REPO_ROOT / "atlas" / "core" / "l10n" / "de").glob("*.json"))])
def test_german_translation_strings_join_number_and_unit_with_a_no_break_space(path):
    problems = []
    for key, text in json.loads(path.read_text(encoding="utf-8")).items():
        problems += [f"{key}: {p}" for p in check_source_units(l10n_prose(text))]
    assert not problems, "\n".join(problems)
