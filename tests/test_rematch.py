"""Rematch: a new game with the same table, preset, target and every override."""

from __future__ import annotations

from flask.testing import FlaskClient
from helpers.table import NewTable, Table


def _rematch(
    client: FlaskClient, t: Table, body: object = None, token: str | None = None
) -> tuple[int, dict]:  # type: ignore[type-arg]
    headers = {"Authorization": f"Bearer {token or t.token}"}
    r = client.post(f"/api/games/{t.id}/rematch", json=body, headers=headers)
    return r.status_code, r.get_json()


def test_rematch_keeps_rules_target_and_overrides(client: FlaskClient, new_table: NewTable) -> None:
    t = new_table(
        ["Ann", "Bob", "Cy"],
        preset="zilch",
        opening_minimum=500,
        target=3000,
        triple_multiplier=200,
    )
    t.quick(500)
    t.act("end")
    old = client.get(f"/api/games/{t.id}").json
    status, new = _rematch(client, t, {"order": "keep"})
    assert status == 201 and new["rematch_of"] == t.id and new["id"] != t.id
    assert new["preset"] == "zilch" and new["rules"] == old["rules"]
    assert new["rules"]["target"] == 3000 and new["rules"]["opening_minimum"] == 500
    assert [p["name"] for p in new["state"]["players"]] == ["Ann", "Bob", "Cy"]
    assert all(p["score"] == 0 for p in new["state"]["players"])
    assert client.get(
        f"/api/games/{new['id']}", headers={"Authorization": f"Bearer {new['control_token']}"}
    ).json["control"]


def test_rematch_rotates_and_keeps_the_table_as_it_ended(
    client: FlaskClient, new_table: NewTable
) -> None:
    t = new_table(["Ann", "Bob", "Cy"], opening_minimum=0)
    t.quick(300)
    t.act("join", name="Di")
    t.act("leave", player="Bob")
    status, new = _rematch(client, t, {"order": "rotate"})
    assert status == 201
    names = [p["name"] for p in new["state"]["players"]]
    assert names[-1] == "Ann" and "Bob" not in names and "Di" in names
    assert _rematch(client, t)[0] == 201  # no body: the same order


def test_rematch_refusals_in_words(client: FlaskClient, new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    status, body = _rematch(client, t, {"order": "shuffle"})
    assert status == 400 and "'keep'" in body["message"] and "'rotate'" in body["message"]
    status, body = _rematch(client, t, {"order": "keep", "x": 1})
    assert status == 400
    assert _rematch(client, t, token="y" * 32)[0] == 403
    r = client.post("/api/games/nosuchgame/rematch", json={"order": "keep"})
    assert r.status_code == 404 and "nosuchgame" in r.get_json()["message"]
