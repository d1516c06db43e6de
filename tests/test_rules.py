"""The rules value: defaults, presets, validation messages and the JSON round trip."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorekeeper.errors import RulesError
from scorekeeper.rules import (
    PRESETS,
    Rules,
    describe_options,
    find_rules,
    parse_assignments,
    preset_names,
    rules_from_json,
)

SPEC_OPTIONS = {
    "three_ones": 1000, "single_one": 100, "single_five": 50, "triple_multiplier": 100,
    "multiples": "flat", "four_kind": 1000, "five_kind": 2000,
    "six_kind": 3000, "straight": 1500, "partial_straight": 0, "straight_split": False,
    "three_pairs": 1500, "four_kind_pair": 1500, "two_triplets": 2500, "full_house": 0,
    "hot_dice": "optional",
    "opening_minimum": 500, "bank_minimum": 0, "target": 10000, "final_round": True,
    "final_round_must_beat": True, "tie_break": "extra_round", "exact_target": False,
    "farkle_streak_penalty": 0, "toxic_twos": False, "six_dice_farkle_bonus": 0,
    "six_ones_win": False,
}  # fmt: skip


VARIANT_OPTIONS = {  # issue 30's variants: off by default
    "pass_dice": False, "final_round_defend": False, "singles_until_open": False,
    "bank_max_dice_left": 6, "exact_overshoot": "welfare", "farkle_keeps_points": False,
    "six_dice_farkle_bonus_first_throw": False, "reroll_last_pair": False, "dice": 6,
    "triple_addon": 0,
}  # fmt: skip


def test_defaults_are_the_spec() -> None:
    assert Rules().to_dict() == {**SPEC_OPTIONS, **VARIANT_OPTIONS}


def test_presets_differ_from_defaults_as_the_spec_says() -> None:
    combos_off = {"straight": 0, "three_pairs": 0, "four_kind_pair": 0, "two_triplets": 0}
    assert preset_names() == [
        "standard",
        "playmonster",
        "original",
        "no-combos",
        "zilch",
        "zilch-online",
        "minimal",
    ]
    assert find_rules("standard").differences() == {}
    assert find_rules("playmonster").differences() == {"three_ones": 300}
    assert find_rules("original").differences() == {
        "multiples": "none",
        **combos_off,
        "opening_minimum": 1000,
        "hot_dice": "must_roll",
    }
    assert find_rules("no-combos").differences() == {**combos_off, "opening_minimum": 0}
    # seed 000's Zilch: "a minimum of 350 before you can take a score" every turn, "3 zilches
    # in a row you lose 1000 points", "otherwise the rules are the same" (the original rules)
    assert find_rules("zilch").differences() == {
        "multiples": "none",
        **combos_off,
        "hot_dice": "must_roll",
        "opening_minimum": 0,
        "bank_minimum": 350,
        "farkle_streak_penalty": 1000,
    }
    assert find_rules("zilch-web") == find_rules("zilch-online")
    assert find_rules("zilch-online").differences() == {
        "multiples": "doubling",
        "two_triplets": 0,
        "opening_minimum": 0,
        "bank_minimum": 300,
        "six_dice_farkle_bonus": 500,
        "farkle_streak_penalty": 500,
    }
    assert find_rules("minimal").differences() == {
        "multiples": "none",
        **combos_off,
        "opening_minimum": 0,
    }


@pytest.mark.parametrize(
    "alias,name",
    [
        ("Default", "standard"),
        ("no_combos", "no-combos"),
        ("busche-neller", "minimal"),
        ("ZILCH", "zilch"),
    ],
)
def test_aliases(alias: str, name: str) -> None:
    assert find_rules(alias) == PRESETS[name]


def test_unknown_preset_lists_the_presets() -> None:
    with pytest.raises(RulesError, match=r"unknown rules preset 'house'.*standard, playmonster"):
        find_rules("house")


@pytest.mark.parametrize(
    "key,value,message",
    [
        (
            "opening_minmum",
            "0",
            "unknown rules option 'opening_minmum'; the options are: three_ones",
        ),
        ("opening_minimum", "-50", "opening_minimum: it accepts a multiple of 50 from 0"),
        ("opening_minimum", "125", "a multiple of 50"),
        ("opening_minimum", "lots", "bad value 'lots' for opening_minimum"),
        ("target", "0", "target: it accepts a multiple of 50 from 50 to 1000000"),
        ("multiples", "tripling", "multiples: it accepts one of flat, doubling, linear, none"),
        ("final_round", "maybe", "final_round: it accepts true or false"),
        ("hot_dice", 3, "hot_dice: it accepts one of optional, must_roll"),
        ("toxic_twos", 1, "toxic_twos: it accepts true or false"),
        ("straight", True, "straight: it accepts a multiple of 50"),
    ],
)
def test_bad_values_name_the_key_and_what_it_accepts(key: str, value: object, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        find_rules("standard", {key: value})


def test_string_overrides_are_parsed() -> None:
    rules = find_rules(
        "standard",
        parse_assignments(
            ["opening_minimum=0", "final_round=false", "hot_dice=must-roll", "target=5,000"]
        ),
    )
    assert (rules.opening_minimum, rules.final_round, rules.hot_dice, rules.target) == (
        0,
        False,
        "must_roll",
        5000,
    )


def test_bad_assignment() -> None:
    with pytest.raises(RulesError, match="write KEY=VALUE"):
        parse_assignments(["opening_minimum"])


def test_rules_are_hashable_and_frozen() -> None:
    assert len({Rules(), Rules(), find_rules("zilch")}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        Rules().target = 5000  # type: ignore[misc]


def test_rules_from_json_forms() -> None:
    name, rules = rules_from_json({"preset": "standard", "overrides": {"opening_minimum": 0}})
    assert (name, rules.opening_minimum) == ("standard", 0)
    assert rules_from_json(None) == ("standard", Rules())
    assert rules_from_json(find_rules("zilch").to_dict()) == ("custom", find_rules("zilch"))
    with pytest.raises(RulesError, match="rules must be an object"):
        rules_from_json([1])
    with pytest.raises(RulesError, match="unknown rules field"):
        rules_from_json({"preset": "standard", "colour": "red"})


def test_every_option_is_described() -> None:
    described = describe_options()
    assert sorted(d["name"] for d in described) == sorted({**SPEC_OPTIONS, **VARIANT_OPTIONS})
    assert all(d["help"].endswith(".") for d in described)


options = st.fixed_dictionaries(
    {},
    optional={
        "three_ones": st.sampled_from([300, 1000]),
        "multiples": st.sampled_from(["flat", "doubling", "linear", "none"]),
        "straight": st.integers(0, 60).map(lambda n: n * 50),
        "hot_dice": st.sampled_from(["optional", "must_roll"]),
        "opening_minimum": st.integers(0, 20).map(lambda n: n * 50),
        "target": st.integers(1, 400).map(lambda n: n * 50),
        "final_round": st.booleans(),
        "toxic_twos": st.booleans(),
        "tie_break": st.sampled_from(["extra_round", "shared"]),
    },
)


@given(st.sampled_from(preset_names()), options)
def test_rules_round_trip_through_json(preset: str, overrides: dict[str, object]) -> None:
    rules = find_rules(preset, overrides)
    again = Rules.from_dict(json.loads(json.dumps(rules.to_dict())))
    assert again == rules
    assert again.content_key() == rules.content_key()
