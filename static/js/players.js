// The players page: records across the finished games, accuracy and luck over time (SVG),
// and merging two names into one player (POST /api/players/merge).

import { $, h, fill, fmt } from "./dom.js";
import { call } from "./api.js";
import { lineChart } from "./charts.js";

const SHOWN = 6;

const pct = (x) => (x === null ? "–" : `${(100 * x).toFixed(1)}%`);

function table(players) {
  if (!players.length) return h("p", { class: "muted" }, "No finished games yet.");
  const head = ["Player", "Games", "Wins", "Avg turn", "Farkle rate", "Accuracy", "Luck"];
  return h("table", { class: "players-table" },
    h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, players.map((p) => h("tr", { "data-player": p.name },
      h("th", { scope: "row", title: p.names.join(", ") }, p.name),
      h("td", {}, p.games), h("td", {}, p.wins),
      h("td", {}, p.average_turn_score === null ? "–" : fmt(Math.round(p.average_turn_score))),
      h("td", {}, pct(p.farkle_rate)),
      h("td", {}, p.accuracy === null ? "–" : `${p.accuracy.toFixed(1)}%`),
      h("td", {}, fmt(Math.round(p.luck)))))));
}

function charts(players) {
  const top = players.slice(0, SHOWN);
  const series = (key) => top.map((p) => ({
    label: p.name,
    points: p.series.map((g, i) => [i + 1, g[key]]).filter(([, v]) => v !== null),
  }));
  const legend = h("p", { class: "review-note" }, top.map((p, i) => h("span", { class: `legend s${i}` }, `${i ? " · " : ""}${p.name}`)));
  return [
    h("figure", {}, lineChart("Decision accuracy per game (%)", series("accuracy"), { xLabel: "game" }),
      h("figcaption", {}, "Decision accuracy per game (%)")),
    h("figure", {}, lineChart("Luck per game (points)", series("luck"), { xLabel: "game", yZero: true }),
      h("figcaption", {}, "Luck per game (points against expectation)")),
    legend,
  ];
}

function render(data) {
  fill($("#players-table"), table(data.players));
  fill($("#players-charts"), data.players.length ? charts(data.players) : null);
  for (const sel of ["#merge-name", "#merge-into"]) {
    fill($(sel), data.players.map((p) => h("option", { value: p.name }, p.name)));
  }
  if (data.players.length > 1) $("#merge-into").value = data.players[1].name;
  $("#merge-form").hidden = data.players.length < 2;
}

async function load() {
  render(await call("GET", "/api/players"));
}

$("#merge-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const name = $("#merge-name").value;
  const into = $("#merge-into").value;
  try {
    const data = await call("POST", "/api/players/merge", { name, into });
    render(data);
    $("#merge-message").textContent = `${name} now counts as ${data.merged}.`;
  } catch (err) {
    $("#merge-message").textContent = err.message;
  }
});

load().catch((err) => { fill($("#players-table"), h("p", {}, err.message)); });
