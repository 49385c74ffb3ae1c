"""The leaderboard site at 100, 1,000 and 10,000 entries: render time, page sizes, and the
time a real browser (headless Chromium) takes to load the largest page.

Targets (issue: a page that works at 10,000 entries): every page under 2 MB, the largest
loaded in under 10 s. The boards are the committed board's entries copied under new model
names (``m0001``, ...), 30 cohorts per model, each with a small stored file; figures are
the repository's. Each size is rendered by the ``icgbench`` command in a child process, best
of ``--repeat`` runs; ratios are against the 100-entry board measured in the same run.

    python benchmarks/bench_page.py [--sizes 100 1000 10000] [--repeat 2]
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ICGBENCH = Path(sys.executable).parent / "icgbench"


def make_board(folder: Path, size: int) -> None:
    """A board of ``size`` entries: the committed entries renamed model by model."""
    from icgbench.leaderboard.store import load_board, write_board

    by_model: dict[str, list] = {}
    for e in load_board(ROOT / "leaderboard", new_tier=None).entries:
        by_model.setdefault(e.model_name, []).append(e)
    template = max(by_model.values(), key=len)  # one model's entries: every cohort once
    entries = []
    for i in range(-(-size // len(template))):
        for e in template:
            if len(entries) == size:
                break
            new = dataclasses.replace(e, model_name=f"m{i:04d}", package_version="1.0.0")
            new = dataclasses.replace(new, submission_path=new.canonical_path)
            stored = folder / new.submission_path
            stored.parent.mkdir(parents=True, exist_ok=True)
            stored.write_bytes(b"stored")
            entries.append(new)
    write_board(folder, "full", entries)


def best(seconds: list[float]) -> float:
    return min(seconds)


def timed(*args: object) -> float:
    """Seconds a child process takes (it must succeed)."""
    start = time.perf_counter()
    subprocess.run([str(a) for a in args], check=True, capture_output=True, timeout=600)
    return time.perf_counter() - start


def size_arguments(doc: str) -> argparse.Namespace:
    """``--sizes`` (board sizes) and ``--repeat`` (best of), for a board benchmark."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--repeat", type=int, default=2)
    return parser.parse_args()


def chromium_seconds(page: Path, profile: Path) -> float:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        return float("nan")
    return timed(binary, "--headless", "--no-sandbox", "--disable-gpu",
                 f"--user-data-dir={profile}", "--dump-dom", page.as_uri())


def main() -> None:
    args = size_arguments(__doc__)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-page-") as tmp:
        for size in args.sizes:
            board = Path(tmp) / f"board{size}"
            make_board(board, size)
            times = []
            for r in range(args.repeat):
                out = Path(tmp) / f"site{size}-{r}"
                times.append(timed(ICGBENCH, "leaderboard", "render", "--dir", board, "--outdir",
                                   out, "--no-oracle"))
            pages = sorted(out.glob("*.html"), key=lambda p: p.stat().st_size)
            largest = pages[-1]
            load = best([chromium_seconds(largest, Path(tmp) / f"p{size}-{r}")
                         for r in range(args.repeat)])
            rows.append((size, best(times), (out / "index.html").stat().st_size,
                         largest.name, largest.stat().st_size, load))
    ref = rows[0]
    print(f"{'entries':>8} {'render s':>9} {'x ref':>6} {'index KB':>9} {'largest page':>22} "
          f"{'KB':>7} {'browser s':>10}")
    for size, render, index, name, largest, load in rows:
        print(f"{size:>8} {render:>9.2f} {render / ref[1]:>6.1f} {index / 1024:>9.0f} "
              f"{name:>22} {largest / 1024:>7.0f} {load:>10.2f}")
    print("targets: every page under 2048 KB; the largest loaded in under 10 s")


if __name__ == "__main__":
    main()
