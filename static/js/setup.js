// The home page: resume a game, or set up players, rules and a roll-off, then start.
import { $, h, fill, fmt, announce, pageData } from "./dom.js";
import { call, saveToken, tokenFor } from "./api.js";
import { die } from "./dice.js";

const data = pageData();
const OPTIONS = data.options.options;
const PRESETS = Object.fromEntries(data.options.presets.map((p) => [p.name, p]));
const LAST_KEY = "scorekeeper.lastSetup";
const MAX_PLAYERS = data.max_players; // the server's limit (scorekeeper.game.actions)

const state = {
  players: [{ name: "", team: "", start: 0 }, { name: "", team: "", start: 0 }],
  teams: false,
  starts: false,
  preset: "standard",
  values: { ...PRESETS.standard.rules },
  rolloff: null,
  teamDraw: null, // the server's draw by dice, sent with the game while the teams match it
};

const msg = $("#setup-message");
function say(text, kind = "error") {
  msg.textContent = text;
  msg.className = `message ${text ? kind : ""}`;
}

// ---------- players ----------
function renderPlayers(focusIndex = null) {
  const list = $("#players");
  fill(list, state.players.map((p, i) => {
    const name = h("input", {
      class: "name", type: "text", maxlength: 40, value: p.name, autocomplete: "off",
      "aria-label": `Player ${i + 1} name`, placeholder: `Player ${i + 1}`,
      oninput: (e) => { state.players[i].name = e.target.value; dropDraw(); },
    });
    const team = state.teams ? h("input", {
      class: "team", type: "text", maxlength: 40, value: p.team, autocomplete: "off",
      "aria-label": `Player ${i + 1} team`, placeholder: "Team",
      oninput: (e) => { state.players[i].team = e.target.value; dropDraw(); },
    }) : null;
    const start = state.starts ? h("input", {
      class: "start", type: "number", inputmode: "numeric", step: 50, min: 0, value: p.start || 0,
      "aria-label": `Player ${i + 1} starting points`, title: "Starting points",
      oninput: (e) => { state.players[i].start = e.target.value; },
    }) : null;
    return h("li", { class: "player-row" },
      h("span", { class: "seat", "aria-hidden": "true" }, `${i + 1}.`),
      name, team, start,
      h("button", { type: "button", class: "small", "aria-label": `Move player ${i + 1} up`,
        disabled: i === 0, onclick: () => move(i, -1) }, "↑"),
      h("button", { type: "button", class: "small", "aria-label": `Move player ${i + 1} down`,
        disabled: i === state.players.length - 1, onclick: () => move(i, 1) }, "↓"),
      h("button", { type: "button", class: "small danger", "aria-label": `Remove player ${i + 1}`,
        disabled: state.players.length <= 1, onclick: () => remove(i) }, "✕"),
    );
  }));
  $("#add-player").disabled = state.players.length >= MAX_PLAYERS;
  renderTeamDraw();
  if (focusIndex !== null) list.querySelectorAll("input.name")[focusIndex]?.focus();
}

// ---------- teams drawn by dice (seed 000: "choose teams by the roll of the dice") ----------
function renderTeamDraw() {
  $("#team-draw").hidden = !state.teams;
  const n = state.players.length;
  const select = $("#team-count");
  const was = Number(select.value) || 2;
  fill(select, Array.from({ length: Math.max(0, n - 1) }, (_, k) => k + 2).map((k) =>
    h("option", { value: k, selected: k === Math.min(was, n) }, String(k))));
  $("#team-draw-btn").disabled = n < 2;
  $("#team-draw-result").hidden = !state.teams || !state.teamDraw;
}

function dropDraw() {
  if (!state.teamDraw) return;
  state.teamDraw = null;
  $("#team-draw-result").textContent = "";
  $("#team-draw-result").hidden = true;
}

$("#team-draw-btn").addEventListener("click", async () => {
  const players = cleanNames();
  if (players.some((n) => !n)) { say("Name every player before drawing the teams."); return; }
  try {
    const d = await call("POST", "/api/teams/draw", { players, teams: Number($("#team-count").value) });
    state.players.forEach((p, i) => { p.team = d.assignment[i]; });
    renderPlayers();
    state.teamDraw = { teams: d.teams.length, throws: d.throws };
    const line = d.order.map((name) => {
      const i = players.indexOf(name);
      return `${name} ${d.throws[i].join(" then ")} → ${d.assignment[i]}`;
    }).join(", ");
    $("#team-draw-result").textContent = `Drawn by dice (highest first, dealt in turn): ${line}.`;
    $("#team-draw-result").hidden = false;
    say("");
    announce(`Teams drawn: ${line}`);
  } catch (err) {
    say(err.message);
  }
});

