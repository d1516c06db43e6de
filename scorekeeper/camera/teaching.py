"""Teaching the camera a table's own dice: crops kept when a player corrects a proposed die or
shows the dice face by face, and (when switched on) the reader adapted to them.

The crops are cut when a throw is proposed (the frame is at hand then), kept in memory for the
last :data:`RECENT_PROPOSALS` proposals, and written to the :class:`TeachStore` only for the dice
a player corrected. How the reader uses the taught dice is ``adapt`` (:data:`TEACH_MODES`): by
default ``"marks"``, a die they read as another face (or as not a die) is marked "?", which
on the sources measured never let more mistakes through; ``"read"`` (``scorekeeper serve
--read-taught``) reads with them, which marks fewer dice unsure on one set of plain dice but
lets more mistakes through on mixed dice (``training/eval_teach.py``, the model card);
``"off"`` only keeps them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from scorekeeper.camera.proposals import RECENT_PROPOSALS
from scorekeeper.camera.reading import Proposal
from scorekeeper.camera.settle import Die
from scorekeeper.camera.teach_store import TeachStore
from scorekeeper.errors import CameraError

TEACH_MODES = ("off", "marks", "read")
"""How the camera's reader uses the taught dice: not at all, to mark a die they read as another
face, or to read with them (:class:`~scorekeeper.vision.adapt.AdaptConfig`)."""


def teach_mode(value: object) -> str:
    """The teaching mode named by an app config value: one of :data:`TEACH_MODES`, or a bool
    (True "read", False "off", as the setting once was).

    >>> teach_mode("marks"), teach_mode(True), teach_mode(False)
    ('marks', 'read', 'off')

    :raises CameraError: any other value, with the accepted ones.
    """
    if isinstance(value, bool):
        return "read" if value else "off"
    if isinstance(value, str) and value in TEACH_MODES:
        return value
    raise CameraError(
        f"CAMERA_TEACH_ADAPT {value!r}: expected one of {', '.join(TEACH_MODES)} (or True/False)"
    )


def taught_config(mode: str) -> Any:
    """The :class:`~scorekeeper.vision.adapt.AdaptConfig` a reader is taught with in a teaching
    mode other than ``"off"``: the marks alone for ``"marks"``, reading with them for ``"read"``.
    """
    from scorekeeper.vision.adapt import ADAPT_DEFAULTS, TAUGHT_MARKS

    return TAUGHT_MARKS if mode == "marks" else ADAPT_DEFAULTS


def _crop(image: np.ndarray, die: Die) -> np.ndarray:
    from scorekeeper.vision.reader import teach_crop

    return teach_crop(image, die.box)


def proposal_order(p: Proposal) -> list[Die]:
    """The proposal's dice in the order of its sorted values (as the page shows them; of equal
    values the least sure first, as :meth:`Proposal.unsure` ranks them)."""
    return sorted(p.boxes, key=lambda d: (d.value, d.confidence))


class Teaching:
    """The taught dice of one camera: the store (None: teaching off), the crops of recent
    proposals, and whether the reader reads with what was taught."""

    def __init__(self, store: TeachStore | None, adapt: str = "marks") -> None:
        """Keep crops in ``store``; unless ``adapt`` is ``"off"``, readers built by the camera
        learn them, to mark dice (``"marks"``) or to read with them (``"read"``).

        :raises CameraError: ``adapt`` not one of :data:`TEACH_MODES`.
        """
        self.store = store
        self.adapt = teach_mode(adapt)
        self._recent: OrderedDict[str, list[np.ndarray]] = OrderedDict()
        self._lock = threading.Lock()
        self._readers: list[Any] = []

    def _need_store(self) -> TeachStore:
        if self.store is None:
            raise CameraError("teaching the camera is switched off on this server")
        return self.store

    def note_proposal(self, p: Proposal, image: np.ndarray) -> None:
        """Cut the crops of a new proposal's dice (kept for the last proposals only)."""
        if self.store is None:
            return
        crops = [_crop(image, d) for d in proposal_order(p)]
        with self._lock:
            self._recent[p.id] = crops
            while len(self._recent) > RECENT_PROPOSALS:
                self._recent.popitem(last=False)

    def keep_corrections(self, pid: str, corrections: Sequence[tuple[int, int]]) -> int:
        """Keep the crops of proposal ``pid``'s dice a player corrected: (index among the
        proposal's sorted dice, the value given, 0 for a die removed as not a die). Returns how
        many were kept (0 when the proposal's crops are no longer held).

        :raises CameraError: an index outside the proposal.
        :raises TeachStoreError: the disk is full or cannot be written.
        """
        store = self._need_store()
        with self._lock:
            crops = self._recent.get(pid)
        if crops is None or not corrections:
            return 0
        for i, _ in corrections:
            if not 0 <= i < len(crops):
                raise CameraError(
                    f"correction of die {i}: the proposal has dice 0 to {len(crops) - 1}"
                )
        kept = store.add([(crops[i], v) for i, v in corrections])
        self._relearn()
        return kept

    def keep_face(self, image: np.ndarray, dice: Sequence[Die], face: int) -> int:
        """Keep every die read in a frame as showing ``face`` (the teach flow). Returns how many.

        :raises TeachStoreError: the disk is full or cannot be written.
        """
        store = self._need_store()
        kept = store.add([(_crop(image, d), face) for d in dice])
        self._relearn()
        return kept

    def clear(self) -> int:
        """Forget every taught die; returns how many were removed."""
        removed = self._need_store().clear()
        self._relearn()
        return removed

    def stats(self) -> dict[str, Any]:
        """The store's counts plus ``enabled`` and ``adapt`` (one of :data:`TEACH_MODES`)."""
        if self.store is None:
            return {"enabled": False, "adapt": "off", "crops": 0}
        return {"enabled": True, "adapt": self.adapt, **self.store.stats()}

    def learn(self, reader: Any) -> Any:
        """Teach a newly built reader the stored dice, unless adapting is off; returns it."""
        if self.adapt != "off" and self.store is not None and hasattr(reader, "teach"):
            self._readers.append(reader)
            reader.teach(*self.store.load(), taught_config(self.adapt))
        return reader

    def _relearn(self) -> None:
        """Teach the readers built so far the store's dice again, after a change."""
        if self.adapt == "off" or self.store is None:
            return
        images, labels = self.store.load()
        for reader in self._readers:
            reader.teach(images, labels, taught_config(self.adapt))
