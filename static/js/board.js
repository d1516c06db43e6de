// The projector board: big names and scores, the live turn, final round and winner, a score
// chart, the last turns, and a QR code for tablets. Live from the event stream.
import { $, h, s, fill, fmt, announce, banner, pageData } from "./dom.js";
import { GameClient, tokenFor } from "./api.js";
import { diceRow } from "./dice.js";
import { rematchControls } from "./rematch.js";
import { eventFlash, finalRoundText, handOf, handWord, standingsList, teamStanding, turnLine } from "./game-view.js";

const { game_id: gameId, base_url: baseUrl } = pageData();
const metrics = (window.scorekeeperMetrics = { updates: [] });
let shown = Infinity; // the version whose event was last flashed
const client = new GameClient(gameId, { onState: render, onConnection: connection });

// Line colours plus a dash pattern and marker each, so no line is told apart by colour alone.
const STYLES = [
  ["#ffd24a", "", "circle"], ["#7cc4ff", "10 6", "square"], ["#ff7a7a", "3 5", "triangle"],
  ["#5ad68a", "14 5 3 5", "diamond"], ["#d59bff", "", "square"], ["#ffa24a", "10 6", "circle"],
  ["#f3f4f6", "3 5", "diamond"], ["#4ad6d0", "14 5 3 5", "triangle"],
];

function connection(ok, text) {
  banner(ok ? null : text || "Connection lost. Retrying…");
}

function render(game, why) {
  const st = game.state;
  const fr = finalRoundText(st);
  $("#final-banner").hidden = !fr;
  $("#final-banner").textContent = fr || "";
  renderWinner(st);
  renderTurn(st);
  renderScores(st);
  renderChart(st);
  renderRecent(st);
  if ((why === "stream" || why === "action") && game.version > shown) {
    shown = game.version;
    const ev = st.last_event || {};
    const f = eventFlash(st);
    if (f) {
      const el = $("#flash");
      el.className = `flash ${f.kind}`;
      $("#flash-big").textContent = f.big;
      $("#flash-text").textContent = f.text;
      el.hidden = false;
      clearTimeout(render.timer);
      render.timer = setTimeout(() => { el.hidden = true; }, f.ms);
    }
    if (ev.message) announce(ev.message, Boolean(f));
  }
  fitBoard();
  metrics.updates.push({ version: game.version, wall: Date.now() });
}

/** A projector does not scroll: shrink the whole board (CSS zoom) until it fits the screen,
 * so many players, a long name or a 720p projector still show every score and the QR code. */
function fitBoard() {
  const root = document.documentElement;
  const body = document.body;
  body.style.zoom = "";
  let zoom = 1;
  for (let i = 0; i < 5 && root.scrollHeight > window.innerHeight + 1 && zoom > 0.4; i++) {
    zoom = Math.max(0.4, zoom * (window.innerHeight / root.scrollHeight) * 0.99);
    body.style.zoom = String(zoom);
  }
  // the full-screen flash keeps its own size: it covers the board, so it needs no room
  $("#flash").style.zoom = zoom < 1 ? String(1 / zoom) : "";
  metrics.zoom = zoom;
}
let fitQueued = false;
function queueFit() {
  if (fitQueued) return;
  fitQueued = true;
  requestAnimationFrame(() => { fitQueued = false; fitBoard(); });
}
window.addEventListener("resize", queueFit);
// Modules that add to the board after a render (the end-of-game review) change its height:
// fit it again then (fitBoard itself only touches <body>'s style, outside what is watched).
new MutationObserver(queueFit).observe($("#main"), { childList: true, subtree: true });

function renderWinner(st) {
  const box = $("#board-winner");
  box.hidden = !st.over;
  $("#board-turn").hidden = st.over;
  if (!st.over) return;
  const top = Math.max(...st.players.map((p) => p.score));
  const shared = st.winners && st.winners.length > 1;
  const standing = teamStanding(st);
  fill(box,
    h("div", { class: "big" }, `★ ${st.winner || "Nobody"} ${shared ? "share the win" : "wins"}!`),
    h("div", { class: "sub" }, `${fmt(top)} points`),
    standing && standing.teams.length > 1 ? h("div", { class: "sub team-result" }, standing.line) : null,
    standingsList(st),
    rematchControls(gameId, Boolean(tokenFor(gameId)), tokenFor(gameId), "board"));
}

