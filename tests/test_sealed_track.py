"""The sealed track is blind to probing, traces every entry to a recorded generation, and is
independent of the open tiers; its commands run from the command line as documented.

The key below is made for this test run (see tests/test_sealed.py).
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from icgbench import contract
from icgbench.cli import main
from icgbench.errors import UsageError
from icgbench.generator import variant_names
from icgbench.leaderboard.queue import ADMISSIONS_PER_PERIOD, admit
from icgbench.leaderboard.store import load_board, write_board
from icgbench.leaderboard.verify import verify
from icgbench.models import CohortData, get_model
from icgbench.release import generations, sealed, tiers
from icgbench.release.descriptor import load_descriptor
from icgbench.release.locate import release_root
from icgbench.scorer import check_submission, grade
from sealed_helpers import KEY, SMALL, contributed, sealed_release

# Pages here are read for their tables, links and files: built without the board's figures.
pytestmark = pytest.mark.usefixtures("no_board_figures")

VARIANT = "linear_lowhet"


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    return sealed_release(tmp_path_factory.mktemp("sealed-track"), KEY)


@pytest.fixture()
def at_release(release, monkeypatch):
    monkeypatch.setenv("ICGBENCH_HOME", str(release))
    monkeypatch.setenv(sealed.KEY_ENV, KEY)
    return release


def _truth(release: Path):
    d = load_descriptor(release / tiers.SEALED.descriptor_path)
    return sealed.sealed_truth(d, VARIANT, 0, bytes.fromhex(KEY))


def _fitted_submission(release: Path, model: str = "logistic_direct") -> dict:
    fitted = get_model(model)
    data = CohortData.load(VARIANT, 0, "sealed", release)
    fitted.fit(data)
    return contributed(fitted.submission(data))


def _probe(template: dict, subject: str, version: str) -> dict:
    """The attack of the issue: proba 1.0 for one held-out subject, 0.5 for the rest."""
    doc = json.loads(json.dumps(template))
    doc["model"] = {**doc["model"], "name": "probe", "version": version}
    for block in ("risk_prediction", "cross_host_generalization"):
        ids = doc[block]["subject_id"]
        doc[block]["proba"] = [1.0 if i == subject else 0.5 for i in ids]
    return doc


# --- the halves -------------------------------------------------------------------------

def test_the_halves_are_disjoint_equal_and_reproducible_from_the_key():
    ids = [f"TE{i:06d}" for i in range(1001)]
    key = bytes.fromhex(KEY)
    public = sealed.halves(key, VARIANT, 0, "test", ids)
    assert public.sum() == 500 and (~public).sum() == 501
    assert np.array_equal(public, sealed.halves(key, VARIANT, 0, "test", ids))
    masks = {h: sealed.half_masks(key, VARIANT, 0, {"test": ids}, h)["test"]
             for h in ("public", "private")}
    assert not (masks["public"] & masks["private"]).any()
    assert (masks["public"] | masks["private"]).all()
    other_key = sealed.halves(bytes.fromhex(sealed.new_key()), VARIANT, 0, "test", ids)
    other_variant = sealed.halves(key, "nonlinear_obs", 0, "test", ids)
    other_split = sealed.halves(key, VARIANT, 0, "target_test", ids)
    for other in (other_key, other_variant, other_split):
        assert 150 < (public & other).sum() < 350  # unrelated draws, not the same split


@pytest.mark.slow
def test_grading_reads_only_the_public_half(at_release):
    """The board's score of a submission does not change when its private-half predictions
    do: nothing computed from the private half is shown."""
    doc = _fitted_submission(at_release)
    truth = _truth(at_release)
    key = bytes.fromhex(KEY)
    private = {s: ~sealed.halves(key, VARIANT, 0, s, truth.ids[s].to_pylist())
               for s in sealed.HALVED_SPLITS}
    scrambled = json.loads(json.dumps(doc))
    rng = np.random.default_rng(np.random.SeedSequence(28))
    for block, split in (("risk_prediction", "test"), ("cross_host_generalization",
                                                         "target_test")):
        order = {i: n for n, i in enumerate(truth.ids[split].to_pylist())}
        for n, i in enumerate(scrambled[block]["subject_id"]):
            if private[split][order[i]]:
                scrambled[block]["proba"][n] = float(rng.uniform())
    public = grade(check_submission(doc)).document
    assert grade(check_submission(scrambled)).document["tasks"] == public["tasks"]
    assert grade(check_submission(scrambled), half="private").document["tasks"] != (
        grade(check_submission(doc), half="private").document["tasks"])


# --- probing ------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_probe_of_a_private_subject_scores_exactly_chance(at_release):
    """Every one-subject probe of a private-half subject gets AUROC 0.5 (a constant on the
    public half), whatever the subject's outcome: the board can reveal none of them."""
    template = _fitted_submission(at_release)
    truth = _truth(at_release)
    ids = truth.ids["test"].to_pylist()
    public = sealed.halves(bytes.fromhex(KEY), VARIANT, 0, "test", ids)
    recovered = {}
    for n, subject in enumerate(ids):
        auroc = grade(check_submission(_probe(template, subject, f"0.0.{n}"))).summary["auroc"]
        if not public[n]:
            assert auroc == 0.5, subject
        elif auroc != 0.5:
            recovered[subject] = auroc > 0.5
    events = dict(zip(ids, truth.event["test"], strict=True))
    assert recovered and all(events[s] == bool(v) for s, v in recovered.items())
    assert not set(recovered) - {i for i, p in zip(ids, public, strict=True) if p}


