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

import ast
import functools
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow.compute as pc
from jsonschema import Draft7Validator
from jsonschema.exceptions import ValidationError

from icgbench.io.arrow import strings, to_numpy
from icgbench.scorer.columns import Columns
from icgbench.scorer.messages import (
    DEFAULT_MAX_ERRORS,
    KEYWORD_ORDER,
    js_number,
    json_string,
    json_text,
    line,
    listed,
    message,
    shown,
)

#: Arrays at least this long are checked vectorised and shortened.
REDUCE_FROM = 16
#: Failing elements kept per array in the shortened document (at least as many as listed).
KEEP_FAILURES = DEFAULT_MAX_ERRORS
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


Failing = tuple[np.ndarray, int]  # (indices of failing elements, errors among them)


def _per_element(bad: np.ndarray, items: dict[str, Any], original: dict[str, Any],
                 checks: dict[str, np.ndarray]) -> Failing:
    """(failing indices, error count): each keyword of the item schema that fails an element
    is one error, as a validator reports it; ``checks`` maps keyword -> its failures."""
    count = sum(int(mask.sum()) for keyword, mask in checks.items() if keyword in original)
    return np.flatnonzero(bad), count


def _failing_numbers(values: list[Any], items: dict[str, Any], original: dict[str, Any],
                     cache: Columns) -> Failing | None:
    """Failing elements of a number array, or None when the fast path cannot decide."""
    is_number = np.fromiter((type(v) in (int, float) for v in values), dtype=bool,
                            count=len(values))
    numbers = [v for v, ok in zip(values, is_number, strict=True) if ok]
    try:
        x = np.full(len(values), 0.0)
        x[is_number] = cache.numbers(numbers) if numbers else []
    except (OverflowError, ValueError):
        return None
    is_int = np.fromiter((type(v) is int for v in values), dtype=bool, count=len(values))
    if np.any(np.abs(x[is_int]) >= 2.0**53):
        return None  # large integers (not large floats): let jsonschema compare them exactly
    checks = {"type": ~is_number}
    if items["type"] == "integer":
        checks["type"] = checks["type"] | (is_number & (~np.isfinite(x) | (np.floor(x) != x)))
    for keyword, fails in (("minimum", lambda lim: x < lim), ("maximum", lambda lim: x > lim),
                           ("exclusiveMinimum", lambda lim: x <= lim),
                           ("exclusiveMaximum", lambda lim: x >= lim)):
        if keyword in items:
            checks[keyword] = is_number & fails(items[keyword])
    bad = np.logical_or.reduce(list(checks.values()))
    return _per_element(bad, items, original, checks)


def _failing_strings(values: list[Any], items: dict[str, Any], original: dict[str, Any],
                     cache: Columns) -> Failing | None:
    is_string = np.fromiter((type(v) is str for v in values), dtype=bool, count=len(values))
    strings_only = [v for v, ok in zip(values, is_string, strict=True) if ok]
    try:
        array = cache.strings(strings_only) if strings_only else None
    except UnicodeEncodeError:  # a lone surrogate: leave the array to jsonschema
        return None
    checks = {"type": ~is_string}

    def spread(mask: np.ndarray) -> np.ndarray:
        out = np.zeros(len(values), dtype=bool)
        out[is_string] = mask
        return out

    if array is not None and ("minLength" in items or "maxLength" in items):
        lengths = to_numpy(pc.utf8_length(array))
        if "minLength" in items:
            checks["minLength"] = spread(lengths < items["minLength"])
        if "maxLength" in items:
            checks["maxLength"] = spread(lengths > items["maxLength"])
    if "enum" in items:
        member = spread(to_numpy(pc.is_in(array, value_set=strings(items["enum"])))
                        if array is not None else np.zeros(0, dtype=bool))
        checks["enum"] = ~member
    pattern = items.get("pattern")
    if pattern is not None and array is not None:
        matched = to_numpy(pc.match_substring_regex(array, pattern)).copy()
        newline = to_numpy(pc.match_substring(array, "\n"))
        for i in np.flatnonzero(newline):  # Python's $ also matches before a final newline
            matched[i] = re.search(pattern, strings_only[i]) is not None
        checks["pattern"] = spread(~matched)
    bad = np.logical_or.reduce(list(checks.values()))
    return _per_element(bad, items, original, checks)


def _reduce_array(values: list[Any], array_schema: dict[str, Any], items: dict[str, Any],
                  root: dict[str, Any], cache: Columns, keep_failures: int
                  ) -> tuple[list[Any], list[int], int] | None:
    """(shortened array, original index of each kept element, errors in the whole array),
    or None to keep it whole. The first ``keep_failures`` failing elements are kept."""
    if len(values) < max(REDUCE_FROM, array_schema.get("minItems", 0)):
        return None
    original = _resolve(array_schema.get("items", {}), root)
    check = _failing_numbers if items["type"] in ("number", "integer") else _failing_strings
    found = check(values, items, original, cache)
    if found is None:
        return None
    failing, count = found
    first = max(1, array_schema.get("minItems", 1))
    keep = sorted(set(range(first)) | set(failing[:keep_failures].tolist()))
    return [values[i] for i in keep], keep, count


