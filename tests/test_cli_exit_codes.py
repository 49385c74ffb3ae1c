"""Every command's exit code on valid input (0), invalid input (1) and a usage error (2).

The README and docs/cli.md promise these three codes everywhere. The matrix below names a
case for each leaf command of the parser; a test fails when a command is added without
its cases, so the promise cannot silently stop covering a command. Commands run in
process through ``icgbench.cli.main`` (argparse's own errors exit 2 through SystemExit).
The data commands run against the miniature release tier, so build, pack, download and
freeze --check take a second, not minutes.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from icgbench.cli import build_parser, main
from icgbench.leaderboard.store import JSON_NAME
from icgbench.release import archive
from icgbench.release.descriptor import load_descriptor
from leaderboard_helpers import submission_file
from release_helpers import MINI, mini_release, served
from scoring_helpers import template

# Pages here are read for their tables, links and files: built without the board's figures.
pytestmark = pytest.mark.usefixtures("no_board_figures")


def leaf_commands() -> set[str]:
    """Every runnable command of the parser, as 'group sub' strings."""
    found = set()

    def walk(parser, prefix: tuple[str, ...]) -> None:
        subs = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
        if not subs:
            found.add(" ".join(prefix))
        for action in subs:
            for name, child in action.choices.items():
                walk(child, (*prefix, name))

    walk(build_parser(), ())
    return found


class World:
    """The files the cases point at, made once per module."""

    def __init__(self, folder: Path):
        self.dir = folder
        self.valid = folder / "valid.json"
        self.valid.write_text(json.dumps(template()))
        self.invalid = folder / "invalid.json"
        self.invalid.write_text(json.dumps({**template(), "seed": -1}))
        self.missing = folder / "no-such-file.json"
        self.board = folder / "board"
        entry = submission_file(folder, "random", "linear_lowhet")
        assert main(["leaderboard", "add", str(entry), "--dir", str(self.board),
                     "--tier", "small"]) == 0
        self.tampered = folder / "tampered-board"
        shutil.copytree(self.board, self.tampered,
                        ignore=shutil.ignore_patterns(".leaderboard.lock"))
        doc = json.loads((self.tampered / JSON_NAME).read_text())
        doc["entries"][0]["scores"]["risk_prediction"]["auroc"] = 1.0
        (self.tampered / JSON_NAME).write_text(json.dumps(doc))
        self.corrupt = folder / "corrupt-board"
        shutil.copytree(self.board, self.corrupt,
                        ignore=shutil.ignore_patterns(".leaderboard.lock"))
        (self.corrupt / JSON_NAME).write_text("{not json")
        self.sweep = folder / "sweep"
        assert main(["bench", "sweep", "--models", "random", "--cohorts", "linear_lowhet",
                     "--outdir", str(self.sweep), "--jobs", "1"]) == 0


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> World:
    return World(tmp_path_factory.mktemp("exit-codes"))


@pytest.fixture(scope="module")
def mini_url(tmp_path_factory) -> Iterator[str]:
    """The mini tier packed once (r.tar.gz), beside a file that is no archive (bad.tar.gz),
    served over HTTP; yields the base URL."""
    www = tmp_path_factory.mktemp("www")
    archive.pack(mini_release(tmp_path_factory.mktemp("pristine")), www / "r.tar.gz")
    (www / "bad.tar.gz").write_bytes(gzip.compress(b"not a tar archive"))
    with served(www) as url:
        yield url


@pytest.fixture()
def mini_home(tmp_path, monkeypatch, mini_url):
    """A private copy of the mini tier as the release every data command sees
    (ICGBENCH_HOME): (root, archive URL, tampered descriptor, its own descriptor)."""
    d = mini_release(tmp_path)
    root = d.base.parents[1]
    (root / "datapackage.json").write_text(d.path.read_text())
    monkeypatch.setenv("ICGBENCH_HOME", str(root))
    monkeypatch.setattr("icgbench.cli.data.get_tier", lambda name: MINI)
    monkeypatch.setattr("icgbench.api.tables.tier_descriptor",
                        lambda tier, root=None: load_descriptor(d.path))
    tampered = json.loads(d.path.read_text())
    parquet = next(r for r in tampered["resources"] if r["path"].endswith(".parquet"))
    parquet["icgbench:content_digest"] = "sha256:" + "0" * 64
    parquet["hash"] = "sha256:" + "0" * 64
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(tampered))
    return root, mini_url, bad, d.path


def run(argv: list[str]) -> int:
    try:
        return main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's usage errors
        return int(exc.code)


Case = Callable[[World, Path], list]

#: command -> {expected exit code: argv builder(world, tmp folder)}
def _queued(submission: Path, tmp: Path) -> Path:
    """A sealed board folder whose queue holds ``submission``."""
    queue = tmp / "sealed" / "queue"
    queue.mkdir(parents=True)
    shutil.copy(submission, queue / "s.json")
    return queue.parent


MATRIX: dict[str, dict[int, Case]] = {
    "demo": {0: lambda w, t: ["demo", "--variant", "linear_lowhet", "--outdir", t / "demo"],
             2: lambda w, t: ["demo", "--variant", "no_such_variant"]},
    "validate": {0: lambda w, t: ["validate", w.valid],
                 1: lambda w, t: ["validate", w.invalid],
                 2: lambda w, t: ["validate", w.missing]},
    "score": {0: lambda w, t: ["score", w.valid, "--out", t / "r.json"],
              1: lambda w, t: ["score", w.invalid, "--out", t / "r.json"],
              2: lambda w, t: ["score", w.valid, "--structure-k", "0"]},
    "submission template": {
        0: lambda w, t: ["submission", "template", "--variant", "linear_lowhet",
                         "--out", t / "s.json"],
        2: lambda w, t: ["submission", "template", "--variant", "nope", "--out", t / "s.json"]},
    "leaderboard add": {
        0: lambda w, t: ["leaderboard", "add", w.valid, "--dir", t / "b", "--tier", "small"],
        1: lambda w, t: ["leaderboard", "add", w.invalid, "--dir", t / "b", "--tier", "small"],
        2: lambda w, t: ["leaderboard", "add", w.missing, "--dir", t / "b"]},
    "leaderboard verify": {
        0: lambda w, t: ["leaderboard", "verify", w.board, "--tier", "small", "--jobs", "1"],
        1: lambda w, t: ["leaderboard", "verify", w.tampered, "--tier", "small", "--jobs", "1"],
        2: lambda w, t: ["leaderboard", "verify", t / "none", "--tier", "small"]},
    "leaderboard admit": {
        0: lambda w, t: ["leaderboard", "admit", "--dir", t / "sealed", "--dry-run"],
        1: lambda w, t: ["leaderboard", "admit", "--dir", _queued(w.invalid, t), "--dry-run"],
        2: lambda w, t: ["leaderboard", "admit", "--dir", t / "sealed"]},  # no key
    "leaderboard repair": {0: lambda w, t: ["leaderboard", "repair", "--dir", w.board],
                           1: lambda w, t: ["leaderboard", "repair", "--dir", w.corrupt],
                           2: lambda w, t: ["leaderboard", "repair", "--dir", t / "none"]},
    "leaderboard migrate": {0: lambda w, t: ["leaderboard", "migrate", "--dir", w.board],
                            1: lambda w, t: ["leaderboard", "migrate", "--dir", w.corrupt],
                            2: lambda w, t: ["leaderboard", "migrate", "--dir", t / "none"]},
    "leaderboard regrade": {0: lambda w, t: ["leaderboard", "regrade", "--dir", w.board],
                            1: lambda w, t: ["leaderboard", "regrade", "--dir", w.corrupt],
                            2: lambda w, t: ["leaderboard", "regrade", "--dir", t / "none"]},
    "leaderboard show": {0: lambda w, t: ["leaderboard", "show", "--dir", w.board],
                         1: lambda w, t: ["leaderboard", "show", "--dir", w.corrupt],
                         2: lambda w, t: ["leaderboard", "show", "--dir", t / "none"]},
    "leaderboard render": {
        0: lambda w, t: ["leaderboard", "render", "--dir", w.board, "--outdir", t / "site",
                         "--no-oracle"],
        1: lambda w, t: ["leaderboard", "render", "--dir", w.corrupt, "--outdir", t / "site"],
        2: lambda w, t: ["leaderboard", "render", "--dir", w.board, "--outdir", t / "site",
                         "--figures", t / "none"]},
    "generate": {0: lambda w, t: ["generate", "--variant", "linear_lowhet", "--seed", "3",
                                  "--n-subjects", "20", "--outdir", t / "g"],
                 2: lambda w, t: ["generate", "--variant", "nope", "--outdir", t / "g"]},
    "bench list": {0: lambda w, t: ["bench", "list"],
                   2: lambda w, t: ["bench", "list", "--no-such-flag"]},
    "bench info": {0: lambda w, t: ["bench", "info", "linear_lowhet"],
                   2: lambda w, t: ["bench", "info", "nope"]},
    "bench confounding": {0: lambda w, t: ["bench", "confounding", "--tier", "small"],
                          2: lambda w, t: ["bench", "confounding", "--tier", "huge"]},
    "bench run": {0: lambda w, t: ["bench", "run", "--cohort", "linear_lowhet", "--model",
                                   "random", "--outdir", t / "run"],
                  2: lambda w, t: ["bench", "run", "--cohort", "linear_lowhet", "--model",
                                   "no_such_model"]},
    "bench audit": {0: lambda w, t: ["bench", "audit", "--cohort", "linear_lowhet",
                                     "--variant", "mbcnet_sign_constrained"],
                    2: lambda w, t: ["bench", "audit", "--cohort", "linear_lowhet",
                                     "--variant", "random"]},
    "bench sweep": {0: lambda w, t: ["bench", "sweep", "--models", "random", "--cohorts",
                                     "linear_lowhet", "--outdir", w.sweep, "--jobs", "1"],
                    2: lambda w, t: ["bench", "sweep", "--cohorts", "nope",
                                     "--outdir", t / "sw"]},
    "bench plots": {0: lambda w, t: ["bench", "plots", "--inputdir", w.sweep,
                                     "--outdir", t / "fig"],
                    2: lambda w, t: ["bench", "plots", "--inputdir", t / "none"]},
    "bench baselines": {0: lambda w, t: ["bench", "baselines", "--inputdir", w.sweep,
                                         "--out", t / "b.md"],
                        2: lambda w, t: ["bench", "baselines", "--inputdir", t / "none",
                                         "--out", t / "b.md"]},
    "bench power": {0: lambda w, t: ["bench", "power", "--resamples", "2", "--json"],
                    1: lambda w, t: ["bench", "power", "--dir", _broken_board(t)],
                    2: lambda w, t: ["bench", "power", "--resamples", "-1"]},
    "bench spans": {0: lambda w, t: ["bench", "spans", "--resamples", "2", "--sample", "1",
                                     "--json"],
                    1: lambda w, t: ["bench", "spans", "--dir", _broken_board(t)],
                    2: lambda w, t: ["bench", "spans", "--resamples", "0"]},
    # the small tier holds one cohort per variant: an answer chosen in hindsight on it beats
    # the floor (chosen over the full tier's sixty), and the command says so
    "bench attacks": {0: lambda w, t: ["bench", "attacks", "--draws", "5", "--json"],
                      1: lambda w, t: ["bench", "attacks", "--tier", "small", "--draws", "5"],
                      2: lambda w, t: ["bench", "attacks", "--draws", "0"]},
    "bench report": {0: lambda w, t: ["bench", "report", "--resamples", "2", "--sample", "1",
                                      "--draws", "5", "--out", _page_copy(t)],
                     1: lambda w, t: ["bench", "report", "--dir", _broken_board(t), "--out",
                                      _page_copy(t)],
                     2: lambda w, t: ["bench", "report", "--out", t / "none.md"]},
}


def _page_copy(folder: Path) -> Path:
    """A copy of docs/baselines.md for ``bench report`` to rewrite."""
    page = folder / "baselines.md"
    shutil.copy(Path(__file__).parents[1] / "docs" / "baselines.md", page)
    return page


def _broken_board(folder: Path) -> Path:
    """A board folder whose leaderboard.json is not JSON."""
    board = folder / "broken-board"
    board.mkdir(exist_ok=True)
    (board / "leaderboard.json").write_text("{")
    return board

#: data commands, against the mini tier: argv builder(root, url, tampered descriptor, good one)
DATA_MATRIX: dict[str, dict[int, Callable[..., list]]] = {
    "freeze": {0: lambda r, u, bad, good: ["freeze", "--check", "--tier", "small"],
               1: lambda r, u, bad, good: (shutil.copy(bad, good),
                                           ["freeze", "--check", "--tier", "small"])[1],
               2: lambda r, u, bad, good: ["freeze", "--root", r / "a-file/below"]},
    "data verify": {0: lambda r, u, bad, good: ["data", "verify", "--descriptor", good],
                    1: lambda r, u, bad, good: ["data", "verify", "--descriptor", bad],
                    2: lambda r, u, bad, good: ["data", "verify", "--descriptor", r / "none"]},
    "data build": {0: lambda r, u, bad, good: ["data", "build", "--jobs", "1"],
                   1: lambda r, u, bad, good: (shutil.copy(bad, good),
                                               ["data", "build", "--jobs", "1"])[1],
                   2: lambda r, u, bad, good: ["data", "build", "--jobs", "0"]},
    "data pack": {0: lambda r, u, bad, good: ["data", "pack", "--out", r / "p.tar.gz"],
                  1: lambda r, u, bad, good: (_corrupt_one_file(good),
                                              ["data", "pack", "--out", r / "p.tar.gz"])[1],
                  2: lambda r, u, bad, good: ["data", "pack", "--out", r / "a-file/p.tar.gz"]},
    "data download": {
        0: lambda r, u, bad, good: ["data", "download", "--url", f"{u}/r.tar.gz", "--outdir",
                                    r / "d"],
        1: lambda r, u, bad, good: ["data", "download", "--url", f"{u}/bad.tar.gz", "--outdir",
                                    r / "d", "--retries", "0"],
        2: lambda r, u, bad, good: ["data", "download", "--url", f"{u}/none.tar.gz", "--outdir",
                                    r / "d", "--retries", "0"]},
    "data publish": {0: lambda r, u, bad, good: ["data", "publish", "--outdir", r / "pub"],
                     1: lambda r, u, bad, good: (_corrupt_one_file(good),
                                                 ["data", "publish", "--outdir", r / "pub"])[1],
                     2: lambda r, u, bad, good: ["data", "publish", "--outdir", r]},
    "data cite": {0: lambda r, u, bad, good: ["data", "cite"],
                  2: lambda r, u, bad, good: ["data", "cite", "--format", "yaml"]},
    "data list": {0: lambda r, u, bad, good: ["data", "list"],
                  1: lambda r, u, bad, good: (_remove_one_file(good), ["data", "list"])[1],
                  2: lambda r, u, bad, good: ["data", "list", "--tier", "huge"]},
}

#: commands that read no user file, so have no "invalid input" case
NO_INPUT = {"demo", "submission template", "data cite", "generate", "bench list", "bench info",
            "bench confounding",
            "bench run", "bench audit", "bench sweep", "bench plots", "bench baselines"}


def _corrupt_one_file(descriptor: Path) -> None:
    d = load_descriptor(descriptor)
    path = d.base / d.resources[0].path
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _remove_one_file(descriptor: Path) -> None:
    d = load_descriptor(descriptor)
    (d.base / d.resources[0].path).unlink()


def test_every_command_has_its_exit_code_cases():
    commands = leaf_commands()
    assert set(MATRIX) | set(DATA_MATRIX) == commands
    for name, cases in {**MATRIX, **DATA_MATRIX}.items():
        wanted = {0, 2} if name in NO_INPUT else {0, 1, 2}
        assert set(cases) == wanted, name


#: Costly success cases, asserted with stronger checks by the named test (demo and plots by
#: test_bench, audit on an unfrozen seed by test_seed_workflow, power by test_power), which
#: like these cases runs in make test-slow (the half-second rule, docs/testing.md).
ASSERTED_ELSEWHERE = {("demo", 0): "test_bench", ("bench audit", 0): "test_seed_workflow",
                      ("bench plots", 0): "test_bench", ("bench power", 0): "test_power",
                      ("bench spans", 0): "test_spans", ("bench attacks", 0): "test_attacks",
                      ("bench report", 0): "test_board_report"}


@pytest.mark.parametrize(("command", "code"), [
    pytest.param(c, k, marks=pytest.mark.slow) if (c, k) in ASSERTED_ELSEWHERE else (c, k)
    for c, cases in MATRIX.items() for k in sorted(cases)])
def test_exit_code(world, tmp_path, capsys, command, code):
    argv = MATRIX[command][code](world, tmp_path)
    assert run(argv) == code, argv
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if code == 2:
        assert "error" in err, argv


@pytest.mark.parametrize(("command", "code"),
                         [(c, k) for c, cases in DATA_MATRIX.items() for k in sorted(cases)])
def test_data_exit_code(mini_home, capsys, command, code):
    root, url, bad, good = mini_home
    (root / "a-file").write_text("a file, not a folder")
    argv = DATA_MATRIX[command][code](root, url, bad, good)
    assert run(argv) == code, argv
    assert "Traceback" not in capsys.readouterr().err


def _fingerprint(path: Path) -> tuple:
    """What must not change about ``path``: its kind, its target if a link, its bytes."""
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return ("link", os.readlink(path), stat.S_IFMT(os.stat(path).st_mode))
    return (stat.S_IFMT(st.st_mode), st.st_ino,
            path.read_bytes() if stat.S_ISREG(st.st_mode) else None)


def _score_onto(target: str) -> Callable[[World, Path], tuple[list, Path]]:
    """``score SUB --out OUT``, OUT being ``target``: (argv, the path that must not change)."""

    def make(w: World, t: Path) -> tuple[list, Path]:
        sub = t / "sub.json"
        shutil.copy(w.valid, sub)
        out = t / "out"
        if target == "itself":
            out = sub
        elif target == "a hard link":
            os.link(sub, out)
        elif target == "another spelling":
            out = t / ".." / t.name / sub.name
        elif target == "a link to /dev/null":  # the audit's --out /dev/null, through a link
            out.symlink_to("/dev/null")  # in tmp: a broken check would replace the link only
        elif target == "a FIFO":
            os.mkfifo(out)
        kept = out if target in ("a link to /dev/null", "a FIFO") else sub
        return ["score", sub, "--out", out], kept

    return make


#: case -> (argv builder(world, tmp) -> (argv, the path that must not change), message)
OUTPUTS: dict[str, tuple[Callable[[World, Path], tuple[list, Path]], str]] = {
    **{f"score --out {t}": (_score_onto(t), "an input of this command")
       for t in ("itself", "a hard link", "another spelling")},
    "score --out a link to /dev/null": (_score_onto("a link to /dev/null"),
                                        "it is a character device"),
    "score --out a FIFO": (_score_onto("a FIFO"), "it is a FIFO"),
    "bench baselines --out its own summary.csv": (
        lambda w, t: (["bench", "baselines", "--inputdir", w.sweep, "--out",
                       w.sweep / "summary.csv"], w.sweep / "summary.csv"),
        "an input of this command"),
}


@pytest.mark.parametrize("case", list(OUTPUTS))
def test_an_output_never_replaces_an_input_or_a_device(world, tmp_path, capsys, case):
    make, message = OUTPUTS[case]
    argv, kept = make(world, tmp_path)
    before = _fingerprint(kept)
    assert run(argv) == 2, argv
    err = capsys.readouterr().err
    assert "refusing to write the" in err and message in err and "Traceback" not in err, err
    assert _fingerprint(kept) == before
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.parametrize("target", ["descriptor", "resource"])
def test_data_pack_never_writes_over_the_release(mini_home, capsys, target):
    good = mini_home[3]
    d = load_descriptor(good)
    out = good if target == "descriptor" else d.base / d.resources[0].path
    before = out.read_bytes()
    assert run(["data", "pack", "--out", out]) == 2
    err = capsys.readouterr().err
    assert "refusing to write the archive" in err and "an input of this command" in err
    assert out.read_bytes() == before


def test_data_pack_never_writes_over_another_tiers_descriptor(mini_home, capsys):
    """Packing one tier onto the release root's datapackage.json (the small tier's) replaced
    that descriptor: pack reads only its own tier, but every tier's descriptor is kept."""
    root, good = mini_home[0], mini_home[3]
    other = root / "datapackage.json"
    assert other != good and other.exists()
    before = other.read_bytes()
    assert run(["data", "pack", "--out", other]) == 2
    err = capsys.readouterr().err
    assert "refusing to write the archive" in err and "tier's descriptor" in err
    assert other.read_bytes() == before


