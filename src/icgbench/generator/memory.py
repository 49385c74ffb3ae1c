"""How much memory and disk generating a cohort needs, and whether this machine has it.

Simulation holds every subject-month of the factual and intervened runs at once, so its
peak memory grows with subjects x months. The estimate is an upper bound measured with
``/usr/bin/time -f %M`` (about 3.2 KB per subject at 12 months and 5.4 KB at 48, plus a
fixed 175 MB; the constants below round these up). ``icgbench generate`` refuses a cohort
it cannot hold instead of failing deep inside numpy.
"""

from __future__ import annotations

import os
from pathlib import Path

FIXED_BYTES = 300 * 1024**2
BYTES_PER_SUBJECT = 4096
BYTES_PER_SUBJECT_MONTH = 100


def estimate_bytes(n_subjects: int, months: int) -> int:
    """Upper estimate of the peak memory of ``simulate`` for a cohort of this size."""
    return FIXED_BYTES + n_subjects * (BYTES_PER_SUBJECT + BYTES_PER_SUBJECT_MONTH * months)


def _cgroup_limit() -> int | None:
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            return int(text)
    return None


def available_bytes() -> int | None:
    """Memory this process can still use: MemAvailable, capped by a cgroup limit."""
    available = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                available = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    if available is None:
        try:
            available = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            return None
    limit = _cgroup_limit()
    return available if limit is None else min(available, limit)


def _gb(n: float) -> str:
    return f"{n / 1024**3:,.1f} GB" if n >= 1024**3 / 10 else f"{n / 1024**2:,.1f} MB"


def fits(n_subjects: int, months: int) -> str | None:
    """None when the cohort fits in memory; else a sentence saying why not."""
    need = estimate_bytes(n_subjects, months)
    have = available_bytes()
    if have is None or need <= have:
        return None
    return (f"simulating {n_subjects:,} subjects x {months} months at once needs about "
            f"{_gb(need)} of memory; this machine has {_gb(have)} available. Use fewer "
            "subjects, months or jobs.")


#: Bytes a generated cohort takes on disk (every table, zstd Parquet), per subject and per
#: subject-month, measured on `icgbench generate` outputs and rounded up.
DISK_BYTES_PER_SUBJECT = 1024
DISK_BYTES_PER_SUBJECT_MONTH = 64


def disk_bytes(n_subjects: int, months: int) -> int:
    """Upper estimate of the size of a generated cohort's dataset."""
    return n_subjects * (DISK_BYTES_PER_SUBJECT + DISK_BYTES_PER_SUBJECT_MONTH * months)


def disk_problem(n_subjects: int, months: int, out: Path) -> str | None:
    """None when the dataset fits on the disk holding ``out``; else a sentence why not."""
    import shutil

    folder = Path(out).absolute()
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return None
    need = disk_bytes(n_subjects, months)
    if need <= free:
        return None
    return (f"a cohort of {n_subjects:,} subjects x {months} months takes about {_gb(need)} "
            f"on disk; {folder} has {_gb(free)} free. Use fewer subjects or months, or "
            "another --out.")
