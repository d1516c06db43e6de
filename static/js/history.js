// The history page: a turn-by-turn log, a score sheet (printable), statistics and downloads.
import { $, h, fill, fmt, pageData } from "./dom.js";
import { call } from "./api.js";
import { diceRow } from "./dice.js";
import { teamStanding, teamsText, turnLine } from "./game-view.js";

const { game_id: gameId } = pageData();
const url = `/api/games/${encodeURIComponent(gameId)}`;

function renderSheet(st) {
  const rows = [];
  let row = null;
  for (const t of st.history || []) {
    if (!row || t.seat in row) { row = {}; rows.push(row); }
    row[t.seat] = t;
  }
  const table = h("table", { class: "sheet-table" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Round"), st.players.map((p) => h("th", { scope: "col" }, p.name)))),
    h("tbody", {}, st.players.some((p) => p.start_score)
      ? h("tr", {}, h("th", { scope: "row" }, "Start"), st.players.map((p) => h("td", {}, fmt(p.start_score || 0))))
      : null,
    rows.map((r, k) => h("tr", {}, h("th", { scope: "row" }, String(k + 1)),
      st.players.map((_, i) => {
        const t = r[i];
        if (!t) return h("td", {}, "");
        const signed = t.banked >= 0 ? `+${fmt(t.banked)}` : fmt(t.banked);
        const pts = t.outcome === "farkle" ? (t.banked < 0 ? `F ${fmt(t.banked)}` : "F") : signed;
        return h("td", {}, `${pts} / ${fmt(t.scores ? t.scores[i] : t.score)}`);
      })))),
    h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, "Total"), st.players.map((p) => h("th", {}, fmt(p.score)))),
      teamRow(st)));
  fill($("#sheet"), table, h("p", { class: "muted" }, "Each cell: the turn's points / the running score; F = a farkle."));
}

/** In a team game, a last row giving each player's team and that team's total, or null. */
function teamRow(st) {
  if (!st.teams || !st.teams.length) return null;
  const total = new Map(st.teams.map((t) => [t.name, t.score]));
  return h("tr", { class: "team-row" }, h("th", { scope: "row" }, "Team"),
    st.players.map((p) => h("td", {}, p.team ? `${p.team} ${fmt(total.get(p.team) ?? 0)}` : "–")));
}

function renderLog(st) {
  const turns = st.history || [];
  if (!turns.length) { fill($("#log"), h("p", { class: "muted" }, "No turns played yet.")); return; }
  fill($("#log"), h("table", { class: "log" },
    h("thead", {}, h("tr", {}, ["#", "Player", "Throws", "Result", "Points", "Score"].map((c, i) =>
      h("th", { scope: "col", class: i >= 4 ? "num" : "" }, c)))),
    h("tbody", {}, turns.map((t) => h("tr", { class: t.outcome === "farkle" ? "farkle" : "" },
      h("td", {}, String(t.turn)), h("td", {}, t.player),
      h("td", {}, (t.throws || []).map((th) => {
        if ("quick" in th) return h("div", {}, `quick score ${fmt(th.quick)}`);
        if (th.left) return h("div", {}, "left the game");
        return h("div", {}, diceRow(th.dice || [], 22), th.keep ? ` keep ${th.keep.join(" ")} → ${fmt(th.points)}` : "",
          th.result ? ` (${th.result.replace(/_/g, " ")})` : "");
      })),
      h("td", {}, turnLine(t)), h("td", { class: "num" }, fmt(t.banked)), h("td", { class: "num" }, fmt(t.score)))))));
}

function renderStats(st) {
  if (!st.stats || !st.stats.length) return;
  const cols = [["turns", "Turns"], ["farkles", "Farkles"], ["hot_dice", "Hot dice"], ["best_turn", "Best turn"], ["average_banked_turn", "Average bank"]];
  fill($("#stats"), h("table", { class: "log" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), cols.map(([, label]) => h("th", { scope: "col", class: "num" }, label)))),
    h("tbody", {}, st.stats.map((p) => h("tr", {}, h("td", {}, p.name), cols.map(([k]) => h("td", { class: "num" }, p[k] === null ? "–" : fmt(p[k]))))))));
  $("#stats-box").hidden = false;
}

async function main() {
  let game;
  try {
    game = await call("GET", url);
  } catch (err) {
    fill($("#log"), h("p", { class: "message error" }, err.status === 404 ? `There is no game ${gameId} on this server.` : err.message));
    return;
  }
  const st = game.state;
  const status = st.over ? `won by ${st.winner}` : `in progress, ${st.players[st.current].name} to play`;
  $("#summary").textContent = `${st.players.map((p) => `${p.name} ${fmt(p.score)}`).join(" · ")} — ${status}. Target ${fmt(st.target)}.`;
  const standing = teamStanding(st);
  $("#teams-summary").hidden = !standing;
  if (standing) $("#teams-summary").textContent = `${teamsText(st)}. ${standing.line}`;
  renderSheet(st);
  renderLog(st);
  renderStats(st);
  $("#csv").href = `${url}/export.csv`;
  $("#json").href = `${url}/export.json`;
}

$("#print").addEventListener("click", () => window.print());
main();
