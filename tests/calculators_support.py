"""Shared helpers for the estimator tests: the catalog from the shipped data set, and one-call wrappers."""

from __future__ import annotations

from functools import cache

from atlas.core.calculators.api import handle
from atlas.core.calculators.catalog import Catalog
from atlas.data.export import export_dataset
from conftest import shared_dataset

GIB = 2**30
GB = 10**9


@cache
def catalog() -> Catalog:
    return Catalog.from_dict(export_dataset(shared_dataset()))


def ok(command: str, lang: str = "en", **params) -> dict:
    """The result of a request that must succeed."""
    response = handle({"command": command, "params": params, "lang": lang}, catalog())
    assert response["ok"], response
    return response["result"]


def errors(command: str, lang: str = "en", **params) -> list[dict]:
    """The errors of a request that must fail."""
    response = handle({"command": command, "params": params, "lang": lang}, catalog())
    assert not response["ok"], response
    return response["errors"]


def result(command: str, params: dict, lang: str = "en") -> dict:
    """The estimator's result for ``params`` (a dict, as the page sends it); the request must succeed."""
    response = handle({"command": command, "params": params, "lang": lang}, catalog())
    assert response["ok"], response.get("errors")
    return response["result"]


def rendered(command: str, params: dict, lang: str = "en") -> dict:
    """What the page's renderer returns for ``params`` (html, summary, result); the request must succeed."""
    from atlas.core import calcview

    out = calcview.render({"command": command, "params": params, "lang": lang}, catalog())
    assert out["ok"], out.get("errors")
    return out
