"""Issue 31, item 4: memory configurations are device choices, and unified memory gets no "system memory" offload.

A choice ``<device>@<GiB>`` is the device with that memory (a configuration the data set lists, with its
bandwidth, or the size the reader owns); the plain id stays the default configuration, so old links and command
lines keep their meaning. gpt-oss-120b as published (MXFP4) needs 61-65 GiB with a 4,096-token context
(tests/test_native_format_fit_first.py); the M3 Max's GPU may use 0.84 of its memory by default
(data/hardware/apple/apple-m3-max.yaml, macOS 26 on 128 GB hosts): 53.76 GiB of 64 GiB, 107.52 GiB of 128 GiB.
"""

import json
import re

import pytest

from atlas.cli import main as cli_main
from atlas.core import calcview
from atlas.core.calculators import devices as dev
from atlas.core.calculators.api import handle
from atlas.core.calculators.inputs import BY_NAME
from atlas.core.calcview import form
from calculators_support import catalog


def call(command, params, lang="en"):
    response = handle({"command": command, "params": params, "lang": lang}, catalog())
    assert response["ok"], response.get("errors")
    return response["result"]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_gpt_oss_120b_does_not_fit_a_64_gb_m3_max_but_fits_the_128_gb_one(lang):
    small = call("vram", {"model": "gpt-oss-120b", "device": "apple-m3-max@64"}, lang)["verdict"]
    assert small["capacity_gib"] == 64 and small["usable_gib"] == pytest.approx(53.76)
    assert 61 <= small["need_gib"] <= 65 and not small["fits"]
    assert small["offload"] is None and small["suggestions"]["moe_offload"] is None  # unified: no system RAM
    large = call("vram", {"model": "gpt-oss-120b", "device": "apple-m3-max"}, lang)["verdict"]
    assert large["capacity_gib"] == 128 and large["usable_gib"] == pytest.approx(107.52) and large["fits"]
    assert call("vram", {"model": "gpt-oss-120b", "device": "apple-m3-max@128"}, lang)["verdict"] == large


@pytest.mark.parametrize("lang", ["en", "de"])
def test_speed_on_a_64_gb_m3_max_says_it_does_not_fit_and_never_suggests_system_memory(lang):
    result = call("speed", {"model": "gpt-oss-120b", "device": "apple-m3-max@64"}, lang)
    memory = result["device"]["memory"]
    assert memory["usable_gib"] == pytest.approx(53.76) and not memory["fits"]
    assert memory["suggestions"]["gpu_layers"] is None and memory["runs_instead"]["change"] != "gpu_layers"
    out = calcview.render({"command": "speed", "params": {"model": "gpt-oss-120b", "device": "apple-m3-max@64"},
                           "lang": lang}, catalog())
    text = out["html"] + out.get("summary", "")
    assert "--gpu-layers" not in text
    assert ("system memory" if lang == "en" else "Arbeitsspeicher") not in text.replace("Systemspeicher", "")


def test_speed_on_an_m3_max_never_says_system_memory_for_a_model_too_large():
    result = call("speed", {"model": "llama-3.1-70b", "device": "apple-m3-max", "weights": "bf16"})
    memory = result["device"]["memory"]
    assert not memory["fits"] and memory["suggestions"]["gpu_layers"] is None
    # a card with its own memory still gets the layer offload
    card = call("speed", {"model": "llama-3.1-70b", "device": "rtx-4090", "weights": "bf16"})["device"]["memory"]
    assert 0 < card["suggestions"]["gpu_layers"] < 80


def test_a_listed_configuration_brings_its_own_memory_and_an_old_link_the_default():
    eight = call("speed", {"model": "llama-3.1-8b", "device": "rtx-4060-ti-16gb@8", "weights": "q4_k_m"})
    assert eight["device"]["memory"]["usable_gib"] == pytest.approx(8)
    old = call("speed", {"model": "llama-3.1-8b", "device": "rtx-4060-ti-16gb", "weights": "q4_k_m"})
    assert old["device"]["memory"]["usable_gib"] == pytest.approx(16)
    # the same configuration as a baseline
    base = call("speed", {"model": "llama-3.1-8b", "device": "rtx-4090", "baseline": "apple-m3-max@64",
                          "weights": "q4_k_m"})["baseline"]["memory"]
    assert base["usable_gib"] == pytest.approx(53.76)


@pytest.mark.parametrize("value, normalised", [("apple-m3-max@64.0", "apple-m3-max@64"),
                                               ("Apple-M3-Max@128", "apple-m3-max"),
                                               ("apple-m3-max@ 96 ", "apple-m3-max@96"),
                                               ("rtx-4060-ti-16gb@8", "rtx-4060-ti-16gb@8")])
