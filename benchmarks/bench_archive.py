"""Archives cost what their members cost: `icgbench validate` and `icgbench score` of a zip
of N valid templates against the same N files in a folder, measured in the same run.

Target: the archive within 1.25x of the folder (unpacking is the only extra work), so the
1,024-member bound bounds an archive's time as it bounds a folder's. Each command runs in a
child process; the best of ``--repeats`` runs is printed, with the ratio.

Then a release archive (the small tier, as `icgbench data pack` writes it): the share of
its verified unpacking (`release.archive.unpack_verified`) that the header walk of
`release.tar_headers` takes, the pass that bounds the headers before tarfile reads them.

    python benchmarks/bench_archive.py [--members 1024] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from _timing import best_of

ROOT = Path(__file__).resolve().parents[1]
ICGBENCH = [sys.executable, "-m", "icgbench"]


def _run(argv: list[str], cwd: Path) -> None:
    done = subprocess.run([*ICGBENCH, *argv], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "ICGBENCH_HOME": str(ROOT)}, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-500:]}")


def release_archive(work: Path, repeats: int) -> None:
    """The header walk's share of unpacking the small tier's release archive."""
    import gzip

    from icgbench.api.tables import tier_descriptor
    from icgbench.release.archive import unpack_verified
    from icgbench.release.tar_headers import check_headers

    packed = work / "small.tar.gz"
    _run(["data", "pack", "--tier", "small", "--out", str(packed)], work)

    def walk() -> None:
        with gzip.open(packed, "rb") as stream:
            check_headers(stream)

    def unpack() -> None:
        stage = work / "unpacked"
        shutil.rmtree(stage, ignore_errors=True)
        stage.mkdir()
        unpack_verified(packed, tier_descriptor("small"), stage)

    walked, unpacked = best_of(repeats, walk), best_of(repeats, unpack)
    print(f"release archive {packed.stat().st_size / 1e6:.1f} MB: header walk {walked:.3f} s "
          f"of {unpacked:.3f} s unpacking ({walked / unpacked:.0%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=1024, help="templates in the archive")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each command")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-archive-") as tmp:
        work = Path(tmp)
        _run(["submission", "template", "--variant", "linear_lowhet",
              "--out", str(work / "t.json")], work)
        data = (work / "t.json").read_bytes()
        folder = work / "folder"
        folder.mkdir()
        with zipfile.ZipFile(work / "many.zip", "w", zipfile.ZIP_DEFLATED) as z:
            for i in range(args.members):
                z.writestr(f"s{i:04d}.json", data)
                (folder / f"s{i:04d}.json").write_bytes(data)
        print(f"{args.members:,} templates of {len(data):,} bytes; zip "
              f"{(work / 'many.zip').stat().st_size:,} bytes; best of {args.repeats}")
        print(f"{'command':<12}{'folder s':>10}{'zip s':>10}{'ratio':>8}")
        for command in ("validate", "score"):
            def on(target: str, command: str = command) -> None:
                _run([command, target], work)
                shutil.rmtree(work / "many.zip.reports", ignore_errors=True)
                for report in folder.glob("*.report.json"):
                    report.unlink()
            plain = best_of(args.repeats, lambda: on(str(folder)))
            packed = best_of(args.repeats, lambda: on(str(work / "many.zip")))
            print(f"{command:<12}{plain:>10.1f}{packed:>10.1f}{packed / plain:>8.2f}",
                  flush=True)
        release_archive(work, args.repeats)
    print("wrote nothing (the archive and its reports were in a temporary folder)")


if __name__ == "__main__":
    main()
