"""The Content-Security-Policy the site works under, computed from the built pages.

Everything the site loads comes from its own origin, so the policy is
``'self'`` throughout. Two exceptions are deliberate and narrow:

- ``'wasm-unsafe-eval'`` in ``script-src``: the calculators compile Pyodide's
  WebAssembly (it allows compiling WebAssembly, not JavaScript ``eval``);
- the SHA-256 hashes of the small inline scripts Material for MkDocs writes
  into every page (``__md_scope``/``__md_get``, the saved colour palette, the
  linked content tabs). They differ with the page's depth (the scope is a
  relative URL), so the build hashes what it wrote instead of allowing
  ``'unsafe-inline'``. ``<script type="application/json">`` holds data, not
  code, and needs no hash.

``img-src data:`` is for the icons Material's stylesheet embeds as data URLs.
``frame-ancestors`` works only as an HTTP header (browsers ignore it, with a
console error, in a ``<meta>`` tag), so the meta policy leaves it out.

The build (``macros/csp_hooks.py``) writes the policy into every page as a
``<meta http-equiv>`` tag with that page's hashes, and ``_headers`` (Netlify,
Cloudflare Pages) with the hashes of all pages; ``python -m atlas.data csp SITE``
prints the same header for other servers (nginx, Apache, Caddy).
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

# Executable inline scripts: no src, and a JavaScript type (or none).
_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)
_SRC = re.compile(r"\bsrc\s*=", re.IGNORECASE)
_TYPE = re.compile(r"""\btype\s*=\s*["']?([^"'\s>]+)""", re.IGNORECASE)
_JS_TYPES = {"", "text/javascript", "application/javascript", "module"}
_HEAD = re.compile(r"<head\b[^>]*>\s*(<meta charset=[^>]*>)?", re.IGNORECASE)
_META = re.compile(r'<meta http-equiv="Content-Security-Policy"[^>]*>', re.IGNORECASE)

# Directive -> sources, in the order they are written. Hashes are appended to script-src.
DIRECTIVES: dict[str, tuple[str, ...]] = {
    "default-src": ("'self'",),
    "script-src": ("'self'", "'wasm-unsafe-eval'"),
    "style-src": ("'self'",),
    "img-src": ("'self'", "data:"),
    "font-src": ("'self'",),
    "connect-src": ("'self'",),
    "worker-src": ("'self'",),
    "object-src": ("'none'",),
    "base-uri": ("'self'",),
    "form-action": ("'self'",),
}
HEADER_ONLY: dict[str, tuple[str, ...]] = {"frame-ancestors": ("'none'",)}

# Further headers for hosts that read a _headers file. No referrer: a click on a
# source link does not tell the vendor which page it came from.
EXTRA_HEADERS = (
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
)


def inline_scripts(html: str) -> list[str]:
    """The text of every inline ``<script>`` that a browser would run, in page order."""
    scripts = []
    for attrs, body in _SCRIPT.findall(html):
        if _SRC.search(attrs):
            continue
        match = _TYPE.search(attrs)
        if (match.group(1).lower() if match else "") in _JS_TYPES:
            scripts.append(body)
    return scripts


def script_hash(text: str) -> str:
    """CSP source expression for one inline script: ``'sha256-<base64>'`` of its UTF-8 text."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def script_hashes(html: str) -> list[str]:
    """Sorted, unique hashes of the inline scripts of one page."""
    return sorted({script_hash(s) for s in inline_scripts(html)})


def policy(hashes=(), header: bool = False) -> str:
    """The policy text; ``header=True`` adds the directives only an HTTP header can carry."""
    directives = dict(DIRECTIVES)
    directives["script-src"] = directives["script-src"] + tuple(sorted(set(hashes)))
    if header:
        directives.update(HEADER_ONLY)
    return "; ".join(f"{name} {' '.join(sources)}" for name, sources in directives.items())


def with_meta_policy(html: str) -> str:
    """``html`` with a CSP ``<meta>`` tag for its own inline scripts, first in ``<head>`` (after the charset).

    An existing CSP meta tag is replaced, so running twice gives the same page."""
    html = _META.sub("", html)
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy(script_hashes(html))}">'
    match = _HEAD.search(html)
    if not match:
        return html
    return html[: match.end()] + meta + html[match.end() :]


def site_hashes(site_dir: Path) -> list[str]:
    """Hashes of the inline scripts of every HTML page under ``site_dir``."""
    found = set()
    for path in sorted(Path(site_dir).rglob("*.html")):
        found.update(script_hashes(path.read_text(encoding="utf-8")))
    return sorted(found)


def headers_file(site_dir: Path) -> str:
    """``_headers`` for Netlify and Cloudflare Pages: the policy (all pages' hashes) and the extra headers."""
    lines = ["/*", f"  Content-Security-Policy: {policy(site_hashes(site_dir), header=True)}"]
    lines += [f"  {name}: {value}" for name, value in EXTRA_HEADERS]
    return "\n".join(lines) + "\n"


def nginx_snippet(site_dir: Path) -> str:
    """The same headers as nginx ``add_header`` lines (include it in the ``server`` block)."""
    lines = [f'add_header Content-Security-Policy "{policy(site_hashes(site_dir), header=True)}" always;']
    lines += [f'add_header {name} "{value}" always;' for name, value in EXTRA_HEADERS]
    return "\n".join(lines) + "\n"


def parse_headers_file(text: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """Rules of a ``_headers`` file: [(path pattern, [(name, value)])], in file order."""
    rules: list[tuple[str, list[tuple[str, str]]]] = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            rules.append((line.strip(), []))
        elif rules and ":" in line:
            name, _, value = line.strip().partition(":")
            rules[-1][1].append((name.strip(), value.strip()))
    return rules


def headers_for(path: str, rules) -> list[tuple[str, str]]:
    """Headers that ``rules`` (from ``parse_headers_file``) give the URL path ``path``; ``*`` matches anything."""
    out = []
    for pattern, headers in rules:
        regex = "^" + ".*".join(re.escape(part) for part in pattern.split("*")) + "$"
        if re.match(regex, path):
            out += headers
    return out
