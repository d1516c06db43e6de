"""Argument types shared by the training commands: each refuses what it cannot take in words."""

from __future__ import annotations

import argparse

from scorekeeper.vision.config import number_or_nan


def parse_share(text: str) -> float:
    """A share from 0 to 1 (of the synthetic scenes, of the batches...).

    >>> parse_share("0.2")
    0.2
    """
    share = number_or_nan(text)
    if not 0 <= share <= 1:
        raise argparse.ArgumentTypeError(f"expected a share from 0 to 1: {text}")
    return share


def parse_overlap(text: str) -> float:
    """A box overlap (IoU) over 0 and at most 1.

    >>> parse_overlap("0.5")
    0.5
    """
    overlap = number_or_nan(text)
    if not 0 < overlap <= 1:
        raise argparse.ArgumentTypeError(f"expected an overlap (IoU) over 0 and at most 1: {text}")
    return overlap


def parse_count(text: str) -> int:
    """A whole number, 1 or more (of convolutions, of photos...).

    >>> parse_count("3")
    3
    """
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number, 1 or more: {text}")
    return int(text)