function move(i, delta) {
  dropDraw();
  const j = i + delta;
  [state.players[i], state.players[j]] = [state.players[j], state.players[i]];
  renderPlayers();
  announce(`${state.players[j].name || `Player ${j + 1}`} moved to place ${j + 1}`);
}

function remove(i) {
  dropDraw();
  const [gone] = state.players.splice(i, 1);
  renderPlayers();
  announce(`${gone.name || "Player"} removed`);
}

$("#add-player").addEventListener("click", () => {
  if (state.players.length >= MAX_PLAYERS) return;
  dropDraw();
  state.players.push({ name: "", team: "", start: 0 });
  renderPlayers(state.players.length - 1);
});

$("#teams-toggle").addEventListener("change", (e) => {
  state.teams = e.target.checked;
  renderPlayers();
});

$("#starts-toggle").addEventListener("change", (e) => {
  state.starts = e.target.checked;
  renderPlayers();
});

// The fair-handicap line (winprob-setup.js) applies or removes a starting score.
$("#setup").addEventListener("sk-start-score", (e) => {
  const { seat, points } = e.detail || {};
  if (!state.players[seat]) return;
  state.players[seat].start = points;
  if (points && !state.starts) { state.starts = true; $("#starts-toggle").checked = true; }
  renderPlayers();
  announce(`${state.players[seat].name || `Player ${seat + 1}`} starts on ${fmt(Number(points) || 0)} points`);
});

function startScores() {
  if (!state.starts) return null;
  const scores = state.players.map((p) => Number(p.start || 0));
  return scores.some((n) => n !== 0) ? scores : null;
}

function cleanNames() {
  return state.players.map((p) => p.name.trim().replace(/\s+/g, " "));
}

// ---------- rules ----------
function renderPresets() {
  fill($("#presets"), Object.values(PRESETS).map((p) => h("label", { class: "preset" },
    h("input", { type: "radio", name: "preset", value: p.name, checked: p.name === state.preset,
      onchange: () => choosePreset(p.name) }),
    h("span", {}, h("b", {}, p.name), p.help),
  )));
}

function choosePreset(name) {
  const target = state.values.target;
  const keepTarget = target !== PRESETS[state.preset].rules.target;
  state.preset = name;
  state.values = { ...PRESETS[name].rules };
  if (keepTarget) state.values.target = target;
  renderOptions();
  announce(`Preset ${name}: ${PRESETS[name].help}`);
}

function optionInput(opt) {
  const id = `opt-${opt.name}`;
  const value = state.values[opt.name];
  const onchange = (e) => setOption(opt, e.target);
  if (opt.kind === "bool") {
    return h("input", { id, type: "checkbox", checked: value, onchange });
  }
  if (opt.kind === "choice") {
    return h("select", { id, onchange }, opt.choices.map((c) =>
      h("option", { value: c, selected: c === value }, c.replace(/_/g, " "))));
  }
  if (opt.name === "dice") {  // 6, or 5 for a five-dice game
    return h("select", { id, onchange }, [6, 5].map((n) =>
      h("option", { value: String(n), selected: n === value }, n === 5 ? "5 dice (Greed)" : "6 dice")));
  }
  const isWord = (opt.words || []).includes(value);
  const step = opt.kind === "count" ? 1 : 50;
  const number = h("input", { id, type: "number", inputmode: "numeric", step, min: opt.low,
    max: opt.high, value: isWord ? "" : value, disabled: isWord, onchange });
  if (!opt.words) return number;
  // a number, or a word such as four_kind_pair's "three_pairs" (worth what three pairs are)
  return h("span", { class: "option-words" }, number, ...opt.words.map((word) => h("label",
    { class: "inline" },
    h("input", { id: `${id}-${word}`, type: "checkbox", checked: value === word,
      onchange: (e) => setWord(opt, word, e.target.checked, number) }),
    ` as ${word.replace(/_/g, " ")}`)));
}

