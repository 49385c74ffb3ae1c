"""Getting a release archive: from the sources given, or from the listed mirrors.

The sources are tried in order, each once: the ``--url`` sources given; without any,
those ``$ICGBENCH_MIRRORS`` lists, then the descriptor's mirrors (``icgbench:mirrors``).
HTTP(S) sources are fetched with the standard library (a progress bar on a terminal) into
a per-user cache (``$ICGBENCH_HOME/cache``, or ``platformdirs``' user cache folder), and
an archive already there is used first, with no network. A plain path or a ``file://``
URL is read in place. Whatever the source, the archive is checked member by member
against the committed descriptor (``archive.install``): a source that fails to answer,
sends too much, is too slow, or sends an archive that does not match is reported once,
its cached copy dropped, and the next source is tried; the first that works wins.

A source is given :attr:`Limits.deadline` seconds in all, retries included, and once a
quarter of that or :data:`RATE_GRACE_SECONDS` has passed (whichever comes first) it must
average :attr:`Limits.min_rate` bytes a second: a server that drips a byte now and then is
cut off, not waited on forever. A transient failure (no connection, a timeout, HTTP 408,
425, 429, 500, 502, 503 or 504) is retried after 1 s, then 2 s, ...; any other HTTP error
(a 404, a 403) is final at once.

Redirects are followed only to http(s), and from https only to https
(:func:`redirect_refused`): a server cannot send the download to another scheme (an
``ftp://`` URL, which ``--url`` refuses) or down to clear text. Whatever a server says (a
reason phrase, a redirect's target, a protocol error quoting its answer) reaches a message
only through :func:`~icgbench.io.untrusted.printable`.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
import re
import socket
import stat
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, NamedTuple
from urllib.parse import unquote, urlparse

from icgbench import __version__
from icgbench.errors import InvalidInputError, UsageError, UserError
from icgbench.io.progress import progress_bar
from icgbench.io.untrusted import printable, shown
from icgbench.release import archive
from icgbench.release.descriptor import Descriptor
from icgbench.release.locate import HOME_ENV, data_home

log = logging.getLogger(__name__)

#: Attempts after the first for each HTTP(S) source (waiting 1 s, 2 s, ... between).
DEFAULT_RETRIES = 2
#: Seconds without a byte (or to connect) before an attempt is given up.
TIMEOUT_SECONDS = 60.0
#: A receive that timed out this close to the deadline was cut to it (seconds).
DEADLINE_MARGIN = 0.05
#: Seconds one source may take in all, retries included (``--timeout``).
DEFAULT_DEADLINE = 3600.0
#: Bytes a second a download must average once it has had time to start (``--min-rate``).
DEFAULT_MIN_RATE = 10_000.0
#: The rate is checked from this many seconds on (or a quarter of the deadline if sooner).
RATE_GRACE_SECONDS = 30.0
#: The first wait before a retry; each next one is longer by as much.
BACKOFF_SECONDS = 1.0
REMOTE_SCHEMES = ("http", "https")
#: Extra archive sources, tried before the descriptor's mirrors when no --url is given.
MIRRORS_ENV = "ICGBENCH_MIRRORS"
CHUNK = 1 << 16
#: HTTP statuses worth retrying: the server or a proxy may answer next time.
TRANSIENT_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})


class TooLargeError(InvalidInputError):
    """A source sent more bytes than any archive of the release can hold (not retried)."""

    code = "too_large"


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


def cache_dir() -> Path:
    """Where downloaded archives are kept: ``$ICGBENCH_HOME/cache`` or the user cache."""
    home = data_home()
    if home is not None:
        return home / "cache"
    import platformdirs

    return Path(platformdirs.user_cache_dir("icgbench", appauthor=False))


def _make_cache_dir() -> None:
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create the cache folder {folder}: {exc.strerror} (set "
                         f"{HOME_ENV} to a writable folder)") from None


def cached_name(descriptor: Descriptor, url: str) -> str:
    """The archive's file name in the cache: package name, data version and source."""
    source = hashlib.sha256(url.encode()).hexdigest()[:12]
    return f"{descriptor.document['name']}-{descriptor.version}-{source}.tar.gz"


