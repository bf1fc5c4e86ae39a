"""Shared fixtures: the repository root, the data set, and one
built site per test session (both languages), served on a free local port."""

from __future__ import annotations

import contextlib
import functools
import http.server
import importlib
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

# One BLAS/OpenMP thread per process, set before anything imports numpy: pytest-xdist already runs a worker per CPU
# (the Makefile sets the same for its test targets; this covers a bare `pytest`).
for _threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

import pytest  # noqa: E402

from atlas.data import REPO_ROOT  # noqa: E402
from tests.crawl import with_empty_search_index  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@functools.cache
def shared_dataset():
    """``load_dataset()``, loaded once per test process (a load validates every file: seconds). Read-only, as the
    ``dataset`` fixture: a test that changes data changes a copy."""
    from atlas.data.dataset import load_dataset

    return load_dataset()


@pytest.fixture(scope="session")
def dataset():
    return shared_dataset()


def define_macros(env) -> None:
    """``macros.main.define_env(env)`` as the build runs it, on the shared data set instead of a fresh load of
    the same files."""
    from macros import main

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(main, "load_dataset_once", shared_dataset)
        main.define_env(env)


@pytest.fixture
def run_demo_here(monkeypatch, capsys):
    """Runs a demo's ``main(argv)`` in this process, as ``python atlas/demos/<name>.py argv...`` runs it (the
    script ends in ``sys.exit(main())``), and gives its exit code and output as ``subprocess.run`` would: a new
    Python process costs seconds (NumPy, the backend). A demo reads its devices from the kept export
    (``atlas.data.export_cache``); a data set it loads (``load_dataset()`` of data/, e.g. to check a recorded
    measurement) is the shared one. Some tests keep running the demos as real processes."""
    from atlas.data import dataset as dataset_module

    load = dataset_module.load_dataset
    shared_dataset()  # loaded (by the real load_dataset) before the patch: loaded under it, it would call itself

    def load_shared(data_dir=dataset_module.DATA_DIR, *args, **kwargs):
        if args or kwargs or Path(data_dir).resolve() != Path(dataset_module.DATA_DIR).resolve():
            return load(data_dir, *args, **kwargs)
        return shared_dataset()

    monkeypatch.setattr(dataset_module, "load_dataset", load_shared)

    def run(name: str, *argv: str) -> subprocess.CompletedProcess:
        module = importlib.import_module(f"atlas.demos.{name}")
        capsys.readouterr()
        try:
            code = module.main(list(argv))
        except SystemExit as exc:
            code = exc.code
        out = capsys.readouterr()
        return subprocess.CompletedProcess([name, *argv], code or 0, out.out, out.err)

    return run


def mkdocs_build_command(site_dir: Path, config: Path | None = None, snapshot: bool = False) -> tuple[list, dict]:
    """The command and environment of ``mkdocs build --strict`` into ``site_dir``.

    ``snapshot``: make the Pyodide memory snapshot (macros/runtime_hooks.py) as ``make build`` does. Only the
    build that browser tests open needs it; the throw-away builds that check pages or a failing build skip it
    (``ATLAS_SNAPSHOT=0``), which saves Node about ten seconds of CPU per build. Every build, a copy's too,
    reads and fills the repository's build cache (gzip copies, trimmed stdlib: atlas/data/buildcache.py)."""
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)]
    if config:
        cmd += ["--config-file", str(config)]
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", ATLAS_CACHE_DIR=str(REPO_ROOT / ".cache" / "atlas"))
    if not snapshot:
        env["ATLAS_SNAPSHOT"] = "0"
    return cmd, env


def run_mkdocs_build(site_dir: Path, config: Path | None = None, cwd: Path = REPO_ROOT,
                     snapshot: bool = False) -> subprocess.CompletedProcess:
    """Run ``mkdocs build --strict`` into ``site_dir`` and return the finished process."""
    cmd, env = mkdocs_build_command(site_dir, config, snapshot)
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


