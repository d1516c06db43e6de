"""The live camera: sources, a capture thread, settled-throw detection and the camera service."""

from scorekeeper.camera.log import CameraLog, log_path_for
from scorekeeper.camera.service import CameraService, Proposal, Reading
from scorekeeper.camera.settle import Area, Die, MotionDetector, SettleConfig, Settler
from scorekeeper.camera.sources import DemoSource, OpenCVSource, SourceSpec, parse_source
from scorekeeper.camera.states import CameraStatus, SourceKind

__all__ = [
    "Area",
    "CameraLog",
    "CameraService",
    "CameraStatus",
    "DemoSource",
    "Die",
    "MotionDetector",
    "OpenCVSource",
    "Proposal",
    "Reading",
    "SettleConfig",
    "Settler",
    "SourceKind",
    "SourceSpec",
    "log_path_for",
    "parse_source",
]
