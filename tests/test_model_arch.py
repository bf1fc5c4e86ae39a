"""Architecture-aware estimates: parameter counts, KV cache per layer kind, validation of presets, unified memory,
tensor-parallel limits and the reverse questions (which context, batch, format or model fits a device)."""

import copy
import datetime
import json

import pytest

from atlas import cli
from atlas.core.calculators import defaults as d
from atlas.core.calculators import devices as dev
from atlas.core.calculators.inputs import Options
from atlas.core.calculators.memory import (
    _per_device_need,
    estimate_memory,
    fits,
    formats_that_fit,
    kv_cache_by_kind,
    kv_cache_bytes,
    max_batch,
    max_context,
    presets_that_fit,
    tp_errors,
)
from atlas.core.calculators.models import ModelSpec
from atlas.data.checks.models import model_problems, parameter_count_problems
from atlas.data.schema import schema_problems
from calculators_support import GIB, catalog, errors, ok

TODAY = datetime.date(2026, 12, 7)  # on or after the newest access date in data/


def preset(model_id: str) -> dict:
    return copy.deepcopy(catalog().models[model_id])


def spec(model_id: str) -> ModelSpec:
    return ModelSpec.from_preset(model_id, catalog().models[model_id])


# Gemma 3 27B as the gemma-3-27b preset files it (Google's reference TransformerConfig and the Gemma 3 report):
# 62 layers of width 5376, 32 heads and 16 KV heads of 128, feed-forward 21,504, vocabulary 262,144 (tied),
# 52 local layers with a 1,024-token window and 10 global ones (5 local : 1 global), 417M vision encoder.
GEMMA3_27B = dict(
    schema_version=1, id="gemma-3-27b-like", name="Gemma 3 27B (as filed)", release_year=2025,
    parameters={"total_b": 27.433, "source": "report"},
    architecture={"layers": 62, "hidden": 5376, "intermediate": 21504, "heads": 32, "kv_heads": 16, "head_dim": 128,
                  "decoupled_head_dim": True, "vocab": 262144, "max_context": 131072, "tied_embeddings": True,
                  "source": "ref"},
    sliding_window={"window": 1024, "layers": 52, "pattern": "5 local : 1 global", "source": "ref"},
    encoders={"vision_b": 0.417, "included_in_total": True, "source": "report"},
)

# Qwen3-Next-80B-A3B as the qwen3-next-80b-a3b preset files it from config.json: 48 layers, 36 of them Gated
# DeltaNet (16 key heads, 32 value heads, 128 wide each, conv kernel 4), 12 full-attention layers with 16 heads and
# 2 KV heads of 256; 512 experts of 512, 10 per token, plus one shared expert of 512.
QWEN3_NEXT = dict(
    schema_version=1, id="qwen3-next-like", name="Qwen3-Next-80B-A3B (as filed)", release_year=2025,
    parameters={"total_b": 80, "active_b": 3, "source": "card"},
    architecture={"layers": 48, "hidden": 2048, "intermediate": 5120, "heads": 16, "kv_heads": 2, "head_dim": 256,
                  "decoupled_head_dim": True, "vocab": 151936, "max_context": 262144, "tied_embeddings": False,
                  "source": "config"},
    moe={"experts": 512, "active_experts": 10, "shared_experts": 1, "expert_intermediate": 512,
         "shared_intermediate": 512, "source": "config"},
    linear_attention={"kind": "gated-deltanet", "layers": 36, "key_heads": 16, "value_heads": 32, "key_head_dim": 128,
                      "value_head_dim": 128, "conv_kernel": 4, "source": "config"},
)

# DeepSeek-V3's MLA and MoE (config.json as the deepseek-r1 preset files it): q_lora_rank 1536, kv_lora_rank 512,
# qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128, 3 dense layers, 256 routed experts of 2048 (8 per
# token) and one shared, one MTP module. README_WEIGHTS.md: 671B main model, 36.7B activated, MTP 11.5B unique.
def deepseek_v3_full() -> dict:
    data = preset("deepseek-v3")
    data["mla"].update({"q_lora_rank": 1536, "qk_nope_head_dim": 128, "v_head_dim": 128})
    data["architecture"]["mtp_layers"] = 1
    return data


# --- parameter counts ---------------------------------------------------------------


