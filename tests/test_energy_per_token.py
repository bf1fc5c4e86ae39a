"""Energy per token in the speed answer (issue 37, item 2): joules per token, kWh and electricity cost per
million tokens at the device's power figure from the data set, for the device and the baseline, in the
result (``--json``), the command line's table and the calculator page, in both languages."""

import json
import math

import pytest

from atlas import cli
from atlas.core import calcview, l10n
from calc_results import result_elements
from calculators_support import catalog, ok

EIGHT_B = {"model": "llama-3.1-8b", "weights": "bf16"}


def _tdp(device_id: str):
    return catalog().devices[device_id].get("power", {}).get("tdp_w")


def test_decode_joules_per_token_is_the_power_figure_over_tokens_per_s():
    r = ok("speed", device="rtx-4090", baseline="h100-sxm", **EIGHT_B)
    for which, device_id in (("device", "rtx-4090"), ("baseline", "h100-sxm")):
        entry = r[which]
        energy = entry["energy"]
        tdp = _tdp(device_id)
        assert tdp and energy["watts"] == tdp and energy["watts_source"] == "tdp"
        assert energy["watts_scope"] == "device"
        assert energy["joules_per_token"] == pytest.approx(tdp / entry["tokens_per_s"], rel=1e-12)
        assert energy["kwh_per_million_tokens"] == pytest.approx(energy["joules_per_token"] * 1e6 / 3.6e6, rel=1e-12)
        assert energy["usd_per_million_tokens"] is None  # no price given; the data set's prices are in euros
    assert r["device"]["energy"]["watts"] == 450  # rtx-4090: the whitepaper's total graphics power
    keys = [n["key"] for n in r["notes"]]
    assert "note.energy_tdp" in keys and "note.energy_no_price" in keys


def test_prefill_and_electricity_price():
    r = ok("speed", device="rtx-4090", workload="prefill", context=2048, electricity_usd_per_kwh=0.2, **EIGHT_B)
    energy = r["device"]["energy"]
    assert energy["joules_per_token"] == pytest.approx(450 / r["device"]["tokens_per_s"], rel=1e-12)
    assert energy["usd_per_million_tokens"] == pytest.approx(energy["kwh_per_million_tokens"] * 0.2, rel=1e-12)
    assert energy["electricity_usd_per_kwh"] == 0.2
    assert "note.energy_no_price" not in [n["key"] for n in r["notes"]]


def test_a_batch_shares_the_power_over_all_sequences_tokens():
    one = ok("speed", device="rtx-4090", batch=1, **EIGHT_B)["device"]
    eight = ok("speed", device="rtx-4090", batch=8, **EIGHT_B)["device"]
    # all eight sequences' tokens: tokens_per_s is the total, eight times the per-sequence speed
    assert eight["tokens_per_s"] == pytest.approx(8 * eight["tokens_per_s_per_sequence"])
    assert eight["energy"]["joules_per_token"] == pytest.approx(450 * eight["time_s"] / 8, rel=1e-12)
    assert eight["energy"]["joules_per_token"] < one["energy"]["joules_per_token"] / 4


def test_several_devices_draw_their_power_together():
    r = ok("speed", device="h100-sxm", num_devices=2, **EIGHT_B)["device"]
    assert r["energy"]["watts"] == 2 * _tdp("h100-sxm") and r["energy"]["watts_per_device"] == _tdp("h100-sxm")
    assert r["energy"]["joules_per_token"] == pytest.approx(2 * _tdp("h100-sxm") / r["tokens_per_s"], rel=1e-12)


def test_unified_memory_power_covers_the_package_and_says_so():
    r = ok("speed", device="dgx-spark", **EIGHT_B)
    assert r["device"]["energy"]["watts_scope"] == "package"
    note = next(n for n in r["notes"] if n["key"] == "note.energy_package")
    assert "DGX Spark" in note["message"] and "240" in note["message"]


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_a_device_without_a_power_figure_gives_none_and_a_dash(lang):
    assert _tdp("apple-m4-max") is None
    params = {"device": "apple-m4-max", "baseline": "rtx-4090", **EIGHT_B}
    r = ok("speed", lang=lang, **params)
    assert all(v is None for v in r["device"]["energy"].values())
    json.dumps(r, allow_nan=False)  # no NaN anywhere
    out = calcview.render({"command": "speed", "params": params, "lang": lang}, catalog())
    shown = {p: (v, t) for p, v, t in result_elements(out["html"])}
    assert shown["device.energy.joules_per_token"] == (None, l10n.t(lang, "table.not_stated"))
    value, text = shown["baseline.energy.joules_per_token"]
    assert value == r["baseline"]["energy"]["joules_per_token"]
    assert not any(isinstance(v, float) and math.isnan(v) for v, _ in shown.values())


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_the_page_shows_the_energy_rows_with_data_result(lang):
    params = {"device": "rtx-4090", "baseline": "h100-sxm", "electricity_usd_per_kwh": "0.15", **EIGHT_B}
    r = ok("speed", lang=lang, **params)
    out = calcview.render({"command": "speed", "params": params, "lang": lang}, catalog())
    shown = {p: (v, t) for p, v, t in result_elements(out["html"])}
    for which in ("device", "baseline"):
        for key in ("watts", "joules_per_token", "kwh_per_million_tokens", "usd_per_million_tokens"):
            assert shown[f"{which}.energy.{key}"][0] == r[which]["energy"][key]
        joules = r[which]["energy"]["joules_per_token"]
        assert shown[f"{which}.energy.joules_per_token"][1] == l10n.format_significant(joules, lang, 3)
    for key in ("energy.row.joules_per_token", "energy.row.kwh_per_million", "energy.row.cost_per_million"):
        assert l10n.t(lang, key) in out["html"]
    if lang == "de":
        assert "Energie je Token" in out["html"] and "kWh je Million Tokens" in out["html"]
        assert "," in shown["device.energy.joules_per_token"][1]  # German decimal comma


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_cli_text_and_json_show_energy(lang, capsys):
    argv = ["speed", "--model", "llama-3.1-8b", "--weights", "bf16", "--device", "rtx-4090", "--baseline",
            "apple-m4-max", "--lang", lang]
    assert cli.main(argv) == 0
    text = capsys.readouterr().out
    row = next(line for line in text.splitlines() if line.startswith(l10n.t(lang, "energy.row.joules_per_token")))
    r = ok("speed", lang=lang, device="rtx-4090", baseline="apple-m4-max", **EIGHT_B)
    cells = row.split()
    assert cells[-2] == l10n.format_significant(r["device"]["energy"]["joules_per_token"], lang, 3)
    assert cells[-1] == "-"  # the Mac states no power figure
    assert l10n.t(lang, "note.energy_tdp")[:30] in text
    if lang == "de":
        assert "Energie je Token" in text and "kWh je Million Tokens" in text
    assert cli.main(argv + ["--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["device"]["energy"] == r["device"]["energy"]
    assert result["baseline"]["energy"]["joules_per_token"] is None