def _queue(folder: Path, docs: list[dict]) -> list[Path]:
    queue = folder / "queue"
    queue.mkdir(parents=True, exist_ok=True)
    paths = []
    for doc in docs:
        path = queue / f"{doc['model']['name']}-{doc['model']['version']}.json"
        path.write_text(json.dumps(doc))
        paths.append(path)
    return paths


def test_the_pull_request_check_prints_nothing_computed_from_the_truth(at_release, tmp_path,
                                                                       monkeypatch, capsys):
    """The queue's check in a pull request: the same output with the key as without it, for
    probes whose scores differ, and no number in it."""
    template = _fitted_submission(at_release)
    ids = _truth(at_release).ids["test"].to_pylist()
    board = tmp_path / "sealed"
    _queue(board, [_probe(template, s, f"0.1.{n}") for n, s in enumerate(ids[:6])])
    outputs = []
    for key in (KEY, None):
        if key is None:
            monkeypatch.delenv(sealed.KEY_ENV)
        code = main(["leaderboard", "admit", "--dir", str(board), "--dry-run"])
        outputs.append((code, capsys.readouterr().out.replace(str(tmp_path), "<tmp>")))
    assert outputs[0] == outputs[1]
    code, out = outputs[0]
    assert code == 0 and out.count("valid probe-0.1.") == 6
    text = re.sub(r"probe-0\.1\.\d+\.json", "FILE", out).replace("6 of 6", "")
    assert not any(c.isdigit() for c in text), text
    assert not (board / "leaderboard.json").exists()


@pytest.mark.slow
def test_admission_is_rationed_and_the_rest_stays_queued(at_release, tmp_path, capsys):
    """Sixty probe versions of one model name: a week's ration is admitted, the rest waits
    in the queue with the date it may be admitted, and a version's second file for a cohort
    is refused for good."""
    template = _fitted_submission(at_release)
    ids = _truth(at_release).ids["test"].to_pylist()
    board = tmp_path / "sealed"
    _queue(board, [_probe(template, s, f"0.2.{n}") for n, s in enumerate(ids)])
    assert main(["leaderboard", "admit", "--dir", str(board), "--dry-run"]) == 1
    checked = capsys.readouterr().out  # the pull request's check says what would wait
    assert checked.count("STAYS QUEUED") == len(ids) - ADMISSIONS_PER_PERIOD
    code = main(["leaderboard", "admit", "--dir", str(board)])
    out = capsys.readouterr().out
    assert code == 0  # waiting for the ration is not a failure of the admission job
    entries = load_board(board, new_tier=None).entries
    assert len(entries) == ADMISSIONS_PER_PERIOD
    assert out.count("STAYS QUEUED") == len(ids) - ADMISSIONS_PER_PERIOD
    assert f"at most {ADMISSIONS_PER_PERIOD}): it stays queued until" in out
    assert len(list((board / "queue").iterdir())) == len(ids) - ADMISSIONS_PER_PERIOD
    assert verify(board, tier="sealed")[1] == []
    assert main(["leaderboard", "show", "--dir", str(board)]) == 0
    assert "every score is on the public half" in capsys.readouterr().out
    again = _queue(board, [_probe(template, ids[0], entries[0].package_version)])
    results = admit(board, dry_run=True)
    (mine,) = [a for a in results if a.file == again[0].name]
    assert "the board already has probe" in mine.problem and not mine.waiting


