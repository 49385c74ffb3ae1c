"""Scoring speed at scale: a 1,000,000-subject risk_prediction submission.

Builds a one-table release whose test split has N subjects (default 1,000,000), writes a
full risk_prediction submission, and times in the same run:

- ``icgbench.scorer.score`` end to end (parse, schema, semantic checks, hash-verified truth,
  every metric, a validated report);
- the floor: parsing the file with the JSON parser the scorer uses (the standard library),
  plus one ``roc_auc_score``; the same floor with orjson, the fastest parser we know of;
- ``jsonschema`` validation of the same document alone.

Targets: the whole score within 3x of the floor and at least 15x faster than jsonschema.

Then the schema layer alone on a wide document (every per-subject block of
``--schema-subjects`` subjects, about 23 values each): the scorer's vectorised fast path
(``scorer.schema_check``) against jsonschema-rs (Rust, ``iter_errors``), on the valid
document and on one with an error in every seventh probability, with whether the two find
the same problems at the same paths.

Then memory: ``icgbench validate`` and ``icgbench score`` run as commands on submissions of
each size in ``--memory-sizes`` (default 1,000,000 and 10,000,000 subjects), with their
wall time and peak RSS (sampled with psutil), and each one's growth relative to the
smallest size (1.00 = linear). Target: under 1.5 GB at 1,000,000 subjects, and time and
memory growing no worse than linearly.

    python benchmarks/bench_score.py [--n 1000000] [--repeats 3] [--schema-subjects 35000]
                                     [--memory-sizes 1000000 10000000]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from jsonschema import Draft7Validator
from sklearn.metrics import roc_auc_score

from _memory import mb, measure
from _timing import best_of
from icgbench import contract
from icgbench.generator import get_variant
from icgbench.release import encode
from icgbench.release.descriptor import (
    PARQUET_MEDIATYPE,
    build_document,
    inline_schema,
    relative_path,
    resource_name,
)
from icgbench.release.tiers import DATA_VERSION, Tier
from icgbench.scorer import score

VARIANT, SEED = "linear_lowhet", 0
ROOT = Path(__file__).resolve().parents[1]


def _resource(root: Path, name: str, table: pa.Table) -> dict:
    """Write ``table`` as the bench cohort's ``name`` and return its descriptor resource."""
    schema = contract.table_schema(name)
    table = encode.conform(table, schema, name)
    rel = relative_path(VARIANT, SEED, name, "parquet")
    path = root / "datasets/small" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    encode.write_parquet(table, path)
    digest, size = encode.sha256_file(path)
    splits = sorted(set(table["split"].to_pylist())) if "split" in table.column_names else []
    return {"name": resource_name(VARIANT, SEED, name, "parquet"),
            "path": f"datasets/small/{rel}", "format": "parquet",
            "mediatype": PARQUET_MEDIATYPE, "bytes": size, "hash": digest,
            "schema": inline_schema(name, VARIANT, SEED, "parquet"),
            "icgbench:table": name, "icgbench:role": "truth",
            "icgbench:variant": VARIANT,
            "icgbench:variant_hash": get_variant(VARIANT).variant_hash,
            "icgbench:seed": SEED, "icgbench:splits": splits,
            "icgbench:rows": table.num_rows,
            "icgbench:content_digest": encode.content_digest(table, schema)}


def build_release(root: Path, n: int) -> list[str]:
    """A release of the truth risk_prediction reads, with N test subjects: outcomes and
    reachable risks drawn here, the floors copied from the committed small tier's cohort."""
    rng = np.random.default_rng(0)
    ids = [f"TE{i:06d}" for i in range(1, n + 1)] + ["TG000001", "TG000002"]
    splits = ["test"] * n + ["target_test"] * 2
    risk = rng.random(n + 2)
    outcomes = pa.table({"subject_id": ids, "split": splits,
                         "event": (rng.random(n + 2) < risk).astype(np.int64),
                         "true_risk": np.round(risk, 6)})
    reach_fields = [f["name"] for f in contract.table_schema("reachable_risks")["fields"]]
    reachable = pa.table({"subject_id": ids, "split": splits, **{
        c: np.round(np.clip(risk + rng.normal(0, 0.05, n + 2), 0, 1), 6)
        for c in reach_fields if c.startswith("risk")}})
    floors = pq.read_table(ROOT / "datasets/small" / relative_path(
        VARIANT, SEED, "model_free_scores", "parquet"))
    resources = [_resource(root, name, table) for name, table in (
        ("test_outcomes", outcomes), ("reachable_risks", reachable),
        ("model_free_scores", floors))]
    tier = Tier("small", (SEED,), {"train": 0, "test": n, "target_test": 2}, True, "bench")
    cohorts = [{"variant": VARIANT, "variant_hash": get_variant(VARIANT).variant_hash,
                "seed": SEED, "sizes": tier.sizes}]
    (root / "datapackage.json").write_text(json.dumps(build_document(tier, cohorts, resources)))
    return ids[:n]


