"""Getting a release archive: from a URL or path given, or from the descriptor's mirrors.

HTTP(S) sources are fetched with the standard library (a progress bar on a terminal) into
a per-user cache (``platformdirs``' user cache folder, or ``$ICGBENCH_HOME/cache``), so a
second install needs no network. A plain path or a ``file://`` URL is read in place.
Whatever the source, the archive is then checked member by member against the committed
descriptor (``archive.install``): a source that fails to answer, sends too much, is too
slow, or sends an archive that does not match is recorded, its cached copy dropped, and the
next mirror is tried. Only when every source failed does the command fail, naming each.

A source is given :attr:`Limits.deadline` seconds in all, retries included, and once a
quarter of that or :data:`RATE_GRACE_SECONDS` has passed (whichever comes first) it must
average :attr:`Limits.min_rate` bytes a second: a server that drips a byte now and then is
cut off, not waited on forever. A transient failure (no connection, a timeout, HTTP 408,
429 or 5xx) is retried after 1 s, then 2 s, ...; any other HTTP error (a 404) is not.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import unquote, urlparse

from icgbench import __version__
from icgbench.errors import InvalidInputError, UsageError, UserError
from icgbench.progress import progress_bar
from icgbench.release import archive
from icgbench.release.descriptor import Descriptor
from icgbench.release.locate import ENV_VAR

log = logging.getLogger(__name__)

#: Attempts after the first for each HTTP(S) source (waiting 1 s, 2 s, ... between).
DEFAULT_RETRIES = 2
#: Seconds without a byte (or to connect) before an attempt is given up.
TIMEOUT_SECONDS = 60.0
#: Seconds one source may take in all, retries included (``--timeout``).
DEFAULT_DEADLINE = 3600.0
#: Bytes a second a download must average once it has had time to start (``--min-rate``).
DEFAULT_MIN_RATE = 10_000.0
#: The rate is checked from this many seconds on (or a quarter of the deadline if sooner).
RATE_GRACE_SECONDS = 30.0
#: The first wait before a retry; each next one is longer by as much.
BACKOFF_SECONDS = 1.0
REMOTE_SCHEMES = ("http", "https")
CHUNK = 1 << 16
#: HTTP statuses worth retrying: the server or a proxy may answer next time.
TRANSIENT_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})


class TooLargeError(InvalidInputError):
    """A source sent more bytes than any archive of the release can hold (not retried)."""


class _Failed(Exception):
    """One attempt failed; ``transient`` when another attempt may succeed."""

    def __init__(self, reason: str, transient: bool) -> None:
        super().__init__(reason)
        self.transient = transient


@dataclass(frozen=True)
class Limits:
    """How long a source may take, and how slow it may be."""

    deadline: float = DEFAULT_DEADLINE
    min_rate: float = DEFAULT_MIN_RATE
    idle: float = TIMEOUT_SECONDS

    @property
    def grace(self) -> float:
        """Seconds before the rate is checked."""
        return min(RATE_GRACE_SECONDS, self.deadline / 4)


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


class _Clock:
    """The deadline and the rate of one source."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.start = time.monotonic()

    def remaining(self) -> float:
        left = self.limits.deadline - (time.monotonic() - self.start)
        if left <= 0:
            raise _Failed(f"gave up after {self.limits.deadline:g} s (the download's time "
                          "limit, --timeout)", transient=False)
        return left

    def check(self, received: int, began: float) -> None:
        """Raise when out of time, or too slow since ``began`` with ``received`` bytes."""
        self.remaining()
        elapsed = time.monotonic() - began
        rate = self.limits.min_rate
        if rate > 0 and elapsed >= self.limits.grace and received < rate * elapsed:
            raise _Failed(f"too slow: {received} bytes in {elapsed:.1f} s, under the minimum "
                          f"of {rate:g} bytes/s (--min-rate)", transient=False)


