"""A Hugging Face ``config.json`` (as a dict) -> a model preset dict ``ModelSpec.from_preset`` accepts.

Standard library only. Field names are those of the transformers configuration
classes: dense Llama, Mistral, Qwen 2/3, Phi-3, Gemma 2/3 (multimodal
checkpoints nest the language model under ``text_config``); mixtures of
experts of Mixtral and gpt-oss (``num_local_experts``), Qwen 2/3 MoE
(``num_experts``, ``moe_intermediate_size``, ``shared_expert_intermediate_size``,
``mlp_only_layers``, ``decoder_sparse_step``), DeepSeek-V2/V3 and Kimi K2
(``n_routed_experts``, ``n_shared_experts``, ``first_k_dense_replace``, the MLA
ranks), Llama 4 (``interleave_moe_layer_step``); sliding windows from
``layer_types``, ``sliding_window_pattern`` or a window on every layer;
Qwen3-Next's Gated DeltaNet layers (``linear_*``); ``quantization_config``
(mxfp4, fp8, nvfp4, gptq/awq) for the checkpoint's storage format.

The parameter count comes from the architecture (:func:`hf_config_param_count`),
with the rule of ``plan/model-schema.md``: embeddings, attention (MHA/GQA or
MLA), dense and MoE feed-forward, routers; norms and biases are ignored.
Unusable input raises :class:`ConfigError` with a translatable key
(``import.config.*``), naming missing keys.
"""

from __future__ import annotations

import math

from atlas.core.calculators.messages import KeyedError

BILLION = 1e9
_MAX_DIM = 10**8  # no real width, count or context comes near this


class ConfigError(KeyedError):
    """The config cannot be read as a decoder-only transformer; ``key``/``params`` form the message."""


def _int(cfg: dict, *names, default=None):
    """The first of ``names`` present in ``cfg`` as a positive whole number (``ConfigError`` if not one)."""
    for name in names:
        value = cfg.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value != int(value) or value < 0 or value > _MAX_DIM:
            raise ConfigError("import.config.bad_value", name=name, value=str(value)[:40])
        return int(value)
    return default


def _text_config(cfg: dict) -> dict:
    """The language model's fields: ``text_config`` (or ``llm_config``) over the top level."""
    for nested in ("text_config", "llm_config", "language_config"):
        inner = cfg.get(nested)
        if isinstance(inner, dict):
            merged = {k: v for k, v in cfg.items() if k not in ("vision_config", "audio_config", nested)}
            merged.update(inner)
            merged["_outer_model_type"] = cfg.get("model_type")
            return merged
    return dict(cfg)


_DTYPES = {"bfloat16": "bf16", "float16": "fp16", "half": "fp16", "float32": "fp32", "float": "fp32"}


def _checkpoint(cfg: dict, text: dict) -> dict | None:
    q = cfg.get("quantization_config") or text.get("quantization_config")
    if isinstance(q, dict):
        method = str(q.get("quant_method", "")).lower()
        kept = q.get("modules_to_not_convert") or q.get("ignore") or q.get("ignored_layers")
        kept_note = ""
        if isinstance(kept, list) and kept:
            kept_note = "; not converted: " + ", ".join(str(k) for k in kept[:8])
        if method == "mxfp4":
            return {"dtype": "mxfp4", "block_size": 32, "source": "config",
                    "note": "quantization_config.quant_method mxfp4" + kept_note}
        if method in ("fp8", "fbgemm_fp8") or str(q.get("fmt", "")).startswith("e4m3"):
            out = {"dtype": "fp8", "source": "config", "note": f"quantization_config.quant_method {method}" + kept_note}
            block = q.get("weight_block_size")
            if isinstance(block, list) and block and all(isinstance(b, int) and b > 0 for b in block):
                out["block_size"] = block[0]
                out["note"] += f"; weight blocks {'x'.join(str(b) for b in block)}"
            return out
        inner = q.get("quantization") if isinstance(q.get("quantization"), dict) else {}
        algo = str(q.get("quant_algo") or inner.get("quant_algo") or "").lower()
        if method == "nvfp4" or "nvfp4" in algo:
            return {"dtype": "nvfp4", "block_size": 16, "source": "config", "note": "quantization_config nvfp4"}
        if method in ("gptq", "awq", "compressed-tensors", "bitsandbytes") and q.get("bits", 4) == 4:
            out = {"dtype": "int4", "source": "config", "note": f"quantization_config.quant_method {method}"}
            if isinstance(q.get("group_size"), int) and q["group_size"] > 0:
                out["block_size"] = q["group_size"]
            return out
    dtype = text.get("torch_dtype") or text.get("dtype") or cfg.get("torch_dtype") or cfg.get("dtype")
    if isinstance(dtype, str) and dtype.lower() in _DTYPES:
        return {"dtype": _DTYPES[dtype.lower()], "source": "config"}
    return None


