"""Tests that kill the planted bugs of ``tools/planted-bugs.toml`` the other fast tests let
survive (the code of "hostile input round 4"): each test names the bugs it kills.

Driven through the ``icgbench`` command (``main``) where that is how a user or the CI
reaches the code; through the function itself where no entry point can tell (the rule is
documented as a function, or the command's input is narrower than the function's).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import tarfile
from pathlib import Path

import pytest

from git_helpers import commit, git
from icgbench import __version__
from icgbench.cli import main
from icgbench.io.terminal import PrintableStream
from icgbench.io.untrusted import InputProblem, gunzip, printable_lines
from icgbench.leaderboard.names import is_floor, name_clash
from icgbench.leaderboard.queue import QUEUED_PER_PULL_REQUEST
from icgbench.leaderboard.store import CSV_NAME, LOCK_NAME, load_board, write_board
from icgbench.leaderboard.verify import verify
from icgbench.release import sealed
from icgbench.release.generations import FOLDER as GENERATIONS
from leaderboard_helpers import submission_file, two_entry_board
from release_helpers import mini_release
from sealed_helpers import KEY, contributed, sealed_release
from test_release_hostile import _global_headers

# Pages here are read for their tables, links and files: built without the board's figures.
pytestmark = pytest.mark.usefixtures("no_board_figures")

# --- names: the floor line and the registry's claim on its skeleton ------------------------

def test_the_floor_line_is_the_registry_floor_at_a_reference_version_off_the_sealed_board():
    """Kills names-floor-on-sealed: a ``random`` row on the sealed board (a pull request can
    write one) is never drawn as the floor."""
    assert is_floor("random", __version__, "full")
    assert not is_floor("random", __version__, "sealed")
    assert not is_floor("random", "0.0.1", "full")
    assert not is_floor("logistic_direct", __version__, "full")


def test_a_board_row_never_takes_over_a_reference_models_skeleton():
    """Kills names-add-overwrites: after a (hand-added) row 'Random', the name 'Random' still
    reads as the registry's 'random', and so does any other look-alike of it."""
    for known in ([("Random", "1")], [("Random", "1"), ("logistic_direct", __version__)]):
        for name in ("Random", "rAndom"):
            problem = name_clash(known, name, "1")
            assert problem is not None and "'random' (an icgbench reference model)" in problem, (
                known, name, problem)


# --- the sealed queue --------------------------------------------------------------------

@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    return sealed_release(tmp_path_factory.mktemp("campaign-sealed"), KEY)


@pytest.fixture()
def at_release(release, monkeypatch) -> Path:
    monkeypatch.setenv("ICGBENCH_HOME", str(release))
    monkeypatch.setenv(sealed.KEY_ENV, KEY)
    return release


def _fitted(release: Path, model: str = "logistic_direct", variant: str = "linear_lowhet"
            ) -> dict:
    from icgbench.models import CohortData, get_model

    fitted = get_model(model)
    data = CohortData.load(variant, 0, "sealed", release)
    fitted.fit(data)
    return contributed(fitted.submission(data))


@pytest.mark.slow
def test_a_release_that_is_no_recorded_generation_is_never_admitted(release, tmp_path,
                                                                    monkeypatch, capsys):
    """Kills queue-unrecorded-generation-admitted: with its generation record gone, the
    sealed release's files are refused by the pull request's check and by admission."""
    root = tmp_path / "release"
    shutil.copytree(release, root)
    shutil.rmtree(root / GENERATIONS)
    monkeypatch.setenv("ICGBENCH_HOME", str(root))
    monkeypatch.setenv(sealed.KEY_ENV, KEY)
    board = tmp_path / "sealed"
    (board / "queue").mkdir(parents=True)
    (board / "queue" / "mine.json").write_text(json.dumps(_fitted(root)))
    for argv in (["--dry-run"], []):
        code = main(["leaderboard", "admit", "--dir", str(board), *argv])
        out = capsys.readouterr().out
        assert code == 1 and "is not a recorded generation" in out, out
    assert (board / "queue" / "mine.json").exists()


def test_the_pull_request_limit_is_one_file_per_variant(tmp_path, capsys):
    """Kills queue-limit-plus-one: the limit (a full set of cohorts, one per registered
    variant) is counted before any file is read, so one file more of anything is refused
    and the limit is not refused for its number."""
    from icgbench.generator import variant_names

    limit = len(variant_names())
    assert limit == QUEUED_PER_PULL_REQUEST
    repo = tmp_path / "repo"
    queue = repo / "leaderboard" / "sealed" / "queue"
    queue.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("a board\n")
    base = commit(repo, "base")
    for n in range(limit + 1):
        (queue / f"probe{n}.json").write_text("{}")
    argv = ["leaderboard", "admit", "--dir", str(queue.parent), "--dry-run", "--base", base]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 1 and f"adds or changes {limit + 1} files" in err, err
    assert f"at most {limit} per pull" in err, err
    (queue / f"probe{limit}.json").unlink()
    main(argv)
    assert "per pull request" not in capsys.readouterr().err