def _get(url: str, out: BinaryIO, limit: int, clock: _Clock) -> None:
    """One attempt: the body of ``url`` into ``out``, within ``limit`` bytes and the clock."""
    import http.client
    import socket
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, headers={"User-Agent": f"icgbench/{__version__}"})
    began = time.monotonic()
    timeout = min(clock.limits.idle, clock.remaining())
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            declared = response.headers.get("Content-Length")
            total = int(declared) if declared and declared.isdigit() else None
            if total is not None and total > limit:
                raise TooLargeError(f"{url} sent over {limit} bytes ({total} declared); no "
                                    "archive of this release is that large")
            received = 0
            with progress_bar(f"downloading {url}", total, unit="bytes") as advance:
                while block := response.read1(CHUNK):
                    received += len(block)
                    if received > limit:
                        raise TooLargeError(f"{url} sent over {limit} bytes; no archive of "
                                            "this release is that large")
                    out.write(block)
                    advance(len(block))
                    clock.check(received, began)
            if total is not None and received != total:
                raise _Failed(f"the connection closed after {received} of {total} bytes",
                              transient=True)
    except urllib.error.HTTPError as exc:
        raise _Failed(f"HTTP {exc.code} {exc.reason or ''}".strip(),
                      transient=exc.code in TRANSIENT_STATUS) from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        transient = isinstance(reason, TimeoutError | ConnectionError | socket.gaierror)
        raise _Failed(f"{getattr(reason, 'strerror', None) or reason}", transient) from None
    except TimeoutError:
        raise _Failed(f"no data for {timeout:.2g} s", transient=True) from None
    except (http.client.HTTPException, ConnectionError) as exc:
        raise _Failed(f"{type(exc).__name__}: {exc}", transient=True) from None


def fetch(url: str, descriptor: Descriptor, retries: int = DEFAULT_RETRIES,
          limits: Limits | None = None) -> Path:
    """The archive at ``url`` in the cache, downloaded unless already there."""
    limits = limits or Limits()
    folder = cache_dir()
    cached = folder / cached_name(descriptor, url)
    if cached.exists():
        log.info("%s is in the cache: %s", url, cached)
        return _regular_file(cached)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create the cache folder {folder}: {exc.strerror}") from None
    log.info("fetching %s into %s", url, folder)
    clock = _Clock(limits)
    limit = archive.archive_limit(descriptor)
    attempt = 0
    while True:
        try:
            return _attempt(url, cached, limit, clock)
        except _Failed as failure:
            attempt += 1
            if not failure.transient or attempt > retries:
                raise UsageError(f"cannot download {url}: {failure}") from None
            wait = BACKOFF_SECONDS * attempt
            log.info("%s failed (%s); retrying in %g s", url, failure, wait)
            try:
                time.sleep(min(wait, clock.remaining()))
            except _Failed as late:
                raise UsageError(f"cannot download {url}: {failure}; {late}") from None
        except OSError as exc:
            raise UsageError(f"cannot download {url}: {exc.strerror or exc}") from None


def _attempt(url: str, cached: Path, limit: int, clock: _Clock) -> Path:
    """One attempt into a temporary file beside ``cached``, renamed into place if whole."""
    fd, temporary = tempfile.mkstemp(prefix=f".{cached.name}.", suffix=".part",
                                     dir=cached.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            _get(url, out, limit, clock)
        os.replace(temporary, cached)
        return cached
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def download(descriptor: Descriptor, dest: Path, url: str | None = None,
             retries: int = DEFAULT_RETRIES, limits: Limits | None = None
             ) -> tuple[Path, str]:
    """Install the tier from the first source that gives a verified archive.

    Returns ``(dest, source)``; raises, naming every source tried, when none did. Each
    failure is reported once: in the error when every source failed (with ``-v``, also as
    it happens).
    """
    attempts: list[Attempt] = []
    worst: type[UserError] = UsageError
    chosen = sources(descriptor, url)
    for number, source in enumerate(chosen, 1):
        path = local_path(source)
        cached = path is None
        try:
            archive_file = _regular_file(path) if path is not None else fetch(
                source, descriptor, retries, limits)
            archive.install(archive_file, descriptor, dest)
        except UserError as exc:
            if isinstance(exc, InvalidInputError):
                worst = InvalidInputError
            attempts.append(Attempt(source, str(exc)))
            log.info("%s failed: %s", source, exc)
            if number < len(chosen):
                log.warning("source %d of %d failed; trying the next one", number,
                            len(chosen))
            if cached:
                (cache_dir() / cached_name(descriptor, source)).unlink(missing_ok=True)
            continue
        if attempts:
            log.warning("installed from %s after %d failed source(s): %s", source,
                        len(attempts), "; ".join(f"{a.source}: {a.problem}"
                                                 for a in attempts))
        return dest, source
    if len(attempts) == 1:
        raise worst(attempts[0].problem)
    listed = "\n  ".join(f"{a.source}: {a.problem}" for a in attempts)
    raise worst(f"every source failed ({len(attempts)}); nothing was installed:\n  {listed}")