function renderTurn(st) {
  if (st.over) return;
  const t = st.turn;
  const p = st.players[st.current];
  $("#bt-who").textContent = `▶ ${p.name}'s turn`;
  $("#bt-total").textContent = fmt(t.total);
  const dice = (n) => `${n} ${n === 1 ? "die" : "dice"}`;
  const sub = [`turn total · ${dice(t.dice_left)} to throw`];
  if (t.passed) sub[0] = `${t.passed.from} passes ${fmt(t.passed.total)} and ${dice(t.passed.dice)}: take over or throw fresh?`;
  if (t.opening_needed && !t.passed) sub.push(`${fmt(t.opening_needed)} more to get on the board`);
  if (t.took_over) sub.push(`took over ${t.took_over.from}'s ${fmt(t.took_over.total)}`);
  if (t.must_roll && !t.took_over) sub.push(`hot dice: must throw all ${handWord(handOf(client.game))}`);
  if (t.reroll) sub.push("a pair that scores nothing: throwing the two again");
  if (t.tripled && t.tripled.length) sub.push(`kept as three of a kind: ${t.tripled.map((f) => `${f}s`).join(", ")} (each further one scores)`);
  fill($("#bt-sub"), h("div", {}, sub.join(" · ")), t.throw ? h("div", {}, diceRow(t.throw, 56)) : null);
}

function renderScores(st) {
  // Many players: two columns, so a 720p projector still shows everyone at 48 px and up.
  $("#board-scores").classList.toggle("many", st.players.length > 5);
  fill($("#board-scores"), st.players.map((p, i) => {
    const current = i === st.current && !st.over;
    const flags = [];
    if (!p.active) flags.push("left");
    else if (p.out) flags.push("out of the final round");
    else if (!p.on_board) flags.push("not on the board yet");
    if (p.farkle_streak) flags.push(`${"✗".repeat(p.farkle_streak)} farkle streak`);
    if (p.team) flags.push(`team ${p.team}`);
    if (st.winners && st.winners.includes(p.name)) flags.unshift("★ winner");
    return h("li", { class: current ? "current" : "", "aria-current": current ? "true" : null },
      h("span", { class: "marker", "aria-hidden": "true" }, current ? "▶" : ""),
      h("span", { class: "bname" }, p.name),
      h("span", { class: "bscore" }, fmt(p.score)),
      flags.length ? h("span", { class: "bflags" }, flags.join(" · ")) : null);
  }));
  renderTeams(st);
}

// In a team game the teams' totals come first, as big as the players' scores.
function renderTeams(st) {
  const standing = teamStanding(st);
  const box = $("#board-teams");
  box.hidden = !standing;
  if (!standing) return;
  fill(box, standing.teams.map((t) => {
    const lead = standing.leaders.includes(t.name) && standing.teams.length > 1;
    return h("li", { class: lead ? "lead" : "" },
      h("span", { class: "tname" }, `${lead ? (st.over ? "★ " : "▲ ") : ""}${t.name}`),
      h("span", { class: "tscore" }, fmt(t.score)),
      h("span", { class: "tmembers" }, `team: ${t.members.join(" + ")}`));
  }));
  box.setAttribute("aria-label", standing.line);
}

function niceStep(raw) {
  for (const m of [50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000]) if (m >= raw) return m;
  return 500000;
}