def test_the_check_refuses_a_structure_file_whose_calibration_is_not_queued(at_release,
                                                                          tmp_path):
    """What admission would refuse, the pull request's check refuses: a structure file off
    the calibration cohort needs its model version's calibration file queued too."""
    board = tmp_path / "sealed"
    queue = board / "queue"
    queue.mkdir(parents=True)
    for variant in ("nonlinear_obs", VARIANT):
        data = CohortData.load(variant, 0, "sealed", at_release)
        fitted = get_model("correlation")
        fitted.fit(data)
        (queue / f"correlation__{variant}.json").write_text(
            json.dumps(contributed(fitted.submission(data))))
        checked = {a.file: a for a in admit(board, dry_run=True)}
        assert all(a.problem is None for a in checked.values()) == (variant == VARIANT)
    (queue / f"correlation__{VARIANT}.json").unlink()
    (problem,) = [a.problem for a in admit(board, dry_run=True)]
    assert f"K* chosen on the calibration cohort ({VARIANT}, seed 0)" in problem


# --- generations ----------------------------------------------------------------------------

def _board_with_one_entry(release: Path, folder: Path) -> Path:
    path = folder.parent / "sub.json"
    path.write_text(json.dumps(_fitted_submission(release)))
    from icgbench.leaderboard.board import add

    add(path, folder, tier="sealed")
    return folder


def test_an_entry_of_an_unrecorded_generation_fails_verify_by_name(at_release, tmp_path):
    board = _board_with_one_entry(at_release, tmp_path / "board")
    (entry,) = load_board(board, new_tier=None).entries
    for version in (f"{tiers.DATA_VERSION}+sealed.7", "3.0.0"):
        write_board(board, "sealed", [replace(entry, data_version=version)])
        problems = verify(board, tier="sealed")[1]
        assert [p.field for p in problems] == ["data_version"]
        assert f"{version!r} is not a sealed generation this repository records" in str(
            problems[0])


@pytest.mark.slow
def test_a_retired_generation_is_graded_with_its_published_key(release, tmp_path,
                                                               monkeypatch):
    root = tmp_path / "release"
    shutil.copytree(release, root)
    monkeypatch.setenv("ICGBENCH_HOME", str(root))
    monkeypatch.setenv(sealed.KEY_ENV, KEY)
    board = _board_with_one_entry(root, tmp_path / "board")
    assert main(["freeze", "--tier", "sealed", "--retire", "--root", str(root)]) == 0
    (g,) = generations.load(root)
    assert g.key == KEY and g.retired_on is not None
    monkeypatch.delenv(sealed.KEY_ENV)  # anyone can re-grade now, without the secret
    assert verify(board, tier="sealed")[1] == []
    (entry,) = load_board(board, new_tier=None).entries
    scores = {**entry.scores, "risk_prediction": {**entry.scores["risk_prediction"],
                                                  "auroc": 0.999}}
    write_board(board, "sealed", [replace(entry, scores=scores)])
    assert [p.field for p in verify(board, tier="sealed")[1]] == ["scores.risk_prediction.auroc"]
    with pytest.raises(UsageError) as refused:  # a published key seals nothing again
        sealed.freeze_sealed(root, bytes.fromhex(KEY), SMALL)
    assert str(refused.value) == (
        f"sealed release {tiers.SEALED.version} is retired and its key published: a new key "
        "is a new generation (bump SEALED_GENERATION in src/icgbench/release/tiers.py and "
        "record it in CHANGELOG.md)")
    # a new generation replaces datasets/sealed/: the old entry grades on its kept descriptor
    write_board(board, "sealed", [entry])
    monkeypatch.setattr(tiers, "SEALED_GENERATION", 2)
    sealed.freeze_sealed(root, bytes.fromhex(sealed.new_key()), SMALL)
    assert generations.load(root)[1].data_version.endswith("+sealed.2")
    assert verify(board, tier="sealed")[1] == []
    record = generations.record_path(root)
    doc = json.loads(record.read_text())
    doc["generations"][0]["key"] = sealed.new_key()
    record.write_text(json.dumps(doc))
    problems = verify(board, tier="sealed")[1]
    assert [p.field for p in problems] == ["data_version"]
    assert "published key does not have its recorded key id" in str(problems[0])


