"""Saved house rules: save, list, export, import, delete; validated like any rules."""

from __future__ import annotations

from flask.testing import FlaskClient


def _save(client: FlaskClient, body: object) -> tuple[int, dict]:  # type: ignore[type-arg]
    r = client.post("/api/rulesets", json=body)
    return r.status_code, r.get_json()


def test_save_list_export_import_and_delete(client: FlaskClient) -> None:
    body = {"name": "Friday night", "preset": "standard", "overrides": {"opening_minimum": 350}}
    status, saved = _save(client, body)
    assert status == 201 and saved["replaced"] is False
    assert saved["ruleset"] == {
        "format": "scorekeeper-rules",
        "version": 1,
        "name": "Friday night",
        "preset": "standard",
        "overrides": {"opening_minimum": 350},
    }
    # an override equal to the preset's value is not kept
    status, again = _save(client, {**body, "overrides": {"opening_minimum": 350, "target": 10000}})
    assert status == 201 and again["replaced"] is True
    assert again["ruleset"]["overrides"] == {"opening_minimum": 350}
    listed = client.get("/api/rulesets").json["rulesets"]
    assert [(r["name"], r["overrides"]) for r in listed] == [
        ("Friday night", {"opening_minimum": 350})
    ]
    r = client.get("/api/rulesets/export?name=Friday night")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    exported = r.get_json()
    assert client.delete("/api/rulesets", json={"name": "Friday night"}).json == {
        "deleted": "Friday night"
    }
    assert client.get("/api/rulesets").json["rulesets"] == []
    assert _save(client, exported)[0] == 201  # the export imports as it is
    assert client.get("/api/rulesets").json["rulesets"][0]["overrides"] == {"opening_minimum": 350}
    # a game started with the saved rules plays by them
    game = client.post(
        "/api/games",
        json={
            "players": ["Ann"],
            "rules": {"preset": "standard", "overrides": exported["overrides"]},
        },
    ).json
    assert game["rules"]["opening_minimum"] == 350


def test_bad_rule_sets_are_refused_naming_what_is_wrong(client: FlaskClient) -> None:
    cases = [
        ({"name": "X", "overrides": {"bogus": 1}}, "unknown rules option 'bogus'"),
        ({"name": "X", "overrides": {"opening_minimum": "lots"}}, "opening_minimum"),
        ({"name": "X", "overrides": {"hot_dice": 5}}, "hot_dice"),
        ({"name": "X", "preset": "nosuch"}, "nosuch"),
        ({"name": "", "preset": "standard"}, "name"),
        ({"name": "X", "colour": "red"}, "colour"),
        ({"name": "X", "format": "something-else"}, "format"),
        ({"name": "X", "version": 9}, "version"),
        (["not", "an", "object"], "JSON object"),
    ]
    for body, words in cases:
        status, answer = _save(client, body)
        assert status == 400, (body, answer)
        assert words in answer["message"], (body, answer)
    assert client.get("/api/rulesets").json["rulesets"] == []
    r = client.get("/api/rulesets/export?name=nope")
    assert r.status_code == 404 and "nope" in r.get_json()["message"]
    assert client.delete("/api/rulesets", json={"name": "nope"}).status_code == 404
