"""The catalogue itself as the test: every device and every model preset through the page's own entry points.

In process, without a browser: the page calls ``atlas.core.pyweb.call(name, json)`` in a Web Worker, and so do these
tests, with the form's values as the page sends them (every field as text, in the page's language, from the
defaults the calculator pages declare in ``docs/calculators/*.md``). Three sweeps:

- every device of the data set, as the device and (speed) as the baseline, in both calculators and both
  languages, through ``calculators.render``: a result, with no "None", "NaN", "Infinity", traceback or error
  text in it (``sweep_problems``; a test breaks one device in a copy of the catalogue and sees it reported);
- every model preset's own architecture written out as a config.json, imported through
  ``calculators.import_fields`` and computed with the fields as the form holds them;
- hostile and cut-off config.json texts: a sentence in the reader's language, never the parser's words.
"""

from __future__ import annotations

import copy
import json
import re

import pytest

from atlas.core import l10n, pyweb
from atlas.core.calculators import devices as dev
from atlas.core.calculators.catalog import Catalog
from atlas.core.calculators.hf_config import hf_config_param_count
from atlas.core.calcview import browser
from atlas.core.calcview.form import initial_values
from atlas.core.calcview.numbers import field_value
from atlas.data import REPO_ROOT
from calculators_support import catalog

ROLES = {"vram": ("device",), "speed": ("device", "baseline")}
# What must never reach a page: Python's and JavaScript's words for missing or impossible numbers, a
# traceback, an exception's name, and a chart that refused its numbers ("No chart for these numbers (…)").
NOT_FOR_READERS = re.compile(r"\b(?:None|nan|NaN|inf)\b|Infinity|Traceback|Error\b|Exception|atlas-calc-chart-missing")


def page_defaults(command: str) -> dict:
    """The defaults the calculator page declares: ``{{ calculator("speed", model="…", device="…") }}``."""
    source = (REPO_ROOT / "docs" / "calculators" / f"{command}.md").read_text(encoding="utf-8")
    call = re.search(r'\{\{\s*calculator\("' + command + r'"(?P<args>[^)]*)\)\s*\}\}', source)
    assert call, f"docs/calculators/{command}.md declares no calculator"
    return dict(re.findall(r'(\w+)="([^"]*)"', call["args"]))


def form_params(command: str, lang: str, cat: Catalog) -> dict:
    """Every field's value as the page sends it before the reader changes anything."""
    return {name: field_value(value, lang) for name, value in initial_values(command, page_defaults(command), cat).items()}


def call(name: str, payload: dict) -> dict:
    return json.loads(pyweb.call(name, json.dumps(payload)))


def answer_problem(answer: dict, lang: str) -> str | None:
    """What is wrong with an answer of ``calculators.render`` for a reader of ``lang``, or None."""
    if not answer.get("ok"):
        messages = "; ".join(e.get("message", "?") for e in answer.get("errors", []))
        return f"no result: {messages} {answer.get('detail', '')}".strip()
    if answer.get("warnings"):
        return f"warnings: {answer['warnings']}"
    shown = answer.get("html", "") + "\n" + answer.get("summary", "")
    if not answer.get("html") or not answer.get("summary"):
        return "empty result"
    found = NOT_FOR_READERS.search(shown)
    if found:
        return f"{found.group(0)!r} in {shown[max(0, found.start() - 100):found.end() + 40]!r}"
    if l10n.t(lang, "runtime.internal_error") in shown:
        return "internal error text"
    return None


def sweep_problems(cat: Catalog, devices=None) -> list[str]:
    """Every device of ``cat`` (or ``devices``) in every role of both calculators and both languages, through
    the page's entry point; one line per run that gives no clean result."""
    saved = browser._catalog
    browser._catalog = cat  # what calculators.render reads (in the browser: the worker's atlas-data.json)
    problems = []
    try:
        for command, roles in ROLES.items():
            for lang in l10n.LANGUAGES:
                base = form_params(command, lang, cat)
                # a device without memory of its own is refused by design (test_data_validation), not swept
                for device in devices or [d for d in cat.device_ids() if dev.has_own_memory(cat.devices[d])]:
                    for role in roles:
                        answer = call("calculators.render", {"command": command, "params": {**base, role: device},
                                                             "lang": lang})
                        problem = answer_problem(answer, lang)
                        if problem is None:
                            result = answer["result"]
                            shown = result["verdict"]["device"] if command == "vram" else result[role]["id"]
                            if shown != device:
                                problem = f"result is for {shown}"
                        if problem:
                            problems.append(f"{command} {role}={device} [{lang}]: {problem}")
    finally:
        browser._catalog = saved
    return problems


@pytest.fixture(scope="session")
def cat() -> Catalog:
    return catalog()  # the data set, loaded once per test session (calculators_support caches it)


def test_every_device_in_every_role_and_language_gives_a_clean_result(cat):
    assert len(cat.device_ids()) > 100
    assert sweep_problems(cat) == []


