"""Messages a user acts on, pinned word for word where a sampled mutation campaign found
them untested (a mutant that blanked or garbled them survived)."""

from __future__ import annotations

import datetime as dt

import pytest

from icgbench.generator.blocks import split_blocks
from icgbench.leaderboard.entry import timestamp_problem


def test_a_block_size_below_one_is_refused_by_name():
    with pytest.raises(ValueError) as refused:
        split_blocks({"train": 10, "test": 5, "target_test": 5}, 0)
    assert str(refused.value) == "block_size must be at least 1, got 0"


def test_a_future_submission_time_names_the_clock_of_the_check():
    now = dt.datetime(2026, 11, 27, 18, 0, 0, 123456, tzinfo=dt.UTC)
    assert timestamp_problem("2026-12-30T00:00:00Z", now=now) == (
        "2026-12-30T00:00:00Z is in the future (the check ran at 2026-11-27T18:00:00Z)")
    assert timestamp_problem("2026-11-28T00:00:00Z", now=now) is None  # within a day's skew