def test_a_template_never_writes_over_the_release(mini_home, capsys):
    good = mini_home[3]
    before = good.read_bytes()
    assert run(["submission", "template", "--variant", "linear_lowhet", "--out", good]) == 2
    assert "an input of this command" in capsys.readouterr().err
    assert good.read_bytes() == before


def test_download_never_installs_over_its_own_archive(mini_home, tmp_path, capsys):
    good = mini_home[3]
    dest = tmp_path / "dest"
    dest.mkdir()
    archive_file = dest / "datapackage.json"  # where the descriptor would be installed
    archive.pack(load_descriptor(good), tmp_path / "r.tar.gz")
    shutil.copy(tmp_path / "r.tar.gz", archive_file)
    before = archive_file.read_bytes()
    assert run(["data", "download", "--url", archive_file, "--outdir", dest]) == 2
    assert "refusing to write the installed file" in capsys.readouterr().err
    assert archive_file.read_bytes() == before


def test_a_failed_write_names_its_target_not_a_temporary_file(tmp_path, capsys):
    """The longest name a folder takes leaves no room for the temporary file beside it:
    the error names the file asked for, and nothing is left behind."""
    out = tmp_path / ("a" * 250 + ".json")
    assert run(["submission", "template", "--variant", "linear_lowhet", "--out", out]) == 2
    err = capsys.readouterr().err
    assert f"cannot write {out}: File name too long" in err and ".tmp" not in err, err
    assert list(tmp_path.iterdir()) == []