@pytest.mark.slow
def test_a_queued_file_twice_in_a_dry_run_is_refused_as_admission_would(at_release, tmp_path,
                                                                       capsys):
    """Kills board-staged-not-keys and queue-dry-run-ignores-staged: two queued files of one
    model version and cohort; admission takes the first only, so the dry run must fail."""
    doc = _fitted(at_release)
    queue = tmp_path / "sealed" / "queue"
    queue.mkdir(parents=True)
    for name in ("a.json", "b.json"):
        (queue / name).write_text(json.dumps(doc))
    code = main(["leaderboard", "admit", "--dir", str(queue.parent), "--dry-run"])
    out = capsys.readouterr().out
    assert code == 1 and "the board already has" in out, out


def test_the_sealed_board_refuses_an_open_tier_file_added_by_hand(tmp_path, capsys):
    """Kills board-tier-check-skipped: ``leaderboard add`` of a small-tier file to the
    sealed board (admit checks the tier itself; add relies on admission_check)."""
    board = tmp_path / "sealed"
    write_board(board, "sealed", [])
    code = main(["leaderboard", "add", "--dir", str(board),
                 str(submission_file(tmp_path, "logistic_direct", "linear_lowhet"))])
    err = capsys.readouterr().err
    assert code == 1 and "this is a sealed-tier board" in err, err
    assert load_board(board, new_tier=None).entries == []


# --- the public half: overall over the categories shown ------------------------------------

@pytest.mark.slow
def test_the_public_halfs_overall_is_the_mean_of_the_categories_it_shows(at_release):
    """Kills withheld-shown-all-categories, pipeline-overall-over-all and
    normalized-overall-divides-by-all: structure and intervention are withheld on the
    public half (their normalized metrics are cohort-level), so ``overall`` averages the
    categories shown (a withheld one is not a zero)."""
    from icgbench.scorer import check_submission, grade
    from icgbench.tasks import CATEGORIES, TASKS
    from icgbench.tasks.withheld import shown_categories

    doc = _fitted(at_release, "mbcnet_v0_1")
    summary = grade(check_submission(doc), half="public").document["summary"]
    shown = shown_categories(TASKS.values())
    assert {"structure", "intervention"}.isdisjoint(shown) and len(shown) >= 2
    assert all(summary["normalized"][c] is None for c in CATEGORIES if c not in shown)
    values = [summary["normalized"][c] or 0.0 for c in shown]
    assert any(values) and summary["overall"] == pytest.approx(sum(values) / len(shown))
    private = grade(check_submission(doc), half="private").document["summary"]
    every = [private["normalized"][c] or 0.0 for c in CATEGORIES]
    assert private["overall"] == pytest.approx(sum(every) / len(CATEGORIES))


def test_a_task_is_withheld_whole_only_when_nothing_it_is_ranked_on_is_public():
    """Kills withheld-any-not-all: interventions has public metrics beside its cohort-level
    ones; it is withheld whole because its normalized parts are all cohort-level, and would
    be shown were one of them public or were it ranked on no normalized part."""
    from dataclasses import replace

    from icgbench.tasks import TASKS
    from icgbench.tasks.base import Normalized
    from icgbench.tasks.withheld import cohort_level, fully_withheld

    task = TASKS["intervention_conformity"]
    public = [m.name for m in task.metrics if m.name not in cohort_level(task)]
    assert cohort_level(task) and public and fully_withheld(task)
    assert not fully_withheld(replace(task, normalized=(Normalized(public[0]),)))
    assert not fully_withheld(replace(task, normalized=()))
    everything = replace(task, normalized=(), metrics=tuple(
        replace(m, cohort_level=True) for m in task.metrics))
    assert fully_withheld(everything)


def test_the_cohorts_shares_of_a_public_half_overall_average_to_it():
    """Kills normalized-contributions-divide-by-all: the board's intervals and paired tests
    use each cohort's share of ``overall``; their mean is ``overall`` also when it averages
    the categories a public half shows (documented on :class:`Aggregate`)."""
    from icgbench.tasks import TASKS
    from icgbench.tasks.normalized import aggregate
    from icgbench.tasks.withheld import shown_categories

    shown = shown_categories(TASKS.values())
    assert "structure" not in shown
    part = ("risk_prediction", "spearman_reachable")
    cohorts = [("v", 1), ("v", 2)]
    bounds = {c: {part: (0.6, 1.0)} for c in cohorts}
    agg = aggregate({("v", 1): {part: 0.9}, ("v", 2): {part: 0.7}}, bounds, cohorts,
                    {"risk"}, shown)
    assert agg.overall == pytest.approx(0.5 / len(shown))
    assert sum(agg.contributions["overall"].values()) / 2 == pytest.approx(agg.overall)


