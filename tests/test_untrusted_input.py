"""Hostile submissions and files: each is refused clearly, never a traceback, a hang or a blow-up.

One test per class of the hostile-input review: numbers beyond a double, absurd values that
once turned a metric into null, files that are not files, gzip tricks and bombs, huge
values quoted back in messages, header text that is not valid Unicode, look-alike names.
"""

from __future__ import annotations

import gzip
import json
import os
import struct
import subprocess
import sys
import zlib
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from icgbench.cli import main
from icgbench.scorer import SubmissionInvalid, check_submission, score
from icgbench.tasks import graph_metrics as g
from icgbench.tasks.metrics import LOWEST, mean, r2
from scoring_helpers import template

ROOT = Path(__file__).resolve().parents[1]


def _errors(source) -> list[str]:
    with pytest.raises(SubmissionInvalid) as caught:
        check_submission(source)
    return caught.value.errors


def _bytes(doc) -> bytes:
    return json.dumps(doc).encode()


def _run_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "icgbench", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, check=False)


@pytest.mark.parametrize("digits", [400, 5000])
def test_integers_beyond_a_double_are_not_finite_with_their_path(digits):
    doc = template()
    doc["latent_recovery"]["states"]["ROS"][3] = 0
    text = _bytes(doc).replace(b'"ROS": [', b'"ROS": [' + b"9" * digits + b", ", 1)
    doc_errors = _errors(text)
    assert any(e.startswith("/latent_recovery/states/ROS/0: number is not finite")
               for e in doc_errors), doc_errors
    assert not any("int" in e and "conversion" in e for e in doc_errors)


def test_integers_beyond_a_double_in_a_parsed_document_too():
    doc = template()
    doc["latent_recovery"]["states"]["ROS"][7] = 10**400
    assert any(e.startswith("/latent_recovery/states/ROS/7: number is not finite")
               for e in _errors(doc))
    doc = template()
    doc["structure_recovery"] = {"source": ["ROS"], "target": ["event"], "score": [-(10**400)]}
    assert any(e.startswith("/structure_recovery/score/0: number is not finite")
               for e in _errors(doc))


def test_a_huge_seed_is_an_ordinary_schema_error():
    text = _bytes(template()).replace(b'"seed": 0', b'"seed": ' + b"1" * 400)
    assert any(e.startswith("/seed") for e in _errors(text))


def test_an_integral_float_seed_is_the_integer():
    text = _bytes(template()).replace(b'"seed": 0', b'"seed": 0.0')
    assert b'"seed": 0.0' in text
    report = score(text).document
    assert report["seed"] == 0 and type(report["seed"]) is int


