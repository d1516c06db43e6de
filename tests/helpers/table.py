"""Games played through the JSON API with the Flask test client (the ``new_table`` fixture)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask.testing import FlaskClient


class Table:
    """A game played through the API; ``act`` asserts the status and tracks the version."""

    def __init__(self, client: FlaskClient, created: dict[str, Any]) -> None:
        """Play the game of ``created``: the API's answer to ``POST /api/games``."""
        self.client = client
        self.id: str = created["id"]
        self.token: str = created["control_token"]
        self.version: int = created["version"]
        self.state: dict[str, Any] = created["state"]

    def act(self, kind: str, status: int = 200, **fields: Any) -> dict[str, Any]:
        """Post one action at the current version; returns the JSON answer."""
        r = self.client.post(
            f"/api/games/{self.id}/actions",
            json={"version": self.version, "type": kind, **fields},
            headers={"Authorization": f"Bearer {self.token}"},
        )
        body = r.get_json()
        assert r.status_code == status, body
        if status == 200:
            self.version = body["version"]
            self.state = body["state"]
        return dict(body)

    def throw(self, *dice: int, status: int = 200) -> dict[str, Any]:
        """Enter a throw."""
        return self.act("throw", status, dice=list(dice))

    def keep(self, *dice: int, status: int = 200) -> dict[str, Any]:
        """Set aside a keep."""
        return self.act("keep", status, dice=list(dice))

    def bank(self, status: int = 200) -> dict[str, Any]:
        """Bank the turn."""
        return self.act("bank", status)

    def quick(self, points: int, status: int = 200) -> dict[str, Any]:
        """Enter a whole turn's points."""
        return self.act("quick_score", status, points=points)

    def undo(self, status: int = 200) -> dict[str, Any]:
        """Undo the latest action."""
        return self.act("undo", status)

    def farkle(self) -> None:
        """The current player farkles on a fresh turn."""
        n = self.state["turn"]["dice_left"]
        self.throw(*[2, 3, 4, 6, 2, 3][:n])
        assert self.state["history"][-1]["outcome"] == "farkle"

    def score(self, name: str) -> int:
        """A player's banked score."""
        return int(next(p["score"] for p in self.state["players"] if p["name"] == name))

    @property
    def current(self) -> str:
        """Whose turn it is."""
        return str(self.state["players"][self.state["current"]]["name"])

    @property
    def event(self) -> str:
        """The type of what just happened."""
        return str(self.state["last_event"]["type"])


def core(state: dict[str, Any]) -> dict[str, Any]:
    """The state less what is not game state: the last event, what a redo would apply again,
    and the advisor's advice."""
    out = {k: v for k, v in state.items() if k not in ("last_event", "redoable")}
    out["turn"] = {k: v for k, v in state["turn"].items() if not k.startswith("advice")}
    return out


def start_game(
    client: FlaskClient,
    players: list[str],
    preset: str = "standard",
    teams: Any = None,
    **overrides: Any,
) -> Table:
    """Create a game through the API and return its table; it acts with the Bearer header only."""
    r = client.post(
        "/api/games",
        json={
            "players": players,
            "teams": teams,
            "rules": {"preset": preset, "overrides": overrides},
        },
    )
    assert r.status_code == 201, r.json
    table = Table(client, r.get_json())
    client.delete_cookie("sk_token_" + table.id)
    return table


NewTable = Callable[..., Table]
"""The ``new_table`` fixture: ``new_table(players, preset="standard", teams=None, **overrides)``."""
