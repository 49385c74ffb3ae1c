"""JSON Schema validation that gives ``jsonschema``'s verdict at columnar speed.

Validating a million-row columnar submission with ``jsonschema`` takes seconds because it
checks every array element in Python. Here each long array whose items are a simple scalar
schema (type, bounds, pattern, lengths) is checked vectorised first; the document handed
to ``jsonschema.Draft7Validator`` then keeps, of each such array, only a few valid elements
and every element that failed (up to a cap). The verdict is the same as validating the
whole document, and so are the messages, with array indices mapped back to the original
positions. A hypothesis test compares the two on thousands of generated documents.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from typing import Any

import numpy as np
import pyarrow.compute as pc
from jsonschema import Draft7Validator
from jsonschema.exceptions import ValidationError, relevance

from icgbench.arrow import strings, to_numpy
from icgbench.scorer.columns import Columns
from icgbench.scorer.messages import message

#: Arrays at least this long are checked vectorised and shortened.
REDUCE_FROM = 16
#: Failing elements kept per array in the shortened document.
KEEP_FAILURES = 5
DEFAULT_MAX_ERRORS = 20
_SIMPLE_ITEM_KEYS = {"type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                     "pattern", "minLength", "maxLength", "enum", "description"}
_SIMPLE_ARRAY_KEYS = {"type", "items", "minItems", "description"}
#: Patterns that RE2 (pyarrow) and Python's re read identically on newline-free strings.
_SAFE_PATTERN = re.compile(r"^[\^$()|\[\]\-{},+*?.A-Za-z0-9_ ]*$")

Path = tuple[str | int, ...]


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while isinstance(schema, dict) and "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            return schema
        node: Any = root
        for part in ref[2:].split("/"):
            node = node[part]
        schema = node
    return schema


def _reducible(array_schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any] | None:
    """The simple item schema of a reducible array schema, else None."""
    if set(array_schema) - _SIMPLE_ARRAY_KEYS or array_schema.get("type") != "array":
        return None
    items = _resolve(array_schema.get("items", {}), root)
    if not isinstance(items, dict) or set(items) - _SIMPLE_ITEM_KEYS:
        return None
    if "enum" in items:  # an enum of strings: a string, equal to one of them
        if items.get("type", "string") != "string" or not all(
                type(v) is str for v in items["enum"]):
            return None
        items = {**items, "type": "string"}
    if items.get("type") not in ("number", "integer", "string"):
        return None
    pattern = items.get("pattern")
    if pattern is not None and not _SAFE_PATTERN.match(pattern):
        return None
    return items


def _first_failures(values: list[Any], types: tuple[type, ...]) -> np.ndarray:
    """Indices of the first elements not of ``types`` (as many as a report keeps)."""
    bad = (i for i, v in enumerate(values) if type(v) not in types)
    return np.fromiter(itertools.islice(bad, KEEP_FAILURES), dtype=np.int64)


def _failing_numbers(values: list[Any], items: dict[str, Any], cache: Columns
                     ) -> np.ndarray | None:
    """Indices of failing elements, or None when the fast path cannot decide."""
    types = set(map(type, values))
    if not types <= {int, float}:
        return _first_failures(values, (int, float))
    try:
        x = cache.numbers(values)
    except (OverflowError, ValueError):
        return None
    if int in types and np.any(np.abs(x) >= 2.0**53):
        return None  # large integers: let jsonschema compare them exactly
    bad = np.zeros(len(x), dtype=bool)
    if items["type"] == "integer":
        bad |= ~np.isfinite(x) | (np.floor(x) != x)
    if "minimum" in items:
        bad |= x < items["minimum"]
    if "maximum" in items:
        bad |= x > items["maximum"]
    if "exclusiveMinimum" in items:
        bad |= x <= items["exclusiveMinimum"]
    if "exclusiveMaximum" in items:
        bad |= x >= items["exclusiveMaximum"]
    bad |= np.isnan(x) & (("minimum" in items) | ("maximum" in items))
    return np.flatnonzero(bad)


def _failing_strings(values: list[Any], items: dict[str, Any], cache: Columns
                     ) -> np.ndarray | None:
    if set(map(type, values)) != {str}:
        return _first_failures(values, (str,))
    try:
        array = cache.strings(values)
    except UnicodeEncodeError:  # a lone surrogate: leave the array to jsonschema
        return None
    bad = np.zeros(len(values), dtype=bool)
    if "minLength" in items or "maxLength" in items:
        lengths = to_numpy(pc.utf8_length(array))
        if "minLength" in items:
            bad |= lengths < items["minLength"]
        if "maxLength" in items:
            bad |= lengths > items["maxLength"]
    if "enum" in items:
        bad |= ~to_numpy(pc.is_in(array, value_set=strings(items["enum"])))
    pattern = items.get("pattern")
    if pattern is not None:
        matched = to_numpy(pc.match_substring_regex(array, pattern)).copy()
        newline = to_numpy(pc.match_substring(array, "\n"))
        for i in np.flatnonzero(newline):  # Python's $ also matches before a final newline
            matched[i] = re.search(pattern, values[i]) is not None
        bad |= ~matched
    return np.flatnonzero(bad)


def _reduce_array(values: list[Any], array_schema: dict[str, Any], items: dict[str, Any],
                  cache: Columns) -> tuple[list[Any], list[int]] | None:
    """(shortened array, original index of each kept element), or None to keep it whole."""
    if len(values) < max(REDUCE_FROM, array_schema.get("minItems", 0)):
        return None
    check = _failing_numbers if items["type"] in ("number", "integer") else _failing_strings
    failing = check(values, items, cache)
    if failing is None:
        return None
    keep = sorted(set(range(max(1, array_schema.get("minItems", 1))))
                  | set(failing[:KEEP_FAILURES].tolist()))
    if len(failing) == 0:
        keep = keep[: max(1, array_schema.get("minItems", 1))]
    return [values[i] for i in keep], keep


def reduce_document(doc: Any, schema: dict[str, Any], cache: Columns | None = None
                    ) -> tuple[Any, dict[Path, list[int]]]:
    """A copy of ``doc`` with long simple arrays shortened, and the index maps."""
    maps: dict[Path, list[int]] = {}
    cache = Columns() if cache is None else cache

    def walk(node: Any, sub: Any, path: Path) -> Any:
        sub = _resolve(sub, schema) if isinstance(sub, dict) else sub
        if not isinstance(sub, dict):
            return node
        if isinstance(node, dict) and ("properties" in sub or "additionalProperties" in sub):
            props = sub.get("properties", {})
            extra = sub.get("additionalProperties")
            out = {}
            for key, value in node.items():
                child = props.get(key, extra if isinstance(extra, dict) else None)
                out[key] = walk(value, child, (*path, key)) if child is not None else value
            return out
        if isinstance(node, list):
            items = _reducible(sub, schema)
            if items is not None:
                reduced = _reduce_array(node, sub, items, cache)
                if reduced is not None:
                    maps[path] = reduced[1]
                    return reduced[0]
        return node

    return walk(doc, schema, ()), maps


def json_path(parts: Iterable[str | int]) -> str:
    """``$.a.b[3]`` style path (keys that are not identifiers are bracket-quoted)."""
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            out += f".{part}"
        else:
            out += f"[{part!r}]"
    return out


def _original_path(parts: list[str | int], maps: dict[Path, list[int]]) -> list[str | int]:
    out: list[str | int] = []
    for part in parts:
        mapping = maps.get(tuple(out))
        if isinstance(part, int) and mapping is not None:
            part = mapping[part]
        out.append(part)
    return out


#: Longest message shown for one error; longer ones (a huge value quoted back) are elided.
MAX_MESSAGE = 300


def shorten(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text``, or its start and end around a note of how much was left out."""
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 2 // 3], text[-(limit // 4):]
    return f"{head} ... [{len(text) - len(head) - len(tail)} characters omitted] ... {tail}"