# Builds a whole test run shares, started in the background as soon as a worker has collected a test that needs
# one, so that no worker sits waiting for a build while others could run (tests/test_injection_site.py waits for
# "hostile-site", the built_site fixture for "built-site"). Each writes <name>/ , <name>.log and, when done,
# <name>.rc in the run's common temporary folder.
SHARED_BUILDS = {
    "built-site": ("built_site", lambda site: mkdocs_build_command(site, snapshot=True)),
    "hostile-site": ("hostile_site", lambda site: ([sys.executable, str(REPO_ROOT / "tests" / "hostile_build.py"),
                                                    str(site)], mkdocs_build_command(site, snapshot=True)[1])),
}
_BACKGROUND = """
import pathlib, subprocess, sys
folder, name, cmd = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
with open(folder / f"{name}.log", "w", encoding="utf-8") as log:
    code = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, timeout=900).returncode
(folder / f"{name}.rc.tmp").write_text(str(code), encoding="utf-8")
(folder / f"{name}.rc.tmp").replace(folder / f"{name}.rc")
"""
SHARED_BUILD_TIMEOUT_S = 900


def start_shared_build(folder: Path, name: str) -> None:
    """Start the shared build ``name`` in the background unless a worker already did."""
    from filelock import FileLock

    with FileLock(str(folder / f"{name}.lock")):
        started = folder / f"{name}.started"
        if started.exists():
            return
        started.touch()
        cmd, env = SHARED_BUILDS[name][1](folder / name)
        subprocess.Popen([sys.executable, "-c", _BACKGROUND, str(folder), name, *cmd], cwd=REPO_ROOT, env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)


def shared_build(tmp_path_factory, name: str) -> Path:
    """The folder of the shared build ``name``, once it has finished (started here if no worker started it)."""
    import time

    folder = tmp_path_factory.getbasetemp().parent
    start_shared_build(folder, name)
    done, deadline = folder / f"{name}.rc", time.monotonic() + SHARED_BUILD_TIMEOUT_S
    while not done.exists():
        assert time.monotonic() < deadline, f"the shared build {name} took more than {SHARED_BUILD_TIMEOUT_S} s"
        time.sleep(0.25)
    log = (folder / f"{name}.log").read_text(encoding="utf-8")
    assert done.read_text(encoding="utf-8") == "0", f"{name}: the build failed:\n{log}"
    return folder / name


def pytest_collection_finish(session):
    if not hasattr(session.config, "workerinput"):
        return  # without pytest-xdist the fixtures build when first asked
    wanted = {name for name, (fixture, _) in SHARED_BUILDS.items()
              if any(fixture in getattr(item, "fixturenames", ()) for item in session.items)}
    # The run's common temporary folder, as the fixtures find it (tmp_path_factory is pytest's own, not public here).
    folder = session.config._tmp_path_factory.getbasetemp().parent
    for name in sorted(wanted):
        start_shared_build(folder, name)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory, worker_id) -> Path:
    """The whole site built once for the test run (strict: any warning fails), read-only for the tests.

    Under pytest-xdist the workers share one build, started in the background when the first worker has
    collected its tests (``SHARED_BUILDS``); a failed build fails every test that uses it, with its output."""
    if worker_id == "master":  # no xdist
        site_dir = tmp_path_factory.mktemp("site")
        result = run_mkdocs_build(site_dir, snapshot=True)
        assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}"
        return site_dir
    return shared_build(tmp_path_factory, "built-site")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".json": "application/json",
    }

    def log_message(self, *args):
        pass

    # A test that closes its page while a large file (the 31 MB Pyodide snapshot) is still downloading resets the
    # connection: that is the browser's choice, not a failure, and needs no traceback in the test output.
    def handle(self):
        try:
            super().handle()
        except (ConnectionResetError, BrokenPipeError):
            self.close_connection = True

    def finish(self):
        try:
            super().finish()
        except (ConnectionResetError, BrokenPipeError):
            pass

    def end_headers(self):
        # The headers the build wrote into _headers (the Content-Security-Policy among them), as Netlify
        # or Cloudflare Pages would send them: every browser test runs under the site's policy.
        for name, value in _site_headers(self.directory, self.path.split("?")[0]):
            self.send_header(name, value)
        super().end_headers()


@functools.cache
def _headers_rules(directory: str):
    from atlas.data.csp import parse_headers_file

    path = Path(directory) / "_headers"
    return parse_headers_file(path.read_text(encoding="utf-8")) if path.is_file() else []


def _site_headers(directory: str, url_path: str):
    from atlas.data.csp import headers_for

    return headers_for(url_path, _headers_rules(directory))


