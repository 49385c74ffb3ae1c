"""The sealed track, end to end with a test key: build, publish, submit, grade, verify.

The key below is made for this test run; the real one is a repository secret of the
board's CI and appears nowhere in the repository.
"""

from __future__ import annotations

import copy
import datetime as dt
import gzip
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from sklearn.metrics import roc_auc_score

from icgbench import contract
from icgbench.errors import InvalidInputError, UsageError
from icgbench.generator import simulate, variant_names
from icgbench.generator.streams import SecretSeed
from icgbench.leaderboard.board import add
from icgbench.leaderboard.entry import LeaderboardEntry
from icgbench.leaderboard.page import build_page
from icgbench.leaderboard.store import write_board
from icgbench.leaderboard.verify import verify
from icgbench.models import CohortData, get_model
from icgbench.release import generations, sealed, tiers
from icgbench.release.descriptor import load_descriptor
from icgbench.scorer import check_submission, score
from sealed_helpers import KEY, SMALL, contributed, sealed_release

# Pages here are read for their tables, links and files: built without the board's figures.
pytestmark = pytest.mark.usefixtures("no_board_figures")

VARIANT = "linear_lowhet"


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    """A sealed release root built with the test key (sealed tier only, small cohorts)."""
    return sealed_release(tmp_path_factory.mktemp("sealed-release"), KEY)


@pytest.fixture()
def at_release(release, monkeypatch):
    """Commands find the test's sealed release as the release (ICGBENCH_HOME)."""
    monkeypatch.setenv("ICGBENCH_HOME", str(release))
    return release


@pytest.fixture()
def with_key(monkeypatch):
    monkeypatch.setenv(sealed.KEY_ENV, KEY)


@pytest.fixture()
def without_key(monkeypatch):
    monkeypatch.delenv(sealed.KEY_ENV, raising=False)


@pytest.fixture(scope="module")
def submission(release, tmp_path_factory) -> Path:
    model = get_model("logistic_direct")
    data = CohortData.load(VARIANT, 0, "sealed", release)
    model.fit(data)
    path = tmp_path_factory.mktemp("sealed-sub") / "sub.json"
    path.write_text(json.dumps(contributed(model.submission(data))))
    return path


def _descriptor(release: Path):
    return load_descriptor(release / tiers.SEALED.descriptor_path)


def _published_files(release: Path) -> list[Path]:
    return [p for p in (release / tiers.SEALED.data_dir).rglob("*") if p.is_file()]


def test_the_release_publishes_public_tables_only(release):
    d = _descriptor(release)
    public = {n for n in contract.table_names()
              if contract.table_schema(n)["icgbench:role"] == "public"}
    assert {r.table for r in d.resources} == public
    assert {r.role for r in d.resources} == {"public"}
    described = {"datapackage.json", "croissant.json", "README.md"}  # generated from it
    data_files = [p for p in _published_files(release) if p.name not in described]
    assert sorted(data_files) == sorted(d.base / r.path for r in d.resources)
    commitment = d.document["icgbench:sealed"]["truth_commitment"]
    assert set(commitment) == {f"{v}.s0" for v in variant_names()}
    assert all(set(c) == set(contract.table_names()) - public for c in commitment.values())


def test_no_held_out_subject_has_an_outcome_or_a_state_in_the_release(release):
    d = _descriptor(release)
    for r in d.resources:
        if r.format != "parquet":
            continue
        table = pq.read_table(d.base / r.path)
        assert not {"true_risk", "frailty", "risk"} & set(table.column_names), r.name
        if r.table in ("train_outcomes", "train_states"):
            ids = set(table["subject_id"].to_pylist())
            assert all(i.startswith("TR") for i in ids), r.name


def test_neither_the_key_nor_any_stream_seed_is_published(release):
    key = bytes.fromhex(KEY)
    seed = SecretSeed(key, 0)
    secrets = [KEY.encode(), KEY.upper().encode(), key]
    for purpose in ("event", "frailty", "process_noise", "covariates"):
        entropy = seed.entropy("8fa6e0d6c5e4", "test", purpose, 0)
        secrets += [str(entropy).encode(), f"{entropy:x}".encode()]
    descriptor = (release / tiers.SEALED.descriptor_path).read_bytes()
    for path in [*_published_files(release), release / tiers.SEALED.descriptor_path]:
        data = path.read_bytes()
        readable = gzip.decompress(data) if path.name.endswith(".gz") else data
        for s in secrets:
            assert s not in data and s not in readable, path
    assert b"hmac-sha256:" in descriptor  # the key's public id, nothing more


