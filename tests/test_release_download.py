"""`icgbench data download`: mirrors in order, retries, the per-user cache, local paths,
the time limit and the minimum rate.

Real HTTP servers on 127.0.0.1 stand in for the mirrors (one of them drips a byte at a
time); the archives are real.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from icgbench.cli import main
from icgbench.errors import InvalidInputError, UsageError, UserError
from icgbench.release import archive, download
from icgbench.release.descriptor import Descriptor, load_descriptor
from icgbench.release.verify import verify
from release_helpers import mini_release, served


@pytest.fixture()
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("ICGBENCH_HOME", str(home))
    monkeypatch.setattr(download, "BACKOFF_SECONDS", 0.0)  # retries at once
    return home


@pytest.fixture()
def mini(tmp_path, home):
    return mini_release(tmp_path)


@pytest.fixture()
def www(tmp_path):
    folder = tmp_path / "www"
    folder.mkdir()
    return folder


def _publish(d: Descriptor, folder: Path) -> None:
    """Put the tier's genuine archive and a tampered copy in ``folder``."""
    good = archive.pack(d, folder / "release.tar.gz").read_bytes()
    (folder / "tampered.tar.gz").write_bytes(good[:100] + bytes([good[100] ^ 1]) + good[101:])


def _with_mirrors(d: Descriptor, mirrors: list[str], www: Path) -> Descriptor:
    """The descriptor listing ``mirrors``, published (its archives) in ``www``."""
    document = json.loads(d.path.read_text())
    document["icgbench:mirrors"] = mirrors
    d.path.write_text(json.dumps(document))
    d = load_descriptor(d.path)
    _publish(d, www)
    return d


def _installed(d: Descriptor, dest: Path) -> bool:
    return (all((dest / r.path).is_file() for r in d.resources)
            and verify(load_descriptor(dest / "datapackage.json")).ok)


def test_mirrors_are_tried_in_order_past_a_failing_one(mini, www, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="icgbench")
    hits: list[str] = []
    with served(www, failures=-1, requests=hits) as down, served(www) as up:
        d = _with_mirrors(mini, [f"{down}/release.tar.gz", f"{up}/tampered.tar.gz",
                                 f"{up}/release.tar.gz"], www)
        dest, source, cached = download.download(d, tmp_path / "dest", retries=1)
    assert source == f"{up}/release.tar.gz" and cached is None
    assert _installed(d, dest)
    assert hits == ["/release.tar.gz"] * 2  # the first mirror: once, then one retry
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 2, warned
    assert "HTTP 503" in warned[0] and "(2 attempts)" in warned[0]
    assert f"{up}/tampered.tar.gz: corrupt or truncated archive" in warned[1]
    assert "trying the next source (3 of 3)" in warned[1]


def test_a_transient_failure_is_retried(mini, www, tmp_path):
    _publish(mini, www)
    hits: list[str] = []
    with served(www, failures=2, requests=hits) as url:
        dest, _, _ = download.download(mini, tmp_path / "dest", f"{url}/release.tar.gz",
                                       retries=2)
    assert len(hits) == 3 and _installed(mini, dest)


def test_every_source_failing_names_each_once_and_installs_nothing(mini, www, tmp_path,
                                                                    caplog):
    dest = tmp_path / "dest"
    with served(www, failures=-1) as down, served(www) as up:
        d = _with_mirrors(mini, [f"{down}/release.tar.gz", f"{up}/tampered.tar.gz"], www)
        with pytest.raises(InvalidInputError) as exc:
            download.download(d, dest, retries=0)
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warned == [f"cannot download {down}/release.tar.gz: HTTP 503 Service Unavailable;"
                      " trying the next source (2 of 2)"]
    message = str(exc.value)
    assert message.startswith(f"{up}/tampered.tar.gz: ")
    assert message.endswith("every source failed (2), nothing was installed")
    assert "HTTP 503" not in message
    assert not dest.exists() or not any(dest.rglob("*.parquet"))


def test_the_archive_is_cached_per_user_and_reused_offline(mini, www, tmp_path, home):
    _publish(mini, www)
    with served(www) as url:
        source = f"{url}/release.tar.gz"
        download.download(mini, tmp_path / "first", source, retries=0)
    cached = home / "cache" / download.cached_name(mini, source)
    assert cached.read_bytes() == (www / "release.tar.gz").read_bytes()
    dest, _, used = download.download(mini, tmp_path / "second", source, retries=0)  # offline
    assert used == cached and _installed(mini, dest)


