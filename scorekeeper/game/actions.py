"""The game's vocabulary of events: its set-up and each action a table can take.

An action is a frozen dataclass (:class:`Throw`, :class:`KeepDice`, :class:`Bank`,
:class:`QuickScore`, :class:`PassChoice`, :class:`Join`, :class:`Leave`, :class:`End`,
:class:`Undo`, :class:`Redo`, :class:`Correct`, :class:`Adjust`; and :class:`Roll`, which a
client sends and the server stores as the throw of its virtual dice); the stored
event log holds their JSON form, and ``from_json``/``to_json`` round-trip it (``from_json``
checks each field's value; ``parse_action`` also refuses fields an action does not take).
``parse_setup`` checks the body of ``POST /api/games`` into the ``create`` event;
``parse_action`` checks the body of ``POST /api/games/<id>/actions`` (less its ``version``).
Both raise :class:`ActionError` (HTTP 400) on malformed input; whether the action is allowed
by the rules is the engine's business (:mod:`scorekeeper.game.engine`).

>>> parse_action({"type": "throw", "dice": [1, 5, 2, 3, 4, 6]})
{'type': 'throw', 'dice': [1, 5, 2, 3, 4, 6], 'source': 'manual'}
>>> parse_action({"type": "bank", "version": 3})
{'type': 'bank'}
>>> action_from_json({"type": "keep", "dice": [1, 5]})
KeepDice(dice=(1, 5))
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal, Self

from scorekeeper.errors import ActionError
from scorekeeper.game.rolloff import parse_rolloff
from scorekeeper.game.teams import TeamDraw, team_draw
from scorekeeper.rules import rules_from_json
from scorekeeper.scoring import MAX_DICE

MAX_PLAYERS = 86
MAX_NAME = 40
MAX_QUICK_POINTS = 1_000_000
MAX_ADJUST_POINTS = 1_000_000
MAX_REASON = 80


def game_limits() -> dict[str, int]:
    """The limits of a game's set-up, as the setup page, the API and the CLI give them."""
    return {"min_players": 1, "max_players": MAX_PLAYERS, "max_name": MAX_NAME}


def clean_name(value: Any, what: str = "a player name") -> str:
    """A player or team name: text of 1 to 40 printable characters, trimmed.

    :raises ActionError: when it is not such text.
    """
    if not isinstance(value, str):
        raise ActionError(f"{what} must be text, got {_kind(value)}")
    text = unicodedata.normalize("NFC", " ".join(value.split()))
    if not text:
        raise ActionError(f"{what} must not be empty")
    if len(text) > MAX_NAME:
        raise ActionError(f"{what} has {len(text)} characters; at most {MAX_NAME} are accepted")
    if any(unicodedata.category(ch).startswith("C") for ch in text):
        raise ActionError(f"{what} {text!r} contains control characters")
    return text


def parse_setup(body: Any) -> dict[str, Any]:
    """The ``create`` event from a new-game body ``{"players", "teams", "rules", "start_scores",
    "team_draw", "rolloff"}`` (``rolloff``: the roll-off for the first player, see
    :func:`scorekeeper.game.rolloff.parse_rolloff`).

    ``teams`` is null, a list of team names parallel to ``players`` (null for no team), or an
    object mapping each team name to its players' names. ``start_scores`` is null (all 0) or
    each player's starting points (a handicap), parallel to ``players``.

    :raises ActionError: on a malformed body, bad or repeated names.
    :raises RulesError: on bad rules.
    """
    if not isinstance(body, Mapping):
        raise ActionError('the body must be a JSON object like {"players": ["Ann", "Bob"]}')
    extra = set(body) - {"players", "teams", "rules", "start_scores", "team_draw", "rolloff"}
    if extra:
        raise ActionError(
            f"unknown field(s) {sorted(extra)}; accepted: players, teams, rules, start_scores,"
            " team_draw, rolloff"
        )
    players = body.get("players")
    if not isinstance(players, list) or not players:
        raise ActionError('players must be a non-empty list of names, e.g. ["Ann", "Bob"]')
    if len(players) > MAX_PLAYERS:
        raise ActionError(f"{len(players)} players given; a game has 1 to {MAX_PLAYERS}")
    names = [clean_name(p) for p in players]
    _check_unique(names)
    teams = _parse_teams(body.get("teams"), names)
    draw = _parse_draw(body.get("team_draw"), names, teams)
    if draw is not None:
        teams = list(draw.assignment)
    preset, rules = rules_from_json(body.get("rules"))
    if rules.pass_dice and len(names) < 2:
        raise ActionError(
            f"pass_dice needs two or more players, but this game has one ({names[0]}): the"
            " dice pass to the next player; add a player or set pass_dice=false"
        )
    create = {
        "type": "create",
        "players": names,
        "teams": teams,
        "start_scores": _start_scores(body.get("start_scores"), names, rules.target),
        "preset": preset,
        "rules": rules.to_dict(),
    }
    if draw is not None:
        create["team_draw"] = draw.to_json()
    if body.get("rolloff") is not None:
        create["rolloff"] = parse_rolloff(body["rolloff"], names)
    return create


