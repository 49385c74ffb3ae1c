"""``icgbench.arrow`` converts exactly as pyarrow does, for every array the scorer reads."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icgbench.arrow import strings, to_numpy

TYPES = [pa.float64(), pa.float32(), pa.int64(), pa.int32(), pa.int8(), pa.uint8(),
         pa.uint64(), pa.bool_()]


def _values(kind: pa.DataType) -> st.SearchStrategy:
    if pa.types.is_boolean(kind):
        return st.booleans()
    if pa.types.is_floating(kind):
        return st.floats(width=32 if kind == pa.float32() else 64)
    info = np.iinfo(kind.to_pandas_dtype())
    return st.integers(int(info.min), int(info.max))


@st.composite
def arrays(draw) -> pa.Array | pa.ChunkedArray:
    kind = draw(st.sampled_from(TYPES))
    nulls = pa.types.is_floating(kind) and draw(st.booleans())
    element = _values(kind) | st.none() if nulls else _values(kind)
    chunks = [pa.array(draw(st.lists(element, max_size=40)), type=kind)
              for _ in range(draw(st.integers(1, 3)))]
    array = pa.chunked_array(chunks, type=kind) if draw(st.booleans()) else pa.concat_arrays(
        chunks)
    start = draw(st.integers(0, len(array)))
    return array.slice(start, draw(st.integers(0, len(array) - start)))


def _same_as_pyarrow(array: pa.Array | pa.ChunkedArray) -> None:
    ours = to_numpy(array)
    theirs = array.to_numpy() if isinstance(array, pa.ChunkedArray) else array.to_numpy(
        zero_copy_only=False)
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


@settings(max_examples=100, deadline=None)
@given(arrays())
def test_to_numpy_equals_pyarrow_for_numbers_and_booleans_sliced_chunked_or_null(array) -> None:
    _same_as_pyarrow(array)


@pytest.mark.slow
@settings(max_examples=5_000, deadline=None)
@given(arrays())
def test_to_numpy_equals_pyarrow_long_campaign(array) -> None:
    _same_as_pyarrow(array)


def test_other_types_and_integer_nulls_use_pyarrow() -> None:
    np.testing.assert_array_equal(to_numpy(pa.array([1, None, 3])), [1.0, np.nan, 3.0])
    assert list(to_numpy(pa.array(["a", "b"]))) == ["a", "b"]


@given(st.lists(st.text() | st.just("a\ud800")))
def test_strings_equals_pa_array_and_refuses_a_lone_surrogate_alike(values: list[str]) -> None:
    try:
        expected = pa.array(values, type=pa.string())
    except UnicodeEncodeError:
        with pytest.raises(UnicodeEncodeError):  # the schema check falls back on this
            strings(values)
        return
    assert strings(values).equals(expected)
