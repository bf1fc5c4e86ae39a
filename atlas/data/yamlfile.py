"""Read a YAML file into plain Python data plus the line of every value.

Contributors edit YAML by hand, so every error must point at a line. PyYAML's
plain loader forgets positions and silently keeps the last of two equal keys;
this module keeps both the data and a map from a value's path to its line,
and reports duplicate keys.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from pathlib import Path

import yaml

Path_ = tuple  # a value's path: ("memory", "bandwidth_gb_s") or ("compute", 2, "tflops")


class YamlSyntaxError(Exception):
    """The file is not valid YAML. ``line`` is 1-based (0 when unknown)."""

    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass
class YamlDocument:
    """Parsed data of one file and the 1-based line of each value by path."""

    data: object
    lines: dict = field(default_factory=dict)
    duplicate_keys: list = field(default_factory=list)  # [(path, line)]

    def line_of(self, path: Path_) -> int:
        """Line of ``path``, or of its nearest parent that has one (1 as last resort)."""
        path = tuple(path)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get((), 1)


def _walk(node, path, doc: YamlDocument, constructor):
    doc.lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        out = {}
        for key_node, value_node in node.value:
            key = constructor.construct_object(key_node, deep=True)
            if key in out:
                doc.duplicate_keys.append((path + (key,), key_node.start_mark.line + 1))
            out[key] = _walk(value_node, path + (key,), doc, constructor)
            doc.lines[path + (key,)] = key_node.start_mark.line + 1
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_walk(item, path + (i,), doc, constructor) for i, item in enumerate(node.value)]
    value = constructor.construct_object(node, deep=True)
    if isinstance(value, (datetime.date, datetime.datetime)):
        # Unquoted dates (accessed: 2026-12-02) stay ISO strings, as the schema expects.
        return value.isoformat()
    return value


# libyaml's C parser where this PyYAML has it (about ten times faster); the pure-Python parser
# reads only a file the C parser refuses, so that syntax errors keep their wording and line.
_FAST_LOADER = getattr(yaml, "CSafeLoader", None)


def parse_yaml(text: str) -> YamlDocument:
    """Parse one YAML document (safe types only) with line numbers."""
    if _FAST_LOADER is not None:
        loader = _FAST_LOADER(text)
        try:
            node = loader.get_single_node()
        except yaml.YAMLError:
            node = None
            loader = None  # parse again below, with the messages of the pure-Python parser
        if loader is not None:
            return _document(node, loader)
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        problem = exc.problem or str(exc)
        if exc.context_mark is not None and exc.problem_mark is not None and exc.context:
            # The cause is usually where the construct opened, not where it was noticed.
            message = f"YAML syntax error {exc.context}: {problem} (at line {exc.problem_mark.line + 1})"
            raise YamlSyntaxError(message, exc.context_mark.line + 1) from None
        mark = exc.problem_mark or exc.context_mark
        raise YamlSyntaxError(f"YAML syntax error: {problem}", (mark.line + 1) if mark else 0) from None
    except yaml.YAMLError as exc:  # pragma: no cover - unmarked errors are rare
        raise YamlSyntaxError(f"YAML error: {exc}", 0) from None
    finally:
        loader.dispose()
    return _document(node, loader)


def _document(node, loader) -> YamlDocument:
    """The data and lines of a composed ``node``; ``loader`` constructs its scalars."""
    doc = YamlDocument(data=None)
    if node is None:
        return doc
    try:
        doc.data = _walk(node, (), doc, loader)
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark
        raise YamlSyntaxError(f"YAML error: {exc.problem}", (mark.line + 1) if mark else 0) from None
    return doc


def read_yaml(path: Path) -> YamlDocument:
    """Read and parse ``path`` as UTF-8 YAML."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise YamlSyntaxError(f"file is not UTF-8 text ({exc.reason})", 0) from None
    return parse_yaml(text)
