"""Every default the estimators assume, in one list with its value, unit and source.

The "How is this calculated?" section of the calculators and ``describe()`` (the JSON table) read it.
It lives apart from ``atlas.core.calculators.defaults`` because the average bits per weight of the GGUF formats
follow from the per-tensor recipe in ``atlas.core.calculators.memory``, which itself reads the defaults.
"""

from __future__ import annotations

from atlas.core.calculators import defaults as d
from atlas.core.calculators.memory import bits_per_weight


def all_defaults() -> list[d.Default]:
    """Every default in one list, for the "How is this calculated?" section."""
    out = [
        d.RUNTIME_OVERHEAD_GIB,
        d.PREFILL_CHUNK_TOKENS,
        d.ACTIVATION_BYTES_PER_SBH,
        d.CHECKPOINT_BYTES_PER_SBH,
        d.LOGITS_BYTES,
        d.TRAINING_FLOPS_PER_TOKEN,
        d.TRAINING_FLOPS_RECOMPUTE,
        d.TRAINING_FLOPS_ADAPTERS,
        d.LORA_RANK,
        d.DEFAULT_INTERMEDIATE_RATIO,
        d.SPARSE_TO_DENSE,
        *d.OPTIMIZERS.values(),
    ]
    for workload in d.EFFICIENCIES.values():
        out += list(workload.values())
    out += [
        d.Default(f"weights.{f.name}", bits_per_weight(f.name), "bits per weight", f.source, f.note)
        for f in d.WEIGHT_FORMATS.values()
    ]
    out += [d.Default(f"kv_cache.{name}", size, "bytes per element", d.LLAMA_CPP_BLOCKS) for name, size in d.KV_FORMATS.items()]
    out += [d.EXL_BPW, d.LINEAR_STATE_BYTES, d.READING_WORDS_PER_MINUTE, d.WORDS_PER_TOKEN]
    out += [
        d.Default("mla.cache", "kv_lora_rank + rope_head_dim", "elements per token and layer", d.DEEPSEEK_V2),
        d.Default("moe.routing", "1 - (1 - k/E)^B", "share of experts one decode step reads", d.MOE_ROUTING,
                "B sequences each pick k of E experts; routing assumed uniform and independent"),
        d.SPEC_EXPECTED_TOKENS, d.SPEC_MTP_ACCEPTANCE, d.SPEC_DRAFT_TOKENS,
    ]
    return out


def describe() -> list[dict]:
    """Every default as a JSON-able dict (key, value, unit, note, source URL, title and what it says)."""
    return [
        {"key": item.key, "value": item.value, "unit": item.unit, "note": item.note,
         "source": {"url": item.source.url, "title": item.source.title, "says": item.source.says}}
        for item in all_defaults()
    ]