def test_without_the_key_a_submission_is_checked_completely_but_not_graded(
        release, submission, without_key):
    v = check_submission(submission, root=release)
    assert v.sealed and set(v.blocks) == {"risk_prediction", "cross_host_generalization"}
    with pytest.raises(UsageError, match=r"needs the board's key \(ICGBENCH_SEALED_KEY\)"):
        score(submission, root=release)
    broken = json.loads(submission.read_text())
    broken["risk_prediction"]["subject_id"][0] = "TE999999"
    with pytest.raises(InvalidInputError, match="TE999999"):
        check_submission(broken, root=release)


def test_with_the_key_the_truth_is_regenerated_and_graded(release, submission, with_key):
    report = score(submission, root=release)
    cohort = simulate(VARIANT, SecretSeed(bytes.fromhex(KEY), 0), sizes=SMALL.sizes)
    outcomes = cohort.tables["test_outcomes"].to_pandas()
    doc = json.loads(submission.read_text())
    test = outcomes[outcomes.split == "test"].set_index("subject_id")
    public = sealed.halves(bytes.fromhex(KEY), VARIANT, 0, "test", list(test.index))
    test = test[public]  # the board shows the public half of the held-out subjects
    proba = dict(zip(doc["risk_prediction"]["subject_id"], doc["risk_prediction"]["proba"],
                     strict=True))
    expected = roc_auc_score(test["event"], [proba[i] for i in test.index])
    assert report.summary["auroc"] == pytest.approx(expected, abs=1e-12)
    assert report.document["data_version"] == tiers.SEALED.version
    assert report.document["tier"] == "sealed"


def test_a_wrong_key_is_refused(release, submission, monkeypatch):
    monkeypatch.setenv(sealed.KEY_ENV, sealed.new_key())
    with pytest.raises(InvalidInputError, match="is not the key sealed release"):
        score(submission, root=release)


def test_a_truth_that_differs_from_the_commitment_is_refused(release, submission, with_key,
                                                              tmp_path):
    import shutil

    copy_root = tmp_path / "release"
    shutil.copytree(release, copy_root)
    path = copy_root / tiers.SEALED.descriptor_path
    doc = json.loads(path.read_text())
    commitment = doc["icgbench:sealed"]["truth_commitment"][f"{VARIANT}.s0"]
    commitment["test_outcomes"] = "sha256:" + "0" * 64
    path.write_text(json.dumps(doc))
    with pytest.raises(InvalidInputError, match="truth table test_outcomes"):
        score(submission, root=copy_root)


def test_a_malformed_key_is_a_usage_error_that_does_not_echo_it(monkeypatch):
    monkeypatch.setenv(sealed.KEY_ENV, "not-a-key-but-a-secret")
    with pytest.raises(UsageError) as exc:
        sealed.key_from_env()
    assert "not-a-key-but-a-secret" not in str(exc.value)


def test_the_board_grades_with_the_key_and_checks_without_it(at_release, submission,
                                                             tmp_path, monkeypatch):
    board = tmp_path / "sealed-board"
    monkeypatch.setenv(sealed.KEY_ENV, KEY)
    entry = add(submission, board, tier="sealed")
    assert (entry.tier, entry.data_version) == ("sealed", tiers.SEALED.version)
    assert verify(board, tier="sealed")[1] == []
    doc = json.loads((board / "leaderboard.json").read_text())
    tampered = copy.deepcopy(doc)
    tampered["entries"][0]["scores"]["risk_prediction"]["auroc"] = 0.99
    write_board(board, "sealed", [LeaderboardEntry.from_dict(e) for e in tampered["entries"]])
    problems = verify(board, tier="sealed")[1]
    assert [p.field for p in problems] == ["scores.risk_prediction.auroc"]
    monkeypatch.delenv(sealed.KEY_ENV)
    assert verify(board, tier="sealed")[1] == []  # without the key: checked, not re-graded


