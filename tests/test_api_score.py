from flask.testing import FlaskClient


def test_score_endpoint_lists_keeps(client: FlaskClient) -> None:
    r = client.get("/api/score?dice=1,1,1,5,2,3")
    assert r.status_code == 200
    assert r.json["max"] == {"keep": [1, 1, 1, 5], "points": 1050}


def test_score_endpoint_bad_die_is_json_400(client: FlaskClient) -> None:
    r = client.get("/api/score?dice=1,9")
    assert r.status_code == 400
    assert r.json["error"] == "bad_request"
    assert "1 to 6" in r.json["message"]
