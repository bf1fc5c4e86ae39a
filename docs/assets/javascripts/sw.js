// Service worker: keeps the calculators' runtime for repeat visits and for offline use.
//
// The build (macros/runtime_hooks.py) serves this file at the site root as sw.js, so its scope covers
// the English pages, the German pages under de/ and the module worker in assets/javascripts/, and puts
// one line in front of it:
//   self.ATLAS_SW_MANIFEST = {version, files: {"assets/vendor/pyodide/pyodide.asm.wasm": "<hash>", ...}}
// naming every runtime file (Pyodide, its memory snapshot, the Python bundle, the data export) with a hash
// of its content.
// A new build that changes any of them changes this script, so the browser installs the new worker.
//
// Two caches, both on this origin only (requests to other origins are never touched; the site makes none):
// - RUNTIME: the manifest's files, cache first. The key always carries the content hash
//   (file?v=<hash>): Pyodide's own URLs have none, the bundle and the data export already have it in
//   their address. A request whose ?v= is not the manifest's hash goes to the network and is not kept,
//   so a stale data export is never served; on activate every key that is not in the manifest goes.
// - PAGES: everything else (pages, styles, scripts), network first, the kept copy only when the network
//   fails. pyodide-start.js sends the page's own address and the files it loaded ("keep") once the
//   runtime is ready, so the first visit is enough to work offline.
"use strict";

var RUNTIME = "atlas-runtime-v1";
var PAGES = "atlas-pages-v1";
var PREFIX = "atlas-";

function manifest() {
  return self.ATLAS_SW_MANIFEST || { version: "", files: {} };
}

function scopeURL() {
  return (self.registration && self.registration.scope) || new URL("./", self.location.href).href;
}

// The cache key of a runtime file: its address in the site with ?v=<content hash>, or null when `url`
// is not a runtime file of this build (another file, or a bundle/data address with another hash).
function runtimeKey(url, files, scope) {
  var u = new URL(url);
  var base = new URL(scope);
  if (u.origin !== base.origin || u.pathname.indexOf(base.pathname) !== 0) return null;
  var path = decodeURIComponent(u.pathname.slice(base.pathname.length));
  var hash = files[path];
  if (!hash) return null;
  var given = u.searchParams.get("v");
  if (given !== null && given !== hash) return null;
  return new URL(path + "?v=" + encodeURIComponent(hash), base).href;
}

// Every key the current manifest may keep.
function expectedKeys(files, scope) {
  return Object.keys(files).map(function (path) {
    return new URL(path + "?v=" + encodeURIComponent(files[path]), scope).href;
  });
}

function sameOrigin(url) {
  return new URL(url).origin === self.location.origin;
}

self.addEventListener("install", function (event) {
  // Fetch the runtime now (usually from the HTTP cache of the visit that registered this worker).
  // A file that fails is simply fetched again on its first use.
  // Pyodide's memory snapshot is left out where the reader asked to save data (navigator.connection.saveData,
  // Chromium only): the worker does not use it then (pyodide-worker.mjs, slowLink), so it is not fetched.
  // On a slow link it is fetched here, after the page's first start went without it: that is what lets
  // the next visit start from it.
  var files = manifest().files;
  var scope = scopeURL();
  var saveData = !!(self.navigator && self.navigator.connection && self.navigator.connection.saveData);
  event.waitUntil(
    caches.open(RUNTIME).then(function (cache) {
      return Promise.all(Object.keys(files).filter(function (path) {
        return !(saveData && /(^|\/)atlas-snapshot-[0-9a-f]+\.bin$/.test(path));
      }).map(function (path) {
        var key = new URL(path + "?v=" + encodeURIComponent(files[path]), scope).href;
        return cache.match(key).then(function (hit) {
          if (hit) return null;
          return fetch(key).then(function (response) {
            if (response.ok) return cache.put(key, response);
            return null;
          }).catch(function () { return null; });
        });
      }));
    }).then(function () { return self.skipWaiting(); })
  );
});

self.addEventListener("activate", function (event) {
  var keep = new Set(expectedKeys(manifest().files, scopeURL()));
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.map(function (name) {
        if (name.indexOf(PREFIX) === 0 && name !== RUNTIME && name !== PAGES) return caches.delete(name);
        return null;
      }));
    }).then(function () {
      return caches.open(RUNTIME);
    }).then(function (cache) {
      return cache.keys().then(function (requests) {
        return Promise.all(requests.map(function (request) {
          return keep.has(request.url) ? null : cache.delete(request);
        }));
      });
    }).then(function () { return self.clients.claim(); })
  );
});

function fromRuntime(request, key) {
  return caches.open(RUNTIME).then(function (cache) {
    return cache.match(key).then(function (hit) {
      if (hit) return hit;
      return fetch(request).then(function (response) {
        if (response.ok && response.status === 200) {
          var copy = response.clone();
          cache.put(key, copy).catch(function () {});
        }
        return response;
      });
    });
  });
}

function fromNetworkFirst(request) {
  return fetch(request).then(function (response) {
    if (response.ok && response.status === 200 && response.type === "basic") {
      var copy = response.clone();
      caches.open(PAGES).then(function (cache) { return cache.put(request, copy); }).catch(function () {});
    }
    return response;
  }).catch(function (err) {
    return caches.open(PAGES).then(function (cache) {
      return cache.match(request).then(function (hit) {
        // A shared link to a calculator (?model=…) offline: the page without its query reads the link itself.
        return hit || cache.match(request, { ignoreSearch: true });
      });
    }).then(function (hit) {
      if (hit) return hit;
      throw err;
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET" || !sameOrigin(request.url)) return;
  if (request.headers.has("range") || new URL(request.url).pathname.indexOf("/livereload/") >= 0) return;  // mkdocs serve
  var key = runtimeKey(request.url, manifest().files, scopeURL());
  if (key) event.respondWith(fromRuntime(request, key));
  else if (!runtimeKey(request.url.split("?")[0], manifest().files, scopeURL())) {
    event.respondWith(fromNetworkFirst(request));
  }
  // A runtime file with another hash than this build's: straight to the network, never kept.
});

// {type: "keep", urls: [...]}: keep the page that registered this worker and the files it loaded.
self.addEventListener("message", function (event) {
  var msg = event.data || {};
  if (msg.type !== "keep" || !Array.isArray(msg.urls)) return;
  var files = manifest().files;
  var scope = scopeURL();
  var urls = msg.urls.filter(function (url) {
    try {
      return sameOrigin(url) && !runtimeKey(url.split("?")[0], files, scope) && url.indexOf(scope) === 0;
    } catch (e) {
      return false;
    }
  });
  var source = event.source;
  event.waitUntil(
    caches.open(PAGES).then(function (cache) {
      return Promise.all(urls.map(function (url) {
        return fetch(url).then(function (response) {
          if (response.ok && response.status === 200) return cache.put(url, response);
          return null;
        }).catch(function () { return null; });
      }));
    }).then(function () {
      return caches.open(RUNTIME).then(function (cache) {
        return Promise.all(expectedKeys(files, scope).map(function (key) { return cache.match(key); }));
      });
    }).then(function (hits) {
      var complete = hits.every(Boolean);
      if (source && source.postMessage) source.postMessage({ type: "kept", runtime: complete, version: manifest().version });
    })
  );
});

// For tests run outside a browser (tests/test_offline.py loads this file in Node).
if (typeof module === "object" && module.exports) {
  module.exports = { runtimeKey: runtimeKey, expectedKeys: expectedKeys, RUNTIME: RUNTIME, PAGES: PAGES };
}