@pytest.mark.parametrize("model_id", sorted(catalog().models))
def test_every_preset_adds_up_to_its_card(model_id):
    model = spec(model_id)
    assert model.count_params() == pytest.approx(model.params, rel=0.03)
    assert parameter_count_problems(catalog().models[model_id]) == []


def test_the_gguf_block_changes_the_file_not_the_card_count():
    # fused_qkv: one attn_qkv per layer holding exactly Q + K + V; the parameter count does not move.
    data = preset("phi-3-mini")
    plain = ModelSpec.from_preset("x", {k: v for k, v in data.items() if k != "gguf"})
    fused = spec("phi-3-mini")
    assert fused.fused_qkv and not plain.fused_qkv
    assert fused.count_params() == plain.count_params()
    assert len(plain.tensors()) - len(fused.tensors()) == 2 * fused.layers
    # mtp: the NextN block follows the decoder layers, before the final norm and the head, every tensor marked.
    glm = spec("glm-4.5-air")
    tensors = glm.gguf_tensors()
    mtp = [i for i, t in enumerate(tensors) if t.extra == "mtp"]
    assert mtp == list(range(mtp[0], mtp[-1] + 1)) and {tensors[i].layer for i in mtp} == {glm.layers}
    assert [t.role for t in tensors[mtp[-1] + 1:]] == ["norm", "output"]
    assert sum(tensors[i].params for i in mtp) == pytest.approx(
        glm.count_params(mtp=True) - glm.count_params() + 2 * glm.vocab * glm.hidden, rel=1e-12)
    assert glm.count_params() == sum(t.params for t in glm.tensors())  # tensors() itself is unchanged
    # stored_tied_head only matters for a tied model; the schema refuses unknown keys in the block.
    data["gguf"]["stored_tied_head"] = True
    assert not any(t.extra for t in ModelSpec.from_preset("x", data).gguf_tensors())
    data["gguf"]["keeps_everything"] = True
    assert any(path[:1] == ("gguf",) for path, _ in schema_problems(data, "model.schema.json"))
    assert model_problems(preset("glm-4.5-air"), TODAY) == []


def test_mla_count_with_compressed_queries_matches_deepseek():
    model = ModelSpec.from_preset("deepseek-v3", deepseek_v3_full())
    assert model.count_params() / 1e9 == pytest.approx(671, rel=0.002)
    assert (model.count_params(mtp=True) - model.count_params()) / 1e9 == pytest.approx(11.5, rel=0.02)
    assert model.count_active_params() / 1e9 == pytest.approx(36.7, rel=0.03)
    assert parameter_count_problems(deepseek_v3_full()) == []


def test_moe_interleave_and_dense_layers():
    data = preset("mixtral-8x7b")
    data["moe"]["interleave"] = 2  # every second layer MoE, the others dense
    model = ModelSpec.from_preset("x", data)
    assert [model.is_moe_layer(i) for i in range(4)] == [False, True, False, True] and model.moe_layers == 16
    dense, moe = preset("mixtral-8x7b"), data
    assert ModelSpec.from_preset("x", moe).count_params() < ModelSpec.from_preset("x", dense).count_params()
    v3 = ModelSpec.from_preset("v3", deepseek_v3_full())
    assert [v3.is_moe_layer(i) for i in range(5)] == [False, False, False, True, True]


def test_linear_attention_count_and_layer_kinds():
    model = ModelSpec.from_preset("qwen3-next-like", QWEN3_NEXT)
    kinds = model.layer_kinds()
    assert kinds.count("linear") == 36 and kinds.count("full") == 12
    assert [i for i, k in enumerate(kinds) if k == "full"] == list(range(3, 48, 4))  # full_attention_interval 4
    assert model.count_params() / 1e9 == pytest.approx(80, rel=0.01)
    assert parameter_count_problems(QWEN3_NEXT) == []


def test_encoders_count_when_the_card_includes_them():
    model = ModelSpec.from_preset("g", GEMMA3_27B)
    assert model.count_params() / 1e9 == pytest.approx(27.433, rel=0.002)
    assert model.group_params()["encoders"] == pytest.approx(0.417e9)
    excluded = copy.deepcopy(GEMMA3_27B)
    excluded["encoders"]["included_in_total"] = False
    assert parameter_count_problems(excluded) == []  # 1.5 % smaller, still within 3 %
    assert ModelSpec.from_preset("g", excluded).count_params() == pytest.approx(model.count_params() - 0.417e9)


