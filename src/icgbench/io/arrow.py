"""Arrow arrays to and from Python and NumPy without pyarrow's pandas path.

pyarrow imports pandas the first time a process calls ``pa.array``, ``pa.table``,
``pa.scalar`` or ``to_numpy`` (about 0.3 s, most of ``icgbench validate``'s start-up and a
sixth of ``icgbench generate``'s). The scorer and the simulator need only strings and
numbers or booleans: strings go through Arrow's StringBuilder, and a number column is
wrapped or viewed in place (a boolean one packed to or unpacked from its bits). Anything
else goes through pyarrow's own conversion. A test keeps ``validate`` and ``generate``
free of pandas.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyarrow.lib import StringBuilder

_NUMBERS = {
    pa.float64(): np.float64, pa.float32(): np.float32,
    pa.int64(): np.int64, pa.int32(): np.int32, pa.int16(): np.int16, pa.int8(): np.int8,
    pa.uint64(): np.uint64, pa.uint32(): np.uint32, pa.uint16(): np.uint16,
    pa.uint8(): np.uint8,
}


def strings(values: list[str]) -> pa.Array:
    """``values`` (every one a str) as an Arrow string array."""
    builder = StringBuilder()
    builder.append_values(values)
    return builder.finish()


def array(values: np.ndarray | list | pa.Array, mask: np.ndarray | None = None) -> pa.Array:
    """``values`` as ``pa.array(values, mask=mask)`` gives it, for the types the simulator
    writes: strings (a list, or an object or unicode array, of str), booleans, and NumPy
    numbers (a list of Python numbers as NumPy reads it: int64 or float64). One difference:
    pyarrow cuts a NumPy unicode string at its first NUL character; this keeps it whole."""
    if isinstance(values, pa.Array):
        return values
    if isinstance(values, list) or values.dtype.kind in "OU":
        items = values if isinstance(values, list) else values.tolist()
        if mask is None and items and all(type(v) is str for v in items):
            return strings(items)
        numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in items)
        if not isinstance(values, list) or not items or not (
                numbers or all(type(v) is bool for v in items)):
            return pa.array(values, mask=mask)  # anything else: pyarrow's own conversion
        values = np.asarray(items)
    if values.dtype.kind not in "biuf" or values.ndim != 1:
        return pa.array(values, mask=mask)
    n = len(values)
    validity, nulls = None, 0
    if mask is not None and (nulls := int(np.count_nonzero(mask))):
        validity = pa.py_buffer(np.packbits(~np.asarray(mask, dtype=bool), bitorder="little"))
    if values.dtype.kind == "b":
        return pa.Array.from_buffers(pa.bool_(), n, [
            validity, pa.py_buffer(np.packbits(values, bitorder="little"))], null_count=nulls)
    data = np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("="))
    return pa.Array.from_buffers(pa.from_numpy_dtype(data.dtype), n,
                                 [validity, pa.py_buffer(data)], null_count=nulls)


def repeated(value: str, n: int) -> pa.Array:
    """``n`` copies of one string, as an Arrow string array."""
    return strings([value]).take(array(np.zeros(n, dtype=np.int64)))


def numbered(prefix: str, start: int, stop: int, width: int = 6) -> pa.Array:
    """``f"{prefix}{i:0{width}d}"`` for i in [start, stop), as an Arrow string array built
    by Arrow's kernels (no Python string per row)."""
    digits = pc.utf8_lpad(pc.cast(array(np.arange(start, stop, dtype=np.int64)), pa.string()),
                          width=width, padding="0")
    # the separator as an Arrow scalar: a Python str would make pyarrow import pandas
    return pc.binary_join_element_wise(repeated(prefix, stop - start), digits,
                                       strings([""])[0])


def masked(values: np.ndarray, validity: tuple[pa.Buffer | None, int]) -> pa.Array:
    """A 1-D NumPy number array with a validity bitmap already packed (``validity``: the
    buffer and the null count, from :func:`validity_of`): one mask serves many columns."""
    data = np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("="))
    buffer, nulls = validity
    return pa.Array.from_buffers(pa.from_numpy_dtype(data.dtype), len(data),
                                 [buffer if nulls else None, pa.py_buffer(data)],
                                 null_count=nulls)


def validity_of(hidden: np.ndarray) -> tuple[pa.Buffer | None, int]:
    """The packed validity bitmap of a mask (True: null) and its null count."""
    nulls = int(np.count_nonzero(hidden))
    if not nulls:
        return None, 0
    return pa.py_buffer(np.packbits(~np.asarray(hidden, dtype=bool), bitorder="little")), nulls


def zero(kind: pa.DataType) -> pa.Scalar:
    """The zero (False for booleans) of a fixed-width Arrow type, as ``pa.scalar(0)``."""
    return pa.Array.from_buffers(kind, 1, [None, pa.py_buffer(bytes(16))])[0]


def table(columns: dict[str, object]) -> pa.Table:
    """``pa.table(columns)``, each column converted by :func:`array`."""
    return pa.Table.from_arrays([array(v) for v in columns.values()], names=list(columns))


def to_numpy(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """``values`` as a NumPy array, as ``to_numpy(zero_copy_only=False)`` gives it.

    Nulls in a floating-point column become NaN; a number column without nulls is a
    read-only view of Arrow's memory.
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    kind = values.type
    if values.null_count and pa.types.is_floating(kind):
        values = pc.fill_null(values, float("nan"))
    if values.null_count or not (kind in _NUMBERS or pa.types.is_boolean(kind)):
        return values.to_numpy(zero_copy_only=False)
    n, offset = len(values), values.offset
    data = values.buffers()[1]
    if pa.types.is_boolean(kind):
        if n == 0:
            return np.zeros(0, dtype=bool)
        first, last = offset // 8, (offset + n + 7) // 8
        packed = np.frombuffer(data, dtype=np.uint8, count=last - first, offset=first)
        start = offset % 8
        return np.unpackbits(packed, bitorder="little")[start:start + n].astype(bool)
    dtype = np.dtype(_NUMBERS[kind])
    if n == 0:
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(data, dtype=dtype, count=n, offset=offset * dtype.itemsize)
