"""A model's submissions as one unit: the files named on a command line, folders expanded.

A folder stands for the submission files directly inside it (``*.json`` and ``*.json.gz``,
in name order); the score reports ``icgbench score`` writes beside them
(``*.report.json``) are never taken for submissions, and one named by hand is refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from icgbench.errors import UsageError
from icgbench.io.untrusted import printable

SUBMISSION_SUFFIXES = (".json", ".json.gz")
REPORT_SUFFIX = ".report.json"


def is_report(path: Path) -> bool:
    """A score report's name, as ``icgbench score`` writes it."""
    return path.name.endswith(REPORT_SUFFIX)


def is_submission_name(path: Path) -> bool:
    return path.name.endswith(SUBMISSION_SUFFIXES) and not is_report(path)


def submission_files(paths: Iterable[Path]) -> list[Path]:
    """Each path, in order, a folder replaced by its submission files."""
    out: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir() and not path.is_symlink():
            found = sorted(p for p in path.iterdir()
                           if is_submission_name(p) and p.is_file() and not p.is_symlink())
            if not found:
                raise UsageError(f"{printable(str(path))}: a folder with no submission file "
                                 f"(*.json, *.json.gz; *{REPORT_SUFFIX} is a score report)")
            out.extend(found)
        elif is_report(path):
            raise UsageError(f"{printable(str(path))} is a score report (icgbench score "
                             "writes one beside each submission), not a submission")
        else:
            out.append(path)
    return out