def _serialisation_hint(error: ValidationError) -> str | None:
    """The two common serialisation mistakes, named instead of quoting the value back."""
    value, expected = error.instance, error.validator_value
    if not isinstance(value, list) or not value:
        return None
    if error.validator == "type" and expected == "object" and isinstance(value[0], dict):
        return message("columnar", count=len(value))
    scalar = (error.validator in ("enum", "const") or (
        error.validator == "type" and expected in ("string", "integer", "number", "boolean")))
    if scalar and len(value) == 1:
        return message("unbox", value=shorten(repr(value), 80))
    return None


def _message(error: ValidationError) -> str:
    if (hint := _serialisation_hint(error)) is not None:
        return hint
    if error.validator == "anyOf" and not error.path and isinstance(error.instance, dict):
        blocks = [next(iter(s["required"])) for s in error.validator_value]
        return message("one_block", blocks=", ".join(blocks))
    if error.validator == "additionalProperties":
        return shorten(error.message.replace("Additional properties are not allowed",
                                             message("unknown_keys")))
    return shorten(error.message)


def schema_errors(doc: Any, schema: dict[str, Any], max_errors: int = DEFAULT_MAX_ERRORS,
                  fast: bool = True, cache: Columns | None = None) -> list[str]:
    """``$.path: message`` for every violation (most relevant first, at most ``max_errors``)."""
    maps: dict[Path, list[int]] = {}
    if fast:
        doc, maps = reduce_document(doc, schema, cache)
    validator = Draft7Validator(schema)
    errors = sorted(validator.iter_errors(doc), key=relevance, reverse=True)
    lines = [f"{json_path(_original_path(list(e.absolute_path), maps))}: {_message(e)}"
             for e in errors]
    if len(lines) > max_errors:
        lines = [*lines[:max_errors], message("more_errors", count=len(lines) - max_errors)]
    return lines


def is_valid(doc: Any, schema: dict[str, Any], fast: bool = True) -> bool:
    """The verdict alone (what the equivalence test compares)."""
    if fast:
        doc, _ = reduce_document(doc, schema)
    return Draft7Validator(schema).is_valid(doc)