def test_the_devices_that_state_no_compute_peak_are_among_them(cat):
    """The devices that state no compute peak the engine can use (issue 30: then the Apple M4 family, which now has
    an estimated GPU figure) answer with "—" and their note."""
    saved, browser._catalog = browser._catalog, cat
    try:
        for device in ("alveo-v80", "cerebras-wse-3"):
            for role in ROLES["speed"]:
                for lang in l10n.LANGUAGES:
                    answer = call("calculators.render", {"command": "speed", "lang": lang,
                                                         "params": {**form_params("speed", lang, cat), role: device}})
                    assert answer_problem(answer, lang) is None
                    assert answer["result"][role]["peak_tflops"] is None
                    assert f'data-result="{role}.peak_tflops" data-value="null">—<' in answer["html"]
                    assert "note.no_compute_peak" in [n["key"] for n in answer["result"]["notes"]]
    finally:
        browser._catalog = saved


def _broken(cat: Catalog, device: str, breakage) -> Catalog:
    devices = dict(cat.devices)
    devices[device] = copy.deepcopy(devices[device])
    breakage(devices[device])
    return Catalog(devices=devices, models=cat.models, prices=cat.prices)


@pytest.mark.parametrize("breakage, shows, commands", [
    # the speed estimator raises on a bandwidth that is no number (the memory calculator does not read it)
    (lambda d: d["memory"].__setitem__("bandwidth_gb_s", {"value": 1008}), "no result", ("speed",)),
    (lambda d: d.update(name=None, short_name=None), "'None'", ("vram", "speed")),  # Python's None as a name
], ids=["exception", "none-text"])
def test_the_sweep_reports_a_broken_device(cat, breakage, shows, commands):
    """The sweep's checker is not blind: one broken device in a copy of the catalogue is reported, in both
    languages and every role it takes."""
    devices = ["rtx-4090", "apple-m4"]
    assert sweep_problems(cat, devices=devices) == []
    problems = sweep_problems(_broken(cat, "rtx-4090", breakage), devices=devices)
    assert any(shows in p for p in problems), problems
    runs = {p.split(":")[0] for p in problems}
    assert runs >= {f"{command} {role}=rtx-4090 [{lang}]" for command in commands for role in ROLES[command]
                    for lang in l10n.LANGUAGES}, problems
    assert cat.devices["rtx-4090"]["memory"]["bandwidth_gb_s"] == 1008  # the session's catalogue is untouched
    assert cat.devices["rtx-4090"]["name"] == "NVIDIA GeForce RTX 4090"


# --- every model preset's architecture as a config.json, through the import and the form -----------------


def config_json_of(preset: dict) -> dict:
    """A transformers config.json with the preset's architecture (what a reader would paste)."""
    a = preset["architecture"]
    cfg = {"architectures": ["CustomForCausalLM"], "model_type": "custom", "_name_or_path": preset["name"],
           "hidden_size": a["hidden"], "num_hidden_layers": a["layers"], "num_attention_heads": a["heads"],
           "num_key_value_heads": a["kv_heads"], "head_dim": a["head_dim"], "intermediate_size": a["intermediate"],
           "vocab_size": a["vocab"], "max_position_embeddings": a["max_context"],
           "tie_word_embeddings": a["tied_embeddings"]}
    moe = preset.get("moe")
    if moe:
        cfg.update(num_local_experts=moe["experts"], num_experts_per_tok=moe["active_experts"],
                   moe_intermediate_size=moe.get("expert_intermediate") or a["intermediate"],
                   n_shared_experts=moe.get("shared_experts", 0), first_k_dense_replace=moe.get("dense_layers", 0))
        if moe.get("shared_intermediate"):
            cfg["shared_expert_intermediate_size"] = moe["shared_intermediate"]
        if moe.get("interleave"):
            cfg["interleave_moe_layer_step"] = moe["interleave"]
    mla = preset.get("mla")
    if mla:
        cfg.update(kv_lora_rank=mla["kv_lora_rank"], qk_rope_head_dim=mla.get("rope_head_dim") or 0,
                   qk_nope_head_dim=mla.get("qk_nope_head_dim") or a["head_dim"],
                   v_head_dim=mla.get("v_head_dim") or a["head_dim"])
        if mla.get("q_lora_rank"):
            cfg["q_lora_rank"] = mla["q_lora_rank"]
    linear = preset.get("linear_attention")
    if linear:
        cfg.update(linear_num_key_heads=linear["key_heads"], linear_num_value_heads=linear["value_heads"],
                   linear_key_head_dim=linear["key_head_dim"], linear_value_head_dim=linear["value_head_dim"],
                   linear_conv_kernel_dim=linear["conv_kernel"], attn_output_gate=True,
                   layer_types=["linear_attention" if i < linear["layers"] else "full_attention"
                                for i in range(a["layers"])])
    return cfg


# Attention the custom-model fields cannot describe (the import box's note says so): the form computes a
# full KV cache on every layer, an upper bound of the preset's.
_KV_THE_FIELDS_CANNOT_SAY = ("sliding_window", "mla", "linear_attention")


