"""Keyed random streams: every draw comes from its own ``SeedSequence``.

A stream is keyed by (variant hash, seed, split, purpose). Because each purpose has its
own stream, adding a table or a draw never shifts the numbers of another, and because
draws are laid out subject-major (row i belongs to subject i), the first k subjects of a
split are the same whatever the split's size.
"""

from __future__ import annotations

import hashlib

import numpy as np


def _word(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "little")


def stream(variant_hash: str, seed: int, split: str, purpose: str) -> np.random.Generator:
    """A PCG64 generator for one (variant, seed, split, purpose)."""
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    sequence = np.random.SeedSequence(
        entropy=int(variant_hash, 16), spawn_key=(seed, _word(split), _word(purpose))
    )
    return np.random.Generator(np.random.PCG64(sequence))