def test_validation_names_the_field_and_both_numbers():
    wrong = preset("llama-3.1-8b")
    wrong["parameters"]["total_b"] = 9.0
    [(path, message)] = parameter_count_problems(wrong)
    assert path == ("parameters", "total_b") and "9.0 billion" in message and "8.03 billion" in message
    assert (path, message) in model_problems(wrong, TODAY)
    moe = preset("mixtral-8x7b")
    moe["parameters"]["active_b"] = 20.0
    [(path, message)] = parameter_count_problems(moe)
    assert path == ("parameters", "active_b") and "20.0 billion" in message and "12.88 billion" in message
    rounded = copy.deepcopy(QWEN3_NEXT)  # "3B activated": the architecture's 3.15B rounds to it
    assert parameter_count_problems(rounded) == []
    rounded["parameters"]["active_b"] = 3.0  # stated to one decimal, 3.15 no longer rounds to it: 5.1 % off
    assert [p for p, _ in parameter_count_problems(rounded)] == [("parameters", "active_b")]


def test_validation_checks_linear_layers_and_new_source_references():
    data = copy.deepcopy(QWEN3_NEXT)
    data["linear_attention"]["layers"] = 50
    data["sources"] = {"config": {}, "card": {}}
    assert (("linear_attention", "layers"), "50 is more than the model's 48 layers") in model_problems(data, TODAY)
    data = copy.deepcopy(GEMMA3_27B)
    data["sources"] = {"ref": {}}
    problems = dict(model_problems(data, TODAY))
    assert ("encoders", "source") in problems and ("parameters", "source") in problems


def test_presets_without_new_fields_behave_as_before():
    model = spec("llama-3.1-8b")
    assert (model.linear_layers, model.moe_interleave, model.mtp_layers, model.encoder_params) == (0, 1, 0, 0)
    assert model.layer_kinds() == ("full",) * 32
    assert model.cached_tokens(1000) == 32 * 1000


# --- KV cache per layer kind --------------------------------------------------------


def test_gemma3_27b_sliding_window_cache_at_128k_per_layer():
    model = ModelSpec.from_preset("g", GEMMA3_27B)
    per_token_layer = 2 * 16 * 128 * 2  # K and V, 16 KV heads of 128, fp16
    kinds = kv_cache_by_kind(model, "fp16", 131072, 1)
    assert kinds["sliding"] == 52 * 1024 * per_token_layer
    assert kinds["full"] == 10 * 131072 * per_token_layer
    assert kv_cache_bytes(model, "fp16", 131072, 1) / GIB == pytest.approx(10.41, abs=0.01)
    # Without the window every layer would cache 128k tokens: 62 GiB.
    full = ModelSpec(**{**model.__dict__, "window": None, "window_layers": 0})
    assert kv_cache_bytes(full, "fp16", 131072, 1) / GIB == pytest.approx(62.0)
    if "gemma-3-27b" in catalog().models:  # the preset itself, once it is in the data set
        assert kv_cache_bytes(spec("gemma-3-27b"), "fp16", 131072, 1) == kv_cache_bytes(model, "fp16", 131072, 1)


def test_linear_attention_state_is_constant_in_context():
    model = ModelSpec.from_preset("q", QWEN3_NEXT)
    # 32 value heads x 128 x 128 state plus 3 conv inputs of (2 x 16 x 128 + 32 x 128) per layer.
    assert model.state_elements_per_layer == 32 * 128 * 128 + 3 * (2 * 16 * 128 + 32 * 128)
    states = [kv_cache_by_kind(model, "fp16", c, 1)["linear"] for c in (1, 4096, 262144)]
    assert states[0] == states[1] == states[2] == 36 * model.state_elements_per_layer * 4  # fp32
    assert kv_cache_by_kind(model, "q8_0", 4096, 1)["linear"] == states[0]  # not the KV-cache format
    # Only the 12 full-attention layers grow: 12 x 2 x 2 KV heads x 256 x 2 bytes per token.
    grow = kv_cache_bytes(model, "fp16", 8192, 1) - kv_cache_bytes(model, "fp16", 4096, 1)
    assert grow == 4096 * 12 * 2 * 2 * 256 * 2
    assert model.attention_span(4096) == 12 * 4096
    assert model.attention_pairs(10) == 12 * 55


