"""What the build adds for the in-page Python runtime: Pyodide, the package zip, the data export."""

import json
import subprocess
import sys
import zipfile
from io import BytesIO

import pytest

import pyweb
from atlas import webbundle
from atlas.dataset import load_dataset
from conftest import REPO_ROOT

# page -> (entry points it warms, whether it fetches the data export)
PAGES_WITH_RUNTIME = {
    "calculators/vram": (["calculators.render"], True),
    "calculators/speed": (["calculators.render"], True),
    "kernels/systolic": (["kernels.systolic"], False),
    "kernels/roofline": (["kernels.roofline"], True),
}


def test_bundle_holds_exactly_the_registered_packages_and_is_reproducible():
    content, version = webbundle.site_bundle()
    assert webbundle.site_bundle() == (content, version)  # same sources, same bytes
    names = zipfile.ZipFile(BytesIO(content)).namelist()
    assert {n.split("/")[0] for n in names} == set(pyweb.PACKAGES)
    assert {"calculators/api.py", "calcview/browser.py", "charts/roofline.py", "l10n/de/calculators.json",
            "l10n/en/calculator_ui.json", "pyweb/__init__.py"} <= set(names)
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    for name, target in pyweb.ENTRY_POINTS.items():
        assert target.split(":")[0].split(".")[0] in pyweb.PACKAGES, name


def test_bundle_ships_only_the_standard_library_kernels_and_the_very_files_the_pages_show():
    archive = zipfile.ZipFile(BytesIO(webbundle.site_bundle()[0]))
    shipped = sorted(n for n in archive.namelist() if n.startswith("kernels/"))
    assert shipped == ["kernels/__init__.py", "kernels/roofline.py", "kernels/systolic.py"]
    assert pyweb.PACKAGE_FILES["kernels"] == ("__init__.py", "roofline.py", "systolic.py")
    for name in shipped:  # byte for byte the file in the repository, which the kernel pages embed
        assert archive.read(name) == (REPO_ROOT / name).read_bytes(), name
    for page in ("systolic", "roofline"):
        for suffix in (".md", ".de.md"):
            source = (REPO_ROOT / "docs/kernels" / f"{page}{suffix}").read_text(encoding="utf-8")
            assert f'--8<-- "kernels/{page}.py"' in source
    # the PyTorch, JAX, Triton and CUDA demos stay out; every other package ships whole
    assert not [n for n in archive.namelist() if n.endswith(".cu") or "_torch" in n or "_jax" in n or "_triton" in n]
    assert "kernelview/browser.py" in archive.namelist() and "charts/systolic.py" in archive.namelist()
    assert "l10n/de/kernel_demos.json" in archive.namelist()


def test_a_listed_file_that_is_missing_stops_the_build(tmp_path):

    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "__init__.py").write_text("")
    with pytest.raises(FileNotFoundError, match="systolic.py"):
        webbundle.bundle_zip(["kernels"], tmp_path, {"kernels": ("__init__.py", "systolic.py")})


def test_bundle_runs_on_the_standard_library_alone(tmp_path):
    """Unzipped as the worker does, with only the data export beside it: no site-packages, no repository."""
    zipfile.ZipFile(BytesIO(webbundle.site_bundle()[0])).extractall(tmp_path / "lib")
    data = tmp_path / "data"
    data.mkdir()
    (data / "atlas-data.json").write_bytes(webbundle.site_data(load_dataset())[0])
    script = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import pyweb; pyweb.DATA_DIR = sys.argv[2];"
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
    assert (built_site / webbundle.BUNDLE_PATH).read_bytes() == webbundle.site_bundle()[0]
    export = json.loads((built_site / webbundle.DATA_PATH).read_text(encoding="utf-8"))
    assert export["schema_version"] == 1 and "h100-sxm" in export["devices"] and "llama-3.1-70b" in export["models"]
    for js in ("calculator.mjs", "pyodide-client.mjs", "pyodide-worker.mjs", "pyodide-start.js"):
        assert (built_site / "assets/javascripts" / js).is_file()
    assert not list((built_site).rglob("calculators/*.py")), "Python sources are shipped only inside the zip"


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
            data = {"atlas-data.json": webbundle.site_data(load_dataset())[1]} if needs_data else {}
            assert options["data"] == data
            assert options["warm"] == warm
            srcs = re.findall(r'<script[^>]* src="([^"]+(?:calculator\.mjs|pyodide-start\.js))"', html)
            assert {s.rsplit("/", 1)[1] for s in srcs} == {"calculator.mjs", "pyodide-start.js"}
            assert all((html_file.parent / s).resolve().is_file() for s in srcs)
            # no inline script inside the calculator: only JSON data
            section = html[html.index("data-atlas-calculator"):html.index("</article>")]
            assert re.findall(r"<script(?![^>]*(?:src=|application/json))[^>]*>", section) == []


def test_prerendered_result_is_in_the_html(built_site):
    from calc_results import lookup, result_elements
    from calculators.api import handle
    from calculators_support import catalog

    for lang, prefix in (("en", ""), ("de", "de/")):
        html = (built_site / f"{prefix}calculators/vram/index.html").read_text(encoding="utf-8")
        expected = handle({"command": "vram", "params": {"model": "llama-3.1-8b"}, "lang": lang}, catalog())["result"]
        shown = result_elements(html[html.index("data-calc-results"):])
        assert len(shown) > 10
        for path, value, _ in shown:
            assert value == lookup(expected, path), path
