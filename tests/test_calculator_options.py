"""Each calculator option is declared once: in ``atlas.core.calculators.inputs.PARAMETERS`` (issue 38, item 3).

The options an estimator reads (``inputs.Options``) are small typed objects, one per section of the table
(model, quantisation, placement, run, training, serving, cost), made from the table: a parameter's entry gives its
name, type, default and section, and nothing else declares it. The table alone decides what the command line, the
form and the URL accept.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing

import pytest

from atlas.core.calculators import api, fit, inputs, memory, planner, speed
from atlas.core.calculators.inputs import BY_NAME, PARAMETERS, SECTIONS, Options, default_of, section_class
from calculators_support import catalog

TYPES = {"choice": str, "model": str, "device": str, "int": int, "float": float, "bool": bool}


def test_every_parameter_has_one_section_and_every_section_parameters():
    assert {p.section for p in PARAMETERS} == set(SECTIONS)
    assert [f.name for f in dataclasses.fields(Options)] == list(SECTIONS)
    for section in SECTIONS:
        names = [f.name for f in dataclasses.fields(section_class(section))]
        assert names == [p.name for p in PARAMETERS if p.section == section], section


@pytest.mark.parametrize("section", SECTIONS)
def test_every_field_has_the_tables_type_and_default(section):
    for f in dataclasses.fields(section_class(section)):
        param = BY_NAME[f.name]
        assert f.default == param.value_default == default_of(f.name), f.name
        allowed = set(typing.get_args(f.type)) or {f.type}
        assert TYPES[param.kind] in allowed, (f.name, f.type)
        assert (type(None) in allowed) == (param.value_default is None), f.name


def test_sections_are_frozen_and_a_typo_is_no_option():
    opts = Options.of(context=8192)
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.run.context = 1  # type: ignore[misc]
    with pytest.raises(AttributeError):
        _ = opts.run.contxt
    with pytest.raises(TypeError, match="contxt"):
        Options.of(contxt=8192)
    with pytest.raises(TypeError, match="contxt"):
        opts.replace(contxt=8192)


def test_defaults_a_reader_relies_on():
    """The values the pages and the guides state: 4096 tokens, one sequence, FP16 KV cache, BF16 weights."""
    opts = Options()
    assert (opts.run.context, opts.run.batch, opts.quantisation.kv_cache, opts.quantisation.weights,
            opts.placement.num_devices) == (4096, 1, "fp16", "bf16", 1)
    assert opts.training.mode == "inference" and opts.training.optimizer == "adamw" and not opts.trains
    assert opts.run.workload == "decode" and opts.cost.amortisation_years == 3.0
    assert opts.run.tokens == 1e9 and opts.serving.speculative == "none"


def test_flat_names_go_to_their_sections_and_replace_keeps_the_rest():
    opts = Options.of(weights="q4_k_m", context=8192, num_devices=2, tp=2, price_per_hour=1.5, mode="lora")
    assert (opts.quantisation.weights, opts.run.context, opts.placement.num_devices, opts.cost.price_per_hour) == \
        ("q4_k_m", 8192, 2, 1.5)
    assert opts.trains and opts.data_parallel == 1
    changed = opts.replace(context=1024, kv_cache="q8_0")
    assert (changed.run.context, changed.quantisation.kv_cache, changed.quantisation.weights) == (1024, "q8_0", "q4_k_m")
    assert changed.placement is opts.placement and changed.cost is opts.cost  # untouched sections are shared
    assert opts.run.context == 8192  # the original is unchanged
    assert changed.flat()["context"] == 1024 and set(changed.flat()) == set(BY_NAME)


@pytest.mark.parametrize("command", ["vram", "speed", "fit"])
def test_every_parameter_of_a_command_reaches_its_section(command):
    """A request's parsed values end up in the options under the same name, in the section the table names."""
    values = inputs.parse(command, {"model": "llama-3.1-8b", "device": "rtx-4090", "context": "8192"}, catalog())
    opts = api.options({**values, "weights_automatic": True})  # a key that is no parameter stays out
    for name, value in values.items():
        assert getattr(getattr(opts, BY_NAME[name].section), name) == value, name


@pytest.mark.parametrize("module", [memory, speed, fit, planner, api], ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_estimators_read_options_only_through_sections(module):
    """No estimator declares an option class of its own or reads a flat ``opts.<parameter>``."""
    source = inspect.getsource(module)
    assert "class MemoryOptions" not in source and "class SpeedOptions" not in source
    flat = [name for name in BY_NAME if f"opts.{name}" in source.replace(f"opts.{BY_NAME[name].section}.", "")]
    # a section that shares its name with a parameter of another section ("model") is no flat read
    assert [n for n in flat if n not in SECTIONS] == []


def test_the_context_default_is_written_once_in_the_calculators():
    """The literal 4096 as a default lives in the parameter table only (issue 38: it was in three places)."""
    for module in (memory, speed, inputs):
        source = inspect.getsource(module)
        assert "context: int = 4096" not in source and "context=4096" not in source
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
                   0.0, 0, 1024, group="hardware", section="placement")
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
        result["per_device_gib"] += opts.placement.reserve_gib
        result["reserve_gib"] = opts.placement.reserve_gib
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
    opts = api.options({"context": 8192, "reserve_gib": 2.0, "weights_automatic": True})
    assert (opts.run.context, opts.placement.reserve_gib) == (8192, 2.0)
    assert Options().placement.reserve_gib == 0.0  # not given: the table's default
    assert opts.replace(batch=4).placement.reserve_gib == 2.0
    assert opts.replace(reserve_gib=1.0).placement.reserve_gib == 1.0
    field = {f.name: f for f in dataclasses.fields(opts.placement)}["reserve_gib"]
    assert field.type is float and field.default == 0.0  # typed and defaulted by its table entry alone
    with pytest.raises(AttributeError):
        _ = opts.placement.reserve_gbi  # a typo is no option
