"""Domain errors: each is a ValueError whose message says what is wrong and what is accepted."""


class ScorekeeperError(ValueError):
    """Base of every error the library raises for bad input."""


class RulesError(ScorekeeperError):
    """An unknown preset, option key, or an option value of the wrong type or range."""


class DiceError(ScorekeeperError):
    """Dice that are not 1 to 6 dice with faces 1 to 6, or a keep that is not legal."""
