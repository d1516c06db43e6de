// "Play again": a rematch of a finished game with the same players, rules and target (the
// host chooses whether the same player starts or the next one does).
import { h, announce } from "./dom.js";
import { call, saveToken } from "./api.js";

/** The "Play again" controls for game `gameId` when this device controls it (`control`; its
 * `token`, or null when the cookie carries it); `page` ("play" or "board") is where the new
 * game opens. Null on a watching device. */
export function rematchControls(gameId, control, token, page = "play") {
  if (!control) return null;
  const msg = h("p", { class: "rematch-msg", role: "status" });
  const start = async (order, button) => {
    button.disabled = true;
    msg.textContent = "Starting the rematch…";
    try {
      const game = await call("POST", `/api/games/${encodeURIComponent(gameId)}/rematch`, { order }, token || null);
      saveToken(game.id, game.control_token);
      rememberSetup(game);
      announce("Rematch started.");
      const hash = page === "board" ? `#t=${encodeURIComponent(game.control_token)}` : "";
      location.assign(`/${page}/${encodeURIComponent(game.id)}${hash}`);
    } catch (err) {
      msg.textContent = err.message;
      button.disabled = false;
    }
  };
  const keep = h("button", { type: "button", class: "btn primary rematch", "data-order": "keep",
    onclick: (e) => start("keep", e.currentTarget) }, "Play again");
  const rotate = h("button", { type: "button", class: "btn rematch", "data-order": "rotate",
    onclick: (e) => start("rotate", e.currentTarget) }, "Play again, next player starts");
  return h("div", { class: "rematch-box" },
    h("div", { class: "row" }, keep, rotate),
    h("p", { class: "muted" }, "Same players, target and house rules; scores back to the start."),
    msg);
}

/** The next game set up on this device starts from the rematch's table and rules (the setup
 * page reads this, keeping only options it knows with the right types). */
function rememberSetup(game) {
  const players = (game.state && game.state.players) || [];
  const last = {
    players: players.map((p) => ({ name: p.name, team: p.team || "" })),
    teams: players.some((p) => p.team),
    preset: game.preset,
    overrides: game.rules || {},
  };
  try { localStorage.setItem("scorekeeper.lastSetup", JSON.stringify(last)); } catch { /* private mode */ }
}
