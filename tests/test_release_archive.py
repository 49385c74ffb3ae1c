"""Release archives over a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import gzip
import io
import os
import signal
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from icgbench.cli import main
from icgbench.errors import InvalidInputError, UsageError
from icgbench.io import failpoints
from icgbench.release import archive, download, freeze
from icgbench.release.verify import verify
from release_helpers import MINI, mini_release, served
from test_input_bounds import long_name_tar, pax_bomb


@pytest.fixture()
def mini(tmp_path):
    return mini_release(tmp_path)


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    """Downloads are cached under $ICGBENCH_HOME/cache: a fresh one per test."""
    home = tmp_path / "home"
    monkeypatch.setenv("ICGBENCH_HOME", str(home))
    return home


def fetch(url, descriptor, dest):
    """Download from ``url`` alone, without retries."""
    return download.download(descriptor, dest, url, retries=0)


@pytest.fixture()
def server(tmp_path):
    """Serve ``tmp_path / 'www'`` on 127.0.0.1; yields (folder, base URL)."""
    www = tmp_path / "www"
    www.mkdir()
    with served(www) as url:
        yield www, url


def _installed_files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def test_pack_is_reproducible(mini, tmp_path):
    a = archive.pack(mini, tmp_path / "a.tar.gz").read_bytes()
    b = archive.pack(mini, tmp_path / "b.tar.gz").read_bytes()
    assert a == b
    with tarfile.open(fileobj=io.BytesIO(a)) as tar:
        names = tar.getnames()
        assert names == sorted(names)
        assert all(m.mtime == 0 and m.uid == 0 for m in tar.getmembers())
    assert len(names) == len(mini.resources) + 1


def test_download_verifies_and_installs(mini, tmp_path, server):
    www, url = server
    archive.pack(mini, www / "release.tar.gz")
    dest = tmp_path / "installed"
    fetch(f"{url}/release.tar.gz", mini, dest)
    assert _installed_files(dest) == {r.path for r in mini.resources} | {"datapackage.json"}
    from icgbench.release.descriptor import load_descriptor

    assert verify(load_descriptor(dest / "datapackage.json")).ok


def _rewrite(source: bytes, edit) -> bytes:
    """Re-pack an archive after ``edit(members)`` changed its (name, bytes) list."""
    with tarfile.open(fileobj=io.BytesIO(source)) as tar:
        members = [(m.name, tar.extractfile(m).read()) for m in tar.getmembers()]
    members = edit(members)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue())


def _tamper(members):
    name, data = members[3]
    members[3] = (name, data[:-1] + bytes([data[-1] ^ 1]))
    return members


CASES = {
    "corrupt": (lambda good: good[:200] + b"\x00" * 50 + good[250:],
                "corrupt or truncated|differs from|does not match"),
    "truncated": (lambda good: good[: len(good) // 2], "corrupt or truncated"),
    "tampered": (lambda good: _rewrite(good, _tamper), "does not match the descriptor"),
    "escape": (lambda good: _rewrite(good, lambda m: [("../evil.txt", b"x"), *m]),
               "escape the target folder"),
    "absolute": (lambda good: _rewrite(good, lambda m: [("/tmp/evil.txt", b"x"), *m]),
                 "escape the target folder"),
    "extra": (lambda good: _rewrite(good, lambda m: [*m, ("extra.csv", b"x")]),
              "not in the descriptor"),
    "missing": (lambda good: _rewrite(good, lambda m: m[:-1]), "lacks 1 file"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_archives_are_refused_with_nothing_left_behind(case, mini, tmp_path, server):
    www, url = server
    good = archive.pack(mini, tmp_path / "good.tar.gz").read_bytes()
    make, message = CASES[case]
    (www / "bad.tar.gz").write_bytes(make(good))
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "keep.txt").write_text("untouched")
    with pytest.raises(InvalidInputError, match=message):
        fetch(f"{url}/bad.tar.gz", mini, dest)
    assert _installed_files(dest) == {"keep.txt"}
    assert not (tmp_path / "evil.txt").exists()


def test_unreachable_url_is_a_usage_error(mini, tmp_path, server):
    _, url = server
    with pytest.raises(UsageError, match="cannot download"):
        fetch(f"{url}/no-such-file.tar.gz", mini, tmp_path / "d")
    assert _installed_files(tmp_path / "d") == set()


def test_cli_download_and_pack(mini, tmp_path, server, capsys, monkeypatch):
    www, url = server
    (mini.base.parents[1] / "datapackage.json").write_text(mini.path.read_text())
    monkeypatch.setattr("icgbench.api.tables.tier_descriptor", lambda tier: mini)
    assert main(["data", "pack", "--tier", "full", "--out", str(www / "r.tar.gz")]) == 0
    assert "packed" in capsys.readouterr().out
    dest = tmp_path / "cli-dest"
    assert main(["data", "download", "--url", f"{url}/r.tar.gz", "--outdir", str(dest)]) == 0
    assert f"into {dest}" in capsys.readouterr().out
    assert main(["data", "download", "--url", f"{url}/none.tar.gz", "--outdir", str(dest),
                 "--retries", "0"]) == 2


def _declares_2_gib(good: bytes) -> bytes:
    """A data member whose header claims 2 GiB, followed by a few bytes: a lie to refuse."""
    with tarfile.open(fileobj=io.BytesIO(good)) as tar:
        member = next(m for m in tar.getmembers() if m.name != "datapackage.json")
    info = tarfile.TarInfo(member.name)
    info.size = 2 * 1024**3
    return gzip.compress(info.tobuf(format=tarfile.PAX_FORMAT) + b"x" * 4096)


def test_a_member_declaring_another_size_is_refused_before_it_is_written(mini, tmp_path,
                                                                          server):
    www, url = server
    good = archive.pack(mini, tmp_path / "good.tar.gz").read_bytes()
    (www / "liar.tar.gz").write_bytes(_declares_2_gib(good))
    dest = tmp_path / "dest"
    with pytest.raises(InvalidInputError, match="declares 2147483648 bytes"):
        fetch(f"{url}/liar.tar.gz", mini, dest)
    assert _installed_files(dest) == set()


DOWNLOAD = """
import sys
from pathlib import Path
from icgbench.release import download
from icgbench.release.descriptor import load_descriptor
download.download(load_descriptor(Path(sys.argv[2])), Path(sys.argv[3]), sys.argv[1])
"""

BUILD = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from release_helpers import MINI
from icgbench.release import freeze
freeze.build(MINI, Path(sys.argv[1]))
"""


