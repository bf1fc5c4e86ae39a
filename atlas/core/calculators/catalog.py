"""The device and model data the estimators work on, as plain dicts.

``Catalog.from_dict`` wraps the export of the data set
(``{"schema_version": 1, "devices": {...}, "models": {...}}``, written by
``atlas.data.export``); the browser fetches the same document as
``atlas-data.json``. Nothing here reads YAML, so it needs no third-party
package.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

SCHEMA_VERSION = 1


class Devices(dict):
    """Devices by id; a choice with a memory size (``apple-m3-max@64``, see ``devices.split_choice``) looks up
    the device in that configuration. Iteration and ``in`` see the data set's ids only."""

    def __missing__(self, key):
        from atlas.core.calculators.devices import chosen, split_choice

        if not isinstance(key, str) or "@" not in key:
            raise KeyError(key)
        try:
            device_id, gib = split_choice(key)
        except ValueError:
            raise KeyError(key) from None
        if device_id not in self:
            raise KeyError(key)
        return chosen(self[device_id], gib)

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default


class CatalogError(ValueError):
    """The export document is not one this package can read."""


@dataclass(frozen=True)
class Catalog:
    """Devices and model presets by id (dicts as in the YAML files)."""

    devices: dict = field(default_factory=Devices)
    models: dict = field(default_factory=dict)
    prices: dict = field(default_factory=dict)  # {device id: [{kind, usd per device, as_of, provider, ...}]}
    # published speed measurements, one dict per case ({device, model, engine, ..., decode_tokens_per_s, source: {id,
    # url, title, publisher}}); listed beside an estimate by ``atlas.core.calculators.measured``, never used to make one
    measurements: list = field(default_factory=list)
    # measured quality changes of quantised KV caches (perplexity, KL divergence, scores; ``data/kv-quality``), shown
    # beside the memory a quantised cache saves by ``atlas.core.calculators.kv_quality``
    kv_quality: list = field(default_factory=list)
    # ``measurements`` by device id, made on the first ``measurements_on`` (not an argument: a copy made with
    # dataclasses.replace starts a new one)
    _by_device: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def measurements_on(self, device_id: str) -> list:
        """The measured cases of one device, in the order of ``measurements``. An estimate lists those of its
        device and baseline: the whole table (2,600 cases) is read once per catalog, not on every answer."""
        if not self._by_device:
            for case in self.measurements:
                self._by_device.setdefault(case.get("device"), []).append(case)
        return self._by_device.get(device_id, [])

    @classmethod
    def from_dict(cls, data: dict) -> Catalog:
        """Wrap an export dict; raise ``CatalogError`` for another schema version or shape."""
        if not isinstance(data, dict):
            raise CatalogError("the data export must be a JSON object")
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise CatalogError(f"data export has schema_version {version!r}; this package reads {SCHEMA_VERSION}")
        devices, models, prices = data.get("devices", {}), data.get("models", {}), data.get("prices", {})
        if not isinstance(devices, dict) or not isinstance(models, dict) or not isinstance(prices, dict):
            raise CatalogError("'devices', 'models' and 'prices' must be objects keyed by id")
        return cls(devices=Devices(devices), models=dict(models), prices=dict(prices),
                   measurements=measurement_rows(data.get("measurements")),
                   kv_quality=[row for row in data.get("kv_quality") or [] if isinstance(row, dict)]
                   if isinstance(data.get("kv_quality"), list) else [])

    @classmethod
    def from_json(cls, text: str) -> Catalog:
        """Parse the JSON text of an export."""
        return cls.from_dict(json.loads(text))

    def device_ids(self) -> list[str]:
        return sorted(self.devices)

    def model_ids(self) -> list[str]:
        return sorted(self.models)


def measurement_rows(table) -> list[dict]:
    """The export's measurement table (``atlas.data.export.measured_rows``) as one dict per case; [] when absent.

    Raises ``CatalogError`` for a table of another shape."""
    if table is None:
        return []
    try:
        columns, sources = table["columns"], table["sources"]
        out = []
        for row in table["rows"]:
            case = {key: value for key, value in zip(columns, row, strict=True) if value is not None}
            case["source"] = sources[case["source"]]
            out.append(case)
        return out
    except (KeyError, TypeError, IndexError, ValueError) as exc:
        raise CatalogError("'measurements' must be a table of columns, rows and sources") from exc
