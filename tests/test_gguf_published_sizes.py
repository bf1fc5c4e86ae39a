"""Weight estimates against published GGUF file sizes (tests/gguf_published_sizes.json, one source per row).

The estimate of the text model's weights (every tensor group but the encoders, which llama.cpp ships in a
separate mmproj file) must be within 3 % of the published file size; the file's metadata and tokenizer are a
few MB and inside that margin.
"""

import json
from pathlib import Path

import pytest

from calculators.memory import weight_groups
from calculators.models import ModelSpec
from calculators_support import catalog

CASES = json.loads((Path(__file__).parent / "gguf_published_sizes.json").read_text(encoding="utf-8"))["cases"]


def text_weight_bytes(model_id: str, fmt: str) -> float:
    model = ModelSpec.from_preset(model_id, catalog().models[model_id])
    return sum(g["bytes"] for name, g in weight_groups(model, fmt).items() if name != "encoders")


def test_every_case_names_a_preset_a_gguf_format_and_a_source():
    assert CASES
    for case in CASES:
        assert case["model"] in catalog().models
        assert case["source"].startswith("https://") and case["says"]
        assert case["size_gb"] > 0


@pytest.mark.parametrize("case", CASES, ids=lambda c: f'{c["model"]}-{c["format"]}')
def test_estimate_is_within_3_percent_of_the_published_gguf_size(case):
    estimate = text_weight_bytes(case["model"], case["format"])
    assert estimate / (case["size_gb"] * 1e9) == pytest.approx(1.0, abs=0.03)


def test_gpt_oss_gguf_labels_keep_the_experts_in_mxfp4_and_the_rest_in_q8_0():
    model = ModelSpec.from_preset("gpt-oss-20b", catalog().models["gpt-oss-20b"])
    for fmt in ("q4_k_m", "q6_k", "q2_k"):
        groups = weight_groups(model, fmt)
        assert groups["experts"]["bits"] == pytest.approx(4.25)
        assert groups["attention"]["bits"] == pytest.approx(8.5)
        assert groups["output"]["bits"] == pytest.approx(8.5)


def test_gemma_3_tied_embeddings_are_counted_once_and_the_vision_tower_is_its_own_group():
    # Issue 31's "+0.8 GiB on Gemma 3 12B" is the 0.417 B-parameter vision tower at 16 bit (the mmproj file),
    # not a second copy of the tied embedding matrix: the text model's file matches without it (cases above).
    model = ModelSpec.from_preset("gemma-3-12b", catalog().models["gemma-3-12b"])
    groups = weight_groups(model, "q4_k_m")
    assert "output" not in groups
    assert groups["embeddings"]["params"] == pytest.approx(model.vocab * model.hidden, rel=1e-9)
    assert groups["encoders"]["bytes"] == pytest.approx(model.vision_params * 2, rel=1e-9)