def _architecture_count_b(preset: dict) -> float:
    return hf_config_param_count(preset, attn_output_gate=bool(preset.get("linear_attention")))[0] / 1e9


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_every_preset_as_a_config_json_computes_the_presets_memory(cat, lang):
    """Each preset's architecture, pasted as a config.json, fills fields the form accepts in ``lang``, and the form
    computes the preset's memory within 1 %. The reference is the preset with the parameter count of its own
    architecture (a data set may state a rounded total, 12B for 12.25B: test_hf_config compares those);
    where the preset's attention keeps less than a full KV cache (sliding windows, MLA, linear attention), the
    weights agree within 1 % and the total is at least the preset's."""
    from atlas.core.calculators.api import handle

    base = form_params("vram", lang, cat)
    checked = 0
    for model_id in cat.model_ids():
        preset = cat.models[model_id]
        answer = call("calculators.import_fields", {"config_json": json.dumps(config_json_of(preset)), "lang": lang,
                                                    "name": "config.json"})
        assert answer["ok"], (model_id, answer)
        fields = answer["fields"]
        assert fields["model"] == "custom" and fields["layers"] == str(preset["architecture"]["layers"])
        response = handle({"command": "vram", "params": {**base, **fields}, "lang": lang}, cat)
        assert response["ok"], (model_id, fields, response["errors"])
        counted = {**preset, "parameters": {**preset["parameters"], "total_b": _architecture_count_b(preset)}}
        reference_cat = Catalog(devices=cat.devices, models={**cat.models, model_id: counted}, prices=cat.prices)
        # The same weight format as the import computed with: "Automatic" is the published format for a preset
        # (FP8, MXFP4 …) but BF16 for a custom model, whose config.json states no checkpoint format here.
        reference = handle({"command": "vram", "params": {**base, "model": model_id,
                                                          "weights": response["result"]["weights"]}, "lang": lang},
                           reference_cat)
        assert reference["ok"], reference
        got, want = response["result"], reference["result"]
        weights = got["breakdown"]["weights_gib"] / want["breakdown"]["weights_gib"]
        assert weights == pytest.approx(1, abs=0.01), (model_id, fields["params_b"], weights)
        if any(preset.get(k) for k in _KV_THE_FIELDS_CANNOT_SAY):
            assert got["total_gib"] >= 0.99 * want["total_gib"], (model_id, got["total_gib"], want["total_gib"])
        else:
            assert got["total_gib"] == pytest.approx(want["total_gib"], rel=0.01), model_id
        checked += 1
    assert checked == len(cat.models) > 40


# --- hostile and cut-off config.json texts ----------------------------------------------------------------

HOSTILE = {
    "empty": "",
    "blank": " \n\t ",
    "garbage": "garbage",
    "html": "<html><body>404</body></html>",
    "cut-off": json.dumps({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32})[:45],
    "cut-off-object": '{"model_type": "llama", "hidden_size": 4096,',
    "trailing": '{"hidden_size": 1} {"again": 2}',
    "nan": '{"hidden_size": NaN, "num_hidden_layers": 2}',
    "deep": "[" * 50_000,
    "array": "[1, 2, 3]",
    "string": '"config"',
    "empty-object": "{}",
    "unnamed": '{"hidden_size": 64}',
    "negative": '{"model_type": "llama", "hidden_size": -1, "num_hidden_layers": 2, "num_attention_heads": 2, '
                '"vocab_size": 9, "intermediate_size": 8}',
    "huge": '{"model_type": "llama", "hidden_size": 1e400, "num_hidden_layers": 2, "num_attention_heads": 2, '
            '"vocab_size": 9, "intermediate_size": 8}',
    "heads": '{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 10, '
             '"num_key_value_heads": 3, "vocab_size": 9, "intermediate_size": 8}',
}
PARSER_WORDS = re.compile(r"Expecting|char \d|Unterminated|delimiter|Traceback|\w+Error\b|\bNone\b|\bNaN\b|"
                          r"\binf\b|Infinity|recursion|'\?'|‚\?‘|‘\?’")


@pytest.mark.parametrize("lang", l10n.LANGUAGES)
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_config_json_gives_a_sentence_in_the_readers_language(name, lang):
    answer = call("calculators.import_fields", {"config_json": HOSTILE[name], "lang": lang, "name": "config.json"})
    assert answer["ok"] is False and answer["errors"], answer
    for error in answer["errors"]:
        assert error["key"].startswith("import.config.") and error["key"] != "runtime.internal_error", error
        message = error["message"]
        assert message == l10n.t(lang, error["key"], **{k: _shown(v, lang) for k, v in error["params"].items()}) \
            or message.startswith(l10n.t(lang, error["key"]).split("{")[0])
        assert message.endswith(".") and not PARSER_WORDS.search(message), message
        other = "de" if lang == "en" else "en"
        assert message != call("calculators.import_fields", {"config_json": HOSTILE[name], "lang": other})[
            "errors"][0]["message"]  # really in the reader's language


def _shown(value, lang):
    from atlas.core.calculators.messages import display

    return display("", value, lang)
