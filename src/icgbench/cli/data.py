"""``icgbench freeze`` and ``icgbench data ...``: the frozen release."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from icgbench.cli._common import (
    non_negative_float,
    non_negative_int,
    old_spelling,
    positive_float,
    positive_int,
    print_json,
    say_err,
)
from icgbench.errors import InvalidInputError, UsageError, UserError
from icgbench.release import generations, tiers
from icgbench.release.descriptor import SEALED_KEY_ENV
from icgbench.release.download import (
    DEFAULT_DEADLINE,
    DEFAULT_MIN_RATE,
    DEFAULT_RETRIES,
    MIRRORS_ENV,
    RATE_GRACE_SECONDS,
)
from icgbench.release.locate import HOME_ENV, release_root, require_tier, source_root
from icgbench.release.tiers import SEALED_NAME, TIERS, get_tier

TIER_CHOICES = list(TIERS)
#: What ``--tier sealed`` means where a command reads the sealed tier's public tables.
SEALED_HELP = (f"{SEALED_NAME}: the sealed track's public tables, in "
               f"{tiers.SEALED.data_dir}/ when the release holds them")
GENERATIONS_RECORD = f"{generations.FOLDER}/{generations.RECORD}"


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "freeze", help="write the frozen release (datasets/ and datapackage.json)",
        description="Simulate every cohort of a tier and write it as Parquet and csv.gz with "
        "its descriptor. Re-running produces byte-identical files. With --check, "
        "regenerate into a temporary folder and compare with the committed descriptor "
        "instead (CSV text exactly, Parquet by content digest); exit 1 naming each table "
        "that differs.")
    p.add_argument("--tier", choices=[*TIER_CHOICES, SEALED_NAME, "all"], default="all",
                   help="tier to freeze (default: all the open tiers); sealed needs the "
                   f"board's key in {SEALED_KEY_ENV} (maintainers: docs/leaderboard.md)")
    p.add_argument("--check", action="store_true", help="compare instead of writing (the "
                   "sealed tier: regenerate every cohort from the key and check it against "
                   "the published tables and the truth commitment)")
    p.add_argument("--retire", action="store_true",
                   help="with --tier sealed: retire the current sealed generation, publishing "
                   f"its key (the one in {SEALED_KEY_ENV}) in {GENERATIONS_RECORD}")
    p.add_argument("--jobs", type=positive_int, default=1, help="parallel processes")
    p.add_argument("--root", type=Path, default=None,
                   help="release root (default: the repository this package runs from)")
    p.set_defaults(func=run_freeze)

    data = commands.add_parser("data", help="verify, build, pack, download and list the release")
    sub = data.add_subparsers(dest="data_command", metavar="SUBCOMMAND", required=True)

    p = sub.add_parser("verify", help="check every file's bytes, SHA-256 and Table Schema")
    p.add_argument("--tier", choices=[*TIER_CHOICES, SEALED_NAME], default="small",
                   help=f"release tier (default small; {SEALED_HELP})")
    p.add_argument("--descriptor", type=Path, default=None,
                   help="verify this descriptor instead of the tier's (e.g. after "
                   "`data download --outdir DIR`)")
    p.add_argument("--deep", action="store_true",
                   help="also check value-level constraints (enum, pattern, unique, primary "
                   "and foreign keys) by decoding key and category columns")
    p.add_argument("--jobs", type=positive_int, default=None,
                   help="worker processes (default: one per CPU for a large release such as the "
                   "full tier, one for the small tier; Linux only: elsewhere, and with "
                   "--deep, files are checked in one)")
    p.add_argument("--json", action="store_true", help="print only a JSON verdict")
    p.add_argument("--publication", type=Path, default=None, metavar="DIR",
                   help="check the folder `data publish` wrote for the tier instead: every "
                   "file there, none missing or extra, the descriptor's bytes (the archives "
                   "member by member)")
    p.set_defaults(func=run_verify)

    p = sub.add_parser("build", help="build a tier's files locally and install them if they "
                       "match the committed descriptor")
    p.add_argument("--tier", choices=TIER_CHOICES, default="full",
                   help="release tier (default full)")
    p.add_argument("--jobs", type=positive_int, default=2, help="parallel processes (default 2)")
    p.set_defaults(func=run_build)

    p = sub.add_parser("pack", help="write a tier as a reproducible tar.gz release archive")
    p.add_argument("--tier", choices=TIER_CHOICES, default="full",
                   help="release tier (default full)")
    p.add_argument("--out", type=Path, required=True, help="archive file to write")
    p.set_defaults(func=run_pack)

    p = sub.add_parser("publish", help="write a tier as a Hugging Face dataset repository and "
                       "a Zenodo deposit",
                       description="Verify the tier, then write DIR/huggingface/ (the tier as a "
                       "Hub dataset repository: descriptor, files, croissant.json, a dataset "
                       "card declaring every config and split, the release archive) and "
                       "DIR/zenodo/ (the archive, datapackage.json, croissant.json, SHA256SUMS "
                       "and the deposition metadata .zenodo.json), every file the descriptor's "
                       "bytes. DIR is written in a staging folder beside it and renamed into "
                       "place; a DIR holding an earlier publication is replaced, any other "
                       "non-empty folder refused. Check it with `icgbench data verify "
                       "--publication DIR`; docs/releasing.md says how it is uploaded.")
    p.add_argument("--tier", choices=TIER_CHOICES, default="full",
                   help="release tier (default full)")
    p.add_argument("--outdir", type=Path, required=True, metavar="DIR",
                   help="folder to write (huggingface/ and zenodo/ inside)")
    p.set_defaults(func=run_publish)

    p = sub.add_parser("download", help="fetch a release archive, verify every member, "
                       "install atomically",
                       description="Install the tier from its release archive. Sources are "
                       "tried in order until one works: each --url given; without --url, "
                       f"those ${MIRRORS_ENV} lists, then the descriptor's mirrors. Fetched "
                       f"archives are kept in the per-user cache (${HOME_ENV}/cache when "
                       "set) and used from there next time, with no network. Every member "
                       "is checked against the committed descriptor; only a complete, exact "
                       "archive is installed.")
    p.add_argument("--url", action="append", default=None, metavar="SOURCE",
                   help="a tar.gz archive: an http(s) URL, a file:// URL or a local path; "
                   "repeat to give several, tried in order (default: the sources in "
                   f"${MIRRORS_ENV}, whitespace- or comma-separated, then the descriptor's "
                   "mirrors)")
    p.add_argument("--retries", type=non_negative_int, default=DEFAULT_RETRIES,
                   help=f"attempts after the first for each http(s) source, after a "
                   f"transient failure only (default {DEFAULT_RETRIES})")
    p.add_argument("--timeout", type=positive_float, default=DEFAULT_DEADLINE,
                   metavar="SECONDS",
                   help="give up an http(s) source after this long in all, retries included "
                   f"(default {DEFAULT_DEADLINE:g})")
    p.add_argument("--min-rate", type=non_negative_float, default=DEFAULT_MIN_RATE,
                   metavar="BYTES_PER_S",
                   help=f"give up an http(s) source averaging fewer bytes a second, checked "
                   f"from {RATE_GRACE_SECONDS:g} s on (or a quarter of --timeout if sooner); 0 "
                   f"never (default {DEFAULT_MIN_RATE:g})")
    p.add_argument("--tier", choices=TIER_CHOICES, default="full",
                   help="release tier (default full)")
    p.add_argument("--outdir", type=Path, default=None,
                   help="install into this folder (default: the tier's folder in the release)")
    old_spelling(p, "--to", "--outdir", "outdir", type=Path)
    p.set_defaults(func=run_download)

    p = sub.add_parser("list", help="cohorts and tables of a tier, and whether they are present")
    p.add_argument("--tier", choices=[*TIER_CHOICES, SEALED_NAME], default="small",
                   help=f"release tier (default small; {SEALED_HELP})")
    p.add_argument("--json", action="store_true", help="print only JSON")
    p.set_defaults(func=run_list)

    p = sub.add_parser("cite", help="print how to cite the release (BibTeX or CITATION.cff)",
                       description="Print a citation of the release: a BibTeX entry, or the "
                       "Citation File Format text CITATION.cff holds, made from the tier's "
                       "descriptor (version, date, license, creators, its DOI once published) "
                       "and the package's citation fields. Where no release is located (an "
                       "installed wheel), the descriptor fields are the ones this package "
                       "writes. Writes no file.")
    p.add_argument("--tier", choices=TIER_CHOICES, default="small",
                   help="release tier (default small)")
    p.add_argument("--format", choices=["bibtex", "cff"], default="bibtex",
                   help="bibtex: a @misc entry (default); cff: CITATION.cff's text")
    p.set_defaults(func=run_cite)


def _root(args: argparse.Namespace) -> Path:
    if getattr(args, "root", None) is not None:
        return args.root
    try:
        return release_root()
    except UsageError:
        return source_root()


def run_freeze(args: argparse.Namespace) -> int:
    from icgbench.release import freeze

    root = _root(args)
    if args.retire and args.tier != SEALED_NAME:
        raise UsageError("--retire retires a sealed generation: use it with --tier sealed")
    if args.tier == SEALED_NAME:
        return _freeze_sealed(args, root)
    tiers = TIER_CHOICES if args.tier == "all" else [args.tier]
    if args.check:
        failed = False
        for name in tiers:
            problems = freeze.check(get_tier(name), root, args.jobs)
            if problems:
                failed = True
                print(f"{name} tier: {len(problems)} table(s) differ from the descriptor:")
                for p in problems:
                    print(f"  {p}")
            else:
                print(f"{name} tier: regenerated data match {get_tier(name).descriptor_path}")
        return 1 if failed else 0
    for name in tiers:
        tier = get_tier(name)
        path = freeze.freeze(tier, root, args.jobs)
        print(f"froze the {name} tier: data in {root / tier.data_dir}, descriptor {path}")
    return 0


def _freeze_sealed(args: argparse.Namespace, root: Path) -> int:
    import datetime as dt

    from icgbench.release import sealed

    key = sealed.key_from_env()
    if key is None:
        raise UsageError(f"the sealed tier is generated from the board's key: set "
                         f"{SEALED_KEY_ENV} (64 hex digits; docs/leaderboard.md, 'Setting up "
                         "the sealed track')")
    if args.check and args.retire:
        raise UsageError("--check and --retire: one at a time")
    if args.check:
        problems = sealed.check_sealed(root, key)
        for p in problems:
            print(f"  {p}")
        print(f"sealed tier: {len(problems)} cohort(s) differ from the published release"
              if problems else f"sealed tier: every cohort regenerated from the key matches "
              f"{root / tiers.SEALED.descriptor_path} and its truth commitment")
        return 1 if problems else 0
    if args.retire:
        g = generations.retire(root, key, dt.datetime.now(dt.UTC).date())
        print(f"retired sealed generation {g.generation} ({g.data_version}) on {g.retired_on};"
              f" its key is published in {generations.record_path(root)}")
        return 0
    path = sealed.freeze_sealed(root, key)
    print(f"froze the sealed tier (generation {tiers.SEALED_GENERATION}, key id "
          f"{sealed.key_id(key)}): public tables in {root / tiers.SEALED.data_dir}, descriptor "
          f"{path}, generation recorded in {generations.record_path(root)}")
    return 0


def _descriptor(args: argparse.Namespace):
    from icgbench.api.tables import tier_descriptor
    from icgbench.release.descriptor import load_descriptor

    if getattr(args, "descriptor", None) is not None:
        return load_descriptor(args.descriptor)
    require_tier(args.tier)
    return tier_descriptor(args.tier)


def run_verify(args: argparse.Namespace) -> int:
    from icgbench.release.verify import verify

    d = _descriptor(args)
    start = time.perf_counter()
    if args.publication is not None:
        return _verify_publication(args, d, start)
    verdict = verify(d, deep=args.deep, workers=args.jobs)
    seconds = time.perf_counter() - start
    if args.json:
        print_json({"descriptor": str(d.path), "version": d.version, "tier": d.tier,
                    "ok": verdict.ok, "checked": verdict.checked, "deep": args.deep,
                    "content_verified": verdict.content_verified,
                    "problems": [{"resource": p.resource, "message": p.message}
                                 for p in verdict.problems],
                    "fingerprint": d.fingerprint()})
        return 0 if verdict.ok else 1
    for p in verdict.problems:
        print(f"FAIL {p}")
    for name in verdict.content_verified:
        print(f"note {name}: bytes differ from the descriptor but the content is the frozen "
              "content (another pyarrow or zlib wrote it)")
    status = "OK" if verdict.ok else f"FAILED ({len(verdict.problems)} problem(s))"
    print(f"{status}: {verdict.checked} resources of {d.path} (release {d.version}, "
          f"{d.tier} tier) checked in {seconds:.1f} s")
    return 0 if verdict.ok else 1


def _verify_publication(args: argparse.Namespace, d, start: float) -> int:
    from icgbench.release.publish import publication_problems

    problems, expected = publication_problems(d, args.publication)
    seconds = time.perf_counter() - start
    if args.json:
        print_json({"publication": str(args.publication), "descriptor": str(d.path),
                    "version": d.version, "tier": d.tier, "ok": not problems,
                    "files": expected, "problems": problems})
        return 0 if not problems else 1
    for problem in problems:
        print(f"FAIL {problem}")
    status = "OK" if not problems else f"FAILED ({len(problems)} problem(s))"
    print(f"{status}: publication {args.publication} ({expected} files) checked against "
          f"{d.path} (release {d.version}, {d.tier} tier) in {seconds:.1f} s")
    return 0 if not problems else 1


def run_publish(args: argparse.Namespace) -> int:
    from icgbench.api.tables import tier_descriptor
    from icgbench.io.paths import outside_boards
    from icgbench.release import publish

    outside_boards(args.outdir)
    d = tier_descriptor(args.tier)
    start = time.perf_counter()
    out = publish.publish(d, args.outdir)
    sizes = ", ".join(f"{part}/ {publish.folder_size(out / part):,} bytes"
                      for part in (publish.HUB, publish.ZENODO))
    print(f"published the {d.tier} tier (release {d.version}) in "
          f"{time.perf_counter() - start:.1f} s into {out}: {sizes}; check it with "
          f"`icgbench data verify --tier {d.tier} --publication {out}`")
    return 0


def run_build(args: argparse.Namespace) -> int:
    from icgbench.release import freeze

    tier = get_tier(args.tier)
    root = _root(args)
    folder = freeze.build(tier, root, args.jobs)
    print(f"built the {tier.name} tier; every table matches {tier.descriptor_path}; "
          f"files in {folder}")
    return 0


def run_pack(args: argparse.Namespace) -> int:
    import os

    from icgbench.api.tables import tier_descriptor
    from icgbench.release import archive
    from icgbench.release.locate import release_root
    from icgbench.release.tiers import TIERS

    d = tier_descriptor(args.tier)
    try:
        root: Path | None = release_root()
    except UsageError:  # no release located: no other tier's descriptor to protect
        root = None
    for tier in TIERS.values() if root is not None else ():  # every tier's descriptor
        descriptor = root / tier.descriptor_path
        if args.out.exists() and descriptor.exists() and os.path.samefile(args.out, descriptor):
            raise UsageError(f"refusing to write the archive to {args.out}: it is the "
                             f"{tier.name} tier's descriptor; choose another file")
    out = archive.pack(d, args.out)
    print(f"packed {len(d.resources)} files of the {d.tier} tier into {out}")
    return 0


def run_download(args: argparse.Namespace) -> int:
    from icgbench.api.tables import tier_descriptor
    from icgbench.release import download

    d = tier_descriptor(args.tier)
    dest = args.outdir if args.outdir is not None else d.base
    limits = download.Limits(deadline=args.timeout, min_rate=args.min_rate)
    try:
        installed = download.download(d, dest, args.url, args.retries, limits)
    except UserError:
        if not args.url and d.tier != SEALED_NAME:
            say_err(f"icgbench: where no mirror answers, build the {d.tier} tier here instead "
                    f"(no network, the same bytes): icgbench data build --tier {d.tier}")
        raise
    files = f"{len(d.resources)} files of the {d.tier} tier"
    if installed.cached is not None:
        print(f"using the cached archive {installed.cached} (already downloaded from "
              f"{installed.source}): verified and installed {files} into {dest}")
    elif download.local_path(installed.source) is not None:
        print(f"verified and installed {files} from {installed.source} into {dest}")
    else:
        print(f"downloaded and verified {files} from {installed.source} into {dest}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    from icgbench.api.tables import list_tables

    require_tier(args.tier)
    rows = list_tables(args.tier)
    if args.json:
        print_json(rows)
        return 0
    present = sum(r["present"] for r in rows)
    for r in rows:
        mark = "" if r["present"] else "  (missing)"
        print(f"{r['variant']:<22} seed {r['seed']:<3} {r['table']:<21} {r['role']:<6} "
              f"{r['rows']:>7} rows{mark}")
    print(f"{present} of {len(rows)} tables present")
    if present < len(rows):
        raise InvalidInputError(f"the {args.tier} tier is incomplete: build it with "
                                f"`icgbench data build --tier {args.tier}`")
    return 0


def run_cite(args: argparse.Namespace) -> int:
    import sys

    from icgbench.api.tables import tier_descriptor
    from icgbench.release import citation

    try:
        d = tier_descriptor(args.tier)
        document, source = d.document, f"the descriptor {d.path}"
    except UsageError:  # no release located (an installed wheel): the package's own fields
        document = citation.packaged_document(args.tier)
        source = "this package's descriptor fields (no release located)"
    text = citation.bibtex(document) if args.format == "bibtex" else citation.cff_text(
        document).rstrip("\n")
    print(text)
    doi = citation.doi(document)
    print(f"the {args.tier} tier, release {document['version']}, from {source}"
          + (f", DOI {doi}" if doi else ", no DOI yet") + "; printed only, nothing was "
          "written", file=sys.stderr)
    return 0
