"""The GPU's share of unified memory as the reader set it (issue 31, item 4): ``gpu_memory_percent``.

macOS wires about three quarters of the memory for the GPU by default and Linux gives Strix Halo's GPU half; both
can be raised. The reader's setting replaces the platform's default in every calculator, for unified-memory devices
only, and the answer says what was set.
"""

from __future__ import annotations

import pytest

from atlas.core import l10n
from atlas.core.calculators import devices as dev
from atlas.core.calcview.form import LAYOUT
from tests.calculators_support import catalog, errors, rendered, result

STRIX = "ryzen-ai-max-395"
# Llama 3.1 70B in Q8_0 needs about 72 GiB: more than the 64 GiB Linux gives Strix Halo's GPU by default.
BIG = {"model": "llama-3.1-70b", "weights": "q8_0"}


def test_the_share_replaces_the_platform_default_in_the_memory_verdict():
    default = result("vram", {**BIG, "device": STRIX})["verdict"]
    raised = result("vram", {**BIG, "device": STRIX, "gpu_memory_percent": "90"})["verdict"]
    capacity = catalog().devices[STRIX]["memory"]["capacity_gib"]
    assert default["gpu_share"] == dev.gpu_share(catalog().devices[STRIX]) == 0.5
    assert (default["usable_gib"], default["fits"]) == (capacity * 0.5, False)
    assert (raised["gpu_share"], raised["usable_gib"], raised["fits"]) == (0.9, pytest.approx(capacity * 0.9), True)
    assert raised["need_gib"] == pytest.approx(default["need_gib"])  # the model needs what it needs


def test_the_speed_answer_says_does_not_fit_until_the_share_is_raised():
    before = result("speed", {**BIG, "device": STRIX})
    after = result("speed", {**BIG, "device": STRIX, "gpu_memory_percent": "90"})
    assert before["reason"]["key"] == "reason.does_not_fit" and before["reason"]["params"]["available"] == 64
    assert after["reason"] is None and after["device"]["memory"]["fits"]


def test_the_fit_command_finds_a_longer_context_with_the_larger_share():
    plain = result("fit", {"model": "llama-3.1-8b", "weights": "bf16", "device": "apple-m4-max"})
    raised = result("fit", {"model": "llama-3.1-8b", "weights": "bf16", "device": "apple-m4-max",
                            "gpu_memory_percent": "95"})
    assert raised["usable_gib"] == pytest.approx(plain["capacity_gib"] * 0.95)
    assert raised["max_batch"]["batch"] > plain["max_batch"]["batch"] and raised["usable_gib"] > plain["usable_gib"]
    assert raised["max_batch"]["usable_gib"] == pytest.approx(plain["capacity_gib"] * 0.95)


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_the_answer_says_what_was_set_in_the_readers_language(lang):
    notes = [n["message"] for n in result("vram", {**BIG, "device": STRIX, "gpu_memory_percent": "90"}, lang)["notes"]]
    expected = l10n.t(lang, "note.gpu_percent_set", device="Ryzen AI Max+ 395", percent=90, default=50)
    assert expected in notes
    assert "90\u00a0%" in expected


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_a_gpu_with_memory_of_its_own_ignores_the_share_and_says_so(lang):
    plain = result("vram", {**BIG, "device": "rtx-4090"}, lang)
    set_ = result("vram", {**BIG, "device": "rtx-4090", "gpu_memory_percent": "50"}, lang)
    assert set_["verdict"]["usable_gib"] == plain["verdict"]["usable_gib"]
    assert l10n.t(lang, "note.gpu_percent_ignored", device="RTX 4090") in [n["message"] for n in set_["notes"]]


@pytest.mark.parametrize("value", ["5", "101", "abc", "nan"])
def test_a_share_out_of_range_is_a_localized_field_error(value):
    for lang in l10n.LANGUAGES:
        found = errors("vram", lang, **BIG, device=STRIX, gpu_memory_percent=value)
        assert [e["field"] for e in found] == ["gpu_memory_percent"]
        assert "None" not in found[0]["message"] and "nan" not in found[0]["message"].lower()


def test_both_calculator_forms_offer_the_field_and_the_page_shows_the_note():
    for command in ("vram", "speed"):
        assert sum("gpu_memory_percent" in names for _, _, names in LAYOUT[command]) == 1
    html = rendered("speed", {**BIG, "device": STRIX, "gpu_memory_percent": "90"}, "de")["html"]
    assert "Die GPU darf 90" in html
