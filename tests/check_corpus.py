"""Submissions for the in-browser checker to agree on with ``icgbench validate``: valid files,
and the mistakes users make, at every stage (reading, the schema, the header, the blocks).

Each case is a file name and its bytes, built from real reference submissions of the small
tier (and one of the full tier); ``write_corpus`` writes them all to a folder.
"""

from __future__ import annotations

import copy
import gzip
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from leaderboard_helpers import submission_doc

Doc = dict[str, Any]


def _base() -> Doc:
    """Every block: mbcnet_v0_1's predictions plus correlation's graph (small tier)."""
    doc = submission_doc("mbcnet_v0_1", "linear_lowhet")
    doc["structure_recovery"] = submission_doc("correlation", "linear_lowhet")[
        "structure_recovery"]
    return doc


def _json(doc: Any) -> bytes:
    return json.dumps(doc).encode()


def _edit(change: Callable[[Doc], Any]) -> Callable[[Doc], bytes]:
    def build(base: Doc) -> bytes:
        doc = copy.deepcopy(base)
        change(doc)
        return _json(doc)
    return build


def _only(*blocks: str) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        for name in ("risk_prediction", "latent_recovery", "intervention_conformity",
                     "cross_host_generalization", "structure_recovery"):
            if name not in blocks:
                doc.pop(name, None)
    return change


def _set(path: str, value: Any) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        *parents, last = path.split(".")
        node = doc
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return change


def _many(*changes: Callable[[Doc], Any]) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        for c in changes:
            c(doc)
    return change


def _probas(doc: Doc, values: dict[int, Any]) -> None:
    for i, v in values.items():
        doc["risk_prediction"]["proba"][i] = v


def _rows(doc: Doc) -> None:
    block = doc["risk_prediction"]
    doc["risk_prediction"] = [{"subject_id": s, "proba": p}
                              for s, p in zip(block["subject_id"], block["proba"], strict=True)]


def _swap_ids(doc: Doc, count: int, to: str) -> None:
    ids = doc["risk_prediction"]["subject_id"]
    for i in range(count):
        ids[i] = to if to != "next" else ids[i + count]


def _text(text: str) -> Callable[[Doc], bytes]:
    return lambda base: text.encode()


def _replace(old: str, new: str) -> Callable[[Doc], bytes]:
    return lambda base: _json(base).replace(old.encode(), new.encode(), 1)


def _gz(data: Callable[[Doc], bytes], extra: bytes = b"", cut: int = 0) -> Callable[[Doc], bytes]:
    def build(base: Doc) -> bytes:
        packed = gzip.compress(data(base), mtime=0) + extra
        return packed[:-cut] if cut else packed
    return build


def _patched(packed: bytes, at: int, value: int = 0xFF) -> bytes:
    """``packed`` with its byte at ``at`` replaced."""
    return packed[:at] + bytes([value]) + packed[at + 1:]


def _bad_crc(packed: bytes, at: int = -8) -> bytes:
    """A gzip member whose CRC-32 (``at`` -8) or size (``at`` -4) does not match its data."""
    return _patched(packed, at % len(packed), packed[at] ^ 0xFF)


def _literal(path: tuple[Any, ...], literal: str) -> Callable[[Doc], bytes]:
    """The document with the number at ``path`` written as ``literal`` (JSON text a
    Python float cannot hold, such as 1e999)."""
    sentinel = 987654.123456789

    def build(base: Doc) -> bytes:
        doc = copy.deepcopy(base)
        node = doc
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = sentinel
        return _json(doc).replace(repr(sentinel).encode(), literal.encode(), 1)
    return build


def _plain(doc: Doc) -> bytes:
    return _json(doc)


