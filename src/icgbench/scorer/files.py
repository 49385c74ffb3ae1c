"""A model's submissions as one unit: the files named on a command line, folders and
archives expanded.

A folder stands for the submission files directly inside it (``*.json`` and ``*.json.gz``,
in name order); an archive (``.zip``, ``.tar``, ``.tar.gz``, ``.tgz``) for the submission
files it holds, unpacked into a temporary folder (:mod:`.archives`). The score reports
``icgbench score`` writes beside submissions (``*.report.json``) are never taken for
submissions, and one named by hand is refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
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


@dataclass
class Submissions:
    """The files to check, in order, and the archive each unpacked one came from."""

    files: list[Path] = field(default_factory=list)
    archive_of: dict[Path, Path] = field(default_factory=dict)


def submission_files(paths: Iterable[Path], unpack_into: Path | None = None,
                     max_bytes: int | None = None) -> Submissions:
    """Each path, in order, a folder replaced by its submission files and an archive by the
    ones it holds, unpacked into ``unpack_into/<archive name>/`` (an archive without
    ``unpack_into`` is refused)."""
    from icgbench.scorer.archives import is_archive, unpack_submissions
    from icgbench.scorer.parse import DEFAULT_MAX_BYTES

    out = Submissions()
    for index, path in enumerate(map(Path, paths)):
        if path.is_dir() and not path.is_symlink():
            found = sorted(p for p in path.iterdir()
                           if is_submission_name(p) and p.is_file() and not p.is_symlink())
            if not found:
                raise UsageError(f"{printable(str(path))}: a folder with no submission file "
                                 f"(*.json, *.json.gz; *{REPORT_SUFFIX} is a score report)")
            out.files.extend(found)
        elif is_report(path):
            raise UsageError(f"{printable(str(path))} is a score report (icgbench score "
                             "writes one beside each submission), not a submission")
        elif is_archive(path) and path.is_file():
            if unpack_into is None:
                raise UsageError(f"{printable(str(path))}: an archive needs a folder to be "
                                 "unpacked into")
            folder = unpack_into / str(index) / path.name  # one per argument: named twice ok
            unpacked = unpack_submissions(path, folder, is_submission_name,
                                          DEFAULT_MAX_BYTES if max_bytes is None else max_bytes)
            out.files.extend(unpacked)
            out.archive_of.update(dict.fromkeys(unpacked, path))
        else:
            out.files.append(path)
    return out


def several(paths: Iterable[Path]) -> bool:
    """Whether ``paths`` name a unit of files (more than one, a folder or an archive): then
    each file gets its own verdict and the command a summary."""
    from icgbench.scorer.archives import is_archive

    paths = list(map(Path, paths))
    return len(paths) > 1 or any(p.is_dir() or is_archive(p) for p in paths)
