"""Issue 30's table conveniences: the app's fair virtual dice (``roll``) and a score adjusted
by hand with a reason (``adjust``), through the API, the event log and the exports."""

from __future__ import annotations

import csv
import io
from collections import Counter

import pytest
from flask.testing import FlaskClient
from helpers.table import NewTable, start_game

from scorekeeper.errors import ActionError
from scorekeeper.game import replay, roll_dice, roller
from scorekeeper.game.actions import parse_action, parse_setup

pytestmark = pytest.mark.usefixtures("no_advice")

# chi-square with 5 degrees of freedom: P(X > 35.9) = 1e-6, so a fair roller fails this test
# about once in a million runs, while a die off by 1/60 on one face fails nearly always
CHI2_5DF_P1E6 = 35.89


def chi_square(counts: Counter[int], n: int) -> float:
    """Pearson's statistic of the faces 1-6 against a fair die."""
    expected = n / 6
    return sum((counts[f] - expected) ** 2 / expected for f in range(1, 7))


def test_the_roller_is_uniform_over_many_rolls() -> None:
    faces: Counter[int] = Counter()
    for _ in range(10_000):
        faces.update(roll_dice(6))
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    assert chi_square(faces, 60_000) < CHI2_5DF_P1E6
    # the test has power: a die that shows 6 for 1/60 of the 1s fails it
    biased = Counter(faces)
    biased[6] += 1000
    biased[1] -= 1000
    assert chi_square(biased, 60_000) > CHI2_5DF_P1E6


def test_the_roller_does_not_depend_on_a_seed() -> None:
    import random

    random.seed(1)
    first = [roll_dice(6) for _ in range(20)]
    random.seed(1)
    again = [roll_dice(6) for _ in range(20)]
    assert first != again  # 20 throws of six dice repeat with chance 6**-120
    with pytest.raises(ActionError, match="1 to 6 dice"):
        roll_dice(0)


def last_throw(client: FlaskClient, game_id: str) -> dict[str, object]:
    """The latest stored event, as the export gives it."""
    return dict(client.get(f"/api/games/{game_id}/export.json").get_json()["events"][-1])


@pytest.mark.parametrize(("keep", "left"), [((1,), 5), ((1, 5), 4), ((1, 1, 1), 3)])
def test_roll_throws_only_the_dice_not_set_aside(
    client: FlaskClient, new_table: NewTable, keep: tuple[int, ...], left: int
) -> None:
    t = new_table(["Ann", "Bob"])
    t.throw(1, 5, 1, 1, 2, 3)
    t.keep(*keep)
    assert t.state["turn"]["dice_left"] == left
    t.act("roll")
    stored = last_throw(client, t.id)
    assert stored["type"] == "throw" and stored["source"] == "app"
    assert isinstance(stored["dice"], list) and len(stored["dice"]) == left
    # the turn goes on from the rolled dice as from any throw (or ended in a farkle)
    rolled = sorted(stored["dice"])
    if t.state["phase"] == "keep":
        assert sorted(t.state["turn"]["throw"]) == rolled
    else:
        assert sorted(t.state["history"][-1]["throws"][-1]["dice"]) == rolled