@dataclass(frozen=True)
class Shortened:
    """An array the fast path shortened: the original index of each element kept, and how
    many errors the whole array has (its elements left out are not validated again)."""

    kept: list[int]
    errors: int


def reduce_document(doc: Any, schema: dict[str, Any], cache: Columns | None = None,
                    keep_failures: int = KEEP_FAILURES) -> tuple[Any, dict[Path, Shortened]]:
    """A copy of ``doc`` with long simple arrays shortened, and what each shortening kept."""
    maps: dict[Path, Shortened] = {}
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
                reduced = _reduce_array(node, sub, items, schema, cache, keep_failures)
                if reduced is not None:
                    maps[path] = Shortened(reduced[1], reduced[2])
                    return reduced[0]
        return node

    return walk(doc, schema, ()), maps


def _original_path(parts: list[str | int], maps: dict[Path, Shortened]) -> list[str | int]:
    out: list[str | int] = []
    for part in parts:
        shortened = maps.get(tuple(out))
        if isinstance(part, int) and shortened is not None:
            part = shortened.kept[part]
        out.append(part)
    return out


def _document_position(doc: Any, parts: list[str | int]) -> tuple[int, ...]:
    """Where ``parts`` lies in ``doc``, in document order: each key's index among its
    object's keys (as written), each array index."""
    out, node = [], doc
    for part in parts:
        if isinstance(node, dict):
            out.append(list(node).index(part) if part in node else len(node))
            node = node.get(part)
        else:
            out.append(int(part))
            node = node[part] if isinstance(node, list) and int(part) < len(node) else None
    return tuple(out)


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
        return message("unbox", value=shown(value))
    return None


def _required_name(error: ValidationError) -> str:
    """The missing property of a ``required`` error (jsonschema names it in its message)."""
    found = re.match(r"(.*) is a required property$", error.message, re.S)
    return ast.literal_eval(found[1]) if found else str(error.validator_value)


def _text(error: ValidationError) -> str:
    """The error in the checkers' shared words (scorer.messages), values as JSON."""
    if (hint := _serialisation_hint(error)) is not None:
        return hint
    keyword, value, limit = error.validator, error.instance, error.validator_value
    if keyword == "anyOf" and not error.path and isinstance(value, dict):
        return message("one_block", blocks=", ".join(next(iter(s["required"])) for s in limit))
    if keyword == "type":
        types = [limit] if isinstance(limit, str) else list(limit)
        return message("type", value=shown(value), expected=" or ".join(types))
    if keyword == "required":
        return message("required", name=shown(_required_name(error)))
    if keyword == "additionalProperties":
        props = error.schema.get("properties", {})
        names = [shown(k) for k in value if k not in props]
        return message("additionalProperties", names=", ".join(names))
    if keyword == "enum":
        return message("enum", value=shown(value), allowed=json_text(limit))
    if keyword == "const":
        return message("const", value=shown(value), expected=shown(limit))
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return message(keyword, value=shown(value), limit=js_number(limit))
    if keyword in ("minItems", "minProperties", "minLength", "maxLength"):
        return message(keyword, count=len(value), limit=limit)
    if keyword == "pattern":
        return message("pattern", value=shown(value), rule=pattern_words(limit))
    return message("keyword", value=shown(value), keyword=keyword)


def pattern_words(pattern: str) -> str:
    """A schema pattern in words (contract.json_schemas.pattern_words), else the pattern quoted."""
    return _pattern_words().get(pattern, f"text matching the pattern {json_string(pattern)}")


@functools.cache
def _pattern_words() -> dict[str, str]:
    from icgbench.contract.json_schemas import pattern_words

    return pattern_words()


def _rank(keyword: str) -> int:
    return KEYWORD_ORDER.index(keyword) if keyword in KEYWORD_ORDER else len(KEYWORD_ORDER)


def schema_errors(doc: Any, schema: dict[str, Any], max_errors: int = DEFAULT_MAX_ERRORS,
                  fast: bool = True, cache: Columns | None = None) -> tuple[list[str], int]:
    """(the first ``max_errors`` violations as ``POINTER: message`` lines, in document
    order, then a line saying how many more; how many there are in all)."""
    maps: dict[Path, Shortened] = {}
    checked = doc
    if fast:
        checked, maps = reduce_document(doc, schema, cache, max(max_errors, 1))
    found = []
    for e in Draft7Validator(schema).iter_errors(checked):
        parts = _original_path(list(e.absolute_path), maps)
        found.append((_document_position(doc, parts), _rank(e.validator), parts, _text(e)))
    found.sort(key=lambda f: (f[0], f[1]))
    count = len(found)
    for path, shortened in maps.items():  # errors of elements the shortening left out
        kept = sum(1 for f in found if tuple(f[2][:len(path)]) == path and len(f[2]) > len(
            path))
        count += shortened.errors - kept
    return listed([line(f[2], f[3]) for f in found], count, max_errors), count


def is_valid(doc: Any, schema: dict[str, Any], fast: bool = True) -> bool:
    """The verdict alone (what the equivalence test compares)."""
    if fast:
        doc, _ = reduce_document(doc, schema)
    return Draft7Validator(schema).is_valid(doc)
