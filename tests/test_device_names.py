"""Device names in German: the rule table (atlas.core.l10n.names) and where German pages and answers show them."""

import re

import pytest

from atlas.core import calcview
from atlas.core.calculators.messages import Message
from atlas.core.calcview import form
from atlas.core.l10n.names import NBSP, RULES, device_name
from calculators_support import catalog, ok

# Each recurring English pattern and the German a native technical author writes.
CASES = [
    ("Apple M3 Max (16-core CPU, 40-core GPU, 128 GB)", f"Apple M3 Max (16-Kern-CPU, 40-Kern-GPU, 128{NBSP}GB)"),
    ("AMD Versal AI Core VC1902 (VCK190 evaluation kit)", "AMD Versal AI Core VC1902 (VCK190-Evaluierungskit)"),
    ("AMD Alveo V80 compute accelerator card", "AMD Alveo V80 Beschleunigerkarte"),
    ("Altera Stratix 10 NX 2100 FPGA (launched as Intel Stratix 10 NX)",
     "Altera Stratix 10 NX 2100 FPGA (eingeführt als Intel Stratix 10 NX)"),
    ("AMD Ryzen AI Max+ 395 with Radeon 8060S", "AMD Ryzen AI Max+ 395 mit Radeon 8060S"),
    ("NVIDIA GB200 NVL72 (per GPU)", "NVIDIA GB200 NVL72 (je GPU)"),
    ("NVIDIA GeForce RTX 4090 Laptop GPU", "NVIDIA GeForce RTX 4090 Laptop-GPU"),
    ("Intel Gaudi 3 AI accelerator (HL-338 PCIe card)", "Intel Gaudi 3 KI-Beschleuniger (HL-338 PCIe-Karte)"),
    ("Hailo-8 AI Accelerator", "Hailo-8 KI-Beschleuniger"),
    ("NVIDIA GB300 (Blackwell Ultra GPU in GB300 NVL72)", "NVIDIA GB300 (Blackwell-Ultra-GPU in GB300 NVL72)"),
    ("GB200 GPU", "GB200-GPU"),
    ("AMD Radeon RX 9060 XT (16 GB)", f"AMD Radeon RX 9060 XT (16{NBSP}GB)"),
    # Product names stay as the vendor writes them.
    ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"),
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "NVIDIA RTX PRO 6000 Blackwell Server Edition"),
    ("NVIDIA GeForce RTX 4090 Founders Edition", "NVIDIA GeForce RTX 4090 Founders Edition"),
    ("NVIDIA Jetson AGX Thor Developer Kit", "NVIDIA Jetson AGX Thor Developer Kit"),
    ("NVIDIA GH200 Grace Hopper Superchip", "NVIDIA GH200 Grace Hopper Superchip"),
    ("RTX 4060 Ti 16GB", "RTX 4060 Ti 16GB"),
    ("Test GPU 9000", "Test GPU 9000"),  # "GPU" inside a product name
    ("NVIDIA Rubin GPU (Vera Rubin NVL72)", "NVIDIA Rubin-GPU (Vera Rubin NVL72)"),
]

# English descriptive words that must not reach a German page (whole words, any case).
ENGLISH = re.compile(r"(?i)\b(?:\d+-core|evaluation|compute accelerator|accelerator card|AI accelerator|launched|with|"
                     r"per|card|Laptop GPU)\b")


@pytest.mark.parametrize("english,german", CASES)
def test_each_pattern_has_its_german_form(english, german):
    assert device_name(english, "de") == german
    assert device_name(german, "de") == german  # applying it twice changes nothing
    assert device_name(english, "en") == english


def test_every_rule_is_exercised():
    used = {i for english, _ in CASES for i, (pattern, _) in enumerate(RULES["de"]) if pattern.search(english)}
    # the two fallbacks without a name before them ("evaluation kit", "per GPU" outside brackets) are covered below
    assert used | {2, 10} == set(range(len(RULES["de"])))
    assert device_name("Evaluation kit", "de") == "Evaluierungskit"
    assert device_name("2 × H100 per GPU", "de") == "2 × H100 je GPU"


