"""Hostile inputs under 10 MB must never take 1 GB, hang, or destroy another input.

Each case goes through the ``icgbench`` command where a user would meet it. The memory
cases run the command in a child process, which reports its own peak resident set size
(``VmHWM``; its ``ru_maxrss`` would include the test process's, which Linux carries over
fork and exec); a watchdog kills a child that passes 3 GB, so a regression is a failed
test, not a machine out of memory. They are slow (about 5 s each) and run in ``make
test-slow``; ``pytest tests/test_input_bounds.py -m slow`` prints each case's figure.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import struct
import subprocess
import sys
import tarfile
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from icgbench.release.descriptor import Descriptor
from release_helpers import mini_release
from scoring_helpers import template

ROOT = Path(__file__).resolve().parents[1]
MIB = 1 << 20
#: Every hostile input below must keep the command under this peak RSS.
LIMIT_KB = 1024 * 1024
#: A child over this is killed at once (the figure is then reported as "over").
WATCHDOG_KB = 3 * 1024 * 1024

CHILD = """
import os, sys
path = os.environ.get("ICGBENCH_TEST_DESCRIPTOR")
if path:  # the data commands take the tier's descriptor: point them at the mini tier
    import icgbench.api.tables
    from icgbench.release.descriptor import load_descriptor
    icgbench.api.tables.tier_descriptor = lambda tier="small", root=None: load_descriptor(path)
from icgbench.cli import main
code = main(sys.argv[1:])
with open("/proc/self/status") as status:
    peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
sys.stderr.write(f"\\npeak_kb={peak}\\n")
sys.exit(code)
"""

def gzip_repeated(head: bytes, chunk: bytes, times: int, tail: bytes) -> bytes:
    """``head + chunk * times + tail`` gzip-compressed, without compressing it all.

    The chunk is deflated once after a full flush (which resets the compressor, so every
    copy of it is the same bytes) and repeated; the header and trailer are written around.
    """
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    first = squeeze.compress(head) + squeeze.flush(zlib.Z_FULL_FLUSH)
    piece = squeeze.compress(chunk) + squeeze.flush(zlib.Z_FULL_FLUSH)
    last = squeeze.compress(tail) + squeeze.flush()
    crc = zlib.crc32(head)
    for _ in range(times):
        crc = zlib.crc32(chunk, crc)
    size = len(head) + times * len(chunk) + len(tail)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    trailer = struct.pack("<II", zlib.crc32(tail, crc), size & 0xFFFFFFFF)
    return header + first + piece * times + last + trailer


def _split_template(path: str, value: object) -> tuple[bytes, bytes]:
    """The template's JSON text around the value at ``path`` (a dotted path)."""
    doc = template()
    *parents, last = path.split(".")
    node = doc
    for key in parents:
        node = node[key]
    node[last] = "@@HERE@@"
    text = json.dumps(doc, ensure_ascii=False).encode()
    head, tail = text.split(b'"@@HERE@@"')
    return head, tail


def long_description(megabytes: int) -> bytes:
    """A gzip submission whose description is one emoji and then ``megabytes`` MiB of 'a'."""
    head, tail = _split_template("model.description", None)
    return gzip_repeated(head + '"\U0001f600'.encode(), b"a" * MIB, megabytes, b'"' + tail)


def repeated(megabytes: int, item: bytes, path: str) -> bytes:
    """A gzip submission whose list at ``path`` repeats ``item`` for ``megabytes`` MiB."""
    head, tail = _split_template(path, None)
    per = MIB // len(item)
    return gzip_repeated(head + b"[", item * per, megabytes, item.rstrip(b", ") + b"]" + tail)


def pax_bomb(megabytes: int) -> bytes:
    """A tar.gz whose first header is a pax extended header of ``megabytes`` MiB."""
    info = tarfile.TarInfo("././@PaxHeader")
    info.type = tarfile.XHDTYPE
    info.size = megabytes * MIB
    head = info.tobuf(format=tarfile.USTAR_FORMAT)
    return gzip_repeated(head, b"a" * MIB, megabytes, b"\0" * 1024)


def long_name_tar(length: int) -> bytes:
    """A tar.gz with one member whose (pax) name is ``length`` characters long."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo("x" * length)
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    return gzip.compress(raw.getvalue(), compresslevel=1)


def csv_bomb(megabytes: int) -> bytes:
    """A .csv.gz of ``megabytes`` MiB of one repeated CSV line (about a thousandth as big)."""
    return gzip_repeated(b"subject_id,x\n", b"S,0\n" * (MIB // 4), megabytes, b"")


def _resource(d: Descriptor, suffix: str):
    return next(r for r in d.resources if r.path.endswith(suffix))


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def peak_of(argv: list[str], env: dict[str, str] | None = None, timeout: float = 300
            ) -> tuple[int, int, str]:
    """(exit code, peak RSS in kB, stderr) of ``icgbench argv`` in a child process; a
    child over the watchdog's cap is killed and reported at the cap."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, *map(str, argv)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, **(env or {})})
    killed = threading.Event()

    def watch() -> None:
        while proc.poll() is None:
            if _rss_kb(proc.pid) > WATCHDOG_KB:
                killed.set()
                proc.kill()
                return
            time.sleep(0.01)

    threading.Thread(target=watch, daemon=True).start()
    _, err = proc.communicate(timeout=timeout)
    text = err.decode("utf-8", "backslashreplace")
    if killed.is_set():
        return proc.returncode, WATCHDOG_KB, text
    return proc.returncode, int(text.rsplit("peak_kb=", 1)[1]), text


