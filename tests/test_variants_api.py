"""Issue 30's variants played through the API: the seed-faithful zilch preset, team winners,
teams drawn by dice, the "defend your win" final round."""

from __future__ import annotations

from helpers.table import NewTable


def test_zilch_as_seed_000_plays_it(new_table: NewTable, no_advice: None) -> None:
    # seed 000, Paul Bevan: "every turn ... a minimum of 350 before you can take a score",
    # "if you get 3 zilches in a row you lose 1000 points"
    t = new_table(["Ann", "Bob"], "zilch")
    t.throw(1, 1, 5, 2, 3, 4)
    t.keep(1, 1, 5)
    refused = t.bank(status=422)
    assert "at least 350 to bank" in refused["message"] and "250" in refused["message"]
    t.throw(5, 2, 3)
    t.keep(5)
    t.throw(1, 2)
    t.keep(1)
    t.bank()  # 400: no opening minimum but the 350, on the first turn too
    assert t.score("Ann") == 400
    t.quick(350)
    for n in range(3):
        t.farkle()  # Ann
        if n < 2:
            t.quick(350)  # Bob
    assert t.score("Ann") == 400 - 1000 and t.event == "farkle_penalty"
    assert "Third farkle in a row: Ann loses 1,000" in t.state["last_event"]["message"]
    t.quick(350)
    # the original scoring: no pairs, six 6s are two triples
    t.throw(6, 6, 6, 6, 6, 6)
    assert t.state["turn"]["keeps"][0]["points"] == 1200