def test_rolled_dice_play_as_any_throw_and_are_recorded(
    client: FlaskClient, new_table: NewTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(roller, "roll_dice", lambda n: (1, 5, 2, 3, 4, 6)[:n])
    t = new_table(["Ann", "Bob"], opening_minimum=0)
    t.act("roll")
    assert t.state["turn"]["source"] == "app"
    assert t.state["last_event"]["message"] == "Ann threw 1 2 3 4 5 6 with the virtual dice."
    assert t.state["undoable"]["text"] == "Ann threw 1 2 3 4 5 6 (virtual dice)"
    t.keep(1, 5)
    t.act("roll")
    assert t.state["turn"]["throw"] == [1, 2, 3, 5]
    t.keep(1, 5)
    t.bank()
    events = client.get(f"/api/games/{t.id}/export.json").get_json()["events"]
    assert [e["source"] for e in events if e["type"] == "throw"] == ["app", "app"]
    # the log replays to the same game: the dice are in it, not rolled again
    assert replay(events).to_json()["players"] == t.state["players"]
    text = client.get(f"/api/games/{t.id}/export.csv").get_data(as_text=True)
    row = next(csv.DictReader(io.StringIO(text)))
    assert row["throws"] == (
        "1 2 3 4 5 6 (virtual dice) kept 1 5 (150); 1 2 3 5 (virtual dice) kept 1 5 (150)"
    )


def test_a_client_cannot_choose_the_app_dice(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    body = t.act("throw", 400, dice=[1, 1, 1, 1, 1, 1], source="app")
    assert "roll" in body["message"]
    body = t.act("roll", 400, dice=[1, 1, 1, 1, 1, 1])
    assert "unknown field" in body["message"]
    fix = [{"type": "throw", "dice": [1, 1, 1, 1, 1, 1], "source": "app"}]
    with pytest.raises(ActionError, match="entered by hand"):
        parse_action({"type": "correct", "turn": 1, "actions": fix})


def test_roll_is_refused_where_a_throw_is(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    t.throw(1, 5, 2, 3, 4, 6)
    body = t.act("roll", 422)
    assert "must set aside a keep" in body["message"]
    t.act("end")
    assert "game is over" in t.act("roll", 422)["message"]


def test_roll_is_refused_to_a_watcher(client: FlaskClient) -> None:
    t = start_game(client, ["Ann", "Bob"])
    r = client.post(f"/api/games/{t.id}/actions", json={"version": 0, "type": "roll"})
    assert r.status_code == 401
    assert "read-only" in r.get_json()["message"]


# ----- adjustments -------------------------------------------------------------------------


def test_adjust_changes_the_score_with_its_reason(client: FlaskClient, new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    t.quick(500)
    t.act("adjust", player="Ann", points=-1, reason="sang the farkle song")
    assert t.score("Ann") == 499
    assert t.event == "adjust"
    assert "-1 (sang the farkle song)" in t.state["last_event"]["message"]
    assert t.state["undoable"]["text"] == "Ann -1 (sang the farkle song)"
    adj = t.state["adjustments"]
    assert adj == [
        {
            "turn": 2,
            "after_turns": 1,
            "seat": 0,
            "player": "Ann",
            "points": -1,
            "reason": "sang the farkle song",
            "score": 499,
            "scores": [499, 0],
        }
    ]
    assert t.current == "Bob"  # an adjustment is not a turn
    t.act("adjust", player=1, points=250, reason="house bonus")
    assert t.score("Bob") == 250
    text = client.get(f"/api/games/{t.id}/export.csv").get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["outcome"] for r in rows] == ["quick_score", "adjustment", "adjustment"]
    assert rows[1]["note"] == "sang the farkle song" and rows[1]["points"] == "-1"
    assert (rows[2]["Ann"], rows[2]["Bob"]) == ("499", "250")
    exported = client.get(f"/api/games/{t.id}/export.json").get_json()
    assert exported["state"]["adjustments"][1]["reason"] == "house bonus"
    assert exported["events"][-1] == {
        "type": "adjust",
        "player": 1,
        "points": 250,
        "reason": "house bonus",
        **{
            k: v
            for k, v in exported["events"][-1].items()
            if k not in ("type", "player", "points", "reason")
        },
    }


def test_adjust_is_undoable_and_redoable(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    t.act("adjust", player="Bob", points=-1000, reason="three farkles, table rule")
    assert t.score("Bob") == -1000
    t.act("undo", undoes=t.version)
    assert t.score("Bob") == 0 and t.state["adjustments"] == []
    assert t.state["last_event"]["message"] == "Undid: Bob -1,000 (three farkles, table rule)."
    t.act("redo", redoes=t.state["redoable"]["version"])
    assert t.score("Bob") == -1000


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"player": "Ann", "points": 100}, "needs a reason"),
        ({"player": "Ann", "points": 100, "reason": "   "}, "needs a reason"),
        ({"player": "Ann", "points": 100, "reason": 5}, "must be text"),
        ({"player": "Ann", "points": 100, "reason": "x" * 81}, "at most 80"),
        ({"player": "Ann", "points": 1.5, "reason": "song"}, "whole number"),
        ({"player": "Ann", "points": "100", "reason": "song"}, "whole number"),
        ({"player": "Ann", "points": True, "reason": "song"}, "whole number"),
        ({"player": "Ann", "points": 0, "reason": "song"}, "not 0"),
        ({"player": "Ann", "points": 10**7, "reason": "song"}, "1,000,000"),
        ({"points": 100, "reason": "song"}, "needs player"),
    ],
)
def test_bad_adjustments_are_refused_with_what_is_accepted(
    new_table: NewTable, fields: dict[str, object], words: str
) -> None:
    t = new_table(["Ann", "Bob"])
    body = t.act("adjust", 400, **fields)
    assert words in body["message"]
    assert t.state["players"][0]["score"] == 0