def test_a_cached_archive_that_no_longer_verifies_is_fetched_again(mini, www, tmp_path, home,
                                                                   caplog):
    _publish(mini, www)
    hits: list[str] = []
    with served(www, requests=hits) as url:
        source = f"{url}/release.tar.gz"
        cached = home / "cache" / download.cached_name(mini, source)
        cached.parent.mkdir(parents=True)
        cached.write_bytes((www / "tampered.tar.gz").read_bytes())
        dest, _, used = download.download(mini, tmp_path / "dest", source, retries=0)
    assert used is None and hits == ["/release.tar.gz"] and _installed(mini, dest)
    assert cached.read_bytes() == (www / "release.tar.gz").read_bytes()
    [warning] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert f"the cached archive {cached} (from {source}) no longer verifies" in warning


def test_the_default_cache_is_the_platform_user_cache(monkeypatch):
    import platformdirs

    monkeypatch.delenv("ICGBENCH_HOME", raising=False)
    assert download.cache_dir() == Path(platformdirs.user_cache_dir("icgbench",
                                                                    appauthor=False))


@pytest.mark.parametrize("form", ["plain", "relative", "file-url"])
def test_a_local_archive_needs_no_url_scheme(form, mini, www, tmp_path, monkeypatch):
    _publish(mini, www)
    path = www / "release.tar.gz"
    monkeypatch.chdir(tmp_path)
    source = {"plain": str(path), "relative": "www/release.tar.gz",
              "file-url": path.as_uri()}[form]
    dest, used, cached = download.download(mini, tmp_path / "dest", source)
    assert used == source and cached is None and _installed(mini, dest)


def test_an_oversized_answer_is_cut_off_and_not_retried(mini, tmp_path, monkeypatch):
    folder = tmp_path / "big"
    folder.mkdir()
    (folder / "big.tar.gz").write_bytes(b"\0" * 4096)
    monkeypatch.setattr(archive, "archive_limit", lambda d: 1000)
    hits: list[str] = []
    with served(folder, requests=hits) as url, pytest.raises(InvalidInputError,
                                                              match="sent over 1000 bytes"):
        download.download(mini, tmp_path / "dest", f"{url}/big.tar.gz", retries=3)
    assert len(hits) == 1
    assert not list((tmp_path / "home" / "cache").glob("*.tar.gz"))


@pytest.mark.parametrize("source, message", [
    ("ftp://example.org/r.tar.gz", "unsupported scheme 'ftp'"),
    ("/no/such/archive.tar.gz", "cannot read archive"),
])
def test_bad_sources_are_usage_errors(source, message, mini, tmp_path):
    with pytest.raises(UsageError, match=message):
        download.download(mini, tmp_path / "dest", source)


def test_a_folder_is_not_an_archive(mini, tmp_path):
    with pytest.raises(UsageError, match="not a regular file"):
        download.download(mini, tmp_path / "dest", str(tmp_path))


