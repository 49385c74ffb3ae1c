"""Blocks: each split is simulated in runs of a fixed number of subjects.

Every block draws from streams of its own (:mod:`.streams`), so a block's subjects depend
only on (variant, seed, split, block index, block size), never on how many blocks are
simulated together or where. A cohort of any size can then be simulated block by block in
bounded memory, in shards on many workers, with the same content. Block 0 of a split holds
its first ``BLOCK_SIZE`` subjects and keeps the streams a split had before blocks existed:
every frozen cohort (at most 3,000 subjects per split) is one block per split.

The only number that spans blocks is an intervention's mean effect over a split
(``intervention_effects``): each block's sum is taken with ``numpy.add.reduce`` and the
sums are added in block order, left to right, whatever the shards, so the result does not
depend on how the blocks were grouped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from icgbench.contract.vocabulary import SPLITS

#: Subjects per block: large enough for vectorised speed, small enough that one block
#: (its factual and intervened runs included) takes a few hundred MB.
BLOCK_SIZE = 32_768


@dataclass(frozen=True)
class Block:
    """Subjects ``start`` to ``stop - 1`` (0-based) of a split: its ``index``-th block."""

    split: str
    index: int
    start: int
    stop: int

    @property
    def n(self) -> int:
        return self.stop - self.start


def split_blocks(sizes: Mapping[str, int], block_size: int = BLOCK_SIZE) -> list[Block]:
    """Every block of a cohort, split by split in release order, then by index."""
    if block_size < 1:
        raise ValueError(f"block_size must be at least 1, got {block_size}")
    out = []
    for split in SPLITS:
        n = sizes[split]
        for index, start in enumerate(range(0, n, block_size)):
            out.append(Block(split, index, start, min(start + block_size, n)))
    return out


def add_in_order(block_sums: list[np.ndarray]) -> np.ndarray:
    """Per-block sums added left to right in block order (the order is the contract)."""
    total = np.zeros_like(block_sums[0])
    for s in block_sums:
        total = total + s
    return total
