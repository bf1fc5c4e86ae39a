"""The import contract: which part of the code may import which (README, "Layout").

Parts, from the bottom up, each a folder:

- **core**: ``atlas/core/`` (and the docstring-only ``atlas/__init__.py``), what runs in the page: the build zips
  this folder whole into the browser bundle; standard library only;
- **data**: ``atlas/data/`` (loading, validation, export, the speed-model fit, build-time tables);
- **front end**: the command line, ``atlas/cli/`` (``python -m atlas``), which reads ``data/`` through the data layer;
- **demos**: the GPU kernel demos (``atlas/demos/``), which look devices up in the data set;
- **site**: ``macros/`` (the MkDocs macros and hooks).

A part imports only parts below it, so there is no cycle between parts. The graph comes from grimp (the library
import-linter is built on), which reads every import statement, those inside functions included.
"""

from __future__ import annotations

import copy
import sys
import zipfile
from io import BytesIO
from pathlib import Path

import grimp
import pytest

from atlas.core import pyweb
from atlas.data import webbundle

PROJECT_PACKAGES = ("atlas", "macros")
# Each folder (module prefix) and its part; the longest matching prefix decides.
PARTS = {
    "atlas": "core",  # atlas/__init__.py: a docstring, shipped with the core
    "atlas.core": "core",
    "atlas.data": "data",
    "atlas.cli": "front end",
    "atlas.__main__": "front end",
    "atlas.demos": "demos",
    "macros": "site",
}
# Each part and the parts it may import (besides itself).
ALLOWED = {
    "core": set(),
    "data": {"core"},
    "front end": {"core", "data"},
    "demos": {"core", "data"},
    "site": {"core", "data", "demos"},
}
# Third-party packages each part may use; core has none.
THIRD_PARTY = {
    "core": set(),
    "front end": set(),
    "data": {"jsonschema", "yaml", "numpy", "pandas", "scipy"},
    "demos": {"numpy", "torch", "jax", "triton", "yaml"},
    "site": {"mkdocs", "material", "jinja2", "markdown"},
}


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph(*PROJECT_PACKAGES, include_external_packages=True, cache_dir=None)


def part(module: str) -> str:
    """The part ``module`` belongs to: the part of its longest folder prefix in ``PARTS``."""
    prefixes = [p for p in PARTS if module == p or module.startswith(p + ".")]
    return PARTS[max(prefixes, key=len)]


def in_project(module: str, project=PROJECT_PACKAGES) -> bool:
    return module.partition(".")[0] in project


