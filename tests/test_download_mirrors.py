"""`icgbench data download` over several sources: a broken first mirror, a good second one.

A broken mirror answers 404 (final at once), 500 (retried with the back-off) or sends an
archive whose bytes fail the hash check; the download then succeeds from the next source,
the message names it, each failure is printed once, and a second run uses the cached
archive without the network. Sources come from the descriptor's mirrors, ``--url`` given
several times, and ``ICGBENCH_MIRRORS``. The servers are ``http.server`` on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import http.server
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from icgbench.cli import main
from icgbench.release import archive, download
from icgbench.release.descriptor import Descriptor, load_descriptor
from icgbench.release.verify import verify
from release_helpers import mini_release, serve


class _Routes(http.server.BaseHTTPRequestHandler):
    """Answers each path from ``routes``: (status, body); anything else is a 404."""

    routes: dict[str, tuple[int, bytes]]
    hits: list[str]

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.hits.append(self.path)
        status, body = self.routes.get(self.path, (404, b"not here"))
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextlib.contextmanager
def serving(routes: dict[str, tuple[int, bytes]], hits: list[str]) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 (a free port) answering ``routes``; yields its base URL."""
    with serve(type("Routes", (_Routes,), {"routes": routes, "hits": hits})) as url:
        yield url


@pytest.fixture()
def home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("ICGBENCH_HOME", str(home))
    monkeypatch.delenv(download.MIRRORS_ENV, raising=False)
    monkeypatch.setattr(download, "BACKOFF_SECONDS", 0.0)
    return home


@pytest.fixture()
def mini(tmp_path, home) -> Descriptor:
    return mini_release(tmp_path)


def _listing(d: Descriptor, mirrors: list[str], monkeypatch) -> Descriptor:
    """``d`` with ``mirrors`` as its ``icgbench:mirrors``, as every data command sees it."""
    document = json.loads(d.path.read_text())
    document["icgbench:mirrors"] = mirrors
    d.path.write_text(json.dumps(document))
    d = load_descriptor(d.path)
    monkeypatch.setattr("icgbench.api.tables.tier_descriptor", lambda tier: d)
    return d


def _archives(d: Descriptor, tmp_path: Path) -> tuple[bytes, bytes]:
    """The tier's genuine archive (packed after its mirrors are listed: it holds the
    descriptor), and a copy one of whose members fails its hash check."""
    good = archive.pack(d, tmp_path / "good.tar.gz").read_bytes()
    return good, _flip_a_member_byte(good)


def _flip_a_member_byte(good: bytes) -> bytes:
    """The archive re-packed with one byte of a data member changed (a hash mismatch)."""
    import gzip
    import io
    import tarfile

    out = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(good)) as src, tarfile.open(fileobj=out,
                                                                     mode="w") as dst:
        members = src.getmembers()
        flipped = next(m.name for m in members if m.name.endswith(".parquet"))
        for member in members:
            data = src.extractfile(member).read()
            if member.name == flipped:
                data = data[:-1] + bytes([data[-1] ^ 1])
            dst.addfile(member, io.BytesIO(data))
    return gzip.compress(out.getvalue(), mtime=0)


def _installed(d: Descriptor, dest: Path) -> bool:
    return (all((dest / r.path).is_file() for r in d.resources)
            and verify(load_descriptor(dest / "datapackage.json")).ok)


def _cli(dest: Path, *argv: str) -> int:
    return main(["data", "download", "--retries", "2", "--outdir", str(dest), *argv])


BROKEN = {
    "404": (None, "HTTP 404", 1),
    "500": ((500, b"oops"), "HTTP 500", 3),  # the first attempt and two retries
    "bad-hash": ("tampered", "does not match the descriptor", 1),
}


@pytest.mark.slow
@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_a_broken_first_mirror_falls_through_to_the_second(broken, mini, tmp_path,
                                                           monkeypatch, capsys):
    answer, reason, requests = BROKEN[broken]
    routes: dict[str, tuple[int, bytes]] = {}
    hits: list[str] = []
    with serving(routes, hits) as url:
        d = _listing(mini, [f"{url}/broken.tar.gz", f"{url}/good.tar.gz"], monkeypatch)
        good, tampered = _archives(d, tmp_path)
        routes["/good.tar.gz"] = (200, good)
        if answer == "tampered":
            routes["/broken.tar.gz"] = (200, tampered)
        elif answer is not None:
            routes["/broken.tar.gz"] = answer
        assert _cli(tmp_path / "first") == 0
        first = capsys.readouterr()
        assert _cli(tmp_path / "second") == 0
        second = capsys.readouterr()

    assert first.out.strip() == (f"downloaded and verified {len(d.resources)} files of the "
                                 f"mini tier from {url}/good.tar.gz into {tmp_path / 'first'}")
    [failure] = first.err.splitlines()
    assert failure.startswith(f"icgbench: {url}/broken.tar.gz") or failure.startswith(
        f"icgbench: cannot download {url}/broken.tar.gz"), failure
    assert reason in failure and failure.endswith("; trying the next source (2 of 2)")
    assert hits == ["/broken.tar.gz"] * requests + ["/good.tar.gz"]  # second run: no network
    [cached] = (tmp_path / "home" / "cache").iterdir()
    assert second.out.strip() == (
        f"using the cached archive {cached} (already downloaded from {url}/good.tar.gz): "
        f"verified and installed {len(d.resources)} files of the mini tier into "
        f"{tmp_path / 'second'}")
    assert "downloaded" not in second.out.replace("already downloaded", "")
    assert not second.err
    assert _installed(d, tmp_path / "first") and _installed(d, tmp_path / "second")