def test_english_and_empty_names_pass_unchanged():
    assert device_name("", "de") == ""
    assert device_name(None, "de") is None
    assert all(device_name(e, "en") == e for e, _ in CASES)


def test_no_device_keeps_an_english_descriptive_word_in_german(dataset):
    left = {}
    for device in dataset.devices.values():
        for field in ("name", "short_name"):
            german = device_name(device.get(field), "de")
            if german and ENGLISH.search(german):
                left[f'{device["id"]}.{field}'] = german
            if german:
                assert not re.search(r"\d (?:GB|TB|GiB)\b", german), german  # plain space before the unit
    assert not left, left
    apple = dataset.device("apple-m3-max")
    assert device_name(apple["name"], "de") == f"Apple M3 Max (16-Kern-CPU, 40-Kern-GPU, 128{NBSP}GB)"
    assert device_name(apple["name"]) == apple["name"]


def test_device_names_in_messages_follow_the_language():
    note = Message("note.no_compute_peak", {"device": "NVIDIA GeForce RTX 4090 Laptop GPU"})
    assert "RTX 4090 Laptop-GPU" in note.render("de")["message"]
    assert "RTX 4090 Laptop GPU" in note.render("en")["message"]
    assert note.render("de")["params"]["device"] == "NVIDIA GeForce RTX 4090 Laptop GPU"  # the data, unchanged
    shared = Message("note.gpu_share", {"devices": ["RTX 5090 Laptop GPU", "Apple M3 Max"]})
    assert "RTX 5090 Laptop-GPU, Apple M3 Max" in shared.render("de")["message"]


def _html(command, params, lang):
    return calcview.render({"command": command, "params": params, "lang": lang}, catalog())["html"]


def test_a_german_answer_shows_the_german_name():
    params = {"model": "llama-3.1-8b", "weights": "q4_k_m", "device": "gb200", "baseline": "h100-sxm"}
    assert ok("speed", lang="de", **params)["device"]["name"] == "GB200 GPU"  # the result carries the data's name
    german, english = _html("speed", params, "de"), _html("speed", params, "en")
    # headline, reason, table head, measurement note, roofline labels: all German
    assert "GB200-GPU ist" in german and "GB200 GPU" not in german
    assert '<th scope="col">GB200-GPU</th>' in german
    assert "GB200 GPU is" in english and "GB200-GPU" not in english


def test_a_german_fit_table_and_picker_show_german_names():
    params = {"model": "llama-3.1-405b", "weights": "bf16", "context": 8192}
    german = _html("vram", params, "de")
    assert '<th scope="row">GB200-GPU</th>' in german and "GB200 GPU" not in german
    assert '<th scope="row">GB200 GPU</th>' in _html("vram", params, "en")
    gb200 = catalog().devices["gb200"]
    assert form.device_name(gb200, "de") == "GB200-GPU" and form.device_name(gb200) == "GB200 GPU"


def test_a_german_table_row_header_shows_the_german_names(dataset):
    from atlas.data import tables

    m3 = dataset.device("apple-m3-max")
    cell = tables.name_cell(m3, "de")
    assert cell == f'<th scope="row" title="Apple M3 Max (16-Kern-CPU, 40-Kern-GPU, 128{NBSP}GB)">Apple M3 Max</th>'
    assert "16-core CPU" in tables.name_cell(m3, "en")
    html = tables.device_table(dataset.devices, "de", ["name", "memory"], ids=["gb200", "apple-m3-max"])
    assert ">GB200-GPU</th>" in html and "40-core" not in html and "Blackwell-GPU in GB200 NVL72" in html


def test_the_gpu_detection_line_names_the_device_in_german():
    from atlas.core.calculators import gpu_detect

    info = {"vendor": "nvidia", "architecture": "ada-lovelace", "description": "NVIDIA GeForce RTX 4090 Laptop GPU"}
    found = gpu_detect.match(info, catalog().devices)
    if found["match"] != "rtx-4090-laptop":
        pytest.skip(f"the adapter info does not single out the laptop card here: {found}")
    assert "RTX 4090 Laptop-GPU" in gpu_detect.message(info, catalog().devices, "de")["lines"][0]
    assert "RTX 4090 Laptop GPU" in gpu_detect.message(info, catalog().devices, "en")["lines"][0]
