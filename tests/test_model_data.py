"""The model presets: valid, consistent with their architecture, and broken fixtures fail precisely."""

import datetime
import shutil
from pathlib import Path

import pytest

from atlas.core.calculators.models import ModelSpec
from atlas.data.dataset import load_dataset
from atlas.data.errors import DataValidationError

FIXTURES = Path(__file__).parent / "fixtures" / "invalid_models"
CASES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
TODAY = datetime.date(2026, 12, 7)  # on or after the newest access date in data/
REQUIRED = {"llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-3.2-1b", "llama-3.2-3b", "mistral-7b",
            "mixtral-8x7b", "qwen2.5-7b", "qwen2.5-32b", "qwen2.5-72b", "gemma-2-9b", "gemma-2-27b", "phi-3-mini",
            "deepseek-v3"}


def test_the_issue_s_presets_are_all_there(dataset):
    assert REQUIRED <= set(dataset.models)


def test_every_architecture_figure_names_a_source(dataset):
    for model in dataset.models.values():
        for key in ("parameters", "architecture", "moe", "sliding_window", "mla", "linear_attention", "checkpoint", "encoders"):
            if key in model:
                assert model["sources"][model[key]["source"]]["url"].startswith("https://"), (model["id"], key)


@pytest.mark.parametrize("model_id", sorted(REQUIRED - {"deepseek-v3", "mixtral-8x7b"}))
def test_dense_parameter_count_matches_the_architecture(dataset, model_id):
    """Embeddings + layers x (attention + gated MLP + norms) within 2 % of the card's total: catches a mistyped
    width, layer count or vocabulary (Qwen's attention biases and Gemma's extra norms are below 0.1 %)."""
    spec = ModelSpec.from_preset(model_id, dataset.models[model_id])
    assert spec.count_params() == pytest.approx(spec.params, rel=0.02)


def test_mixtral_total_and_active_follow_from_its_experts(dataset):
    """46.7B total and 12.9B active (Mistral AI) from 8 experts with top-2 routing: the routed share is 6/8 of
    the difference scaled back, and the attention + embeddings every token uses match the architecture."""
    spec = ModelSpec.from_preset("mixtral-8x7b", dataset.models["mixtral-8x7b"])
    shared, routed = spec.expert_split()
    per_expert_layer = 3 * spec.hidden * spec.intermediate
    assert routed == pytest.approx(spec.layers * spec.experts * per_expert_layer, rel=0.02)
    assert spec.params_touched(1) == pytest.approx(spec.active)
    assert spec.params_touched(10_000) == pytest.approx(spec.params)


def run_case(case: str, tmp_path: Path) -> list[str]:
    data = tmp_path / "data"
    (data / "hardware").mkdir(parents=True)
    shutil.copytree(FIXTURES / case, data / "models" / "test", ignore=shutil.ignore_patterns("expect.txt"))
    with pytest.raises(DataValidationError) as info:
        load_dataset(data, root=tmp_path, today=TODAY)
    return [str(e) for e in info.value.errors]


@pytest.mark.parametrize("case", CASES)
def test_broken_model_fails_with_expected_line(case, tmp_path):
    expected = (FIXTURES / case / "expect.txt").read_text(encoding="utf-8").strip()
    errors = run_case(case, tmp_path)
    assert expected in errors, "\n".join(errors)


def test_fixture_base_is_valid(tmp_path):
    """The fixtures are the Llama 3.1 8B preset with one defect each; the preset itself passes."""
    data = tmp_path / "data"
    (data / "hardware").mkdir(parents=True)
    (data / "models").mkdir()
    shutil.copy(Path(__file__).parent.parent / "data" / "models" / "llama-3.1-8b.yaml", data / "models")
    assert "llama-3.1-8b" in load_dataset(data, root=tmp_path, today=TODAY).models
