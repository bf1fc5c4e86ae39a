"""The Content-Security-Policy: computed at build time, in every page and in _headers, enforced by Chromium."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from atlas.data import csp
from conftest import REPO_ROOT

PAGE = """<!doctype html><html lang="en"><head>
<meta charset="utf-8"><title>t</title>
<script>alert(1)</script>
<script id="__config" type="application/json">{"a": 1}</script>
<script src="x.js"></script>
<script type="module">var x = "ü";</script>
</head><body></body></html>"""


def test_hashes_only_the_inline_scripts_a_browser_runs():
    # Reference values: printf 'alert(1)' | openssl dgst -sha256 -binary | base64 (and the same for the module).
    assert csp.script_hashes(PAGE) == [
        "'sha256-+fPSwEIZakkU5nAXG4gmSnICjP/N4vhzEkUQRvc1nsE='",
        "'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='",
    ]


def test_meta_policy_goes_first_and_only_once():
    once = csp.with_meta_policy(PAGE)
    assert csp.with_meta_policy(once) == once
    assert once.count('http-equiv="Content-Security-Policy"') == 1
    head = once[once.index("<head>") :]
    assert head.index("Content-Security-Policy") < head.index("<script")
    assert head.index("<meta charset") < head.index("Content-Security-Policy")


def test_policy_allows_no_inline_script_no_eval_and_no_other_origin():
    text = csp.policy(["'sha256-abc='"], header=True)
    directives = dict(d.split(" ", 1) for d in text.split("; "))
    assert directives["script-src"] == "'self' 'wasm-unsafe-eval' 'sha256-abc='"
    assert directives["default-src"] == "'self'" and directives["object-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    assert "'unsafe-inline'" not in text and "'unsafe-eval'" not in text
    assert not re.search(r"https?:|\*", text), "no other origin and no wildcard"
    assert "frame-ancestors" not in csp.policy(), "browsers ignore it in <meta>, with a console error"


def test_headers_file_round_trip():
    rules = csp.parse_headers_file("# comment\n/*\n  A: 1\n  B: x: y\n/downloads/*\n  C: 2\n")
    assert rules == [("/*", [("A", "1"), ("B", "x: y")]), ("/downloads/*", [("C", "2")])]
    assert csp.headers_for("/downloads/a.csv", rules) == [("A", "1"), ("B", "x: y"), ("C", "2")]
    assert csp.headers_for("/compare/", rules) == [("A", "1"), ("B", "x: y")]


def test_every_built_page_carries_a_policy_covering_its_inline_scripts(built_site):
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) > 10
    for path in pages:
        html = path.read_text(encoding="utf-8")
        metas = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html)
        assert len(metas) == 1, path
        for digest in csp.script_hashes(html):
            assert digest in metas[0], (path, digest)


def test_headers_file_covers_every_page(built_site):
    rules = csp.parse_headers_file((built_site / "_headers").read_text(encoding="utf-8"))
    headers = dict(csp.headers_for("/de/compare/", rules))
    assert headers["Content-Security-Policy"] == csp.policy(csp.site_hashes(built_site), header=True)
    assert headers["X-Content-Type-Options"] == "nosniff"
    for path in built_site.rglob("*.html"):
        for digest in csp.script_hashes(path.read_text(encoding="utf-8")):
            assert digest in headers["Content-Security-Policy"], path


def test_command_prints_the_nginx_snippet(built_site):
    result = subprocess.run(
        [sys.executable, "-m", "atlas.data", "csp", str(built_site), "--format", "nginx"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert (
        first == f'add_header Content-Security-Policy "{csp.policy(csp.site_hashes(built_site), header=True)}" always;'
    )


@pytest.mark.browser
def test_server_sends_the_policy_header(page, site_server):
    response = page.goto(site_server + "/compare/")
    assert "wasm-unsafe-eval" in response.headers["content-security-policy"]
    assert response.headers["content-security-policy"].endswith("frame-ancestors 'none'")


@pytest.mark.browser
def test_injected_markup_cannot_run_script_or_reach_another_origin(page, site_server):
    """What the policy is for: even markup that slipped into a page runs no inline script and loads nothing
    from elsewhere, and each attempt is reported as a violation."""
    page.add_init_script(
        "window.__v = []; document.addEventListener('securitypolicyviolation', e => "
        "window.__v.push(e.effectiveDirective));"
    )
    page.goto(site_server + "/compare/")
    page.evaluate(
        """() => {
        const s = document.createElement("script");
        s.textContent = "window.__pwned = 1";
        document.body.append(s);
        const div = document.createElement("div");
        div.innerHTML = '<img src="https://tracker.invalid/p.gif"><a href="#" onclick="window.__pwned = 2">x</a>';
        document.body.append(div);
        div.querySelector("a").click();
    }"""
    )
    page.wait_for_function("() => window.__v.length >= 3")
    assert page.evaluate("() => window.__pwned") is None
    assert sorted(set(page.evaluate("() => window.__v"))) == ["img-src", "script-src-attr", "script-src-elem"]
    # Chromium announces the image request, then refuses to send it.
    assert [u for u in page.requests_seen if "tracker.invalid" in u] == page.failed_requests


def test_browser_tests_wait_with_functions_not_expressions():
    """The test server sends the site's CSP, which refuses eval: Playwright's wait_for_function evaluates a bare
    expression string with eval inside the page, so browser tests pass a function ("() => ...") instead."""
    pattern = re.compile(r"""wait_for_function\(\s*(?:f?["'])(?!\s*(?:\(|async\b|[A-Za-z_$][\w$]*\s*=>))""")
    offenders = []
    for path in sorted((REPO_ROOT / "tests").glob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if pattern.search(line):
                offenders.append(f"{path.name}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
