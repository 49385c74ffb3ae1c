"""``icgbench.io.arrow`` converts exactly as pyarrow does, for every array the scorer reads."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icgbench.io.arrow import array, strings, table, to_numpy, zero

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


def _columns(draw, n: int):
    kinds = st.sampled_from(["float", "int", "bool", "str", "float-list", "int-list",
                             "str-list", "bool-list", "object-str"])
    kind = draw(kinds)
    floats = st.floats(allow_nan=True, allow_infinity=True, width=64)
    ints = st.integers(-(2**63), 2**63 - 1)
    words = st.text(max_size=6)
    return kind, {
        "float": lambda: np.array(draw(st.lists(floats, min_size=n, max_size=n)), dtype=float),
        "int": lambda: np.array(draw(st.lists(ints, min_size=n, max_size=n)), dtype=np.int64),
        "bool": lambda: np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)),
                                 dtype=bool),
        # pyarrow cuts a NumPy unicode string at its first NUL; array() keeps it whole
        "str": lambda: np.array(draw(st.lists(words.filter(lambda w: "\x00" not in w),
                                              min_size=n, max_size=n)), dtype=str),
        "object-str": lambda: np.array(draw(st.lists(words, min_size=n, max_size=n)),
                                       dtype=object),
        "float-list": lambda: draw(st.lists(floats | st.integers(-5, 5), min_size=n,
                                            max_size=n)),
        "int-list": lambda: draw(st.lists(st.integers(-(2**62), 2**62), min_size=n,
                                          max_size=n)),
        "str-list": lambda: draw(st.lists(words, min_size=n, max_size=n)),
        "bool-list": lambda: draw(st.lists(st.booleans(), min_size=n, max_size=n)),
    }[kind]()


@st.composite
def columns(draw):
    n = draw(st.integers(0, 30))
    kind, values = _columns(draw, n)
    masked = kind in ("float", "int", "bool") and draw(st.booleans())
    mask = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    if kind in ("float", "int") and n and draw(st.booleans()):
        values = np.ascontiguousarray(np.stack([values, values], axis=1))[:, 0]  # strided
    return values, (mask if masked else None)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(columns())
def test_array_equals_pa_array_in_type_values_and_nulls(column) -> None:
    values, mask = column
    expected = pa.array(values, mask=mask)
    got = array(values, mask=mask)
    assert got.type == expected.type
    assert got.null_count == expected.null_count
    assert got.is_valid().equals(expected.is_valid())
    if pa.types.is_string(got.type):
        assert got.to_pylist() == expected.to_pylist()
    elif len(got):  # bit for bit, so NaN equals NaN and -0.0 differs from 0.0
        def bits(a: pa.Array) -> bytes:
            return to_numpy(a.fill_null(zero(a.type))).tobytes()

        assert bits(got) == bits(expected)
    made = table({"c": values})
    assert made.schema == pa.table({"c": values}).schema and made.num_rows == len(values)


def test_other_arrays_go_through_pyarrow() -> None:
    days = np.array(["2020-01-01", "2021-06-30"], dtype="datetime64[D]")
    assert array(days).equals(pa.array(days))
    assert array([1, None]).equals(pa.array([1, None]))
    assert array(np.array(["a", None], dtype=object)).equals(pa.array(["a", None]))


def test_zero_is_pa_scalar_zero_for_each_fixed_width_type() -> None:
    for kind in (pa.int64(), pa.int32(), pa.float64(), pa.float32(), pa.bool_(), pa.uint8()):
        assert zero(kind).equals(pa.scalar(0 if kind != pa.bool_() else False, type=kind))