def _killed(code: str, *args: str, point: str) -> None:
    result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                            text=True, timeout=300, check=False,
                            env={**os.environ, failpoints.ENV: point})
    assert result.returncode == -signal.SIGKILL, result.stderr


def test_a_killed_download_leaves_staging_that_the_next_one_removes(mini, tmp_path, server):
    www, url = server
    archive.pack(mini, www / "release.tar.gz")
    dest = tmp_path / "installed"
    _killed(DOWNLOAD, f"{url}/release.tar.gz", str(mini.path), str(dest),
            point="staging.created")
    assert [p.name.startswith(".download.") for p in dest.iterdir()] == [True]
    fetch(f"{url}/release.tar.gz", mini, dest)
    assert _installed_files(dest) == {r.path for r in mini.resources} | {"datapackage.json"}
    assert not list(dest.glob(".download.*"))


@pytest.mark.slow
def test_a_killed_build_leaves_staging_that_the_next_one_removes(mini, tmp_path):
    root = mini.path.parents[2]
    data_dir = root / MINI.data_dir
    for r in mini.resources:
        (mini.base / r.path).unlink()
    _killed(BUILD, str(root), str(Path(__file__).parent), point="staging.filled")
    assert len(list(data_dir.glob(".build.*.staging"))) == 1  # owned by a dead process
    assert not (mini.base / mini.resources[0].path).exists()  # nothing was installed
    freeze.build(MINI, root)
    assert not list(data_dir.glob(".build.*"))
    assert verify(mini).ok


def _sparse_member() -> bytes:
    info = tarfile.TarInfo("linear_lowhet/seed0/graph.parquet")
    info.type = tarfile.GNUTYPE_SPARSE
    return gzip.compress(info.tobuf(format=tarfile.GNU_FORMAT) + b"\0" * 1024)


@pytest.mark.parametrize("make, message", [
    (lambda: pax_bomb(64), "an extended header of 67108864 bytes at offset 0 (at most 65536"),
    (lambda: long_name_tar(100 * 1024), "an extended header of 10"),
    (_sparse_member, "sparse member"),
])
def test_archive_headers_are_bounded_before_tarfile_reads_them(make, message, mini, tmp_path,
                                                               monkeypatch, capsys):
    """tarfile reads a pax header whole: 2 GB of one took 2 GB of memory (a 2 MB file)."""
    path = tmp_path / "hostile.tar.gz"
    path.write_bytes(make())
    monkeypatch.setattr("icgbench.api.tables.tier_descriptor", lambda tier: mini)
    dest = tmp_path / "dest"
    assert main(["data", "download", "--url", str(path), "--outdir", str(dest)]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err
    assert not dest.exists() or _installed_files(dest) == set()


def test_long_member_names_are_cut_short_in_messages(mini, tmp_path, monkeypatch, capsys):
    path = tmp_path / "long.tar.gz"
    path.write_bytes(long_name_tar(60_000))  # a 100 MB name once made 200 MB of error text
    monkeypatch.setattr("icgbench.api.tables.tier_descriptor", lambda tier: mini)
    assert main(["data", "download", "--url", str(path), "--outdir", str(tmp_path / "d")]) == 1
    err = capsys.readouterr().err
    assert "is not in the descriptor" in err and "59800 more characters" in err
    assert len(err) < 1000
