// The history page: a turn-by-turn log, a score sheet (printable), statistics and downloads;
// with the game's control token, a past turn's dice and keeps can be corrected (previewed by
// the server, refusals shown before saving).
import { $, h, fill, fmt, announce, pageData } from "./dom.js";
import { call, takeTokenFromHash, tokenFor } from "./api.js";
import { diceRow } from "./dice.js";
import { rolloffText, sentence, standingsList, teamStanding, teamsText, turnLine } from "./game-view.js";

const { game_id: gameId } = pageData();
const url = `/api/games/${encodeURIComponent(gameId)}`;
const token = takeTokenFromHash(gameId) || tokenFor(gameId);
let game = null; // the latest GET of the game

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
        const pts = t.outcome === "farkle" ? (t.banked < 0 ? `F ${fmt(t.banked)}` : "F")
          : t.outcome === "farkle_kept" ? `F ${signed}` : signed;
        const mark = t.corrected ? " ✎" : "";
        return h("td", { title: t.corrected ? "corrected" : null }, `${pts} / ${fmt(t.scores ? t.scores[i] : t.score)}${mark}`);
      })))),
    h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, "Total"), st.players.map((p) => h("th", {}, fmt(p.score)))),
      teamRow(st)));
  fill($("#sheet"), table, h("p", { class: "muted" }, "Each cell: the turn's points / the running score; F = a farkle; ✎ = corrected."));
}

/** In a team game, a last row giving each player's team and that team's total, or null. */
function teamRow(st) {
  if (!st.teams || !st.teams.length) return null;
  const total = new Map(st.teams.map((t) => [t.name, t.score]));
  return h("tr", { class: "team-row" }, h("th", { scope: "row" }, "Team"),
    st.players.map((p) => h("td", {}, p.team ? `${p.team} ${fmt(total.get(p.team) ?? 0)}` : "–")));
}

/** What a corrected turn was, in words: "was 1 2 3 4 5 6 kept 1 5 (150), bank 150". */
function wasText(t) {
  const was = t.corrected && t.corrected.was;
  return was ? `was ${was.throws || "no throws"}, ${String(was.outcome).replace(/_/g, " ")} ${fmt(was.banked)}` : "";
}

/** A score adjusted by hand, as a row of the log: who, the reason, the points, the score. */
function adjustRow(a) {
  const signed = a.points >= 0 ? `+${fmt(a.points)}` : fmt(a.points);
  return h("tr", { class: "adjustment", "data-adjust-turn": a.turn },
    h("td", {}, String(a.turn)), h("td", { title: a.player }, a.player),
    h("td", {}, "± adjusted"),
    h("td", {}, h("span", { class: "adjust-reason" }, a.reason)),
    h("td", { class: "num" }, signed), h("td", { class: "num" }, fmt(a.score)));
}

/** The log's rows: each finished turn, with the adjustments entered after it in between. */
function logRows(turns, adjustments, turnRow) {
  const after = (n) => adjustments.filter((a) => a.after_turns === n).map(adjustRow);
  return [...after(0), ...turns.flatMap((t, i) => [turnRow(t), ...after(i + 1)])];
}

function renderLog(st) {
  const turns = st.history || [];
  const adjustments = st.adjustments || [];
  if (!turns.length && !adjustments.length) { fill($("#log"), h("p", { class: "muted" }, "No turns played yet.")); return; }
  const controls = Boolean(game && game.control);
  fill($("#log"), h("table", { class: "log" },
    h("thead", {}, h("tr", {}, ["#", "Player", "Throws", "Result", "Banked", "Score"].map((c, i) =>
      h("th", { scope: "col", class: i >= 4 ? "num" : "" }, c)))),
    h("tbody", {}, logRows(turns, adjustments, (t) => h("tr", {
      class: [t.outcome === "farkle" ? "farkle" : "", t.corrected ? "corrected" : ""].join(" ").trim(),
      "data-turn": t.turn },
      h("td", {}, String(t.turn)), h("td", { title: t.player }, t.player),
      h("td", {}, (t.throws || []).map((th) => {
        if ("quick" in th) return h("div", {}, `quick score ${fmt(th.quick)}`);
        if (th.pass) {
          const p = th.pass;
          const what = `${p.from}'s ${fmt(p.total)} and ${p.dice} ${p.dice === 1 ? "die" : "dice"}`;
          return h("div", {}, th.took ? `took over ${what}` : `declined ${what}`);
        }
        if (th.left) return h("div", {}, "left the game");
        const rolled = th.source === "app" ? h("span", { class: "rolled-tag", title: "rolled by the app's virtual dice" }, " (virtual dice)") : "";
        return h("div", {}, diceRow(th.dice || [], 22), rolled, th.keep ? ` keep ${th.keep.join(" ")} → ${fmt(th.points)}` : "",
          th.added_to_triple ? ` (${th.added_to_triple.join(" ")} on the earlier triple)` : "",
          th.result ? ` (${th.result === "pair_reroll" ? "pair: thrown again" : th.result.replace(/_/g, " ")})` : "");
      })),
      h("td", {}, turnLine(t),
        t.corrected ? h("span", { class: "corrected-was" }, h("span", { class: "corrected-tag" }, "✎ corrected"), ` (${wasText(t)})`) : null,
        controls && t.outcome !== "left"
          ? h("div", {}, h("button", { type: "button", class: "small correct-btn", "data-turn": t.turn,
            "aria-label": `Correct turn ${t.turn} (${t.player})`, onclick: () => openEditor(t) }, "✎ Correct"))
          : null),
      h("td", { class: "num" }, fmt(t.banked)), h("td", { class: "num" }, fmt(t.score)))))));
}

