"""Hostile input to the release layer, through the ``icgbench`` command.

- a server that redirects a download to another scheme (``ftp://``), or says things meant
  for the terminal (escape sequences in its reason phrase);
- an archive whose headers tarfile cannot read without a traceback (a long run of pax
  global headers, read by recursion; a sparse map it parses unchecked);
- a release folder whose ``datapackage.json`` is malformed: the reason is in the message,
  and no command falls back to another release in silence.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import io
import json
import shutil
import tarfile
from pathlib import Path
from typing import ClassVar

import pytest

from icgbench.api.template import build_template
from icgbench.cli import main
from icgbench.release import archive, download
from release_helpers import ROOT, mini_release, serve, served


@pytest.fixture()
def home(tmp_path, monkeypatch):
    """A fresh, empty data home (the download cache), no release named, no mirrors."""
    home = tmp_path / "home"
    monkeypatch.setenv("ICGBENCH_HOME", str(home))
    monkeypatch.delenv("ICGBENCH_RELEASE", raising=False)
    monkeypatch.delenv(download.MIRRORS_ENV, raising=False)
    return home


@pytest.fixture()
def mini(tmp_path, home, monkeypatch):
    """The mini tier, which ``icgbench data download`` installs."""
    d = mini_release(tmp_path)
    monkeypatch.setattr("icgbench.api.tables.tier_descriptor", lambda tier: d)
    return d


def _files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def _one_line(err: str) -> str:
    assert "Traceback" not in err and err.count("\n") == 1 and err.endswith("\n"), err
    return err


class _Answer(http.server.BaseHTTPRequestHandler):
    """Answers every GET with the raw status line and headers of ``answers[path]``."""

    answers: ClassVar[dict[str, bytes]] = {}

    def log_message(self, *args):
        pass

    def do_GET(self):
        head = self.answers.get(self.path, b"HTTP/1.1 404 Not Found")
        self.wfile.write(head + b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


def _answering(answers: dict[str, bytes]):
    return serve(type("Answer", (_Answer,), {"answers": answers}))


def _redirect(location: str) -> bytes:
    return b"HTTP/1.1 302 Found\r\nLocation: " + location.encode()


def test_a_redirect_is_followed_to_http_but_not_to_ftp(mini, tmp_path, capsys):
    """urllib followed a 302 to ftp:// (opening an FTP session), a scheme --url refuses."""
    www = tmp_path / "www"
    www.mkdir()
    archive.pack(mini, www / "release.tar.gz")
    with served(www) as files, _answering({"/moved.tar.gz": _redirect(f"{files}/release.tar.gz"),
                                           "/ftp.tar.gz": _redirect("ftp://127.0.0.1/x")}
                                          ) as url:
        good = tmp_path / "good"
        assert main(["data", "download", "--url", f"{url}/moved.tar.gz", "--retries", "0",
                     "--outdir", str(good)]) == 0
        assert len(_files(good)) == len(mini.resources) + 1
        capsys.readouterr()
        dest = tmp_path / "dest"
        code = main(["data", "download", "--url", f"{url}/ftp.tar.gz", "--retries", "0",
                     "--outdir", str(dest)])
    err = _one_line(capsys.readouterr().err)
    assert code == 2, err
    assert (f"cannot download {url}/ftp.tar.gz: redirect from {url}/ftp.tar.gz to "
            "ftp://127.0.0.1/x refused: only http(s) redirects are followed (https only to "
            "https)") in err
    assert _files(dest) == []


@pytest.mark.parametrize("source, target, refused", [
    ("http://a.example/x", "http://b.example/y", False),
    ("http://a.example/x", "https://b.example/y", False),
    ("https://a.example/x", "https://b.example/y", False),
    ("HTTPS://a.example/x", "HTTPS://b.example/y", False),
    ("https://a.example/x", "http://a.example/x", True),     # down to clear text
    ("http://a.example/x", "ftp://a.example/x", True),
    ("https://a.example/x", "ftp://a.example/x", True),
    ("http://a.example/x", "file:///etc/passwd", True),
    ("http://a.example/x", "data:,hello", True),
    ("http://a.example/x", "gopher://a.example/x", True),
])
def test_the_redirect_rule(source, target, refused):
    problem = download.redirect_refused(source, target)
    if not refused:
        assert problem is None
    else:
        assert problem == (f"redirect from {source} to {target} refused: only http(s) "
                           "redirects are followed (https only to https)")