def env_mirrors(descriptor: Descriptor) -> list[str]:
    """The sources ``$ICGBENCH_MIRRORS`` lists (whitespace- or comma-separated), with
    ``{tier}`` and ``{version}`` replaced by the descriptor's, so one setting serves every
    tier and release."""
    listed = re.split(r"[\s,]+", os.environ.get(MIRRORS_ENV, "").strip())
    return [m.replace("{tier}", descriptor.tier).replace("{version}", descriptor.version)
            for m in listed if m]


def sources(descriptor: Descriptor, url: str | Sequence[str] | None = None) -> list[str]:
    """What to try, in order, each once: the sources given (``--url``, in the order given);
    without any, ``$ICGBENCH_MIRRORS`` and then the descriptor's mirrors."""
    given = [url] if isinstance(url, str) else list(url or ())
    chosen = list(dict.fromkeys(given or [*env_mirrors(descriptor), *descriptor.mirrors]))
    if not chosen:
        raise UsageError(
            f"the {descriptor.tier} tier of release {descriptor.version} lists no mirrors and "
            f"{MIRRORS_ENV} is not set: pass --url URL (an http(s) address, a file:// URL or "
            f"a local path), or build the tier locally with `icgbench data build --tier "
            f"{descriptor.tier}`")
    return chosen


def local_path(source: str) -> Path | None:
    """The file a local source names (a plain path or ``file://``), or None for a URL."""
    try:
        parsed = urlparse(source)
    except ValueError as exc:
        raise UsageError(f"cannot download {printable(shown(source))}: not a valid URL "
                         f"({exc})") from None
    if parsed.scheme == "file":
        return Path(unquote(parsed.path))
    if parsed.scheme in REMOTE_SCHEMES:
        return None
    if parsed.scheme and len(parsed.scheme) > 1:  # one letter: a Windows drive
        raise UsageError(f"cannot download {printable(shown(source))}: unsupported scheme "
                         f"{parsed.scheme!r} (use http, https, file or a local path)")
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


def redirect_refused(source: str, target: str) -> str | None:
    """Why a redirect from ``source`` to ``target`` (absolute URLs) is not followed, or None
    when it is: only to http(s), and from https only to https (never down to clear text)."""
    where = f"redirect from {printable(shown(source))} to {printable(shown(target))} refused"
    try:
        to, origin = urlparse(target).scheme.lower(), urlparse(source).scheme.lower()
    except ValueError as exc:
        return f"{where}: not a valid URL ({exc})"
    if to in REMOTE_SCHEMES and (origin != "https" or to == "https"):
        return None
    return f"{where}: only http(s) redirects are followed (https only to https)"


class _DeadlineReader(socket.SocketIO):
    """A socket read through the clock: every receive first checks the source's deadline
    and waits at most the idle time or what is left, so a server that drips its status
    line or headers, or answers "100 Continue" forever, is cut off at the deadline like a
    slow body."""

    def __init__(self, sock, clock: _Clock) -> None:
        super().__init__(sock, "rb")
        sock._io_refs += 1  # as socket.makefile does: the socket stays open until we close
        self.clock = clock

    def readinto(self, buffer) -> int | None:
        self._sock.settimeout(min(self.clock.limits.idle, self.clock.remaining()))
        return super().readinto(buffer)


def _deadline_connection(base: type, clock: _Clock) -> type:
    """``base`` (an http.client connection class) whose responses are read through
    :class:`_DeadlineReader`."""

    class Connection(base):
        def connect(self) -> None:
            super().connect()
            raw = self.sock

            class Socket:
                def makefile(self, mode: str = "rb", *args, **kwargs):
                    return io.BufferedReader(_DeadlineReader(raw, clock))

                def __getattr__(self, name: str):
                    return getattr(raw, name)

            self.sock = Socket()

    return Connection


