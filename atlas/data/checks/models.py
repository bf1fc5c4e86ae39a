"""Checks on a model preset that JSON Schema cannot express.

Each check returns (path, message) pairs. They catch the slips a contributor
makes when copying figures from a config.json: a KV-head count that does not
divide the heads, a head width that does not match the model width, a mixture
of experts with more active than total parameters, a sliding window on more
layers than the model has, and a total (or active) parameter count that the
architecture does not add up to.
"""

from __future__ import annotations

import datetime

from atlas.core.calculators.models import BILLION, ModelSpec
from atlas.data.checks.common import not_in_future

# How far a preset's stated parameters may be from what its architecture implies (atlas.core.calculators.models).
TOTAL_TOLERANCE = 0.03  # parameters.total_b
ACTIVE_TOLERANCE = 0.05  # parameters.active_b of a mixture of experts


def model_problems(model: dict, today: datetime.date | None = None) -> list[tuple[tuple, str]]:
    """Semantic problems of one schema-valid model preset."""
    today = today or datetime.date.today()
    problems: list[tuple[tuple, str]] = []
    sources = model.get("sources", {})
    arch = model["architecture"]

    # Every block names a source that exists; every source is cited.
    used = set()
    for key in ("parameters", "architecture", "moe", "sliding_window", "mla", "linear_attention", "checkpoint", "encoders",
                "gguf"):
        if key in model:
            ref = model[key]["source"]
            used.add(ref)
            if ref not in sources:
                known = ", ".join(sorted(sources)) or "none"
                problems.append(((key, "source"), f"names source '{ref}', which is not in 'sources' (known: {known})"))
    for key in sources:
        if key not in used:
            problems.append((("sources", key), "is listed but no value cites it; remove it or cite it"))

    # Attention geometry.
    if arch["heads"] % arch["kv_heads"]:
        problems.append(
            (("architecture", "kv_heads"), f"{arch['kv_heads']} does not divide heads ({arch['heads']}); grouped-query attention needs it to")
        )
    width = arch["heads"] * arch["head_dim"]
    if width != arch["hidden"] and not arch.get("decoupled_head_dim"):
        problems.append(
            (
                ("architecture", "head_dim"),
                f"heads x head_dim = {width} differs from hidden ({arch['hidden']}); "
                "fix the figure or set decoupled_head_dim: true if the config says so",
            )
        )

    # Mixture of experts: both or neither of moe and active_b; active <= total.
    params = model["parameters"]
    moe = model.get("moe")
    if moe and "active_b" not in params:
        problems.append((("parameters", "active_b"), "a mixture of experts states its active parameters"))
    if "active_b" in params and not moe:
        problems.append((("parameters", "active_b"), "is only for mixtures of experts; add a 'moe' block or remove it"))
    if "active_b" in params and params["active_b"] > params["total_b"]:
        problems.append((("parameters", "active_b"), f"{params['active_b']} is more than total_b ({params['total_b']})"))
    if moe and moe["active_experts"] > moe["experts"]:
        problems.append((("moe", "active_experts"), f"{moe['active_experts']} is more than experts ({moe['experts']})"))
    if moe and moe.get("dense_layers", 0) >= arch["layers"]:
        problems.append((("moe", "dense_layers"), f"must be fewer than layers ({arch['layers']})"))

    # Sliding window: no more layers than the model has, window below the context.
    window = model.get("sliding_window")
    if window and window["layers"] > arch["layers"]:
        problems.append((("sliding_window", "layers"), f"{window['layers']} is more than the model's {arch['layers']} layers"))

    # MLA replaces per-head keys and values; its latent is narrower than the heads it replaces.
    mla = model.get("mla")
    if mla and mla["kv_lora_rank"] + mla["rope_head_dim"] >= 2 * arch["kv_heads"] * arch["head_dim"]:
        problems.append((("mla", "kv_lora_rank"), "the latent is not smaller than the key/value heads it compresses; check the figure"))

    # Linear-attention layers are some of the layers; the sliding-window ones are among the others.
    linear = model.get("linear_attention")
    if linear and linear["layers"] > arch["layers"]:
        problems.append((("linear_attention", "layers"), f"{linear['layers']} is more than the model's {arch['layers']} layers"))
    elif linear and window and linear["layers"] + window["layers"] > arch["layers"]:
        problems.append(
            (("sliding_window", "layers"), f"{window['layers']} sliding-window layers and {linear['layers']} linear-attention "
             f"layers are more than the model's {arch['layers']} layers")
        )

    problems += parameter_count_problems(model)

    if model["release_year"] > today.year + 1:
        problems.append((("release_year",), f"{model['release_year']} is more than a year ahead"))
    for key, source in sources.items():
        if isinstance(source, dict) and "accessed" in source and not not_in_future(source["accessed"], today):
            problems.append((("sources", key, "accessed"), f"{source['accessed']} is not a past date"))
    return problems