def test_mla_cache_and_sliding_attention_pairs():
    model = spec("deepseek-v3")
    assert kv_cache_by_kind(model, "bf16", 1000, 1)["full"] == 61 * 1000 * 576 * 2
    gemma = ModelSpec.from_preset("g", GEMMA3_27B)
    w = 1024
    assert gemma.attention_pairs(4096) == 52 * (w * (w + 1) / 2 + (4096 - w) * w) + 10 * 4096 * 4097 / 2


def test_decode_reads_the_per_layer_cache():
    base = dict(model="llama-3.1-8b", weights="bf16", kv_cache="fp16", context=4096, device="h100-sxm")
    r = ok("speed", **base)
    assert r["bytes"] == pytest.approx(8.03e9 * 2 + 4096 * 131_072)
    mistral = ok("speed", **{**base, "model": "mistral-7b", "context": 32768})
    assert mistral["bytes"] == pytest.approx(7.24e9 * 2 + 32 * 4096 * 2 * 8 * 128 * 2)


def test_vram_result_reports_layer_kinds_and_state():
    r = ok("vram", model="gemma-2-9b", context=8192)
    assert r["layer_kinds"] == {"full": 21, "sliding": 21, "linear": 0}
    assert r["kv_cache_by_layer_kind"]["sliding_gib"] == pytest.approx(21 * 4096 * 2 * 8 * 256 * 2 / GIB)


# --- unified memory, tensor parallelism -------------------------------------------------


def unified(share: float) -> dict:
    device = copy.deepcopy(catalog().devices["rtx-4090"])
    device["memory"]["gpu_share"] = {"default_share": share, "source": "x"}
    return device


def test_unified_memory_counts_the_gpu_share():
    assert dev.usable_bytes(unified(0.75)) == 0.75 * 24 * GIB
    model = spec("llama-3.1-8b")  # bf16 at 4096 tokens needs about 16.5 GiB: fits 24 GiB, not 75 % of 16 GiB
    small = unified(0.75)
    small["memory"]["capacity_gib"] = 16
    [entry] = fits(model, Options(), {"u": small})
    assert entry["usable_gib"] == 12 and entry["gpu_share"] == 0.75 and entry["count"] == 2
    small["memory"]["configurations"] = [{"capacity_gib": 16}, {"capacity_gib": 24}, {"capacity_gib": 32}]
    [entry] = fits(model, Options(), {"u": small})
    assert entry["smallest_configuration_gib"] == 24  # 75 % of 24 GiB holds the 16.5 GiB
    result, notes = estimate_memory(model, Options(), {"u": small, "h100-sxm": catalog().devices["h100-sxm"]})
    [note] = [n for n in notes if n.key == "note.gpu_share"]
    assert note.params["devices"] == ["RTX 4090"]
    assert "only its default share" in note.render("en")["message"]


def test_tensor_parallel_degree_must_split_the_heads():
    assert tp_errors(spec("llama-3.1-8b"), 16) == []  # 16 over 8 KV heads: each head on two devices
    [bad] = errors("vram", model="qwen2.5-7b", tp=8)  # 28 heads
    assert bad["key"] == "error.tp_heads" and bad["field"] == "tp"
    assert bad["params"]["degrees"] == [1, 2, 4, 28]
    assert "28" in bad["message"] and "Qwen2.5 7B" in bad["message"]
    [bad] = errors("vram", model="qwen2.5-7b", num_devices=3, lang="de")
    assert "Tensor-Parallelitätsgrad von 3" in bad["message"]
    [bad] = errors("vram", model="qwen2.5-32b", tp=10)  # 40 heads divide, 8 KV heads do not split over 10
    assert bad["key"] == "error.tp_kv_heads" and bad["params"]["kv_heads"] == 8 and 8 in bad["params"]["degrees"]
    custom = dict(model="custom", params_b=7, layers=32, hidden=4096, heads=32, kv_heads=8, vocab=32000)
    assert ok("vram", **custom, tp=32)["tp"] == 32  # 32 over 8 KV heads: each on four devices
    assert ok("vram", model="deepseek-v3", weights="fp8", tp=8)["tp"] == 8  # MLA: the latent is replicated