def _ratio(local: int, full: int) -> str:
    if not full:
        return f"{local} local : 0 global"
    g = math.gcd(local, full)
    return f"{local // g} local : {full // g} global"


def _sliding_window(text: dict, layers: int, model_type: str) -> dict | None:
    window = _int(text, "sliding_window")
    if not window or text.get("use_sliding_window") is False:
        return None
    types = text.get("layer_types")
    if isinstance(types, list) and types:
        local = sum(1 for t in types if t == "sliding_attention")
        full = sum(1 for t in types if t == "full_attention")
        if not local:
            return None
        return {"window": window, "layers": local, "pattern": _ratio(local, full)}
    pattern = _int(text, "sliding_window_pattern")
    if model_type.startswith("gemma3") and not pattern:
        pattern = 6  # the Gemma 3 configuration default: one global layer in six
    if pattern and pattern > 1:
        full = layers // pattern
        return {"window": window, "layers": layers - full, "pattern": f"{pattern - 1} local : 1 global"}
    if model_type.startswith("gemma2") or model_type == "cohere2":
        local = layers - layers // 2 if model_type.startswith("gemma2") else layers - layers // 4
        return {"window": window, "layers": local, "pattern": _ratio(local, layers - local)}
    if model_type.startswith("qwen") and text.get("use_sliding_window"):
        below = _int(text, "max_window_layers", default=0)
        local = max(0, layers - below)
        return {"window": window, "layers": local} if local else None
    return {"window": window, "layers": layers}


def _linear_attention(text: dict, layers: int) -> dict | None:
    if "linear_num_value_heads" in text or "linear_key_head_dim" in text:
        types = text.get("layer_types")
        if isinstance(types, list) and types:
            n = sum(1 for t in types if t == "linear_attention")
        else:
            interval = _int(text, "full_attention_interval", default=4)
            n = layers - layers // interval if interval else layers
        return {
            "kind": "gated-deltanet",
            "layers": n,
            "key_heads": _int(text, "linear_num_key_heads"),
            "value_heads": _int(text, "linear_num_value_heads"),
            "key_head_dim": _int(text, "linear_key_head_dim"),
            "value_head_dim": _int(text, "linear_value_head_dim"),
            "conv_kernel": _int(text, "linear_conv_kernel_dim", default=4),
            "source": "config",
        }
    if "mamba_n_heads" in text or "mamba_d_state" in text:
        kinds = text.get("layers_block_type") or text.get("layer_types")
        n = sum(1 for t in kinds if t == "mamba") if isinstance(kinds, list) else layers
        return {
            "kind": "mamba2",
            "layers": n,
            "key_heads": _int(text, "mamba_n_groups", "n_groups", default=1),
            "value_heads": _int(text, "mamba_n_heads"),
            "key_head_dim": _int(text, "mamba_d_state", "ssm_state_size"),
            "value_head_dim": _int(text, "mamba_d_head", "mamba_head_dim"),
            "conv_kernel": _int(text, "mamba_d_conv", "conv_kernel", default=4),
            "source": "config",
        }
    return None