CASES: dict[str, Callable[[Doc], bytes]] = {
    # valid
    "valid.json": _plain,
    "valid.json.gz": _gz(_plain),
    "valid_risk_only.json": _edit(_only("risk_prediction")),
    "valid_structure_only.json": _edit(_only("structure_recovery")),
    "valid_shuffled.json": _edit(lambda d: [d["risk_prediction"][k].reverse()
                                            for k in ("subject_id", "proba")]),
    "valid_integral_floats.json": _edit(_many(_set("seed", 0.0),
                                              lambda d: _probas(d, {0: 0, 1: 1, 2: 1.0}))),
    "valid_unicode_model.json": _edit(_set("model.description", "Modèle à l'essai: ✓ 🧪")),
    "valid_pretty.json": lambda base: json.dumps(base, indent=2).encode(),
    # reading
    "parse_truncated.json": lambda base: _json(base)[:500],
    "parse_empty.json": _text(""),
    "parse_duplicate_key.json": _replace('"seed": 0', '"seed": 0, "seed": 0'),
    "parse_nan.json": _replace('"seed": 0', '"seed": NaN'),
    "parse_infinity.json": _replace('"seed": 0', '"seed": -Infinity'),
    "parse_bom.json": lambda base: b"\xef\xbb\xbf" + _json(base),
    "parse_not_utf8.json": lambda base: _json(base).replace(b"mbcnet", b"mbc\xffnet", 1),
    "parse_extra_data.json": lambda base: _json(base) + b" {}",
    "parse_single_quotes.json": _text("{'seed': 0}"),
    "parse_trailing_bytes.json.gz": _gz(_plain, extra=b"garbage"),
    "parse_two_members.json.gz": _gz(_plain, extra=gzip.compress(b"{}", mtime=0)),
    "parse_truncated.json.gz": _gz(_plain, cut=20),
    "parse_bad_crc.json.gz": lambda base: _bad_crc(gzip.compress(_plain(base), mtime=0)),
    "parse_bad_length.json.gz": lambda base: _bad_crc(gzip.compress(_plain(base), mtime=0),
                                                       at=-4),
    "parse_bad_method.json.gz": lambda base: _patched(gzip.compress(_plain(base), mtime=0), 2),
    "parse_bad_block.json.gz": lambda base: _patched(gzip.compress(_plain(base), mtime=0), 10,
                                                     0x07),
    "parse_empty_members.json.gz": _gz(_plain, extra=gzip.compress(b"", mtime=0) * 2),
    "parse_only_empty_member.json.gz": lambda base: gzip.compress(b"", mtime=0),
    "parse_unterminated_string.json": _text('{"seed": 0, "tier": "sma'),
    "size_long_string.json": _edit(_set("model.description", "x" * 70_000)),
    # the schema
    "schema_extra_keys.json": _edit(_many(_set("extra", 1), _set("also", 2))),
    "schema_missing_seed.json": _edit(lambda d: d.pop("seed")),
    "schema_seed_string.json": _edit(_set("seed", "0")),
    "schema_seed_negative.json": _edit(_set("seed", -1)),
    "schema_hidden_characters.json": _edit(_set("model.name", "a\u200bb\u202ec\ufeff\U000e0041")),
    "schema_seed_fraction.json": _edit(_set("seed", 1.5)),
    "schema_proba_above_one.json": _edit(lambda d: _probas(d, {i: 1.5 for i in range(3, 30)})),
    "schema_proba_tiny_negative.json": _edit(lambda d: _probas(d, {0: -1e-07, 9: -2.5e-300})),
    "schema_proba_huge.json": _edit(lambda d: _probas(d, {4: 1e300, 5: 12345678.5})),
    "schema_proba_string.json": _edit(lambda d: _probas(d, {7: "0.5", 8: None, 9: True})),
    "schema_many_wrong_types.json.gz": _gz(lambda base: _edit(
        lambda d: d["risk_prediction"].update(
            proba=[2, True, None, 0.5, 987654.123456789, -1e-9] + ["0.5"] * 200_000))(base)
        .replace(b"987654.123456789", b"1e400")),
    "schema_rows_not_columns.json": _edit(_rows),
    "schema_unboxed_name.json": _edit(_set("model.name", ["mbcnet_v0_1"])),
    "schema_unboxed_tier.json": _edit(_set("tier", ["small"])),
    "schema_unknown_variant.json": _edit(_set("variant", "linear")),
    "schema_bad_hash_pattern.json": _edit(_set("variant_hash", "XYZ")),
    "schema_no_block.json": _edit(_only()),
    "schema_block_extra_key.json": _edit(_set("risk_prediction.logit", [0.1])),
    "schema_block_missing_proba.json": _edit(lambda d: d["risk_prediction"].pop("proba")),
    "schema_integer_ids.json": _edit(lambda d: d["risk_prediction"].__setitem__(
        "subject_id", list(range(len(d["risk_prediction"]["subject_id"]))))),
    "schema_empty_proba.json": _edit(lambda d: d["risk_prediction"].update(
        subject_id=[], proba=[])),
    "schema_empty_states.json": _edit(_set("latent_recovery.states", {})),
    "schema_missing_language.json": _edit(lambda d: d["model"].pop("language")),
    "schema_name_with_space.json": _edit(_set("model.name", "my model")),
    "schema_long_description.json": _edit(_set("model.description", "x" * 2500)),
    "schema_version_const.json": _edit(_set("schema_version", "2.0")),
    "schema_many_errors.json": _edit(lambda d: [d.__setitem__(f"x{i:02d}", i)
                                                for i in range(30)]),
    "schema_oracle_name.json": _edit(_set("model.name", "Oracle")),
    "schema_unknown_state.json": _edit(_set("latent_recovery.states.mood", [0.0])),
    "schema_bad_node.json": _edit(_set("structure_recovery.source.0", "weather")),
    "schema_data_version_pattern.json": _edit(_set("data_version", "5.0")),
    "schema_proba_1e400.json": _literal(("risk_prediction", "proba", 3), "1e400"),
    "schema_proba_minus_1e400.json": _literal(("risk_prediction", "proba", 3), "-1e400"),
    "schema_root_list.json": lambda base: _json(list(range(200))),
    "schema_root_string.json": lambda base: _json("a submission"),
    "schema_quote_in_value.json": _edit(_set("variant", "it's \"linear\"\n")),
    # the header
    "semantic_data_version.json": _edit(_set("data_version", "4.0.0")),
    "semantic_tier_of_seed.json": _edit(_set("seed", 1)),
    "semantic_seed.json": _edit(_set("seed", 7)),
    "semantic_huge_seed.json": _replace('"seed": 0', '"seed": 123456789012345678901'),
    "schema_seed_309_nines.json": _replace('"seed": 0', '"seed": ' + "9" * 309),
    "schema_seed_400_digits.json": _replace('"seed": 0', '"seed": 1' + "0" * 399),
    "semantic_variant_hash.json": _edit(_set("variant_hash", "0123456789ab")),
    "semantic_unfrozen.json": _edit(_set("tier", "unfrozen")),
    "usage_sealed_tier.json": _edit(_set("tier", "sealed")),
    "semantic_lone_surrogate.json": _replace('"language": "Python"', '"language": "Python",'
                                             ' "description": "bad \\ud800 text"'),
    # the blocks
    "semantic_lengths.json": _edit(lambda d: d["risk_prediction"]["proba"].pop()),
    "semantic_duplicate_ids.json": _edit(lambda d: _swap_ids(d, 2, "next")),
    "semantic_many_missing.json": _edit(lambda d: _swap_ids(d, 8, "next")),
    "semantic_unknown_ids.json": _edit(lambda d: _swap_ids(d, 3, "TE999999")),
    "semantic_id_newline.json": _edit(_set("risk_prediction.subject_id.0", "TE000001\n")),
    "semantic_not_finite.json": _literal(("latent_recovery", "states", "ROS", 2), "1e999"),
    "semantic_self_loop.json": _edit(lambda d: d["structure_recovery"].update(
        target=[d["structure_recovery"]["source"][0], *d["structure_recovery"]["target"][1:]])),
    "semantic_repeated_edge.json": _edit(lambda d: [d["structure_recovery"][k].append(
        d["structure_recovery"][k][0]) for k in ("source", "target", "score")]),
    "semantic_incomplete_task.json": _edit(_only("cross_host_generalization")),
}


def cases(base: Doc | None = None) -> Iterator[tuple[str, bytes]]:
    """(file name, bytes) of every case."""
    base = _base() if base is None else base
    for name, build in CASES.items():
        yield name, build(base)


def write_corpus(folder: Path) -> list[Path]:
    """Every case written to ``folder``; the paths, in case order."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, data in cases():
        (folder / name).write_bytes(data)
        out.append(folder / name)
    return out