def small_release(tmp_path: Path) -> Path:
    """The small tier's descriptor and its linear_lowhet seed 0 files, copied (all that
    grading a linear_lowhet submission reads); returns the release root."""
    import shutil

    root = tmp_path / "small"
    root.mkdir()
    shutil.copy(ROOT / "datapackage.json", root / "datapackage.json")
    cohort = Path("datasets/small/linear_lowhet/seed0")
    shutil.copytree(ROOT / cohort, root / cohort)
    return root


Case = Callable[[Path], tuple[list, dict[str, str]]]


def _submission(make: Callable[[], bytes]) -> Case:
    def case(tmp: Path) -> tuple[list, dict[str, str]]:
        path = tmp / "submission.json.gz"
        path.write_bytes(make())
        return ["validate", path], {}

    return case


def _release_file(suffix: str, damage: Callable[[Path], None]) -> Case:
    def case(tmp: Path) -> tuple[list, dict[str, str]]:
        d = mini_release(tmp)
        damage(d.base / _resource(d, suffix).path)
        return ["data", "verify", "--descriptor", d.path], {}

    return case


def _to_dev_zero(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


def _parquet_bomb(path: Path) -> None:
    """The file's columns, each string column one 40 MiB value in every row (dictionary
    encoded, so the file stays small; decoded, it is rows x 40 MiB)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    huge = pa.array(["x" * (40 * MIB)])
    columns = [pa.DictionaryArray.from_arrays(pa.array([0] * table.num_rows, pa.int32()), huge)
               if pa.types.is_string(table.schema.field(i).type) else table.column(i)
               for i in range(table.num_columns)]
    pq.write_table(pa.table(columns, names=table.column_names), path, compression="zstd")


def _archive(make: Callable[[], bytes]) -> Case:
    def case(tmp: Path) -> tuple[list, dict[str, str]]:
        d = mini_release(tmp)
        path = tmp / "hostile.tar.gz"
        path.write_bytes(make())
        return (["data", "download", "--url", path, "--outdir", tmp / "dest"],
                {"ICGBENCH_TEST_DESCRIPTOR": str(d.path)})

    return case


def _truth_on_dev_zero(tmp: Path) -> tuple[list, dict[str, str]]:
    root = small_release(tmp)
    _to_dev_zero(root / "datasets/small/linear_lowhet/seed0/test_outcomes.parquet")
    path = tmp / "submission.json"
    path.write_text(json.dumps(template()))
    return ["score", path, "--release", root, "--out", tmp / "report.json"], {}


def _hostile_descriptor(tmp: Path) -> tuple[list, dict[str, str]]:
    path = tmp / "datapackage.json"
    path.write_bytes(b'{"resources": [' + b"[], " * (9 * MIB // 4) + b"[]]}")
    return ["data", "verify", "--descriptor", path], {}


#: name -> (how to make the case, the exit code); the audit's inputs first, each under
#: 2.1 MB on disk, then documents just inside the parsing budget.
CASES: dict[str, tuple[Case, int]] = {
    "description: one emoji and 300 MiB of 'a'": (_submission(lambda: long_description(300)),
                                                  1),
    "500 MiB of repeated ids": (_submission(lambda: repeated(
        500, b'"TE000001", ', "latent_recovery.subject_id")), 1),
    "500 MiB of repeated floats": (_submission(lambda: repeated(
        500, b"0.1234567890123456, ", "latent_recovery.states.ROS")), 1),
    "tar with a 2000 MiB pax header": (_archive(lambda: pax_bomb(2000)), 1),
    "tampered csv.gz inflating to 1400 MiB": (_release_file(
        ".csv.gz", lambda p: p.write_bytes(csv_bomb(1400))), 1),
    "release file linked to /dev/zero": (_release_file(".parquet", _to_dev_zero), 1),
    "truth table linked to /dev/zero": (_truth_on_dev_zero, 1),
    "tampered Parquet decoding to rows x 40 MiB": (_release_file(
        "subjects.parquet", _parquet_bomb), 1),
    "9 MiB descriptor of empty lists": (_hostile_descriptor, 1),
    "ids just inside the budget (50 MiB)": (_submission(lambda: repeated(
        50, b'"TE000001", ', "latent_recovery.subject_id")), 1),
    "objects just inside the budget (22 MiB)": (_submission(lambda: repeated(
        22, b"{}, ", "latent_recovery.states.ROS")), 1),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_hostile_input_stays_under_1_gb(name, tmp_path, capsys):
    make, code = CASES[name]
    argv, env = make(tmp_path)
    files = [a for a in argv if isinstance(a, Path) and a.is_file()]
    assert all(f.stat().st_size < 10 * 1000**2 for f in files), files
    returncode, peak_kb, stderr = peak_of(argv, env)
    with capsys.disabled():
        print(f"\n  {name}: exit {returncode}, peak RSS {peak_kb / 1024:,.0f} MB")
    assert peak_kb < LIMIT_KB, f"{name}: {peak_kb / 1024:,.0f} MB\n{stderr[-2000:]}"
    assert returncode == code, stderr[-2000:]
    assert "Traceback" not in stderr