def test_a_redirect_to_a_url_that_does_not_parse_is_refused():
    assert download.redirect_refused("http://a.example/x", "http://[::1/x") == (
        "redirect from http://a.example/x to http://[::1/x refused: not a valid URL "
        "(Invalid IPv6 URL)")


def test_a_servers_reason_phrase_cannot_drive_the_terminal(mini, tmp_path, capsys):
    """The reason phrase of an HTTP error reached stderr raw: ESC, C1 CSI, BEL, DEL."""
    reason = b"Nope \x1b[2J\x1b]0;pwned\x07\x9b31m\x7f red"
    with _answering({"/a.tar.gz": b"HTTP/1.1 403 " + reason}) as url:
        code = main(["data", "download", "--url", f"{url}/a.tar.gz", "--retries", "0",
                     "--outdir", str(tmp_path / "dest")])
    err = _one_line(capsys.readouterr().err)
    assert code == 2
    assert "HTTP 403 Nope \\x1b[2J\\x1b]0;pwned\\x07\\x9b31m\\x7f red" in err, err
    assert not {"\x1b", "\x07", "\x9b", "\x7f"} & set(err)


def _global_headers(count: int) -> bytes:
    """A tar.gz of ``count`` pax global headers in a row, then the end of the archive."""
    record = b"18 comment=abcdef\n"
    info = tarfile.TarInfo("pax_global_header")
    info.type = tarfile.XGLTYPE
    info.size = len(record)
    block = info.tobuf(format=tarfile.USTAR_FORMAT) + record + b"\0" * (512 - len(record))
    return gzip.compress(block * count + b"\0" * 1024)