# --- reverse questions --------------------------------------------------------------


def test_max_context_is_the_largest_that_fits():
    device = catalog().devices["rtx-4090"]
    model, opts = spec("llama-3.1-8b"), Options.of(weights="bf16")
    r = max_context(model, opts, "rtx-4090", device)
    c = r["context"]
    # 24 GiB minus 15 GiB of bf16 weights and 1 GiB overhead, 128 KiB of KV cache per token: about 60k tokens.
    assert r["limited_by"] == "memory" and 55_000 < c < 66_000
    need = lambda n: _per_device_need(model, Options.of(weights="bf16", context=n), device, 1)  # noqa: E731
    assert need(c) <= 24 * GIB < need(c + 1)
    json.dumps(r, allow_nan=False)
    tiny = max_context(spec("llama-3.2-1b"), Options.of(weights="q4_k_m"), "h200-sxm", catalog().devices["h200-sxm"])
    assert tiny["context"] == 131072 and tiny["limited_by"] == "model"
    none = max_context(spec("llama-3.1-405b"), Options(), "rtx-4090", device)
    assert none["context"] is None


def test_max_batch_beside_the_weights():
    device = catalog().devices["h100-sxm"]
    model, opts = spec("llama-3.1-8b"), Options.of(weights="bf16", context=8192)
    r = max_batch(model, opts, "h100-sxm", device)
    b = r["batch"]
    # 80 GiB minus 15 GiB of weights and 1 GiB overhead, 1 GiB of KV cache per 8K sequence: about 60 sequences.
    assert 55 <= b <= 64
    need = lambda n: _per_device_need(model, Options.of(weights="bf16", context=8192, batch=n), device, 1)  # noqa: E731
    assert need(b) <= 80 * GIB < need(b + 1)
    assert r["kv_cache_per_sequence_gib"] == pytest.approx(1.0)
    two = max_batch(model, opts, "h100-sxm", device, num_devices=2)
    assert two["batch"] > 2 * b


def test_formats_and_presets_that_fit():
    device = catalog().devices["rtx-4090"]
    r = formats_that_fit(spec("llama-3.1-70b"), Options.of(context=8192), "rtx-4090", device)
    by = {f["weights"]: f for f in r["formats"]}
    assert set(by) == set(d.WEIGHT_FORMATS)
    assert not by["q4_k_m"]["fits"] and by["iq2_xxs"]["fits"]
    assert [f["weights_gib"] for f in r["formats"]] == sorted((f["weights_gib"] for f in r["formats"]), reverse=True)
    two = formats_that_fit(spec("llama-3.1-70b"), Options.of(context=8192), "rtx-4090", device, num_devices=2)
    assert {f["weights"]: f["fits"] for f in two["formats"]}["q4_k_m"]  # the two-RTX-4090 answer
    p = presets_that_fit(catalog().models, Options.of(weights="bf16"), "rtx-4090", device)
    fitting = {row["model"] for row in p["presets"] if row["fits"]}
    assert {"llama-3.1-8b", "llama-3.2-1b"} <= fitting and "llama-3.1-70b" not in fitting
    assert {row["model"]: row["best_format"] for row in p["presets"]}["llama-3.1-405b"] is None


@pytest.mark.slow
def test_fit_command_json_and_languages(capsys):
    assert cli.main(["fit", "--device", "rtx-4090", "--model", "llama-3.1-70b", "--context", "8192", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model"] == "llama-3.1-70b" and out["max_context"]["context"] and out["formats"]
    assert out["weights"] == next(f["weights"] for f in out["formats"] if f["fits"])
    assert cli.main(["fit", "--device", "rtx-4090", "--lang", "de"]) == 0
    text = capsys.readouterr().out
    assert "nutzbar" in text and "Llama 3.1 8B" in text and "passt" in text
    assert cli.main(["fit", "--device", "rtx-4090", "--model", "llama-3.1-8b"]) == 0
    assert "Longest context that fits" in capsys.readouterr().out
    assert cli.main(["fit", "--model", "llama-3.1-8b"]) == 2  # the device is required
    # vram and speed are unchanged by the new subcommand
    assert cli.main(["vram", "--model", "llama-3.1-8b", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["breakdown"]["weights_gib"] == pytest.approx(8.03e9 * 2 / GIB)