/** Tick or untick an option's word: the word is its value, or the number typed beside it. */
function setWord(opt, word, on, number) {
  number.disabled = on;
  if (on) {
    number.value = "";
    state.values[opt.name] = word;
    number.setAttribute("aria-invalid", "false");
    say("");
  } else {
    const preset = PRESETS[state.preset].rules[opt.name];
    if (number.value.trim() === "") number.value = typeof preset === "number" ? preset : opt.low;
    setOption(opt, number);
    return;
  }
  markChanged();
}

/** What is wrong with a number option's input as typed, or null. */
function numberProblem(opt, input) {
  const n = input.value.trim() === "" ? NaN : Number(input.value);
  const step = opt.kind === "count" ? 1 : 50;
  if (Number.isInteger(n) && n >= opt.low && n <= opt.high && n % step === 0) return null;
  const what = step === 1 ? "a whole number" : "a multiple of 50";
  return `${opt.name.replace(/_/g, " ")}: ${input.value || "nothing"} is not accepted; give ${what} from ${fmt(opt.low)} to ${fmt(opt.high)}.`;
}

function setOption(opt, input) {
  if (opt.kind === "bool") state.values[opt.name] = input.checked;
  else if (opt.kind === "choice") state.values[opt.name] = input.value;
  else {
    const problem = numberProblem(opt, input);
    input.setAttribute("aria-invalid", problem ? "true" : "false");
    if (problem) {
      say(problem);
      return;
    }
    say("");
    state.values[opt.name] = Number(input.value);
  }
  markChanged();
}

// the number of dice first: with five, the six-dice options are marked as not applying
const SHOWN_OPTIONS = [...OPTIONS.filter((o) => o.name === "dice"),
  ...OPTIONS.filter((o) => o.name !== "target" && o.name !== "dice")];

function renderOptions() {
  fill($("#options"), SHOWN_OPTIONS.map((o) => h("div", {
    class: "option", dataset: { name: o.name, sixDice: o.six_dice || "" } },
    h("label", { for: `opt-${o.name}` }, o.name.replace(/_/g, " ")),
    h("div", {}, optionInput(o)),
    h("p", { class: "help", id: `help-${o.name}` }, o.help,
      o.six_dice ? h("span", { class: "five-note" }) : null),
  )));
  for (const o of OPTIONS) $(`#opt-${o.name}`)?.setAttribute("aria-describedby", `help-${o.name}`);
  const target = $("#opt-target");
  target.value = state.values.target;
  renderPresets();
  markChanged();
}

function overrides() {
  const base = PRESETS[state.preset].rules;
  const out = {};
  for (const [k, v] of Object.entries(state.values)) if (base[k] !== v) out[k] = v;
  return out;
}

/** With five dice: mark the six-dice options (never shown by five dice, or contradicting it). */
function markFiveDice() {
  const five = state.values.dice === 5;
  for (const row of document.querySelectorAll(".option[data-six-dice]")) {
    const kind = row.dataset.sixDice;
    if (!kind) continue;
    const note = row.querySelector(".five-note");
    const on = Boolean(state.values[row.dataset.name]);
    row.classList.toggle("never", five && kind === "never");
    row.classList.toggle("contradicts", five && kind === "refused" && on);
    note.textContent = !five ? ""
      : kind === "never" ? " Five dice never show this: it does not apply."
        : on ? " Needs six dice: turn it off to play with 5 dice." : " Needs six dice.";
  }
}

function markChanged() {
  markFiveDice();
  const changed = overrides();
  for (const row of document.querySelectorAll(".option")) {
    row.classList.toggle("changed", row.dataset.name in changed);
  }
  const n = Object.keys(changed).length;
  $("#changed-count").textContent = n ? `(${n} changed from ${state.preset})` : `(as ${state.preset})`;
}

const targetOpt = OPTIONS.find((o) => o.name === "target");
$("#target-help").textContent = targetOpt ? targetOpt.help : "";
if (targetOpt) $("#opt-target").setAttribute("max", String(targetOpt.high));
$("#opt-target").addEventListener("change", (e) => setOption(targetOpt, e.target));
$("#reset-options").addEventListener("click", () => choosePreset(state.preset));