function marker(shape, x, y, color) {
  const r = 7;
  if (shape === "square") return s("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, fill: color });
  if (shape === "triangle") return s("path", { d: `M${x} ${y - r - 1}L${x + r + 1} ${y + r}L${x - r - 1} ${y + r}Z`, fill: color });
  if (shape === "diamond") return s("path", { d: `M${x} ${y - r - 2}L${x + r + 2} ${y}L${x} ${y + r + 2}L${x - r - 2} ${y}Z`, fill: color });
  return s("circle", { cx: x, cy: y, r, fill: color });
}

function renderChart(st) {
  const W = 520, H = 250, L = 92, R = 16, T = 16, B = 34;
  const series = st.players.map(() => [0]);
  for (const turn of st.history || []) {
    if (!Array.isArray(turn.scores)) continue;
    st.players.forEach((_, i) => series[i].push(turn.scores[i] ?? series[i][series[i].length - 1]));
  }
  const n = Math.max(1, series[0].length - 1);
  const all = series.flat();
  const step = niceStep((Math.max(st.target || 0, ...all, 50) - Math.min(0, ...all)) / 4);
  const top = Math.ceil(Math.max(st.target || 0, ...all, 50) / step) * step;
  const bottom = Math.floor(Math.min(0, ...all) / step) * step;
  const x = (k) => L + ((W - L - R) * k) / n;
  const y = (v) => T + ((H - T - B) * (top - v)) / (top - bottom || 1);
  const svg = s("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": `Scores after each turn: ${st.players.map((p) => `${p.name} ${fmt(p.score)}`).join(", ")}` });
  for (let v = bottom; v <= top; v += step) {
    svg.append(s("line", { class: "grid", x1: L, x2: W - R, y1: y(v), y2: y(v) }),
      s("text", { x: L - 8, y: y(v) + 7, "text-anchor": "end" }, fmt(v)));
  }
  if (st.target) {
    svg.append(s("line", { x1: L, x2: W - R, y1: y(st.target), y2: y(st.target), stroke: "#ffd24a", "stroke-dasharray": "4 4", "stroke-width": 2 }),
      s("text", { x: L + 8, y: y(st.target) + 22 }, `target ${fmt(st.target)}`));
  }
  svg.append(s("text", { x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle" }, "turns"));
  const legend = [];
  series.forEach((pts, i) => {
    const [color, dash, shape] = STYLES[i % STYLES.length];
    const d = pts.map((v, k) => `${k ? "L" : "M"}${x(k).toFixed(1)} ${y(v).toFixed(1)}`).join("");
    svg.append(s("path", { d, fill: "none", stroke: color, "stroke-width": 4, "stroke-dasharray": dash || null, "stroke-linejoin": "round" }));
    const last = pts.length - 1;
    svg.append(marker(shape, x(last), y(pts[last]), color));
    const sample = s("svg", { width: 44, height: 20, "aria-hidden": "true" },
      s("line", { x1: 2, x2: 30, y1: 10, y2: 10, stroke: color, "stroke-width": 4, "stroke-dasharray": dash || null }),
      marker(shape, 36, 10, color));
    legend.push(h("span", {}, sample, " ", st.players[i].name));
  });
  fill($("#chart"), svg, h("div", { class: "chart-legend" }, legend));
}

/** A score adjusted by hand in words: "Ann -1 (sang the farkle song) → 499". */
function adjustLine(a) {
  const signed = a.points >= 0 ? `+${fmt(a.points)}` : fmt(a.points);
  return `${a.player} ${signed} (${a.reason}) → ${fmt(a.score)}`;
}

function renderRecent(st) {
  // the turns, each adjustment by hand after the turns that had finished when it was entered
  const adjusted = st.adjustments || [];
  const after = (n) => adjusted.filter((a) => a.after_turns === n).map(adjustLine);
  const lines = [...after(0), ...(st.history || []).flatMap((t, i) => [turnLine(t), ...after(i + 1)])];
  const recent = lines.slice(-3).reverse();
  fill($("#recent"), recent.length ? recent.map((line) => h("li", {}, line)) : h("li", { class: "muted" }, "No turns yet."));
}

function renderQr() {
  const token = tokenFor(gameId);
  const q = token ? `?t=${encodeURIComponent(token)}` : "";
  $("#qr").src = `/board/${encodeURIComponent(gameId)}/qr.svg${q}`;
  $("#qr-addr").textContent = `${baseUrl}play/${gameId}`;
}

renderQr();
client.load().then((g) => { shown = g.version; client.stream(); }).catch((err) => {
  $("#bt-who").textContent = err.status === 404 ? `There is no game ${gameId} on this server.` : err.message;
  if (err.status === 0) setTimeout(() => location.reload(), 3000);
});
