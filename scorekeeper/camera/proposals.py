"""The camera's recent proposals and their way into the camera log."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from scorekeeper.camera.log import CameraLog
from scorekeeper.camera.reading import Proposal
from scorekeeper.errors import CameraError

RECENT_PROPOSALS = 100
"""Proposals kept by id, so that an outcome recorded later finds its proposal."""


class ProposalBook:
    """The last :data:`RECENT_PROPOSALS` proposals, and which of them the log has."""

    def __init__(self, log: CameraLog | None) -> None:
        """Log to ``log`` (None: no log)."""
        self.log = log
        self._recent: OrderedDict[str, Proposal] = OrderedDict()
        self._logged: set[str] = set()

    def remember(self, p: Proposal) -> None:
        """Keep a new proposal (forgetting the oldest beyond :data:`RECENT_PROPOSALS`)."""
        self._recent[p.id] = p
        while len(self._recent) > RECENT_PROPOSALS:
            self._recent.popitem(last=False)

    def note_shown(self, proposal: Proposal, dice_left: int | None, source: str) -> None:
        """Log a proposal of camera ``source`` the first time a player is shown it."""
        if self.log is None or proposal.id in self._logged:
            return
        self._logged.add(proposal.id)
        self.log.add_proposal(
            proposal.id,
            source=source,
            frame_id=proposal.frame_id,
            dice=proposal.dice,
            confidence=proposal.confidence,
            dice_left=dice_left,
            truth=proposal.truth,
        )

    def record_outcome(
        self, pid: str, recorded: Sequence[int] | None, game: str | None, source: str
    ) -> dict[str, Any]:
        """Log what was recorded for proposal ``pid`` (None: dismissed).

        :raises CameraError: no log, or a proposal this camera never made.
        """
        if self.log is None:
            raise CameraError("the camera log is not enabled")
        p = self._recent.get(pid)
        if p is not None:
            self.note_shown(p, None, source)
        return self.log.set_outcome(pid, recorded, game)
