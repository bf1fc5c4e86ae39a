"""What every macro module receives (kept out of main.py, which mkdocs-macros
loads without registering it as a module)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from atlas.dataset import Dataset


@dataclass
class Context:
    """The validated data set and a function returning the page's language."""

    dataset: Dataset
    lang: Callable[[], str]
