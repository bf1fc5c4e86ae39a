"""What the build adds for the in-page Python runtime: Pyodide, the package zip, the data export."""

import gzip
import json
import logging
import shutil
import subprocess
import sys
import zipfile
from io import BytesIO

import pytest

from atlas.core import pyweb
from atlas.data import webbundle
from conftest import REPO_ROOT, shared_dataset
from macros import runtime_hooks

# page -> (entry points it warms, whether it fetches the data export)
PAGES_WITH_RUNTIME = {
    "calculators/vram": (["calculators.render"], True),
    "calculators/speed": (["calculators.render"], True),
    "kernels/systolic": (["kernels.systolic"], False),
    "kernels/roofline": (["kernels.roofline"], True),
}


def test_bundle_is_the_core_folder_whole_and_is_reproducible():
    content, version = webbundle.site_bundle()
    assert webbundle.site_bundle() == (content, version)  # same sources, same bytes
    names = zipfile.ZipFile(BytesIO(content)).namelist()
    core = sorted(p.relative_to(REPO_ROOT).as_posix() for p in (REPO_ROOT / "atlas" / "core").rglob("*")
                  if p.suffix in (".py", ".json") and "__pycache__" not in p.parts)
    assert names == sorted(["atlas/__init__.py", *core])  # the folder whole, nothing else
    assert {"atlas/core/calculators/api.py", "atlas/core/calcview/browser.py", "atlas/core/charts/roofline.py",
            "atlas/core/l10n/de/calculators.json", "atlas/core/l10n/en/calculator_ui.json",
            "atlas/core/pyweb/__init__.py"} <= set(names)
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    for name, target in pyweb.ENTRY_POINTS.items():
        module = target.split(":")[0]
        assert module.replace(".", "/") + ".py" in names or module.replace(".", "/") + "/__init__.py" in names, name


def test_bundle_ships_only_the_standard_library_kernels_and_the_very_files_the_pages_show():
    archive = zipfile.ZipFile(BytesIO(webbundle.site_bundle()[0]))
    shipped = sorted(n for n in archive.namelist() if "kernels/" in n)
    # the in-page models the kernel pages embed, and what the GPU demos run (names, passes, intensities)
    assert shipped == ["atlas/core/kernels/__init__.py", "atlas/core/kernels/demo_workloads.py",
                       "atlas/core/kernels/roofline.py", "atlas/core/kernels/systolic.py"]
    for name in shipped:  # byte for byte the file in the repository, which the kernel pages embed
        assert archive.read(name) == (REPO_ROOT / name).read_bytes(), name
    for page in ("systolic", "roofline"):
        for suffix in (".md", ".de.md"):
            source = (REPO_ROOT / "docs/kernels" / f"{page}{suffix}").read_text(encoding="utf-8")
            assert f'--8<-- "atlas/core/kernels/{page}.py"' in source
    # the PyTorch, JAX, Triton and CUDA demos (atlas/demos/) and the data layer stay out
    assert not [n for n in archive.namelist() if n.endswith(".cu") or "_torch" in n or "_jax" in n or "_triton" in n]
    assert not [n for n in archive.namelist() if n.startswith(("atlas/demos/", "atlas/data/", "atlas/cli/"))]
    assert "atlas/core/kernelview/browser.py" in archive.namelist() and "atlas/core/charts/systolic.py" in archive.namelist()
    assert "atlas/core/l10n/de/kernel_demos.json" in archive.namelist()


def test_a_missing_core_folder_stops_the_build(tmp_path):
    (tmp_path / "atlas").mkdir()
    (tmp_path / "atlas" / "__init__.py").write_text("")
    with pytest.raises(FileNotFoundError, match="browser core"):
        webbundle.bundle_zip(tmp_path)


