"""A model's architecture as the formulas need it, from a preset or custom figures.

``ModelSpec`` holds plain counts: parameters (not billions), layers, widths,
heads, vocabulary, and the optional mixture-of-experts, sliding-window and
MLA figures. It also counts what the formulas share: embedding parameters,
KV-cache elements per token, LoRA adapter parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.defaults import DEFAULT_INTERMEDIATE_RATIO

BILLION = 10**9


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

    @classmethod
    def from_preset(cls, model_id: str, data: dict) -> ModelSpec:
        """Build from a model preset dict (``data/models/<id>.yaml``)."""
        arch, params = data["architecture"], data["parameters"]
        moe, window, mla = data.get("moe", {}), data.get("sliding_window"), data.get("mla")
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
            window=window["window"] if window else None,
            window_layers=window["layers"] if window else 0,
            mla_rank=mla["kv_lora_rank"] if mla else None,
            mla_rope_dim=mla["rope_head_dim"] if mla else None,
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

    # --- KV cache -------------------------------------------------------------

    @property
    def kv_elements_per_token_layer(self) -> int:
        """Cached elements per token and layer: K and V of each KV head, or MLA's latent plus RoPE key."""
        if self.mla_rank:
            return self.mla_rank + (self.mla_rope_dim or 0)
        return 2 * self.kv_heads * self.head_dim

    def cached_tokens(self, context: int) -> float:
        """Tokens cached over all layers for one sequence of ``context`` tokens (sliding-window aware)."""
        if self.window and self.window_layers:
            local = self.window_layers * min(context, self.window)
            return local + (self.layers - self.window_layers) * context
        return self.layers * context

    def attention_span(self, context: int) -> float:
        """Sum over layers of the tokens one new token attends to, at position ``context``."""
        return self.cached_tokens(context)

    def attention_pairs(self, context: int) -> float:
        """Sum over layers and positions 1..context of the tokens each position attends to (causal)."""
        full = context * (context + 1) / 2
        if not (self.window and self.window_layers):
            return self.layers * full
        w = self.window
        local = full if context <= w else w * (w + 1) / 2 + (context - w) * w
        return self.window_layers * local + (self.layers - self.window_layers) * full

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
        moe_layers = self.layers - self.dense_layers
        return self.layers * attention + self.dense_layers * dense_mlp + moe_layers * expert_mlp

    def count_params(self) -> float:
        """Parameters implied by the architecture of a dense model with a gated MLP (for checking presets)."""
        h = self.hidden
        attention = h * self.heads * self.head_dim * 2 + h * self.kv_heads * self.head_dim * 2
        mlp = 3 * h * self.intermediate
        return self.embedding_params + self.layers * (attention + mlp + 2 * h) + h