def test_choice_values_are_normalised(value, normalised):
    from atlas.core.calculators.inputs import parse_value
    assert parse_value(BY_NAME["device"], value, catalog()) == normalised


@pytest.mark.parametrize("value", ["apple-m3-max@", "apple-m3-max@x", "apple-m3-max@0", "apple-m3-max@-8",
                                   "apple-m3-max@inf", "nothing@64", "@64"])
def test_bad_choices_are_field_errors(value):
    response = handle({"command": "vram", "params": {"model": "gpt-oss-120b", "device": value}, "lang": "de"},
                      catalog())
    assert not response["ok"]
    assert [e["field"] for e in response["errors"]] == ["device"]
    assert response["errors"][0]["key"] == "error.unknown_value"


def test_the_cli_accepts_the_same_choice(capsys):
    assert cli_main(["vram", "--model", "gpt-oss-120b", "--device", "apple-m3-max@64", "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)["verdict"]
    assert verdict["capacity_gib"] == 64 and not verdict["fits"]
    assert cli_main(["speed", "--model", "gpt-oss-120b", "--device", "apple-m3-max@64", "--lang", "de"]) == 0
    out = capsys.readouterr().out
    assert "--gpu-layers" not in out and "Arbeitsspeicher" not in out


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("command", ["vram", "speed"])
def test_pickers_offer_each_memory_size_once(command, lang):
    html = form.form_html(command, {"model": "gpt-oss-120b", "device": "apple-m3-ultra@96"}, lang, catalog())
    nbsp = "\u00a0"
    shown = {value: (text, " selected" in attrs)
             for value, attrs, text in re.findall(r'<option value="([^"]*)"([^>]*)>([^<]*)</option>',
                                                  re.search(rf'<select id="calc-{command}-device".*?</select>', html)[0])}
    assert shown["rtx-4060-ti-16gb@8"] == (f"RTX 4060 Ti · 8{nbsp}GiB", False)
    assert shown["rtx-4060-ti-16gb"] == (f"RTX 4060 Ti · 16{nbsp}GiB", False)
    assert shown["apple-m3-ultra@96"] == (f"Apple M3 Ultra · 96{nbsp}GiB", True)
    assert shown["apple-m3-ultra"] == (f"Apple M3 Ultra · 512{nbsp}GiB", False)
    options = re.findall(r"<option [^>]*>([^<]*)</option>", html)
    assert not [o for o in options if re.search(r"\d–\d", o)]  # no more "RTX 4060 Ti 16GB · 8–16 GiB"
    values = form.choices(BY_NAME["device"], catalog())
    sizes = {device_id: {device["memory"]["capacity_gib"]}
             | {c["capacity_gib"] for c in device["memory"].get("configurations", [])}
             for device_id, device in catalog().devices.items() if dev.has_own_memory(device)}
    assert len(sizes["apple-m3-ultra"]) >= 2 and len(sizes["rtx-4060-ti-16gb"]) == 2
    # one choice per device and memory size the data set lists, each once
    assert len(values) == len(set(values)) == sum(len(s) for s in sizes.values())


@pytest.mark.parametrize("lang", ["en", "de"])
def test_each_device_choice_carries_the_size_in_its_label_for_typed_memory(lang):
    html = form.form_html("vram", {"model": "gpt-oss-120b"}, lang, catalog())
    for value, gib in (("apple-m3-max", "128"), ("rtx-4060-ti-16gb@8", "8"), ("apple-m3-ultra", "512")):
        option = re.search(rf'<option value="{re.escape(value)}"[^>]*>([^<]*)</option>', html)
        assert f'data-gib="{gib}"' in option.group(0) and option.group(1).endswith(f"{gib}\u00a0GiB")


def test_the_m3_max_is_sold_with_64_gb_at_the_40_core_bandwidth():
    # Apple's tech specs: M3 Max with 16-core CPU and 40-core GPU (400GB/s), 48GB, configurable to 64GB or 128GB.
    import yaml

    with open("data/hardware/apple/apple-m3-max.yaml", encoding="utf-8") as handle:
        rows = yaml.safe_load(handle)["memory"]["configurations"]
    by_size = {row["capacity_gib"]: row for row in rows}
    assert sorted(by_size) == [36, 48, 64, 96, 128]
    assert by_size[64]["bandwidth_gb_s"] == 400 and "16-core CPU, 40-core GPU" in by_size[64]["label"]
    assert by_size[96]["bandwidth_gb_s"] == 300
    # a 64 GB choice brings the 400 GB/s of its version, not the 300 GB/s of the 96 GB one
    result = call("speed", {"model": "llama-3.1-8b", "device": "apple-m3-max@64", "weights": "q4_k_m"})
    assert result["device"]["memory"]["usable_gib"] == pytest.approx(53.76)
    assert result["device"]["bandwidth_gb_s"] == pytest.approx(400)
