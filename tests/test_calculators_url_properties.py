"""The calculators' input parsing fed what a URL query string gives: strings only, percent-encoded,
repeated or empty keys, hostile text. Any query gives finite numbers or translated messages."""

from __future__ import annotations

import json
import urllib.parse

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atlas.core import l10n
from atlas.core.calculators.api import handle
from atlas.core.calculators.inputs import PARAMETERS
from calculators_support import catalog

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES = [p.name for p in PARAMETERS]
TRICKY = ["", "nan", "NaN", "inf", "-inf", "1e309", "-0", "0x10", "1_000", "８", "٣", "1,5", "1.5.5", " 7 ",
          "<script>alert(1)</script>", "\u202e42", "{{ 7*7 }}", "%00", "true", "None", "[]", "9" * 400]  # fmt: skip


def query_strings():
    """Query strings as a browser's address bar may hold them."""
    value = st.one_of(st.sampled_from(TRICKY), st.text(max_size=20), st.integers(-(10**30), 10**30).map(str))
    name = st.one_of(st.sampled_from(NAMES), st.text(max_size=6))
    pairs = st.lists(st.tuples(name, value), max_size=10)
    encoded = pairs.map(urllib.parse.urlencode)
    raw = st.text(alphabet=st.sampled_from("=&%;+ab019.-_~<>\"'#?\u00fc"), max_size=60)
    return st.one_of(encoded, raw)


def params_from(query: str) -> dict[str, str]:
    """What the page does with location.search: URLSearchParams, first value of each name."""
    params = {}
    for key, val in urllib.parse.parse_qsl(query, keep_blank_values=True):
        params.setdefault(key, val)
    return params


def check(response: dict) -> None:
    json.dumps(response, allow_nan=False)  # raises on NaN or Infinity anywhere
    if response["ok"]:
        return
    assert response["errors"], response
    for problem in response["errors"]:
        assert problem["key"] in l10n.labels("en") and problem["key"] in l10n.labels("de"), problem
        assert problem["key"] != "error.internal", problem
        assert isinstance(problem["message"], str) and "Traceback" not in problem["message"]


@SETTINGS
@given(st.sampled_from(["vram", "speed"]), query_strings(), st.sampled_from(l10n.LANGUAGES))
def test_any_query_string_gives_finite_numbers_or_translated_errors(command, query, lang):
    params = {"model": "llama-3.1-8b", "device": "h100-sxm", **params_from(query)}
    check(handle({"command": command, "params": params, "lang": lang}, catalog()))


@SETTINGS
@given(st.sampled_from(["vram", "speed"]), st.dictionaries(st.sampled_from(NAMES), st.sampled_from(TRICKY), max_size=6))
def test_tricky_values_in_known_fields(command, params):
    response = handle({"command": command, "params": {"model": "mistral-7b", "device": "rtx-4090", **params},
                       "lang": "de"}, catalog())  # fmt: skip
    check(response)


def test_a_hostile_model_name_is_a_field_error():
    """Markup in a URL parameter is an unknown name like any other (the page shows messages as text)."""
    response = handle(
        {"command": "vram", "params": {"model": "<script>alert(1)</script>", "device": "h100-sxm"}, "lang": "en"},
        catalog(),
    )
    assert not response["ok"]
    assert [(e["field"], e["key"]) for e in response["errors"]] == [("model", response["errors"][0]["key"])]
    assert response["errors"][0]["key"].startswith("error.")


@SETTINGS
@given(st.sampled_from(["vram", "speed"]), st.sampled_from(["device", "baseline"]),
       st.sampled_from(["apple-m3-max", "rtx-4060-ti-16gb", "h100-sxm", "nothing", ""]),
       st.one_of(st.sampled_from(TRICKY + ["64", "8", "0.5", "1e-300", "1000000", "1000001"]), st.text(max_size=8)),
       st.sampled_from(l10n.LANGUAGES))
def test_a_device_choice_with_any_memory_size_gives_finite_numbers_or_translated_errors(command, name, device, size,
                                                                                         lang):
    """``device=<id>@<GiB>`` (a memory configuration) as a link may carry it: a size or a field error."""
    params = {"model": "gpt-oss-120b", "device": "rtx-4090", name: f"{device}@{size}"}
    response = handle({"command": command, "params": params, "lang": lang}, catalog())
    check(response)
    if not response["ok"]:
        assert name in {e["field"] for e in response["errors"]}, response["errors"]
