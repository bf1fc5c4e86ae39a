"""Device names in the reader's language: the one place that turns a name's English descriptive words into German.

The data set stores each device's name as the vendor writes it in English (``name``, ``short_name``). Product
names stay as they are in every language ("Max-Q", "Server Edition", "Founders Edition", "Developer Kit",
"Superchip"); the words that only describe the product ("16-core CPU", "evaluation kit", "launched as", "with")
are English prose inside the name, and a German page shows them in German. ``RULES`` lists those patterns, in the
order they are applied; :func:`device_name` applies them. German also joins a number and its unit with a no-break
space ("80 GB" with U+00A0), as everywhere on the German pages.

Standard library only (shipped to the browser with the rest of the core).
"""

from __future__ import annotations

import re

NBSP = "\u00a0"

# (pattern, replacement) for German, applied in order. Each rule names a recurring English pattern, never one
# device; a test checks every rule and sweeps every device's German name for the English words.
RULES: dict[str, tuple[tuple[re.Pattern, str], ...]] = {
    "de": (
        # "16-core CPU", "40-core GPU" (Apple's chip configurations).
        (re.compile(r"\b(\d+)-core (CPU|GPU|NPU)\b"), r"\1-Kern-\2"),
        # "(VCK190 evaluation kit)": a compound with the board's name.
        (re.compile(r"\b(\S+) evaluation kit\b", re.I), r"\1-Evaluierungskit"),
        (re.compile(r"\bevaluation kit\b", re.I), "Evaluierungskit"),
        (re.compile(r"\bcompute accelerator card\b", re.I), "Beschleunigerkarte"),
        (re.compile(r"\bAI accelerator\b", re.I), "KI-Beschleuniger"),
        # "(HL-338 PCIe card)"
        (re.compile(r"\bPCIe card\b", re.I), "PCIe-Karte"),
        (re.compile(r"\baccelerator card\b", re.I), "Beschleunigerkarte"),
        (re.compile(r"\blaunched as\b", re.I), "eingeführt als"),
        # "Ryzen AI Max+ 395 with Radeon 8060S": a chip with its integrated GPU.
        (re.compile(r" with "), " mit "),
        (re.compile(r"\(per GPU\)"), "(je GPU)"),
        (re.compile(r"\bper GPU\b"), "je GPU"),
        # "Laptop GPU", "GB200 GPU", "Blackwell Ultra GPU in …", "Rubin GPU (…)": German writes the compound with
        # hyphens. Only where "GPU" ends the name or its part; "GPU" inside a name ("Test GPU 9000") stays.
        (re.compile(r"\b([A-Z0-9][\w+]*(?: Ultra)?) GPU(?=$|[),]| in | \()"),
         lambda m: m.group(1).replace(" ", "-") + "-GPU"),
        # "80 GB", "(16 GB)": number and unit joined by a no-break space.
        (re.compile(r"(\d) (GB|TB|GiB|MB)\b"), rf"\1{NBSP}\2"),
    ),
}


def device_name(text: str, lang: str = "en") -> str:
    """``text``, a device name as the data set stores it, in ``lang``: its descriptive words translated.

    English (and any language without rules) returns ``text`` unchanged; ``None`` and "" pass through."""
    if not text:
        return text
    for pattern, replacement in RULES.get(lang, ()):
        text = pattern.sub(replacement, text)
    return text