def write_submission(root: Path, ids: list[str], n: int) -> Path:
    """A full risk_prediction submission for the bench release at ``root``."""
    proba = np.random.default_rng(1).random(n).round(6).tolist()
    doc = {"schema_version": "1.0", "data_version": DATA_VERSION, "tier": "small",
           "variant": VARIANT, "variant_hash": get_variant(VARIANT).variant_hash,
           "seed": SEED, "model": {"name": "bench", "version": "1", "language": "Python"},
           "risk_prediction": {"subject_id": ids, "proba": proba}}
    sub = root / "submission.json"
    sub.write_text(json.dumps(doc))
    return sub


def schema_layer(n: int, repeats: int) -> None:
    """The fast path against jsonschema-rs on the same wide document, valid and not."""
    import jsonschema_rs

    from icgbench.contract.vocabulary import STATES
    from icgbench.generator.interventions import intervention_names
    from icgbench.scorer.schema_check import schema_errors

    rng = np.random.default_rng(4)
    ids = [f"TE{i:06d}" for i in range(1, n + 1)]

    def column() -> list[float]:
        return rng.random(n).round(6).tolist()

    doc = {"schema_version": "1.0", "data_version": DATA_VERSION, "tier": "small",
           "variant": VARIANT, "variant_hash": get_variant(VARIANT).variant_hash, "seed": SEED,
           "model": {"name": "bench", "version": "1", "language": "Python"},
           "risk_prediction": {"subject_id": ids, "proba": column()},
           "latent_recovery": {"subject_id": ids, "states": {s: column() for s in STATES}},
           "intervention_conformity": {"subject_id": ids, "proba": column(), "interventions": {
               name: column() for name in intervention_names()}}}
    values = n * (4 + len(STATES) + 2 + len(intervention_names()))
    bad = json.loads(json.dumps(doc))
    bad["risk_prediction"]["proba"][::7] = [1.5] * len(bad["risk_prediction"]["proba"][::7])
    schema = contract.json_schema("submission")
    rust = jsonschema_rs.Draft7Validator(schema)
    print(f"\nschema layer alone: {n:,} subjects, {values:,} values; best of {repeats}")
    for label, d in (("valid", doc), ("1 in 7 probabilities > 1", bad)):
        ours = best_of(repeats, lambda d=d: schema_errors(d, schema, 5))
        theirs = best_of(repeats, lambda d=d: list(rust.iter_errors(d)))
        (shown, count), found = schema_errors(d, schema, 5), list(rust.iter_errors(d))
        paths = [line.split(":")[0] for line in shown if line.startswith("/")]
        same = count == len(found) and paths == [
            "/" + "/".join(map(str, e.instance_path)) for e in found[:len(paths)]]
        print(f"  {label:<26} fast path {ours:6.3f} s   jsonschema-rs {theirs:6.3f} s   "
              f"fast path / jsonschema-rs = {ours / theirs:4.1f}x   "
              f"{count} vs {len(found)} problem(s), {'same' if same else 'DIFFERENT'} paths")


MEMORY_TARGET = int(1.5 * 1024**3)