// ---------- correcting a past turn ----------
const editor = { turn: null, quick: false, timer: null, seq: 0, ok: false };

function diceOf(text) {
  const clean = text.replace(/[\s,;]+/g, "");
  if (!/^[1-6]*$/.test(clean)) return null;
  return [...clean].map(Number);
}

function rowEl(dice, keep) {
  const li = h("li", {},
    h("label", {}, "Dice thrown", h("input", { type: "text", class: "c-dice", inputmode: "numeric", autocomplete: "off", value: dice.join(" "), oninput: schedulePreview })),
    h("label", {}, "Dice kept", h("input", { type: "text", class: "c-keep", inputmode: "numeric", autocomplete: "off", value: keep.join(" "), oninput: schedulePreview })),
    h("button", { type: "button", class: "small", "aria-label": "Remove this throw", onclick: () => {
      if ($("#correct-rows").children.length > 1) { li.remove(); numberRows(); schedulePreview(); }
    } }, "✕"));
  return li;
}

function numberRows() {
  [...$("#correct-rows").children].forEach((li, i) => {
    li.querySelector(".c-dice").setAttribute("aria-label", `Throw ${i + 1}: dice thrown`);
    li.querySelector(".c-keep").setAttribute("aria-label", `Throw ${i + 1}: dice kept`);
  });
}

function openEditor(t) {
  editor.turn = t.turn;
  const throws = (t.throws || []).filter((th) => "dice" in th || "quick" in th);
  editor.quick = throws.some((th) => "quick" in th);
  $("#correct-h").textContent = `Correct turn ${t.turn} (${t.player})`;
  $("#correct-h").title = t.player;
  $("#correct-was").textContent = `As entered: ${turnLine(t)}.${t.corrected ? ` Corrected before; ${wasText(t)} at first.` : ""}`;
  $("#correct-dice").hidden = editor.quick;
  $("#correct-quick").hidden = !editor.quick;
  if (editor.quick) {
    $("#correct-points").value = String(throws[0].quick);
  } else {
    fill($("#correct-rows"), throws.map((th) => rowEl(th.dice, th.keep || [])));
    numberRows();
  }
  $("#correct-box").hidden = false;
  showPreview("", "");
  $("#correct-box").scrollIntoView({ block: "start" });
  ($("#correct-box .c-dice") || $("#correct-points")).focus({ preventScroll: true });
  schedulePreview();
}

function closeEditor() {
  editor.turn = null;
  $("#correct-box").hidden = true;
}

/** The correction's actions from the form, or a string saying what to fix. */
function editorActions() {
  if (editor.quick) {
    const raw = $("#correct-points").value;
    const n = Number(raw);
    if (raw === "" || !Number.isInteger(n) || n < 0 || n % 50) return `${raw || "Nothing"} is not a turn's score: type a multiple of 50 (0 for a farkle).`;
    return [{ type: "quick_score", points: n }];
  }
  const rows = [...$("#correct-rows").children];
  const actions = [];
  for (const [i, li] of rows.entries()) {
    const dice = diceOf(li.querySelector(".c-dice").value);
    const keep = diceOf(li.querySelector(".c-keep").value);
    if (dice === null || keep === null) return `Throw ${i + 1}: type dice as the faces 1 to 6 (e.g. 1 5 2 3 4 6).`;
    if (!dice.length) return `Throw ${i + 1}: type the dice thrown.`;
    actions.push({ type: "throw", dice });
    if (keep.length) actions.push({ type: "keep", dice: keep });
  }
  if (actions[actions.length - 1].type === "keep") actions.push({ type: "bank" });
  return actions;
}

function showPreview(text, kind) {
  const el = $("#correct-preview");
  el.textContent = text;
  el.className = `correct-preview ${kind}`;
}