def _parse_draw(value: Any, names: list[str], teams: list[str | None] | None) -> TeamDraw | None:
    """Teams drawn by dice: ``{"teams": K, "throws": [[die, ...] per player], "names": [...]}``
    (``throws`` left out: the server throws fair virtual dice). When ``teams`` is given too it
    must be the teams the draw gives."""
    if value is None:
        return None
    if not isinstance(value, Mapping) or set(value) - {"teams", "throws", "names"}:
        raise ActionError(
            'team_draw must be an object like {"teams": 2, "throws": [[5], [2], [6, 1]]}'
            " (throws optional: the server throws virtual dice; names optional)"
        )
    throws, labels = value.get("throws"), value.get("names")
    if throws is not None and not (
        isinstance(throws, list) and all(isinstance(t, list) for t in throws)
    ):
        raise ActionError("team_draw.throws must list each player's dice, e.g. [[5], [2], [6, 1]]")
    if labels is not None:
        if not isinstance(labels, list):
            raise ActionError("team_draw.names must list the team names")
        labels = [clean_name(t, "a team name") for t in labels]
    draw = team_draw(names, value.get("teams"), throws=throws, team_names=labels)
    if teams is not None and teams != draw.assignment:
        raise ActionError(
            "teams and team_draw disagree: send the teams the draw gives"
            f" ({', '.join(f'{n}: {t}' for n, t in zip(names, draw.assignment, strict=True))})"
            " or leave teams out"
        )
    return draw


def _start_scores(value: Any, names: list[str], target: int) -> list[int]:
    """Each player's starting points (a handicap): null for all 0, else a list parallel to
    the players of multiples of 50 from 0 to the target less 50."""
    if value is None:
        return [0] * len(names)
    if not isinstance(value, list) or len(value) != len(names):
        raise ActionError(
            f"start_scores must list one starting score per player ({len(names)}), got"
            f" {_kind(value)}"
        )
    top = target - 50
    for name, v in zip(names, value, strict=True):
        whole = isinstance(v, int) and not isinstance(v, bool)
        if not whole or v < 0 or v % 50 or v > top:
            given = f"{v:,}" if whole else _kind(v)
            raise ActionError(
                f"{name}'s starting score {given} is not accepted: a starting score is a"
                f" multiple of 50 from 0 to {top:,} (the target less 50)"
            )
    return list(value)


def _check_unique(names: list[str]) -> None:
    seen: set[str] = set()
    for n in names:
        key = n.casefold()
        if key in seen:
            raise ActionError(f"two players are called {n!r}; each player needs a distinct name")
        seen.add(key)


def _parse_teams(value: Any, names: list[str]) -> list[str | None] | None:
    if value is None:
        return None
    if isinstance(value, list):
        if len(value) != len(names):
            raise ActionError(
                f"teams lists {len(value)} entries for {len(names)} players; give one team name"
                " (or null) per player"
            )
        return [None if t is None else clean_name(t, "a team name") for t in value]
    if isinstance(value, Mapping):
        by_player: dict[str, str] = {}
        lookup = {n.casefold(): n for n in names}
        for team, members in value.items():
            team_name = clean_name(team, "a team name")
            if not isinstance(members, list):
                raise ActionError(f"team {team_name!r} must list its players' names")
            if not members:
                raise ActionError(
                    f"team {team_name!r} has nobody in it: list at least one of its players,"
                    " or leave the team out"
                )
            for m in members:
                member = lookup.get(clean_name(m).casefold())
                if member is None:
                    raise ActionError(f"team {team_name!r} lists {m!r}, who is not a player")
                if member in by_player:
                    raise ActionError(f"{member} is in two teams; a player has one team")
                by_player[member] = team_name
        return [by_player.get(n) for n in names]
    raise ActionError("teams must be null, a list of team names, or an object team -> players")


@dataclass(frozen=True)
class _Plain:
    """An action with no field but its type."""

    TYPE: ClassVar[str]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """The action of an event ``{"type": TYPE}``."""
        return cls()

    def to_json(self) -> dict[str, Any]:
        """The event as stored."""
        return {"type": self.TYPE}