def _opener(clock: _Clock):  # -> urllib.request.OpenerDirector (imported only to download)
    """An opener for http(s) alone, following redirects only where
    :func:`redirect_refused` allows, every read of the exchange within ``clock``."""
    import http.client
    import urllib.error
    import urllib.request
    from urllib.parse import urljoin

    class Http(urllib.request.HTTPHandler):
        def http_open(self, req):
            return self.do_open(_deadline_connection(http.client.HTTPConnection, clock), req)

    class Https(urllib.request.HTTPSHandler):
        def https_open(self, req):
            return self.do_open(_deadline_connection(http.client.HTTPSConnection, clock), req,
                                context=self._context)

    class Redirects(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, req, fp, code, msg, headers, newurl):
            problem = redirect_refused(req.full_url, newurl)
            if problem:
                fp.close()
                raise _Failed(problem, transient=False)
            return super().redirect_request(req, fp, code, msg, headers, newurl)

        def http_error_302(self, req, fp, code, msg, headers):
            location = headers.get("location") or headers.get("uri")
            if location is not None:  # checked before urllib parses it (it may not)
                try:
                    target = urljoin(req.full_url, location)
                except ValueError:
                    target = location
                problem = redirect_refused(req.full_url, target)
                if problem:
                    fp.close()
                    raise _Failed(problem, transient=False)
            try:
                return super().http_error_302(req, fp, code, msg, headers)
            except urllib.error.HTTPError as exc:
                if exc.code == code and str(exc.reason).startswith(self.inf_msg):
                    raise _Failed(f"too many redirects from {printable(shown(req.full_url))} "
                                  "(a redirect loop)", transient=False) from None
                raise

        http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302

    opener = urllib.request.OpenerDirector()
    for handler in (urllib.request.ProxyHandler(), urllib.request.UnknownHandler(),
                    Http(), Https(),
                    urllib.request.HTTPDefaultErrorHandler(), Redirects(),
                    urllib.request.HTTPErrorProcessor()):
        opener.add_handler(handler)
    return opener


def _get(url: str, out: BinaryIO, limit: int, clock: _Clock) -> None:
    """One attempt: the body of ``url`` into ``out``, within ``limit`` bytes and the clock."""
    import http.client
    import socket
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, headers={"User-Agent": f"icgbench/{__version__}"})
    named = printable(url)
    began = time.monotonic()
    timeout = min(clock.limits.idle, clock.remaining())
    try:
        with _opener(clock).open(request, timeout=timeout) as response:
            declared = response.headers.get("Content-Length")
            digits = declared is not None and declared.isascii() and declared.isdigit()
            total = int(declared) if digits else None
            if total is not None and total > limit:
                raise TooLargeError(f"{named} sent over {limit} bytes ({total} declared); no "
                                    "archive of this release is that large")
            received = 0
            with progress_bar(f"downloading {named}", total, unit="bytes") as advance:
                while block := response.read1(CHUNK):
                    received += len(block)
                    if received > limit:
                        raise TooLargeError(f"{named} sent over {limit} bytes; no archive of "
                                            "this release is that large")
                    out.write(block)
                    advance(len(block))
                    clock.check(received, began)
            if total is not None and received != total:
                raise _Failed(f"the connection closed after {received} of {total} bytes",
                              transient=True)
    except urllib.error.HTTPError as exc:  # the reason phrase is the server's text
        said = printable(shown(str(exc.reason or "")))
        raise _Failed(f"HTTP {exc.code} {said}".strip(),
                      transient=exc.code in TRANSIENT_STATUS) from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        transient = isinstance(reason, TimeoutError | ConnectionError | socket.gaierror)
        said = str(getattr(reason, "strerror", None) or reason)
        raise _Failed(printable(shown(said)), transient) from None
    except TimeoutError:
        if clock.limits.deadline - (time.monotonic() - clock.start) < DEADLINE_MARGIN:
            clock.remaining()  # the wait was cut to the deadline: say so
            raise _Failed(f"gave up after {clock.limits.deadline:g} s (the download's time "
                          "limit, --timeout)", transient=False) from None
        raise _Failed(f"no data for {timeout:.2g} s", transient=True) from None
    except (http.client.HTTPException, ConnectionError) as exc:  # may quote the answer
        raise _Failed(printable(shown(f"{type(exc).__name__}: {exc}")), transient=True
                      ) from None
    except UserError:  # an oversized answer (TooLargeError): already the user's error
        raise
    except ValueError as exc:  # a URL urllib cannot parse
        raise _Failed(f"not a valid URL ({printable(shown(str(exc)))})", transient=False
                      ) from None


