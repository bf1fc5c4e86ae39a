"""mkdocs-macros module: a thin layer that exposes the project's packages to pages.

Pages opt in with ``render_macros: true`` in their front matter, so Jinja
never touches code blocks elsewhere. Each area registers its macros from its
own module (``macros/<area>.py`` with ``register(env, ctx)``); every macro
takes plain arguments, reads the page's language from ``ctx.lang()`` and
returns HTML built by tested functions outside this folder.
"""

from __future__ import annotations

from atlas.data.dataset import load_dataset_once
from macros import (
    accuracy_macros,
    buyer,
    calculator_macros,
    charts_macros,
    content_macros,
    download_macros,
    edge_cpu,
    estimate_macros,
    guide_macros,
    kernel_demo_macros,
    kernels_macros,
    quantisation_macros,
    site_macros,
    systems,
)
from macros.macro_context import Context

# Each module here defines register(env, ctx). Add a new area's module to this list.
AREAS = [site_macros, charts_macros, content_macros, kernels_macros, guide_macros, estimate_macros, calculator_macros,
         kernel_demo_macros, download_macros, accuracy_macros, quantisation_macros, buyer, systems, edge_cpu]


def define_env(env):
    ctx = Context(dataset=load_dataset_once(), lang=lambda: env.conf["theme"]["language"])
    for area in AREAS:
        area.register(env, ctx)
