"""Behaviours a planted bug once slipped past (issue 42, "Tests that catch").

The issue planted nine realistic single-point bugs, one at a time, and reported that the
fast suite let each one through. Each test here fails with such a bug planted by hand and
passes on the real code, driven where one exists through the entry point a user or the CI
uses (the ``icgbench`` command, the ``tools/ci`` scripts on a real git repository). Two of
the nine turned out pinned already (a planted bug fails the test named below), so they have
no test here:

1. a release path with ``..`` in its middle (``a/../../b``) is unsafe, not only a leading one;
2. (pinned already) a model-free answer that copies other cohorts' truth never copies the
   graded cohort's: test_model_free.py::test_the_copied_truth_is_never_the_graded_cohorts;
3. the boosted reference's cross-fitting folds are seeded: two fits, the same predictions;
4. the AUROC counts a tied (case, control) pair as one half, exactly: the scorer's and the
   generator's expected AUROC of a reference population;
5. (pinned already) each documented look-alike sequence, ``cl`` as ``d`` too, is kept by
   ``leaderboard add``: test_board_hostile.py::
   test_each_confusable_pair_of_the_documented_rule_is_refused[cl d];
6. ``leaderboard verify`` compares an entry's ``release_fingerprint`` with its release's;
7. ``leaderboard verify --base`` without the sealed key refuses a sealed board that gained
   an entry (only the CI's admission adds one, after the merge);
8. ``tools/ci/approval`` does not count a ``triage`` collaborator as a maintainer;
9. ``tools/ci/admit-sealed`` fails, and commits and pushes nothing, when ``leaderboard
   admit`` fails.

The checks of the two CI scripts (8, 9) take the script's path: test_ci_trust_boundary.py
runs them against its planted bugs in the scripts too. This module imports nothing from
icgbench at the top, so that importing those checks there loads no package code.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from git_helpers import commit, git

ROOT = Path(__file__).resolve().parents[1]
CI = ROOT / "tools" / "ci"
VARIANT = "linear_lowhet"


def _cli(capsys, *argv: object) -> tuple[int, str]:
    """``icgbench ARGV`` in this process: (exit code, stdout and stderr), no traceback."""
    from icgbench.cli import main

    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "Traceback" not in text
    return code, text


# --- 1. a release path that climbs out in its middle ---------------------------------------

def test_a_release_path_with_dot_dot_in_its_middle_is_refused(tmp_path, capsys):
    """A copy of the small tier whose descriptor names one file
    ``datasets/../../outside/graph.parquet``, a path out of the release folder to a genuine
    copy of the file: ``data verify`` refuses the path instead of reading (and accepting)
    the file there. The copy verifies before the edit, so the path is all it refuses."""
    release = tmp_path / "release"
    shutil.copytree(ROOT / "datasets" / "small", release / "datasets" / "small")
    path = release / "datapackage.json"
    path.write_bytes((ROOT / "datapackage.json").read_bytes())
    code, out = _cli(capsys, "data", "verify", "--descriptor", path)
    assert code == 0 and out.startswith("OK: "), out
    descriptor = json.loads(path.read_text())
    (resource,) = [r for r in descriptor["resources"]
                   if r["path"].endswith(f"/{VARIANT}/seed0/graph.parquet")]
    outside = tmp_path / "outside" / "graph.parquet"
    outside.parent.mkdir()
    (release / resource["path"]).rename(outside)
    resource["path"] = escape = "datasets/../../outside/graph.parquet"
    assert (release / escape).resolve() == outside.resolve()
    path.write_text(json.dumps(descriptor, indent=2))
    code, out = _cli(capsys, "data", "verify", "--descriptor", path)
    assert code == 1, out
    assert f"unsafe path {escape!r}" in out and "FAILED (1 problem(s))" in out, out


# --- 3. the boosted reference's folds ------------------------------------------------------

@pytest.mark.slow
def test_the_boosted_reference_fits_a_cohort_twice_to_the_same_predictions(monkeypatch):
    """mbcnet_boosted's stage 1 predicts its train subjects out of fold (stage 2 learns
    from those predictions): the folds are drawn from the model's seed, so two fits on the
    same cohort agree to the bit, and another seed draws other folds. Kept fast: 240 train
    subjects of the small cohort, one state, 5 boosting iterations (the folds do not
    depend on any of these)."""
    import numpy as np

    from icgbench.contract.vocabulary import STATES
    from icgbench.models import CohortData, get_model
    from icgbench.models import mbcnet_boosted as boosted
    from icgbench.models.features import feature_frame
    from icgbench.models.seeding import model_seed

    monkeypatch.setattr(boosted, "ITERATIONS", 5)
    data = CohortData.load(VARIANT)
    ids = data.train_outcomes.subject_id.tolist()[:240]
    x = feature_frame(data).loc[ids]
    states = data.end_states().loc[ids, list(STATES[:1])].to_numpy(dtype=np.float64)
    z = (states - states.mean(axis=0)) / states.std(axis=0)
    seed = model_seed("stage1", data.variant, data.seed)

    def fitted(seed: int) -> np.ndarray:
        return get_model("mbcnet_boosted").make_stage1().fit(x, z, seed)

    first = fitted(seed)
    np.testing.assert_array_equal(fitted(seed), first)
    assert not np.array_equal(fitted(seed + 1), first)  # the folds matter to the predictions


# --- 4. a tied pair counts one half --------------------------------------------------------

def _auroc_by_pairs(events: list[int], proba: list[float]) -> Fraction:
    """The AUROC by its definition: the share of (case, control) pairs the case wins, a tie
    counting one half."""
    cases = [p for e, p in zip(events, proba, strict=True) if e == 1]
    controls = [p for e, p in zip(events, proba, strict=True) if e == 0]
    won = sum(Fraction(int(c > d) * 2 + int(c == d), 2) for c in cases for d in controls)
    return won / (len(cases) * len(controls))


def test_a_tied_pair_counts_one_half_in_the_auroc(tmp_path, capsys):
    """By hand: cases at 0.8 and 0.5, controls at 0.5 and 0.2; three pairs won, one tied:
    7/8 (a tie counted as a win gives 1, as a loss 3/4). Then through ``icgbench score``:
    a submission with three levels of risk on the small cohort scores the exact share its
    pairs give."""
    import numpy as np

    from icgbench.api.tables import load_arrow
    from icgbench.api.template import build_template
    from icgbench.tasks.metrics import auroc

    assert auroc(np.array([1, 1, 0, 0]), np.array([0.8, 0.5, 0.5, 0.2])) == pytest.approx(
        7 / 8, abs=1e-15)
    doc = build_template(VARIANT)
    ids = doc["risk_prediction"]["subject_id"]
    doc["risk_prediction"]["proba"] = [(0.2, 0.5, 0.8)[n % 3] for n in range(len(ids))]
    path = tmp_path / "tied.json"
    path.write_text(json.dumps(doc))
    code, out = _cli(capsys, "score", path, "--json", "--out", tmp_path / "report.json")
    assert code == 0, out
    graded = json.loads(out)["tasks"]["risk_prediction"]["metrics"]["auroc"]
    events = {r["subject_id"]: r["event"] for r in load_arrow(VARIANT, "test_outcomes",
                                                                role="truth").to_pylist()}
    expected = _auroc_by_pairs([events[i] for i in ids], doc["risk_prediction"]["proba"])
    assert expected not in (Fraction(1, 2), Fraction(1))
    assert graded == pytest.approx(float(expected), abs=1e-12)


def test_a_tied_pair_counts_one_half_in_the_expected_auroc_of_a_population():
    """The generator's reference AUROC (the one its calibrations solve for) weighs each
    (case, control) pair by p_i (1 - p_j), a tie counting one half. By hand, risks 0.2, 0.5,
    0.5: pairs won 0.4 + 0.4, tied 0.25 + 0.25, of 1.5 in all: 7/10 (a tie counted as a win
    gives 13/15, as a loss 8/15); and a larger set of tied risks equals the definition's sum
    in exact arithmetic."""
    from icgbench.generator.reference import expected_auroc

    assert expected_auroc([0.2, 0.5, 0.5]) == pytest.approx(7 / 10, abs=1e-15)
    risks = [(0.1, 0.3, 0.3, 0.6, 0.9)[n % 5] for n in range(23)]
    exact = [Fraction(str(r)) for r in risks]
    pairs = [(a * (1 - b), Fraction(int(a > b) * 2 + int(a == b), 2))
             for i, a in enumerate(exact) for j, b in enumerate(exact) if i != j]
    expected = sum(w * won for w, won in pairs) / sum(w for w, _ in pairs)
    assert expected_auroc(risks) == pytest.approx(float(expected), abs=1e-12)


# --- 6. the release fingerprint of an entry ------------------------------------------------

@pytest.fixture(scope="module")
def board(tmp_path_factory) -> Path:
    from leaderboard_helpers import two_entry_board

    return two_entry_board(tmp_path_factory)


def test_verify_compares_an_entrys_release_fingerprint(tmp_path, board, capsys):
    """An entry whose ``release_fingerprint`` is edited (its CSV row too, so nothing else
    differs) no longer matches the release its submission is graded against."""
    from icgbench.leaderboard.entry import LeaderboardEntry
    from icgbench.leaderboard.store import CSV_NAME, JSON_NAME, csv_text
    from leaderboard_helpers import small_board_copy

    copy = small_board_copy(board, tmp_path)
    doc = json.loads((copy / JSON_NAME).read_text())
    genuine = doc["entries"][0]["release_fingerprint"]
    edited = "sha256:" + "0" * 64
    assert genuine.startswith("sha256:") and genuine != edited
    doc["entries"][0]["release_fingerprint"] = edited
    (copy / JSON_NAME).write_text(json.dumps(doc, indent=1))
    entries = [LeaderboardEntry.from_dict(e) for e in doc["entries"]]
    (copy / CSV_NAME).write_text(csv_text(entries))
    code, out = _cli(capsys, "leaderboard", "verify", "--dir", copy, "--tier", "small")
    assert code == 1, out
    assert (f"MISMATCH {entries[0].label}: release_fingerprint recorded '{edited}', "
            f"recomputed '{genuine}'") in out, out
    assert out.count("MISMATCH") == 1, out


# --- 7. a sealed board may not gain entries in a pull request ------------------------------

SEALED_KEY = "5e" * 32


@pytest.fixture(scope="module")
def sealed_root(tmp_path_factory) -> Path:
    from sealed_helpers import sealed_release

    return sealed_release(tmp_path_factory.mktemp("sealed-release"), SEALED_KEY)


@pytest.mark.slow
def test_verify_base_without_the_key_refuses_a_sealed_board_that_gained_an_entry(
        sealed_root, tmp_path, monkeypatch, capsys):
    """A pull request that writes a sealed entry itself (the CI's admission adds them, after
    the merge): its check, ``verify --base`` without the key, cannot grade the entry and
    refuses it; on main, with the key, the same board verifies."""
    from icgbench.api.template import build_template
    from icgbench.leaderboard.board import add
    from icgbench.leaderboard.store import write_board
    from icgbench.release import sealed
    from sealed_helpers import contributed

    monkeypatch.setenv("ICGBENCH_HOME", str(sealed_root))
    monkeypatch.delenv("ICGBENCH_RELEASE", raising=False)
    monkeypatch.setenv(sealed.KEY_ENV, SEALED_KEY)
    repo = tmp_path / "repo"
    board = repo / "leaderboard" / "sealed"
    board.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    write_board(board, "sealed", [])
    base = commit(repo, "an empty sealed board")
    submission = tmp_path / "mine.json"
    submission.write_text(json.dumps(contributed(build_template(VARIANT, 0, "sealed",
                                                                sealed_root))))
    add(submission, board, tier="sealed")
    commit(repo, "a sealed entry written by a pull request")
    argv = ("leaderboard", "verify", "--dir", board, "--tier", "sealed", "--base", base)
    code, out = _cli(capsys, *argv)
    assert code == 0, out  # with the key (main's check after admission): it verifies
    monkeypatch.delenv(sealed.KEY_ENV)
    code, out = _cli(capsys, *argv)
    assert code == 1, out
    assert (f"MISMATCH entry 0 (my_template 0 on {VARIANT} seed 0): history recorded 'no "
            f"entry added since {base}', recomputed \"added: a sealed entry is added by the "
            "CI's admission after the merge, never by a pull request") in out, out
    assert out.count("MISMATCH") == 1, out


# --- 8 and 9: the CI scripts, checks that test_ci_trust_boundary.py runs on its mutants ----

HEAD_SHA = "c" * 40


def approval_counts_no_triage_collaborator(script: Path, where: Path) -> None:
    """``tools/ci/approval`` (at ``script``) against a stand-in ``gh`` in ``where``: a
    triage collaborator's approval of the head commit approves nothing (GitHub answers
    ``permission: read``, ``role_name: triage`` for one); a writer's does."""
    answers, bin_dir = where / "answers", where / "bin"
    answers.mkdir(parents=True)
    bin_dir.mkdir()
    (bin_dir / "gh").write_text('#!/usr/bin/env bash\nf="$ANSWERS/${3//\\//_}"\n'
                                '[ -f "$f" ] || { echo "HTTP 404: Not Found" >&2; exit 1; }\n'
                                'cat "$f"\n')
    (bin_dir / "gh").chmod(0o755)

    def answer(path: str, doc) -> None:
        (answers / path.replace("/", "_")).write_text(json.dumps(doc))

    def review(login: str) -> dict:
        return {"user": {"login": login}, "state": "APPROVED", "commit_id": HEAD_SHA}

    for login, permission, role in (("triager", "read", "triage"),
                                    ("writer", "write", "write")):
        answer(f"repos/o/r/collaborators/{login}/permission",
               {"permission": permission, "role_name": role, "user": {"login": login}})
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "ANSWERS": str(answers)}
    for reviewers, approved in ((["triager"], False), (["triager", "writer"], True)):
        answer("repos/o/r/pulls/7/reviews", [review(r) for r in reviewers])
        done = subprocess.run([sys.executable, str(script), "o/r", "7", HEAD_SHA],
                              capture_output=True, text=True, check=False, env=env,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout == ("--maintainer-approved\n" if approved else ""), (reviewers,
                                                                              done.stderr)


def test_approval_does_not_count_a_triage_collaborator(tmp_path):
    approval_counts_no_triage_collaborator(CI / "approval", tmp_path)


#: The repository's own ``icgbench`` in admit-sealed's checks: records its arguments, fails
#: (writing nothing) when they match ICG_FAIL, else admits the queue (removes it, writes the
#: board).
ADMIT_STUB = """#!/usr/bin/env bash
printf '%s\\n' "$*" >>"$ICG_LOG"
case "$*" in ${ICG_FAIL:-@never@}) exit 1 ;; esac
rm -r "$4/queue"
printf '{"entries": ["admitted"]}\\n' >"$4/leaderboard.json"
"""


def admit_sealed_fails_when_admission_fails(script: Path, where: Path) -> None:
    """``tools/ci/admit-sealed`` (at ``script``) on a repository in ``where`` with a queued
    file: when ``leaderboard admit`` fails, the script fails with its status and commits
    and pushes nothing; when it succeeds, the admission is committed and pushed."""
    origin, repo = where / "origin.git", where / "repo"
    repo.mkdir(parents=True)
    git(where, "init", "-q", "--bare", "-b", "main", str(origin))
    git(repo, "init", "-q", "-b", "main")
    board = repo / "leaderboard" / "sealed"
    (board / "queue").mkdir(parents=True)
    (board / "queue" / "mine.json").write_text("{}\n")
    (board / "leaderboard.json").write_text('{"entries": []}\n')
    stub = repo / ".venv" / "bin" / "icgbench"
    stub.parent.mkdir(parents=True)
    stub.write_text(ADMIT_STUB)
    stub.chmod(0o755)
    python = stub.with_name("python")  # the real one: the script's git runs through it
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    (repo / ".gitignore").write_text(".venv\n")
    before = commit(repo, "a queued sealed submission")
    git(repo, "remote", "add", "origin", str(origin))
    git(repo, "push", "-q", "-u", "origin", "main")
    log = where / "calls.log"

    def admit(**env: str) -> subprocess.CompletedProcess:
        log.write_text("")
        environ = {k: v for k, v in os.environ.items() if k != "ICG_FAIL"}
        return subprocess.run([str(script), str(repo)], capture_output=True, text=True,
                              check=False, timeout=60, env={
                                  **environ, "ICG_LOG": str(log),
                                  "ICGBENCH_SEALED_KEY": "ab" * 32, **env})

    def pushed() -> str:
        return git(where, "--git-dir", str(origin), "rev-parse", "main")

    failed = admit(ICG_FAIL="leaderboard admit *")
    assert log.read_text().splitlines() == [f"leaderboard admit --dir {board}"], failed.stderr
    assert failed.returncode == 1, (failed.stdout, failed.stderr)
    assert git(repo, "rev-parse", "HEAD") == before and pushed() == before
    assert (board / "queue" / "mine.json").is_file()
    done = admit()
    assert done.returncode == 0, done.stderr
    after = git(repo, "rev-parse", "HEAD")
    assert after != before and pushed() == after
    assert git(repo, "log", "-1", "--format=%s") == (
        "Sealed track: admit the queued submissions graded by CI")


def test_admit_sealed_fails_and_commits_nothing_when_admission_fails(tmp_path):
    admit_sealed_fails_when_admission_fails(CI / "admit-sealed", tmp_path)