def test_the_record_of_a_current_generation_publishes_no_key(release):
    (g,) = generations.load(release)
    assert (g.generation, g.data_version, g.key, g.retired_on) == (
        tiers.SEALED_GENERATION, tiers.SEALED.version, None, None)
    assert g.key_id == sealed.key_id(bytes.fromhex(KEY))
    assert KEY not in generations.record_path(release).read_text()


# --- independence ------------------------------------------------------------------------

def test_sealed_truth_is_independent_of_every_open_cohort(release):
    """No truth table of a sealed cohort (graph, flips, outcomes, states, effects) has the
    content of any open-tier cohort's: the structure cannot be copied from the open tier.
    (An empty table, a variant's hidden_confounders where it has none, has no content.)"""
    sealed_doc = load_descriptor(release / tiers.SEALED.descriptor_path).document
    committed = {(cohort, table): digest for cohort, tables in
                 sealed_doc["icgbench:sealed"]["truth_commitment"].items()
                 for table, digest in tables.items()}
    open_digests = {}
    for name in tiers.TIERS:
        d = load_descriptor(release_root() / tiers.TIERS[name].descriptor_path)
        open_digests |= {r.content_digest: (name, r.variant, r.seed, r.table)
                         for r in d.resources if r.role != "public" and r.rows}
    assert open_digests and len(committed) == len(variant_names()) * len(
        [n for n in contract.table_names() if contract.table_schema(n)["icgbench:role"]
         != "public"])
    shared = {k: open_digests[d] for k, d in committed.items() if d in open_digests}
    assert shared == {}
    graphs = {d for (c, t), d in committed.items() if t == "graph"}
    assert len(graphs) == len(variant_names())  # each sealed cohort draws its own graph


# --- the command line ------------------------------------------------------------------------

def test_freeze_check_regenerates_a_sealed_release_and_names_a_tampered_commitment(
        release, tmp_path, monkeypatch, capsys):
    """`freeze --tier sealed --check` on an existing release (the fast half of the test
    below, which freezes one first)."""
    root = tmp_path / "release"
    shutil.copytree(release, root)
    monkeypatch.setattr(tiers, "SEALED", SMALL)
    monkeypatch.setenv(sealed.KEY_ENV, KEY)
    assert main(["freeze", "--tier", "sealed", "--check", "--root", str(root)]) == 0
    assert "matches" in capsys.readouterr().out
    path = root / SMALL.descriptor_path
    doc = json.loads(path.read_text())
    doc["icgbench:sealed"]["truth_commitment"][f"{VARIANT}.s0"]["graph"] = "sha256:" + "0" * 64
    path.write_text(json.dumps(doc))
    assert main(["freeze", "--tier", "sealed", "--check", "--root", str(root)]) == 1
    assert f"{VARIANT} seed 0: the regenerated" in capsys.readouterr().out