@pytest.mark.slow
def test_a_new_key_needs_a_new_sealed_release(release, tmp_path, monkeypatch):
    import shutil

    root = tmp_path / "rotate"
    shutil.copytree(release, root)
    with pytest.raises(UsageError) as refused:
        sealed.freeze_sealed(root, bytes.fromhex(sealed.new_key()), SMALL)
    assert str(refused.value).endswith(
        "a new key is a new sealed release; bump SEALED_GENERATION in "
        "src/icgbench/release/tiers.py and record it in CHANGELOG.md")
    monkeypatch.setattr(tiers, "SEALED_GENERATION", 2)
    with pytest.raises(UsageError, match="retire it first"):
        sealed.freeze_sealed(root, bytes.fromhex(sealed.new_key()), SMALL)
    generations.retire(root, bytes.fromhex(KEY), dt.date(2026, 12, 1), SMALL)
    sealed.freeze_sealed(root, bytes.fromhex(sealed.new_key()), SMALL)
    assert _descriptor(root).version == f"{tiers.DATA_VERSION}+sealed.2"
    old, new = generations.load(root)
    assert (old.retired_on, old.key, new.retired_on, new.key) == ("2026-12-01", KEY, None, None)


def test_the_page_has_a_sealed_section(at_release, submission, tmp_path, monkeypatch):
    monkeypatch.setenv(sealed.KEY_ENV, KEY)
    public = tmp_path / "board"
    public.mkdir()
    write_board(public, "full", [])
    add(submission, public / "sealed", tier="sealed")
    html = build_page(public, None, with_oracle=False).html
    assert 'id="sealed"' in html and "Sealed track" in html
    assert 'href="sealed/submissions/my_logistic_direct/' in html
    assert html.count("<table") == 3  # the empty board's overall ranking, two sealed tasks


def _queue_submission(release: Path, queue: Path, variant: str, model: str) -> Path:
    fitted = get_model(model)
    data = CohortData.load(variant, 0, "sealed", release)
    fitted.fit(data)
    queue.mkdir(parents=True, exist_ok=True)
    path = queue / f"{model}__{variant}.json"
    path.write_text(json.dumps(contributed(fitted.submission(data))))
    return path


@pytest.mark.slow
def test_the_queue_is_checked_in_a_pull_request_and_admitted_after_the_merge(
        at_release, tmp_path, monkeypatch):
    from icgbench.leaderboard.queue import admit, queued

    release = at_release
    board = tmp_path / "sealed"
    queue = board / "queue"
    other = _queue_submission(release, queue, "nonlinear_obs", "correlation")
    calibration = _queue_submission(release, queue, "linear_lowhet", "correlation")
    (queue / "broken.json").write_text("{")
    assert queued(board)[0] == calibration  # the calibration cohort's K* first

    monkeypatch.delenv(sealed.KEY_ENV, raising=False)
    checked = {a.file: a for a in admit(board, dry_run=True)}
    assert checked[other.name].problem is None and checked[other.name].entry is None
    assert "broken.json" in checked and checked["broken.json"].problem

    monkeypatch.setenv(sealed.KEY_ENV, KEY)
    assert admit(board, dry_run=True) == list(checked.values())  # the key changes nothing
    assert not (board / "leaderboard.json").exists()  # a dry run writes nothing

    admitted = {a.file: a for a in admit(board)}
    assert [a.problem for a in admitted.values() if a.file != "broken.json"] == [None, None]
    assert {admitted[f].entry.variant_name for f in (other.name, calibration.name)} == {
        "nonlinear_obs", "linear_lowhet"}
    assert sorted(p.name for p in queue.iterdir()) == ["broken.json"]
    assert verify(board, tier="sealed")[1] == []  # the queue is not part of the board