def test_bundle_runs_on_the_standard_library_alone(tmp_path):
    """Unzipped as the worker does, with only the data export beside it: no site-packages, no repository."""
    zipfile.ZipFile(BytesIO(webbundle.site_bundle()[0])).extractall(tmp_path / "lib")
    data = tmp_path / "data"
    data.mkdir()
    (data / "atlas-data.json").write_bytes(webbundle.site_data(shared_dataset())[0])
    script = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); from atlas.core import pyweb; pyweb.DATA_DIR = sys.argv[2];"
        "pyweb.warm(['calculators.render']);"
        "req = {'command': 'vram', 'params': {'model': 'llama-3.1-70b', 'weights': 'q4_k_m', 'context': '8192'},"
        " 'lang': 'de'};"
        "print(pyweb.call('calculators.render', json.dumps(req)));"
        "pyweb.warm(['kernels.systolic', 'kernels.roofline']);"
        "print(pyweb.call('kernels.systolic', json.dumps({'params': {'size': '4', 'm': '6'}, 'lang': 'de'})));"
        "print(pyweb.call('kernels.roofline', json.dumps({'params': {'device': 'b200'}, 'lang': 'de'})))"
    )
    out = subprocess.run([sys.executable, "-S", "-E", "-s", "-c", script, str(tmp_path / "lib"), str(data)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    calculator, systolic, roofline = (json.loads(line) for line in out.stdout.splitlines())
    assert calculator["ok"] and calculator["result"]["model"] == "llama-3.1-70b"
    assert 'data-result="total_gib"' in calculator["html"]
    assert systolic["ok"] and systolic["result"]["summary"]["cycles"] == 4 * (4 + 6 + 6) and "Takt" in systolic["html"]
    assert roofline["ok"] and roofline["result"]["device"] == "b200" and 'data-chart="roofline"' in roofline["html"]


def test_lock_file_is_trimmed_to_its_header():
    lock = json.loads(webbundle.pyodide_lock())
    original = json.loads((REPO_ROOT / "node_modules/pyodide/pyodide-lock.json").read_text(encoding="utf-8"))
    assert lock == {"info": original["info"], "packages": {}}


def test_built_site_carries_the_runtime(built_site):
    for name in webbundle.PYODIDE_FILES:
        copied = built_site / webbundle.PYODIDE_DIR / name
        assert copied.read_bytes() == (REPO_ROOT / "node_modules/pyodide" / name).read_bytes()
    shipped = (built_site / webbundle.PYODIDE_DIR / webbundle.STDLIB_NAME).read_bytes()
    assert shipped == webbundle.pyodide_stdlib()  # the trimmed standard library, not Pyodide's own
    manifest = json.loads((built_site / "sw.js").read_text(encoding="utf-8").splitlines()[0]
                          .removeprefix("self.ATLAS_SW_MANIFEST = ").rstrip(";"))
    assert manifest["files"][f"{webbundle.PYODIDE_DIR}/{webbundle.STDLIB_NAME}"] == webbundle.version_of(shipped)
    assert (built_site / webbundle.BUNDLE_PATH).read_bytes() == webbundle.site_bundle()[0]
    export = json.loads((built_site / webbundle.DATA_PATH).read_text(encoding="utf-8"))
    assert export["schema_version"] == 1 and "h100-sxm" in export["devices"] and "llama-3.1-70b" in export["models"]
    for js in ("calculator.mjs", "pyodide-client.mjs", "pyodide-worker.mjs", "pyodide-start.js"):
        assert (built_site / "assets/javascripts" / js).is_file()
    assert not list((built_site).rglob("atlas/**/*.py")), "Python sources are shipped only inside the zip"
    assert not list((built_site).rglob("calculators/*.py"))


def test_only_calculator_pages_reference_the_runtime(built_site):
    for html in built_site.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        rel = html.parent.relative_to(built_site).as_posix().removeprefix("de/").removeprefix("de")
        expected = rel in PAGES_WITH_RUNTIME
        assert ("calculator.mjs" in text) == expected, html
        assert ("pyodide-start.js" in text) == expected, html
        assert ('name="atlas-runtime"' in text) == expected, html
        assert "pyodide.mjs" not in text and "pyodide.asm" not in text


def test_runtime_declaration_points_at_existing_files(built_site):
    import re

    for lang_dir in ("", "de/"):
        for page in PAGES_WITH_RUNTIME:
            html_file = built_site / f"{lang_dir}{page}" / "index.html"
            html = html_file.read_text(encoding="utf-8")
            meta = re.search(r'<meta name="atlas-runtime" content="([^"]+)">', html).group(1)
            options = json.loads(meta.replace("&#34;", '"'))
            warm, needs_data = PAGES_WITH_RUNTIME[page]
            assert options["bundle"] == webbundle.site_bundle()[1]
            data = {"atlas-data.json": webbundle.site_data(shared_dataset())[1]} if needs_data else {}
            assert options["data"] == data
            assert options["warm"] == warm
            snapshot = built_site / webbundle.PYODIDE_DIR / options["snapshot"]  # this build's, named by its hash
            assert options["snapshot"] == f"atlas-snapshot-{webbundle.version_of(snapshot.read_bytes())}.bin"
            # the trimmed standard library by the hash the service worker's manifest keeps it under
            stdlib = (built_site / webbundle.PYODIDE_DIR / webbundle.STDLIB_NAME).read_bytes()
            assert options["stdlib"] == webbundle.version_of(stdlib)
            srcs = re.findall(r'<script[^>]* src="([^"]+(?:calculator\.mjs|pyodide-start\.js))"', html)
            assert {s.rsplit("/", 1)[1] for s in srcs} == {"calculator.mjs", "pyodide-start.js"}
            assert all((html_file.parent / s).resolve().is_file() for s in srcs)
            # no inline script inside the calculator: only JSON data
            section = html[html.index("data-atlas-calculator"):html.index("</article>")]
            assert re.findall(r"<script(?![^>]*(?:src=|application/json))[^>]*>", section) == []


def test_prerendered_result_is_in_the_html(built_site):
    from atlas.core.calculators.api import handle
    from calc_results import lookup, result_elements
    from calculators_support import catalog

    for lang, prefix in (("en", ""), ("de", "de/")):
        html = (built_site / f"{prefix}calculators/vram/index.html").read_text(encoding="utf-8")
        expected = handle({"command": "vram", "params": {"model": "llama-3.1-8b"}, "lang": lang}, catalog())["result"]
        shown = result_elements(html[html.index("data-calc-results"):])
        assert len(shown) > 10
        for path, value, _ in shown:
            assert value == lookup(expected, path), path


# --- The memory snapshot the calculators start from -----------------------------------------------------------

def test_built_site_carries_one_snapshot_with_its_gzip_copy_and_the_service_worker_keeps_it(built_site):
    folder = built_site / webbundle.PYODIDE_DIR
    (snapshot,) = folder.glob("atlas-snapshot-*.bin")
    content = snapshot.read_bytes()
    assert int.from_bytes(content[:4], "little") == 0x706E7300  # Pyodide's snapshot magic number
    assert len(content) > 10_000_000  # the WebAssembly memory with CPython and our modules in it
    assert gzip.decompress((folder / (snapshot.name + ".gz")).read_bytes()) == content
    manifest = json.loads((built_site / "sw.js").read_text(encoding="utf-8").splitlines()[0]
                          .removeprefix("self.ATLAS_SW_MANIFEST = ").rstrip(";"))
    assert manifest["files"][f"{webbundle.PYODIDE_DIR}/{snapshot.name}"] == webbundle.version_of(content)


def test_snapshot_key_changes_with_every_input():
    base = dict(pyodide={"pyodide.asm.wasm": b"w"}, bundle=b"b", data={"atlas-data.json": b"d"},
                warm=["calculators.render"], script=b"s", node="v20")
    key = runtime_hooks.snapshot_key(**base)
    assert runtime_hooks.snapshot_key(**base) == key
    for field, other in (("pyodide", {"pyodide.asm.wasm": b"w2"}), ("bundle", b"b2"),
                         ("data", {"atlas-data.json": b"d2"}), ("warm", ["kernels.systolic"]), ("script", b"s2"),
                         ("node", "v22")):
        assert runtime_hooks.snapshot_key(**{**base, field: other}) != key, field


def test_without_node_or_with_a_failing_script_the_build_goes_on_without_a_snapshot(tmp_path, monkeypatch, caplog):
    args = (REPO_ROOT / "node_modules" / "pyodide", {}, b"zip", {})
    caplog.set_level(logging.INFO, logger="mkdocs.hooks.runtime")
    monkeypatch.setattr(runtime_hooks.shutil, "which", lambda name: None)
    assert runtime_hooks.make_snapshot(*args, cache=tmp_path / "cache") is None
    assert "node is not installed" in caplog.text
    monkeypatch.undo()
    if shutil.which("node"):
        broken = tmp_path / "broken.mjs"
        broken.write_text('throw new Error("no snapshot today");\n', encoding="utf-8")
        caplog.clear()
        assert runtime_hooks.make_snapshot(*args, cache=tmp_path / "cache", script=broken) is None
        assert "no snapshot today" in caplog.text
    assert all(r.levelno == logging.INFO for r in caplog.records)  # --strict fails on warnings, not on this
    assert not (tmp_path / "cache").exists()
    monkeypatch.setenv(runtime_hooks.SNAPSHOT_ENV, "0")
    assert runtime_hooks.make_snapshot(*args, cache=tmp_path / "cache") is None


def test_a_page_names_the_snapshot_only_when_the_build_made_one():
    declared = '{"bundle": "b", "data": {}, "warm": ["kernels.systolic"]}'
    named = json.loads(runtime_hooks.with_snapshot(declared, "atlas-snapshot-0123456789ab.bin"))
    assert named == {"bundle": "b", "data": {}, "warm": ["kernels.systolic"],
                     "snapshot": "atlas-snapshot-0123456789ab.bin"}
    assert json.loads(runtime_hooks.with_snapshot(json.dumps(named), None)) == json.loads(declared)
    versioned = json.loads(runtime_hooks.with_snapshot(declared, None, "5d1b2c3a4e5f"))
    assert versioned == {**json.loads(declared), "stdlib": "5d1b2c3a4e5f"}  # python_stdlib.zip?v=<hash>


def test_the_snapshot_is_never_committed():
    for path in (".cache/snapshot/0123456789ab.bin", "site/assets/vendor/pyodide/atlas-snapshot-0123456789ab.bin"):
        out = subprocess.run(["git", "check-ignore", "-q", path], cwd=REPO_ROOT)
        assert out.returncode == 0, f"{path} is not ignored by git"


def test_the_snapshots_gzip_copy_is_made_once_and_reused(tmp_path):
    content = bytes(200_000) + b"snapshot" * 1000
    packed = runtime_hooks.snapshot_gzip(content, cache=tmp_path)
    assert gzip.decompress(packed) == content and len(packed) < len(content) // 20
    cached = tmp_path / f"{webbundle.version_of(content)}.gz"
    cached.write_bytes(b"kept")  # the second call reads the cache instead of compressing again
    assert runtime_hooks.snapshot_gzip(content, cache=tmp_path) == b"kept"


# --- The trimmed standard library -----------------------------------------------------------------------------

FULL_STDLIB = REPO_ROOT / "node_modules" / "pyodide" / webbundle.STDLIB_NAME


def _shipped_modules(content: bytes) -> set[str]:
    return set(webbundle._stdlib_modules(zipfile.ZipFile(BytesIO(content)).namelist()))


def test_import_scanner_reads_every_kind_of_import_and_skips_the_main_guard():
    source = (b"import a.b as c, d\nfrom . import x, y as z\nfrom ..p import (q,\n    r as s)\n"
              b"if True: import e\nraise X from Y\ndef f():\n    import g; from h import i\n"
              b"try:\n    import j\nexcept ImportError:\n    j = None\n"
              b"if __name__ == '__main__':\n    import doctest\n    if x:\n        import pdb\nimport k\n"
              b'if __name__ == "__main__": import unittest\nimport l\n')
    strings = set()
    found = webbundle.imported_names(source, "pkg.sub.mod", strings=strings)
    assert found == {"a", "a.b", "d", "pkg", "pkg.sub", "pkg.sub.x", "pkg.sub.y", "pkg.p", "pkg.p.q", "pkg.p.r",
                     "e", "g", "h", "h.i", "j", "k", "l"}
    assert "__main__" in strings
    assert webbundle.imported_names(b"from . import _compiler, _parser\n", "re", is_package=True) == {
        "re", "re._compiler", "re._parser"}
    assert webbundle.codec_modules({"cp437", "UTF-8-sig", "latin1", "no such codec", ""}) == {
        "encodings.cp437", "encodings.utf_8_sig", "encodings.latin_1"}


def test_shipped_standard_library_is_smaller_and_has_every_module_the_core_imports():
    content = webbundle.pyodide_stdlib()
    full = FULL_STDLIB.read_bytes()
    assert webbundle._trim_stdlib(full, REPO_ROOT) == content  # reproducible (and the cache gives the same)
    assert len(content) < 0.6 * len(full)  # 2.5 MB -> about 1.3 MB
    assert len(gzip.compress(content)) < 0.6 * len(gzip.compress(full))
    shipped, available = _shipped_modules(content), _shipped_modules(full)
    needed = {m for m in webbundle.core_imports() if m in available}
    assert {"json", "dataclasses", "difflib", "statistics", "urllib.parse", "decimal", "html"} <= needed
    assert needed <= shipped
    # Pyodide's own Python side, the modules CPython imports by name, and what they import
    assert {"_pyodide._base", "pyodide.ffi", "pyodide.webloop", "site", "encodings.utf_8", "asyncio", "ast",
            "traceback", "_pylong", "_strptime", "zipfile", "shutil", "tarfile"} <= shipped
    # the codecs named in the sources kept (zipfile reads names as cp437), not the other code tables
    assert {"encodings.cp437", "encodings.utf_8_sig", "encodings.idna"} <= shipped
    assert not {"encodings.cp1252", "encodings.mac_roman", "encodings.cp500"} & shipped
    for excluded in webbundle.STDLIB_EXCLUDED:
        assert not [m for m in shipped if m == excluded or m.startswith(excluded + ".")], excluded
    assert not {"tkinter", "sqlite3", "xmlrpc", "antigravity", "this"} & shipped
    names = zipfile.ZipFile(BytesIO(content)).namelist()
    assert "_sysconfigdata__emscripten_wasm32-emscripten.py" in names  # sysconfig imports it by a computed name


def test_the_snapshot_step_stops_the_build_when_the_standard_library_lacks_a_module(tmp_path):
    if not shutil.which("node"):
        pytest.skip("node is not installed")
    from mkdocs.exceptions import Abort

    trimmed = zipfile.ZipFile(BytesIO(webbundle.pyodide_stdlib()))
    buf = BytesIO()
    with zipfile.ZipFile(buf, "w") as out:
        for info in trimmed.infolist():
            if info.filename != "statistics.py":  # imported by the core, at module level
                out.writestr(info, trimmed.read(info))
    pyodide = {webbundle.STDLIB_NAME: buf.getvalue()}
    data = {"atlas-data.json": webbundle.site_data(shared_dataset())[0]}
    with pytest.raises(Abort, match="statistics"):
        runtime_hooks.make_snapshot(REPO_ROOT / "node_modules" / "pyodide", pyodide, webbundle.site_bundle()[0],
                                    data, cache=tmp_path / "cache")
    assert not (tmp_path / "cache").exists()
