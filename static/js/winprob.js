// Win chances on the play and scoreboard pages (added by scorekeeper/web/api_winprob.py).
// Follows the game, asks /api/games/<id>/winprob after every change, and shows each player's
// chance to win and, on the play page, every option of the throw with its chance
// ("Keep 1 5. Bank 450: you win 61%. Throw 4 dice: 58%."). Until the rules are solved (a
// background solve, cached for the next game) it says so; the expected-points advice stays.

import { $, h, fill, pageData } from "./dom.js";
import { followGame } from "./api.js";

const { game_id: gameId } = pageData();
const onBoard = document.body.classList.contains("board");
const RETRY_MS = 3000;
const SHOWN_OPTIONS = 4;

const box = h("section", { id: "winprob", class: "winprob note", "aria-live": "polite" });
box.hidden = true;
const anchor = onBoard ? $("#board-scores") : $("#turn-odds");
if (anchor) anchor.after(box);

let asked = -1;
let timer = null;

const pct = (p) => ((p > 0 && p < 0.01) || (p > 0.99 && p < 1)
  ? `${(100 * p).toFixed(2)}%` : `${Math.round(100 * p)}%`);

/** Why no chances are shown, in a player's words (the API's reason also tells a CLI user
 * which setting to change). */
function reasonText(data) {
  if (data.status === "solving") return "Chances to win: working them out for these rules…";
  if (data.status !== "unsupported") return data.reason;
  const rules = data.reason.replace(/^the win-probability solver does not support /, "")
    .replace(/; set it to [^)]*\)/g, ")").replace(/ \(set it to [^)]*\)/g, "");
  return `Chances to win are not worked out under these house rules: ${rules}.`;
}

function render(data) {
  if (data.over) { // the page shows the winner; 100% and 0% would say it again
    box.hidden = true;
    return;
  }
  if (!data.available) {
    box.hidden = data.status === "not_applicable" && onBoard;
    fill(box, h("span", { class: "muted" }, reasonText(data)));
    return;
  }
  const chances = Object.entries(data.chances).map(([name, p]) => `${name} ${pct(p)}`).join(" · ");
  const lines = (data.options || []).slice(0, SHOWN_OPTIONS).map((o) => h("li", {}, o.words));
  box.hidden = false;
  fill(box,
    h("strong", {}, "Chance to win: "), chances,
    data.approximate ? h("span", { class: "muted" }, " (approximate: a player with starting points is not on the board yet)") : null,
    !onBoard && lines.length ? h("ol", { class: "winprob-options" }, lines) : null);
}

async function ask(version) {
  clearTimeout(timer);
  asked = version;
  try {
    const resp = await fetch(`/api/games/${encodeURIComponent(gameId)}/winprob`);
    if (resp.status === 503 || resp.status === 429) { // busy: say so and ask again when told
      const wait = Math.min(30, Math.max(1, Number(resp.headers.get("Retry-After")) || RETRY_MS / 1000));
      if (version !== asked) return;
      box.hidden = false;
      fill(box, h("span", { class: "muted" }, `Chances to win: the server is busy working out others; asking again in ${wait} s…`));
      timer = setTimeout(() => ask(version), wait * 1000);
      return;
    }
    if (!resp.ok) return;
    const data = await resp.json();
    if (version !== asked) return;
    render(data);
    if (data.status === "solving") timer = setTimeout(() => ask(version), RETRY_MS);
  } catch {
    timer = setTimeout(() => ask(version), RETRY_MS);
  }
}

if (gameId && anchor) {
  followGame(gameId, (game) => { if (game.version !== asked) ask(game.version); });
}