@contextlib.contextmanager
def serving(directory, handler_class=None):
    """``directory`` served on 127.0.0.1 at a free port by ``handler_class`` (default: ``_QuietHandler``, with the
    headers of the folder's _headers file); yields the base URL and stops the server afterwards."""
    handler = functools.partial(handler_class or _QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


@pytest.fixture(scope="session")
def site_server(built_site):
    """Serve the built site on 127.0.0.1 at a free port, with the headers of its _headers file (the
    Content-Security-Policy: in-page eval is refused, so wait_for_function takes "() => ..."); yields the base URL."""
    with serving(built_site) as base:
        yield base


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium driven by Playwright (never a downloaded browser)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: 'make test' installs Debian's chromium package")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield BrowserForTests(chromium)
        chromium.close()


class BrowserForTests:
    """The Playwright browser, whose new contexts get an empty search index (``with_empty_search_index``) and
    have service workers blocked unless a test asks for them
    (``new_context(service_workers="allow")``: the offline and snapshot-keeping tests, and the crawl, which
    visits the site as a reader's browser does). On a calculator page the service worker's first install keeps
    the whole runtime (a second of CPU per visit here), which every other test paid for nothing; the page's own
    code treats a refused service worker as a browser without one."""

    def __init__(self, browser):
        self._browser = browser

    def new_context(self, *, real_search_index: bool = False, **options):
        options.setdefault("service_workers", "block")
        context = self._browser.new_context(**options)
        if not real_search_index:
            with_empty_search_index(context)
        return context

    def __getattr__(self, name):
        return getattr(self._browser, name)


@pytest.fixture
def page(browser, site_server):
    """A fresh browser page that records every request and console error."""
    context = browser.new_context()
    pg = context.new_page()
    pg.requests_seen = []
    pg.console_errors = []
    pg.failed_requests = []
    pg.on("request", lambda r: pg.requests_seen.append(r.url))
    pg.on("requestfailed", lambda r: pg.failed_requests.append(r.url))
    pg.on("console", lambda m: pg.console_errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
    yield pg
    context.close()


def copy_repo_for_build(dest: Path) -> Path:
    """A throw-away copy of what a build needs, so a test can break its data."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("mkdocs.yml", "docs", "overrides", "macros", "atlas", "data"):
        src = REPO_ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dest / name)
    (dest / "node_modules").symlink_to(REPO_ROOT / "node_modules")
    return dest


# Fixtures that build or serve the whole site: a test using one is slow ('make test-fast' leaves it out).
SITE_FIXTURES = {"built_site", "site_server", "site_dir", "hostile_site"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SITE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


# Test files whose tests are spread over the pytest-xdist workers one by one under '--dist loadfile' (the
# Makefile's setting), instead of running on one worker as a whole. Only files whose tests are independent of
# each other and use no module fixture: each worker that runs some of them pays their per-process setup once.
# test_injection.py is a third of the fast lane's CPU time; as one unit it kept one worker busy while the others
# had finished. The others are few tests of seconds each, which xdist (ordering files by their number of tests)
# would hand out last, as whole files. test_kernels_backends.py (backends' demos in process or in one Triton
# interpreter process per worker, nvcc compiles) and test_committed_fit.py (one refit per source left out) are
# each about a minute of CPU.
SPLIT_FILES = {
    "tests/test_kernels_backends.py",
    "tests/test_injection.py",
    "tests/test_contributor_workflow.py",
    "tests/test_data_loading_fast.py",
    "tests/test_calculators_properties.py",
    "tests/test_committed_fit.py",
}

# Files whose tests share one fixture per language (test_crawl.py: a crawl of the English pages, one of the German;
# test_injection_site.py: a pass over the hostile site's pages of each language): two work units, one per language
# (a test without "[de]" in its id goes with English), so two workers visit pages side by side.
SPLIT_BY_LANGUAGE = {"tests/test_crawl.py", "tests/test_injection_site.py"}


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: no error where xdist is absent or disabled
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadfile":
        return None  # xdist's own scheduler
    from xdist.scheduler import LoadFileScheduling

    class SplitLoadFileScheduling(LoadFileScheduling):
        """``loadfile``, but the tests of SPLIT_FILES are work units of their own."""

        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            if path in SPLIT_BY_LANGUAGE:
                return f"{path}::{'de' if '[de]' in nodeid else 'en'}"
            return nodeid if path in SPLIT_FILES else path

    return SplitLoadFileScheduling(config, log)