def memory(sizes: list[int]) -> None:
    icgbench = str(Path(sys.executable).with_name("icgbench"))
    print(f"\n{'command':<10}{'subjects':>12}{'file':>10}{'seconds':>9}{'peak RSS':>11}"
          f"{'time x':>8}{'RSS x':>7}")
    first: dict[str, tuple[int, float, int]] = {}
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            sub = write_submission(root, build_release(root, n), n)
            for command in ("validate", "score"):
                extra = ["--out", str(root / "report.json")] if command == "score" else []
                run = measure([icgbench, command, str(sub), "--release", str(root),
                               "--max-bytes", str(4 * sub.stat().st_size), *extra])
                if run.returncode != 0:
                    raise SystemExit(f"{command} failed at n = {n}: {run.stderr[-500:]}")
                n0, t0, m0 = first.setdefault(command, (n, run.seconds,
                                                        run.peak_tree_bytes))
                target = "" if n != 1_000_000 else (
                    "  ok" if run.peak_tree_bytes < MEMORY_TARGET else "  OVER 1.5 GB")
                print(f"{command:<10}{n:>12,}{sub.stat().st_size / 1e6:>8.0f}MB"
                      f"{run.seconds:>9.2f}{mb(run.peak_tree_bytes):>11}"
                      f"{(run.seconds / t0) / (n / n0):>8.2f}"
                      f"{(run.peak_tree_bytes / m0) / (n / n0):>7.2f}{target}")
    print("time x, RSS x: per subject, relative to the smallest size (1.00 = linear, "
          "below 1 = better than linear)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--schema-subjects", type=int, default=35_000)
    parser.add_argument("--memory-sizes", type=int, nargs="*",
                        default=[1_000_000, 10_000_000])
    args = parser.parse_args()
    timing(args)
    schema_layer(args.schema_subjects, args.repeats)
    if args.memory_sizes:
        memory(args.memory_sizes)


def timing(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ids = build_release(root, args.n)
        proba = np.random.default_rng(1).random(args.n).round(6).tolist()
        doc = {"schema_version": "1.0", "data_version": DATA_VERSION, "tier": "small",
               "variant": VARIANT, "variant_hash": get_variant(VARIANT).variant_hash,
               "seed": SEED, "model": {"name": "bench", "version": "1", "language": "Python"},
               "risk_prediction": {"subject_id": ids, "proba": proba}}
        sub = root / "submission.json"
        sub.write_text(json.dumps(doc))
        y = np.random.default_rng(2).random(args.n) < 0.3
        size = sub.stat().st_size

        def floor_json() -> None:
            d = json.loads(sub.read_bytes())
            roc_auc_score(y, np.asarray(d["risk_prediction"]["proba"]))

        def floor_orjson() -> None:
            import orjson

            d = orjson.loads(sub.read_bytes())
            roc_auc_score(y, np.asarray(d["risk_prediction"]["proba"]))

        t_score = best_of(args.repeats, lambda: score(sub, root=root))
        order = np.random.default_rng(3).permutation(args.n)
        shuffled = dict(doc, risk_prediction={"subject_id": [ids[i] for i in order],
                                              "proba": [proba[i] for i in order]})
        sub_shuffled = root / "shuffled.json"
        sub_shuffled.write_text(json.dumps(shuffled))
        t_shuffled = best_of(args.repeats, lambda: score(sub_shuffled, root=root))
        t_floor = best_of(args.repeats, floor_json)
        t_orjson = best_of(args.repeats, floor_orjson)
        validator = Draft7Validator(contract.json_schema("submission"))
        parsed = json.loads(sub.read_bytes())
        t_jsonschema = best_of(1, lambda: validator.validate(parsed))
        report = score(sub, root=root)
    print(f"submission: {args.n:,} subjects, {size / 1e6:.1f} MB; best of {args.repeats}")
    print(f"score() end to end               {t_score:7.2f} s")
    print(f"score(), ids in another order    {t_shuffled:7.2f} s")
    print(f"floor: json.loads + roc_auc      {t_floor:7.2f} s   score/floor = "
          f"{t_score / t_floor:.2f}x (target <= 3x)")
    print(f"floor: orjson.loads + roc_auc    {t_orjson:7.2f} s   score/floor = "
          f"{t_score / t_orjson:.2f}x")
    print(f"jsonschema validation alone      {t_jsonschema:7.2f} s   jsonschema/score = "
          f"{t_jsonschema / t_score:.1f}x (target >= 15x)")
    timings = ", ".join(f"{k.removesuffix('_seconds')} {v:.2f}"
                        for k, v in report.document["timings"].items())
    print(f"score breakdown (s): {timings}")


if __name__ == "__main__":
    main()
