"""Nothing a stranger wrote reaches the terminal or a CI log raw, through the commands.

A file name that sets the window title and clears the screen, a queued file name with a
line break that would forge a line of the CI log (a ``::error::`` workflow command), C1
controls and a right-to-left override in a submission's values: every command's output
escapes them visibly (``icgbench.io.terminal``, ``icgbench.io.untrusted.printable``).
"""

from __future__ import annotations

import json

import pytest

from icgbench.cli import main
from leaderboard_helpers import small_board_copy, submission_doc, two_entry_board

HOSTILE = "a\x1b]0;PWN\x07\x1b[2J"
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\x85")


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    return two_entry_board(tmp_path_factory)


def _run(capsys, *argv) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "Traceback" not in text
    return code, text


def _clean(text: str) -> None:
    assert not any(c in text for c in RAW), repr(text)


@pytest.mark.parametrize("command", ["validate", "score"])
def test_a_file_name_cannot_drive_the_terminal(tmp_path, capsys, command):
    path = tmp_path / f"{HOSTILE}.json"
    path.write_text(json.dumps(submission_doc("random", "linear_lowhet")))
    extra = ["--out", tmp_path / "r.json"] if command == "score" else []
    code, text = _run(capsys, command, path, *extra)
    assert code == 0, text
    _clean(text)
    assert command == "score" or "a\\x1b]0;PWN\\x07\\x1b[2J.json" in text


def _no_forged_line(text: str, escaped: str) -> None:
    """No control reached the output, no line starts a workflow command, and the newline
    that tried to is shown escaped."""
    _clean(text)
    assert not any(line.startswith("::error::") for line in text.splitlines()), text
    assert escaped in text


def test_an_invalid_files_name_and_values_are_escaped(tmp_path, capsys):
    doc = submission_doc("random", "linear_lowhet")
    doc["model"]["language"] = "py\x9b31m\x85"
    doc["structure_recovery"] = {"source": ["x\u202eevil"], "target": ["y"], "score": [1.0]}
    path = tmp_path / f"{HOSTILE}\n::error::forged.json"
    path.write_text(json.dumps(doc))
    code, text = _run(capsys, "validate", path)
    assert code == 1, text
    _no_forged_line(text, "\\n::error::forged.json")


def test_a_queued_file_name_cannot_forge_a_line_of_the_ci_log(tmp_path, board, capsys):
    folder = small_board_copy(board, tmp_path)
    stray = folder / f"x\n::error::forged {HOSTILE}.json"
    stray.write_text("{}")
    code, text = _run(capsys, "leaderboard", "verify", "--dir", folder, "--tier", "small",
                      "--jobs", "1")
    assert code == 1, text
    _no_forged_line(text, "x\\n::error::forged")


def test_a_board_written_by_hand_with_c1_controls_is_escaped_by_show(tmp_path, board, capsys):
    """``leaderboard add`` refuses such values (the schema's patterns), so they reach a board
    only as a pull request's hand edit: ``show`` prints a free-text note escaped, and names an
    invalid version escaped too."""
    folder = small_board_copy(board, tmp_path)
    mine = submission_doc("mbcnet_v0_1", "linear_lowhet")
    mine["model"].update(name="mine", version="1", language="R\x9b2J\u202e\x85")
    (tmp_path / "mine.json").write_text(json.dumps(mine))
    code, text = _run(capsys, "leaderboard", "add", tmp_path / "mine.json", "--dir", folder)
    assert code == 1 and "/model/language" in text, text
    _clean(text)
    path = folder / "leaderboard.json"
    doc = json.loads(path.read_text())
    doc["entries"][0]["notes"] = "R\x9b2J\u202e\x85 note"
    path.write_text(json.dumps(doc))
    code, text = _run(capsys, "leaderboard", "show", "--dir", folder)
    assert code == 0 and "R\\x9b2J\\u202e\\x85 note" in text, text
    _clean(text)
    doc["entries"][0]["package_version"] = "1\x9b2J\u202e"
    path.write_text(json.dumps(doc))
    code, text = _run(capsys, "leaderboard", "show", "--dir", folder)
    assert code == 1 and "entry 0" in text and "package_version" in text, text
    _clean(text)
