"""atlas.core.calculators.gpu_detect: WebGPU adapter info -> devices of the data set (matched by the data's own names)."""

from __future__ import annotations

import re

import pytest

from atlas.core.calculators import gpu_detect
from atlas.core.l10n.names import device_name


@pytest.fixture(scope="module")
def devices(dataset):
    return dataset.devices


def test_a_full_description_selects_one_device(devices):
    found = gpu_detect.match({"vendor": "nvidia", "architecture": "lovelace", "description": "NVIDIA GeForce RTX 4090"},
                             devices)
    assert found == {"match": "rtx-4090", "candidates": ["rtx-4090"], "by": "name"}


def test_apple_chip_by_description(devices):
    found = gpu_detect.match({"vendor": "apple", "architecture": "metal-3", "description": "Apple M3 Max"}, devices)
    assert found["match"] == "apple-m3-max"


def test_a_driver_suffix_in_parentheses_is_ignored(devices):
    found = gpu_detect.match({"description": "AMD Radeon RX 7900 XTX (RADV NAVI31)"}, devices)
    assert found["match"] == "radeon-rx-7900-xtx"


def test_a_laptop_part_is_not_taken_for_the_desktop_card(devices):
    found = gpu_detect.match({"description": "NVIDIA GeForce RTX 4090 Laptop GPU"}, devices)
    assert found["match"] == "rtx-4090-laptop"


def test_a_longer_unknown_name_gives_candidates_not_a_choice(devices):
    found = gpu_detect.match({"description": "NVIDIA GeForce RTX 4090 D"}, devices)
    assert found["match"] is None
    assert found["candidates"] == ["rtx-4090"]


@pytest.mark.parametrize("arch", ["ada", "lovelace"])
def test_vendor_and_architecture_only_give_the_architecture_family(devices, arch):
    found = gpu_detect.match({"vendor": "nvidia", "architecture": arch}, devices)
    assert found["match"] is None and found["by"] == "architecture"
    assert {"rtx-4090", "rtx-4060", "l40s"} <= set(found["candidates"])
    assert all("Ada Lovelace" in devices[i]["architecture"] for i in found["candidates"])
    expected = {i for i, d in devices.items()
                if d["vendor"] == "NVIDIA" and d["kind"] == "gpu" and "Lovelace" in d["architecture"]}
    assert set(found["candidates"]) == expected


def test_amd_rdna3_includes_the_strix_halo_igpu(devices):
    found = gpu_detect.match({"vendor": "amd", "architecture": "rdna-3"}, devices)
    assert {"radeon-rx-7900-xtx", "ryzen-ai-max-395"} <= set(found["candidates"])
    assert not any(i.startswith("radeon-rx-9") for i in found["candidates"])  # RDNA 4


def test_apple_metal_family_is_no_chip_generation(devices):
    found = gpu_detect.match({"vendor": "apple", "architecture": "metal-3"}, devices)
    assert found["by"] == "vendor"
    assert set(found["candidates"]) == {i for i, d in devices.items() if d["vendor"] == "Apple" and d["kind"] == "gpu"}


def test_only_graphics_adapters_are_candidates(devices):
    found = gpu_detect.match({"vendor": "amd"}, devices)
    assert found["candidates"] and all(devices[i]["kind"] == "gpu" for i in found["candidates"])
    assert "epyc-9654" not in found["candidates"]


HOSTILE = [None, 42, [], "text", {}, {"vendor": None}, {"vendor": 7, "description": ["x"]},
           {"description": ""}, {"description": "   "}, {"vendor": "", "architecture": ""},
           {"vendor": "unknown-vendor", "architecture": "zz"}, {"description": "<script>alert(1)</script>" * 500},
           {"description": "\x00\ud800{name}{0}%s"}, {"vendor": "nvidia" * 10000}, {"description": "((((("}]


@pytest.mark.parametrize("info", HOSTILE)
def test_bad_input_never_raises(devices, info):
    found = gpu_detect.match(info, devices)
    assert found["match"] is None
    for lang in ("en", "de"):
        answer = gpu_detect.message(info, devices, lang)
        assert answer["lines"] and all(isinstance(line, str) and line for line in answer["lines"])


def test_empty_catalogue_and_bad_entries(devices):
    assert gpu_detect.match({"description": "NVIDIA GeForce RTX 4090"}, {}) == {"match": None, "candidates": [],
                                                                                "by": None}
    assert gpu_detect.match({"description": "X"}, {"bad": None, "worse": "text"})["match"] is None


