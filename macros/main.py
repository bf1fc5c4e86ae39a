"""mkdocs-macros module: a thin layer that exposes the project's packages to pages.

Pages opt in with ``render_macros: true`` in their front matter, so Jinja
never touches code blocks elsewhere. Each area registers its macros from its
own module (``macros/<area>.py`` with ``register(env, ctx)``); every macro
takes plain arguments, reads the page's language from ``ctx.lang()`` and
returns HTML built by tested functions outside this folder.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
for path in (REPO_ROOT, REPO_ROOT / "macros"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import accuracy_macros  # noqa: E402
import calculator_macros  # noqa: E402
import charts_macros  # noqa: E402
import content_macros  # noqa: E402
import download_macros  # noqa: E402
import estimate_macros  # noqa: E402
import guide_macros  # noqa: E402
import kernel_demo_macros  # noqa: E402
import kernels_macros  # noqa: E402
import site_macros  # noqa: E402
from macro_context import Context  # noqa: E402

from atlas.dataset import load_dataset  # noqa: E402

# Each module here defines register(env, ctx). Add a new area's module to this list.
AREAS = [site_macros, charts_macros, content_macros, kernels_macros, guide_macros, estimate_macros, calculator_macros,
         kernel_demo_macros, download_macros, accuracy_macros]


def define_env(env):
    ctx = Context(dataset=load_dataset(), lang=lambda: env.conf["theme"]["language"])
    for area in AREAS:
        area.register(env, ctx)