def _sparse_map(text: str) -> bytes:
    """A tar.gz whose one member's pax header holds a GNU sparse map ``text``."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo("linear_lowhet/seed0/graph.parquet")
        info.size = 1
        info.pax_headers = {"GNU.sparse.map": text, "GNU.sparse.name": "x"}
        tar.addfile(info, io.BytesIO(b"x"))
    return gzip.compress(raw.getvalue())


@pytest.mark.parametrize("make, message", [
    (functools.partial(_global_headers, 20_000), "archive has over 8 extended headers in a "
     "row (at offset 8192); it is not a release archive"),
    (functools.partial(_global_headers, 400), "archive has over 8 extended headers in a row"),
    (functools.partial(_sparse_map, "abc,def"), "archive holds a sparse member"),
], ids=["20000-global-headers", "400-global-headers", "sparse-map"])
def test_an_archive_tarfile_cannot_parse_is_refused_in_one_line(make, message, mini, tmp_path,
                                                                capsys):
    """20,000 pax global headers in a row (20 MB, 80 kB compressed) gave a RecursionError
    traceback; a sparse map of words a ValueError traceback."""
    path = tmp_path / "hostile.tar.gz"
    path.write_bytes(make())
    dest = tmp_path / "dest"
    code = main(["data", "download", "--url", str(path), "--outdir", str(dest)])
    err = _one_line(capsys.readouterr().err)
    assert code == 1 and f"{path}: {message}" in err, err
    assert _files(dest) == []


def _pax_block(records: dict[str, str], size: int | None = None) -> bytes:
    """A pax extended header holding ``records`` (declaring ``size`` bytes if given)."""
    payload = b"".join(f"{len(k) + len(v) + 3 + len(str(len(k) + len(v) + 3))} {k}={v}\n"
                       .encode() for k, v in records.items())
    info = tarfile.TarInfo("././@PaxHeader")
    info.type = tarfile.XHDTYPE
    info.size = len(payload) if size is None else size
    return info.tobuf(format=tarfile.USTAR_FORMAT) + payload + b"\0" * (-len(payload) % 512)


def test_a_header_behind_a_pax_size_record_is_where_the_walk_looks(mini, tmp_path, capsys):
    """The bounds walk steps over a member's data by its pax ``size`` record, as tarfile
    does, not by the ustar field: an oversized extended header placed where tarfile reads
    next (after 1,024 bytes of data the ustar field calls 0) is refused, at its offset."""
    member = tarfile.TarInfo("linear_lowhet/seed0/graph.parquet")
    member.size = 0
    hidden = tarfile.TarInfo("././@PaxHeader")
    hidden.type, hidden.size = tarfile.XHDTYPE, 200 * 1024
    raw = (_pax_block({"size": "1024"}) + member.tobuf(format=tarfile.USTAR_FORMAT)
           + b"\0" * 1024 + hidden.tobuf(format=tarfile.USTAR_FORMAT) + b"\0" * 512 * 402)
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:  # tarfile itself reads it so
        assert tar.next().size == 1024 and tar.offset == 2560
    path = tmp_path / "hostile.tar.gz"
    path.write_bytes(gzip.compress(raw))
    code = main(["data", "download", "--url", str(path), "--outdir", str(tmp_path / "dest")])
    err = _one_line(capsys.readouterr().err)
    assert code == 1 and "an extended header of 204800 bytes at offset 2560" in err, err


def _malformed_release(folder: Path) -> Path:
    """``folder`` holding the small tier's descriptor with ``name`` twice, on line 3."""
    folder.mkdir()
    lines = (ROOT / "datapackage.json").read_text().splitlines(keepends=True)
    assert lines[2].startswith('  "name": ')
    lines[2] = '  "name": "icg-bench-small", ' + lines[2].lstrip()
    (folder / "datapackage.json").write_text("".join(lines))
    return folder


def test_validate_inside_a_malformed_release_says_why_and_grades_nothing(home, tmp_path,
                                                                          monkeypatch, capsys):
    """Run in such a folder, validate graded against the source checkout, saying nothing."""
    submission = tmp_path / "template.json"
    submission.write_text(json.dumps(build_template("linear_lowhet", root=ROOT)))
    bad = _malformed_release(tmp_path / "release")
    (bad / "work").mkdir()
    monkeypatch.chdir(bad / "work")  # the release is found from a parent folder
    code = main(["validate", str(submission)])
    out, err = capsys.readouterr()
    assert code == 1 and "VALID" not in out, out
    assert _one_line(err) == (
        f"icgbench: error: datapackage.json in {bad}: duplicate object key 'name' at line 3 "
        "(the release found from the current folder; fix it, or set ICGBENCH_RELEASE to the "
        "release to use)\n")


def test_a_malformed_release_named_by_icgbench_release_says_why(home, tmp_path, monkeypatch,
                                                                capsys):
    """It said only 'does not hold an ICg-Bench datapackage.json', hiding the reason."""
    bad = _malformed_release(tmp_path / "release")
    monkeypatch.setenv("ICGBENCH_RELEASE", str(bad))
    code = main(["data", "list"])
    err = _one_line(capsys.readouterr().err)
    assert code == 1
    assert f"datapackage.json in {bad}: duplicate object key 'name' at line 3" in err, err


def test_a_release_with_a_truncated_descriptor_is_not_passed_over(home, tmp_path, monkeypatch,
                                                                  capsys):
    folder = tmp_path / "release"
    folder.mkdir()
    shutil.copyfile(ROOT / "datapackage.json", folder / "datapackage.json")
    with open(folder / "datapackage.json", "r+b") as f:
        f.truncate(1000)
    monkeypatch.chdir(folder)
    code = main(["data", "list"])
    err = _one_line(capsys.readouterr().err)
    assert code == 1 and f"datapackage.json in {folder}: not valid JSON: " in err, err