def fetch(url: str, descriptor: Descriptor, retries: int = DEFAULT_RETRIES,
          limits: Limits | None = None) -> Path:
    """The archive at ``url`` in the cache, downloaded unless already there."""
    limits = limits or Limits()
    named = printable(url)  # a mirror may come from a descriptor: untrusted text
    folder = cache_dir()
    cached = folder / cached_name(descriptor, url)
    if cached.exists():
        log.info("%s is in the cache: %s", url, cached)
        return _regular_file(cached)
    _make_cache_dir()
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
                tries = f" ({attempt} attempts)" if attempt > 1 else ""
                raise UsageError(f"cannot download {named}: {failure}{tries}") from None
            wait = BACKOFF_SECONDS * attempt
            log.info("%s failed (%s); retrying in %g s", named, failure, wait)
            try:
                time.sleep(min(wait, clock.remaining()))
            except _Failed as late:
                raise UsageError(f"cannot download {named}: {failure}; {late}") from None
        except OSError as exc:
            raise UsageError(f"cannot download {named}: {exc.strerror or exc}") from None


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


class Installed(NamedTuple):
    """Where a tier was installed, from which source, and the cached archive if one was used
    as it was (no network)."""

    dest: Path
    source: str
    cached: Path | None


def _cached_copies(descriptor: Descriptor, chosen: list[str]) -> list[tuple[str, Path]]:
    """The remote sources whose archive is already in the cache, with its file, in order."""
    folder = cache_dir()
    copies = [(source, folder / cached_name(descriptor, source)) for source in chosen
              if local_path(source) is None]
    return [(source, cached) for source, cached in copies if cached.is_file()]


def download(descriptor: Descriptor, dest: Path,
             url: str | Sequence[str] | None = None, retries: int = DEFAULT_RETRIES,
             limits: Limits | None = None) -> Installed:
    """Install the tier from the first source that gives a verified archive.

    An archive already in the cache is used first, with no network; one that no longer
    verifies is deleted and fetched again. Each failure is reported once: as a warning as
    it happens while another source remains, else in the error raised, which also says how
    many sources failed. A problem with ``dest`` itself (every source would fail the same
    way) is raised at once.
    """
    chosen = sources(descriptor, url)
    for source in chosen:
        local_path(source)  # an unsupported scheme is refused before anything is fetched
    for source, cached in _cached_copies(descriptor, chosen):
        try:
            archive.install(_regular_file(cached), descriptor, dest)
        except InvalidInputError as exc:
            with contextlib.suppress(OSError):
                cached.unlink()
            log.warning("the cached archive %s (from %s) no longer verifies (%s); deleted it",
                        cached, printable(source), exc)
            continue
        log.info("used the cached archive %s of %s", cached, source)
        return Installed(dest, source, cached)
    if any(local_path(source) is None for source in chosen):
        _make_cache_dir()
    problems: list[str] = []
    worst: type[UserError] = UsageError
    for number, source in enumerate(chosen, 1):
        path = local_path(source)
        try:
            problem = _try(source, path, descriptor, dest, retries, limits)
        except InvalidInputError as exc:  # a wrong or oversized archive
            worst, problem = InvalidInputError, str(exc)
        if problem is None:
            return Installed(dest, source, None)
        problems.append(problem)
        if path is None:
            (cache_dir() / cached_name(descriptor, source)).unlink(missing_ok=True)
        if number < len(chosen):
            log.warning("%s; trying the next source (%d of %d)", problem, number + 1,
                        len(chosen))
    if len(problems) == 1:
        raise worst(problems[0])
    raise worst(f"{problems[-1]}; every source failed ({len(problems)}), nothing was "
                "installed")


def _try(source: str, path: Path | None, descriptor: Descriptor, dest: Path, retries: int,
         limits: Limits | None) -> str | None:
    """Install from one source: None when it worked, else what went wrong (naming it).

    Raises InvalidInputError for an archive that is wrong, and a UsageError from
    ``archive.install`` for a problem with ``dest``.
    """
    try:
        archive_file = _regular_file(path) if path is not None else fetch(
            source, descriptor, retries, limits)
    except UsageError as exc:
        return str(exc)
    try:
        archive.install(archive_file, descriptor, dest)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{printable(source)}: {exc}") from None
    return None