@dataclass(frozen=True)
class Throw:
    """Dice thrown: entered by hand, read by the camera, or rolled by the app's virtual dice
    (``app``: stored by the server for a :class:`Roll`, never accepted from a client)."""

    TYPE: ClassVar[str] = "throw"
    dice: tuple[int, ...]
    source: Literal["manual", "camera", "app"] = "manual"

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Throw:
        """The throw of an event ``{"type": "throw", "dice": [...], "source": ...}``."""
        dice = _dice(data.get("dice"), cls.TYPE)
        source = data.get("source", "manual")
        if source == "manual" or source == "camera" or source == "app":
            return cls(dice, source)
        raise ActionError(f"unknown throw source {source!r}; it is manual or camera")

    def to_json(self) -> dict[str, Any]:
        """The event as stored."""
        return {"type": self.TYPE, "dice": list(self.dice), "source": self.source}


@dataclass(frozen=True)
class Roll(_Plain):
    """A throw of the app's fair virtual dice for the dice not set aside: the server rolls
    them and stores a :class:`Throw` with source ``app`` (so a client cannot choose them)."""

    TYPE: ClassVar[str] = "roll"


@dataclass(frozen=True)
class Adjust:
    """Points added to (or taken from, when negative) a player's score by hand, with the
    reason: a table's own penalty or bonus."""

    TYPE: ClassVar[str] = "adjust"
    player: str | int
    points: int
    reason: str

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Adjust:
        """The adjustment of an event ``{"type": "adjust", "player": name or seat,
        "points": N, "reason": text}``."""
        player = data.get("player")
        if isinstance(player, bool) or not isinstance(player, (str, int)):
            raise ActionError(
                "an adjustment needs player: the name (or seat number) of the player whose"
                f" score changes, got {_kind(player)}"
            )
        points = data.get("points")
        if isinstance(points, bool) or not isinstance(points, int):
            raise ActionError(
                "an adjustment needs points: a whole number of points to add (negative to take"
                f" away), e.g. -1 or 500, got {_kind(points)}"
            )
        if points == 0 or abs(points) > MAX_ADJUST_POINTS:
            raise ActionError(
                f"an adjustment of {points:,} points is not accepted: it is a whole number from"
                f" -{MAX_ADJUST_POINTS:,} to {MAX_ADJUST_POINTS:,}, and not 0"
            )
        reason = data.get("reason")
        if reason is None or (isinstance(reason, str) and not reason.strip()):
            raise ActionError(
                'an adjustment needs a reason, e.g. "sang the farkle song": the table sees'
                " it in the history and the exports"
            )
        return cls(
            player if isinstance(player, int) else clean_name(player),
            points,
            _reason(reason),
        )

    def to_json(self) -> dict[str, Any]:
        """The event as stored."""
        return {
            "type": self.TYPE,
            "player": self.player,
            "points": self.points,
            "reason": self.reason,
        }


def _reason(value: Any) -> str:
    """An adjustment's reason: text of 1 to 80 printable characters, trimmed."""
    if not isinstance(value, str):
        raise ActionError(f"an adjustment's reason must be text, got {_kind(value)}")
    text = unicodedata.normalize("NFC", " ".join(value.split()))
    if len(text) > MAX_REASON:
        raise ActionError(
            f"the reason has {len(text)} characters; at most {MAX_REASON} are accepted"
        )
    if any(unicodedata.category(ch).startswith("C") for ch in text):
        raise ActionError(f"the reason {text!r} contains control characters")
    return text


@dataclass(frozen=True)
class KeepDice:
    """Scoring dice set aside from the throw."""

    TYPE: ClassVar[str] = "keep"
    dice: tuple[int, ...]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> KeepDice:
        """The keep of an event ``{"type": "keep", "dice": [...]}``."""
        return cls(_dice(data.get("dice"), cls.TYPE))

    def to_json(self) -> dict[str, Any]:
        """The event as stored."""
        return {"type": self.TYPE, "dice": list(self.dice)}


@dataclass(frozen=True)
class Bank(_Plain):
    """The turn's points banked."""

    TYPE: ClassVar[str] = "bank"


@dataclass(frozen=True)
class QuickScore:
    """A whole turn's points typed in (0 = a farkle)."""

    TYPE: ClassVar[str] = "quick_score"
    points: int

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> QuickScore:
        """The quick score of an event ``{"type": "quick_score", "points": N}``."""
        return cls(_points(data.get("points")))

    def to_json(self) -> dict[str, Any]:
        """The event as stored."""
        return {"type": self.TYPE, "points": self.points}


PASS_CHOICES = ("take_over", "fresh")


