"""Speculative decoding and multi-token prediction (issue 37, item 3): the expected speed-up from the acceptance
rate and the speed model's own step times, the drafter's memory, and refusals where the engine or model cannot.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from atlas.core import l10n
from atlas.core.calculators import speculative
from atlas.core.calculators.models import ModelSpec
from calculators_support import catalog, errors, rendered, result

MTP = {"model": "deepseek-v3", "weights": "fp8", "device": "h200-sxm", "num_devices": 8, "engine": "vllm"}
DRAFT = {"model": "llama-3.1-70b", "weights": "q4_k_m", "device": "rtx-4090", "num_devices": 2,
         "speculative": "draft", "draft_model": "llama-3.2-1b", "acceptance_percent": 70}


def plain(params: dict) -> dict:
    return result("speed", {k: v for k, v in params.items()
                            if k not in ("speculative", "draft_model", "acceptance_percent", "draft_tokens")})


@pytest.mark.parametrize(("acceptance", "drafted", "expected"), [
    (0.85, 1, 1.85),  # DeepSeek-V3's one MTP module at 85 %
    (0.0, 5, 1.0),  # nothing accepted: the model's own token only
    (1.0, 4, 5.0),  # everything accepted
    (0.7, 5, (1 - 0.7 ** 6) / 0.3),
])
def test_tokens_per_run_is_leviathans_expectation(acceptance, drafted, expected):
    assert speculative.tokens_per_run(acceptance, drafted) == pytest.approx(expected)


def test_deepseek_v3_mtp_speeds_decode_up_by_less_than_the_tokens_per_run():
    with_mtp = result("speed", {**MTP, "speculative": "mtp"})["device"]
    without = plain(MTP)["device"]
    spec = with_mtp["speculative"]
    assert (spec["method"], spec["draft_tokens"], spec["acceptance"], spec["acceptance_source"]) == \
        ("mtp", 1, 0.85, "default")
    assert spec["tokens_per_run"] == pytest.approx(1.85)
    # verifying two positions and running the module cost more than one plain step
    assert 1.3 < spec["speedup"] < spec["tokens_per_run"]
    assert with_mtp["tokens_per_s"] == pytest.approx(without["tokens_per_s"] * spec["speedup"])
    assert spec["plain_step_s"] == pytest.approx(without["time_s"])
    assert spec["verify_step_s"] > spec["plain_step_s"]
    # the module's weights: its share of the parameters, in the same format, split over the 8 GPUs
    model = ModelSpec.from_preset("deepseek-v3", catalog().models["deepseek-v3"])
    share = speculative.mtp_params(model) / model.count_params()
    weights_gib = without["memory"]["need_gib"]  # weights dominate; check the extra against the module's share
    assert with_mtp["memory"]["speculation_gib"] > 0.5
    assert with_mtp["memory"]["speculation_gib"] < weights_gib * share * 1.05
    assert with_mtp["memory"]["need_gib"] == pytest.approx(
        without["memory"]["need_gib"] + with_mtp["memory"]["speculation_gib"])


def test_a_draft_model_pays_for_its_own_steps_and_memory():
    with_draft = result("speed", DRAFT)["device"]
    without = plain(DRAFT)["device"]
    spec = with_draft["speculative"]
    assert (spec["draft_model"], spec["draft_tokens"], spec["acceptance_source"]) == ("llama-3.2-1b", 5, "reader")
    assert 1 < spec["speedup"] < spec["tokens_per_run"]
    assert 0 < spec["draft_step_s"] < spec["plain_step_s"] / 3  # a 1B draft runs far faster than the 70B model
    assert with_draft["tokens_per_s"] == pytest.approx(without["tokens_per_s"] * spec["speedup"])
    assert with_draft["memory"]["speculation_gib"] > 0.3


def test_more_acceptance_means_more_speed_and_useless_drafts_slow_decoding_down():
    speeds = [result("speed", {**DRAFT, "acceptance_percent": a})["device"]["speculative"]["speedup"]
              for a in (5, 40, 70, 95)]
    assert speeds == sorted(speeds)
    assert speeds[0] < 1  # drafts that are almost never accepted cost time


def test_the_gain_shrinks_at_high_concurrency():
    server = {"model": "llama-3.1-70b", "weights": "fp8", "device": "h100-sxm", "num_devices": 2, "engine": "vllm",
              "speculative": "draft", "draft_model": "llama-3.2-1b", "acceptance_percent": 70}
    one = result("speed", {**server, "batch": 1})["device"]["speculative"]["speedup"]
    many = result("speed", {**server, "batch": 128})["device"]["speculative"]["speedup"]
    assert many < one


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_engines_and_models_that_cannot_are_refused_in_the_readers_language(lang):
    found = errors("speed", lang, model="llama-3.1-8b", device="rtx-4090", speculative="mtp")
    assert {e["key"] for e in found} == {"error.speculative_engine", "error.no_mtp"}
    engine = next(e for e in found if e["key"] == "error.speculative_engine")
    assert engine["field"] == "speculative" and "llama.cpp" in engine["message"] and "vllm" in engine["message"]
    found = errors("speed", lang, model="llama-3.1-70b", device="h100-sxm", engine="vllm", speculative="draft",
                   draft_model="qwen3-0.6b", acceptance_percent="60")
    assert [e["key"] for e in found] == ["error.draft_vocab"]
    assert l10n.format_number(151936, lang, 0) in found[0]["message"]
    # No draft model named and none in the list small enough with the model's tokenizer: the field says so.
    found = errors("speed", lang, model="mistral-small-3.2-24b", device="h100-sxm", engine="vllm", speculative="draft")
    assert [(e["field"], e["key"]) for e in found] == [("draft_model", "error.no_default_draft")]
    assert "Mistral Small 3.2 24B" in found[0]["message"] and "None" not in found[0]["message"]
    assert f"{speculative.DRAFT_MAX_ACTIVE_PERCENT}\u00a0%" in found[0]["message"]  # the rule's own share
    found = errors("speed", lang, model="llama-3.1-70b", device="h100-sxm", engine="vllm", speculative="draft",
                   draft_model="custom")
    assert [e["key"] for e in found] == ["error.draft_custom"]


@pytest.mark.parametrize(("model_id", "expected"), [
    ("llama-3.1-70b", "llama-3.2-1b"),  # the help text's example
    ("llama-3.1-8b", "llama-3.2-1b"),
    ("qwen3-32b", "qwen3-0.6b"),
    ("qwen3-30b-a3b", "qwen3-0.6b"),  # 0.6 B against 3.3 B read per token
    ("gemma-3-27b", "gemma-3-270m"),
    ("gemma-2-27b", "gemma-2-9b"),
    ("deepseek-r1-distill-llama-70b", "deepseek-r1-distill-llama-8b"),  # DeepSeek's own, not Meta's 1B
    ("mistral-7b", None),  # Llama 2 7B has its vocabulary size, not its publisher (nor its tokenizer)
    ("minimax-m2.5", None),  # Phi-4-mini: the same vocabulary size, another tokenizer
    ("gpt-oss-120b", None),  # gpt-oss-20b reads 3.6 B parameters a token, more than half of 5.1 B
    ("llama-3.2-1b", None),  # the smallest of its kind
    ("custom", None),
])
def test_the_automatic_draft_model_is_the_smallest_of_the_same_publisher_and_vocabulary(model_id, expected):
    assert speculative.default_draft(model_id, catalog().models) == expected


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_a_draft_model_left_empty_is_chosen_and_named(lang):
    params = {k: v for k, v in DRAFT.items() if k != "draft_model"}
    spec = result("speed", params, lang)["device"]["speculative"]
    assert (spec["draft_model"], spec["draft_model_name"]) == ("llama-3.2-1b", "Llama 3.2 1B")
    assert spec == result("speed", DRAFT, lang)["device"]["speculative"]  # as if the reader had picked it
    sentence = next(n["message"] for n in result("speed", params, lang)["notes"]
                    if n["key"].startswith("note.speculative_draft"))
    assert "Llama 3.2 1B" in sentence


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_the_draft_model_picker_starts_empty_and_offers_only_presets(lang):
    """The page's draft-model select starts on "automatic" (so a shared link carries no draft model unless the
    reader picked one: it showed DeepSeek-R1, the first name, and put it into every link) and offers no custom
    architecture (a draft model must be a preset)."""
    import re

    from atlas.core.calcview import form

    html = form.form_html("speed", form.initial_values("speed", {"model": "llama-3.1-8b"}, catalog()), lang,
                          catalog())
    select = re.search(r'<select id="calc-speed-draft-model"[^>]*>(.*?)</select>', html, re.S)[1]
    values = re.findall(r'<option value="([^"]*)"', select)
    assert values[0] == "" and re.search(r"<option value=\"\">([^<]*)<", select)[1] == l10n.t(
        lang, "calc.auto.draft_model")
    assert "custom" not in values and sorted(values[1:]) == sorted(catalog().models)
    model = re.search(r'<select id="calc-speed-model"[^>]*>(.*?)</select>', html, re.S)[1]
    assert 'value="custom"' in model and '<option value="">' not in model


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_the_page_and_the_cli_say_what_the_drafter_does(lang):
    html = rendered("speed", {**MTP, "speculative": "mtp"}, lang)["html"]
    spec = result("speed", {**MTP, "speculative": "mtp"}, lang)
    sentence = next(n["message"] for n in spec["notes"] if n["key"] == "note.speculative_mtp")
    assert l10n.format_significant(spec["device"]["speculative"]["speedup"], lang, 3) in sentence
    assert sentence.split("≈")[0].strip()[:40] in html
    prefill = result("speed", {**MTP, "speculative": "mtp", "workload": "prefill"}, lang)
    assert "note.speculative_decode_only" in [n["key"] for n in prefill["notes"]]
    assert prefill["device"]["speculative"] is None


def test_the_command_line_takes_the_options():
    out = subprocess.run([sys.executable, "-m", "atlas", "speed", "--model", "llama-3.1-70b", "--weights",
                          "q4_k_m", "--device", "rtx-4090", "--num-devices", "2", "--speculative", "draft",
                          "--draft-model", "llama-3.2-1b", "--acceptance-percent", "70"],
                         capture_output=True, text=True, check=True).stdout
    assert "Llama 3.2 1B as draft model" in out and "70" in out


def test_the_serving_planner_plans_with_the_drafter():
    base = {**MTP, "workload": "decode", "target_tokens_per_s": 40}
    with_mtp = result("speed", {**base, "speculative": "mtp"})["plan"]
    without = result("speed", base)["plan"]
    assert with_mtp["tokens_per_s_per_user"] >= 40
    assert with_mtp["concurrency"] >= without["concurrency"]


TASK = {k: v for k, v in DRAFT.items() if k != "acceptance_percent"}


def test_spec_bench_chat_row_gives_the_derived_acceptance():
    # Spec-Bench SpS (A100, Vicuna-7B): chat 1.66x, overall 1.49x at 2.28 mean accepted tokens; k = 5
    assert speculative.task_tokens_per_run("chat") == pytest.approx(2.28 * 1.66 / 1.49)
    a = speculative.task_acceptance("chat")
    assert a == pytest.approx(0.6312, abs=1e-3)
    assert speculative.tokens_per_run(a, 5) == pytest.approx(2.540, abs=1e-3)
    assert speculative.task_acceptance("translation") == pytest.approx(0.4251, abs=1e-3)


def test_a_draft_model_defaults_to_the_task_types_sourced_rate():
    chat = result("speed", TASK)["device"]["speculative"]
    assert (chat["acceptance_source"], chat["task_type"]) == ("default", "chat")
    assert chat["acceptance"] == pytest.approx(speculative.task_acceptance("chat"))
    translation = result("speed", {**TASK, "task_type": "translation"})["device"]["speculative"]
    summary = result("speed", {**TASK, "task_type": "summarisation"})["device"]["speculative"]
    # Spec-Bench: chat 1.66x and summarisation 1.62x speed up far more than translation 1.13x
    assert chat["speedup"] > summary["speedup"] > translation["speedup"] > 1
    typed = result("speed", {**TASK, "task_type": "translation", "acceptance_percent": 70})["device"]["speculative"]
    assert (typed["acceptance"], typed["acceptance_source"]) == (0.7, "reader")


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_the_answer_names_the_task_type_and_spec_bench(lang):
    out = result("speed", {**TASK, "task_type": "maths"}, lang)
    note = next(n for n in out["notes"] if n["key"] == "note.speculative_draft_task")
    assert "Spec-Bench" in note["message"]
    assert l10n.t(lang, "task_type.maths") in note["message"]
    assert l10n.t(lang, "param.task_type") != "param.task_type"
    for task in ("chat", "translation", "summarisation", "qa", "maths", "rag"):
        assert l10n.t(lang, f"task_type.{task}") != f"task_type.{task}"


def test_the_command_line_takes_the_task_type():
    out = subprocess.run([sys.executable, "-m", "atlas", "speed", "--model", "llama-3.1-70b", "--weights",
                          "q4_k_m", "--device", "rtx-4090", "--num-devices", "2", "--speculative", "draft",
                          "--draft-model", "llama-3.2-1b", "--task-type", "translation"],
                         capture_output=True, text=True, check=True).stdout
    assert "Spec-Bench" in out and "42.5\u00a0%" in out


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_the_rates_the_help_text_and_the_speed_page_quote_are_the_derived_ones(lang):
    """The help text and the speed page type the derived rates; they must be what task_acceptance gives."""
    import re

    from conftest import REPO_ROOT

    help_text = l10n.t(lang, "help.task_type")
    quoted = [int(p) for p in re.findall(r"(\d+)\u00a0%", help_text)]
    derived = [round(100 * speculative.task_acceptance(t)) for t in ("chat", "translation", "summarisation", "qa",
                                                                      "maths", "rag")]
    assert quoted == derived == [63, 43, 62, 58, 57, 60]
    page = (REPO_ROOT / "docs" / "calculators" / ("speed.md" if lang == "en" else "speed.de.md")).read_text("utf-8")
    assert f"{min(derived)}\u00a0%" in page and f"{max(derived)}\u00a0%" in page
