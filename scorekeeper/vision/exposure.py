"""How much of a picture is blown out to white, and the advice the player gets when it is too much.

The reader loses white dice on a pale table when the camera overexposes: die and table clip to
the same white. ``training.eval_shift`` measures it (webcam set at ×1.6 + 20: recall 0.894) and
counts the photos that the advice below would be given for.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = [
    "ADVISE_AT",
    "CLIPPED_LEVEL",
    "KEEP_ADVISING_AT",
    "blown_out_share",
    "exposure_advice",
]

CLIPPED_LEVEL = 250
"""A pixel whose every channel is at least this is blown out."""

ADVISE_AT = 0.2
"""Share of blown-out pixels from which the player is told to turn the exposure down."""

KEEP_ADVISING_AT = 0.15
"""Once advising, a camera keeps on down to this share, so the advice does not flicker."""

_SAMPLE_SIDE = 160


def blown_out_share(
    image: npt.NDArray[np.uint8], box: tuple[int, int, int, int] | None = None
) -> float:
    """The share of the pixels of ``image`` (inside ``box`` = x0, y0, x1, y1 if given) whose
    every channel is at least :data:`CLIPPED_LEVEL`; sampled on a grid at most 160 px wide.

    >>> blown_out_share(np.full((48, 64, 3), 255, np.uint8))
    1.0
    >>> img = np.zeros((48, 64), np.uint8); img[:, :16] = 255
    >>> blown_out_share(img)
    0.25
    >>> blown_out_share(img, (0, 0, 32, 48))
    0.5
    >>> blown_out_share(img[..., None]), blown_out_share(np.dstack([img] * 4))
    (0.25, 0.25)
    """
    if box is not None:
        x0, y0, x1, y1 = box
        image = image[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)]
    if image.size == 0:
        return 0.0
    step = -(-max(image.shape[:2]) // _SAMPLE_SIDE)  # every step-th pixel each way
    image = image[::step, ::step]
    if image.ndim == 2 or image.shape[2] == 1:  # grey
        lowest = image.reshape(image.shape[:2])
    else:  # the colour channels (BGRA's alpha aside); a chain is faster than min(axis=2)
        lowest = np.minimum.reduce([image[..., c] for c in range(3)])
    return float(np.mean(lowest >= CLIPPED_LEVEL))


def exposure_advice(share: float, at: float = ADVISE_AT) -> str | None:
    """What to tell the player about a picture with ``share`` of it blown out, or None below
    ``at`` (a camera that already advises passes :data:`KEEP_ADVISING_AT`);
    the share is rounded to tens, so the words stay the same from frame to frame.

    >>> exposure_advice(0.05) is None
    True
    >>> exposure_advice(0.42)[:52]
    'About 40% of the picture is blown out to white: whit'
    """
    if share < at:
        return None
    return (
        f"About {round(share * 10) * 10}% of the picture is blown out to white: white dice there "
        "can go unseen. Turn the camera's exposure or the light down."
    )