def test_absurd_predictions_never_make_a_metric_null_or_help_the_composite():
    honest = score(template()).document
    for value in (1e308, -1e308, 1.7976931348623157e308):
        doc = template()
        doc["latent_recovery"]["states"]["ROS"] = [value] * len(
            doc["latent_recovery"]["states"]["ROS"])
        doc["latent_recovery"]["states"]["ROS"][0] = -value  # not constant
        report = score(doc).document
        metrics = report["tasks"]["latent_recovery"]["metrics"]
        assert metrics["r2__ROS"] is not None and metrics["r2__ROS"] < -1e200
        assert metrics["r2_mean"] is not None
        assert report["summary"]["composite"] <= honest["summary"]["composite"]
    doc = template()
    for s in doc["latent_recovery"]["states"]:
        doc["latent_recovery"]["states"][s] = [1.7976931348623157e308, -1.7976931348623157e308
                                               ] * (len(doc["latent_recovery"]["subject_id"])
                                                    // 2)
    report = score(doc).document
    assert report["tasks"]["latent_recovery"]["metrics"]["r2_mean"] == LOWEST
    assert report["summary"]["composite"] < honest["summary"]["composite"]


def test_r2_is_exact_where_the_plain_sum_overflows_and_clamped_beyond():
    y = np.array([0.0, 1e10, 2e10, 3e10])
    y_hat = np.array([1e155, -1e155, 1e155, -1e155])  # each square ~1e310: the sum overflows
    ss_res = sum((Fraction(a) - Fraction(b)) ** 2 for a, b in zip(y, y_hat, strict=True))
    ss_tot = sum((Fraction(a) - Fraction(1.5e10)) ** 2 for a in y)
    assert r2(y, y_hat) == pytest.approx(float(1 - ss_res / ss_tot), rel=1e-12)
    assert r2(y, np.array([1.7e308, -1.7e308, 1.7e308, -1.7e308])) == LOWEST
    assert mean([LOWEST] * 9) == LOWEST and mean([0.5, 0.25]) == 0.375


def test_structure_scores_near_the_largest_double_rank_as_their_halves():
    nodes = ("a", "b", "c", "d")
    truth = g.true_matrix(nodes, [("a", "b"), ("c", "b"), ("c", "d")])
    source = ["a", "b", "b", "c", "d", "a"]
    target = ["b", "a", "c", "d", "c", "c"]
    top = 1.7976931348623157e308
    scores = [top, -top, top / 3, -top / 7, top / 5, -top]
    scaled = [s / 16 for s in scores]
    for values in (scores, scaled):
        graph = g.ScoredGraph.from_edges(nodes, source, target, values)
        assert np.isfinite(graph.filled()).all()
    a = g.ScoredGraph.from_edges(nodes, source, target, scores)
    b = g.ScoredGraph.from_edges(nodes, source, target, scaled)
    assert g.orientation(a, truth) == g.orientation(b, truth)
    assert g.edge_ranking(a, truth) == g.edge_ranking(b, truth)
    assert None not in g.orientation(a, truth)


def test_a_missing_pair_ranks_below_every_submitted_score_even_beyond_2_53():
    graph = g.ScoredGraph.from_edges(("a", "b", "c"), ["a", "b"], ["b", "c"], [-1e17, 0.0])
    filled = graph.filled()
    assert filled[0, 2] < -1e17  # min - 1 == min at this magnitude: the next double below


def test_header_text_must_be_valid_unicode():
    doc = template()
    doc["model"]["description"] = "a\ud800b"
    text = _bytes(doc)
    assert b"\\ud800" in text  # an escape in valid UTF-8 JSON, read as a lone surrogate
    errors = _errors(text)
    assert errors == ["/model/description: character 1 is a lone surrogate (not valid "
                      "Unicode)"]


@pytest.mark.parametrize("field, value", [
    ("name", "mbcnet_v0_1\n"), ("name", " random"), ("name", "rándom"), ("name", "Ｒandom"),
    ("name", "oracle"), ("name", "ORACLE"), ("version", "0.1.0\r"), ("version", "1 0"),
    ("version", "\ud800"), ("language", "Python\n"), ("url", "javascript:alert(1)"),
    ("url", "https://example.org/\n<script>"),
])
def test_model_header_character_classes(field, value):
    doc = template()
    doc["model"][field] = value
    errors = _errors(doc)
    assert any(e.startswith(f"/model/{field}") or e.startswith("/model:") for e in errors), \
        errors


def test_the_oracle_name_is_allowed_with_the_oracle_flag():
    doc = template()
    doc["model"].update(name="oracle", oracle=True)
    assert check_submission(doc).document["model"]["name"] == "oracle"


def test_a_huge_value_is_not_echoed_whole_in_the_message(capsys):
    doc = template()
    doc["model"]["description"] = "x" * 50_000_000
    errors = _errors(doc)
    assert errors[0].startswith("/model/description")
    assert errors[0] == "/model/description: a string of 50000000 characters; at most 2000 allowed"
    errors = _errors(_bytes(doc))  # from a file: refused while parsing, before the schema
    assert errors == ["/: a string of 50000000 characters (in the member 'description') is "
                      "over the limit of 65536"]


def test_gzip_must_be_one_member_with_nothing_after_it():
    packed = gzip.compress(_bytes(template()), mtime=0)
    for tail in (b"\x00", b"junk", gzip.compress(b"{}", mtime=0)):
        errors = _errors(packed + tail)
        assert errors[0].startswith("/:") and "after the end of the gzip stream" in errors[0]
    assert check_submission(packed).document["variant"] == "linear_lowhet"


def test_not_a_regular_file_is_refused_at_once(tmp_path, capsys):
    for path in ("/dev/zero", str(tmp_path)):  # /dev/zero was once read without bound
        assert main(["validate", path]) == 2
        err = capsys.readouterr().err
        assert "character device" in err or "folder" in err, err
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    result = _run_cli("validate", str(fifo), timeout=60)  # a FIFO once blocked forever
    assert result.returncode == 2 and "FIFO" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_the_size_limit_counts_bytes_read(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b" " * 2000 + _bytes(template()))
    assert main(["validate", str(path), "--max-bytes", "1000"]) == 1


def _bomb(path: Path, megabytes: int) -> None:
    """``{"a": [0,0,0,...`` of ``megabytes`` MiB, gzip-compressed (a few hundred KB).

    Each MiB is deflated once after a full flush (which resets the compressor, so every
    copy of it is the same bytes) and repeated, with the gzip header and trailer written
    around them: the same file as compressing it all, in a tenth of the time.
    """
    chunk = b"0," * (1 << 19)
    head, tail = b'{"a": [', b"0]}"
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    first = squeeze.compress(head) + squeeze.flush(zlib.Z_FULL_FLUSH)
    piece = squeeze.compress(chunk) + squeeze.flush(zlib.Z_FULL_FLUSH)
    last = squeeze.compress(tail) + squeeze.flush()
    crc = zlib.crc32(head)
    for _ in range(megabytes):
        crc = zlib.crc32(chunk, crc)
    size = len(head) + megabytes * len(chunk) + len(tail)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # gzip, deflate, no name, mtime 0
    trailer = struct.pack("<II", zlib.crc32(tail, crc), size & 0xFFFFFFFF)
    path.write_bytes(header + first + piece * megabytes + last + trailer)


PEAK = """
import sys
from icgbench.cli import main
code = main(sys.argv[1:])
with open("/proc/self/status") as status:  # VmHWM: ru_maxrss would count the parent's too
    peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
print(f"peak_kb={peak}", file=sys.stderr)
sys.exit(code)
"""


def test_a_gzip_bomb_is_refused_with_bounded_memory(tmp_path):
    bomb = tmp_path / "bomb.json.gz"
    _bomb(bomb, 500)
    assert bomb.stat().st_size < 1_000_000
    result = subprocess.run([sys.executable, "-c", PEAK, "validate", str(bomb)],
                            capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)
    assert result.returncode == 1, result.stderr
    assert "memory" in result.stdout and "Traceback" not in result.stderr
    peak_kb = int(result.stderr.rsplit("peak_kb=", 1)[1])
    assert peak_kb < 1_000_000  # inflating and parsing all 500 MB would take over 6 GB


def test_gunzipped_bytes_are_held_to_the_size_limit_and_the_memory_budget():
    from icgbench.scorer.parse import json_bytes

    text = json.dumps(template()).encode()
    assert json_bytes(gzip.compress(text), max_bytes=len(text)) == text
    with pytest.raises(SubmissionInvalid) as over:
        json_bytes(gzip.compress(text), max_bytes=len(text) - 1)
    assert over.value.stage == "size" and "decompressed content" in over.value.errors[0]
    numbers = b"[" + b"0," * 400 + b"0]"  # 803 bytes that parse into 401 Python ints
    assert json_bytes(gzip.compress(numbers), max_bytes=10_000) == numbers
    with pytest.raises(SubmissionInvalid) as costly:
        json_bytes(gzip.compress(numbers), max_bytes=len(numbers))
    assert "memory" in costly.value.errors[0]
    assert json_bytes(text) == text  # plain JSON passes through


def test_ranking_metrics_are_undefined_with_one_class():
    from icgbench.tasks.metrics import ranking_metrics

    p = np.array([0.2, 0.4, 0.9])
    assert ranking_metrics(np.zeros(3), p) == (None, None)  # no positive: nothing to rank
    assert ranking_metrics(np.ones(3), p) == (None, 1.0)  # every prediction is a hit


def test_an_overflowing_r2_is_computed_without_a_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert r2(np.array([-6e153, 6e153]), np.array([6e153, -6e153])) == pytest.approx(-3.0)
        assert r2(np.array([0.0, 1.0]), np.array([1e308, -1e308])) == LOWEST


LARGEST = str(int(sys.float_info.max))  # 309 digits, 1.797...e308


@pytest.mark.parametrize("literal, finite", [
    ("1" + "0" * 308, True),  # 10^308: 309 digits, once called "not finite"
    ("-1" + "0" * 308, True),
    (LARGEST, True),
    ("2" + "0" * 308, False),  # 309 digits, beyond the largest double
    ("1" + "0" * 309, False),
    ("-" + "9" * 400, False),
])
def test_integers_are_finite_exactly_up_to_the_largest_double(literal, finite, tmp_path,
                                                               capsys):
    doc = template()
    doc["latent_recovery"]["states"]["ROS"][0] = "@@"
    path = tmp_path / "s.json"
    path.write_bytes(_bytes(doc).replace(b'"@@"', literal.encode()))
    assert main(["validate", str(path)]) == (0 if finite else 1)
    out = capsys.readouterr().out
    assert finite or "/latent_recovery/states/ROS/0: number is not finite" in out, out


@pytest.mark.parametrize("first, refusal", [
    ("a", "/: a string of 800001 characters (in the member 'description') is over the limit"),
    ("\U0001f600", "/: parsing this document would need about"),
])
def test_a_wide_character_counts_the_whole_text_at_four_bytes(first, refusal, tmp_path,
                                                              capsys):
    """One emoji makes Python store a whole string 4 bytes a character: 300 MB of 'a'
    after one took 3.6 GB. The same document in ASCII parses (and its string is refused)."""
    doc = template()
    doc["model"]["description"] = first + "a" * 800_000
    path = tmp_path / "s.json.gz"
    path.write_bytes(gzip.compress(json.dumps(doc, ensure_ascii=False).encode(), 1))
    assert main(["validate", str(path), "--max-bytes", "1100000"]) == 1
    out = capsys.readouterr().out
    assert refusal in out, out


def test_the_parse_cost_counts_widths_escapes_and_members():
    from icgbench.io.untrusted import BYTES_PER_ITEM, BYTES_PER_MEMBER, CostMeter, parse_cost

    ascii_text = b'["' + b"a" * 1000 + b'"]'
    assert parse_cost(ascii_text) == 3 * len(ascii_text) + BYTES_PER_ITEM
    wide = '["\u0101'.encode() + b"a" * 1000 + b'"]'  # U+0101: 2 bytes a character
    assert parse_cost(wide) == 5 * len(wide) + BYTES_PER_ITEM
    astral = '["\U0001f600'.encode() + b"a" * 1000 + b'"]'
    assert parse_cost(astral) == 9 * len(astral) + BYTES_PER_ITEM
    escaped = b'["\\ud83d\\ude00' + b"a" * 1000 + b'"]'  # ASCII text, a 4-byte string
    assert parse_cost(escaped) == 6 * len(escaped) + BYTES_PER_ITEM
    assert parse_cost(b'{"a": 1, "b": 2}') == 3 * 16 + 2 * BYTES_PER_ITEM + 2 * BYTES_PER_MEMBER
    meter = CostMeter()  # an escape cut in two by the chunks of a stream still counts
    meter.add(b'["\\ud8')
    assert meter.add(b'3d\\ude00"]') == parse_cost(b'["\\ud83d\\ude00"]')