def test_adjust_is_refused_on_a_finished_game_and_for_unknown_players(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob", "Cy"])
    assert (
        "no player is called Dan"
        in t.act("adjust", 422, player="Dan", points=5, reason="x")["message"]
    )
    t.act("leave", player="Cy")
    assert "has left the game" in t.act("adjust", 422, player="Cy", points=5, reason="x")["message"]
    t.act("end")
    body = t.act("adjust", 422, player="Ann", points=5, reason="late bonus")
    assert "game is over" in body["message"] and "undo" in body["message"]


def test_adjust_is_refused_to_a_read_only_client(client: FlaskClient) -> None:
    t = start_game(client, ["Ann", "Bob"])
    body = {"version": 0, "type": "adjust", "player": "Ann", "points": -1, "reason": "song"}
    r = client.post(f"/api/games/{t.id}/actions", json=body)
    assert r.status_code == 401 and "read-only" in r.get_json()["message"]
    r = client.post(
        f"/api/games/{t.id}/actions", json=body, headers={"Authorization": "Bearer wrong"}
    )
    assert r.status_code == 403


def test_adjust_survives_a_correction_of_an_earlier_turn(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    t.quick(500)
    t.act("adjust", player="Ann", points=-1, reason="song")
    t.quick(550)
    t.act("correct", turn=1, actions=[{"type": "quick_score", "points": 600}])
    assert t.score("Ann") == 599
    assert t.state["adjustments"][0]["score"] == 599


def test_the_final_round_score_to_beat_follows_an_adjusted_leader() -> None:
    setup = parse_setup({"players": ["Ann", "Bob"], "rules": {"preset": "standard"}})
    game = replay(
        [
            setup,
            {"type": "quick_score", "points": 10_000},
            {"type": "adjust", "player": "Ann", "points": -1, "reason": "song"},
        ]
    )
    assert game.final_round and game.to_beat == 9_999


def test_the_advisor_counts_an_adjusted_score_in_whole_50s() -> None:
    from scorekeeper.rules import Rules
    from scorekeeper.web.api_advice import advisor_score

    plain, penalty = Rules(), Rules(farkle_streak_penalty=1000)
    assert advisor_score(9_949, plain) == 9_900  # still needs 100 to reach 10,000, exactly
    assert advisor_score(500, plain) == 500
    assert advisor_score(-1, plain) == 0
    assert advisor_score(-1, penalty) == -50


def test_advice_goes_on_after_a_score_adjusted_off_the_50s(
    client: FlaskClient, new_table: NewTable, app: object
) -> None:
    from flask import Flask

    assert isinstance(app, Flask)
    app.config["ADVICE"] = True
    app.config["ADVICE_WAIT_S"] = 30.0
    t = new_table(["Ann", "Bob"])
    t.act("adjust", player="Ann", points=-1, reason="song")
    t.throw(1, 5, 2, 3, 4, 6)
    advice = t.state["turn"]["advice"]
    assert advice is not None and advice["best"]


def test_win_chances_say_why_they_skip_a_score_adjusted_off_the_50s() -> None:
    from typing import Any, cast

    from scorekeeper.errors import PositionError
    from scorekeeper.winprob.position import position_chances

    setup = parse_setup({"players": ["Ann", "Bob"], "rules": {"preset": "standard"}})
    game = replay([setup, {"type": "adjust", "player": "Bob", "points": -1, "reason": "song"}])
    with pytest.raises(PositionError, match="Bob has -1 \\(a score adjusted by hand\\)"):
        position_chances(game.to_json(), cast(Any, None))
