"""Speculative decoding and multi-token prediction: the expected speed-up of decoding and the memory it costs.

A drafter proposes ``k`` tokens; the target model checks them in one run over ``k + 1`` positions and keeps the
accepted ones plus one of its own. With acceptance rate ``a`` per drafted token (acceptances independent) a run
yields ``(1 - a^(k+1)) / (1 - a)`` tokens on average (Leviathan et al. 2023, ``defaults.SPEC_EXPECTED_TOKENS``).
The time of a run is ``k`` drafter steps plus one verification step, each priced by the fitted speed model
(``atlas.core.calculators.speed``): the verification reads the weights once for ``k + 1`` positions per sequence (more
experts of a mixture of experts, more FLOPs) and each sequence's KV cache once.

Drafters: a smaller model of the same family with the same tokenizer (``draft``), or the model's own
multi-token-prediction modules (``mtp``: DeepSeek-V3/R1, GLM-4.5 and later), which draft one token per module at the
cost of one transformer block and the shared output head.
"""

from __future__ import annotations

from atlas.core.calculators import defaults as d
from atlas.core.calculators.models import ModelSpec

METHODS = ("none", "draft", "mtp")

# Which engines run which drafter (their documentation, 2025-26): llama.cpp's server and MLX-LM take a draft model
# (llama.cpp docs/speculative.md, mlx_lm.generate --draft-model), Hugging Face transformers as assisted generation;
# vLLM, SGLang and TensorRT-LLM take draft models and the MTP modules of DeepSeek-V3-style models.
SUPPORT = {
    "llama.cpp": ("draft",),
    "mlx": ("draft",),
    "transformers": ("draft",),
    "vllm": ("draft", "mtp"),
    "sglang": ("draft", "mtp"),
    "tensorrt-llm": ("draft", "mtp"),
}


def tokens_per_run(acceptance: float, drafted: int) -> float:
    """Expected tokens one target-model run yields: (1 - a^(k+1)) / (1 - a); k + 1 when every draft is accepted."""
    if acceptance >= 1:
        return drafted + 1.0
    return (1 - acceptance ** (drafted + 1)) / (1 - acceptance)


def speedup(acceptance: float, drafted: int, draft_step_s: float, verify_step_s: float, plain_step_s: float) -> float:
    """Tokens per second with speculation over tokens per second without: tokens per run over the run's time
    (``drafted`` drafter steps and one verification), in units of a plain decoding step."""
    return tokens_per_run(acceptance, drafted) * plain_step_s / (drafted * draft_step_s + verify_step_s)


def mtp_step_share(model: ModelSpec) -> float:
    """Time of one MTP module's step as a share of a plain step: one transformer block of the model plus the
    output head it shares, over the parameters a token reads (an MTP module of DeepSeek-V3 is one MoE block)."""
    block = max(model.active - model.embedding_params, 0.0) / model.layers
    head = model.vocab * model.hidden
    return (block + head) / model.active


def mtp_params(model: ModelSpec) -> float:
    """Parameters of the model's MTP modules (held in memory only when they are used)."""
    return model.count_params(mtp=True) - model.count_params()


# A drafter is worth running only well below the model's size: its steps, k per run, cost time the model's accepted
# tokens must win back. The automatic choice reads at most this percentage of the parameters the model reads per token.
DRAFT_MAX_ACTIVE_PERCENT = 50


def default_draft(model_id: str, presets: dict) -> str | None:
    """The draft model a reader who names none gets: of the presets (``{id: model preset}``) by the same publisher
    with the same vocabulary (the tokenizer a draft must share), the one that reads the fewest parameters per token,
    if it reads at most ``DRAFT_MAX_ACTIVE_PERCENT`` % of the model's; None where no preset qualifies (a custom
    model too). Llama 3.2 1B for Llama 3.1 70B, Qwen3 0.6B for Qwen3-32B, Gemma 3 270M for Gemma 3 27B."""
    model = presets.get(model_id)
    if model is None:
        return None

    def active_b(preset: dict) -> float:
        return preset["parameters"].get("active_b", preset["parameters"]["total_b"])

    candidates = [(active_b(preset), draft_id) for draft_id, preset in presets.items()
                  if draft_id != model_id and preset["vendor"] == model["vendor"]
                  and preset["architecture"]["vocab"] == model["architecture"]["vocab"]
                  and 100 * active_b(preset) <= DRAFT_MAX_ACTIVE_PERCENT * active_b(model)]
    return min(candidates)[1] if candidates else None


def default_drafted(method: str, model: ModelSpec) -> int:
    """Tokens drafted per run when the reader sets none: one per MTP module, the vLLM example's 5 for a draft model."""
    return max(model.mtp_layers, 1) if method == "mtp" else int(d.SPEC_DRAFT_TOKENS.value)


def acceptance_for_tokens(tokens: float, drafted: int) -> float:
    """The acceptance rate ``a`` at which a run yields ``tokens`` on average: solves (1 - a^(k+1)) / (1 - a) =
    tokens by bisection (the left side rises with ``a`` from 1 at a = 0 to k + 1 at a = 1)."""
    low, high = 0.0, 1.0
    for _ in range(60):
        mid = (low + high) / 2
        if tokens_per_run(mid, drafted) < tokens:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def task_tokens_per_run(task: str) -> float:
    """Spec-Bench's draft model: mean accepted tokens over all tasks scaled by the task's speed-up over the overall
    one (same pair and device, so about the same time per run): 2.28 * 1.66 / 1.49 = 2.54 for chat."""
    return (d.SPEC_TASK_MEAN_ACCEPTED * d.SPEC_TASK_SPEEDUP[task]
            / d.SPEC_TASK_OVERALL_SPEEDUP)


def task_acceptance(task: str) -> float:
    """The per-token acceptance rate of a draft model for a task type (``defaults.SPEC_TASK_TYPES``), derived from
    Spec-Bench (``defaults.SPEC_BENCH``) at its k = 5 drafted tokens: 0.63 for chat, 0.43 for translation."""
    return acceptance_for_tokens(task_tokens_per_run(task), d.SPEC_TASK_DRAFTED)


def default_acceptance(method: str, task: str = d.SPEC_TASK_DEFAULT) -> float:
    """The sourced acceptance rate: DeepSeek-V3's for MTP, Spec-Bench's for a draft model on ``task``."""
    return float(d.SPEC_MTP_ACCEPTANCE.value) if method == "mtp" else task_acceptance(task)
