"""Keyed random streams: every draw comes from its own ``SeedSequence``.

A stream is keyed by (variant hash, seed, split, purpose, block). Because each purpose has
its own stream, adding a table or a draw never shifts the numbers of another, and because
draws are laid out subject-major (row i belongs to subject i), the first k subjects of a
block are the same whatever the block's size. A split is simulated in blocks of a fixed
number of subjects (:mod:`.blocks`), each with streams of its own, so any block can be
simulated alone: that is what lets a cohort of any size be generated shard by shard, on any
number of workers, with the same content. Block 0 keeps the key it had before blocks
existed, so cohorts of one block per split (every frozen cohort) are unchanged.
"""

from __future__ import annotations

import hashlib

import numpy as np


def _word(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "little")


def stream(variant_hash: str, seed: int, split: str, purpose: str, block: int = 0
           ) -> np.random.Generator:
    """A PCG64 generator for one (variant, seed, split, purpose, block)."""
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    if block < 0:
        raise ValueError(f"block must be non-negative, got {block}")
    key = (seed, _word(split), _word(purpose)) + ((block,) if block else ())
    sequence = np.random.SeedSequence(entropy=int(variant_hash, 16), spawn_key=key)
    return np.random.Generator(np.random.PCG64(sequence))