function schedulePreview() {
  editor.ok = false;
  $("#correct-save").disabled = true;
  clearTimeout(editor.timer);
  editor.timer = setTimeout(preview, 250);
}

function previewWords(p) {
  const players = p.players.map((q) => q.before === q.after ? `${q.name} ${fmt(q.after)} (unchanged)` : `${q.name} ${fmt(q.before)} → ${fmt(q.after)}`);
  const parts = [`After the correction: ${players.join(" · ")}.`];
  if (p.after) parts.push(`Turn ${p.turn} becomes: ${turnLine(p.after)}.`);
  if (p.changed_turns.length) parts.push(`Later turns that now play out differently: ${p.changed_turns.join(", ")}.`);
  if (p.winner_before !== p.winner_after) parts.push(p.winner_after ? `The winner becomes ${p.winner_after}.` : "The game is no longer won.");
  return parts.join(" ");
}

async function preview() {
  const actions = editorActions();
  if (typeof actions === "string") { showPreview(actions, "error"); return; }
  const seq = ++editor.seq;
  let p;
  try {
    p = await call("POST", `${url}/corrections/preview`, { turn: editor.turn, actions }, token);
  } catch (err) {
    if (seq === editor.seq) showPreview(sentence(err.message), "error");
    return;
  }
  if (seq !== editor.seq) return; // a newer edit is on its way
  if (!p.ok) { showPreview(`Refused: ${sentence(p.refusal)}`, "error"); return; }
  editor.ok = true;
  showPreview(previewWords(p), "ok");
  $("#correct-save").disabled = false;
}

async function save() {
  const actions = editorActions();
  if (!editor.ok || typeof actions === "string") return;
  const turn = editor.turn;
  $("#correct-save").disabled = true;
  try {
    await call("POST", `${url}/actions`, { version: game.version, type: "correct", turn, actions }, token);
  } catch (err) {
    if (err.status === 409) {
      await load();
      showPreview("The game moved on meanwhile (another tablet acted): check the preview again.", "error");
      schedulePreview();
    } else {
      showPreview(sentence(err.message), "error");
    }
    return;
  }
  closeEditor();
  await load();
  const said = game.state.last_event && game.state.last_event.message;
  $("#log-message").className = "message ok";
  $("#log-message").textContent = said || `Turn ${turn} corrected.`;
  announce(said || `Turn ${turn} corrected.`);
  const row = document.querySelector(`#log tr[data-turn="${turn}"]`);
  if (row) row.scrollIntoView({ block: "center" });
}

$("#correct-add").addEventListener("click", () => {
  $("#correct-rows").append(rowEl([], []));
  numberRows();
  $("#correct-rows li:last-child .c-dice").focus();
  schedulePreview();
});
$("#correct-points").addEventListener("input", schedulePreview);
$("#correct-save").addEventListener("click", save);
$("#correct-cancel").addEventListener("click", closeEditor);

function renderStats(st) {
  if (!st.stats || !st.stats.length) return;
  const cols = [["turns", "Turns"], ["farkles", "Farkles"], ["hot_dice", "Hot dice"], ["best_turn", "Best turn"], ["average_banked_turn", "Average bank"]];
  fill($("#stats"), h("table", { class: "log" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), cols.map(([, label]) => h("th", { scope: "col", class: "num" }, label)))),
    h("tbody", {}, st.stats.map((p) => h("tr", {}, h("td", {}, p.name), cols.map(([k]) => h("td", { class: "num" }, p[k] === null ? "–" : fmt(p[k]))))))));
  $("#stats-box").hidden = false;
}

function render() {
  const st = game.state;
  const status = st.over ? `won by ${st.winner}` : `in progress, ${st.players[st.current].name} to play`;
  $("#summary").textContent = `${st.players.map((p) => `${p.name} ${fmt(p.score)}`).join(" · ")} — ${status}. Target ${fmt(st.target)}.`;
  const standing = teamStanding(st);
  $("#teams-summary").hidden = !standing;
  if (standing) $("#teams-summary").textContent = `${teamsText(st)}. ${standing.line}`;
  const ranked = standingsList(st);
  $("#standings-box").hidden = !ranked;
  fill($("#standings"), ranked);
  const rolled = rolloffText(st);
  $("#rolloff-line").hidden = !rolled;
  $("#rolloff-line").textContent = rolled || "";
  renderSheet(st);
  renderLog(st);
  renderStats(st);
  $("#csv").href = `${url}/export.csv`;
  $("#json").href = `${url}/export.json`;
}

async function load() {
  game = await call("GET", url, undefined, token);
  render();
}

async function main() {
  try {
    await load();
  } catch (err) {
    fill($("#log"), h("p", { class: "message error" }, err.status === 404 ? `There is no game ${gameId} on this server.` : err.message));
  }
}

$("#print").addEventListener("click", () => window.print());
main();