def violations(graph, project=PROJECT_PACKAGES) -> list[str]:
    """Every import that breaks the contract, as 'importer -> imported (importer's part -> imported's part)'."""
    found = []
    for module in sorted(graph.modules):
        if not in_project(module, project):
            continue
        mine = part(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            top = imported.partition(".")[0]
            if in_project(imported, project):
                theirs = part(imported)
                if theirs != mine and theirs not in ALLOWED[mine]:
                    found.append(f"{module} -> {imported} ({mine} -> {theirs})")
            elif top not in sys.stdlib_module_names and top not in THIRD_PARTY[mine]:
                found.append(f"{module} -> {imported} ({mine} -> third-party {top})")
    return found


def test_every_import_follows_the_contract(graph):
    assert violations(graph) == []


def test_the_parts_form_no_cycle():
    """ALLOWED itself is acyclic: a topological order of the parts exists."""
    order, todo = [], dict(ALLOWED)
    while todo:
        ready = [p for p, below in todo.items() if below <= set(order)]
        assert ready, f"cycle among {sorted(todo)}"
        order.extend(sorted(ready))
        for p in ready:
            del todo[p]
    assert order[0] == "core" and order[-1] == "site"


def test_the_bundle_is_the_core_folder_whole(graph):
    """The bundle holds exactly the core's modules (the folder zipped whole), and every entry point the page calls
    is one of them."""
    names = zipfile.ZipFile(BytesIO(webbundle.site_bundle()[0])).namelist()
    bundled = {n[:-3].replace("/", ".").removesuffix(".__init__") for n in names if n.endswith(".py")}
    core = {m for m in graph.modules if in_project(m) and part(m) == "core"}
    assert bundled == core
    for name, target in pyweb.ENTRY_POINTS.items():
        assert target.partition(":")[0] in core, name
    assert {"atlas.core.calculators.api", "atlas.core.calculators.speed_model", "atlas.core.calculators.demo_peaks",
            "atlas.core.calcview.browser", "atlas.core.kernels.roofline", "atlas.core.kernels.systolic",
            "atlas.core.l10n"} <= core
    assert "atlas.cli" not in core and "atlas.demos.harness" not in core and "atlas.data.dataset" not in core


def _toy_graph(*imports):
    g = grimp.ImportGraph()
    for importer, imported in imports:
        g.add_import(importer=importer, imported=imported)
    return g


@pytest.mark.parametrize("importer,imported,expected", [
    ("atlas.core.calculators.speed", "atlas.data.dataset", "atlas.core.calculators.speed -> atlas.data.dataset (core -> data)"),
    ("atlas.core.calculators.speed", "atlas.cli", "atlas.core.calculators.speed -> atlas.cli (core -> front end)"),
    ("atlas.core.calcview.form", "macros.main", "atlas.core.calcview.form -> macros.main (core -> site)"),
    ("atlas.core.calculators.memory", "numpy", "atlas.core.calculators.memory -> numpy (core -> third-party numpy)"),
    ("atlas.data.tables", "atlas.demos.harness", "atlas.data.tables -> atlas.demos.harness (data -> demos)"),
    ("atlas.data.tables", "atlas.cli", "atlas.data.tables -> atlas.cli (data -> front end)"),
    ("atlas.core.kernels.roofline", "atlas.demos.harness", "atlas.core.kernels.roofline -> atlas.demos.harness (core -> demos)"),
])
def test_the_contract_catches_a_forbidden_import(importer, imported, expected):
    assert violations(_toy_graph((importer, imported))) == [expected]


@pytest.mark.parametrize("importer,imported", [
    ("atlas.data.tables", "atlas.core.calculators.devices"), ("atlas.demos.harness", "atlas.data.dataset"), ("macros.main", "atlas.demos.harness"),
    ("atlas.cli", "atlas.data.export"), ("atlas.core.calculators.speed", "math"), ("atlas.data.dataset", "yaml"),
])
def test_the_contract_lets_allowed_imports_through(importer, imported):
    assert violations(_toy_graph((importer, imported))) == []


def module_cycles(graph, project=PROJECT_PACKAGES) -> list[list[str]]:
    """Import cycles between the project's modules (those inside functions included): each strongly connected
    set of two or more modules, sorted (Tarjan's algorithm)."""
    modules = sorted(m for m in graph.modules if in_project(m, project))
    edges = {m: sorted(i for i in graph.find_modules_directly_imported_by(m) if in_project(i, project))
             for m in modules}
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(m):
        index[m] = low[m] = len(index)
        stack.append(m)
        on_stack.add(m)
        for n in edges.get(m, []):
            if n not in index:
                visit(n)
                low[m] = min(low[m], low[n])
            elif n in on_stack:
                low[m] = min(low[m], index[n])
        if low[m] == index[m]:
            group = []
            while True:
                n = stack.pop()
                on_stack.discard(n)
                group.append(n)
                if n == m:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for m in modules:
        if m not in index:
            visit(m)
    return sorted(found)


def test_no_module_imports_itself_through_others(graph):
    """No import cycle between modules, not even one closed by an import inside a function
    (atlas.core.calculators.defaults once imported atlas.core.calculators.memory inside all_defaults())."""
    assert module_cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle_closed_inside_a_function(tmp_path, monkeypatch):
    package = tmp_path / "cyclepkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from cyclepkg import b\n")
    (package / "b.py").write_text("def late():\n    from cyclepkg import a\n")
    (package / "c.py").write_text("from cyclepkg import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    toy = grimp.build_graph("cyclepkg", cache_dir=None)
    assert module_cycles(toy, ("cyclepkg",)) == [["cyclepkg.a", "cyclepkg.b"]]


# The same layers as configuration: import-linter's contracts in pyproject.toml ([tool.importlinter]), which
# `make lint` runs as `lint-imports`. Checked here on the real graph and on graphs with one forbidden import added.
def import_linter_contracts() -> tuple[dict, list[dict]]:
    import tomllib

    config = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    options = config["tool"]["importlinter"]
    session = {k: v for k, v in options.items() if k != "contracts"}
    return session, options["contracts"]


def broken_contracts(graph) -> list[str]:
    from importlinter.configuration import configure
    from importlinter.contracts.acyclic_siblings import AcyclicSiblingsContract
    from importlinter.contracts.forbidden import ForbiddenContract
    from importlinter.contracts.layers import LayersContract

    configure()  # what lint-imports does first: the timer and printer the contracts use
    kinds = {"layers": LayersContract, "forbidden": ForbiddenContract, "acyclic_siblings": AcyclicSiblingsContract}
    session, contracts = import_linter_contracts()
    broken = []
    for options in contracts:
        contract = kinds[options["type"]](name=options["name"], session_options=session, contract_options=options)
        if not contract.check(copy.deepcopy(graph), verbose=False).kept:  # a check removes the ignored imports
            broken.append(options["id"])
    return broken


@pytest.fixture(scope="module")
def linter_graph():
    session, _ = import_linter_contracts()
    return grimp.build_graph(*session["root_packages"], include_external_packages=True, cache_dir=None)


def test_the_configured_import_contracts_hold(linter_graph):
    assert broken_contracts(linter_graph) == []


@pytest.mark.parametrize("importer,imported,broken", [
    ("atlas.core.calculators.memory", "atlas.data.dataset", ["layers", "core-stdlib"]),  # a core module imports build code
    ("atlas.core.calculators.api", "atlas.cli", ["layers", "core-stdlib"]),  # the core imports the command line
    ("atlas.core.calcview.form", "atlas.core.kernelview.page", ["layers"]),  # inside the core, upwards
    ("atlas.core.charts.svg", "numpy", ["core-stdlib"]),  # third-party in the browser
    ("atlas.demos.harness", "macros.main", ["layers", "demos-not-site"]),
    ("atlas.core.calculators.defaults", "atlas.core.calculators.memory", ["acyclic"]),  # memory imports defaults: a cycle
])
def test_each_configured_contract_breaks_on_a_forbidden_import(linter_graph, importer, imported, broken):
    graph = copy.deepcopy(linter_graph)
    graph.add_import(importer=importer, imported=imported)
    assert broken_contracts(graph) == broken
