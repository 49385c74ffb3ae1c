"""The maintainer's documented sealed-track sequence, run as CI runs it, in real git repositories.

freeze with a throw-away key, commit, push; a contributor's pull request queues sealed
submissions; the pull request's check (``tools/ci/verify-board``, no key, as the workflow
calls it) validates them and prints no score; the merge; ``tools/ci/admit-sealed`` with the
key grades, admits, commits and pushes; the main branch's check with the key re-grades the
result; a pull request that writes a sealed entry itself is refused. Everything runs through
the ``icgbench`` command and the ``tools/ci`` scripts.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from git_helpers import git
from icgbench.models import CohortData, get_model
from icgbench.release import sealed
from sealed_helpers import contributed

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
ICGBENCH = Path(sys.executable).parent / "icgbench"
KEY = sealed.new_key()
SCRIPTS = ("verify-board", "pr-scope", "admit-sealed")
#: (variant, model): correlation has a structure block, so its calibration cohort goes too
QUEUED = [("linear_lowhet", "correlation"), ("nonlinear_obs", "correlation"),
          ("nonlinear_obs", "logistic_direct")]


def _env(key: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ICGBENCH_HOME", sealed.KEY_ENV)}
    env |= {"CI": "true", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    return env | ({sealed.KEY_ENV: key} if key else {})


def run(args: list, cwd: Path, key: str | None = None, ok: bool = True
        ) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=_env(key), text=True,
                          capture_output=True, stdin=subprocess.DEVNULL, timeout=600,
                          check=False)
    if ok:
        assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"
    return done


def _link_tree(source: Path, target: Path) -> None:
    """``source`` copied to ``target`` as hard links where the file system allows."""
    def link(src: str, dst: str) -> None:
        if os.path.exists(dst):  # the committed descriptor: the same bytes
            return
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    shutil.copytree(source, target, copy_function=link, dirs_exist_ok=True)


def checkout(origin: Path, where: Path, ref: str = "main", full_tier: bool = False) -> Path:
    """A clone of ``origin`` at ``ref`` with this environment's install as its ``.venv``
    (what ``make install`` gives a CI job) and, if asked, the built full tier."""
    git(origin.parent, "clone", "-q", str(origin), str(where))
    git(where, "checkout", "-q", ref)
    (where / ".venv").symlink_to(Path(sys.executable).parents[1])
    if full_tier:
        _link_tree(ROOT / "datasets/full", where / "datasets/full")
    return where


@pytest.fixture(scope="module")
def origin(tmp_path_factory) -> Path:
    """The repository as the maintainer leaves it after the documented set-up: the sealed
    release frozen with the key and committed, an empty sealed board, pushed to origin."""
    if not (ROOT / "datasets/full/datapackage.json").is_file() or run(
            [ICGBENCH, "data", "verify", "--tier", "full"], ROOT, ok=False).returncode:
        pytest.fail("the full tier is not built: run `make full-tier` (make test does)")
    top = tmp_path_factory.mktemp("sealed-ci")
    bare = top / "origin.git"
    git(top, "init", "-q", "--bare", "-b", "main", str(bare))
    repo = top / "maintainer"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for name in SCRIPTS:
        (repo / "tools/ci").mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / "tools/ci" / name, repo / "tools/ci" / name)
    shutil.copy2(ROOT / "datapackage.json", repo / "datapackage.json")
    (repo / "datasets/full").mkdir(parents=True)
    shutil.copy2(ROOT / "datasets/full/datapackage.json", repo / "datasets/full")
    (repo / ".gitignore").write_text(".venv\ndatasets/full/*\n!datasets/full/datapackage.json\n")
    (repo / ".venv").symlink_to(Path(sys.executable).parents[1])
    # the documented one-time steps (docs/leaderboard.md, "Setting up the sealed track")
    froze = run([ICGBENCH, "freeze", "--tier", "sealed"], repo, KEY)
    assert "generation recorded in" in froze.stdout
    checked = run([ICGBENCH, "freeze", "--tier", "sealed", "--check"], repo, KEY)
    assert "matches" in checked.stdout
    run([ICGBENCH, "leaderboard", "admit", "--dir", "leaderboard/sealed"], repo, KEY)
    from icgbench.leaderboard.store import write_board

    write_board(repo / "leaderboard", "full", [])  # the open board, empty here
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Sealed release")
    git(repo, "remote", "add", "origin", str(bare))
    git(repo, "push", "-q", "-u", "origin", "main")
    return bare


def _submission(release: Path, variant: str, model: str) -> dict:
    fitted = get_model(model)
    data = CohortData.load(variant, 0, "sealed", release)
    fitted.fit(data)
    return contributed(fitted.submission(data))


def _pull_request(origin: Path, top: Path, branch: str, change) -> tuple[str, str]:
    """A contributor's branch made by ``change(clone)``: (base SHA, head SHA)."""
    fork = checkout(origin, top / branch)
    base = git(fork, "rev-parse", "HEAD")
    git(fork, "checkout", "-q", "-b", branch)
    change(fork)
    git(fork, "add", "-A", "leaderboard")
    git(fork, "commit", "-q", "-m", branch)
    git(fork, "push", "-q", "origin", branch)
    return base, git(fork, "rev-parse", "HEAD")


