"""A game of Farkle: its actions, the engine that replays them, its state, JSON view and exports.

``actions`` holds the vocabulary (the set-up and each action, with their JSON form),
``engine`` the rules of play (:class:`Game`), ``log`` the event log (undo, redo, corrections,
:func:`replay`, :func:`advance`), ``corrections`` the preview of a correction, ``state`` the
parts of a game's state, ``view`` its JSON form and wording, ``export`` its CSV and JSON export,
``roller`` the app's fair virtual dice.
"""

from scorekeeper.game.actions import Action, action_from_json, parse_action, parse_setup
from scorekeeper.game.engine import Game
from scorekeeper.game.export import game_csv, game_export
from scorekeeper.game.log import LOG_EVENTS, advance, effective_actions, replay
from scorekeeper.game.roller import roll_dice, rolled_event
from scorekeeper.game.state import Player, Stats, Turn

__all__ = [
    "LOG_EVENTS",
    "Action",
    "Game",
    "Player",
    "Stats",
    "Turn",
    "action_from_json",
    "advance",
    "effective_actions",
    "game_csv",
    "game_export",
    "parse_action",
    "parse_setup",
    "replay",
    "roll_dice",
    "rolled_event",
]
