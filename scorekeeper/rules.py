"""House rules: one immutable value holding every option of the spec, and the named presets.

>>> rules = find_rules("standard").with_overrides({"opening_minimum": "0"})
>>> rules.opening_minimum, rules.three_ones
(0, 1000)
>>> Rules.from_dict(rules.to_dict()) == rules
True
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from scorekeeper.errors import RulesError

MAX_POINTS = 100_000
MAX_TARGET = 1_000_000

MULTIPLES = ("flat", "doubling", "linear", "none")
HOT_DICE = ("optional", "must_roll")
TIE_BREAKS = ("extra_round", "shared", "full_round")
OVERSHOOTS = ("welfare", "bust")
FOUR_KIND_PAIR_AS_PAIRS = "three_pairs"

# Options added after caches and games were first stored, with the value that scores exactly as
# the engine did before them: ``cache_dict`` leaves them out at that value, so the solvers' disk
# caches of rule sets that do not use them keep their keys; stored games that lack them replay
# with these values (``from_stored``).
LEGACY_VALUES: dict[str, Any] = {
    "single_one": 100,
    "single_five": 50,
    "triple_multiplier": 100,
    "straight_split": True,
    "full_house": 0,
    "pass_dice": False,
    "final_round_defend": False,
    "singles_until_open": False,
    "bank_max_dice_left": 6,
    "exact_overshoot": "welfare",
    "farkle_keeps_points": False,
    "six_dice_farkle_bonus_first_throw": False,
    "reroll_last_pair": False,
    "dice": 6,
    "triple_addon": 0,
}


def _points(
    default: int | str,
    help_text: str,
    *,
    low: int = 0,
    high: int = MAX_POINTS,
    words: tuple[str, ...] = (),
) -> Any:
    meta: dict[str, Any] = {"kind": "points", "low": low, "high": high, "help": help_text}
    if words:
        meta["words"] = words  # besides a number, these words are accepted
    return field(default=default, metadata=meta)


def _count(default: int, help_text: str, *, low: int, high: int) -> Any:
    return field(
        default=default, metadata={"kind": "count", "low": low, "high": high, "help": help_text}
    )


def _flag(default: bool, help_text: str) -> Any:
    return field(default=default, metadata={"kind": "bool", "help": help_text})


def _choice(default: str, choices: tuple[str, ...], help_text: str) -> Any:
    return field(
        default=default, metadata={"kind": "choice", "choices": choices, "help": help_text}
    )


@dataclass(frozen=True)
class Rules:
    """Every option of a table's house rules; hashable, validated on construction.

    :raises RulesError: when a value has the wrong type or lies out of range.
    """

    three_ones: int = _points(1000, "Points for three 1s in one throw (PlayMonster's box: 300).")
    single_one: int = _points(100, "Points for a single 1; 0 = a lone 1 does not score.", high=1000)
    single_five: int = _points(50, "Points for a single 5; 0 = a lone 5 does not score.", high=1000)
    triple_multiplier: int = _points(
        100,
        "Three of a kind of 2s to 6s scores the face times this (three 4s: 4 x 100); 0 = they"
        " do not score.",
        high=1000,
    )
    multiples: Literal["flat", "doubling", "linear", "none"] = _choice(
        "flat",
        MULTIPLES,
        "Four, five and six of a kind: flat values, the triple doubled per extra die, "
        "the triple times (n - 2), or none (only triples count).",
    )
    four_kind: int = _points(1000, "Four of a kind when multiples=flat.")
    five_kind: int = _points(2000, "Five of a kind when multiples=flat.")
    six_kind: int = _points(3000, "Six of a kind when multiples=flat.")
    straight: int = _points(1500, "A 1-2-3-4-5-6 straight in one throw; 0 = not a combination.")
    partial_straight: int = _points(0, "1-2-3-4-5 or 2-3-4-5-6 in one throw; 0 = off.")
    straight_split: bool = _flag(
        False,
        "A 1-6 straight kept whole may score as a partial straight plus a single 1 "
        "when that is worth more; off: it scores as the straight.",
    )
    three_pairs: int = _points(1500, "Three pairs of three different values; 0 = off.")
    four_kind_pair: int | str = _points(
        1500,
        "Four of a kind plus a pair of another value; 0 = off; three_pairs = worth three pairs.",
        words=(FOUR_KIND_PAIR_AS_PAIRS,),
    )
    two_triplets: int = _points(2500, "Two triples of different values in one throw; 0 = off.")
    full_house: int = _points(
        0, "Three of a kind plus a pair of another value: the triple plus this; 0 = off."
    )
    triple_addon: int = _points(
        0,
        "Each later die of a face kept as three (or more) of a kind earlier in the turn scores"
        " this by itself (seed 000: three 6s, then each further 6 adds 100); 0 = off.",
        high=1000,
    )
    hot_dice: Literal["optional", "must_roll"] = _choice(
        "optional",
        HOT_DICE,
        "After setting aside all six dice: the player may bank, or must throw all six again.",
    )
    pass_dice: bool = _flag(
        False,
        "After a bank the next player may take over the banked total and the dice left (all six"
        " after hot dice) or throw six fresh dice; a farkle then loses the passed total too.",
    )
    opening_minimum: int = _points(
        500, "Points needed in ONE turn before a player's first bank; 0 = none."
    )
    singles_until_open: bool = _flag(
        False, "Until a player is on the board only single 1s and 5s score (no combinations)."
    )
    bank_minimum: int = _points(0, "The least turn total that may be banked on any turn.")
    bank_max_dice_left: int = _count(
        6,
        "A turn may be banked only with at most this many dice left to throw (hot dice count"
        " as none); 6 = any.",
        low=0,
        high=6,
    )
    target: int = _points(10000, "The score that ends the game.", low=50, high=MAX_TARGET)
    final_round: bool = _flag(
        True, "When a player reaches the target, every other player gets one more turn."
    )
    final_round_must_beat: bool = _flag(
        True, "In the final round a player may bank only a total that beats the leader."
    )
    final_round_defend: bool = _flag(
        False,
        "Defend your win: in the final round a farkle puts a player out, and whoever takes the"
        " lead must defend it against everyone still in, until play returns to the leader.",
    )
    tie_break: Literal["extra_round", "shared", "full_round"] = _choice(
        "extra_round",
        TIE_BREAKS,
        "A tie at the end: the tied players play extra rounds until one is ahead, they share"
        " the win, or everyone plays another full round (and the highest then wins).",
    )
    exact_target: bool = _flag(
        False, "A bank must land exactly on the target; see exact_overshoot for an overshoot."
    )
    exact_overshoot: Literal["welfare", "bust"] = _choice(
        "welfare",
        OVERSHOOTS,
        "Under exact_target, an overshooting bank's points go to the lowest other player"
        " (welfare), or are lost (bust).",
    )
    farkle_streak_penalty: int = _points(
        0, "Points lost on a player's third farkle in a row; 0 = no penalty."
    )
    farkle_keeps_points: bool = _flag(
        False,
        "A farkle ends the turn but banks its points when a bank of them would be allowed"
        " (seed 000's nursing-home rule).",
    )
    reroll_last_pair: bool = _flag(
        False,
        "A throw of the last two dice that is a pair scoring nothing (2 2, 3 3, 4 4, 6 6) is"
        " thrown again once instead of farkling (seed 000's comments).",
    )
    toxic_twos: bool = _flag(False, "A throw with four or more 2s wipes the player's banked score.")
    six_dice_farkle_bonus: int = _points(
        0, "A farkle on six dice scores this instead and the player throws all six again; 0 = off."
    )
    six_dice_farkle_bonus_first_throw: bool = _flag(
        False, "The six-dice farkle bonus counts only on a turn's first throw."
    )
    six_ones_win: bool = _flag(False, "Six 1s in one throw win the game outright.")
    dice: int = _count(
        6,
        "How many dice a turn throws: 6, or 5 as Greed plays (then the six-dice combinations,"
        " six 1s and the six-dice farkle bonus never happen; the straight is the partial"
        " straight 1-2-3-4-5 or 2-3-4-5-6).",
        low=5,
        high=6,
    )

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            _check(f, getattr(self, f.name))
        if self.final_round_defend and not self.final_round:
            raise RulesError(
                "final_round_defend needs final_round=true: a win is defended in the final"
                " round; set final_round=true or final_round_defend=false"
            )
        if self.bank_max_dice_left == 0 and self.hot_dice == "must_roll":
            raise RulesError(
                "bank_max_dice_left=0 needs hot_dice=optional: a bank is then allowed only on"
                " hot dice, which must_roll makes throw again, so no turn could ever bank;"
                " set hot_dice=optional or raise bank_max_dice_left"
            )
        if self.dice < 6:
            for option, on in _SIX_DICE_ONLY:
                if on(getattr(self, option)):
                    raise RulesError(
                        f"{option}={_text(getattr(self, option))} needs dice=6: a throw of"
                        f" {self.dice} dice can never show six dice; set dice=6 or turn"
                        f" {option} off"
                    )
        if self.triple_addon and not self.scores_of_a_kind:
            raise RulesError(
                f"triple_addon={self.triple_addon} needs three of a kind to score: with"
                " three_ones=0, triple_multiplier=0 and no four, five or six of a kind, two"
                " triplets or four of a kind with a pair, no die is ever kept as a triple; set"
                " triple_multiplier or three_ones above 0, or triple_addon=0"
            )
        if self.full_house and not (self.three_ones or self.triple_multiplier):
            raise RulesError(
                f"full_house={self.full_house} needs triples that score: a full house is a"
                " scoring triple plus a pair, and with three_ones=0 and triple_multiplier=0 no"
                " triple scores; set three_ones or triple_multiplier above 0, or full_house=0"
            )
        if self.tie_break == "full_round" and not self.final_round:
            raise RulesError(
                "tie_break=full_round needs final_round=true: without a final round the first"
                " to reach the target wins at once, so there is never a tie to play a round"
                " for; set final_round=true or another tie_break"
            )
        if self.singles_until_open and not (self.single_one or self.single_five):
            raise RulesError(
                "singles_until_open=true needs single_one or single_five above 0: only single"
                " 1s and 5s score before the board, so with both at 0 no player could ever get"
                " on it; set single_one or single_five, or singles_until_open=false"
            )
        for option, value, needs, why in _NEEDS:
            if getattr(self, option) == value and not getattr(self, needs):
                raise RulesError(
                    f"{option}={_text(value)} needs {needs}: {why}; set {needs} or drop {option}"
                )

    def to_dict(self) -> dict[str, Any]:
        """Every option as a JSON-able dict, in the spec's order."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Build from a dict of options; missing options take their defaults.

        :raises RulesError: on an unknown key or a bad value.
        """
        return cls().with_overrides(data)

    def with_overrides(self, overrides: Mapping[str, Any]) -> Rules:
        """A copy with some options changed; string values (from a CLI) are parsed.

        :raises RulesError: on an unknown key or a bad value.
        """
        known = {f.name: f for f in dataclasses.fields(self)}
        changes: dict[str, Any] = {}
        for key, value in overrides.items():
            if key not in known:
                raise RulesError(
                    f"unknown rules option {key!r}; the options are: {', '.join(known)}"
                )
            changes[key] = _coerce(known[key], value)
        return dataclasses.replace(self, **changes)

    def differences(self, other: Rules | None = None) -> dict[str, Any]:
        """The options whose values differ from ``other`` (default: the standard rules)."""
        base = (other or Rules()).to_dict()
        return {k: v for k, v in self.to_dict().items() if base[k] != v}

    @classmethod
    def from_stored(cls, data: Mapping[str, Any]) -> Rules:
        """Rules from a stored game's dict: an option it lacks takes its legacy value (how the
        game was played then), not today's default.

        :raises RulesError: on an unknown key or a bad value.
        """
        return cls.from_dict({**LEGACY_VALUES, **data})

    def opening_scoring(self) -> Rules:
        """The rules a player's throws score by before they are on the board: these rules,
        or under ``singles_until_open`` the same with only single 1s and 5s scoring."""
        if not self.singles_until_open:
            return self
        return self.with_overrides({**_SINGLES_ONLY, "singles_until_open": False})

    @property
    def four_kind_pair_points(self) -> int:
        """What four of a kind plus a pair scores (``three_pairs``: the three pairs' value)."""
        value = self.four_kind_pair
        return self.three_pairs if value == FOUR_KIND_PAIR_AS_PAIRS else int(value)

    @property
    def scores_of_a_kind(self) -> bool:
        """Whether any combination with three or more dice of one face scores (so a face can
        be kept as a triple: ``triple_addon``)."""
        kinds = (self.four_kind, self.five_kind, self.six_kind) if self.multiples == "flat" else ()
        return bool(
            self.three_ones
            or self.triple_multiplier
            or any(kinds)
            or self.two_triplets
            or self.four_kind_pair_points
        )

    @property
    def split_beats_straight(self) -> bool:
        """Whether a partial straight plus a single 1 is worth more than the full straight."""
        split = self.partial_straight + self.single_one
        return self.straight > 0 and self.partial_straight > 0 and split > self.straight

    def cache_dict(self) -> dict[str, Any]:
        """The options as the solvers' caches key them: an option added later is left out
        where it scores as before it existed, so older caches of the same game stay valid."""
        out = self.to_dict()
        out["four_kind_pair"] = self.four_kind_pair_points
        if not self.split_beats_straight:
            out["straight_split"] = True  # nothing to split: as the legacy engine scored
        if self.dice < 6:  # what five dice can never show is left at its default
            for name in (*SIX_DICE_COMBOS, "straight_split", "bank_max_dice_left"):
                out[name] = getattr(Rules, name)
            if self.bank_max_dice_left < self.dice:
                out["bank_max_dice_left"] = self.bank_max_dice_left
        for key, legacy in LEGACY_VALUES.items():
            if out[key] == legacy:
                del out[key]
        return out

    def content_key(self) -> str:
        """A short stable hash of the options, for caches keyed by the rules' content: two
        values that score and play alike (``cache_dict``) share it."""
        text = json.dumps(self.cache_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


# Every combination off: what scores under ``singles_until_open`` before the board.
_SINGLES_ONLY: dict[str, Any] = {
    "three_ones": 0,
    "triple_multiplier": 0,
    "multiples": "none",
    "straight": 0,
    "partial_straight": 0,
    "three_pairs": 0,
    "four_kind_pair": 0,
    "two_triplets": 0,
    "full_house": 0,
    "triple_addon": 0,  # no face is kept as a triple before the board
}

# Options that are off by default and can only happen on a throw of six dice: switching one
# on under ``dice=5`` contradicts it. (The six-dice combinations' points, on by default,
# simply never apply with five dice; ``SIX_DICE_COMBOS`` names them.)
_SIX_DICE_ONLY: tuple[tuple[str, Any], ...] = (
    ("six_ones_win", bool),
    ("six_dice_farkle_bonus", bool),
)
SIX_DICE_COMBOS = ("straight", "three_pairs", "four_kind_pair", "two_triplets", "six_kind")

# (option, value, the option it needs, why): combinations that contradict each other.
_NEEDS: tuple[tuple[str, Any, str, str], ...] = (
    ("exact_overshoot", "bust", "exact_target", "only an exact target can be overshot"),
    (
        "six_dice_farkle_bonus_first_throw",
        True,
        "six_dice_farkle_bonus",
        "there is no six-dice farkle bonus to limit (it is 0)",
    ),
)


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def describe_options() -> list[dict[str, Any]]:
    """Each option's name, default, kind, accepted values and one-sentence help (for pages);
    ``six_dice``: ``"never"`` for what five dice never show (``dice=5`` leaves it unused),
    ``"refused"`` for what ``dice=5`` contradicts."""
    refused = {name for name, _on in _SIX_DICE_ONLY} | {"six_dice_farkle_bonus_first_throw"}
    never = {*SIX_DICE_COMBOS, "straight_split"}
    out = []
    for f in dataclasses.fields(Rules):
        meta = dict(f.metadata)
        item = {"name": f.name, "default": f.default, **meta}
        if f.name in never | refused:
            item["six_dice"] = "refused" if f.name in refused else "never"
        out.append(item)
    return out


def _accepted(f: dataclasses.Field[Any]) -> str:
    meta = f.metadata
    if meta["kind"] == "bool":
        return "true or false"
    if meta["kind"] == "choice":
        return "one of " + ", ".join(meta["choices"])
    if meta["kind"] == "count" and meta["high"] == meta["low"] + 1:
        return f"{meta['low']} or {meta['high']}"
    if meta["kind"] == "count":
        return f"a whole number from {meta['low']} to {meta['high']}"
    words = "".join(f" or {w}" for w in meta.get("words", ()))
    return f"a multiple of 50 from {meta['low']} to {meta['high']}{words}"


def _check(f: dataclasses.Field[Any], value: Any) -> None:
    meta = f.metadata
    kind = meta["kind"]
    ok: bool
    if kind == "bool":
        ok = isinstance(value, bool)
    elif kind == "choice":
        ok = isinstance(value, str) and value in meta["choices"]
    elif kind == "count":
        ok = (
            isinstance(value, int)
            and not isinstance(value, bool)
            and meta["low"] <= value <= meta["high"]
        )
    elif isinstance(value, str):
        ok = value in meta.get("words", ())
    else:
        ok = (
            isinstance(value, int)
            and not isinstance(value, bool)
            and meta["low"] <= value <= meta["high"]
            and value % 50 == 0
        )
    if not ok:
        raise RulesError(f"bad value {value!r} for {f.name}: it accepts {_accepted(f)}")


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def _coerce(f: dataclasses.Field[Any], value: Any) -> Any:
    """Parse a string from a command line or a form into the option's type."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    kind = f.metadata["kind"]
    if kind == "bool":
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
    elif kind == "count":
        if text.isdigit():
            return int(text)
    elif kind == "points":
        word = text.lower().replace("-", "_")
        if word in f.metadata.get("words", ()):
            return word
        try:
            return int(text.replace("_", "").replace(",", ""))
        except ValueError:
            pass
    else:
        return text.lower().replace("-", "_")
    raise RulesError(f"bad value {value!r} for {f.name}: it accepts {_accepted(f)}")


_NO_SIX_DICE_COMBOS: dict[str, Any] = {
    "straight": 0,
    "three_pairs": 0,
    "four_kind_pair": 0,
    "two_triplets": 0,
}

PRESETS: dict[str, Rules] = {
    "standard": Rules(),
    "playmonster": Rules(three_ones=300),
    "original": Rules().with_overrides(
        {
            "multiples": "none",
            **_NO_SIX_DICE_COMBOS,
            "opening_minimum": 1000,
            "hot_dice": "must_roll",
        }
    ),
    "no-combos": Rules().with_overrides({**_NO_SIX_DICE_COMBOS, "opening_minimum": 0}),
    "zilch": Rules().with_overrides(
        {
            "multiples": "none",
            **_NO_SIX_DICE_COMBOS,
            "hot_dice": "must_roll",
            "opening_minimum": 0,
            "bank_minimum": 350,
            "farkle_streak_penalty": 1000,
        }
    ),
    "zilch-online": Rules().with_overrides(
        {
            "multiples": "doubling",
            "four_kind_pair": 1500,
            "two_triplets": 0,
            "opening_minimum": 0,
            "bank_minimum": 300,
            "six_dice_farkle_bonus": 500,
            "farkle_streak_penalty": 500,
        }
    ),
    "minimal": Rules().with_overrides(
        {"multiples": "none", **_NO_SIX_DICE_COMBOS, "opening_minimum": 0}
    ),
}

PRESET_HELP: dict[str, str] = {
    "standard": "The common table: three 1s = 1000, six-dice combos, 500 to get on the board.",
    "playmonster": "The PlayMonster box sheet: like standard but three 1s = 300.",
    "original": "The 'original rules': only 1s, 5s and triples, 1000 to open, hot dice must roll.",
    "no-combos": "Standard scoring without six-dice combinations and no opening minimum.",
    "zilch": "Zilch as seed 000's family plays it: the original scoring, 350 to bank every turn,"
    " three zilches in a row lose 1000.",
    "zilch-online": "The web's Zilch (zilch.playr.co.uk): doubling multiples, 300 to bank,"
    " 500 for a six-dice zilch, three zilches in a row lose 500.",
    "minimal": "Only 1s, 5s and triples, no minimums (Busche & Neller's solved game).",
}

ALIASES: dict[str, str] = {
    "default": "standard",
    "classic": "standard",
    "play-monster": "playmonster",
    "nocombos": "no-combos",
    "no_combos": "no-combos",
    "10000": "original",
    "busche-neller": "minimal",
    "zilch-web": "zilch-online",
    "neller": "minimal",
}


def preset_names() -> list[str]:
    """The names of the presets, in the spec's order."""
    return list(PRESETS)


def canonical_preset(name: str) -> str:
    """The preset's canonical name, accepting aliases and any case.

    :raises RulesError: when no preset has that name.
    """
    key = name.strip().lower().replace("_", "-") if name else ""
    key = ALIASES.get(key, ALIASES.get(key.replace("-", "_"), key))
    if key not in PRESETS:
        raise RulesError(f"unknown rules preset {name!r}; the presets are: {', '.join(PRESETS)}")
    return key


def find_rules(name: str = "standard", overrides: Mapping[str, Any] | None = None) -> Rules:
    """The preset called ``name`` (aliases allowed), with optional overrides applied.

    >>> find_rules("original").multiples
    'none'

    :raises RulesError: on an unknown preset, option key or bad value.
    """
    rules = PRESETS[canonical_preset(name)]
    return rules.with_overrides(overrides) if overrides else rules


def parse_assignments(items: list[str] | None) -> dict[str, str]:
    """Parse ``KEY=VALUE`` strings (the CLI's ``--set``) into a dict.

    :raises RulesError: when an item has no ``=``.
    """
    out: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise RulesError(f"bad --set {item!r}: write KEY=VALUE, e.g. opening_minimum=0")
        out[key.strip()] = value
    return out


def named_rules(name: str, assignments: list[str] | None = None) -> tuple[str, Rules]:
    """A preset's canonical name and its rules with ``KEY=VALUE`` assignments applied.

    :raises RulesError: on an unknown preset, a bad assignment, key or value.
    """
    canonical = canonical_preset(name)
    return canonical, find_rules(canonical, parse_assignments(assignments))


def check_playable(rules: Rules) -> None:
    """Refuse, naming the options, rules under which a new game could never be played out:
    nothing that scores, or an exact target that no bank can land on. Checked at setup and
    for saved rule sets, not on stored games (which replay as they were played).

    :raises RulesError: when the options contradict each other so.
    """
    from scorekeeper.scoring import combo_catalogue  # scoring imports this module

    if not (rules.single_one or rules.single_five) and not any(
        sum(counts) <= rules.dice for _, counts, _ in combo_catalogue(rules)
    ):
        raise RulesError(
            "single_one=0 and single_five=0 leave nothing that scores: with these rules no"
            f" combination of {rules.dice} dice scores either, so every throw farkles; set"
            " single_one or single_five above 0, or a combination (three_ones,"
            " triple_multiplier)"
        )
    if rules.exact_target:
        for option in ("opening_minimum", "bank_minimum"):
            least = getattr(rules, option)
            if least > rules.target:
                raise RulesError(
                    f"{option}={least} is above the target={rules.target}: under"
                    " exact_target=true a bank must land exactly on the target, so every bank"
                    f" of {least} or more overshoots and no player could ever win; lower"
                    f" {option} to at most the target, raise the target, or set"
                    " exact_target=false"
                )


def rules_from_json(data: Any) -> tuple[str, Rules]:
    """Rules from the API's JSON form ``{"preset": NAME, "overrides": {...}}`` or a full dict.

    Returns the preset's name (or ``"custom"``) and the rules.

    :raises RulesError: when the JSON has the wrong shape or bad options.
    """
    if data is None:
        return "standard", PRESETS["standard"]
    if not isinstance(data, Mapping):
        raise RulesError('rules must be an object like {"preset": "standard", "overrides": {}}')
    if "preset" in data or "overrides" in data:
        extra = set(data) - {"preset", "overrides"}
        if extra:
            raise RulesError(f"unknown rules field(s) {sorted(extra)}; use preset and overrides")
        preset = data.get("preset", "standard")
        overrides = data.get("overrides") or {}
        if not isinstance(preset, str) or not isinstance(overrides, Mapping):
            raise RulesError("rules.preset must be a preset name and rules.overrides an object")
        name = canonical_preset(preset)
        rules = find_rules(name, cast(Mapping[str, Any], overrides))
    else:
        name, rules = "custom", Rules.from_dict(data)
    check_playable(rules)
    return name, rules
