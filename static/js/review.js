// The end-of-game review on the play and scoreboard pages: a card per player (accuracy, points
// lost to choices, luck, biggest mistake, a chart of the score against the expected score of
// optimal play) and the game's luckiest and unluckiest throw, from /api/games/<id>/review.
// Definitions: docs/review.md.

import { $, h, fill, fmt, pageData } from "./dom.js";
import { followGame } from "./api.js";
import { lineChart } from "./charts.js";

const { game_id: gameId } = pageData();
const onBoard = document.body.classList.contains("board");

const sheet = h("link", { rel: "stylesheet", href: "/static/css/review.css" });
document.head.append(sheet);

const box = h("section", { id: "review", class: "card review", "aria-labelledby": "review-h" });
box.hidden = true;
const anchor = onBoard ? $("#board-winner") : $("#winner");
if (anchor) anchor.after(box);

let shown = -1;

const signed = (n) => `${n > 0 ? "+" : ""}${fmt(Math.round(n))}`;

function throwLine(label, th) {
  if (!th) return null;
  return h("p", {}, h("strong", {}, `${label}: `),
    `${th.player}'s ${th.dice.join(" ")} in turn ${th.turn} (${signed(th.luck)} points against expectation)`);
}

function card(p) {
  const acc = p.accuracy === null ? "no decision judged"
    : `${p.accuracy.toFixed(1)}% over ${p.judged_decisions} decisions`;
  const chart = lineChart(`${p.name}: score and the expected score of optimal play`, [
    { label: "score", points: p.chart.map((c) => [c.turn, c.score]) },
    { label: "expected with optimal play", points: p.chart.map((c) => [c.turn, c.expected]), dashed: true },
  ], { xLabel: "turn" });
  const mistake = p.biggest_mistake;
  return h("article", { class: "review-card", "data-player": p.name },
    h("h3", {}, p.name),
    h("dl", {},
      h("dt", {}, "Decision accuracy"), h("dd", { class: "accuracy" }, acc),
      h("dt", {}, "Points lost to choices"), h("dd", { class: "lost" }, fmt(Math.round(p.points_lost))),
      h("dt", {}, "Luck (dice)"), h("dd", { class: "luck" }, signed(p.luck)),
      p.win_chance_lost === null ? null : [h("dt", {}, "Win chance lost"), h("dd", {}, `${(100 * p.win_chance_lost).toFixed(1)}%`)],
      p.quick_turns ? [h("dt", {}, "Quick-score turns"), h("dd", {}, `${p.quick_turns} (not judged)`)] : null),
    h("p", { class: "mistake" }, h("strong", {}, "Biggest mistake: "), mistake ? mistake.words : "none"),
    chart,
    h("p", { class: "review-note" }, h("span", { class: "legend s0" }, "— score"), " · ",
      h("span", { class: "legend s1" }, "- - expected score of optimal play")));
}

function render(data) {
  const cards = data.players.map(card);
  fill(box,
    h("h2", { id: "review-h" }, data.status === "final" ? "Game review" : "Review so far"),
    data.message ? h("p", { class: "review-note" }, data.message) : null,
    data.win_chance_message ? h("p", { class: "review-note" }, data.win_chance_message) : null,
    h("div", { class: "review-cards" }, cards),
    throwLine("Luckiest throw", data.luckiest_throw),
    throwLine("Unluckiest throw", data.unluckiest_throw),
    h("p", { class: "review-note" }, "Accuracy, luck and the grades are defined in docs/review.md."));
  box.hidden = false;
}

async function ask(version) {
  shown = version;
  try {
    const resp = await fetch(`/api/games/${encodeURIComponent(gameId)}/review`);
    if (!resp.ok || version !== shown) return;
    render(await resp.json());
  } catch {
    shown = -1; // try again with the next state
  }
}

if (gameId && anchor) {
  followGame(gameId, (game) => {
    if (!game.state.over) {
      box.hidden = true;
      shown = -1;
    } else if (game.version !== shown) {
      ask(game.version);
    }
  });
}