// ---------- roll-off ----------
function openRolloff() {
  const names = cleanNames().map((n, i) => n || `Player ${i + 1}`);
  state.rolloff = { names, inRound: names.map((_, i) => i), throws: {}, round: 1, rounds: [] };
  state.rolloffRecord = null;
  $("#rolloff").hidden = false;
  renderRolloff();
}

function renderRolloff() {
  const r = state.rolloff;
  fill($("#rolloff-grid"), r.inRound.map((i) => h("div", { class: "rolloff-row", dataset: { seat: i } },
    h("span", { class: "who" }, r.names[i]),
    [1, 2, 3, 4, 5, 6].map((v) => h("button", {
      type: "button", class: "small", "aria-label": `${r.names[i]} threw ${v}`,
      "aria-pressed": r.throws[i] === v ? "true" : "false",
      onclick: () => { r.throws[i] = v; settleRolloff(); } }, die(v, 32))),
  )));
  const waiting = r.inRound.filter((i) => !(i in r.throws)).map((i) => r.names[i]);
  if (waiting.length) {
    $("#rolloff-status").textContent = r.round === 1
      ? `Round 1: tap the face each player threw (waiting for ${waiting.join(", ")}).`
      : `Tie! Round ${r.round}: ${r.inRound.map((i) => r.names[i]).join(" and ")} throw again.`;
  }
}

function settleRolloff() {
  const r = state.rolloff;
  if (r.inRound.some((i) => !(i in r.throws))) { renderRolloff(); return; }
  const best = Math.max(...r.inRound.map((i) => r.throws[i]));
  const top = r.inRound.filter((i) => r.throws[i] === best);
  r.rounds.push(Object.fromEntries(r.inRound.map((i) => [r.names[i], r.throws[i]])));
  if (top.length > 1) {
    r.inRound = top;
    r.throws = {};
    r.round += 1;
    renderRolloff();
    announce(`Tie on ${best}: ${top.map((i) => r.names[i]).join(" and ")} throw again.`);
    return;
  }
  const first = top[0];
  // The winner starts; play then passes on in the table's order.
  state.players = [...state.players.slice(first), ...state.players.slice(0, first)];
  // sent with the game (and kept in its log) while the players stay as they were rolled
  state.rolloffRecord = { rounds: r.rounds, order: [...r.names.slice(first), ...r.names.slice(0, first)] };
  renderPlayers();
  const text = `${r.names[first]} threw ${best} and goes first. The order has been updated.`;
  fill($("#rolloff-grid"));
  $("#rolloff-status").textContent = text;
  announce(text);
}

$("#rolloff-open").addEventListener("click", openRolloff);
$("#rolloff-close").addEventListener("click", () => { $("#rolloff").hidden = true; });
$("#rolloff-random").addEventListener("click", () => {
  const r = state.rolloff;
  if (!r) return;
  const rnd = new Uint8Array(r.inRound.length);
  crypto.getRandomValues(rnd);
  r.inRound.forEach((i, k) => { if (!(i in r.throws)) r.throws[i] = (rnd[k] % 6) + 1; });
  settleRolloff();
});

// ---------- start ----------
function check() {
  const names = cleanNames();
  const empty = names.findIndex((n) => !n);
  if (empty >= 0) return `Player ${empty + 1} has no name: type one, or remove that row.`;
  const seen = new Map();
  for (const n of names) {
    const key = n.toLocaleLowerCase();
    if (seen.has(key)) return `Two players are called ${n}: each player needs a distinct name.`;
    seen.set(key, true);
  }
  // a number typed but refused must not start the game on the value it replaced
  for (const opt of OPTIONS) {
    const input = $(`#opt-${opt.name}`);
    if (opt.kind === "bool" || opt.kind === "choice" || !input || input.disabled) continue;
    const problem = numberProblem(opt, input);
    if (problem) {
      input.setAttribute("aria-invalid", "true");
      const box = input.closest("details");
      if (box) box.open = true;
      input.focus();
      return problem;
    }
  }
  return null;
}