@dataclass(frozen=True)
class PassChoice:
    """Under ``pass_dice``: the next player takes over the banked total and the dice left
    (``take_over``) or throws six fresh dice (``fresh``)."""

    TYPE: ClassVar[str] = "pass_choice"
    choice: Literal["take_over", "fresh"]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PassChoice:
        """The choice of an event ``{"type": "pass_choice", "choice": "take_over"}``."""
        choice = data.get("choice")
        if choice == "take_over" or choice == "fresh":
            return cls(choice)
        raise ActionError(
            f"pass_choice needs choice: take_over (the passed total and dice) or fresh (six new"
            f" dice), got {_kind(choice)}"
        )

    def to_json(self) -> dict[str, Any]:
        """The event as stored."""
        return {"type": self.TYPE, "choice": self.choice}


@dataclass(frozen=True)
class Join:
    """A new player joins, playing after the others."""

    TYPE: ClassVar[str] = "join"
    name: str
    team: str | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Join:
        """The join of an event ``{"type": "join", "name": ..., "team": ...}``."""
        team = data.get("team")
        return cls(
            clean_name(data.get("name")), None if team is None else clean_name(team, "a team name")
        )

    def to_json(self) -> dict[str, Any]:
        """The event as stored."""
        return {"type": self.TYPE, "name": self.name, "team": self.team}


@dataclass(frozen=True)
class Leave:
    """A player, by name or seat number, leaves the game."""

    TYPE: ClassVar[str] = "leave"
    player: str | int

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Leave:
        """The leave of an event ``{"type": "leave", "player": name or seat}``."""
        player = data.get("player")
        if isinstance(player, bool) or not isinstance(player, (str, int)):
            raise ActionError("leave needs player: the leaving player's name (or seat number)")
        return cls(player if isinstance(player, int) else clean_name(player))

    def to_json(self) -> dict[str, Any]:
        """The event as stored."""
        return {"type": self.TYPE, "player": self.player}


@dataclass(frozen=True)
class End(_Plain):
    """The game ended now: the highest score wins."""

    TYPE: ClassVar[str] = "end"


@dataclass(frozen=True)
class Undo:
    """The latest action still in effect taken back; ``undoes`` names it by its version (the
    game version its event made), so a repeated or stale undo takes nothing back."""

    TYPE: ClassVar[str] = "undo"
    undoes: int | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Undo:
        """The undo of an event ``{"type": "undo", "undoes": VERSION}`` (``undoes`` optional)."""
        value = data.get("undoes")
        return cls(None if value is None else _version(value, "undoes", "undone"))

    def to_json(self) -> dict[str, Any]:
        """The event as stored."""
        if self.undoes is None:
            return {"type": self.TYPE}
        return {"type": self.TYPE, "undoes": self.undoes}


@dataclass(frozen=True)
class Redo:
    """The action the latest undo took back, applied again exactly as it was; ``redoes``
    names it by its version."""

    TYPE: ClassVar[str] = "redo"
    redoes: int

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Redo:
        """The redo of an event ``{"type": "redo", "redoes": VERSION}``."""
        return cls(_version(data.get("redoes"), "redoes", "undone action to apply again"))

    def to_json(self) -> dict[str, Any]:
        """The event as stored."""
        return {"type": self.TYPE, "redoes": self.redoes}


TurnAction = Throw | KeepDice | Bank | QuickScore
TURN_ACTIONS: dict[str, type[TurnAction]] = {a.TYPE: a for a in (Throw, KeepDice, Bank, QuickScore)}
MAX_CORRECTED_ACTIONS = 100
"""The most actions a corrected turn may hold."""


@dataclass(frozen=True)
class Correct:
    """A past turn's dice and keeps entered again: ``actions`` (throws, keeps, a bank or a
    quick score) replace that turn's own, and every turn after it is replayed."""

    TYPE: ClassVar[str] = "correct"
    turn: int
    actions: tuple[TurnAction, ...]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Correct:
        """The correction of an event ``{"type": "correct", "turn": N, "actions": [...]}``."""
        turn = data.get("turn")
        if isinstance(turn, bool) or not isinstance(turn, int) or turn < 1:
            raise ActionError(
                f"a correction needs turn: the number of the turn to correct (1 or more), got"
                f" {_kind(turn)}"
            )
        return cls(turn, _turn_actions(data.get("actions")))

    def to_json(self) -> dict[str, Any]:
        """The event as stored."""
        return {
            "type": self.TYPE,
            "turn": self.turn,
            "actions": [a.to_json() for a in self.actions],
        }


