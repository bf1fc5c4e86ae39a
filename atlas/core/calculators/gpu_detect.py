"""Which device of the data set a browser's GPU adapter is (WebGPU ``adapter.info``): standard library only.

``navigator.gpu.requestAdapter()`` then ``adapter.info`` gives four strings — ``vendor`` ("nvidia"),
``architecture`` ("lovelace", "rdna-3", "metal-3"), ``device`` and ``description`` ("NVIDIA GeForce RTX 4090");
browsers often leave ``device`` and ``description`` empty. :func:`match` compares them with the data set's own
names (``name``, ``short_name``, ``runtime_names``) and ``vendor``/``architecture`` fields; nothing here lists
devices by hand. Memory size is never in ``adapter.info``: the page must say so.

Never raises: any input (not a dict, not strings, hostile text) gives an answer, at worst "nothing matched".
"""

from __future__ import annotations

import re

MAX_LEN = 200  # longer adapter strings are cut: no real adapter name is this long
ADAPTER_KINDS = ("gpu",)  # kinds a WebGPU adapter can be; Apple SoCs and Strix Halo are "gpu" in the data set
# WebGPU architecture names (Dawn's) that the data set's architecture field spells differently.
ARCHITECTURE_ALIASES = {"ada": "lovelace"}


# Candidates named in the answer line at most; more are summed up with their count.
MAX_NAMED = 6
# Candidates a browser is likely to run on come first.
SEGMENT_ORDER = {"consumer": 0, "workstation": 1, "edge": 2}


def _words(value) -> list[str]:
    if not isinstance(value, str):
        return []
    return re.findall(r"[a-z0-9]+", value[:MAX_LEN].casefold())


def _plain(value) -> list[str]:
    """Words of a name without parenthesised details ("Apple M3 Max (16-core CPU, …)" -> apple m3 max)."""
    if not isinstance(value, str):
        return []
    return _words(re.sub(r"\([^)]*\)", " ", value[:MAX_LEN]))


def _names(device: dict) -> list[list[str]]:
    names = [device.get("name"), device.get("short_name"), *(device.get("runtime_names") or ())]
    return [words for words in (_plain(n) for n in names) if words]


def _contains(haystack: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return any(haystack[i:i + n] == needle for i in range(len(haystack) - n + 1))


def _arch_matches(adapter_arch: str, device_arch) -> bool:
    """Does the data set's architecture ("Ada Lovelace (AD102)") start, at a word, with the adapter's
    ("lovelace", "rdna-3", "xe-2hpg")? Compared without spaces and punctuation."""
    words = _words(device_arch)
    return bool(adapter_arch) and any("".join(words[i:]).startswith(adapter_arch) for i in range(len(words)))


def match(info, devices: dict) -> dict:
    """``{"match": id or None, "candidates": [ids], "by": "name" | "architecture" | "vendor" | None}``.

    ``match`` is set when the description (or device string) names exactly one device of the data set; otherwise
    ``candidates`` lists the devices that fit what the adapter says (the longest name found in the description,
    else vendor and architecture, else vendor alone), sorted by name.
    """
    info = info if isinstance(info, dict) else {}
    vendor = "".join(_words(info.get("vendor")))
    arch = "".join(_words(info.get("architecture")))
    arch = ARCHITECTURE_ALIASES.get(arch, arch)
    gpus = {i: d for i, d in (devices or {}).items()
            if isinstance(d, dict) and d.get("kind") in ADAPTER_KINDS}

    def of_vendor(device: dict) -> bool:
        return not vendor or "".join(_words(device.get("vendor"))) == vendor

    def ordered(ids) -> list[str]:
        """A browser runs on a desk: consumer and workstation devices first, then by name."""
        return sorted(ids, key=lambda i: (SEGMENT_ORDER.get(gpus[i].get("segment"), len(SEGMENT_ORDER)),
                                          str(gpus[i].get("name", "")).casefold(), i))

    for field in ("description", "device"):
        said = _plain(info.get(field))
        if not said:
            continue
        exact = [i for i, d in gpus.items() if any(n == said for n in _names(d))]
        if len(exact) == 1:
            return {"match": exact[0], "candidates": exact, "by": "name"}
        # the longest data-set name inside the description ("AMD Radeon RX 7900 XTX (RADV NAVI31)")
        found = {i: max(len(n) for n in _names(d) if _contains(said, n))
                 for i, d in gpus.items() if of_vendor(d) and any(_contains(said, n) for n in _names(d))}
        if found:
            longest = max(found.values())
            best = [i for i, n in found.items() if n == longest]
            if len(best) == 1 and longest == len(said):
                return {"match": best[0], "candidates": best, "by": "name"}
            return {"match": None, "candidates": ordered(best), "by": "name"}
    if not vendor:
        return {"match": None, "candidates": [], "by": None}
    by_vendor = [i for i, d in gpus.items() if of_vendor(d)]
    by_arch = [i for i in by_vendor if _arch_matches(arch, gpus[i].get("architecture"))]
    if by_arch:
        return {"match": None, "candidates": ordered(by_arch), "by": "architecture"}
    return {"match": None, "candidates": ordered(by_vendor), "by": "vendor" if by_vendor else None}


def _reported(info) -> str:
    """What the adapter said, for the message: its description, else vendor and architecture (cut, plain text)."""
    info = info if isinstance(info, dict) else {}
    parts = [info.get("description")] if isinstance(info.get("description"), str) and info["description"].strip() \
        else [info.get("vendor"), info.get("architecture")]
    return " ".join(" ".join(p[:MAX_LEN].split()) for p in parts if isinstance(p, str) and p.strip())


def message(info, devices: dict, lang: str) -> dict:
    """:func:`match` with the localized lines the page shows: ``lines`` (what was found, that nothing was sent,
    that the memory size cannot be read) — or the "not available" line when the adapter said nothing."""
    from atlas.core import l10n
    from atlas.core.l10n.names import device_name

    lang = lang if lang in l10n.LANGUAGES else l10n.DEFAULT_LANGUAGE
    found = match(info, devices)
    what = _reported(info)
    if not what:
        return {**found, "lines": [l10n.t(lang, "gpu_detect.unavailable")]}
    names = [device_name(str(devices[i].get("name", i)), lang) for i in found["candidates"]]
    if found["match"]:
        first = l10n.t(lang, "gpu_detect.found", name=names[0])
    elif len(names) > MAX_NAMED:  # a vendor alone names dozens of devices: a few, then the list
        first = l10n.t(lang, "gpu_detect.candidates_many", what=what, count=l10n.format_number(len(names), lang, 0),
                       names=", ".join(names[:MAX_NAMED]))
    elif names:
        first = l10n.t(lang, "gpu_detect.candidates", what=what, count=len(names), names=", ".join(names))
    else:
        first = l10n.t(lang, "gpu_detect.none", what=what)
    lines = [first, l10n.t(lang, "gpu_detect.private")]
    if found["match"] or names:
        lines.append(l10n.t(lang, "gpu_detect.memory_unknown"))
    return {**found, "lines": lines}
