"""triple_addon (seed 000's comments: "If 2nd roll yields more 6's, each 6 adds 100 for each.
Not doubling the 600 from 1st roll"): each later die of a face kept as three of a kind earlier
in the turn scores on its own; the game, its words, the exports, the refusals and the advice,
which says it is not exact."""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import combinations, product
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers.table import Table
from test_scoring_options import ALL_MULTISETS, oracle

from scorekeeper.cli import main
from scorekeeper.errors import RulesError, StrategyError, UnsupportedRulesError
from scorekeeper.game.actions import parse_setup
from scorekeeper.review import review_events
from scorekeeper.rules import Rules, find_rules
from scorekeeper.scoring import (
    Dice,
    addon_faces,
    farkle_probability,
    is_reroll_pair,
    kept_as_triples,
    score_keep,
    table_for,
)
from scorekeeper.strategy import advise, policy_for
from scorekeeper.winprob.model import check_supported

NewTable = Callable[..., Table]
ADDON = {"opening_minimum": 0, "triple_addon": 100}


def _sixes(t: Table) -> None:
    t.throw(6, 6, 6, 2, 3, 4)
    t.keep(6, 6, 6)
    assert t.state["turn"]["tripled"] == [6]


def test_each_later_six_adds_100_not_a_doubling(
    client: FlaskClient, new_table: NewTable, no_advice: None
) -> None:
    t = new_table(["Ann", "Bob"], **ADDON)
    _sixes(t)
    t.throw(6, 6, 2)
    keeps = t.state["turn"]["keeps"]
    assert [(k["keep"], k["points"]) for k in keeps] == [([6, 6], 200), ([6], 100)]
    assert keeps[0]["combos"][0]["name"] == "triple_addon"
    t.keep(6, 6)
    assert "6 6 on the earlier triple" in t.state["last_event"]["message"]
    t.bank()
    assert t.score("Ann") == 800
    entry = t.state["history"][-1]["throws"][-1]
    assert entry["added_to_triple"] == [6, 6]
    csv = client.get(f"/api/games/{t.id}/export.csv").get_data(as_text=True)
    assert "kept 6 6 (200; 6 6 on the earlier triple)" in csv
    exported = client.get(f"/api/games/{t.id}/export.json").get_json()
    assert exported["state"]["history"][0]["throws"][-1]["added_to_triple"] == [6, 6]
    assert exported["rules"]["triple_addon"] == 100


def test_other_faces_are_refused_with_the_reason(new_table: NewTable, no_advice: None) -> None:
    t = new_table(["Ann", "Bob"], **ADDON)
    _sixes(t)
    t.throw(6, 4, 2)
    refused = t.keep(6, 4, status=422)["message"]
    assert "legal keeps are 6" in refused and "a single 6 adds 100 this turn" in refused
    t.keep(6)
    t.throw(4, 3)  # a 4 was never kept as a triple: a farkle
    assert t.state["history"][-1]["outcome"] == "farkle"


def test_only_after_the_triple_and_only_in_that_turn(new_table: NewTable, no_advice: None) -> None:
    t = new_table(["Ann", "Bob"], multiples="none", **ADDON)
    t.throw(6, 6, 6, 6, 2, 3)  # the fourth 6 of the same throw is no later die
    assert "not a legal keep" in t.keep(6, 6, 6, 6, status=422)["message"]
    t.keep(6, 6, 6)
    t.throw(1, 2, 3)
    t.keep(1)
    t.bank()  # Ann's turn ends: Bob's 6s score nothing
    t.throw(6, 2, 3, 4, 2, 3)
    assert t.state["history"][-1]["outcome"] == "farkle"


def test_the_triple_counts_through_hot_dice_and_undo_forgets_it(
    new_table: NewTable, no_advice: None
) -> None:
    t = new_table(["Ann", "Bob"], **ADDON)
    t.throw(6, 6, 6, 1, 1, 5)
    t.keep(6, 6, 6, 1, 1, 5)  # hot dice
    assert t.state["turn"]["dice_left"] == 6 and t.state["turn"]["tripled"] == [6]
    t.throw(6, 2, 3, 4, 2, 3)
    assert t.state["turn"]["keeps"][0]["points"] == 100
    t.undo()
    t.undo()
    assert t.state["turn"]["tripled"] == []