@pytest.mark.slow
def test_freeze_sealed_from_the_command_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(tiers, "SEALED", SMALL)  # small cohorts, read where they are used
    root = tmp_path / "release"
    root.mkdir()
    monkeypatch.delenv(sealed.KEY_ENV, raising=False)
    assert main(["freeze", "--tier", "sealed", "--root", str(root)]) == 2
    assert "set ICGBENCH_SEALED_KEY" in capsys.readouterr().err
    monkeypatch.setenv(sealed.KEY_ENV, KEY)
    assert main(["freeze", "--tier", "sealed", "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert f"generation recorded in {generations.record_path(root)}" in out
    assert main(["freeze", "--tier", "sealed", "--check", "--root", str(root)]) == 0
    assert "matches" in capsys.readouterr().out
    path = root / SMALL.descriptor_path
    doc = json.loads(path.read_text())
    doc["icgbench:sealed"]["truth_commitment"][f"{VARIANT}.s0"]["graph"] = (
        "sha256:" + "0" * 64)
    path.write_text(json.dumps(doc))
    assert main(["freeze", "--tier", "sealed", "--check", "--root", str(root)]) == 1
    assert f"{VARIANT} seed 0: the regenerated" in capsys.readouterr().out
    assert main(["freeze", "--tier", "small", "--retire", "--root", str(root)]) == 2
    assert "--retire retires a sealed generation" in capsys.readouterr().err


def test_admit_without_the_key_needs_dry_run(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(sealed.KEY_ENV, raising=False)
    (tmp_path / "file").write_text("x")
    assert main(["leaderboard", "admit", "--dir", str(tmp_path / "file"), "--dry-run"]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert main(["leaderboard", "admit", "--dir", str(tmp_path)]) == 2
    assert "--dry-run checks them without it" in capsys.readouterr().err


def test_the_page_publishes_the_private_half_once_the_generation_is_retired(
        release, tmp_path, monkeypatch):
    from icgbench.leaderboard.board import add
    from icgbench.leaderboard.page import _fmt, build_page

    root = tmp_path / "release"
    shutil.copytree(release, root)
    monkeypatch.setenv("ICGBENCH_HOME", str(root))
    monkeypatch.setenv(sealed.KEY_ENV, KEY)
    public = tmp_path / "board"
    public.mkdir()
    write_board(public, "full", [])
    path = tmp_path / "sub.json"
    doc = _fitted_submission(root)
    path.write_text(json.dumps(doc))
    add(path, public / "sealed", tier="sealed")
    before = build_page(public, None, with_oracle=False).html
    assert 'id="sealed"' in before and 'id="sealed-final"' not in before
    assert main(["freeze", "--tier", "sealed", "--retire", "--root", str(root)]) == 0
    monkeypatch.delenv(sealed.KEY_ENV)
    after = build_page(public, None, with_oracle=False).html
    assert 'id="sealed-final"' in after
    private = grade(check_submission(doc), half="private").summary["auroc"]
    shown = grade(check_submission(doc)).summary["auroc"]
    assert private != shown
    final = after[after.index('id="sealed-final"'):]
    cell = f">{_fmt(private)}<"  # a cell's text, not a digit run inside a sort key
    assert cell in final and cell not in before


def test_a_cohort_is_regenerated_once_for_many_files(at_release, monkeypatch):
    calls = []
    real = sealed.regenerate
    monkeypatch.setattr(sealed, "regenerate", lambda *a: calls.append(a[1:3]) or real(*a))
    monkeypatch.setattr(sealed, "_TRUTHS", {})
    doc = _fitted_submission(at_release)
    for version in ("0.9.1", "0.9.2", "0.9.3"):
        doc["model"]["version"] = version
        grade(check_submission(doc))
    assert calls == [(VARIANT, 0)]


# --- what admission records, and what a pull request may queue ------------------------------

def _structure_probe(template: dict, candidates: list[tuple[str, str]], version: str
                     ) -> dict:
    """The attack of round 4: a structure block that scores only ``candidates`` (k = their
    count), under a version of its own; its recorded F1 would say how many are true."""
    doc = json.loads(json.dumps(template))
    doc["model"] = {**doc["model"], "name": "graph_probe", "version": version}
    doc["structure_recovery"] = {"source": [a for a, _ in candidates],
                                 "target": [b for _, b in candidates],
                                 "score": [1.0] * len(candidates)}
    return doc


def test_structure_probes_recover_no_more_than_chance(at_release, tmp_path, capsys):
    """Admissions of 8 candidate edges each: with what the board records, the attacker's
    decoder (a probe whose F1 is positive holds a true edge) finds nothing; the same probes
    graded on the private half with every number shown would have found the true edges.
    Cohort-level intervention truths are withheld alike."""
    truth = _truth(at_release)
    nodes = list(truth.nodes)
    pairs = [(a, b) for a in nodes for b in nodes if a != b]
    true_edges = set(truth.edges)
    rng = np.random.default_rng(np.random.SeedSequence(38))
    order = [pairs[i] for i in rng.permutation(len(pairs))]
    # each probe: 4 true edges and 4 others, so a shown F1 would decode every probe
    batches = [sorted(true_edges)[4 * i: 4 * i + 4] + [p for p in order
                                                        if p not in true_edges][4 * i: 4 * i + 4]
               for i in range(ADMISSIONS_PER_PERIOD)]
    template = _fitted_submission(at_release, "mbcnet_v0_1")  # interventions too
    board = tmp_path / "sealed"
    docs = [_structure_probe(template, b, f"0.9.{n}") for n, b in enumerate(batches)]
    _queue(board, docs)
    assert main(["leaderboard", "admit", "--dir", str(board)]) == 0
    capsys.readouterr()
    entries = load_board(board, new_tier=None).entries
    assert len(entries) == ADMISSIONS_PER_PERIOD
    for e in entries:
        assert "structure_recovery" not in e.scores, e.scores
        assert "intervention_conformity" not in e.scores, e.label
        assert "normalized_structure" not in e.scores["summary"]
    recovered = {edge for e, b in zip(entries, batches, strict=True)
                 if (e.scores.get("structure_recovery") or {}).get("directed_f1", 0) > 0
                 for edge in b}
    assert recovered == set()
    doc = json.loads(json.dumps(docs[0]))
    report = grade(check_submission(doc), half="public")
    assert {"structure_recovery.*", "intervention_conformity.*"} <= set(
        report.document["withheld"]["metrics"])
    assert "true_delta" not in json.dumps(report.document["tasks"])
    # the attack is real: shown, the private half's numbers decode every probe
    shown = grade(check_submission(doc), half="private").document["tasks"]["structure_recovery"]
    assert shown["metrics"]["directed_f1"] > 0
    assert main(["leaderboard", "show", "--dir", str(board)]) == 0
    assert "directed_f1" not in capsys.readouterr().out


def test_the_final_standings_grade_structure_at_the_calibration_k(release, tmp_path,
                                                                   monkeypatch):
    """Withheld at admission, structure is graded when the key is retired: at the K* its
    model version's calibration file chooses, on every cohort."""
    from icgbench.leaderboard.page import private_half_entries

    root = tmp_path / "release"
    shutil.copytree(release, root)
    monkeypatch.setenv("ICGBENCH_HOME", str(root))
    monkeypatch.setenv(sealed.KEY_ENV, KEY)
    board = tmp_path / "sealed"
    docs = []
    for variant in ("nonlinear_obs", VARIANT):
        data = CohortData.load(variant, 0, "sealed", root)
        fitted = get_model("correlation")
        fitted.fit(data)
        docs.append(contributed(fitted.submission(data)))
    _queue(board, [])
    for doc in docs:
        (board / "queue" / f"{doc['variant']}.json").write_text(json.dumps(doc))
    assert all(a.entry is not None for a in admit(board))
    assert main(["freeze", "--tier", "sealed", "--retire", "--root", str(root)]) == 0
    final = {e.variant_name: e for e in private_half_entries(
        board, load_board(board, new_tier=None).entries)}
    k_star = final[VARIANT].scores["structure_recovery"]["k"]
    assert final["nonlinear_obs"].scores["structure_recovery"]["k"] == k_star


def test_a_retired_generation_is_never_admitted(release, tmp_path, monkeypatch, capsys):
    """After `freeze --retire` the key is public: a file copied from the truth it
    regenerates is refused by the pull request's check and by admission alike."""
    root = tmp_path / "release"
    shutil.copytree(release, root)
    monkeypatch.setenv("ICGBENCH_HOME", str(root))
    monkeypatch.setenv(sealed.KEY_ENV, KEY)
    assert main(["freeze", "--tier", "sealed", "--retire", "--root", str(root)]) == 0
    monkeypatch.delenv(sealed.KEY_ENV)
    truth = _truth(root)  # anyone can, with the published key
    doc = _fitted_submission(root)
    doc["model"]["name"] = "truth_copy"
    doc["risk_prediction"]["proba"] = [float(x) for x in truth.event["test"]]
    board = tmp_path / "sealed"
    _queue(board, [doc])
    capsys.readouterr()
    for argv, key in ((["--dry-run"], None), ([], KEY)):
        if key:
            monkeypatch.setenv(sealed.KEY_ENV, key)
        code = main(["leaderboard", "admit", "--dir", str(board), *argv])
        out = capsys.readouterr().out
        assert code == 1 and "was retired on" in out and "admissions are closed" in out, out
    assert not (board / "leaderboard.json").exists() or not load_board(
        board, new_tier=None).entries


@pytest.mark.parametrize("name,version,why", [
    ("random", None, "the sealed board holds no reference entry"),
    ("ceiling", None, "the sealed board holds no reference entry"),
    ("oracle.", "1", "an icgbench reference model"),
    ("Alpha", "1", "differs from 'alpha'"),
    ("a1pha", "1", "differs from 'alpha'"),
    ("alpha", "1.", "version '1.' of alpha differs from '1'"),
])
def test_the_dry_run_refuses_what_admission_refuses(at_release, tmp_path, capsys, name,
                                                     version, why):
    """One rule for both: a registry name at the package's version (the floor line, an
    impersonation on a board with no reference entry), a truth reader, look-alikes of an
    admitted name or version. A green check means admission takes the file."""
    from icgbench import __version__

    template = _fitted_submission(at_release)
    board = tmp_path / "sealed"
    first = json.loads(json.dumps(template))
    first["model"].update(name="alpha", version="1")
    _queue(board, [first])
    assert main(["leaderboard", "admit", "--dir", str(board)]) == 0
    doc = json.loads(json.dumps(template))
    doc["variant"] = doc["variant"]
    doc["model"].update(name=name, version=version or __version__)
    (path,) = _queue(board, [doc])
    capsys.readouterr()
    verdicts = []
    for argv in (["--dry-run"], []):
        code = main(["leaderboard", "admit", "--dir", str(board), *argv])
        out = capsys.readouterr().out
        verdicts.append((code, why in out))
    assert verdicts == [(1, True), (1, True)], out
    assert path.exists() and len(load_board(board, new_tier=None).entries) == 1


def test_a_pull_request_queues_at_most_a_ration_whatever_the_names(at_release, tmp_path,
                                                                    capsys):
    """Forty probe names in one pull request got forty admissions: the check of a pull
    request counts the queued files it adds or changes, whatever their names."""
    from git_helpers import commit, git
    from icgbench.leaderboard.queue import QUEUED_PER_PULL_REQUEST

    repo = tmp_path / "repo"
    board = repo / "leaderboard" / "sealed"
    board.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    template = _fitted_submission(at_release)
    ids = _truth(at_release).ids["test"].to_pylist()
    old = _queue(board, [_probe(template, ids[0], "0.0.1")])
    base = commit(repo, "a queued file at the base")
    probes = [_probe(template, s, "0.1.0") for s in ids[1:QUEUED_PER_PULL_REQUEST + 2]]
    for n, doc in enumerate(probes):
        doc["model"]["name"] = f"probe{chr(ord('a') + n)}x{n}"
    added = _queue(board, probes)
    assert len(added) == QUEUED_PER_PULL_REQUEST + 1
    code = main(["leaderboard", "admit", "--dir", str(board), "--dry-run", "--base", base])
    err = capsys.readouterr().err
    assert code == 1 and f"adds or changes {len(added)} files" in err, err
    added[-1].unlink()
    old[0].write_text(old[0].read_text() + " ")  # a changed file counts too
    assert main(["leaderboard", "admit", "--dir", str(board), "--dry-run", "--base", base]) == 1
    old[0].write_text(old[0].read_text()[:-1])
    code = main(["leaderboard", "admit", "--dir", str(board), "--dry-run", "--base", base])
    assert code == 0, capsys.readouterr()
    assert main(["leaderboard", "admit", "--dir", str(board), "--base", base]) == 2


def _effect_probe(template: dict, shifts: dict[str, float], name: str, version: str,
                  by_risk: bool = False) -> dict:
    """The attack of round 5: no effect anywhere but ``shifts`` (an intervention's constant
    added to every subject's risk, or with ``by_risk`` the same change scaled by the
    subject's risk, which a centred PEHE would still read the sign of)."""
    doc = json.loads(json.dumps(template))
    doc["model"] = {**doc["model"], "name": name, "version": version}
    block = doc["intervention_conformity"]
    base = np.clip(np.asarray(block["proba"], dtype=float), 0.05, 0.75)
    block["proba"] = base.tolist()
    scale = base / base.mean() if by_risk else 1.0
    block["interventions"] = {n: (base + shifts.get(n, 0.0) * scale).clip(0.0, 1.0).tolist()
                              for n in block["interventions"]}
    return doc


def _pehe_decoder(reports: list[dict], shift: float, names: list[str]) -> dict[str, float]:
    """The average effects that the probes' PEHE, where shown, says: with k interventions,
    pehe_j^2 - pehe_0^2 = (c^2 - 2c ATE_j) / k for the probe adding c to intervention j."""
    k = len(names)
    pehe = [(r.get("intervention_conformity") or {}).get("pehe") for r in reports]
    if any(p is None for p in pehe):
        return {}
    return {n: (shift ** 2 - k * (pehe[j + 1] ** 2 - pehe[0] ** 2)) / (2 * shift)
            for j, n in enumerate(names)}


@pytest.mark.parametrize("by_risk", [False, True], ids=["constant", "scaled-by-risk"])
def test_intervention_probes_recover_no_average_effect(at_release, tmp_path, capsys, by_risk):
    """Round 5's probe: a file with no effect and one per intervention adding 0.2 to it,
    admitted under two names within the ration. What the board records of them is the same
    number for every probe (no intervention number at all), so no decoder reads an average
    effect or its sign; graded on the private half with every number shown, the same files
    decode each average effect (to 5 decimals where the shift is constant) and every sign."""
    template = _fitted_submission(at_release, "mbcnet_v0_1")
    names = sorted(template["intervention_conformity"]["interventions"])
    shift = 0.2
    docs = [_effect_probe(template, shifts, f"effect_probe_{n // 4}", f"0.8.{n % 4}", by_risk)
            for n, shifts in enumerate([{}, *({name: shift} for name in names)])]
    assert len(docs) == 8 and len({d["model"]["name"] for d in docs}) == 2
    board = tmp_path / "sealed"
    _queue(board, docs)
    assert main(["leaderboard", "admit", "--dir", str(board)]) == 0
    capsys.readouterr()
    entries = sorted(load_board(board, new_tier=None).entries,
                     key=lambda e: (e.model_name, e.package_version))
    assert len(entries) == len(docs)
    recorded = [dict(e.scores) for e in entries]
    assert all("intervention_conformity" not in r for r in recorded)
    assert all(r == recorded[0] for r in recorded)  # every probe reads the same
    assert _pehe_decoder(recorded, shift, names) == {}
    assert main(["leaderboard", "show", "--dir", str(board)]) == 0
    shown = capsys.readouterr().out
    assert "pehe" not in shown and "intervention" not in shown.split("every score")[0]
    # the attack is real: the private half's numbers, shown, read every average effect
    private = [grade(check_submission(d), half="private").document["tasks"] for d in docs]
    decoded = _pehe_decoder([{t: r[t]["metrics"] for t in r} for r in private], shift, names)
    true = {n: private[0]["intervention_conformity"]["details"]["interventions"][n]
            ["true_delta"] for n in names}
    assert {n: np.sign(v) for n, v in decoded.items()} == {
        n: np.sign(v) for n, v in true.items()}
    if not by_risk:
        assert max(abs(decoded[n] - true[n]) for n in names) < 1e-5
