"""Hostile mutations of a valid submission, driven by a seeded numpy Generator.

Structural mutations (drop, duplicate, retype, truncate, reorder, out of range, wrong
length) and hostile values (integers and floats beyond or at the edge of a double, lone
surrogates, control characters, huge strings, deep nesting), then byte-level damage
(truncation, junk, NaN/Infinity literals, duplicate keys, a byte-order mark, gzip with
trailing data). The same mutant comes from the same (campaign, index), on every machine.
"""

from __future__ import annotations

import copy
import gzip
import json
from typing import Any

import numpy as np

BLOCKS = ["risk_prediction", "latent_recovery", "intervention_conformity",
          "cross_host_generalization", "structure_recovery"]
HOSTILE = [None, True, False, "x", "", -1, 0, 1, 2, 0.5, 1.0, 1e300, -1e300,
           1.7976931348623157e308, -1.7976931348623157e308, 5e-324, 10**30, 10**400,
           -(10**400), [], {}, "TE000001", "TE000001\n", "\ud800", "\x00\r\n\t=cmd",
           "x" * 5000, [[[[[]]]]], {"a": {"b": {"c": {}}}}]
OPERATIONS = ["drop", "duplicate", "retype", "truncate", "reorder", "out_of_range",
              "wrong_length", "hostile_header"]


def _containers(node: Any) -> list[Any]:
    out = [node] if isinstance(node, dict | list) and node else []
    if isinstance(node, dict):
        for v in node.values():
            out += _containers(v)
    elif isinstance(node, list) and node and isinstance(node[0], dict | list):
        for v in node:
            out += _containers(v)
    return out


def _pick(rng: np.random.Generator, items: list[Any]) -> Any:
    return items[int(rng.integers(len(items)))]


def mutate(base: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """A structurally mutated copy of ``base`` (one to three mutations)."""
    doc = copy.deepcopy(base)
    for block in BLOCKS:  # most mutations need one block: keep documents small
        if block in doc and rng.random() < 0.5:
            del doc[block]
    for _ in range(int(rng.integers(1, 4))):
        op = _pick(rng, OPERATIONS)
        if op == "hostile_header":
            where = _pick(rng, [doc, *([doc["model"]] if isinstance(doc.get("model"), dict)
                                       else [])])
            key = _pick(rng, [*sorted(where), "seed", "k"])
            where[key] = _pick(rng, HOSTILE)
            continue
        places = _containers(doc)
        if not places:
            break
        node = _pick(rng, places)
        if isinstance(node, dict):
            key = _pick(rng, sorted(node))
            if op == "drop":
                del node[key]
            elif op == "duplicate":
                node[key + "_copy"] = node[key]
            else:
                node[key] = _pick(rng, HOSTILE)
            continue
        i = int(rng.integers(len(node)))
        if op == "drop":
            del node[i]
        elif op == "duplicate":
            node.insert(i, node[i])
        elif op == "retype":
            node[i] = _pick(rng, HOSTILE)
        elif op == "truncate":
            del node[i:]
        elif op == "reorder":
            node.reverse()
        elif op == "out_of_range":
            node[i] = _pick(rng, [-0.5, 1.5, -1e9, 1e9, 1e308, -1e308, 10**400])
        else:
            node.append(node[0])
    return doc


def damage(text: bytes, rng: np.random.Generator) -> bytes:
    """Byte-level damage to a serialised document (or the bytes unchanged, sometimes)."""
    kind = int(rng.integers(9))
    if kind == 0:
        return text[: int(rng.integers(1, len(text)))]
    if kind == 1:
        cut = int(rng.integers(len(text)))
        return text[:cut] + bytes(rng.integers(0, 256, int(rng.integers(1, 5))).tolist()) + \
            text[cut:]
    if kind == 2:
        return text.replace(b"0.", b"NaN", 1) if rng.random() < 0.5 else \
            text.replace(b"0.", b"-Infinity", 1)
    if kind == 3:
        return text.replace(b'"tier"', b'"tier": "small", "tier"', 1)
    if kind == 4:
        return b"\xef\xbb\xbf" + text
    if kind == 5:
        return gzip.compress(text, mtime=0) + _pick(rng, [b"\x00", b"junk",
                                                          gzip.compress(b"{}", mtime=0)])
    if kind == 6:
        return gzip.compress(text, mtime=0)[: int(rng.integers(10, 40))]
    if kind == 7:
        return text.replace(b'"seed": 0', b'"seed": ' + b"9" * int(rng.integers(300, 6000)))
    return text


def mutant(base: dict[str, Any], campaign: int, index: int) -> bytes:
    """The submission bytes of mutant ``index`` of ``campaign``."""
    rng = np.random.default_rng([campaign, index])
    doc = mutate(base, rng)
    text = json.dumps(doc).encode()
    return damage(text, rng) if rng.random() < 0.3 else text
