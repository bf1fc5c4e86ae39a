"""Notes and errors as translation keys with parameters, rendered per language.

Results never carry English prose: a note is ``Message("note.fallback",
{...})`` and becomes ``{"key", "params", "message"}`` in the response, the
message text taken from ``l10n/<lang>/calculators.json``. Numbers in a
message are formatted for the language (1,234.5 vs 1.234,5); precision and
format names are shown with their labels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from atlas.core import l10n
from atlas.core.l10n.names import device_name

# Parameters whose string value is a precision name, shown with its label (FP8, BF16, ...).
_PRECISION_PARAMS = {"wanted", "used", "precision"}
# Parameters whose string value is a weight or KV-cache format, shown with its label (Q4_K_M, NF4, ...).
_FORMAT_PARAMS = {"weights", "kv_cache"}
# Parameters whose string value is a calculator parameter name, shown with its label.
_FIELD_PARAMS = {"field", "other"}
# Parameters whose string value is a device name (or a list of them), shown in the language of the message.
_DEVICE_PARAMS = {"device", "baseline", "devices"}


@dataclass(frozen=True)
class Message:
    """A translatable message: a key of the ``calculators`` translation table and its parameters."""

    key: str
    params: dict = field(default_factory=dict)

    def render(self, lang: str) -> dict:
        return {"key": self.key, "params": dict(self.params), "message": render_text(self.key, self.params, lang)}


@dataclass(frozen=True)
class FieldError(Message):
    """A message about one input parameter (``field`` None for the whole request)."""

    field_name: str | None = None

    def render(self, lang: str) -> dict:
        out = {"field": self.field_name}
        out.update(super().render(lang))
        return out


class ValidationError(ValueError):
    """Bad input: one or more ``FieldError``s, each with a translation key."""

    def __init__(self, errors: list[FieldError]):
        self.errors = list(errors)
        super().__init__("; ".join(render_text(e.key, e.params, "en") for e in self.errors))


def error(field_name: str | None, key: str, **params) -> FieldError:
    return FieldError(key=key, params=params, field_name=field_name)


def field_label(name: str, lang: str) -> str:
    labels = l10n.labels(lang)
    return labels.get(f"param.{name}", name)


def display(name: str, value, lang: str) -> str:
    """A parameter value as running text in ``lang``."""
    if isinstance(value, bool):
        return l10n.t(lang, "yes" if value else "no")
    if isinstance(value, int):
        return l10n.format_number(value, lang, 0)
    if isinstance(value, float):
        if not math.isfinite(value):
            return "?"
        return l10n.format_significant(value, lang, 3)
    if isinstance(value, (list, tuple)):
        return ", ".join(display(name, v, lang) for v in value)
    if name == "allowed":
        return display("weights", value, lang)
    text = str(value)
    if name in _PRECISION_PARAMS and f"precision.{text}" in l10n.labels(lang):
        return l10n.t(lang, f"precision.{text}")
    if name in _FORMAT_PARAMS and f"format.{text}" in l10n.labels(lang):
        return l10n.t(lang, f"format.{text}")
    if name in _FIELD_PARAMS:
        return field_label(text, lang)
    if name in _DEVICE_PARAMS:
        return device_name(text, lang)
    if name == "mode" and f"mode.{text}" in l10n.labels(lang):
        return l10n.t(lang, f"mode.{text}")  # "qlora" -> "QLoRA", "full" -> "full training"
    if name == "engine" and f"engine.{text}" in l10n.labels(lang):
        return l10n.t(lang, f"engine.{text}")  # "vllm" -> "vLLM"
    if name.endswith("bound") and f"bound.{text}" in l10n.labels(lang):
        return l10n.t(lang, f"bound.{text}")
    return text


def render_text(key: str, params: dict, lang: str) -> str:
    """The message of ``key`` in ``lang`` with each parameter formatted for that language."""
    shown = {name: display(name, value, lang) for name, value in params.items()}
    return l10n.t(lang, key, **shown)


class KeyedError(ValueError):
    """An error that carries a translation key and its parameters, so front ends render it in either language."""

    def __init__(self, message_key: str, /, **params):
        self.key = message_key
        self.params = params
        super().__init__(f"{message_key} {params}")

    def message(self) -> Message:
        return Message(self.key, dict(self.params))
