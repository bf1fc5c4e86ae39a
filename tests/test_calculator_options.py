"""Each calculator option is declared once: in ``calculators.inputs.PARAMETERS`` (issue 38, item 3).

The option classes (``MemoryOptions``, ``SpeedOptions``) take every default from the table, so a default is
written in one place; the table alone decides what the command line, the form and the URL accept.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap

import pytest

from calculators import inputs, memory, speed
from calculators.inputs import BY_NAME, default_of
from calculators.memory import MemoryOptions
from calculators.speed import SpeedOptions
from calculators_support import catalog

OPTION_CLASSES = (MemoryOptions, SpeedOptions)


def _fields(cls) -> list[dataclasses.Field]:
    return [f for f in dataclasses.fields(cls) if f.name in BY_NAME]


@pytest.mark.parametrize("cls", OPTION_CLASSES, ids=lambda c: c.__name__)
def test_every_field_is_a_parameter_of_the_table(cls):
    assert [f.name for f in dataclasses.fields(cls) if f.name not in BY_NAME] == []


@pytest.mark.parametrize("cls", OPTION_CLASSES, ids=lambda c: c.__name__)
def test_every_default_is_the_tables(cls):
    for f in _fields(cls):
        assert f.default == BY_NAME[f.name].value_default, f.name
        assert f.default == default_of(f.name)


def test_defaults_a_reader_relies_on():
    """The values the pages and the guides state: 4096 tokens, one sequence, FP16 KV cache, BF16 weights."""
    for cls in OPTION_CLASSES:
        opts = cls()
        assert (opts.context, opts.batch, opts.kv_cache, opts.weights, opts.num_devices) == (4096, 1, "fp16", "bf16", 1)
    assert MemoryOptions().mode == "inference" and MemoryOptions().optimizer == "adamw"
    assert SpeedOptions().workload == "decode" and SpeedOptions().amortisation_years == 3.0
    assert SpeedOptions().tokens == 1e9 and SpeedOptions().speculative == "none"


@pytest.mark.parametrize(("module", "cls"), [(memory, MemoryOptions), (speed, SpeedOptions)],
                         ids=["MemoryOptions", "SpeedOptions"])
def test_the_table_is_the_only_place_a_default_is_written(module, cls):
    """Each field of an option class reads ``default_of("<its own name>")``: no literal, no other constant."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body
    declared = [node for node in body if isinstance(node, ast.AnnAssign)]
    assert [n.target.id for n in declared] == [f.name for f in _fields(cls)]
    for node in declared:
        value = node.value
        assert isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "default_of", \
            f"{cls.__name__}.{node.target.id} declares its default itself: {ast.unparse(value) if value else None}"
        assert [ast.literal_eval(a) for a in value.args] == [node.target.id]


def test_the_context_default_is_written_once_in_the_calculators():
    """The literal 4096 as a default lives in the parameter table only (issue 38: it was in three places)."""
    for module in (memory, speed):
        source = inspect.getsource(module)
        assert "context: int = 4096" not in source
    assert BY_NAME["context"].default == 4096
    assert inspect.getsource(inputs).count('Param("context", "int", ALL, "context length in tokens", 4096,') == 1


def test_absent_weights_and_devices_take_the_tables_fallback():
    custom = {"model": "custom", "params_b": 1, "layers": 2, "hidden": 64, "heads": 4, "kv_heads": 4, "vocab": 100}
    values = inputs.parse("speed", {**custom, "device": "rtx-4090"}, catalog())
    assert values["weights"] == BY_NAME["weights"].fallback == "bf16"
    assert values["num_devices"] == BY_NAME["num_devices"].fallback == 1
    assert inputs.parse("vram", {**custom, "mode": "qlora"}, catalog())["weights"] == "nf4"
    assert inputs.parse("fit", {"device": "rtx-4090"}, catalog())["num_devices"] == 1
