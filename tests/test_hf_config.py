"""Importing a Hugging Face config.json: published configs (tests/fixtures/configs, see SOURCES.md) and
small synthetic ones (marked as such) for the rules no published fixture covers."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from atlas.core import l10n, pyweb
from atlas.core.calculators import model_import
from atlas.core.calculators.hf_config import ConfigError, from_hf_config, hf_config_param_count
from atlas.core.calculators.messages import render_text
from atlas.core.calculators.models import ModelSpec
from calculators_support import catalog
from conftest import REPO_ROOT, shared_dataset

FIXTURES = REPO_ROOT / "tests" / "fixtures" / "configs"


def load(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def within(value: float, expected: float, share: float = 0.02) -> bool:
    return abs(value - expected) <= share * expected


# --- published configs -------------------------------------------------------------------


def test_qwen3_30b_a3b():
    p = from_hf_config(load("qwen3-30b-a3b"))
    assert p["architecture"] == {"layers": 48, "hidden": 2048, "intermediate": 6144, "heads": 32, "kv_heads": 4,
                                 "head_dim": 128, "vocab": 151936, "max_context": 40960, "tied_embeddings": False}
    assert p["moe"] == {"experts": 128, "active_experts": 8, "shared_experts": 0, "dense_layers": 0,
                        "expert_intermediate": 768, "source": "config"}
    assert "sliding_window" not in p  # sliding_window null, use_sliding_window false
    assert p["checkpoint"]["dtype"] == "bf16"
    # model card: 30B total, 3.3B active
    assert within(p["parameters"]["total_b"], 30) and within(p["parameters"]["active_b"], 3.3)


def test_deepseek_v3():
    p = from_hf_config(load("deepseek-v3"))
    a = p["architecture"]
    assert (a["layers"], a["hidden"], a["heads"], a["kv_heads"], a["head_dim"], a["vocab"], a["max_context"]) == (
        61, 7168, 128, 128, 128, 129280, 163840)
    assert a["decoupled_head_dim"] is True and a["mtp_layers"] == 1 and a["intermediate"] == 18432
    assert p["mla"] == {"kv_lora_rank": 512, "rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
                        "q_lora_rank": 1536}
    assert p["moe"] == {"experts": 256, "active_experts": 8, "shared_experts": 1, "dense_layers": 3,
                        "expert_intermediate": 2048, "source": "config"}
    assert p["checkpoint"]["dtype"] == "fp8" and p["checkpoint"]["block_size"] == 128
    # README_WEIGHTS.md: 671B main-model parameters (the MTP module is not counted)
    assert within(p["parameters"]["total_b"], 671)
    # the data set's preset agrees on the KV-cache figures
    spec, preset = ModelSpec.from_preset("x", p), ModelSpec.from_preset("deepseek-v3", catalog().models["deepseek-v3"])
    assert spec.kv_elements_per_token_layer == preset.kv_elements_per_token_layer == 576


def test_gpt_oss_20b():
    cfg = load("gpt-oss-20b")
    p = from_hf_config(cfg)
    a = p["architecture"]
    assert (a["layers"], a["hidden"], a["heads"], a["kv_heads"], a["head_dim"], a["vocab"], a["max_context"]) == (
        24, 2880, 64, 8, 64, 201088, 131072)
    assert p["moe"]["experts"] == 32 and p["moe"]["active_experts"] == 4 and p["moe"]["expert_intermediate"] == 2880
    assert p["sliding_window"] == {"window": 128, "layers": 12, "pattern": "1 local : 1 global", "source": "config"}
    assert p["checkpoint"]["dtype"] == "int4"  # this mirror's config says gptq
    # model card: 21B total, 3.6B active; OpenAI's active count leaves out the input embedding
    assert within(p["parameters"]["total_b"], 21)
    assert within(p["parameters"]["active_b"] - a["vocab"] * a["hidden"] / 1e9, 3.6)
    # OpenAI's published file: quant_method mxfp4
    published = copy.deepcopy(cfg)
    published["quantization_config"]["quant_method"] = "mxfp4"
    ck = from_hf_config(published)["checkpoint"]
    assert ck["dtype"] == "mxfp4" and ck["block_size"] == 32 and "model.embed_tokens" in ck["note"]


@pytest.mark.parametrize("name", ["qwen3-30b-a3b", "deepseek-v3", "gpt-oss-20b"])
def test_fixtures_run_through_the_calculator(name):
    from atlas.core.calculators.api import handle

    imported = model_import.from_config(load(name), name)
    response = model_import.estimate({"command": "vram", "params": {"weights": "bf16"}, "lang": "de"}, catalog(),
                                     imported)
    assert response["ok"], response
    reference = handle({"command": "vram", "params": {"model": "llama-3.1-8b"}}, catalog())["result"]
    assert set(response["result"]) == set(reference)  # no new keys for a config
    assert response["result"]["params_b"] == pytest.approx(imported.preset["parameters"]["total_b"])


def test_cli_takes_a_config(tmp_path):
    from atlas.data.export import export_json

    export = tmp_path / "atlas-data.json"
    export.write_text(export_json(shared_dataset()), encoding="utf-8")
    run = lambda *a: subprocess.run([sys.executable, "-m", "atlas", *a, "--data-json", str(export)],  # noqa: E731
                                    cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    out = run("vram", "--config", str(FIXTURES / "qwen3-30b-a3b.json"), "--weights", "q4_k_m", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["model_name"] == "qwen3-30b-a3b" and "gguf" not in result
    out = run("speed", "--config", str(FIXTURES / "deepseek-v3.json"), "--device", "h100-sxm", "--weights", "fp8")
    assert out.returncode == 0, out.stderr
    bad = tmp_path / "config.json"
    bad.write_text(json.dumps({"model_type": "mystery", "hidden_size": 64}), encoding="utf-8")
    out = run("vram", "--config", str(bad), "--lang", "de")
    assert out.returncode == 2 and "num_hidden_layers" in out.stderr and "fehlen" in out.stderr
    bad.write_text("{not json", encoding="utf-8")
    out = run("vram", "--config", str(bad))
    assert out.returncode == 2 and "not valid JSON" in out.stderr and "Traceback" not in out.stderr


# --- rules checked with synthetic configs (not published files) ------------------------


def test_synthetic_gemma3_multimodal_nesting_and_window_pattern():
    cfg = {
        "architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3", "torch_dtype": "bfloat16",
        "text_config": {"model_type": "gemma3_text", "hidden_size": 640, "intermediate_size": 2048,
                        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 128,
                        "num_hidden_layers": 12, "sliding_window": 512, "sliding_window_pattern": 6},
        "vision_config": {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "patch_size": 14,
                          "image_size": 224, "model_type": "siglip_vision_model"},
    }
    p = from_hf_config(cfg)
    assert p["architecture"]["vocab"] == 262208  # the Gemma 3 text config's default
    assert p["architecture"]["tied_embeddings"] is True  # Gemma ties by default
    assert p["sliding_window"]["layers"] == 10 and p["sliding_window"]["pattern"] == "5 local : 1 global"
    vision = 2 * (4 * 64 * 64 + 2 * 64 * 128) + 3 * 14 * 14 * 64 + 16 * 16 * 64
    assert p["encoders"]["vision_b"] == pytest.approx(vision / 1e9, abs=1e-3)
    text, _ = hf_config_param_count(p)
    assert p["parameters"]["total_b"] * 1e9 == pytest.approx(text + vision)
    types = ["sliding_attention"] * 3 + ["full_attention"]
    cfg["text_config"].update(num_hidden_layers=8, layer_types=types * 2)
    assert from_hf_config(cfg)["sliding_window"]["layers"] == 6


def test_synthetic_qwen3_next_linear_attention():
    cfg = {"model_type": "qwen3_next", "hidden_size": 2048, "num_hidden_layers": 48, "num_attention_heads": 16,
           "num_key_value_heads": 2, "head_dim": 256, "vocab_size": 151936, "intermediate_size": 5120,
           "num_experts": 512, "num_experts_per_tok": 10, "moe_intermediate_size": 512,
           "shared_expert_intermediate_size": 512, "full_attention_interval": 4, "linear_num_key_heads": 16,
           "linear_num_value_heads": 32, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
           "linear_conv_kernel_dim": 4}
    p = from_hf_config(cfg)
    assert p["linear_attention"] == {"kind": "gated-deltanet", "layers": 36, "key_heads": 16, "value_heads": 32,
                                     "key_head_dim": 128, "value_head_dim": 128, "conv_kernel": 4,
                                     "source": "config"}
    assert p["moe"]["shared_experts"] == 1 and "shared_intermediate" not in p["moe"]
    cfg["layer_types"] = ["linear_attention", "full_attention"] * 24
    assert from_hf_config(cfg)["linear_attention"]["layers"] == 24


def test_synthetic_moe_field_names():
    base = {"hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4, "vocab_size": 1000,
            "intermediate_size": 512}
    mixtral = from_hf_config({**base, "model_type": "mixtral", "num_local_experts": 8, "num_experts_per_tok": 2})
    assert mixtral["moe"]["experts"] == 8 and mixtral["moe"]["expert_intermediate"] == 512
    qwen2 = from_hf_config({**base, "model_type": "qwen2_moe", "num_experts": 60, "num_experts_per_tok": 4,
                            "moe_intermediate_size": 128, "shared_expert_intermediate_size": 512,
                            "mlp_only_layers": [0]})
    assert qwen2["moe"]["shared_experts"] == 1 and qwen2["moe"]["shared_intermediate"] == 512
    assert qwen2["moe"]["dense_layers"] == 1
    llama4 = from_hf_config({**base, "model_type": "llama4_text", "num_local_experts": 128,
                             "num_experts_per_tok": 1, "intermediate_size_mlp": 1024,
                             "interleave_moe_layer_step": 2})
    assert llama4["moe"]["interleave"] == 2 and llama4["architecture"]["intermediate"] == 1024
    total, active = hf_config_param_count(llama4)
    dense_layer_ffn = 3 * 256 * 1024
    assert total - active == 2 * 127 * 3 * 256 * 512  # two MoE layers of four
    assert total > 2 * dense_layer_ffn


def test_synthetic_mistral_window_covers_every_layer_and_qwen_window_can_be_off():
    base = {"hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4, "vocab_size": 1000,
            "intermediate_size": 512, "sliding_window": 4096}
    assert from_hf_config({**base, "model_type": "mistral"})["sliding_window"]["layers"] == 4
    assert "sliding_window" not in from_hf_config({**base, "model_type": "qwen2", "use_sliding_window": False})


# Presets added in the same stop whose totals this importer's count does not yet reproduce within its
# tolerance (vision towers of Gemma 3, Mistral NeMo's head width); strict, so the mark must go when the count is
# fixed. Kimi K2 left the set when its preset took the architecture's count (1,026.4 B) for the README's rounded 1T.
_COUNT_KNOWN_GAPS = {"gemma-3-4b", "gemma-3-12b", "mistral-nemo-12b"}


@pytest.mark.parametrize("model_id", [
    pytest.param(m, marks=pytest.mark.xfail(strict=True, reason="count differs from the preset; see _COUNT_KNOWN_GAPS"))
    if m in _COUNT_KNOWN_GAPS else m for m in sorted(catalog().models)])
def test_the_count_agrees_with_the_data_sets_presets(model_id):
    preset = catalog().models[model_id]
    total, _ = hf_config_param_count(preset)
    assert within(total / 1e9, preset["parameters"]["total_b"]), (total / 1e9, preset["parameters"]["total_b"])


def test_dense_count_matches_the_model_spec_count():
    p = from_hf_config({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
                        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
                        "intermediate_size": 14336})
    spec = ModelSpec.from_preset("x", p)
    assert p["parameters"]["total_b"] * 1e9 == pytest.approx(spec.count_params(), rel=1e-3)  # norms: < 0.1 %


# --- errors ---------------------------------------------------------------------------------------


def test_unknown_architecture_names_the_missing_keys():
    with pytest.raises(ConfigError) as exc:
        from_hf_config({"model_type": "mystery", "hidden_size": 64})
    assert exc.value.key == "import.config.missing_keys"
    assert exc.value.params["keys"] == ["num_hidden_layers", "num_attention_heads", "vocab_size", "intermediate_size"]
    assert exc.value.params["architecture"] == "mystery"
    for lang in l10n.LANGUAGES:
        assert "num_attention_heads" in render_text(exc.value.key, exc.value.params, lang)


@pytest.mark.parametrize("cfg, key", [
    ([1, 2], "import.config.not_object"),
    ({"hidden_size": "big", "num_hidden_layers": 2, "num_attention_heads": 2, "vocab_size": 9,
      "intermediate_size": 8}, "import.config.bad_value"),
    ({"hidden_size": 64, "num_hidden_layers": 2.5, "num_attention_heads": 2, "vocab_size": 9,
      "intermediate_size": 8}, "import.config.bad_value"),
    ({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 10, "num_key_value_heads": 3,
      "vocab_size": 9, "intermediate_size": 8}, "import.config.bad_heads"),
    ({"hidden_size": 10**12, "num_hidden_layers": 2, "num_attention_heads": 2, "vocab_size": 9,
      "intermediate_size": 8}, "import.config.bad_value"),
])
def test_bad_configs_give_a_message(cfg, key):
    answer = model_import.import_model({"config": cfg, "lang": "de"})
    assert answer["ok"] is False and answer["errors"][0]["key"] == key and answer["errors"][0]["message"]


def test_entry_point_with_a_config_and_an_estimate():
    answer = model_import.import_model({"config": load("gpt-oss-20b"), "command": "speed",
                                        "params": {"device": "h100-sxm", "weights": "fp8"}}, catalog())
    assert answer["ok"], answer
    assert answer["model"]["moe"]["experts"] == 32 and answer["gguf"] is None
    assert answer["result"]["device"]["tokens_per_s"] > 0
    conflict = model_import.import_model({"config": load("gpt-oss-20b"), "command": "vram",
                                          "params": {"model": "llama-3.1-8b"}}, catalog())
    assert conflict["ok"] is False and conflict["errors"][0]["key"] == "import.model_conflict"
    assert model_import.import_model({})["errors"][0]["key"] == "import.payload_empty"


_FIELDS = ["hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "vocab_size",
           "intermediate_size", "head_dim", "num_local_experts", "num_experts_per_tok", "n_routed_experts",
           "n_shared_experts", "first_k_dense_replace", "kv_lora_rank", "q_lora_rank", "qk_rope_head_dim",
           "sliding_window", "sliding_window_pattern", "layer_types", "tie_word_embeddings", "quantization_config",
           "text_config", "linear_num_value_heads", "full_attention_interval", "mlp_only_layers"]
_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**9), st.floats(allow_nan=True),
                    st.text(max_size=5), st.lists(st.sampled_from(["sliding_attention", "full_attention", 3]),
                                                  max_size=6), st.dictionaries(st.sampled_from(_FIELDS + ["quant_method"]),
                                                                               st.integers(0, 64), max_size=4))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(_FIELDS), _VALUES, max_size=len(_FIELDS)))
def test_random_configs_give_a_preset_or_a_message(cfg):
    try:
        preset = from_hf_config(cfg)
    except ConfigError as exc:
        for lang in l10n.LANGUAGES:
            render_text(exc.key, exc.params, lang)
        return
    ModelSpec.from_preset("x", preset)
    answer = model_import.import_model({"config": cfg})
    json.dumps(answer, allow_nan=False)


# --- the page's import: fields the form accepts, sentences instead of parser text -------------------

MISTRAL_12B = {"architectures": ["MistralForCausalLM"], "model_type": "mistral", "hidden_size": 5120,
               "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
               "intermediate_size": 14336, "vocab_size": 131072, "max_position_embeddings": 131072}


@pytest.mark.parametrize("lang, shown", [("en", "12.25"), ("de", "12,25")])
def test_imported_fields_are_what_the_form_accepts(lang, shown):
    """12.247 billion would be written "12.247", which the field refuses as a thousands group: 12.25 instead."""
    from atlas.core.calculators.api import handle
    from atlas.core.calcview.browser import import_fields_entry

    answer = import_fields_entry({"config_json": json.dumps(MISTRAL_12B), "lang": lang})
    assert answer["ok"], answer
    assert from_hf_config(MISTRAL_12B)["parameters"]["total_b"] == pytest.approx(12.247, abs=5e-4)
    assert answer["fields"]["params_b"] == shown
    assert answer["fields"]["layers"] == "40" and answer["fields"]["vocab"] == "131072"
    response = handle({"command": "vram", "params": answer["fields"], "lang": lang}, catalog())
    assert response["ok"], response["errors"]
    assert response["result"]["params_b"] == pytest.approx(12.25)


@pytest.mark.parametrize("value, lang, shown", [
    (12.247, "en", "12.25"), (12.247, "de", "12,25"), (0.135, "en", "0.135"), (1234.5, "en", "1,234.5"),
    (1234.5, "de", "1.234,5"), (1026.408, "de", "1.026,408"), (8.03, "de", "8,03"), (70.0, "en", "70"),
])
def test_typed_decimal_reads_back_in_the_field(value, lang, shown):
    from atlas.core.calculators.inputs import parse_number
    from atlas.core.calcview.numbers import typed_decimal

    assert typed_decimal(value, lang) == shown
    assert parse_number(shown, integer=False) == pytest.approx(value, rel=5e-3)


@pytest.mark.parametrize("text, key", [
    ("", "import.config.empty_text"),
    ("   ", "import.config.empty_text"),
    ("garbage", "import.config.bad_json"),
    ('{"a": 1} trailing', "import.config.bad_json"),
    (json.dumps(MISTRAL_12B)[:60], "import.config.truncated"),
    (json.dumps(MISTRAL_12B)[:-1], "import.config.truncated"),
    ("[" * 100_000, "import.config.too_deep"),
    ('{"hidden_size": NaN}', "import.config.bad_json_here"),
    ("{}", "import.config.empty"),
    ('{"hidden_size": 64, "architectures": [""]}', "import.config.missing_keys_unnamed"),
])
@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_unreadable_configs_give_a_sentence_not_parser_text(text, key, lang):
    answer = json.loads(pyweb.call("calculators.import_fields",
                                                  json.dumps({"config_json": text, "lang": lang})))
    assert answer["ok"] is False
    error = answer["errors"][0]
    assert error["key"] == key and error["field"] == "config"
    message = error["message"]
    assert message == render_text(key, error["params"], lang)
    for parser_words in ("Expecting", "char ", "Unterminated", "Error", "NaN", "'?'", "‚?‘", "None", "recursion"):
        assert parser_words not in message, message
    if key in ("import.config.empty", "import.config.missing_keys_unnamed"):
        assert "num_hidden_layers" in message
    if key != "import.config.empty" and key != "import.config.missing_keys_unnamed":
        assert answer["detail"]  # the parser's words go to the console
