"""Arrow arrays to and from Python and NumPy without pyarrow's pandas path.

pyarrow imports pandas the first time a process calls ``pa.array``, ``pa.scalar`` or
``to_numpy`` (about 0.25 s, most of ``icgbench validate``'s start-up). The scorer needs
only strings in and numbers or booleans out: strings go through Arrow's StringBuilder,
and a number column is viewed in place (a boolean one unpacked from its bits). Anything
else goes through pyarrow's own conversion. A test keeps ``validate`` free of pandas.
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