def test_without_url_or_mirrors_the_command_says_what_to_do(mini, tmp_path, monkeypatch,
                                                             capsys):
    monkeypatch.setattr("icgbench.api.tables.tier_descriptor", lambda tier: mini)
    assert main(["data", "download", "--outdir", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert "lists no mirrors" in err and "ICGBENCH_MIRRORS" in err and "--url" in err
    assert "data build" in err


def test_the_cli_downloads_from_the_mirrors(mini, www, tmp_path, monkeypatch, capsys):
    with served(www, failures=-1) as down, served(www) as up:
        d = _with_mirrors(mini, [f"{down}/release.tar.gz", f"{up}/release.tar.gz"], www)
        monkeypatch.setattr("icgbench.api.tables.tier_descriptor", lambda tier: d)
        dest = tmp_path / "cli"
        assert main(["data", "download", "--retries", "0", "--outdir", str(dest)]) == 0
    out = capsys.readouterr().out.strip()
    assert out.endswith(f"from {up}/release.tar.gz into {dest}")
    assert _installed(d, dest)


def test_the_committed_full_tier_lists_its_mirrors():
    from icgbench.api.tables import tier_descriptor
    from icgbench.release.tiers import TIERS

    assert tier_descriptor("full").mirrors == list(TIERS["full"].mirrors)


class _Drip(http.server.BaseHTTPRequestHandler):
    """Promises a megabyte, then sends one byte every ``interval`` seconds (0: never)."""

    interval = 0.1
    stop: threading.Event

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", str(1 << 20))
        self.end_headers()
        self.wfile.flush()
        try:
            while not self.stop.wait(self.interval or 0.05):
                if self.interval:
                    self.wfile.write(b"x")
                    self.wfile.flush()
        except OSError:  # the client hung up: what the test wants
            pass


@contextlib.contextmanager
def dripping(interval: float) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 that answers every request with a slow drip."""
    stop = threading.Event()
    handler = type("Drip", (_Drip,), {"interval": interval, "stop": stop})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02},
                     daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/release.tar.gz"
    finally:
        stop.set()
        httpd.shutdown()
        httpd.server_close()


def _download_cli(mini, monkeypatch, tmp_path, *argv: str) -> tuple[int, float]:
    """``icgbench data download --outdir DEST ARGV`` of the mini tier: (exit code, seconds)."""
    monkeypatch.setattr("icgbench.api.tables.tier_descriptor", lambda tier: mini)
    start = time.monotonic()
    code = main(["data", "download", "--outdir", str(tmp_path / "dest"), *argv])
    return code, time.monotonic() - start


@pytest.mark.slow
@pytest.mark.parametrize("interval, options, reason", [
    (0.1, ["--timeout", "1", "--min-rate", "0"], "gave up after 1 s"),
    # silence: the wait for data is cut to the deadline, and the message says so
    (0, ["--timeout", "1", "--min-rate", "0"], "gave up after 1 s"),
    (0.1, ["--timeout", "2", "--min-rate", "1000"], "too slow"),  # checked from 0.5 s
])
def test_a_dripping_server_is_cut_off(interval, options, reason, mini, tmp_path, monkeypatch,
                                      capsys):
    """A byte now and then kept a download alive forever: the deadline (--timeout, retries
    included) and the minimum rate (--min-rate, from a quarter of the deadline) end it."""
    with dripping(interval) as url:
        code, seconds = _download_cli(mini, monkeypatch, tmp_path, "--url", url, *options)
    err = capsys.readouterr().err
    assert code == 2 and reason in err and "Traceback" not in err, err
    assert seconds < 3
    assert not (tmp_path / "dest").exists() or not any((tmp_path / "dest").rglob("*.parquet"))
    assert not list((tmp_path / "home" / "cache").glob("*"))  # no partial download kept


@contextlib.contextmanager
def dripping_head(kind: str) -> Iterator[str]:
    """A raw server on 127.0.0.1 whose answer never ends its head: it drips the status
    line, or the headers, a byte every 0.05 s, or sends "100 Continue" forever (issue 49,
    item 10: the deadline covered only the body)."""
    import socket

    stop = threading.Event()
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)

    def answer(conn: socket.socket) -> None:
        head = {"status": b"HTTP/1.1 200 OK\r\n" * 1000,
                "headers": b"HTTP/1.1 200 OK\r\n" + b"X-Drip: " + b"y" * 100_000,
                "continue": b"HTTP/1.1 100 Continue\r\n\r\n" * 100_000}[kind]
        try:
            conn.recv(65536)
            step = 1 if kind != "continue" else 25
            for i in range(0, len(head), step):
                if stop.wait(0.05 if kind != "continue" else 0.01):
                    break
                conn.sendall(head[i:i + step])
        except OSError:
            pass
        finally:
            conn.close()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            threading.Thread(target=answer, args=(conn,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/release.tar.gz"
    finally:
        stop.set()
        server.close()


@pytest.mark.parametrize("kind", ["status", "headers", "continue"])
def test_a_server_dripping_its_head_is_cut_off_at_the_deadline(kind, mini, tmp_path,
                                                                monkeypatch, capsys):
    with dripping_head(kind) as url:
        code, seconds = _download_cli(mini, monkeypatch, tmp_path, "--url", url, "--timeout",
                                      "1", "--min-rate", "0", "--retries", "0")
    err = capsys.readouterr().err
    assert code == 2 and "gave up after 1 s" in err and "Traceback" not in err, err
    assert seconds < 3


def test_a_404_is_not_retried_and_is_reported_once(mini, www, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(download, "BACKOFF_SECONDS", 5.0)  # a retry would show in the time
    hits: list[str] = []
    with served(www, requests=hits) as url:
        code, seconds = _download_cli(mini, monkeypatch, tmp_path, "--url",
                                         f"{url}/none.tar.gz", "--retries", "3")
    err = capsys.readouterr().err
    assert code == 2 and hits == ["/none.tar.gz"] and seconds < 2
    assert err.count("HTTP 404") == 1, err


def test_a_silent_server_is_given_up_after_the_idle_time_within_the_deadline(mini):
    """Silence shorter than the deadline: the idle time ends the wait, and says so."""
    limits = download.Limits(deadline=5.0, idle=0.3, min_rate=0)
    with dripping(0) as url, pytest.raises(UserError, match=r"no data for 0\.3 s"):
        download.fetch(url, mini, retries=0, limits=limits)
