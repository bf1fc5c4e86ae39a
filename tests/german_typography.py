"""Typographic rules for German text, checked on the Markdown sources (docs/**/*.de.md,
atlas/core/l10n/de) and on the built German HTML.

The rules follow what the site's formatter writes (``atlas.core.l10n.format_number`` groups with ".",
decimals with ","; the macros join number and unit with U+00A0 and put U+202F before "%"):

- ``percent``: a digit directly followed by "%", or by a plain space (or any space other than
  U+202F / U+00A0) and "%": "40 %" with U+202F.
- ``unit``: a number and a unit (GB, GiB, TB/s, W, TFLOP/s, ...) separated by a plain space:
  "80 GB" with U+00A0 (U+202F is accepted as well).
- ``decimal_point``: a decimal point in a quantity ("1.5 GB", "3.3×", "0.5 %"); grouping with
  three digits ("1.234 GB") is German, version numbers ("Llama 3.1", "CUDA 12.4") are names.
- ``iso_date``: an ISO-like date in prose ("2022-11", "2022-11-03"): German writes
  "November 2022", "3. November 2022".
- ``kb``: "Kb" / "Kbit" / "kb" instead of "kbit" (or "kB" for bytes).
- ``one_plural``: "1 Milliarden" (1 Milliarde, 1 Million, 1 Billion).
- ``grouping``: a whole number of five or more digits without grouping ("32768 Tokens");
  four-digit numbers are grouped as well ("8.192") unless they are years (1900–2099).

Code (fenced blocks, indented code, inline code, ``<code>``/``<pre>``), URLs, Jinja macro
calls and HTML tags are not prose and are left out before checking.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

NBSP = "\u00a0"
NNBSP = "\u202f"
_NB = f"{NBSP}{NNBSP}"

UNITS = (
    "GB/s", "TB/s", "MB/s", "GiB/s", "Gbit/s", "GT/s", "TFLOP/s", "PFLOP/s", "GFLOP/s", "EFLOP/s",
    "TFLOPS", "PFLOPS", "GFLOPS", "TOPS", "POPS",
    "GiB", "MiB", "KiB", "TiB", "GB", "MB", "kB", "TB", "PB",
    "kWh", "MWh", "kW", "MW", "W", "GHz", "MHz", "nm", "mm", "ms", "µs", "ns",
)
_UNIT_ALT = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
# A number (German grouping and decimals allowed) followed by a unit, the unit ending the word.
_UNIT_AFTER = rf"(?:{_UNIT_ALT})(?![\w/])"

RULES: dict[str, re.Pattern] = {
    "percent": re.compile(r"\d(?:[ \t]|\u2009|\u2006|\u2005)?%"),
    "unit": re.compile(rf"(?<![\w.,])\d[\d.,]*[ \t\u2009]+{_UNIT_AFTER}"),
    "decimal_point": re.compile(
        rf"(?<![\w.])(?!\d{{1,3}}(?:\.\d{{3}})+(?![\d.]))\d+\.\d+(?:[\s{_NB}]*(?:{_UNIT_ALT}|%|×|Bit\b|Byte\b|-mal|-fach"
        rf"|Milliarde|Million|Billion|Tokens?\b))"
    ),
    "iso_date": re.compile(r"(?<![\w/.-])(?:19|20)\d\d-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12]\d|3[01]))?(?![\w/-])"),
    "kb": re.compile(r"(?<![\w-])(?:Kb(?:it)?|kb|KB/s)(?![\w])"),
    "one_plural": re.compile(rf"(?<![\d.,])(?<!\d[{_NB} ])\b1[\s{_NB}]+(?:Milliarden|Millionen|Billionen)\b"),
    "grouping": re.compile(r"(?<![A-Z] )(?<![\w.,:/#\-–+])(?:\d{5,}|(?!(?:19|20)\d\d(?!\d))\d{4})(?![\w.,:/\-]|[\s\u00a0\u202f]?×)"),
}


@dataclass(frozen=True)
class Problem:
    rule: str
    match: str
    context: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.match!r} in …{self.context}…"


def check_text(text: str) -> list[Problem]:
    """The rule violations in ``text``, which must already be prose (no code, URLs or tags)."""
    problems = []
    for rule, pattern in RULES.items():
        for m in pattern.finditer(text):
            start, end = max(0, m.start() - 40), min(len(text), m.end() + 40)
            problems.append(Problem(rule, m.group(0), " ".join(text[start:end].split())))
    return problems


_FENCE = re.compile(r"^([ \t]*)(```|~~~).*?^\1\2[^\n]*$", re.M | re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
_LINK_TARGET = re.compile(r"\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_URL = re.compile(r"(?:https?://|www\.)\S+")
_TAG = re.compile(r"<[^>]+>")
_ATTR_LIST = re.compile(r"\{\s*[#.:][^}]*\}")
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
_FRONT_KEEP = re.compile(r"^(?:title|description):\s*(.*)$", re.M)


def markdown_prose(source: str) -> str:
    """The prose of a Markdown page: front matter titles and descriptions, text outside code,
    macros, link targets, URLs, attribute lists and HTML tags."""
    front = _FRONT_MATTER.match(source)
    kept = ""
    if front:
        kept = "\n".join(m.group(1) for m in _FRONT_KEEP.finditer(front.group(0))) + "\n"
        source = source[front.end():]
    text = _FENCE.sub("\n", source)
    # A macro stands for a number here, so that "{{ num(x) }} %" is checked like "2 %".
    text = _JINJA.sub("2", text)
    text = _INLINE_CODE.sub(" ", text)
    text = _LINK_TARGET.sub("]", text)
    text = _URL.sub(" ", text)
    text = _ATTR_LIST.sub(" ", text)
    text = _TAG.sub(" ", text)
    return kept + text


_DROP_ELEMENTS = re.compile(r"<(script|style|code|pre|svg|math|template)\b.*?</\1>", re.S | re.I)


_PLACEHOLDER = re.compile(r"\{\w+\}")


def l10n_prose(text: str) -> str:
    """A translation string with its ``{placeholders}`` standing for a number ("{gib} GiB" -> "2 GiB")."""
    return _PLACEHOLDER.sub("2", text)


def without_names(text: str, names) -> str:
    """``text`` without the product names in ``names`` (quoted as the vendor writes them: "H100 SXM5 80GB")."""
    for name in sorted(set(names), key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", " ", text)
    return text


def drop_elements(page: str, tag: str, marker: str) -> str:
    """``page`` without each ``<tag …>`` element whose start tag contains ``marker``, nested tags counted."""
    opening = re.compile(rf"<{tag}\b[^>]*>")
    both = re.compile(rf"<{tag}\b[^>]*>|</{tag}>")
    out, pos = [], 0
    while True:
        m = next((m for m in opening.finditer(page, pos) if marker in m.group(0)), None)
        if not m:
            break
        depth, end = 0, len(page)
        for t in both.finditer(page, m.start()):
            depth += -1 if t.group(0).startswith("</") else 1
            if depth == 0:
                end = t.end()
                break
        out.append(page[pos:m.start()])
        pos = end
    return "".join(out) + page[pos:]


def html_prose(page: str) -> str:
    """The visible text of a built page, without scripts, code, SVG and tags."""
    main = re.search(r"<article\b.*?</article>", page, re.S)
    text = main.group(0) if main else page
    text = _DROP_ELEMENTS.sub(" ", text)
    # Links to cited documents: their titles are quoted as published (mostly in English).
    text = re.sub(r'<a\b[^>]*href="https?://[^"]*"[^>]*>.*?</a>', " ", text, flags=re.S)
    text = re.sub(r"<br\s*/?>|</(?:p|li|td|th|h\d|div|dt|dd|tr|caption|figcaption|summary)>", "\n", text)
    text = _TAG.sub(" ", text)
    text = html.unescape(text)
    text = re.sub(r"[ \t]*\n[ \t\n]*", "\n", re.sub(r"[ \t]+", " ", text))
    return _URL.sub(" ", text)


# --- Words the style guide bans (CONTRIBUTING.de.md, "Terminologie und Typografie") -------------------------------
# Each pattern names the form to write instead. They run on German page sources and German translation strings,
# without code, macros, URLs and the titles of cited works (quoted as published, mostly in English). A
# match may include an allowed form the pattern had to see in order to skip it ("spekulatives Decoding", the name of the
# method).
BANNED: dict[str, tuple[re.Pattern, str]] = {
    "feintuning": (re.compile(r"\b[Ff]eintun\w*"), "„Fine-Tuning“ (Substantiv), „per Fine-Tuning anpassen“"),
    "duennbesetzt": (re.compile(r"\b[Dd]ünnbesetzt\w*"), "„mit Sparsity“ (Werte heißen dicht oder mit Sparsity)"),
    "tensor_kerne": (re.compile(r"\b(?:Tensor|CUDA)-Kern(?:e|en)?\b"), "„Tensor Cores“, „CUDA Cores“"),
    "decoding": (re.compile(r"(?P<allowed>(?:[Ss]pekulativ\w*|[Ss]peculative)\s+)?(?<!\w)Decoding\b"),
                 "„Tokenerzeugung“ (die Phase heißt in Rechnern und Diagrammen „Decode“)"),
    # Plural only: "des Kernels" is the genitive singular and correct.
    "kernels": (re.compile(r"\b(?:die|den|alle|seine|ihre|deren|eigene|mehrere|viele|einige|wenige)\s+"
                           r"(?:[\w-]+\s+)?(?:[\w]+-)?Kernels\b"), "Plural „Kernel“ („die CUDA-Kernel“)"),
    "skalenfaktor": (re.compile(r"\b(?:Skalenfaktor\w*|Blockskal\w*|Skalen)\b"), "„Skalierungsfaktor(en)“"),
    "lane": (re.compile(r"\b(?:\w*(?:[Vv]ektor|[Rr]echen|SIMD-)spur\w*|Spur(?:en)? der Vektor\w*)"),
             "„Rechenwerk“ / „Vektoreinheit“ (englisch *Lane*)"),
    "im_kopf": (re.compile(r"\bLies\b[^.:!?]*\bim Kopf\b"), "„Beim Vergleich … hilft es, an … zu denken“"),
    "lies_als": (re.compile(r"\bLies\b[^.:!?]*?\bals\b"), "„Diese Werte taugen als …“, „Ein … heißt: …“"),
    "ist_das_was": (re.compile(r"\bist das, was (?:du|man|Sie)\b"), "eine deutsche Wendung („steht und fällt mit …“)"),
    "wie_man_liest": (re.compile(r"\b(?:wie|als) (?:man|du) liest\b|-fache Lesegeschwindigkeit"), "„das …-Fache deines Lesetempos“"),
    "apostroph_s": (re.compile(r"(?<=[A-Za-z0-9.])[’']s\b"), "Genitiv ohne Apostroph („NVIDIAs“, „von llama.cpp“)"),
    # A genitive "s" glued to a file-like name reads as a typo: "llama.cpps Vorgaben".
    "genitiv_dateiname": (re.compile(r"\b[\w-]+\.(?:cpp|js|py)s\b"), "„die Vorgaben von llama.cpp“"),
    # Product names as the vendor writes them; the hyphen only inside a compound ("FP8-Tensor-Cores", "Tensor-Core-Rate").
    "tensor_cores_bindestrich": (re.compile(r"(?<![\w*-])Tensor-Cores?(?![\w*-])"), "„Tensor Cores“ (Bindestrich nur in Zusammensetzungen)"),
    "koepfe": (re.compile(r"\b(?:KV|Attention|Query|Key|Value)-Köpfe?n?\b"), "„KV-Heads“, „Attention-Heads“"),
    "der_batch": (re.compile(r"\b(?:das|dieses|gemeinsames|ganzes|kleines|großes) Batch\b(?!-)"), "„der Batch“, „ein gemeinsamer Batch“"),
    "et_al": (re.compile(r"\bet al\."), "„u. a.“ („Dao u. a., 2022“)"),
    # Pages describe the settled state, not a changelog.
    # One term for decoding (the glossary's): „Decoding“, never „Decodieren“.
    "decodieren": (re.compile(r"\b[Dd]ecodier"), "„Decoding“ (spekulatives Decoding) oder „Tokenerzeugung“"),
    "changelog": (re.compile(r"\b(?:[Nn]eu in|[Jj]etzt auch)\b"), "den Stand beschreiben, nicht die Änderung"),
    # Calques and drifting terms taken out of the pages and calculator messages; none is ever right here.
    # "Replik" is a rejoinder in German; a copy of the model is a "Kopie" (or "Instanz").
    "replik": (re.compile(r"\bReplik(?:en)?\b"), "„Kopie des Modells“"),
    "macht_sinn": (re.compile(r"\b(?:macht|machen|machte|machten)\b[^.,;:!?]{0,40}?\bSinn\b|\bSinn\s+(?:macht|machen)\b"),
                   "„ist sinnvoll“, „lohnt sich“, „ergibt Sinn“"),
    "am_ende_des_tages": (re.compile(r"\b[Aa]m Ende des Tages\b"), "„letztlich“, „unterm Strich“"),
    # "Common claims, checked" as a heading: German says "im Faktencheck".
    "behauptung_geprueft": (re.compile(r"\b\w*[Bb]ehauptung(?:en)?, geprüft\b"), "„… im Faktencheck“"),
    "geshardet": (re.compile(r"\b(?:ge)?shardet\w*"), "„aufgeteilt“ (Sharding)"),
    # One term per concept: the site's reading speed is "Lesetempo", the phase is "Tokenerzeugung"
    # ("Bildgenerierung" for images is right).
    "lesegeschwindigkeit": (re.compile(r"\bLesegeschwindigkeit\w*"), "„Lesetempo“"),
    "generierung": (re.compile(r"\b(?:Text|Token)?[Gg]enerierung\b"), "„Tokenerzeugung“ („Bildgenerierung“ bleibt)"),
    # The phase is "Tokenerzeugung" on the pages; "Decode" names it only in calculators and charts.
    "decode_geschwindigkeit": (re.compile(r"\bDecode-Geschwindigkeit\w*"), "„Tempo der Tokenerzeugung“"),
    # One term for the regime the roofline calls memory-bound: "speichergebunden" (as "rechengebunden").
    "bandbreitengebunden": (re.compile(r"\b(?:[Bb]andbreiten(?:gebunden|begrenzt|limitiert)|[Ss]peicherbegrenzt)\w*"),
                            "„speichergebunden“ (wie „rechengebunden“)"),
    # Serving load is counted in requests: "concurrency" is not "Nebenläufigkeit" (a property of programs).
    "nebenlaeufigkeit": (re.compile(r"\bNebenläufigkeit\w*"), "„Zahl gleichzeitiger Anfragen“"),
    # Calques of English idioms: "data in motion", "a sea of LUTs".
    "daten_in_bewegung": (re.compile(r"\bDaten in Bewegung\b"), "„Datenströme“, „Daten im Fluss“"),
    "meer_aus": (re.compile(r"\b(?:ein|einem|einen)\s+Meer\s+(?:aus|von|kleiner|winziger)\b"), "„eine riesige Zahl …“"),
    # The currency as the formatter writes it ("25.000–40.000 US-$", "US-$/h"): one spelling in labels and prose.
    "us_dollar": (re.compile(r"\bUS\$"), "„US-$“ (wie der Formatierer: „2,5 US-$/h“)"),
    # A sentence that sends the reader to a mouse must offer the tap as well: phones have no mouse.
    "nur_maus": (re.compile(r"[^.!?\n]*\bmit der Maus\b[^.!?\n]*"), "„Tippe auf … oder fahre mit der Maus darüber“"),
    # The particle verb is written as one word where it is not split: "wer mit der Maus darüberfährt"
    # (split only in the imperative or main clause: "fahre mit der Maus darüber").
    "darueber_faehrt": (re.compile(r"\bMaus\s+darüber\s+(?:fährt|fährst|fahren|fuhr)\b"),
                        "„wer mit der Maus darüberfährt“ (zusammengeschrieben)"),
}


def _allowed(rule: str, m: re.Match) -> bool:
    if rule == "decoding":
        return bool(m.group("allowed"))
    if rule == "nur_maus":
        return re.search(r"\b[Tt]ipp", m.group(0)) is not None
    return False


def check_banned(text: str) -> list[Problem]:
    """The banned words and calques in ``text`` (prose: no code, macros, URLs or cited titles)."""
    text = re.sub(r"[ \t]*\n[ \t]*(?!\n)", " ", text)  # a sentence may run over several source lines
    problems = []
    for rule, (pattern, instead) in BANNED.items():
        for m in pattern.finditer(text):
            if _allowed(rule, m):
                continue
            start, end = max(0, m.start() - 40), min(len(text), m.end() + 40)
            problems.append(Problem(rule, f"{m.group(0).strip()} → {instead}", " ".join(text[start:end].split())))
    return problems


_CITED_LINK = re.compile(r"\[[^\]]*\]\((?:https?:)?//[^)]*\)")


def markdown_words(source: str) -> str:
    """The prose of a Markdown page for the word checks: ``markdown_prose`` without links to cited documents
    (their titles are quoted as published)."""
    return markdown_prose(_CITED_LINK.sub(" ", source))


# --- Number and unit in hand-written German prose --------------------------------------------------------------------
# ``unit`` (above) covers the units the formatter writes; in hand-written page sources the same rule holds for the
# units a writer types after a number or after a macro: "{{ intensity(...) }} FLOP/Byte", "4 Bit", "16 Byte"; in translation
# strings after a placeholder as well: "{tokens} Tokens/s", "{usd} US-$" (a rate and a currency are units; "8.192 Tokens",
# a count, is not).
SOURCE_UNITS = ("FLOP/Byte", "FLOP/s", "FLOPs", "FLOP", "Bit", "Byte", "kbit", "Mbit", "Gbit", "Tokens/s", "US-$")
_SOURCE_UNIT_ALT = "|".join(re.escape(u) for u in sorted(SOURCE_UNITS, key=len, reverse=True))
SOURCE_UNIT = re.compile(rf"(?<![\w.,])\d[\d.,]*[ \t\u2009]+(?:{_SOURCE_UNIT_ALT})(?![\w/-])")


def check_source_units(text: str) -> list[Problem]:
    """Number-unit pairs of hand-written page prose joined by a plain space (U+00A0 wanted)."""
    problems = []
    for m in SOURCE_UNIT.finditer(text):
        start, end = max(0, m.start() - 40), min(len(text), m.end() + 40)
        problems.append(Problem("source_unit", m.group(0), " ".join(text[start:end].split())))
    return problems
