"""The project's own H200 run of plain Hugging Face transformers (data/inference/atlas-h200-transformers-eager-2026-12-04.yaml):
every figure is the one in the JSON line it quotes, and what eager decoding costs against the memory bound."""

from __future__ import annotations

import json

import pytest

SOURCE = "atlas-h200-transformers-eager-2026-12-04"


@pytest.fixture(scope="module")
def cases(dataset):
    from atlas.data.checks.inference import cases as file_cases

    return file_cases(dataset.inference[SOURCE])


def test_every_figure_is_the_quoted_lines(cases):
    assert len(cases) == 10
    for case in cases:
        line = json.loads(case["quote"])
        assert (case["model"], case["batch"], case["prompt_tokens"]) == (line["model"], line["batch"], line["prompt_tokens"])
        assert (case["device"], case["engine"], case["weights"], line["device"], line["dtype"]) == ("h200-sxm", "transformers", "bf16", "NVIDIA H200", "bf16")
        if line["workload"] == "decode":
            assert case["decode_tokens_per_s"] == line["tokens_per_s_total"] and case["generated_tokens"] == line["generated_tokens"] == 128
            assert "prefill_tokens_per_s" not in case
        else:
            assert case["prefill_tokens_per_s"] == line["tokens_per_s"] and "decode_tokens_per_s" not in case


def test_eager_decoding_is_launch_bound(cases, dataset):
    """Llama 3.1 8B at batch 1: 17.65 tokens/s, where reading its 16 GB of BF16 weights once per token at the
    H200's 4.8 TB/s would allow about 300 — and batch 64 is 51 times faster than batch 1, not 64 times slower."""
    decode = {(c["model"], c["batch"], c["prompt_tokens"]): c["decode_tokens_per_s"] for c in cases if "decode_tokens_per_s" in c}
    assert decode[("llama-3.1-8b", 1, 512)] == 17.65 and decode[("llama-3.1-8b", 64, 512)] == 906.45
    assert decode[("qwen2.5-32b", 1, 512)] == 13.22  # four times the weights, three quarters of the speed
    weights_gb = 8030261248 * 2 / 1e9  # parameters the script counted, two bytes each
    bound = dataset.devices["h200-sxm"]["memory"]["bandwidth_gb_s"] / weights_gb  # 4,800 GB/s / 16.06 GB = 299 tokens/s
    assert 290 <= bound <= 300 and decode[("llama-3.1-8b", 1, 512)] < bound / 16


@pytest.mark.parametrize("lang, figure, bandwidth", [("en", "17.65", "4,800\u00a0GB/s"), ("de", "17,65", "4.800\u00a0GB/s")])
def test_accuracy_page_says_what_eager_transformers_costs(lang, figure, bandwidth):
    """The accuracy page quotes the run through the macros, so its figures are the data's."""
    import re
    import sys

    import jinja2

    from conftest import REPO_ROOT, define_macros

    sys.path.insert(0, str(REPO_ROOT / "tests"))
    from test_kernel_page_prose import FakeEnv

    env = FakeEnv(lang)
    define_macros(env)
    page = (REPO_ROOT / "docs" / "calculators" / ("accuracy.de.md" if lang == "de" else "accuracy.md")).read_text(encoding="utf-8")
    bullet = re.search(r"^- \*\*(Eager frameworks|Frameworks im Eager-Modus)\.\*\*.*?(?=^- |^## )", page, re.S | re.M).group(0)
    text = re.sub(r"[ \n]+", " ", jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(bullet).render(**env.macros))
    assert f" {figure} " in text and bandwidth in text and " 906 " in text and "300" in text