$("#setup").addEventListener("submit", async (e) => {
  e.preventDefault();
  const problem = check();
  if (problem) { say(problem); announce(problem, true); return; }
  const names = cleanNames();
  const body = {
    players: names,
    teams: state.teams ? state.players.map((p) => p.team.trim() || null) : null,
    rules: { preset: state.preset, overrides: overrides() },
  };
  const starts = startScores();
  if (starts) body.start_scores = starts;
  if (state.teams && state.teamDraw) body.team_draw = state.teamDraw;
  const rolled = state.rolloffRecord;
  if (rolled && rolled.order.join("\n") === names.join("\n")) body.rolloff = { rounds: rolled.rounds };
  const button = $("#start");
  button.disabled = true;
  say("Starting…", "ok");
  try {
    const game = await call("POST", "/api/games", body);
    saveToken(game.id, game.control_token);
    try {
      const last = { players: state.players, teams: state.teams, preset: state.preset, overrides: overrides() };
      localStorage.setItem(LAST_KEY, JSON.stringify(last));
    } catch { /* ignore */ }
    location.assign(`/play/${encodeURIComponent(game.id)}`);
  } catch (err) {
    say(err.message);
    announce(err.message, true);
    button.disabled = false;
  }
});

// ---------- resume ----------
const resumable = (g) => !g.over && Boolean(tokenFor(g.id));

async function loadGames() {
  let list;
  try {
    list = await call("GET", "/api/games");
  } catch {
    return; // No game API (or the server is away): the setup still works.
  }
  const games = Array.isArray(list) ? list : (list && list.games) || [];
  if (!games.length) return;
  fill($("#games"), games.slice(0, 12).map((g) => {
    const id = encodeURIComponent(g.id);
    const players = (g.players || []).map((p) => (typeof p === "string" ? p : p.name));
    const label = g.over ? `won by ${g.winner || "nobody"}` : `running, ${g.preset || "custom"} rules`;
    return h("li", {},
      h("span", { class: "desc" }, h("b", {}, players.join(" · ") || g.id), " ", h("span", { class: "muted" }, `(${label})`)),
      resumable(g)
        ? h("a", { class: "btn primary", href: `/play/${id}` }, "Resume")
        : h("a", { class: "btn", href: `/play/${id}` }, g.over ? "Open" : "Watch"),
      h("a", { class: "btn", href: `/board/${id}` }, "Board"),
      h("a", { class: "btn", href: `/history/${id}` }, "History"),
      tokenFor(g.id) ? h("button", { type: "button", class: "btn danger delete-game", "data-game": g.id,
        "aria-label": `Delete the game of ${players.join(", ") || g.id}`, onclick: (e) => askDelete(e.currentTarget, g) }, "Delete") : null,
    );
  }));
  $("#resume").hidden = false;
}

/** Ask in the row itself before deleting a game for good (no browser dialog). */
function askDelete(button, g) {
  const row = button.closest("li");
  if (row.querySelector(".confirm-delete")) return;
  const box = h("div", { class: "confirm-delete", role: "group", "aria-label": "Confirm deleting" },
    h("span", {}, "Delete this game for good? It cannot be undone. "),
    h("button", { type: "button", class: "btn danger", onclick: async (e) => {
      e.currentTarget.disabled = true; // a double tap deletes once
      try {
        await call("DELETE", `/api/games/${encodeURIComponent(g.id)}`, { confirm: g.id }, tokenFor(g.id));
        try { localStorage.removeItem(`scorekeeper.token.${g.id}`); } catch { /* ignore */ }
        row.remove();
        const players = (g.players || []).map((p) => (typeof p === "string" ? p : p.name));
        const said = `Deleted the game of ${players.join(", ") || g.id}.`;
        $("#games-msg").textContent = said;
        announce(said);
      } catch (err) {
        box.replaceChildren(h("span", { class: "error" }, err.message));
      }
    } }, "Yes, delete"),
    " ",
    h("button", { type: "button", class: "btn", onclick: () => { box.remove(); button.focus(); } }, "Cancel"));
  row.append(box);
  box.querySelector("button").focus();
}

// ---------- saved house rules ----------
let saved = [];
const rulesMsg = (text, kind = "error") => {
  const el = $("#ruleset-msg");
  el.textContent = text;
  el.className = `message ${text ? kind : ""}`;
};

/** Take a rule set's preset and overrides into the form (only options this server knows). */
function applyRules(preset, given) {
  if (!Object.hasOwn(PRESETS, preset)) return false;
  state.preset = preset;
  state.values = { ...PRESETS[preset].rules };
  for (const [k, v] of Object.entries(given || {})) {
    const opt = OPTIONS.find((o) => o.name === k);
    const word = typeof v === "string" && (opt?.words || []).includes(v);
    if (k in state.values && (word || typeof v === typeof state.values[k])) state.values[k] = v;
  }
  renderOptions();
  return true;
}