# --- printable_lines: what the CLI's streams let through -----------------------------------

@pytest.mark.parametrize("char", ["\r", "\x0b", "\x0c", "\u2028", "\u2029", "\x1b", "\x9b",
                                  "\u202e", "\u061c"])
def test_the_cli_streams_escape_every_line_control_but_newline_and_tab(char):
    """Kills lines-no-separators and lines-cr-kept: a carriage return rewrites the line a
    terminal shows, U+2028/U+2029 break it in a log viewer; newline and tab are the
    messages' own and are kept."""
    raw = io.StringIO()
    PrintableStream(raw).write(f"a{char}b\n\tc")
    assert raw.getvalue() == printable_lines(f"a{char}b\n\tc")
    assert char not in raw.getvalue() and raw.getvalue().endswith("b\n\tc")


def test_the_log_on_stderr_escapes_a_file_name_too(tmp_path, capsys):
    """Kills terminal-stderr-unwrapped: the messages escape a file name where they are
    written, but the log (``-vv``) quotes the path as it is: only the wrapped standard error
    keeps it from setting the window title and clearing the screen."""
    from scoring_helpers import template

    path = tmp_path / "a\x1b]0;PWN\x07\x1b[2J.json"
    path.write_text(json.dumps(template()))
    assert main(["-vv", "validate", str(path)]) == 0
    err = capsys.readouterr().err
    assert "read the submission" in err and "a\\x1b]0;PWN\\x07\\x1b[2J.json" in err, err
    assert not {"\x1b", "\x07"} & set(err), repr(err)


# --- git: replace refs and skip-worktree --------------------------------------------------

@pytest.fixture()
def history(tmp_path_factory, tmp_path):
    repo = tmp_path / "repo"
    board = repo / "leaderboard"
    git(repo.parent, "init", "-q", "-b", "main", str(repo))
    shutil.copytree(two_entry_board(tmp_path_factory), board,
                    ignore=shutil.ignore_patterns(".leaderboard.lock"))
    return repo, board, commit(repo, "base board")


def test_a_replace_ref_cannot_stand_in_for_the_base(history):
    """Kills git-replace-objects-honoured: a pull request rewrites a past row, then adds
    ``refs/replace/<base>`` pointing at its own commit, so a git that honours replace refs
    reads the forged board as the base and finds no rewritten past."""
    repo, board, base = history
    text = (board / CSV_NAME).read_text()
    doc = json.loads((board / "leaderboard.json").read_text())
    doc["entries"][0]["notes"] = "rewritten"
    (board / "leaderboard.json").write_text(json.dumps(doc, indent=2) + "\n")
    (board / CSV_NAME).write_text(text.replace("base", "rewritten", 1))
    forged = commit(repo, "rewrite the past")
    git(repo, "replace", base, forged)
    assert git(repo, "show", "-s", "--format=%s", base).strip() == "rewrite the past"
    _, problems = verify(board, tier="small", base=base)
    assert problems, "the history check read the replaced base"


def test_a_board_file_marked_skip_worktree_is_not_trusted(history, tmp_path, capsys):
    """Kills git-skip-worktree-trusted (the skip-worktree twin of assume-unchanged)."""
    repo, board, _ = history
    (board / CSV_NAME).write_text((board / CSV_NAME).read_text().replace("base", "forged"))
    git(repo, "update-index", "--skip-worktree", f"leaderboard/{CSV_NAME}")
    assert git(repo, "status", "--porcelain") == ""  # git does not look at it
    before = _files(board)
    code = main(["leaderboard", "add", "--dir", str(board),
                 str(submission_file(tmp_path, "mbcnet_v0_1", "linear_lowhet"))])
    err = capsys.readouterr().err
    assert code == 1 and "differs from leaderboard.json in earlier rows" in err, err
    assert _files(board) == before


def _files(board: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in board.iterdir()
            if p.is_file() and p.name != LOCK_NAME}


def _stale(board: Path) -> None:
    """Every file under ``board`` touched, so that ``git status`` refreshes and rewrites
    the index (which runs the post-index-change hook)."""
    for path in board.rglob("*"):
        if path.is_file():
            stat = path.stat()
            os.utime(path, (stat.st_atime + 5, stat.st_mtime + 5))


