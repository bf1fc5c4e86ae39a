"""Serving planner: how many concurrent users a device set sustains at a target speed per user.

A serving engine batches the sequences of all active users into one decode step (continuous batching): the step
reads the weights once for all of them, so the total tokens/s grows with concurrency while each user's speed
falls, until the KV cache of all users no longer fits beside the weights or each user's speed drops below what
the operator promised. ``plan`` asks the fitted speed model (``speed.llm_device_result``) and the fit verdict
for each concurrency and returns the largest one that meets both, with the totals at that load.
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.calculators import defaults as d
from atlas.core.calculators.inputs import Options
from atlas.core.calculators.models import ModelSpec
from atlas.core.calculators.speed import llm_device_result
from atlas.core.calculators.speed_model import kv_cache_bytes

MAX_CONCURRENCY = 4096  # sequences; serving engines cap a batch well below this (vLLM's max_num_seqs: 256 by default)


def _at(model: ModelSpec, opts: Options, device_id: str, device: dict, prices: list | None, batch: int,
        draft: ModelSpec | None = None) -> dict:
    return llm_device_result(device_id, device, model, opts.replace(workload="decode", batch=batch), "device", [],
                             prices, instead=False, draft=draft)


def _meets(result: dict, target: float) -> bool:
    return result["memory"]["fits"] and result["tokens_per_s_per_sequence"] >= target


def plan(model: ModelSpec, opts: Options, device_id: str, device: dict, target_tokens_per_s: float,
         prices: list | None = None, draft: ModelSpec | None = None) -> dict:
    """The largest concurrency at which every user decodes at ``target_tokens_per_s`` or faster and the KV cache
    of all users (each at ``opts.run.context`` tokens) fits on ``opts.placement.num_devices`` devices.

    Returns ``{"target_tokens_per_s", "concurrency", "limited_by", "tokens_per_s_per_user", "tokens_per_s_total",
    "kv_cache_gib", "need_gib", "usable_gib", "usd_per_million_tokens", "curve"}``. ``concurrency`` is 0
    when not even one user reaches the target or the model does not fit; ``limited_by`` is "speed" (one more
    user would be slower than the target), "memory" (one more user's KV cache would not fit), "ceiling"
    (``MAX_CONCURRENCY``) or "does_not_fit". ``curve``: per-user and total tokens/s at powers of two up to past
    the answer, for a chart."""
    one = _at(model, opts, device_id, device, prices, 1, draft)
    best, limit = (one, 1) if _meets(one, target_tokens_per_s) else (None, 0)
    if best is not None:
        low, high = 1, None
        probe = 2
        while probe <= MAX_CONCURRENCY:  # double until the target or the memory fails
            result = _at(model, opts, device_id, device, prices, probe, draft)
            if not _meets(result, target_tokens_per_s):
                high = probe
                break
            best, low = result, probe
            probe *= 2
        if high is None:
            limit = low
        else:
            while high - low > 1:  # the last concurrency that still meets both
                mid = (low + high) // 2
                result = _at(model, opts, device_id, device, prices, mid, draft)
                if _meets(result, target_tokens_per_s):
                    best, low = result, mid
                else:
                    high = mid
            limit = low
    if best is None:
        limited_by = "does_not_fit" if not one["memory"]["fits"] else "speed"
    elif limit >= MAX_CONCURRENCY:
        limited_by = "ceiling"
    else:
        beyond = _at(model, opts, device_id, device, prices, limit + 1, draft)
        limited_by = "memory" if not beyond["memory"]["fits"] else "speed"
    shown = best or one
    curve = []
    batch = 1
    while batch <= min(MAX_CONCURRENCY, max(2 * max(limit, 1), 16)):
        point = _at(model, opts, device_id, device, prices, batch, draft)
        curve.append({"concurrency": batch, "tokens_per_s_per_user": point["tokens_per_s_per_sequence"],
                      "tokens_per_s_total": point["tokens_per_s"], "fits": point["memory"]["fits"]})
        batch *= 2
    cost = shown.get("cost") or {}
    return {
        "target_tokens_per_s": target_tokens_per_s,
        "concurrency": limit,
        "limited_by": limited_by,
        "tokens_per_s_per_user": shown["tokens_per_s_per_sequence"],
        "tokens_per_s_total": shown["tokens_per_s"],
        "kv_cache_gib": kv_cache_bytes(model, opts.quantisation.kv_cache, opts.run.context, max(limit, 1)) / d.GIB,
        "need_gib": shown["memory"]["need_gib"],
        "usable_gib": shown["memory"]["usable_gib"],
        "usd_per_million_tokens": cost.get("usd_per_million_tokens"),
        "usd_per_hour": cost.get("usd_per_hour"),
        "engine": shown["engine"],
        # the cross-validated error of the speed model's group for this engine, device class and batch range
        "accuracy": shown.get("accuracy"),
        "curve": curve,
    }


def sentences(plan_result: dict, device_name: str, num_devices: int, context: int, lang: str) -> list[str]:
    """The plan in words, in ``lang``: the answer, what limits it, the KV cache and the cost at that load."""
    number = lambda value, digits=3: l10n.format_significant(value, lang, digits)  # noqa: E731
    whole = lambda value: l10n.format_number(value, lang, 0)  # noqa: E731
    devices = device_name if num_devices == 1 else l10n.t(lang, "plan.devices", count=whole(num_devices),
                                                            device=device_name)
    target = number(plan_result["target_tokens_per_s"])
    users = plan_result["concurrency"]
    if plan_result["limited_by"] == "does_not_fit":
        return [l10n.t(lang, "plan.none_fit", devices=devices)]
    if users == 0:
        return [l10n.t(lang, "plan.none_speed", devices=devices, target=target,
                       per_user=number(plan_result["tokens_per_s_per_user"]))]
    engine_key = f"engine.{plan_result['engine']}"
    engine = l10n.t(lang, engine_key) if engine_key in l10n.labels(lang) else plan_result["engine"]
    out = [l10n.t(lang, "plan.answer", devices=devices, engine=engine, users=whole(users), target=target,
                  per_user=number(plan_result["tokens_per_s_per_user"]),
                  total=whole(plan_result["tokens_per_s_total"]))]
    limited = plan_result["limited_by"]
    out.append(l10n.t(lang, f"plan.limited.{limited}", target=target, users=whole(users),
                      needed=l10n.format_number(plan_result["need_gib"], lang, 1),
                      available=l10n.format_number(plan_result["usable_gib"], lang, 1)))
    out.append(l10n.t(lang, "plan.kv", users=whole(users), context=whole(context),
                      kv=l10n.format_number(plan_result["kv_cache_gib"], lang, 1)))
    if plan_result.get("usd_per_million_tokens") is not None:
        out.append(l10n.t(lang, "plan.cost", usd=number(plan_result["usd_per_million_tokens"]),
                          hourly=l10n.format_number(plan_result["usd_per_hour"], lang, 2, trim=False)))
    return out