@pytest.mark.slow
def test_url_may_be_given_several_times_and_replaces_the_mirrors(mini, tmp_path,
                                                                 monkeypatch, capsys):
    routes: dict[str, tuple[int, bytes]] = {}
    hits: list[str] = []
    with serving(routes, hits) as url:
        d = _listing(mini, [f"{url}/listed.tar.gz"], monkeypatch)
        routes["/good.tar.gz"] = (200, _archives(d, tmp_path)[0])
        monkeypatch.setenv(download.MIRRORS_ENV, f"{url}/from-env.tar.gz")
        code = _cli(tmp_path / "dest", "--url", f"{url}/missing.tar.gz", "--url",
                    f"{url}/good.tar.gz")
    out, err = capsys.readouterr()
    assert code == 0 and hits == ["/missing.tar.gz", "/good.tar.gz"]
    assert out.rstrip().endswith(f"from {url}/good.tar.gz into {tmp_path / 'dest'}")
    assert err.count("HTTP 404") == 1 and err.count("\n") == 1


@pytest.mark.slow
def test_icgbench_mirrors_are_tried_before_the_descriptors(mini, tmp_path, monkeypatch,
                                                            capsys):
    routes: dict[str, tuple[int, bytes]] = {}
    hits: list[str] = []
    with serving(routes, hits) as url:
        d = _listing(mini, [f"{url}/listed.tar.gz"], monkeypatch)
        routes["/mini-x.tar.gz"] = (200, _archives(d, tmp_path)[0])
        monkeypatch.setenv(download.MIRRORS_ENV, f" {url}/a.tar.gz,\n{url}/{{tier}}-x.tar.gz ")
        assert download.sources(d, None) == [f"{url}/a.tar.gz", f"{url}/mini-x.tar.gz",
                                             f"{url}/listed.tar.gz"]
        assert _cli(tmp_path / "dest") == 0
    assert hits == ["/a.tar.gz", "/mini-x.tar.gz"]
    assert capsys.readouterr().out.rstrip().endswith(f"from {url}/mini-x.tar.gz into "
                                                     f"{tmp_path / 'dest'}")


def test_every_source_failing_prints_each_failure_once(mini, tmp_path, monkeypatch, capsys):
    routes: dict[str, tuple[int, bytes]] = {"/500.tar.gz": (500, b"")}
    hits: list[str] = []
    with serving(routes, hits) as url:
        sources = [f"{url}/404.tar.gz", f"{url}/500.tar.gz", f"{url}/bad.tar.gz"]
        d = _listing(mini, sources, monkeypatch)
        routes["/bad.tar.gz"] = (200, _archives(d, tmp_path)[1])
        code = _cli(tmp_path / "dest", "--retries", "1")
    err = capsys.readouterr().err
    assert code == 1, err  # an archive that does not match is invalid input
    assert hits == ["/404.tar.gz", "/500.tar.gz", "/500.tar.gz", "/bad.tar.gz"]
    hint = (f"icgbench: where no mirror answers, build the {d.tier} tier here instead (no "
            f"network, the same bytes): icgbench data build --tier {d.tier}")
    assert err.splitlines()[-2] == hint  # said once, before the error
    lines = [line for line in err.splitlines() if line != hint]
    assert len(lines) == 3 and "Traceback" not in err, err
    for line, source in zip(lines, sources, strict=True):
        assert err.count(source) == 1 and source in line
    assert "(2 attempts)" in lines[1]
    assert lines[2].startswith(f"icgbench: error: {url}/bad.tar.gz: ")
    assert lines[2].endswith("every source failed (3), nothing was installed")
    assert not (tmp_path / "dest").exists() or not any((tmp_path / "dest").rglob("*.parquet"))
    assert not list((tmp_path / "home" / "cache").glob("*.tar.gz"))


def test_a_bad_scheme_in_icgbench_mirrors_is_refused_before_any_download(mini, tmp_path,
                                                                         monkeypatch,
                                                                         capsys):
    hits: list[str] = []
    with serving({}, hits) as url:
        _listing(mini, [f"{url}/listed.tar.gz"], monkeypatch)
        monkeypatch.setenv(download.MIRRORS_ENV, "ftp://example.org/r.tar.gz")
        assert _cli(tmp_path / "dest") == 2
    err = capsys.readouterr().err
    assert "ftp://example.org/r.tar.gz: unsupported scheme 'ftp'" in err
    assert hits == [] and "Traceback" not in err