function renderRulesets(selected = "") {
  const pick = $("#ruleset-pick");
  fill(pick, saved.length
    ? [h("option", { value: "" }, "Pick a saved set…"), ...saved.map((r) => h("option", { value: r.name, selected: r.name === selected }, r.name))]
    : [h("option", { value: "" }, "(none saved yet)")]);
  pick.disabled = !saved.length;
  showRulesetActions();
}

function showRulesetActions() {
  const name = $("#ruleset-pick").value;
  $("#ruleset-export").hidden = $("#ruleset-delete").hidden = !name;
  if (name) $("#ruleset-export").href = `/api/rulesets/export?name=${encodeURIComponent(name)}`;
}

async function loadRulesets(selected = "") {
  try {
    saved = (await call("GET", "/api/rulesets")).rulesets || [];
  } catch {
    saved = [];
  }
  renderRulesets(selected);
}

function useRuleset(name) {
  const r = saved.find((x) => x.name === name);
  if (!r) return;
  const n = Object.keys(r.overrides || {}).length;
  if (applyRules(r.preset, r.overrides)) {
    rulesMsg(`Using "${r.name}": ${r.preset} with ${n} option${n === 1 ? "" : "s"} changed.`, "ok");
    announce(`Using the saved rules ${r.name}.`);
  }
}

$("#ruleset-pick").addEventListener("change", (e) => { showRulesetActions(); useRuleset(e.target.value); });

$("#ruleset-save").addEventListener("click", async () => {
  const name = $("#ruleset-name").value.trim();
  if (!name) { rulesMsg("Give the rule set a name first, e.g. Friday night."); $("#ruleset-name").focus(); return; }
  try {
    const res = await call("POST", "/api/rulesets", { name, preset: state.preset, overrides: overrides() });
    rulesMsg(`${res.replaced ? "Replaced" : "Saved"} "${res.ruleset.name}".`, "ok");
    $("#ruleset-name").value = "";
    await loadRulesets(res.ruleset.name);
  } catch (err) {
    rulesMsg(err.message);
  }
});

$("#ruleset-delete").addEventListener("click", async () => {
  const name = $("#ruleset-pick").value;
  if (!name) return;
  try {
    await call("DELETE", "/api/rulesets", { name });
    rulesMsg(`Deleted "${name}".`, "ok");
    await loadRulesets();
  } catch (err) {
    rulesMsg(err.message);
  }
});

$("#ruleset-import").addEventListener("change", async (e) => {
  const file = e.target.files && e.target.files[0];
  if (!file) return;
  let body;
  try {
    body = JSON.parse(await file.text());
  } catch {
    rulesMsg(`${file.name} is not JSON: export a rule set from a scorekeeper to get one.`);
    return;
  } finally {
    e.target.value = "";
  }
  try {
    const res = await call("POST", "/api/rulesets", body);
    await loadRulesets(res.ruleset.name);
    useRuleset(res.ruleset.name);
    rulesMsg(`Imported "${res.ruleset.name}" and using it.`, "ok");
  } catch (err) {
    rulesMsg(`${file.name}: ${err.message}`);
  }
});

// ---------- init ----------
try {
  const last = JSON.parse(localStorage.getItem(LAST_KEY) || "null");
  if (last && Array.isArray(last.players) && last.players.length) {
    state.players = last.players.map((p) => ({ name: String(p.name || ""), team: String(p.team || "") }));
    state.teams = Boolean(last.teams);
    $("#teams-toggle").checked = state.teams;
    if (typeof last.preset === "string" && Object.hasOwn(PRESETS, last.preset)) {
      state.preset = last.preset;
      state.values = { ...PRESETS[last.preset].rules };
      // The last game's house rules too: only options this server knows, with their types.
      const saved = last.overrides && typeof last.overrides === "object" ? last.overrides : {};
      for (const [k, v] of Object.entries(saved)) {
        const opt = OPTIONS.find((o) => o.name === k);
        const word = typeof v === "string" && (opt?.words || []).includes(v);
        if (k in state.values && (word || typeof v === typeof state.values[k])) state.values[k] = v;
      }
    }
  }
} catch { /* a bad saved setup is ignored */ }
renderPlayers();
renderOptions();
loadGames();
loadRulesets();
