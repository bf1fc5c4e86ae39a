"""The demos' forms, one field per parameter of ``atlas.core.kernelview.inputs.PARAMETERS``.

Fields are named like the parameters, so the form, the URL query string and
``request["params"]`` share one vocabulary, and carry the same markup as the
calculators' fields (``atlas.core.calcview.form``), so ``calculator.mjs`` drives both:
``data-default`` (left out of the link when unchanged), an error line
``data-error-for="<name>"``. Numbers are text fields (``inputmode``), so what
the reader types reaches Python unchanged and gets its localized message
there.
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.calculators import devices as dev
from atlas.core.calculators.inputs import PRECISIONS
from atlas.core.calcview.markup import attrs, el, text
from atlas.core.calcview.numbers import field_value
from atlas.core.kernelview.inputs import PARAMETERS
from atlas.core.kernelview.roofline_demo import usable

# Demos whose result is computed when the reader presses the button, not on every keystroke
# (a simulation is worth a deliberate start; the roofline explorer answers as the reader types).
RUN_ON_SUBMIT = {"systolic"}


def field_id(demo: str, name: str) -> str:
    return f"kdemo-{demo}-{name}"


def choices(kind: str, lang: str, catalog) -> list[tuple[str, str]]:
    """(value, label) of a select: devices by name, precisions in the data set's order."""
    if kind == "device":
        found = [(k, dev.name(d, lang)) for k, d in catalog.devices.items() if usable(d)]
        return sorted(found, key=lambda item: item[1].lower())
    return [(p, l10n.t(lang, f"precision.{p}")) for p in PRECISIONS]


def _control(demo: str, name: str, kind: str, current, lang: str, catalog) -> str:
    common = {"id": field_id(demo, name), "name": name, "data_default": field_value(current, lang),
              "aria_describedby": f"{field_id(demo, name)}-error"}
    if kind in ("device", "precision"):
        options = "".join(el("option", text(label), value=key, selected=(key == current))
                          for key, label in choices(kind, lang, catalog))
        return el("select", options, **common)
    mode = "numeric" if kind == "int" else "decimal"
    return f'<input type="text"{attrs(value=field_value(current, lang), inputmode=mode, autocomplete="off", spellcheck="false", **common)}>'


def field_html(demo: str, name: str, kind: str, current, lang: str, catalog) -> str:
    """One labelled field with its (empty, hidden) error line."""
    label = el("label", text(l10n.t(lang, f"kdemo.param.{name}")), for_=field_id(demo, name))
    error = el("p", "", id=f"{field_id(demo, name)}-error", class_="atlas-calc-error", data_error_for=name,
               hidden=True, role="alert")
    return el("div", label + _control(demo, name, kind, current, lang, catalog) + error, class_="atlas-calc-field")


def form_html(demo: str, values: dict, lang: str, catalog=None) -> str:
    """The form of ``demo`` with ``values`` filled in; a Run button (shown by the script) where the
    demo runs on demand."""
    fields = "".join(field_html(demo, name, kind, values[name], lang, catalog) for name, kind, _ in PARAMETERS[demo])
    legend = el("legend", text(l10n.t(lang, f"kdemo.group.{demo}")))
    body = el("fieldset", legend + fields, class_="atlas-calc-group")
    if demo in RUN_ON_SUBMIT:
        body += el("p", el("button", text(l10n.t(lang, f"kdemo.run.{demo}")), type="submit",
                           class_="atlas-kdemo-button atlas-kdemo-button--primary", data_calc_run=True), class_="atlas-kdemo-run",
                   hidden=True)
    return el("form", body, class_="atlas-calc-form", data_calc_form=demo, method="get", novalidate=True,
              autocomplete="off")
