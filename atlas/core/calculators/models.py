"""A model's architecture as the formulas need it, from a preset or custom figures.

``ModelSpec`` holds plain counts: parameters (not billions), layers, widths,
heads, vocabulary, and the optional mixture-of-experts, sliding-window,
MLA and linear-attention figures. It also counts what the formulas share:
embedding parameters, KV-cache elements per token and layer kind, the
recurrent state of linear-attention layers, LoRA adapter parameters, and
the tensors of the architecture (``tensors``), from which the parameter
count and the weight bytes per tensor group follow.

Layer kinds: of ``layers`` decoder layers, ``linear_layers`` keep a fixed
recurrent state (Gated DeltaNet, Mamba2) instead of a KV cache; the others
are attention layers, ``window_layers`` of them with a sliding window of
``window`` tokens and the rest with full (global) attention. MLA models
cache one latent per token and layer instead of K and V per head.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from atlas.core.calculators.defaults import DEFAULT_INTERMEDIATE_RATIO, WEIGHT_FORMATS

BILLION = 10**9

# Tensor groups: where a weight lives, as the weight-memory breakdown reports it.
TENSOR_GROUPS = ("embeddings", "output", "attention", "linear_attention", "ffn", "experts", "shared_experts",
                 "router", "norms", "encoders")


@dataclass(frozen=True)
class Tensor:
    """One weight tensor (or, for ``count`` > 1, that many tensors of the same shape, e.g. routed experts).

    ``group`` is one of ``TENSOR_GROUPS``; ``role`` is what a quantiser's
    recipe looks at (llama.cpp's tensor categories: ``token_embd``,
    ``output``, ``attn_q``, ``attn_k``, ``attn_v``, ``attn_kv_b``,
    ``attn_output``, ``attn_other``, ``ffn_gate``, ``ffn_up``, ``ffn_down``,
    ``ssm``, ``attn_qkv`` (Q, K and V fused in one matrix, the Phi-3
    layout), ``other`` (a matrix without a rule of its own), and the
    unquantised ``router``, ``norm``, ``ssm_small``, ``encoder``); ``cols`` is
    the input width (a row's length, which a block format must divide);
    ``layer`` is None outside the decoder layers. ``extra`` marks a tensor a
    GGUF file holds beyond the card's parameter count (``ModelSpec.gguf_tensors``):
    ``head``, the checkpoint's stored copy of a tied output head (llama.cpp
    loads it), or ``mtp``, a multi-token-prediction module (in the file only:
    llama.cpp skips it at load).
    """

    group: str
    role: str
    params: float
    cols: int
    layer: int | None = None
    count: int = 1
    extra: str | None = None


@dataclass(frozen=True)
class ModelSpec:
    """Architecture of one decoder-only transformer. Parameter counts are plain counts."""

    id: str
    name: str
    params: float
    layers: int
    hidden: int
    intermediate: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    tied_embeddings: bool = False
    max_context: int | None = None
    active_params: float | None = None  # mixture of experts only
    experts: int = 0
    active_experts: int = 0
    shared_experts: int = 0
    dense_layers: int = 0
    expert_intermediate: int | None = None
    window: int | None = None  # sliding-window attention
    window_layers: int = 0
    mla_rank: int | None = None  # multi-head latent attention
    mla_rope_dim: int | None = None
    # --- optional figures (presets without them behave as before) ---
    window_pattern: str | None = None  # e.g. "5 local : 1 global" (documentation only)
    moe_interleave: int = 1  # every n-th layer after the dense ones is MoE
    shared_intermediate: int | None = None  # shared-expert width when it differs from expert_intermediate
    mla_q_rank: int | None = None  # q_lora_rank; None: queries not compressed
    mla_nope_dim: int | None = None  # qk_nope_head_dim (default head_dim)
    mla_v_dim: int | None = None  # v_head_dim (default head_dim)
    linear_kind: str | None = None  # gated-deltanet | mamba2 | other
    linear_layers: int = 0
    linear_key_heads: int = 0
    linear_value_heads: int = 0
    linear_key_head_dim: int = 0
    linear_value_head_dim: int = 0
    linear_conv_kernel: int = 0
    mtp_layers: int = 0  # multi-token-prediction modules in the checkpoint (not run for plain decoding)
    vision_params: float = 0.0  # encoders (plain counts)
    audio_params: float = 0.0
    encoders_in_total: bool = True  # whether ``params`` counts the encoders
    checkpoint_dtype: str | None = None
    checkpoint_block: int | None = None
    # --- what llama.cpp's GGUF conversion writes (the preset's ``gguf`` block) ---
    fused_qkv: bool = False  # Q, K and V stored as one attn_qkv matrix per layer (Phi-3 layout)
    stored_tied_head: bool = False  # tied, yet the checkpoint holds lm_head.weight: the GGUF has its own output.weight
    gguf_mtp: bool = False  # the GGUF keeps the mtp_layers modules (not loaded by llama.cpp)
    gguf_mtp_embeddings: bool = False  # each kept MTP module has its own embedding and head copies
    # --- a model read from a file (atlas.core.calculators.model_import): its weights as stored ---
    file_weights: str | None = None  # weight format of the file's tensors (a GGUF import)
    file_weight_bytes: float | None = None  # the file's exact tensor bytes in that format

    @property
    def published_format(self) -> str | None:
        """The weight format the preset's checkpoint is published in (``checkpoint.dtype``), as a key of
        ``defaults.WEIGHT_FORMATS``: block-scaled FP8 (DeepSeek-V3's 128 x 128 blocks) is ``fp8_block``; None
        when the preset states no format or one the calculators do not model."""
        dtype = self.checkpoint_dtype
        if dtype == "fp8" and self.checkpoint_block:
            return "fp8_block"
        return dtype if dtype in WEIGHT_FORMATS else None

    @classmethod
    def from_preset(cls, model_id: str, data: dict) -> ModelSpec:
        """Build from a model preset dict (``data/models/<id>.yaml``)."""
        arch, params = data["architecture"], data["parameters"]
        moe, window, mla = data.get("moe", {}), data.get("sliding_window"), data.get("mla")
        linear, encoders, checkpoint = data.get("linear_attention"), data.get("encoders"), data.get("checkpoint")
        gguf = data.get("gguf", {})
        return cls(
            id=model_id,
            name=data["name"],
            params=params["total_b"] * BILLION,
            active_params=params["active_b"] * BILLION if "active_b" in params else None,
            layers=arch["layers"],
            hidden=arch["hidden"],
            intermediate=arch["intermediate"],
            heads=arch["heads"],
            kv_heads=arch["kv_heads"],
            head_dim=arch["head_dim"],
            vocab=arch["vocab"],
            tied_embeddings=arch["tied_embeddings"],
            max_context=arch["max_context"],
            experts=moe.get("experts", 0),
            active_experts=moe.get("active_experts", 0),
            shared_experts=moe.get("shared_experts", 0),
            dense_layers=moe.get("dense_layers", 0),
            expert_intermediate=moe.get("expert_intermediate"),
            moe_interleave=moe.get("interleave", 1),
            shared_intermediate=moe.get("shared_intermediate"),
            window=window["window"] if window else None,
            window_layers=window["layers"] if window else 0,
            window_pattern=window.get("pattern") if window else None,
            mla_rank=mla["kv_lora_rank"] if mla else None,
            mla_rope_dim=mla["rope_head_dim"] if mla else None,
            mla_q_rank=mla.get("q_lora_rank") if mla else None,
            mla_nope_dim=mla.get("qk_nope_head_dim") if mla else None,
            mla_v_dim=mla.get("v_head_dim") if mla else None,
            linear_kind=linear["kind"] if linear else None,
            linear_layers=linear["layers"] if linear else 0,
            linear_key_heads=linear["key_heads"] if linear else 0,
            linear_value_heads=linear["value_heads"] if linear else 0,
            linear_key_head_dim=linear["key_head_dim"] if linear else 0,
            linear_value_head_dim=linear["value_head_dim"] if linear else 0,
            linear_conv_kernel=linear.get("conv_kernel", 0) if linear else 0,
            mtp_layers=arch.get("mtp_layers", 0),
            vision_params=encoders.get("vision_b", 0.0) * BILLION if encoders else 0.0,
            audio_params=encoders.get("audio_b", 0.0) * BILLION if encoders else 0.0,
            encoders_in_total=encoders["included_in_total"] if encoders else True,
            checkpoint_dtype=checkpoint["dtype"] if checkpoint else None,
            checkpoint_block=checkpoint.get("block_size") if checkpoint else None,
            fused_qkv=gguf.get("fused_qkv", False),
            stored_tied_head=gguf.get("stored_tied_head", False),
            gguf_mtp=gguf.get("mtp", False),
            gguf_mtp_embeddings=gguf.get("mtp_embeddings", False),
            file_weights=data["file"]["weights"] if data.get("file") else None,
            file_weight_bytes=float(data["file"]["weight_bytes"]) if data.get("file") else None,
        )

    @classmethod
    def custom(
        cls,
        params_b: float,
        layers: int,
        hidden: int,
        heads: int,
        kv_heads: int,
        vocab: int,
        head_dim: int | None = None,
        intermediate: int | None = None,
    ) -> ModelSpec:
        """A dense custom model; head_dim defaults to hidden/heads, intermediate to 4 x hidden."""
        return cls(
            id="custom",
            name="custom",
            params=params_b * BILLION,
            layers=layers,
            hidden=hidden,
            intermediate=intermediate or DEFAULT_INTERMEDIATE_RATIO.value * hidden,
            heads=heads,
            kv_heads=kv_heads,
            head_dim=head_dim or max(1, hidden // heads),
            vocab=vocab,
        )

    # --- parameter counts -----------------------------------------------------

    @property
    def is_moe(self) -> bool:
        return self.experts > 0

    @property
    def active(self) -> float:
        """Parameters used per token (all of them for a dense model)."""
        return self.active_params if self.active_params else self.params

    @property
    def embedding_params(self) -> float:
        """Input embedding plus, when untied, the output head."""
        return self.vocab * self.hidden * (1 if self.tied_embeddings else 2)

    @property
    def encoder_params(self) -> float:
        """Vision and audio encoders together (plain count)."""
        return self.vision_params + self.audio_params

    def expert_split(self) -> tuple[float, float]:
        """(parameters every token uses, parameters of all routed experts together).

        From total P, active A, E experts and k per token: A = S + X*k/E and
        P = S + X, so X = (P - A) * E / (E - k).
        """
        if not self.is_moe or self.active_experts >= self.experts:
            return self.params, 0.0
        routed = (self.params - self.active) * self.experts / (self.experts - self.active_experts)
        routed = min(routed, self.params)
        return self.params - routed, routed

    def params_touched(self, tokens: float) -> float:
        """Parameters a forward pass over ``tokens`` tokens reads: each token picks k of E experts.

        With uniform, independent routing a given expert is missed by all
        tokens with probability (1 - k/E)^tokens.
        """
        shared, routed = self.expert_split()
        if routed == 0:
            return self.params
        share = 1 - (1 - self.active_experts / self.experts) ** max(tokens, 1)
        return shared + routed * share

    # --- layer kinds ----------------------------------------------------------

    @property
    def attention_layers(self) -> int:
        """Layers with attention (and a KV cache): all but the linear-attention ones."""
        return max(0, self.layers - self.linear_layers)

    @property
    def sliding_layers(self) -> int:
        """Attention layers with a sliding window (0 without a window)."""
        return min(self.window_layers, self.attention_layers) if self.window else 0

    @property
    def full_layers(self) -> int:
        """Attention layers that attend to (and cache) the whole context."""
        return self.attention_layers - self.sliding_layers

    def _spread(self, n: int, total: int) -> set[int]:
        """``n`` of ``total`` positions spread evenly, each at the end of its share (e.g. every 4th of 48: 3, 7, ...)."""
        if n <= 0:
            return set()
        return {min(total - 1, round((k + 1) * total / n) - 1) for k in range(n)}

    def layer_kinds(self) -> tuple[str, ...]:
        """Kind of each layer in order: ``linear``, ``sliding`` or ``full``.

        Counts are the preset's; positions follow the common layouts (the
        attention layer closes each group of linear ones, as Qwen3-Next's
        every 4th; the global layer closes each group of local ones, as
        Gemma's 1:1 and 5:1). Only the llama.cpp recipe depends on the
        positions, through the first/last-eighth rule.
        """
        attention = sorted(self._spread(self.attention_layers, self.layers)) if self.linear_layers else list(range(self.layers))
        full = {attention[i] for i in self._spread(self.full_layers, len(attention))} if self.sliding_layers else set(attention)
        return tuple("full" if i in full else "sliding" if i in attention else "linear" for i in range(self.layers))

    def is_moe_layer(self, layer: int) -> bool:
        """Whether ``layer`` has routed experts: after ``dense_layers``, every ``moe_interleave``-th layer."""
        if not self.is_moe or layer < self.dense_layers:
            return False
        step = max(1, self.moe_interleave)
        return (layer - self.dense_layers + 1) % step == 0

    @property
    def moe_layers(self) -> int:
        return sum(self.is_moe_layer(i) for i in range(self.layers))

    # --- tensors and the architecture's parameter count ----------------------------

    def _attention_tensors(self, layer: int) -> list[Tensor]:
        h, n = self.hidden, self.heads
        if self.mla_rank:
            rope = self.mla_rope_dim or 0
            nope = self.mla_nope_dim or self.head_dim
            v = self.mla_v_dim or self.head_dim
            out = []
            if self.mla_q_rank:
                out += [Tensor("attention", "attn_other", h * self.mla_q_rank, h, layer),
                        Tensor("attention", "attn_other", self.mla_q_rank * n * (nope + rope), self.mla_q_rank, layer),
                        Tensor("norms", "norm", self.mla_q_rank, 1, layer)]
            else:
                out.append(Tensor("attention", "attn_q", h * n * (nope + rope), h, layer))
            return out + [
                Tensor("attention", "attn_other", h * (self.mla_rank + rope), h, layer),
                Tensor("norms", "norm", self.mla_rank, 1, layer),
                Tensor("attention", "attn_kv_b", self.mla_rank * n * (nope + v), self.mla_rank, layer),
                Tensor("attention", "attn_output", n * v * h, n * v, layer),
            ]
        q, kv = n * self.head_dim, self.kv_heads * self.head_dim
        if self.fused_qkv:
            return [Tensor("attention", "attn_qkv", h * (q + 2 * kv), h, layer),
                    Tensor("attention", "attn_output", q * h, q, layer)]
        return [
            Tensor("attention", "attn_q", h * q, h, layer),
            Tensor("attention", "attn_k", h * kv, h, layer),
            Tensor("attention", "attn_v", h * kv, h, layer),
            Tensor("attention", "attn_output", q * h, q, layer),
        ]

    def _linear_tensors(self, layer: int) -> list[Tensor]:
        """Gated DeltaNet as Qwen3-Next builds it (in_proj_qkvz, in_proj_ba, conv1d, A_log, dt_bias, norm,
        out_proj); Mamba2 (in_proj with z, x, B, C, dt; conv1d; A, D, dt_bias; norm; out_proj)."""
        h = self.hidden
        k = self.linear_key_heads * self.linear_key_head_dim
        v = self.linear_value_heads * self.linear_value_head_dim
        vh = self.linear_value_heads
        conv = (2 * k + v) * max(self.linear_conv_kernel, 1)
        if self.linear_kind == "mamba2":
            proj_in, small = h * (2 * v + 2 * k + vh), conv + 3 * vh + v
        else:
            proj_in, small = h * (2 * k + 2 * v) + h * 2 * vh, conv + 2 * vh + self.linear_value_head_dim
        return [
            Tensor("linear_attention", "ssm", proj_in, h, layer),
            Tensor("linear_attention", "ssm_small", small, 1, layer),
            Tensor("linear_attention", "ssm", v * h, v, layer),
        ]

    def _ffn_tensors(self, layer: int) -> list[Tensor]:
        h = self.hidden
        if not self.is_moe_layer(layer):
            i = self.intermediate
            return [Tensor("ffn", "ffn_gate", h * i, h, layer), Tensor("ffn", "ffn_up", h * i, h, layer),
                    Tensor("ffn", "ffn_down", i * h, i, layer)]
        e, w = self.experts, self.expert_intermediate or self.intermediate
        out = [
            Tensor("router", "router", h * e, h, layer),
            Tensor("experts", "ffn_gate", e * h * w, h, layer, e),
            Tensor("experts", "ffn_up", e * h * w, h, layer, e),
            Tensor("experts", "ffn_down", e * w * h, w, layer, e),
        ]
        if self.shared_experts:
            s = self.shared_experts * (self.shared_intermediate or w)
            out += [Tensor("shared_experts", "ffn_gate", h * s, h, layer),
                    Tensor("shared_experts", "ffn_up", h * s, h, layer),
                    Tensor("shared_experts", "ffn_down", s * h, s, layer)]
        return out

    def tensors(self, mtp: bool = False) -> list[Tensor]:
        """Every weight tensor of the architecture, in file order (embeddings, layers, final norm, head).

        Norms are counted (2 x hidden per layer plus the final one); biases,
        attention sinks and gates narrower than a row are not. Encoders are
        one tensor each. ``mtp``: add the multi-token-prediction modules
        (one MoE/dense layer each plus its 2 x hidden x hidden projection).
        """
        h = self.hidden
        out = [Tensor("embeddings", "token_embd", self.vocab * h, h)]
        kinds = self.layer_kinds()
        for i, kind in enumerate(kinds):
            out += self._linear_tensors(i) if kind == "linear" else self._attention_tensors(i)
            out += self._ffn_tensors(i)
            out.append(Tensor("norms", "norm", 2 * h, 1, i))
        if mtp:
            for _ in range(self.mtp_layers):
                out += self._mtp_module(self.layers - 1)  # same structure as the last layer
        out.append(Tensor("norms", "norm", h, 1))
        if not self.tied_embeddings:
            out.append(Tensor("output", "output", self.vocab * h, h))
        if self.vision_params:
            out.append(Tensor("encoders", "encoder", self.vision_params, 1))
        if self.audio_params:
            out.append(Tensor("encoders", "encoder", self.audio_params, 1))
        return out

    def _mtp_module(self, layer: int) -> list[Tensor]:
        """One multi-token-prediction module: a decoder layer plus its 2 x hidden x hidden projection and norms."""
        h = self.hidden
        return (self._attention_tensors(layer) + self._ffn_tensors(layer)
                + [Tensor("attention", "attn_other", 2 * h * h, 2 * h, layer), Tensor("norms", "norm", 4 * h, 1, layer)])

    def gguf_tensors(self) -> list[Tensor]:
        """The tensors of a GGUF that llama.cpp's converter writes from the checkpoint, in file order: ``tensors()``
        plus what the preset's ``gguf`` block says the file keeps beyond the card's count, each marked ``extra``:
        the checkpoint's own copy of a tied output head (``head``: output.weight, which llama.cpp loads instead of
        reusing token_embd) and the NextN/MTP modules appended as blocks ``layers`` onward (``mtp``, with their own
        embedding and head copies where ``mtp_embeddings``)."""
        h = self.hidden
        out = self.tensors()
        if self.gguf_mtp:
            last = max(i for i, t in enumerate(out) if t.layer is not None)
            mtp = []
            for k in range(self.mtp_layers):
                module = self._mtp_module(self.layers + k)
                if self.gguf_mtp_embeddings:  # nextn.embed_tokens and nextn.shared_head_head: no rule of their own
                    module += [Tensor("embeddings", "other", self.vocab * h, h, self.layers + k),
                               Tensor("output", "other", self.vocab * h, h, self.layers + k)]
                mtp += [replace(t, extra="mtp") for t in module]
            out = out[:last + 1] + mtp + out[last + 1:]
        if self.tied_embeddings and self.stored_tied_head:
            out.append(Tensor("output", "output", self.vocab * h, h, extra="head"))
        return out

    def count_params(self, mtp: bool = False) -> float:
        """Parameters implied by the architecture (for checking presets): embeddings, attention (GQA, MLA or
        linear), dense and expert MLPs, routers, norms, and the encoders when ``params`` counts them."""
        return sum(t.params for t in self.tensors(mtp) if t.group != "encoders" or self.encoders_in_total)

    def count_active_params(self, input_embedding: bool = True, output_head: bool = True) -> float:
        """Parameters one token uses per the architecture: everything but the routed experts it does not pick
        (k of E). Cards differ on whether the input embedding and the output head count as active (DeepSeek-V3
        counts both, gpt-oss only the head); ``input_embedding`` and ``output_head`` choose (a tied matrix is
        the head)."""
        total = 0.0
        for t in self.tensors():
            if t.group == "experts":
                total += t.params * self.active_experts / self.experts
            elif t.group == "embeddings" and not (output_head if self.tied_embeddings else input_embedding):
                continue
            elif t.group == "output" and not output_head:
                continue
            elif t.group != "encoders" or self.encoders_in_total:
                total += t.params
        return total

    def group_params(self) -> dict[str, float]:
        """Parameters of each tensor group per the architecture (the checkpoint's own counts)."""
        out = {g: 0.0 for g in TENSOR_GROUPS}
        for t in self.tensors():
            out[t.group] += t.params
        return out

    # --- KV cache and recurrent state -------------------------------------------

    @property
    def kv_elements_per_token_layer(self) -> int:
        """Cached elements per token and attention layer: K and V of each KV head, or MLA's latent plus RoPE key."""
        if self.mla_rank:
            return self.mla_rank + (self.mla_rope_dim or 0)
        return 2 * self.kv_heads * self.head_dim

    @property
    def state_elements_per_layer(self) -> int:
        """Recurrent state of one linear-attention layer for one sequence, in elements: the
        value_heads x key_head_dim x value_head_dim state matrix plus the last conv_kernel - 1 inputs of the
        short convolution over q, k and v (2 x key width + value width)."""
        if not self.linear_layers:
            return 0
        k = self.linear_key_heads * self.linear_key_head_dim
        v = self.linear_value_heads * self.linear_value_head_dim
        matrix = self.linear_value_heads * self.linear_key_head_dim * self.linear_value_head_dim
        return matrix + max(self.linear_conv_kernel - 1, 0) * (2 * k + v)

    def cached_tokens_by_kind(self, context: int) -> dict[str, float]:
        """Tokens cached per layer kind, summed over its layers, for one sequence of ``context`` tokens."""
        window = min(context, self.window) if self.window else context
        return {"full": self.full_layers * context, "sliding": self.sliding_layers * window}

    def cached_tokens(self, context: int) -> float:
        """Tokens cached over all attention layers for one sequence of ``context`` tokens (sliding-window aware;
        linear-attention layers cache none)."""
        return sum(self.cached_tokens_by_kind(context).values())

    def attention_span(self, context: int) -> float:
        """Sum over attention layers of the tokens one new token attends to, at position ``context``."""
        return self.cached_tokens(context)

    def attention_pairs(self, context: int) -> float:
        """Sum over attention layers and positions 1..context of the tokens each position attends to (causal)."""
        full = context * (context + 1) / 2
        if not self.sliding_layers:
            return self.attention_layers * full
        w = self.window
        local = full if context <= w else w * (w + 1) / 2 + (context - w) * w
        return self.sliding_layers * local + self.full_layers * full

    # --- LoRA -----------------------------------------------------------------

    def lora_params(self, rank: int) -> float:
        """Adapter parameters for rank-``rank`` LoRA on every linear layer of attention and MLP.

        A d_in x d_out matrix gets rank * (d_in + d_out) parameters. Routed and
        shared experts each carry their own adapters.
        """
        h, q_width, kv_width = self.hidden, self.heads * self.head_dim, self.kv_heads * self.head_dim
        attention = rank * ((h + q_width) * 2 + (h + kv_width) * 2)
        dense_mlp = 3 * rank * (h + self.intermediate)
        if not self.is_moe:
            return self.layers * (attention + dense_mlp)
        width = self.expert_intermediate or self.intermediate
        expert_mlp = 3 * rank * (h + width) * (self.experts + self.shared_experts)
        moe_layers = self.moe_layers
        return self.layers * attention + (self.layers - moe_layers) * dense_mlp + moe_layers * expert_mlp