def test_messages_say_what_was_found_that_nothing_was_sent_and_that_memory_is_unknown(devices):
    en = gpu_detect.message({"description": "NVIDIA GeForce RTX 4090"}, devices, "en")
    assert en["match"] == "rtx-4090"
    assert "NVIDIA GeForce RTX 4090" in en["lines"][0]
    assert "nothing was sent" in en["lines"][1]
    assert "memory size" in en["lines"][2]
    de = gpu_detect.message({"vendor": "nvidia", "architecture": "ada"}, devices, "de")
    assert de["match"] is None
    assert f"Dazu passen {len(de['candidates'])} Geräte" in de["lines"][0] and "NVIDIA GeForce RTX 4060," in de["lines"][0]
    # consumer cards first: a browser runs on a desk, not in a data centre
    segments = [devices[i]["segment"] for i in de["candidates"]]
    assert segments == sorted(segments, key=lambda s: gpu_detect.SEGMENT_ORDER.get(s, 9))
    assert "nichts wurde irgendwohin gesendet" in de["lines"][1]
    assert "Speichergröße" in de["lines"][2]


def test_no_adapter_information_says_detection_is_unavailable(devices):
    assert gpu_detect.message({}, devices, "de")["lines"] == [
        "Dein Browser gibt seinen Grafikadapter nicht preis (kein WebGPU), daher ist keine Erkennung möglich: "
        "Wähle dein Gerät aus der Liste."]
    assert gpu_detect.message({}, devices, "xx")["lines"][0].startswith("Your browser does not reveal")


def test_every_runtime_name_of_a_gpu_finds_its_device(devices):
    """The catalogue is the test: each GPU's own reported names select it."""
    for device_id, device in devices.items():
        if device.get("kind") != "gpu":
            continue
        for name in device.get("runtime_names") or ():
            assert gpu_detect.match({"description": name}, devices)["match"] == device_id, name


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_page_reaches_the_matcher_through_the_worker_entry_point(devices, lang):
    """The worker may call only ``atlas.core.pyweb.ENTRY_POINTS``; ``atlas.core.calculators.gpu_detect`` answers with the catalogue the
    page loaded, and bad payloads get the localized "not available" line, not an exception."""
    from atlas.core import pyweb
    from atlas.core.calculators.catalog import Catalog
    from atlas.core.calcview import browser

    module, _, function = pyweb.ENTRY_POINTS["calculators.gpu_detect"].partition(":")
    assert (module, function) == ("atlas.core.calcview.browser", "gpu_detect_entry")
    saved = browser._catalog
    browser._catalog = Catalog(devices=devices)
    try:
        answer = browser.gpu_detect_entry({"adapter": {"vendor": "nvidia", "description": "NVIDIA GeForce RTX 4090"},
                                           "lang": lang})
        assert answer["match"] == "rtx-4090" and len(answer["lines"]) == 3
        for bad in (None, "x", {"adapter": 5, "lang": "xx"}):
            bad_answer = browser.gpu_detect_entry(bad)
            assert bad_answer["match"] is None and len(bad_answer["lines"]) == 1
    finally:
        browser._catalog = saved


@pytest.mark.parametrize("lang,label", [("en", "Detect my GPU"), ("de", "Meine GPU erkennen")])
@pytest.mark.parametrize("command", ["vram", "speed"])
def test_the_device_picker_has_a_hidden_detect_button_in_both_languages(command, lang, label):
    """The button sits under the reader's device picker only (not the speed page's baseline), hidden until
    gpu-detect.mjs finds WebGPU, with the page's 'not available' line for when no answer comes."""
    from atlas.core import l10n
    from atlas.core.calcview import form
    from calculators_support import catalog

    html = form.form_html(command, form.initial_values(command, {"model": "llama-3.1-8b"}, catalog()), lang, catalog())
    boxes = re.findall(r'<div class="atlas-calc-gpu" data-gpu-detect="([^"]+)" data-unavailable="([^"]+)" hidden>'
                       r'(.*?)</div></div>', html)
    assert len(boxes) == 1
    target, unavailable, inner = boxes[0]
    assert target == f"calc-{command}-device" and f'<select id="{target}"' in html
    assert unavailable == l10n.t(lang, "gpu_detect.unavailable").replace("'", "&#x27;")
    assert re.search(rf'<button type="button" class="md-button" data-gpu-detect-run aria-controls="{target}-gpu">'
                     rf'{label}</button>', inner)
    assert f'<div id="{target}-gpu" class="atlas-calc-gpu-answer" data-gpu-detect-answer role="status"' in inner
    # inside the device field, after its picker
    field = html[html.rindex('<div class="atlas-calc-field">', 0, html.index(f'<select id="{target}"')):]
    assert field.index(f'<select id="{target}"') < field.index("data-gpu-detect=") < field.index(f'id="{target}-help"')


@pytest.mark.parametrize("lang, words", [("en", "devices in this list fit that"), ("de", "Geräte dieser Liste")])
def test_a_vendor_alone_names_a_few_devices_and_their_count_not_all(devices, lang, words):
    answer = gpu_detect.message({"vendor": "nvidia"}, devices, lang)
    count = len(answer["candidates"])
    assert count > gpu_detect.MAX_NAMED
    first = answer["lines"][0]
    assert words in first
    named = [device_name(devices[i]["name"], lang) for i in answer["candidates"]]  # as the page's language writes them
    assert sum(name in first for name in named) == gpu_detect.MAX_NAMED
    grouped = f"{count:,}".replace(",", "." if lang == "de" else ",")
    assert f" {grouped} " in first