def test_scoring_chances_and_the_rerolled_pair() -> None:
    rules = Rules(triple_addon=100, reroll_last_pair=True)
    # a later 1 scores its single value (100 already); a later 5 scores 100, not 50
    assert addon_faces(rules, [1, 5, 6]) == (5, 6)
    assert score_keep(Dice.parse("5 2"), Dice.parse("5"), rules).points == 50
    later_five = table_for(rules, [5]).keep(Dice.parse("5").counts)
    assert later_five is not None and later_five.points == 100
    keep = score_keep(Dice.parse("2 2 2 3 3 3"), Dice.parse("2 2 2 3 3 3"), rules)
    assert kept_as_triples(keep) == (2, 3)  # two triplets: both faces
    pairs = Dice.parse("2 2 3 3 4 4")
    assert kept_as_triples(score_keep(pairs, pairs, rules)) == ()
    # one die: a 1, a 5 or a 6 scores once 6s are tripled
    assert farkle_probability(1, rules, [6]) == pytest.approx(3 / 6)
    assert farkle_probability(1, rules) == pytest.approx(4 / 6)
    # 6 6 on the last two dice scores after three 6s: not a pair to throw again
    assert is_reroll_pair((0, 0, 0, 0, 0, 2), rules)
    assert not is_reroll_pair((0, 0, 0, 0, 0, 2), rules, [6])
    assert table_for(Rules(), [6]).keeps((0, 0, 0, 0, 0, 1)) == ()  # off: nothing added


def test_contradicting_options_are_refused_naming_both(client: FlaskClient) -> None:
    overrides = {
        "triple_addon": 100,
        "three_ones": 0,
        "triple_multiplier": 0,
        "multiples": "none",
        "two_triplets": 0,
        "four_kind_pair": 0,
    }
    with pytest.raises(RulesError, match="triple_addon=100 needs three of a kind to score"):
        Rules().with_overrides(overrides)
    # four of a kind (flat) or two triplets still set a face aside as a triple
    Rules().with_overrides({**overrides, "multiples": "flat"})
    Rules().with_overrides({**overrides, "two_triplets": 2500})
    r = client.post(
        "/api/games",
        json={"players": ["Ann", "Bob"], "rules": {"preset": "standard", "overrides": overrides}},
    )
    message = r.get_json()["message"]
    assert r.status_code == 400 and "triple_addon" in message and "triple_multiplier" in message
    lone = {"singles_until_open": True, "single_one": 0, "single_five": 0}
    r = client.post("/api/games", json={"players": ["Ann", "Bob"], "rules": {"overrides": lone}})
    message = r.get_json()["message"]
    assert r.status_code == 400
    assert "singles_until_open=true needs single_one or single_five" in message


def test_a_stored_game_without_the_option_plays_without_it() -> None:
    assert Rules.from_stored({}).triple_addon == 0
    assert "triple_addon" not in Rules().cache_dict()
    assert Rules(triple_addon=100).cache_dict()["triple_addon"] == 100


def test_the_advice_lists_the_added_dice_and_says_it_is_not_exact(tmp_path: Path) -> None:
    rules = find_rules("standard", ADDON)
    advice = advise(rules, "6 6 2", turn_total=600, tripled=[6], cache_dir=str(tmp_path))
    assert advice.message.startswith("Not exact: the advisor cannot value triple_addon")
    assert advice.to_dict()["exact"] is False and advice.not_modelled == ["triple_addon"]
    assert {(str(o.keep), o.points) for o in advice.options} == {("6 6", 200), ("6", 100)}
    roll = next(o for o in advice.options if o.action == "roll" and o.dice_to_throw == 2)
    assert roll.next_farkle_probability == pytest.approx(9 / 36)  # 1s, 5s and 6s score
    farkle = advise(rules, "6 2 3", turn_total=600, cache_dir=str(tmp_path))
    assert farkle.outcome == "farkle"
    with pytest.raises(StrategyError, match="only under triple_addon"):
        advise(find_rules("standard"), "6 2 3", tripled=[6], cache_dir=str(tmp_path))
    with pytest.raises(StrategyError, match="bad tripled face 7"):
        advise(rules, "6 2 3", tripled=[7], cache_dir=str(tmp_path))
    with pytest.raises(UnsupportedRulesError, match="triple_addon"):
        check_supported(rules)


def test_suggest_and_the_game_pass_the_turn_s_triples(
    app: Flask, client: FlaskClient, new_table: NewTable, tmp_path: Path
) -> None:
    app.config.update(CACHE_DIR=str(tmp_path), ADVICE_WAIT_S=30.0)
    r = client.get("/api/suggest?dice=6+6+2&set=triple_addon=100&turn_total=600&tripled=6")
    body = r.get_json()
    assert r.status_code == 200, body
    assert body["advice"]["tripled"] == [6] and body["advice"]["best"]["keep"] == [6, 6]
    bad = client.get("/api/suggest?dice=6+6+2&set=triple_addon=100&tripled=9")
    assert bad.status_code == 400 and "bad tripled" in bad.get_json()["message"]
    t = new_table(["Ann", "Bob"], **ADDON)
    _sixes(t)
    t.throw(6, 2, 3)
    advice = client.get(f"/api/games/{t.id}").get_json()["state"]["turn"]["advice"]
    assert advice is not None and advice["tripled"] == [6] and advice["exact"] is False
    assert advice["best"]["keep"] == [6]


