"""The kernel pages' prose about the H200 run, rendered through the site's own macros without a
site build: every figure in it comes from data/measurements/, in both languages, and no page
still says that GPU measurements are pending."""

from __future__ import annotations

import re

import jinja2
import pytest

from conftest import REPO_ROOT, define_macros

DOCS = REPO_ROOT / "docs" / "kernels"
DEMOS = ("bandwidth", "matmul", "intensity", "fused")


class FakeEnv:
    """What the macro modules use of mkdocs-macros' env: the macro decorator and the page language."""

    def __init__(self, lang):
        self.conf = {"theme": {"language": lang}}
        self.variables = {}
        self.macros = {}

    def macro(self, fn=None, name=None):
        if fn is None:
            return lambda f: self.macro(f, name)
        self.macros[name or fn.__name__] = fn
        return fn


@pytest.fixture(scope="module")
def render():
    envs = {}
    for lang in ("en", "de"):
        envs[lang] = FakeEnv(lang)
        define_macros(envs[lang])

    def _render(page: str, lang: str) -> str:
        path = DOCS / (f"{page}.de.md" if lang == "de" else f"{page}.md")
        text = path.read_text(encoding="utf-8").split("\n---\n", 1)[1]
        template = jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(text)
        return re.sub(r"[ \n]+", " ", template.render(**envs[lang].macros))  # lines joined as a reader sees them

    return _render


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("page", ["index", *DEMOS])
def test_no_page_says_gpu_measurements_are_pending(page, lang):
    text = (DOCS / (f"{page}.de.md" if lang == "de" else f"{page}.md")).read_text(encoding="utf-8")
    assert "pending" not in text and "stehen noch aus" not in text
    assert "NVIDIA H200" in text


@pytest.mark.parametrize(
    "page, lang, figures",
    [
        # Hand-written CUDA C against cuBLAS, and the Triton FP8 outlier (data/measurements/h200-sxm/).
        ("matmul", "en", ["86.1\u00a0TFLOP/s in BF16 (8.7%)", "775\u00a0TFLOP/s in BF16, 78.3% of", "Triton FP8 at 177\u00a0TFLOP/s** (8.9% of"]),
        # Copy stops near 82 % of the datasheet bandwidth in every back end that writes its own kernel.
        ("bandwidth", "en", ["3,930\u00a0GB/s in CUDA C (81.9% of the datasheet's 4,800\u00a0GB/s)", "3,918\u00a0GB/s in PyTorch", "3,872\u00a0GB/s in Triton"]),
        ("bandwidth", "de", ["3.930\u00a0GB/s in CUDA C (81,9\u202f% der 4.800\u00a0GB/s aus dem Datenblatt)", "JAX kam bei Triad auf 3.346\u00a0GB/s (69,7\u202f%)"]),
        # What fusion saved: Triton softmax 0.554 ms, 4.9x faster than the eight unfused passes.
        ("fused", "en", ["took 0.554\u00a0ms", "3,876\u00a0GB/s (80.8% of the peak", "4.9× faster", "6.8×, more than the fivefold", "2,236\u00a0GB/s (3.6×)"]),
        ("fused", "de", ["Matrix 0,554\u00a0ms", "4,9× schneller", "2.236\u00a0GB/s (3,6×)"]),
        # The JAX outlier: 2.09 ms at 64 FMAs against PyTorch's 0.669 ms.
        ("intensity", "en", ["29.5\u00a0TFLOP/s (44%)", "then 2.09\u00a0ms at 64 and 4.66\u00a0ms at 256", "needed 0.669\u00a0ms at 64 FMAs", "63.5\u00a0TFLOP/s (94.8% of the FP32 vector peak of 67\u00a0TFLOP/s)"]),
        ("intensity", "de", ["höchstens auf 29,5\u00a0TFLOP/s (44\u202f%)", "dann 2,09\u00a0ms bei 64", "Triton auf 61,1\u00a0TFLOP/s (91,2\u202f%)"]),
        ("matmul", "de", ["auf 86,1\u00a0TFLOP/s (8,7\u202f%)", "erreichte in BF16 775\u00a0TFLOP/s, also 78,3\u202f%", "FP8 mit 177\u00a0TFLOP/s** (8,9\u202f% von"]),
    ],
)
def test_h200_prose_quotes_the_recorded_figures(render, page, lang, figures):
    text = render(page, lang)
    for figure in figures:
        assert figure in text, figure