def _score_cli(submission: Path, release: Path, out: Path, capsys) -> tuple[int, str, str]:
    """``icgbench score`` on the sealed release: (exit code, stdout, stderr)."""
    from icgbench.cli import main

    code = main(["score", str(submission), "--release", str(release), "--out", str(out)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("text", [
    pytest.param(KEY[:-2], id="too-short"),       # 31 bytes
    pytest.param(KEY + "00", id="too-long"),      # 33 bytes, the real key and one more
    pytest.param(KEY + KEY, id="twice-as-long"),  # 64 bytes
    pytest.param(KEY[:-1], id="odd-length"),      # 63 hex digits
    pytest.param(KEY[:-1] + "g", id="not-hex"),   # 64 characters, one not a hex digit
])
def test_score_refuses_a_key_of_the_wrong_length_or_not_hex(release, submission, tmp_path,
                                                           monkeypatch, capsys, text):
    """The key is refused as malformed (exit 2) before it is used, without being echoed: a
    key that is merely longer than 32 bytes is not cut to size, nor one too short padded."""
    monkeypatch.setenv(sealed.KEY_ENV, text)
    out = tmp_path / "report.json"
    code, stdout, err = _score_cli(submission, release, out, capsys)
    assert code == 2, (stdout, err)
    assert "ICGBENCH_SEALED_KEY must be 64 hex digits (a 256-bit key)" in err
    assert "Traceback" not in err
    assert KEY[:16] not in err + stdout and KEY[-16:] not in err + stdout
    assert not out.exists()
    with pytest.raises(UsageError, match="must be 64 hex digits"):
        sealed.parse_key(text)


@pytest.mark.parametrize("text", [KEY.upper(), f"  {KEY}\n"], ids=["upper-case", "padded"])
def test_score_accepts_the_key_in_upper_case_or_with_surrounding_whitespace(
        release, submission, tmp_path, monkeypatch, capsys, text):
    monkeypatch.setenv(sealed.KEY_ENV, text)
    out = tmp_path / "report.json"
    code, _, err = _score_cli(submission, release, out, capsys)
    assert code == 0, err
    assert json.loads(out.read_text())["tier"] == "sealed"
    assert sealed.parse_key(text) == bytes.fromhex(KEY)


def _with_commitment(release: Path, root: Path, change) -> Path:
    """A copy of the sealed release under ``root`` whose truth commitment ``change`` edited."""
    import shutil

    shutil.copytree(release, root)
    path = root / tiers.SEALED.descriptor_path
    doc = json.loads(path.read_text())
    change(doc["icgbench:sealed"]["truth_commitment"])
    path.write_text(json.dumps(doc))
    return root


def test_a_commitment_missing_a_truth_table_is_refused(release, submission, with_key,
                                                       tmp_path, capsys):
    """Every truth table must be committed to: one left out could be swapped unseen."""
    copy_root = _with_commitment(release, tmp_path / "release",
                                 lambda c: c[f"{VARIANT}.s0"].pop("test_outcomes"))
    code, stdout, err = _score_cli(submission, copy_root, tmp_path / "report.json", capsys)
    assert code == 1, (stdout, err)
    assert f"the regenerated {VARIANT} cohort does not match sealed release" in err
    assert "the commitment names" in err and "'test_outcomes'" in err
    assert not (tmp_path / "report.json").exists()
    d = load_descriptor(copy_root / tiers.SEALED.descriptor_path)
    with pytest.raises(InvalidInputError, match="the commitment names"):
        sealed.regenerate(d, VARIANT, 0, bytes.fromhex(KEY))


def test_a_commitment_missing_a_whole_cohort_is_refused(release, submission, with_key,
                                                        tmp_path, capsys):
    copy_root = _with_commitment(release, tmp_path / "release",
                                 lambda c: c.pop(f"{VARIANT}.s0"))
    code, stdout, err = _score_cli(submission, copy_root, tmp_path / "report.json", capsys)
    assert code == 1, (stdout, err)
    assert "the commitment names []" in err
    assert not (tmp_path / "report.json").exists()


def test_a_commitment_with_an_extra_table_is_refused(release, with_key, tmp_path):
    copy_root = _with_commitment(
        release, tmp_path / "release",
        lambda c: c[f"{VARIANT}.s0"].update(subjects="sha256:" + "0" * 64))
    d = load_descriptor(copy_root / tiers.SEALED.descriptor_path)
    with pytest.raises(InvalidInputError, match="truth table subjects"):
        sealed.regenerate(d, VARIANT, 0, bytes.fromhex(KEY))
