"""The service worker (sw.js) and the pre-compressed runtime files.

- Browser: after one visit to a calculator the runtime (the memory snapshot included) and the page are kept;
  with the context offline and the server gone, a reload gives a live answer, in both languages.
- Node: the cache logic of sw.js — keys carry the content hash, a data export with another hash is never
  served from the cache, activating a new build deletes the old entries.
- Python: the manifest the build writes in front of sw.js, and the gzip copies.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import json
import os
import shutil
import subprocess
import threading

import pytest

from atlas.core import l10n
from conftest import REPO_ROOT, _QuietHandler
from macros.runtime_hooks import precompress, service_worker, sw_manifest

READY_MS = 180_000
SW_SOURCE = REPO_ROOT / "docs" / "assets" / "javascripts" / "sw.js"


# --- Python: manifest and gzip copies ---------------------------------------------------------------------

def test_the_manifest_hashes_each_file_and_a_data_change_changes_only_its_entry():
    old = sw_manifest({"assets/vendor/pyodide/pyodide.asm.wasm": b"wasm", "assets/data/atlas-data.json": b"{}"})
    new = sw_manifest({"assets/vendor/pyodide/pyodide.asm.wasm": b"wasm", "assets/data/atlas-data.json": b"{ }"})
    wasm = "assets/vendor/pyodide/pyodide.asm.wasm"
    assert old["files"][wasm] == new["files"][wasm]  # Pyodide is not fetched again for new data
    assert old["files"]["assets/data/atlas-data.json"] != new["files"]["assets/data/atlas-data.json"]
    assert old["version"] != new["version"]  # so sw.js changes and the browser installs it
    text = service_worker("// source\n", new)
    assert text.startswith("self.ATLAS_SW_MANIFEST = ") and text.endswith("// source\n")
    assert json.loads(text.splitlines()[0].removeprefix("self.ATLAS_SW_MANIFEST = ").rstrip(";")) == new


def test_precompress_writes_deterministic_gzip_copies_only_where_they_help(tmp_path):
    (tmp_path / "big.json").write_text(json.dumps({"x": list(range(2000))}), encoding="utf-8")
    (tmp_path / "small.json").write_text("{}", encoding="utf-8")
    (tmp_path / "random.bin").write_bytes(os.urandom(50_000))  # like a zip: gzip gains nothing
    written = precompress(tmp_path, ["big.json", "small.json", "random.bin", "missing.js"])
    assert set(written) == {"big.json"}
    packed = (tmp_path / "big.json.gz").read_bytes()
    assert gzip.decompress(packed) == (tmp_path / "big.json").read_bytes()
    precompress(tmp_path, ["big.json"])
    assert (tmp_path / "big.json.gz").read_bytes() == packed  # same input, same bytes


# --- Node: the cache logic of sw.js -------------------------------------------------------------------------

NODE_HARNESS = r"""
const fs = require("fs"), vm = require("vm");
const source = fs.readFileSync(process.argv[2], "utf8");
const SCOPE = "https://atlas.test/";
const store = new Map();  // cache name -> Map(url -> body)
const network = [];
function fakeCaches() {
  const open = async (name) => {
    if (!store.has(name)) store.set(name, new Map());
    const m = store.get(name);
    const url = (r) => (typeof r === "string" ? r : r.url);
    return {
      match: async (r) => (m.has(url(r)) ? new Response(m.get(url(r))) : undefined),
      put: async (r, response) => { m.set(url(r), await response.text()); },
      keys: async () => [...m.keys()].map((u) => ({ url: u })),
      delete: async (r) => m.delete(url(r)),
    };
  };
  return { open, keys: async () => [...store.keys()], delete: async (n) => store.delete(n) };
}
function load(manifest) {
  const handlers = {};
  const self = {
    ATLAS_SW_MANIFEST: manifest, location: { href: SCOPE + "sw.js", origin: "https://atlas.test" },
    registration: { scope: SCOPE }, clients: { claim: async () => {} }, skipWaiting: async () => {},
    addEventListener: (type, fn) => { handlers[type] = fn; },
  };
  const fetch = async (r) => { const u = typeof r === "string" ? r : r.url; network.push(u); return new Response("net:" + u); };
  vm.runInNewContext(source, { self, caches: fakeCaches(), fetch, URL, Set, Promise, Response, console });
  return handlers;
}
async function lifecycle(handlers, type) {
  let done; handlers[type]({ waitUntil: (p) => { done = p; } }); await done;
}
async function get(handlers, url) {
  let answer = null;
  handlers.fetch({ request: { url, method: "GET", headers: new Map() }, respondWith: (p) => { answer = p; } });
  return answer ? (await answer).text() : "(not handled: network)";
}
(async () => {
  const pyodide = "assets/vendor/pyodide/pyodide.asm.wasm", data = "assets/data/atlas-data.json";
  const out = {};
  const v1 = load({ version: "one", files: { [pyodide]: "p1", [data]: "d1" } });
  await lifecycle(v1, "install"); await lifecycle(v1, "activate");
  out.keys_v1 = [...store.get("atlas-runtime-v1").keys()].sort();
  store.get("atlas-runtime-v1").set(SCOPE + data + "?v=d1", "old data");
  out.v1_data = await get(v1, SCOPE + data + "?v=d1");
  out.v1_pyodide_without_query = await get(v1, SCOPE + pyodide);
  store.set("atlas-runtime-v0", new Map([["x", "y"]]));
  store.set("other-app", new Map());
  const v2 = load({ version: "two", files: { [pyodide]: "p1", [data]: "d2" } });
  network.length = 0;
  await lifecycle(v2, "install"); await lifecycle(v2, "activate");
  out.install_fetched_v2 = network.slice().sort();
  out.keys_v2 = [...store.get("atlas-runtime-v1").keys()].sort();
  out.caches_v2 = [...store.keys()].sort();
  out.v2_new_data = await get(v2, SCOPE + data + "?v=d2");
  out.v2_old_data = await get(v2, SCOPE + data + "?v=d1");
  out.other_origin = await get(v2, "https://elsewhere.test/x.js");
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
"""


def test_service_worker_cache_keys_carry_the_hash_and_a_new_data_export_replaces_the_old(tmp_path):
    node = shutil.which("node")
    if not node:
        pytest.skip("node is not installed (npm ci needs it)")
    harness = tmp_path / "harness.js"
    harness.write_text(NODE_HARNESS, encoding="utf-8")
    run = subprocess.run([node, str(harness), str(SW_SOURCE)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    scope, pyodide, data = "https://atlas.test/", "assets/vendor/pyodide/pyodide.asm.wasm", "assets/data/atlas-data.json"
    # Install kept every runtime file under its hashed key.
    assert out["keys_v1"] == [scope + data + "?v=d1", scope + pyodide + "?v=p1"]
    assert out["v1_data"] == "old data"  # from the cache
    assert out["v1_pyodide_without_query"] == f"net:{scope}{pyodide}?v=p1"  # Pyodide's URL has no hash: the key adds it
    # The new build: only the changed data export is fetched, the old one is deleted on activate.
    assert out["install_fetched_v2"] == [scope + data + "?v=d2"]
    assert out["keys_v2"] == [scope + data + "?v=d2", scope + pyodide + "?v=p1"]
    assert out["caches_v2"] == ["atlas-runtime-v1", "other-app"]  # old atlas caches go, others' stay
    assert out["v2_new_data"] == f"net:{scope}{data}?v=d2"
    assert out["v2_old_data"] == "(not handled: network)"  # a stale page's data is never served from the cache
    assert out["other_origin"] == "(not handled: network)"


# --- Browser: offline after one visit -----------------------------------------------------------------------

@pytest.fixture
def own_server(built_site):
    """A server of its own, so a test can take the site away (site_server is shared by the whole run)."""
    handler = functools.partial(_QuietHandler, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.mark.browser
@pytest.mark.parametrize("lang", l10n.LANGUAGES)
def test_after_one_visit_the_calculator_answers_offline(browser, own_server, built_site, lang):
    assert (built_site / "sw.js").is_file()
    base = f"http://127.0.0.1:{own_server.server_address[1]}"
    url = f"{base}{'/de' if lang == 'de' else ''}/calculators/vram/"
    context = browser.new_context(service_workers="allow")
    page = context.new_page()
    seen = []
    page.on("request", lambda r: seen.append(r.url))
    page.goto(url)
    page.wait_for_function("() => document.querySelector('[data-calc-status]').dataset.calcStatus === 'ready'",
                           timeout=READY_MS)
    page.wait_for_function("() => document.documentElement.dataset.atlasOffline === 'ready'", timeout=120_000)

    context.set_offline(True)
    own_server.shutdown()  # and the site is really gone
    page.reload()
    page.wait_for_function("() => document.querySelector('[data-calc-status]').dataset.calcStatus === 'ready'",
                           timeout=READY_MS)
    assert page.inner_text("[data-calc-status]") == l10n.t(lang, "calc.status.ready")
    # the memory snapshot came from the service worker's cache too, so the offline start is the fast one
    assert page.evaluate("document.querySelector('[data-atlas-calculator]').atlasCalculator.runtime.info.snapshot")
    before = page.evaluate("document.querySelector('[data-atlas-calculator]').atlasCalculator.renders")
    page.fill("[name=context]", "8192")
    page.wait_for_function(
        """before => { const c = document.querySelector('[data-atlas-calculator]').atlasCalculator;
                       return c.renders > before && !c.inflight && !c.queued; }""",
        arg=before, timeout=60_000)
    shown = page.eval_on_selector("[data-calc-results] [data-result='total_gib']", "e => JSON.parse(e.dataset.value)")
    assert shown > 0
    assert all(u.startswith(base) for u in seen), [u for u in seen if not u.startswith(base)]
    context.close()
