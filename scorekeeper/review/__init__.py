"""Game review: what each player's choices and luck cost them, from the event log.

* ``review_events(events, policy, win=None)`` values every throw and judged decision of a game
  exactly with the solved policy (and the two-player win table when it exists).
* ``GameReview``/``PlayerReview``/``TurnReview``/``Decision``/``ThrowLuck`` hold the result;
  ``grade`` and ``accuracy`` are the documented classification and accuracy formula.

Definitions, thresholds and a worked example: ``docs/review.md``.
"""

from scorekeeper.review.evaluate import resolve_undos, review_events
from scorekeeper.review.model import (
    CHANCE_THRESHOLDS,
    HALF_CREDIT_CHANCE,
    HALF_CREDIT_POINTS,
    POINTS_THRESHOLDS,
    Decision,
    GameReview,
    PlayerReview,
    ThrowLuck,
    TurnReview,
    accuracy,
    credit,
    grade,
)

__all__ = [
    "CHANCE_THRESHOLDS",
    "HALF_CREDIT_CHANCE",
    "HALF_CREDIT_POINTS",
    "POINTS_THRESHOLDS",
    "Decision",
    "GameReview",
    "PlayerReview",
    "ThrowLuck",
    "TurnReview",
    "accuracy",
    "credit",
    "grade",
    "resolve_undos",
    "review_events",
]