def parameter_count_problems(model: dict) -> list[tuple[tuple, str]]:
    """The stated total (and, for a mixture of experts, active) parameters against the architecture's count.

    ``atlas.core.calculators.models.ModelSpec.count_params`` adds embeddings (twice unless
    tied), attention (GQA, MLA with its query and key/value projections,
    Gated DeltaNet/Mamba2 projections), dense and expert MLPs (gate, up,
    down), shared experts, routers, norms and, when ``encoders.included_in_total``,
    the encoders. total_b must be within 3 % of it, counted with or without
    the multi-token-prediction modules (cards differ); active_b within 5 % of
    the parameters one token uses, counting embedding and head, only the head,
    or neither (cards differ: DeepSeek-V3 counts both, gpt-oss only the head).
    A count that rounds to the stated figure at the precision it is stated
    passes too (a card's "3B activated" says 2.5 to 3.5 billion). An MLA block
    without q_lora_rank gives no query width, so its active count is not
    checked.
    """
    try:
        spec = ModelSpec.from_preset(model["id"], model)
        totals = [spec.count_params()] + ([spec.count_params(mtp=True)] if spec.mtp_layers else [])
        actives = [spec.count_active_params(*flags) for flags in ((True, True), (False, True), (False, False))] if spec.is_moe else []
    except (KeyError, TypeError, ValueError, ArithmeticError):
        return []  # the schema and the checks above report what is missing or malformed
    problems = []
    params = model["parameters"]
    total = _count_problem(params["total_b"], totals, TOTAL_TOLERANCE, "the architecture adds up to",
                           "check layers, widths, vocabulary and experts, or the card's figure")
    if total:
        problems.append((("parameters", "total_b"), total))
    mla = model.get("mla")
    if actives and "active_b" in params and not (mla and "q_lora_rank" not in mla):
        active = _count_problem(params["active_b"], actives, ACTIVE_TOLERANCE, "one token uses per the architecture",
                                "check experts, active_experts, shared_experts and expert_intermediate")
        if active:
            problems.append((("parameters", "active_b"), active))
    return problems


def _count_problem(stated_b: float, counts: list[float], tolerance: float, what: str, hint: str) -> str | None:
    """The message when no count in ``counts`` is within ``tolerance`` of ``stated_b`` billion (nor rounds to it)."""
    stated = stated_b * BILLION
    best = min(counts, key=lambda c: abs(c - stated))
    if stated > 0 and (abs(best / stated - 1) <= tolerance or _rounds_to(best, stated_b)):
        return None
    return (f"{stated_b} billion differs from the {best / BILLION:.2f} billion {what} "
            f"({(best / stated - 1) * 100 if stated else 0:+.1f} %, more than {tolerance:.0%}); {hint}")


def _rounds_to(count: float, stated_b: float) -> bool:
    """True if ``count`` parameters, in billions, round to ``stated_b`` at the decimals ``stated_b`` is given with."""
    text = repr(stated_b)
    decimals = len(text.split(".")[1]) if isinstance(stated_b, float) and "." in text and "e" not in text else 0
    return abs(count / BILLION - stated_b) <= 0.5 * 10 ** -decimals + 1e-9