def _check(origin: Path, top: Path, base: str, head: str, name: str
           ) -> subprocess.CompletedProcess:
    """The pull request's check as leaderboard.yml runs it: the base branch as trusted, the
    head as data (with history), verify-board without the sealed key."""
    trusted = checkout(origin, top / f"{name}-trusted", base, full_tier=True)
    candidate = checkout(origin, top / f"{name}-candidate", head)
    return run([trusted / "tools/ci/verify-board", trusted, candidate, base, head], top,
               ok=False)


SCORE_WORDS = re.compile(r"auroc|brier|ece|pehe|composite|overall|f1|r2|0\.\d{3}", re.I)


def test_the_documented_sealed_sequence_runs_end_to_end(origin, tmp_path):
    def queue(fork: Path) -> None:
        folder = fork / "leaderboard/sealed/queue"
        folder.mkdir()
        for variant, model in QUEUED:
            path = folder / f"{model}__{variant}.json"
            path.write_text(json.dumps(_submission(fork, variant, model)))
            checked = run([ICGBENCH, "validate", path], fork)  # no key: valid, not graded
            assert "valid" in checked.stdout.lower()
            graded = run([ICGBENCH, "score", path], fork, ok=False)
            assert graded.returncode == 2 and "needs the board's key" in graded.stderr

    base, head = _pull_request(origin, tmp_path, "queue-two", queue)
    check = _check(origin, tmp_path, base, head, "pr1")
    assert check.returncode == 0, check.stdout + check.stderr
    admit_lines = [line for line in check.stdout.splitlines() if "queue" in line
                   or line.startswith("valid ")]
    assert len([line for line in admit_lines if line.startswith("valid ")]) == len(QUEUED)
    assert not SCORE_WORDS.search("\n".join(admit_lines)), admit_lines

    # the merge, then the admit job (main's code, the key, write access)
    ci = checkout(origin, tmp_path / "admit-job")
    git(ci, "merge", "-q", "--no-ff", "origin/queue-two", "-m", "Merge queue-two")
    git(ci, "push", "-q", "origin", "main")
    before = git(ci, "rev-parse", "HEAD")
    admitted = run([ci / "tools/ci/admit-sealed", ci], tmp_path, KEY)
    assert len([line for line in admitted.stdout.splitlines() if line.startswith("admitted ")
                and " as " in line]) == len(QUEUED), admitted.stdout
    assert f"admitted {len(QUEUED)} of {len(QUEUED)} queued" in admitted.stdout
    after = git(origin.parent, "--git-dir", str(origin), "rev-parse", "main")
    assert after != before  # committed and pushed

    # main's check after the push: the key set, the sealed board re-graded
    main_check = checkout(origin, tmp_path / "verify-main", "main", full_tier=True)
    assert not (main_check / "leaderboard/sealed/queue").exists()
    board = json.loads((main_check / "leaderboard/sealed/leaderboard.json").read_text())
    assert sorted((e["variant_name"], e["model_name"]) for e in board["entries"]) == sorted(
        (variant, f"my_{model}") for variant, model in QUEUED)  # sealed_helpers.contributed
    verified = run([main_check / "tools/ci/verify-board", main_check, main_check, before,
                    after, "--maintainer-approved"], main_check, KEY)
    assert "verify-board: the board of" in verified.stdout
    graded = run([ICGBENCH, "leaderboard", "verify", "leaderboard/sealed", "--tier", "sealed"],
                 main_check, KEY)
    assert f"OK: {len(QUEUED)} entries" in graded.stdout
    unkeyed = run([ICGBENCH, "leaderboard", "verify", "leaderboard/sealed", "--tier",
                   "sealed"], main_check)
    assert f"OK: {len(QUEUED)} entries" in unkeyed.stdout

    # a pull request that writes a sealed entry itself (a copy with a new version) fails
    def forge(fork: Path) -> None:
        folder = fork / "leaderboard/sealed"
        doc = json.loads((folder / "leaderboard.json").read_text())
        entry = dict(doc["entries"][0], package_version="9.9.9")
        old = folder / doc["entries"][0]["submission_path"]
        entry["submission_path"] = entry["submission_path"].replace(
            doc["entries"][0]["package_version"], "9.9.9")
        stored = folder / entry["submission_path"]
        stored.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(old, stored)
        from icgbench.leaderboard.entry import LeaderboardEntry
        from icgbench.leaderboard.store import write_board

        entries = [LeaderboardEntry.from_dict(e) for e in doc["entries"]]
        write_board(folder, "sealed", [*entries, LeaderboardEntry.from_dict(entry)])

    base, head = _pull_request(origin, tmp_path, "forged-entry", forge)
    forged = _check(origin, tmp_path, base, head, "pr2")
    assert forged.returncode != 0
    assert "a sealed entry is added by the CI's admission" in forged.stdout