def test_the_review_values_the_added_dice_and_says_it_is_not_exact(tmp_path: Path) -> None:
    create = parse_setup({"players": ["Ann", "Bob"], "rules": {"overrides": ADDON}})
    events = [
        create,
        {"type": "throw", "dice": [6, 6, 6, 2, 3, 4]},
        {"type": "keep", "dice": [6, 6, 6]},
        {"type": "throw", "dice": [6, 2, 3]},
        {"type": "keep", "dice": [6]},
        {"type": "bank"},
    ]
    rules = find_rules("standard", ADDON)
    review = review_events(events, policy_for(rules, tmp_path))
    assert review.message is not None and "cannot value triple_addon exactly" in review.message
    second = review.turns[0].throws[1]
    assert second.outcome == "keep"  # the lone 6 is a keep, not a farkle
    last = review.turns[0].decisions[-1]  # bank at 700 after the lone 6
    assert last.kind == "bank_or_throw" and last.turn_total == 700


def test_score_takes_the_turn_s_triples_from_the_api_and_the_cli(
    client: FlaskClient, capsys: pytest.CaptureFixture[str]
) -> None:
    r = client.get("/api/score?dice=6+2+3&set=triple_addon=100&tripled=6")
    body = r.get_json()
    assert r.status_code == 200 and body["max"] == {"keep": [6], "points": 100}
    plain = client.get("/api/score?dice=6+2+3&set=triple_addon=100").get_json()
    assert plain["farkle"] is True
    off = client.get("/api/score?dice=6+2+3&tripled=6")
    assert off.status_code == 400 and "only under triple_addon" in off.get_json()["message"]
    bad = client.get("/api/score?dice=6+2+3&set=triple_addon=100&tripled=7")
    assert bad.status_code == 400 and "bad tripled '7'" in bad.get_json()["message"]
    assert main(["score", "--set", "triple_addon=100", "--tripled", "6", "6", "6", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tripled"] == [6] and out["max"] == {"keep": [6, 6], "points": 200}
    assert main(["score", "--tripled", "6", "6", "2"]) == 2
    assert "only under triple_addon" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [("standard", {"triple_addon": 100}), ("minimal", {"triple_addon": 50, "single_five": 100})],
    ids=str,
)
def test_every_multiset_after_every_set_of_triples_scores_as_the_independent_scorer(
    preset: str, overrides: dict[str, int]
) -> None:
    """Written from the option's words, apart from the score tables: a die of a face kept as
    a triple earlier may be set aside on its own for ``triple_addon`` (a 1 or a 5 for the more
    of that and its single value); the rest of the keep splits as without the option."""
    rules = find_rules(preset, overrides)
    plain = oracle(rules)

    def best(dice: tuple[int, ...], tripled: tuple[int, ...]) -> int | None:
        found = None
        faces = [f for f in tripled if f in dice]
        for alone in product(*(range(dice.count(f) + 1) for f in faces)):
            rest = list(dice)
            added = 0
            for f, n in zip(faces, alone, strict=True):
                for _ in range(n):
                    rest.remove(f)
                single = rules.single_one if f == 1 else rules.single_five if f == 5 else 0
                added += n * max(rules.triple_addon, single)
            sub = plain(tuple(rest))
            if sub is not None and (found is None or added + sub > found):
                found = added + sub
        return found

    for r in (0, 1, 2, 6):  # none, each face, each pair of faces, all six
        for tripled in combinations(range(1, 7), r):
            table = table_for(rules, tripled)
            for dice in ALL_MULTISETS:
                assert table.points(Dice(dice).counts) == best(dice, tripled), (dice, tripled)


def test_before_the_board_under_singles_until_open_nothing_is_tripled(
    new_table: NewTable, no_advice: None
) -> None:
    t = new_table(["Ann", "Bob"], triple_addon=100, singles_until_open=True, opening_minimum=0)
    t.throw(6, 6, 6, 1, 2, 3)  # off the board only the 1 scores
    assert [k["keep"] for k in t.state["turn"]["keeps"]] == [[1]]
    t.keep(1)
    assert t.state["turn"]["tripled"] == []
    t.bank()
    t.farkle()  # Bob
    t.throw(6, 6, 6, 2, 3, 4)  # Ann is on the board: three 6s, then a 6 adds 100
    t.keep(6, 6, 6)
    t.throw(6, 2, 3)
    assert t.state["turn"]["keeps"][0]["points"] == 100
