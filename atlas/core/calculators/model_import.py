"""Bring your own model: estimates for a model read from a ``config.json`` or a GGUF file.

Standard library only. :func:`from_config` and :func:`from_gguf` turn a file
into an :class:`Imported` model (a preset dict, plus the GGUF totals);
:func:`estimate` answers a ``atlas.core.calculators.api.handle`` request with that model
in place of a preset: the result has every key ``handle`` returns, and for a
GGUF file a ``"gguf"`` object with the file's bytes and parameters by tensor
type and group.

For a GGUF file the weights are the file's exact tensor bytes, not the
average bits of a format, unless the request names a weight format of its
own (a what-if re-quantisation) or a training mode. The estimators compute
weight bytes in ``memory.weight_bytes`` (also used by ``speed``), which takes
a model's ``file_weights``/``file_weight_bytes`` (the preset's ``"file"``
block, set here) as the bytes of that format.

:func:`import_model` answers the browser entry point ``calculators.import_model``
(``atlas.core.calcview.browser.import_model_entry``, with the catalog the worker fetched).
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import os
import traceback
from dataclasses import dataclass

from atlas.core import l10n
from atlas.core.calculators import defaults as d
from atlas.core.calculators.api import handle
from atlas.core.calculators.catalog import Catalog
from atlas.core.calculators.gguf_reader import (
    GGUFError,
    GGUFHeader,
    NeedMoreBytes,
    read_header,
    summary,
    to_preset,
    weight_format,
)
from atlas.core.calculators.hf_config import ConfigError, from_hf_config
from atlas.core.calculators.messages import Message

IMPORTED_ID = "imported"
# The most of a GGUF file the page reads for its header (File.slice); a header
# that needs more is treated as damaged.
MAX_PREFIX = 64 * 2**20
MAX_GROUPS = 40


class ImportError_(ValueError):
    """A file that cannot be used as a model: one translatable message for field ``config`` or ``gguf``."""

    def __init__(self, field: str, key: str, params: dict, need_bytes: int | None = None, detail: str | None = None):
        self.field = field
        self.key = key
        self.params = params
        self.need_bytes = need_bytes
        self.detail = detail  # the parser's own words, for the browser console only (never shown on the page)
        super().__init__(key)

    def render(self, lang: str) -> dict:
        return {"field": self.field, **Message(self.key, self.params).render(lang)}


def _finite_float(text: str):
    """A JSON number; one too large for a float (1e400) stays its text, so a field that needs it names it."""
    value = float(text)
    return value if math.isfinite(value) else text


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")  # NaN, Infinity: Python's json reads them, JSON does not


def _bad_json(text: str, exc: Exception) -> ImportError_:
    """A localized sentence for JSON that cannot be read: empty, cut off, or broken at a line and column."""
    detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()[:200]
    if not text.strip():
        return ImportError_("config", "import.config.empty_text", {}, detail=detail)
    if isinstance(exc, json.JSONDecodeError):
        opened = sum(text.count(c) for c in "{[")
        closed = sum(text.count(c) for c in "}]")
        if exc.pos >= len(text.rstrip()) or (exc.msg.startswith("Unterminated string") and opened > closed):  # cut off
            return ImportError_("config", "import.config.truncated", {}, detail=detail)
        return ImportError_("config", "import.config.bad_json", {"line": exc.lineno, "column": exc.colno},
                            detail=detail)
    if isinstance(exc, RecursionError):
        return ImportError_("config", "import.config.too_deep", {}, detail=detail)
    return ImportError_("config", "import.config.bad_json_here", {}, detail=detail)


@dataclass
class Imported:
    preset: dict
    source: str  # "config" | "gguf"
    gguf: dict | None = None  # gguf_reader.summary of the header
    weights: str | None = None  # the calculator weight format closest to the file
    label: str | None = None  # the file's name, for the note

    @property
    def weight_bytes(self) -> int | None:
        return self.gguf["weight_bytes"] if self.gguf else None


def from_config(cfg, name: str | None = None) -> Imported:
    """A transformers config.json (dict, or its JSON text)."""
    if isinstance(cfg, (str, bytes)):
        if isinstance(cfg, bytes):
            try:
                cfg = cfg.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                raise _bad_json("?", exc) from None
        try:
            cfg = json.loads(cfg, parse_constant=_no_constant, parse_float=_finite_float)
        except (ValueError, RecursionError) as exc:
            raise _bad_json(cfg, exc) from None
    try:
        preset = from_hf_config(cfg, IMPORTED_ID, name)
    except ConfigError as exc:
        raise ImportError_("config", exc.key, exc.params) from None
    return Imported(preset, "config")


def _trim_groups(info: dict) -> dict:
    groups = list(info["by_group"].items())
    if len(groups) > MAX_GROUPS:
        rest = groups[MAX_GROUPS - 1:]
        other = {k: sum(v[k] for _, v in rest) for k in ("tensors", "parameters", "bytes")}
        info["by_group"] = dict(groups[:MAX_GROUPS - 1] + [("other", other)])
    return info


def from_header(header: GGUFHeader, name: str | None = None) -> Imported:
    try:
        preset = to_preset(header, IMPORTED_ID)
    except GGUFError as exc:
        raise ImportError_("gguf", exc.key, exc.params) from None
    if name:
        preset["name"] = name
    info = _trim_groups(summary(header))
    return Imported(preset, "gguf", info, weight_format(header, d.WEIGHT_FORMATS))


def from_gguf(source, name: str | None = None, file_size: int | None = None) -> Imported:
    """A GGUF file: a path, a binary file object or a bytes prefix of the file."""
    try:
        if isinstance(source, (bytes, bytearray, memoryview)) or hasattr(source, "read"):
            header = read_header(source)
        else:
            try:
                with open(source, "rb") as fh:
                    header = read_header(fh)
            except OSError:
                raise ImportError_("gguf", "import.file.unreadable", {"path": str(source)[-120:]}) from None
    except NeedMoreBytes as exc:
        limit = min(MAX_PREFIX, file_size) if file_size else MAX_PREFIX
        if exc.needed > limit:
            if file_size and exc.needed > file_size:
                raise ImportError_("gguf", "import.gguf.truncated", {"size": file_size, "needed": exc.needed}) \
                    from None
            raise ImportError_("gguf", "import.gguf.header_too_large", {"needed": exc.needed, "maximum": limit}) \
                from None
        raise ImportError_("gguf", exc.key, exc.params, need_bytes=exc.needed) from None
    except GGUFError as exc:
        raise ImportError_("gguf", exc.key, exc.params) from None
    if file_size is None and isinstance(source, (str, os.PathLike)):
        file_size = os.path.getsize(source)
    if file_size is not None and header.min_file_size > file_size:
        raise ImportError_("gguf", "import.gguf.data_truncated", {"size": file_size, "needed": header.min_file_size})
    return from_header(header, name)


def _uses_file_weights(command: str, params: dict) -> bool:
    if params.get("weights") not in (None, ""):
        return False
    if command == "vram":
        return str(params.get("mode") or "inference").strip().lower() == "inference"
    return str(params.get("workload") or "decode").strip().lower() in ("decode", "prefill")


def estimate(request: dict, catalog, imported: Imported) -> dict:
    """``atlas.core.calculators.api.handle(request, catalog)`` with the imported model as the model."""
    lang = request.get("lang") if request.get("lang") in l10n.LANGUAGES else l10n.DEFAULT_LANGUAGE
    params = dict(request.get("params") or {})
    if params.get("model") not in (None, ""):
        return {"ok": False, "errors": [{"field": "model", **Message("import.model_conflict").render(lang)}]}
    if not isinstance(catalog, Catalog):
        catalog = Catalog.from_dict(catalog)
    command = request.get("command")
    exact = imported.source == "gguf" and _uses_file_weights(command, params) and bool(imported.weights)
    preset = imported.preset
    if exact:  # the file's exact bytes stand for its format (atlas.core.calculators.memory.weight_bytes)
        params["weights"] = imported.weights
        preset = {**preset, "file": {"weights": imported.weights, "weight_bytes": imported.weight_bytes}}
    catalog = Catalog(devices=catalog.devices, models={**catalog.models, IMPORTED_ID: preset})
    params["model"] = IMPORTED_ID
    response = handle({**request, "params": params}, catalog)
    if not response.get("ok"):
        return response
    result = response["result"]
    notes = result.get("notes", [])
    if exact:
        notes = [n for n in notes if n.get("key") != "note.gguf_average"]
        notes.append(Message("note.gguf_exact", {"gib": imported.weight_bytes / d.GIB,
                                                 "bits": imported.gguf["bits_per_weight"]}).render(lang))
    label = imported.label or ("config.json" if imported.source == "config" else "GGUF")
    notes.append(Message("note.imported_model", {"source": label}).render(lang))
    result["notes"] = notes
    if imported.gguf is not None:
        result["gguf"] = {**imported.gguf, "exact_weights": exact}
    return response


def import_model(payload: dict, catalog=None) -> dict:
    """Read the model of ``payload`` and, when it names a ``command`` and a ``catalog`` is given, estimate.

    ``payload``: ``{"config": {...}}`` (or ``"config_json": "..."``), or
    ``{"gguf_prefix_b64": "...", "file_size": N}`` (the first bytes of a GGUF
    file, Base64), with optional ``"name"``, ``"lang"``, ``"command"`` and
    ``"params"`` (as for ``atlas.core.calculators.api.handle``). Answers
    ``{"ok": true, "model": preset, "gguf": {...} | null, "weights": format | null, "result": {...}?}``;
    ``{"ok": false, "need_bytes": N, "errors": [...]}`` when the GGUF prefix is too short
    (read ``N`` bytes from the start and call again); ``{"ok": false, "errors": [...]}`` otherwise.
    """
    lang = l10n.DEFAULT_LANGUAGE
    if isinstance(payload, dict) and payload.get("lang") in l10n.LANGUAGES:
        lang = payload["lang"]
    if not isinstance(payload, dict):
        return {"ok": False, "errors": [{"field": None, **Message("error.bad_request").render(lang)}]}
    name = payload.get("name") if isinstance(payload.get("name"), str) else None
    size = payload.get("file_size") if isinstance(payload.get("file_size"), int) else None
    try:
        if "config" in payload or "config_json" in payload:
            imported = from_config(payload.get("config", payload.get("config_json")), name)
        elif isinstance(payload.get("gguf_prefix_b64"), str):
            try:
                prefix = base64.b64decode(payload["gguf_prefix_b64"], validate=True)
            except (binascii.Error, ValueError):
                raise ImportError_("gguf", "import.gguf.bad_base64", {}) from None
            imported = from_gguf(prefix, name, size)
        else:
            return {"ok": False, "errors": [{"field": None, **Message("import.payload_empty").render(lang)}]}
    except ImportError_ as exc:
        out = {"ok": False, "errors": [exc.render(lang)]}
        if exc.need_bytes is not None:
            out["need_bytes"] = exc.need_bytes
        if exc.detail:
            out["detail"] = exc.detail
        return out
    out = {"ok": True, "model": imported.preset, "gguf": imported.gguf, "weights": imported.weights}
    if payload.get("command") and catalog is not None:
        response = estimate({"command": payload["command"], "params": payload.get("params") or {}, "lang": lang},
                            catalog, imported)
        if not response["ok"]:
            return response
        out["result"] = response["result"]
    return out
