"""The HTML pages and their assets, through the Flask test client (no browser)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers.table import NewTable

from scorekeeper.game.actions import MAX_PLAYERS
from scorekeeper.rules import PRESETS, Rules, describe_options
from scorekeeper.web import pages

STATIC = Path(pages.STATIC_DIR)
PAGE_BUDGET_BYTES = 300 * 1024


@pytest.mark.parametrize(
    ("url", "script"),
    [
        ("/", "js/setup.js"),
        ("/play/abc_DEF-1", "js/play.js"),
        ("/board/abc_DEF-1", "js/board.js"),
        ("/history/abc_DEF-1", "js/history.js"),
        ("/sheet", "js/sheet.js"),
    ],
)
def test_each_page_renders_with_its_module_and_security_headers(
    client: FlaskClient, url: str, script: str
) -> None:
    r = client.get(url)
    assert r.status_code == 200
    assert r.mimetype == "text/html"
    html = r.get_data(as_text=True)
    assert f'<script type="module" src="/static/{script}">' in html
    assert '<link rel="stylesheet" href="/static/css/app.css">' in html
    assert 'id="page-data"' in html and 'aria-live="polite"' in html
    csp = r.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "object-src 'none'" in csp
    assert r.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("bad", ["a%20b", "x" * 65, "%3Cscript%3E", "a.b"])
def test_a_malformed_game_id_is_404(client: FlaskClient, bad: str) -> None:
    for page in ("play", "board", "history"):
        assert client.get(f"/{page}/{bad}").status_code == 404


def test_static_assets_are_served_with_the_right_types(client: FlaskClient) -> None:
    css = client.get("/static/css/app.css")
    assert css.status_code == 200 and css.mimetype == "text/css"
    for js in sorted((STATIC / "js").glob("*.js")):
        r = client.get(f"/static/js/{js.name}")
        assert r.status_code == 200, js.name
        assert r.mimetype in ("text/javascript", "application/javascript"), js.name
    assert client.get("/static/favicon.svg").mimetype == "image/svg+xml"
    assert client.get("/static/nope.js").status_code == 404
    assert client.get("/static/../pyproject.toml").status_code == 404


def test_static_folder_is_the_repository_static_dir() -> None:
    """The editable install (``make run``) finds ``<repo>/static`` beside the package."""
    assert pages.find_static_dir() == Path(__file__).resolve().parents[1] / "static"
    assert (STATIC / "css" / "app.css").is_file()


def test_the_package_links_static_so_a_wheel_carries_it() -> None:
    """``scorekeeper/static`` links to ``<repo>/static``; package-data copies it into a wheel."""
    assert (pages.PACKAGE_DIR / "static").resolve() == STATIC.resolve()
    assert (pages.PACKAGE_DIR / "static" / "js" / "play.js").is_file()


def test_every_module_import_resolves_to_a_static_file() -> None:
    for js in (STATIC / "js").glob("*.js"):
        for target in re.findall(r'from\s+"(\./[^"]+)"', js.read_text()):
            assert (js.parent / target).resolve().is_file(), f"{js.name} imports {target}"


def test_no_script_writes_markup_from_strings() -> None:
    """User text reaches the page only through textContent / text nodes, never as HTML."""
    for js in (STATIC / "js").glob("*.js"):
        text = js.read_text()
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert sink not in text, f"{js.name} uses {sink}"


def test_rules_options_json_lists_every_option_and_preset(client: FlaskClient) -> None:
    r = client.get("/api/rules/options")
    assert r.status_code == 200
    names = [o["name"] for o in r.json["options"]]
    assert names == [o["name"] for o in describe_options()]
    assert all(o["help"].strip() for o in r.json["options"])
    presets = {p["name"]: p for p in r.json["presets"]}
    assert list(presets) == list(PRESETS)
    for name, rules in PRESETS.items():
        assert Rules.from_dict(presets[name]["rules"]) == rules
        assert presets[name]["help"]


def test_home_page_embeds_the_rules_options(client: FlaskClient) -> None:
    html = client.get("/").get_data(as_text=True)
    data = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', html, re.S)
    assert data is not None
    assert '"opening_minimum"' in data.group(1) and '"zilch"' in data.group(1)


def test_home_page_gives_the_setup_the_servers_player_limit(client: FlaskClient) -> None:
    html = client.get("/").get_data(as_text=True)
    data = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', html, re.S)
    assert data is not None
    assert json.loads(data.group(1))["max_players"] == MAX_PLAYERS == 86


def test_embedded_text_cannot_close_the_script_tag(client: FlaskClient) -> None:
    html = client.get("/sheet?players=</script><b>x,Bob").get_data(as_text=True)
    assert "</script><b>" not in html
    assert "&lt;/script&gt;&lt;b&gt;x" in html


def test_blank_sheet_has_named_columns(client: FlaskClient) -> None:
    html = client.get("/sheet?players=Ann,Bob").get_data(as_text=True)
    assert '<th scope="col">Ann</th><th scope="col">Bob</th>' in html
    assert html.count('<tr><th scope="row">') == 30


def test_qr_code_is_an_svg_of_the_play_address(app: Flask, client: FlaskClient) -> None:
    app.config["PUBLIC_URL"] = "http://192.0.2.7:8000"
    r = client.get("/board/g1/qr.svg")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    assert r.data.startswith(b"<svg") and b"<path" in r.data
    with_token = client.get("/board/g1/qr.svg?t=tok_en-1")
    assert with_token.status_code == 200 and with_token.data != r.data
    assert client.get("/board/g1/qr.svg?t=%3Cbad%3E").status_code == 400


def test_public_address_prefers_config_then_lan_address(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    with app.test_request_context("/board/x", base_url="http://127.0.0.1:8000"):
        monkeypatch.setattr(pages, "lan_address", lambda: "192.0.2.5")
        assert pages.public_base_url() == "http://192.0.2.5:8000/"
        monkeypatch.setattr(pages, "lan_address", lambda: None)
        assert pages.public_base_url() == "http://127.0.0.1:8000/"
        app.config["PUBLIC_URL"] = "http://table.local:9000"
        assert pages.public_base_url() == "http://table.local:9000/"
    app.config["PUBLIC_URL"] = None
    with app.test_request_context("/board/x", base_url="http://192.0.2.9:8000"):
        assert pages.public_base_url() == "http://192.0.2.9:8000/"


def test_board_page_shows_the_address_for_tablets(app: Flask, client: FlaskClient) -> None:
    app.config["PUBLIC_URL"] = "http://192.0.2.7:8000/"
    html = client.get("/board/g1").get_data(as_text=True)
    assert '"base_url": "http://192.0.2.7:8000/"' in html


def test_optional_modules_are_included_only_when_present(
    client: FlaskClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    html = client.get("/play/g1").get_data(as_text=True)
    assert '<section id="camera-panel"' in html
    assert ("/static/js/camera.js" in html) == (STATIC / "js" / "camera.js").is_file()
    monkeypatch.setattr(pages, "STATIC_DIR", tmp_path)
    html = client.get("/play/g1").get_data(as_text=True)
    assert "/static/js/camera.js" not in html
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "camera.js").write_text("export {};\n")
    (tmp_path / "js" / "winprob.js").write_text("export {};\n")
    html = client.get("/play/g1").get_data(as_text=True)
    assert '<script type="module" src="/static/js/camera.js">' in html
    assert html.count('<script type="module" src="/static/js/winprob.js">') == 1
    board = client.get("/board/g1").get_data(as_text=True)
    assert board.count('<script type="module" src="/static/js/winprob.js">') == 1
    assert "camera.js" not in board


def test_pages_work_with_a_real_game(client: FlaskClient, new_table: NewTable) -> None:
    game_id = new_table(["Ann", "<b>Bob</b>"]).id
    for page in ("play", "board", "history"):
        html = client.get(f"/{page}/{game_id}").get_data(as_text=True)
        assert f'"game_id": "{game_id}"' in html
        assert "<b>Bob</b>" not in html  # names come from the API, never into the template


def test_each_page_with_its_assets_fits_the_first_load_budget(client: FlaskClient) -> None:
    """Uncompressed bytes of each page plus every file it loads stay under 300 KB."""
    for url in ("/", "/play/g1", "/board/g1", "/history/g1", "/sheet"):
        html = client.get(url).get_data(as_text=True)
        seen: set[str] = set()
        queue = re.findall(r'(?:src|href)="(/static/[^"]+)"', html)
        total = len(html.encode())
        while queue:
            asset = queue.pop()
            if asset in seen:
                continue
            seen.add(asset)
            body = client.get(asset).data
            total += len(body)
            if asset.endswith(".js"):
                base = asset.rsplit("/", 1)[0]
                queue += [
                    f"{base}/{m[2:]}" for m in re.findall(r'from\s+"(\./[^"]+)"', body.decode())
                ]
        assert total < PAGE_BUDGET_BYTES, f"{url}: {total} bytes"


def test_blank_sheet_takes_every_player_twelve_to_a_page(client: FlaskClient) -> None:
    names = [f"P{i}" for i in range(1, 15)]
    html = client.get("/sheet?players=" + ",".join(names)).get_data(as_text=True)
    assert html.count('<table class="sheet-table">') == 2
    assert "14 players: columns for 12 on each page, 2 pages." in html
    assert '<th scope="col">P12</th></tr>' in html  # the first page ends with the 12th
    assert '<th scope="col">Turn</th><th scope="col">P13</th><th scope="col">P14</th>' in html


def test_blank_sheet_says_which_names_it_left_out(client: FlaskClient) -> None:
    names = [f"P{i}" for i in range(1, MAX_PLAYERS + 3)]
    html = client.get("/sheet?players=" + ",".join(names)).get_data(as_text=True)
    assert f'<th scope="col">P{MAX_PLAYERS}</th>' in html
    assert f'<th scope="col">P{MAX_PLAYERS + 1}</th>' not in html
    said = html.split('id="sheet-left-out"', 1)[1].split("</p>", 1)[0]
    assert f"{MAX_PLAYERS + 2} names were given" in said
    assert f"at most {MAX_PLAYERS} players" in said
    assert f"left out: P{MAX_PLAYERS + 1}, P{MAX_PLAYERS + 2}." in said
    assert 'id="sheet-left-out"' not in client.get("/sheet?players=Ann,Bob").get_data(as_text=True)
