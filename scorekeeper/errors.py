"""Domain errors: each is a ValueError whose message says what is wrong and what is accepted."""


class ScorekeeperError(ValueError):
    """Base of every error the library raises for bad input."""


class RulesError(ScorekeeperError):
    """An unknown preset, option key, or an option value of the wrong type or range."""


class RulesetNotFoundError(RulesError):
    """No saved rule set has the given name."""


class DiceError(ScorekeeperError):
    """Dice that are not 1 to 6 dice with faces 1 to 6, or a keep that is not legal."""


class ActionError(ScorekeeperError):
    """A malformed game action or game set-up: a missing field, a wrong type, an unknown type."""


class GameRuleError(ScorekeeperError):
    """A well-formed action that the game's rules or its current state do not allow."""


class GameNotFoundError(ScorekeeperError):
    """No game has the given id."""


class StaleVersionError(ScorekeeperError):
    """An action carried a game version other than the current one (another tablet acted)."""

    def __init__(self, message: str, current: int) -> None:
        super().__init__(message)
        self.current = current


class StaleUndoError(ScorekeeperError):
    """An undo (or redo) that names an action other than the one it would take back (or
    re-apply): it was already done, or the game moved on; nothing is changed (409)."""


class ControlTokenError(ScorekeeperError):
    """An action without the game's control token (``missing``) or with a wrong one."""

    def __init__(self, message: str, missing: bool) -> None:
        super().__init__(message)
        self.missing = missing


class ServeError(ScorekeeperError):
    """A bad ``scorekeeper serve`` option (a port outside 0-65535 or in use, too few threads, a
    host not of this machine), or no game database where ``games`` / ``export`` are told to
    read one."""


class CameraError(ScorekeeperError):
    """A bad camera source, frame upload or throwing area (the message says what is accepted)."""


class TeachStoreError(CameraError):
    """The taught dice could not be kept (a full or read-only disk); play goes on without."""


class ImageError(ScorekeeperError):
    """An unreadable, truncated, empty, too small or too large image, or a bad frame array."""


class UnsupportedRulesError(ScorekeeperError):
    """Rules the win-probability solver cannot play exactly (the message names them)."""


class PositionError(ScorekeeperError):
    """An impossible game position: scores, turn total or dice out of range for the rules."""


class StrategyError(ScorekeeperError):
    """An impossible state for the advisor: turn total, dice count or a score out of range."""


class PlayerMergeError(ScorekeeperError):
    """A merge of two player names that cannot be done: a name no stored game has, or a name
    merged into itself."""


class RequestFieldError(ScorekeeperError):
    """A query field or request body that is not what the API accepts (400)."""


class SolverBusyError(ScorekeeperError):
    """Too many win-chance solves are waiting already (503): try again in a few minutes."""
