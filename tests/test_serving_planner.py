"""Serving planner (issue 33, item 3): how many users at once a device set serves at a speed per user.

The plan must agree with the speed calculator itself: at the planned concurrency every user gets the target speed
and the KV cache fits; one more user breaks one of the two.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.calculators_support import errors, rendered, result

SERVER = {"model": "llama-3.3-70b", "weights": "fp8", "device": "h100-sxm", "num_devices": 2, "engine": "vllm",
          "workload": "decode"}


def speed_at(params: dict, batch: int) -> dict:
    out = result("speed", {**{k: v for k, v in params.items() if k != "target_tokens_per_s"}, "batch": batch})
    return out["device"]


def test_llama_70b_fp8_on_two_h100_at_20_tokens_per_s_is_what_the_speed_calculator_says():
    plan = result("speed", {**SERVER, "target_tokens_per_s": 20})["plan"]
    users = plan["concurrency"]
    assert users > 8  # continuous batching serves many users at a reading-speed target
    at = speed_at(SERVER, users)
    assert at["tokens_per_s_per_sequence"] >= 20 and at["memory"]["fits"]
    assert plan["tokens_per_s_per_user"] == pytest.approx(at["tokens_per_s_per_sequence"])
    assert plan["tokens_per_s_total"] == pytest.approx(at["tokens_per_s"])
    assert plan["tokens_per_s_total"] == pytest.approx(users * plan["tokens_per_s_per_user"])
    beyond = speed_at(SERVER, users + 1)
    assert plan["limited_by"] == "speed" and beyond["tokens_per_s_per_sequence"] < 20
    # the cost at that load is the speed calculator's cost at that batch
    assert plan["usd_per_million_tokens"] == pytest.approx(at["cost"]["usd_per_million_tokens"])
    assert plan["accuracy"]["cases"] > 0


def test_a_long_context_is_limited_by_the_kv_cache():
    params = {**SERVER, "context": 65536, "target_tokens_per_s": 1}
    plan = result("speed", params)["plan"]
    users = plan["concurrency"]
    assert users >= 1 and plan["limited_by"] == "memory"
    assert speed_at(params, users)["memory"]["fits"] and not speed_at(params, users + 1)["memory"]["fits"]
    # KV cache of all users: Llama 3.3 70B keeps 80 layers x 8 KV heads x 128 x 2 (K and V) x 2 bytes per token
    per_token = 80 * 8 * 128 * 2 * 2
    assert plan["kv_cache_gib"] == pytest.approx(users * 65536 * per_token / 2**30, rel=1e-6)


def test_per_user_speed_falls_and_total_grows_with_users():
    curve = result("speed", {**SERVER, "target_tokens_per_s": 20})["plan"]["curve"]
    assert [p["concurrency"] for p in curve[:4]] == [1, 2, 4, 8]
    for a, b in zip(curve, curve[1:], strict=False):
        assert b["tokens_per_s_per_user"] <= a["tokens_per_s_per_user"]
        assert b["tokens_per_s_total"] >= a["tokens_per_s_total"]


def test_an_unreachable_target_says_what_one_user_gets():
    plan = result("speed", {**SERVER, "target_tokens_per_s": 5000})["plan"]
    assert plan["concurrency"] == 0 and plan["limited_by"] == "speed"
    assert plan["tokens_per_s_per_user"] == pytest.approx(speed_at(SERVER, 1)["tokens_per_s_per_sequence"])


def test_a_model_that_does_not_fit_serves_no_one_in_both_languages():
    params = {"model": "llama-3.1-70b", "weights": "bf16", "device": "rtx-4090", "target_tokens_per_s": 10}
    plan = result("speed", params)["plan"]
    assert plan["concurrency"] == 0 and plan["limited_by"] == "does_not_fit"
    assert "does not fit on RTX 4090" in rendered("speed", params, "en")["html"]
    assert "passt nicht auf RTX 4090" in rendered("speed", params, "de")["html"]


def test_the_planner_is_for_decode_only():
    out = result("speed", {**SERVER, "workload": "prefill", "target_tokens_per_s": 20})
    assert out["plan"] is None
    assert any("decode" in n["message"] for n in out["notes"] if n["key"] == "note.plan_decode_only")


@pytest.mark.parametrize("raw", ["abc", "-5", "0", "1e9"])
def test_bad_targets_get_a_message_on_their_field(raw):
    for lang in ("en", "de"):
        found = errors("speed", lang, **{**SERVER, "target_tokens_per_s": raw})
        assert [e["field"] for e in found] == ["target_tokens_per_s"]
        assert "Traceback" not in found[0]["message"] and found[0]["message"]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_page_states_the_plan_with_its_value(lang):
    out = rendered("speed", {**SERVER, "target_tokens_per_s": 20}, lang)
    users = out["result"]["plan"]["concurrency"]
    match = re.search(r'data-result="plan.concurrency" data-value="(\d+)"[^>]*>([^<]+)<', out["html"])
    assert match and int(match[1]) == users
    words = {"en": f"serve {users} users at once", "de": f"bedienen {users} Nutzer gleichzeitig"}[lang]
    assert words in match[2]
    assert {"en": "<h3>Serving plan</h3>", "de": "<h3>Planung für den Serverbetrieb</h3>"}[lang] in out["html"]


def test_cli_gives_the_plan():
    out = subprocess.run([sys.executable, "-m", "atlas", "speed", "--model", "llama-3.3-70b", "--weights", "fp8",
                          "--device", "h100-sxm", "--num-devices", "2", "--engine", "vllm",
                          "--target-tokens-per-s", "20"], capture_output=True, text=True, check=True).stdout
    users = result("speed", {**SERVER, "target_tokens_per_s": 20})["plan"]["concurrency"]
    assert "Serving plan (target 20 tokens/s per user):" in out
    assert f"2 × H100 SXM with vLLM serve {users} users at once" in out