def _turn_actions(value: Any) -> tuple[TurnAction, ...]:
    example = '[{"type": "throw", "dice": [1, 5, 2, 3, 4, 6]}, {"type": "keep", "dice": [1, 5]}]'
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_CORRECTED_ACTIONS:
        raise ActionError(
            f"a correction needs actions: the turn's throws, keeps and its bank, 1 to"
            f" {MAX_CORRECTED_ACTIONS} of them, e.g. {example}; got {_kind(value)}"
        )
    out: list[TurnAction] = []
    for n, item in enumerate(value, 1):
        kind = item.get("type") if isinstance(item, Mapping) else None
        if kind not in TURN_ACTIONS:
            raise ActionError(
                f"action {n} of the correction is {_kind(item)}; a corrected turn holds"
                f" {', '.join(TURN_ACTIONS)} actions only"
            )
        assert isinstance(item, Mapping)
        allowed = {"type", *(f.name for f in fields(TURN_ACTIONS[kind]))}
        extra = set(item) - allowed
        if extra:
            raise ActionError(
                f"unknown field(s) {sorted(extra)} in action {n} of the correction (a {kind});"
                f" it accepts: {', '.join(sorted(allowed))}"
            )
        if kind == Throw.TYPE and item.get("source") == "app":
            raise ActionError(
                f'action {n} of the correction claims source "app" (the server\'s virtual'
                " dice); a corrected throw is entered by hand: leave source out or send manual"
            )
        out.append(TURN_ACTIONS[kind].from_json(item))
    return tuple(out)


Action = (
    Throw
    | KeepDice
    | Bank
    | QuickScore
    | PassChoice
    | Join
    | Leave
    | End
    | Undo
    | Redo
    | Correct
    | Roll
    | Adjust
)
ACTIONS: dict[str, type[Action]] = {
    a.TYPE: a
    for a in (
        Throw,
        KeepDice,
        Bank,
        QuickScore,
        PassChoice,
        Undo,
        Redo,
        Correct,
        Join,
        Leave,
        End,
        Roll,
        Adjust,
    )
}
ACTION_TYPES = tuple(ACTIONS)


def action_from_json(data: Any) -> Action:
    """The action of one event (``{"type": ..., fields}``; other keys, such as the time the
    store adds, are ignored), its fields checked.

    :raises ActionError: on an unknown type, a missing field or a value of the wrong type.
    """
    return ACTIONS[_action_type(data)].from_json(data)


def parse_action(body: Any) -> dict[str, Any]:
    """The event for one action body (its ``version`` is dropped; the store checks it).

    :raises ActionError: on an unknown type, an unknown or missing field or a value of the
        wrong type.
    """
    kind = _action_type(body)
    allowed = {"type", "version", *(f.name for f in fields(ACTIONS[kind]))}
    extra = set(body) - allowed
    if extra:
        raise ActionError(
            f"unknown field(s) {sorted(extra)} for a {kind}; it accepts: "
            + ", ".join(sorted(allowed))
        )
    if kind == Throw.TYPE and body.get("source") == "app":
        raise ActionError(
            'a throw\'s source "app" is the server\'s own virtual dice: send {"type": "roll"}'
            " to have the dice not set aside rolled, or enter the dice with source manual or"
            " camera"
        )
    return ACTIONS[kind].from_json(body).to_json()


def _action_type(data: Any) -> str:
    if not isinstance(data, Mapping):
        raise ActionError('the body must be a JSON object like {"version": 3, "type": "bank"}')
    kind = data.get("type")
    if kind not in ACTIONS:
        raise ActionError(f"unknown action type {kind!r}; the types are: {', '.join(ACTION_TYPES)}")
    return str(kind)


def _dice(value: Any, kind: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_DICE:
        raise ActionError(
            f"a {kind} needs dice: a list of 1 to 6 faces, e.g. [1, 5, 3], got {_kind(value)}"
        )
    for v in value:
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
            raise ActionError(f"bad die {v!r} in the {kind}: each die is a whole number 1 to 6")
    return tuple(value)


def _version(value: Any, name: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ActionError(
            f"{name} must be the version of the {what} (a whole number, 1 or more; the state's"
            f" {'undoable' if name == 'undoes' else 'redoable'}.version), got {_kind(value)}"
        )
    return value


def _points(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ActionError(f"quick_score needs points: a whole number, got {_kind(value)}")
    if not 0 <= value <= MAX_QUICK_POINTS or value % 50:
        raise ActionError(
            f"{value} points cannot be a turn's score: it is a multiple of 50 from 0 to"
            f" {MAX_QUICK_POINTS} (0 = a farkle)"
        )
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return f"{type(value).__name__} {value!r}"[:80]
