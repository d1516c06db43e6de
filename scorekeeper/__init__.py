"""Farkle score keeper: exact house-rules scoring, optimal advice and a camera that reads dice."""

from scorekeeper.errors import ScorekeeperError
from scorekeeper.rules import Rules, find_rules, preset_names
from scorekeeper.scoring import (
    Combo,
    Dice,
    Keep,
    best_keep,
    farkle_probability,
    is_farkle,
    legal_keeps,
)

__all__ = [
    "Combo",
    "Dice",
    "Keep",
    "Rules",
    "ScorekeeperError",
    "best_keep",
    "farkle_probability",
    "find_rules",
    "is_farkle",
    "legal_keeps",
    "preset_names",
]
__version__ = "0.1.0"
