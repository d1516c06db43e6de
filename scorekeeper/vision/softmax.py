"""Softmax and log-softmax over model logits."""

from __future__ import annotations

import numpy as np


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """Numerically stable softmax along ``axis``."""
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    out: np.ndarray = e / e.sum(axis=axis, keepdims=True)
    return out


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise log-probabilities of (N, K) logits."""
    x = logits.astype(np.float64)
    m = x.max(axis=1, keepdims=True)
    return np.asarray(x - m - np.log(np.exp(x - m).sum(axis=1, keepdims=True)))
