"""Checks on a model preset that JSON Schema cannot express.

Each check returns (path, message) pairs. They catch the slips a contributor
makes when copying figures from a config.json: a KV-head count that does not
divide the heads, a head width that does not match the model width, a mixture
of experts with more active than total parameters, a sliding window on more
layers than the model has.
"""

from __future__ import annotations

import datetime

from atlas.checks.common import not_in_future


def model_problems(model: dict, today: datetime.date | None = None) -> list[tuple[tuple, str]]:
    """Semantic problems of one schema-valid model preset."""
    today = today or datetime.date.today()
    problems: list[tuple[tuple, str]] = []
    sources = model.get("sources", {})
    arch = model["architecture"]

    # Every block names a source that exists; every source is cited.
    used = set()
    for key in ("parameters", "architecture", "moe", "sliding_window", "mla", "linear_attention", "checkpoint", "encoders"):
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

    if model["release_year"] > today.year + 1:
        problems.append((("release_year",), f"{model['release_year']} is more than a year ahead"))
    for key, source in sources.items():
        if isinstance(source, dict) and "accessed" in source and not not_in_future(source["accessed"], today):
            problems.append((("sources", key, "accessed"), f"{source['accessed']} is not a past date"))
    return problems
