"""The camera's vocabulary: kinds of source and states, as strings in JSON and the log."""

from __future__ import annotations

from enum import StrEnum


class SourceKind(StrEnum):
    """What a ``--camera`` value names (``auto`` until it is resolved)."""

    AUTO = "auto"
    NONE = "none"
    DEMO = "demo"
    TABLET = "tablet"
    WEBCAM = "webcam"
    URL = "url"


class CameraStatus(StrEnum):
    """The state of the camera's picture, as ``GET /api/camera`` reports it."""

    OK = "ok"
    NO_CAMERA = "no_camera"
    ERROR = "error"
