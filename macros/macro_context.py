"""What every macro module receives (kept out of main.py, which mkdocs-macros
loads without registering it as a module)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from atlas.core.calculators.catalog import Catalog
from atlas.data import chart_estimates
from atlas.data.dataset import Dataset


@dataclass
class Context:
    """The validated data set and a function returning the page's language."""

    dataset: Dataset
    lang: Callable[[], str]
    _catalog: Catalog | None = field(default=None, init=False, repr=False)

    def catalog(self) -> Catalog:
        """The estimators' view of the data set (what ``atlas.core.calculators.api.handle`` reads), made once per build."""
        if self._catalog is None:
            self._catalog = chart_estimates.catalog(self.dataset)
        return self._catalog
