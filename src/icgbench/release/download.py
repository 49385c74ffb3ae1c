"""Getting a release archive: from a URL or path given, or from the descriptor's mirrors.

HTTP(S) sources are fetched with pooch (retries with back-off, a progress bar on a terminal)
into a per-user cache (``platformdirs``' user cache folder, or ``$ICGBENCH_HOME/cache``), so
a second install needs no network. A plain path or a ``file://`` URL is read in place.
Whatever the source, the archive is then checked member by member against the committed
descriptor (``archive.install``): a source that fails to answer, sends too much, or sends
an archive that does not match is recorded, its cached copy dropped, and the next mirror is
tried. Only when every source failed does the command fail, naming each.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from icgbench.errors import InvalidInputError, UsageError, UserError
from icgbench.release import archive
from icgbench.release.descriptor import Descriptor
from icgbench.release.locate import ENV_VAR

log = logging.getLogger(__name__)

#: Attempts after the first for each HTTP(S) source (pooch waits 1 s, 2 s, ... between).
DEFAULT_RETRIES = 2
TIMEOUT_SECONDS = 60
REMOTE_SCHEMES = ("http", "https")


class TooLargeError(InvalidInputError):
    """A source sent more bytes than any archive of the release can hold (not retried)."""


@dataclass(frozen=True)
class Attempt:
    """One source tried, and why it was given up."""

    source: str
    problem: str


def cache_dir() -> Path:
    """Where downloaded archives are kept: ``$ICGBENCH_HOME/cache`` or the user cache."""
    home = os.environ.get(ENV_VAR)
    if home:
        return Path(home) / "cache"
    import platformdirs

    return Path(platformdirs.user_cache_dir("icgbench", appauthor=False))


def cached_name(descriptor: Descriptor, url: str) -> str:
    """The archive's file name in the cache: package name, data version and source."""
    source = hashlib.sha256(url.encode()).hexdigest()[:12]
    return f"{descriptor.document['name']}-{descriptor.version}-{source}.tar.gz"


def sources(descriptor: Descriptor, url: str | None) -> list[str]:
    """What to try, in order: the source given, or else every mirror of the descriptor."""
    if url is not None:
        return [url]
    mirrors = descriptor.mirrors
    if not mirrors:
        raise UsageError(
            f"the {descriptor.tier} tier of release {descriptor.version} lists no mirrors: "
            "pass --url URL (an http(s) address, a file:// URL or a local path), or build "
            f"the tier locally with `icgbench data build --tier {descriptor.tier}`")
    return mirrors


def local_path(source: str) -> Path | None:
    """The file a local source names (a plain path or ``file://``), or None for a URL."""
    parsed = urlparse(source)
    if parsed.scheme == "file":
        return Path(unquote(parsed.path))
    if parsed.scheme in REMOTE_SCHEMES:
        return None
    if parsed.scheme and len(parsed.scheme) > 1:  # one letter: a Windows drive
        raise UsageError(f"cannot download {source}: unsupported scheme {parsed.scheme!r} "
                         "(use http, https, file or a local path)")
    return Path(source)


def _regular_file(path: Path) -> Path:
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise UsageError(f"cannot read archive {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise UsageError(f"archive {path} is not a regular file")
    return path


class _Bounded:
    """A writable file that refuses to grow past ``limit`` bytes."""

    def __init__(self, handle: Any, limit: int, source: str) -> None:
        self.handle, self.limit, self.source, self.size = handle, limit, source, 0

    def write(self, data: bytes) -> int:
        self.size += len(data)
        if self.size > self.limit:
            raise TooLargeError(f"{self.source} sent over {self.limit} bytes; no archive of "
                                "this release is that large")
        return self.handle.write(data)

    def flush(self) -> None:
        self.handle.flush()


def _downloader(limit: int, progress: bool) -> Any:
    import pooch

    class BoundedHTTPDownloader(pooch.HTTPDownloader):
        """pooch's HTTP downloader, writing through :class:`_Bounded`."""

        def __call__(self, url: str, output_file: Any, pooch_: Any,
                     check_only: bool = False) -> Any:
            if check_only:
                return super().__call__(url, output_file, pooch_, check_only=True)
            with open(output_file, "w+b") as handle:
                return super().__call__(url, _Bounded(handle, limit, url), pooch_)

    return BoundedHTTPDownloader(progressbar=progress, timeout=TIMEOUT_SECONDS)


def fetch(url: str, descriptor: Descriptor, retries: int = DEFAULT_RETRIES) -> Path:
    """The archive at ``url`` in the cache, downloaded with pooch unless already there."""
    import pooch
    import requests

    pooch.get_logger().setLevel(max(logging.WARNING, log.getEffectiveLevel()))
    name = cached_name(descriptor, url)
    fetcher = pooch.create(path=cache_dir(), base_url="", registry={name: None},
                           urls={name: url}, retry_if_failed=retries)
    if (fetcher.abspath / name).is_file():
        log.info("%s is in the cache: %s", url, fetcher.abspath / name)
    else:
        log.info("fetching %s into %s", url, fetcher.abspath)
    progress = os.isatty(2)
    try:
        return Path(fetcher.fetch(name, downloader=_downloader(archive.archive_limit(descriptor),
                                                               progress)))
    except requests.exceptions.RequestException as exc:
        raise UsageError(f"cannot download {url}: {_reason(exc)}") from None
    except OSError as exc:
        raise UsageError(f"cannot download {url}: {exc.strerror or exc}") from None


def _reason(exc: Exception) -> str:
    response = getattr(exc, "response", None)
    if response is not None and response.status_code:
        return f"HTTP {response.status_code} {response.reason or ''}".strip()
    return type(exc).__name__


def download(descriptor: Descriptor, dest: Path, url: str | None = None,
             retries: int = DEFAULT_RETRIES) -> tuple[Path, str]:
    """Install the tier from the first source that gives a verified archive.

    Returns ``(dest, source)``; raises, naming every source tried, when none did.
    """
    attempts: list[Attempt] = []
    worst: type[UserError] = UsageError
    for source in sources(descriptor, url):
        path = local_path(source)
        cached = path is None
        try:
            archive_file = _regular_file(path) if path is not None else fetch(
                source, descriptor, retries)
            archive.install(archive_file, descriptor, dest)
            return dest, source
        except UserError as exc:
            if isinstance(exc, InvalidInputError):
                worst = InvalidInputError
            attempts.append(Attempt(source, str(exc)))
            log.warning("%s failed: %s", source, exc)
            if cached:
                (cache_dir() / cached_name(descriptor, source)).unlink(missing_ok=True)
    if len(attempts) == 1:
        raise worst(attempts[0].problem)
    listed = "\n  ".join(f"{a.source}: {a.problem}" for a in attempts)
    raise worst(f"every source failed ({len(attempts)}); nothing was installed:\n  {listed}")