def test_a_hook_the_repository_holds_is_never_run(history, tmp_path, capsys):
    """Kills git-hooks-on: ``git status`` writes a refreshed index and so runs the
    repository's post-index-change hook; a pull request's board checkout must not."""
    repo, board, base = history
    marker = tmp_path / "hook-ran"
    hook = repo / ".git" / "hooks" / "post-index-change"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(f"#!/bin/sh\ntouch '{marker}'\n")
    hook.chmod(0o755)
    _stale(board)
    code = main(["leaderboard", "add", "--dir", str(board),
                 str(submission_file(tmp_path, "mbcnet_v0_1", "linear_lowhet"))])
    assert code == 0, capsys.readouterr().err
    assert not marker.exists()
    quiet = ("-c", f"core.hooksPath={os.devnull}")
    git(repo, *quiet, "add", "-A")
    git(repo, *quiet, "commit", "-qm", "a new entry")
    _stale(board)
    assert main(["leaderboard", "verify", str(board), "--base", base, "--tier", "small",
                 "--jobs", "1"]) == 0, capsys.readouterr()
    assert not marker.exists()
    _stale(board)
    git(repo, "status", "--porcelain")
    assert marker.exists(), "git status no longer runs the hook: the test proves nothing"


# --- the archive's extended headers -------------------------------------------------------

@pytest.fixture()
def mini(tmp_path, monkeypatch):
    from icgbench.release import download

    monkeypatch.setenv("ICGBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ICGBENCH_RELEASE", raising=False)
    monkeypatch.delenv(download.MIRRORS_ENV, raising=False)
    d = mini_release(tmp_path)
    monkeypatch.setattr("icgbench.api.tables.tier_descriptor", lambda tier: d)
    return d


def _download(tmp_path: Path, data: bytes, capsys) -> tuple[int, str]:
    path = tmp_path / "archive.tar.gz"
    path.write_bytes(data)
    code = main(["data", "download", "--url", str(path), "--outdir", str(tmp_path / "dest")])
    return code, capsys.readouterr().err


def test_the_run_of_extended_headers_stops_at_exactly_eight(mini, tmp_path, capsys):
    """Kills archive-extended-off-by-one: nine in a row are refused, eight are read."""
    code, err = _download(tmp_path, _global_headers(9), capsys)
    assert code == 1 and "over 8 extended headers in a row" in err, err
    code, err = _download(tmp_path, _global_headers(8), capsys)
    assert code != 0 and "extended headers" not in err, err


def test_a_genuine_archive_with_a_pax_header_per_member_installs(mini, tmp_path, capsys):
    """Kills archive-extended-count-kept: the mini release packed with its own pax header
    before each member (a tar tool's atime or comment records) is many runs of one, not a
    run as long as the archive, and installs."""
    from icgbench.release import archive

    good = archive.pack(mini, tmp_path / "good.tar.gz").read_bytes()
    raw = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(good)) as source, tarfile.open(
            fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        members = source.getmembers()
        for n, member in enumerate(members):
            member.pax_headers = {"comment": f"member {n}"}
            tar.addfile(member, source.extractfile(member))
    assert len(members) > 2 * 8
    code, err = _download(tmp_path, gzip.compress(raw.getvalue()), capsys)
    assert code == 0, err


# --- gunzip -------------------------------------------------------------------------------

def test_a_gzip_member_cut_short_is_truncated_whatever_it_inflated():
    """Kills gunzip-truncation-accepted: output before the cut is not a complete member."""
    data = bytes(range(256)) * 64
    packed = gzip.compress(data, mtime=0)
    assert gunzip(packed, len(data)) == data
    for cut in (len(packed) - 4, len(packed) - 8, len(packed) // 2):
        with pytest.raises(InputProblem, match="truncated gzip data"):
            gunzip(packed[:cut], len(data))


def test_a_bad_gzip_is_named_by_zlibs_reason_alone(tmp_path, capsys):
    """Kills gunzip-reason-whole: the message quotes zlib's reason, not its error number
    (the page and R give the reason alone: one verdict on three front ends)."""
    packed = bytearray(gzip.compress(b'{"a": 1}', mtime=0))
    packed[-8] ^= 0xFF  # the CRC
    path = tmp_path / "bad.json.gz"
    path.write_bytes(bytes(packed))
    code = main(["validate", str(path)])
    out = capsys.readouterr()
    text = out.out + out.err
    assert code == 1 and "not valid gzip data (incorrect data check)" in text, text
    assert "Error -3" not in text



# --- download redirects -------------------------------------------------------------------

def test_a_redirect_urllib_cannot_parse_is_refused_by_the_rule_in_one_line(mini, tmp_path,
                                                                           capsys):
    """Kills redirect-precheck-skipped: the Location is checked before urllib parses it,
    so the refusal names the redirect and its target, not a bare parse error."""
    from test_release_hostile import _answering, _redirect

    with _answering({"/a.tar.gz": _redirect("http://[::1/x")}) as url:
        code = main(["data", "download", "--url", f"{url}/a.tar.gz", "--retries", "0",
                     "--outdir", str(tmp_path / "dest")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert (f"redirect from {url}/a.tar.gz to http://[::1/x refused: not a valid URL "
            "(Invalid IPv6 URL)") in err, err
