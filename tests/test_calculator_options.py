"""Each calculator option is declared once: in ``atlas.core.calculators.inputs.PARAMETERS`` (issue 38, item 3).

The option classes (``MemoryOptions``, ``SpeedOptions``) take every default from the table, so a default is
written in one place; the table alone decides what the command line, the form and the URL accept.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap

import pytest

from atlas.core.calculators import inputs, memory, speed
from atlas.core.calculators.inputs import BY_NAME, default_of
from atlas.core.calculators.memory import MemoryOptions
from atlas.core.calculators.speed import SpeedOptions
from calculators_support import catalog

OPTION_CLASSES = (MemoryOptions, SpeedOptions)


def _fields(cls) -> list[dataclasses.Field]:
    return [f for f in dataclasses.fields(cls) if f.name in BY_NAME]


@pytest.mark.parametrize("cls", OPTION_CLASSES, ids=lambda c: c.__name__)
def test_every_field_is_a_parameter_of_the_table(cls):
    assert [f.name for f in dataclasses.fields(cls) if f.name not in BY_NAME and f.name != "more"] == []


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


# --- a parameter added by its table entry, its labels and the estimator that reads it -------------------------------

NEW = inputs.Param("reserve_gib", "float", inputs.VRAM, "memory per device kept free for other programs in GiB",
                   0.0, 0, 1024, group="hardware")
LABELS = {
    "en": {"param.reserve_gib": "Memory kept free",
           "help.reserve_gib": "GiB per device that other programs keep; the model must fit beside them."},
    "de": {"param.reserve_gib": "Freizuhaltender Speicher",
           "help.reserve_gib": "GiB je Gerät, die andere Programme belegen; das Modell muss daneben passen."},
}


@pytest.fixture
def new_parameter(monkeypatch):
    """``reserve_gib`` exists only as a table entry, two label files' lines and an estimator that reads it."""
    from atlas.core import l10n
    from atlas.core.calculators import api

    monkeypatch.setattr(inputs, "PARAMETERS", inputs.PARAMETERS + (NEW,))
    monkeypatch.setitem(inputs.BY_NAME, NEW.name, NEW)  # the table's index by name
    for lang, lines in LABELS.items():
        for key, text in lines.items():
            monkeypatch.setitem(l10n.labels(lang), key, text)
    estimate = api.estimate_memory

    def estimate_with_reserve(model, opts, device_list):  # the estimator: the reserve counts as needed memory
        result, notes = estimate(model, opts, device_list)
        result["per_device_gib"] += opts.reserve_gib
        result["reserve_gib"] = opts.reserve_gib
        return result, notes

    monkeypatch.setattr(api, "estimate_memory", estimate_with_reserve)
    return NEW


def _cli(capsys, *argv) -> tuple[int, str, str]:
    from atlas import cli

    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_table_only_parameter_is_an_option_of_the_command_line(new_parameter, capsys):
    from atlas import cli

    with pytest.raises(SystemExit) as done:
        cli.main(["vram", "--help"])
    assert done.value.code == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "--reserve-gib RESERVE_GIB memory per device kept free for other programs in GiB (default: 0.0)" in shown

    import json

    code, out, _ = _cli(capsys, "vram", "--model", "llama-3.1-8b", "--json")
    assert code == 0
    plain = json.loads(out)
    code, out, _ = _cli(capsys, "vram", "--model", "llama-3.1-8b", "--reserve-gib", "2.5", "--json")
    assert code == 0
    reserved = json.loads(out)
    assert plain["reserve_gib"] == 0.0 and reserved["reserve_gib"] == 2.5
    assert reserved["per_device_gib"] == pytest.approx(plain["per_device_gib"] + 2.5)

    code, _, err = _cli(capsys, "vram", "--model", "llama-3.1-8b", "--reserve-gib", "2000", "--lang", "de")
    assert code == 2
    assert "Freizuhaltender Speicher" in err and "1.024" in err


def test_a_table_only_parameter_is_read_from_the_url_in_both_languages(new_parameter):
    from atlas.core import calcview
    from atlas.core.calculators.api import handle

    assert inputs.parse("vram", {"model": "llama-3.1-8b", "reserve_gib": "1,5"}, catalog())["reserve_gib"] == 1.5
    assert inputs.parse("vram", {"model": "llama-3.1-8b"}, catalog())["reserve_gib"] == 0.0
    out = calcview.render({"command": "vram", "params": {"model": "llama-3.1-8b", "reserve_gib": "3"}, "lang": "de"},
                          catalog())
    assert out["ok"] and out["warnings"] == [] and out["result"]["reserve_gib"] == 3.0
    for lang, label in (("en", "Memory kept free"), ("de", "Freizuhaltender Speicher")):
        with pytest.raises(inputs.ValidationError) as bad:
            inputs.parse("vram", {"model": "llama-3.1-8b", "reserve_gib": "-1"}, catalog())
        assert [e.field_name for e in bad.value.errors] == ["reserve_gib"]
        answer = handle({"command": "vram", "params": {"model": "llama-3.1-8b", "reserve_gib": "-1"}, "lang": lang},
                        catalog())
        assert not answer["ok"] and answer["errors"][0]["field"] == "reserve_gib"
        assert answer["errors"][0]["message"].startswith(label)
    # the commands whose table entry does not name it leave it out
    assert "reserve_gib" not in inputs.parse("speed", {"model": "llama-3.1-8b", "device": "rtx-4090",
                                                       "reserve_gib": "3"}, catalog())


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_table_only_parameter_has_a_field_in_the_form(new_parameter, lang):
    from atlas.core.calcview import form

    names = dict((group, names) for group, _, names in form.groups("vram"))
    assert names["hardware"][-1] == "reserve_gib"  # at the end of the group its table entry names
    assert "reserve_gib" not in form.layout_names("speed")
    html = form.form_html("vram", form.initial_values("vram", {"model": "llama-3.1-8b"}, catalog()), lang, catalog())
    field = html[html.index('<label for="calc-vram-reserve-gib">'):]
    field = field[:field.index('data-error-for="reserve_gib"')]
    assert LABELS[lang]["param.reserve_gib"] in field and LABELS[lang]["help.reserve_gib"] in field
    assert 'name="reserve_gib"' in field and 'placeholder="0"' in field


def test_a_table_only_parameter_is_an_attribute_of_the_options(new_parameter):
    from atlas.core.calculators.api import options

    opts = options(MemoryOptions, {"context": 8192, "reserve_gib": 2.0, "weights_automatic": True})
    assert (opts.context, opts.reserve_gib) == (8192, 2.0)
    assert MemoryOptions().reserve_gib == 0.0  # not given: the table's default
    assert dataclasses.replace(opts, batch=4).reserve_gib == 2.0
    assert MemoryOptions(**{**opts.__dict__, "context": 1024}).reserve_gib == 2.0
    with pytest.raises(AttributeError):
        _ = opts.reserve_gbi  # a typo is no option