def _vision_params(cfg: dict) -> float:
    """Parameters of a ViT-style vision tower (SigLIP, CLIP): per layer 4*h^2 + 2*h*i, plus patch
    and position embeddings."""
    v = cfg.get("vision_config")
    if not isinstance(v, dict):
        return 0.0
    h, i, n = _int(v, "hidden_size"), _int(v, "intermediate_size"), _int(v, "num_hidden_layers", "depth")
    if not (h and i and n):
        return 0.0
    patch = _int(v, "patch_size", default=14)
    image = _int(v, "image_size", default=0)
    channels = _int(v, "num_channels", default=3)
    positions = (image // patch) ** 2 if image and patch else 0
    return n * (4 * h * h + 2 * h * i) + channels * patch * patch * h + positions * h


REQUIRED = ("hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size")
_ALIASES = {"hidden_size": ("hidden_size", "n_embd", "d_model"),
            "num_hidden_layers": ("num_hidden_layers", "n_layer", "num_layers"),
            "num_attention_heads": ("num_attention_heads", "n_head", "num_heads"),
            "vocab_size": ("vocab_size",)}
# Defaults of the transformers configuration classes for fields that published configs omit.
_VOCAB_DEFAULT = {"gemma3_text": 262208, "gemma3": 262208}
_TIED_DEFAULT = ("gemma",)


def from_hf_config(cfg: dict, model_id: str = "config", name: str | None = None) -> dict:
    """The preset dict of a transformers ``config.json``; ``ConfigError`` when it cannot be read."""
    if not isinstance(cfg, dict):
        raise ConfigError("import.config.not_object")
    text = _text_config(cfg)
    model_type = str(text.get("model_type") or cfg.get("model_type") or "")
    if model_type in _VOCAB_DEFAULT and "vocab_size" not in text:
        text["vocab_size"] = _VOCAB_DEFAULT[model_type]
    values = {k: _int(text, *_ALIASES[k]) for k in REQUIRED}
    missing = [k for k in REQUIRED if not values[k]]
    if _int(text, "intermediate_size", "moe_intermediate_size", "n_inner", "ffn_dim") is None:
        missing.append("intermediate_size")
    if missing:
        architectures = cfg.get("architectures")
        named = architectures[0] if isinstance(architectures, list) and architectures else None
        architecture = model_type or (str(named)[:60] if isinstance(named, str) and named.strip() else "")
        if not cfg:
            raise ConfigError("import.config.empty", keys=missing)
        if not architecture:  # nothing names the model: say what is missing, not "config.json of '?'"
            raise ConfigError("import.config.missing_keys_unnamed", keys=missing)
        raise ConfigError("import.config.missing_keys", keys=missing, architecture=architecture)
    hidden, layers, heads, vocab = (values[k] for k in REQUIRED)
    kv_heads = _int(text, "num_key_value_heads", "num_kv_heads", default=heads) or heads
    if kv_heads > heads or heads % kv_heads:
        raise ConfigError("import.config.bad_heads", heads=heads, kv_heads=kv_heads)
    head_dim = _int(text, "head_dim") or hidden // heads
    intermediate = _int(text, "intermediate_size_mlp", "intermediate_size", "n_inner", "ffn_dim") \
        or _int(text, "moe_intermediate_size")
    tied = text.get("tie_word_embeddings")
    if not isinstance(tied, bool):
        tied = model_type.startswith(_TIED_DEFAULT) or str(text.get("_outer_model_type") or "").startswith(_TIED_DEFAULT)
    arch = {
        "layers": layers, "hidden": hidden, "intermediate": intermediate, "heads": heads, "kv_heads": kv_heads,
        "head_dim": head_dim, "vocab": vocab, "max_context": _int(text, "max_position_embeddings", "n_positions",
                                                                  "seq_length"),
        "tied_embeddings": tied,
    }
    preset: dict = {"id": model_id, "name": name or str(text.get("_name_or_path") or model_id)[:120],
                    "architecture": arch}
    # multi-head latent attention (DeepSeek-V2/V3, Kimi K2)
    rank = _int(text, "kv_lora_rank")
    if rank:
        rope = _int(text, "qk_rope_head_dim", default=0)
        nope = _int(text, "qk_nope_head_dim", default=head_dim)
        v_dim = _int(text, "v_head_dim", default=head_dim)
        arch["head_dim"] = v_dim
        arch["decoupled_head_dim"] = True
        preset["mla"] = {"kv_lora_rank": rank, "rope_head_dim": rope, "qk_nope_head_dim": nope, "v_head_dim": v_dim}
        q_rank = _int(text, "q_lora_rank")
        if q_rank:
            preset["mla"]["q_lora_rank"] = q_rank
    # mixture of experts
    experts = _int(text, "n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts", default=0)
    active = _int(text, "num_experts_per_tok", "experts_per_token", "moe_top_k", default=0)
    if experts and experts > 1 and active:
        moe = {"experts": experts, "active_experts": min(active, experts)}
        shared = _int(text, "n_shared_experts", "num_shared_experts", default=None)
        shared_width = _int(text, "shared_expert_intermediate_size")
        if shared is None:
            shared = 1 if shared_width else 0
        moe["shared_experts"] = shared
        dense = _int(text, "first_k_dense_replace", default=0)
        mlp_only = text.get("mlp_only_layers")
        if not dense and isinstance(mlp_only, list):
            dense = len(mlp_only)
        moe["dense_layers"] = min(dense, layers)
        moe["expert_intermediate"] = _int(text, "moe_intermediate_size") or _int(text, "intermediate_size") \
            or intermediate
        if shared_width and shared_width != moe["expert_intermediate"]:
            moe["shared_intermediate"] = shared_width
        step = _int(text, "interleave_moe_layer_step", "decoder_sparse_step", "moe_layer_freq", default=1)
        if step and step > 1:
            moe["interleave"] = step
        moe["source"] = "config"
        preset["moe"] = moe
    window = _sliding_window(text, layers, model_type)
    if window:
        window["source"] = "config"
        preset["sliding_window"] = window
    linear = _linear_attention(text, layers)
    if linear:
        preset["linear_attention"] = linear
    mtp = _int(text, "num_nextn_predict_layers", "mtp_num_hidden_layers", "num_mtp_modules", default=0)
    if mtp:
        arch["mtp_layers"] = mtp
    checkpoint = _checkpoint(cfg, text)
    if checkpoint:
        preset["checkpoint"] = checkpoint
    vision = _vision_params(cfg)
    if vision:
        preset["encoders"] = {"vision_b": round(vision / BILLION, 3), "included_in_total": True, "source": "config"}
    total, active_params = hf_config_param_count(preset, attn_output_gate=bool(
        text.get("attn_output_gate", model_type == "qwen3_next")))
    total += vision
    preset["parameters"] = {"total_b": total / BILLION, "source": "config"}
    if "moe" in preset:
        preset["parameters"]["active_b"] = (active_params + vision) / BILLION
    return preset


def hf_config_param_count(preset: dict, attn_output_gate: bool = False) -> tuple[float, float]:
    """(total, active) parameters of the language model a preset dict describes (not billions).

    Embeddings vocab*hidden, twice unless tied. Per full-attention layer
    hidden*heads*head_dim (q, doubled with an output gate) + 2*hidden*kv_heads*head_dim
    (k, v) + heads*head_dim*hidden (o); MLA layers q_a/q_b (or q), kv_a, kv_b and o
    as in DeepSeek-V3; Gated DeltaNet layers their q/k/v/z, b/a, convolution and
    output projections. Dense FFN 3*hidden*intermediate; MoE layer
    experts*3*hidden*expert_intermediate + shared experts + router hidden*experts
    (active: the used experts instead of all). Norms and biases are ignored.
    Multi-token-prediction modules are not counted (inference does not use them).
    """
    a = preset["architecture"]
    h, n, heads, kv, hd = a["hidden"], a["layers"], a["heads"], a["kv_heads"], a["head_dim"]
    embeddings = a["vocab"] * h * (1 if a["tied_embeddings"] else 2)
    mla = preset.get("mla")
    if mla:
        # presets of the data set may give only the required MLA keys: the other widths default to head_dim
        rope = mla.get("rope_head_dim") or 0
        nope, v_dim = mla.get("qk_nope_head_dim") or hd, mla.get("v_head_dim") or hd
        q_rank = mla.get("q_lora_rank")
        q = (h * q_rank + q_rank * heads * (nope + rope)) if q_rank else h * heads * (nope + rope)
        attention = q + h * (mla["kv_lora_rank"] + rope) + mla["kv_lora_rank"] * heads * (nope + v_dim) \
            + heads * v_dim * h
    else:
        attention = h * heads * hd * (2 if attn_output_gate else 1) + 2 * h * kv * hd + heads * hd * h
    linear = preset.get("linear_attention")
    linear_layers = 0
    linear_params = 0.0
    if linear and linear.get("kind") == "gated-deltanet" and all(
            linear.get(k) for k in ("key_heads", "value_heads", "key_head_dim", "value_head_dim")):
        kh, vh, kd, vd = linear["key_heads"], linear["value_heads"], linear["key_head_dim"], linear["value_head_dim"]
        conv_dim = 2 * kh * kd + vh * vd
        linear_params = h * (conv_dim + vh * vd) + h * 2 * vh + conv_dim * linear["conv_kernel"] + vh * vd * h
        linear_layers = min(linear["layers"], n)
    mixer_total = (n - linear_layers) * attention + linear_layers * linear_params
    dense_ffn = 3 * h * a["intermediate"]
    moe = preset.get("moe")
    if not moe:
        total = embeddings + mixer_total + n * dense_ffn
        return total, total
    e_inter = moe.get("expert_intermediate") or a["intermediate"]
    expert = 3 * h * e_inter
    shared = moe.get("shared_experts", 0) * 3 * h * (moe.get("shared_intermediate") or e_inter)
    router = h * moe["experts"]
    dense_layers = moe.get("dense_layers", 0)
    step = moe.get("interleave", 1) or 1
    sparse_layers = len([i for i in range(dense_layers, n) if (i - dense_layers + 1) % step == 0])
    dense_count = n - sparse_layers
    base = embeddings + mixer_total + dense_count * dense_ffn + sparse_layers * (shared + router)
    total = base + sparse_layers * moe["experts"] * expert
    active = base + sparse_layers * moe["active_experts"] * expert
    return total, active
