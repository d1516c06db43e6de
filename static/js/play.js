// The tablet play page: scores, the turn, a dice pad for tap entry, the legal keeps with the
// advice, bank/keep buttons that say why they are disabled, quick score, undo and shortcuts.
import { $, h, fill, fmt, announce, banner, pageData } from "./dom.js";
import { GameClient } from "./api.js";
import { rematchControls } from "./rematch.js";
import { die, diceRow } from "./dice.js";
import { adviceFor, adviceOf, handOf, handWord, rulesOf, describeKeep, eventFlash, finalRoundText, standingsList, teamStanding, teamsText, sentence } from "./game-view.js";

const { game_id: gameId } = pageData();
const QUICK_KEY = `scorekeeper.quick.${gameId}`;
const ui = {
  entered: [],
  selected: null, // index into state.turn.keeps
  showAll: false,
  quick: localStorage.getItem(QUICK_KEY) === "1",
  busy: false,
  inflight: Promise.resolve(true),
  inflightKind: null, // the type of the action on its way

  midway: false, // between the steps of "keep and bank"
  pendingStart: null,
  lastThrowKey: "",
  picked: false, // the player chose a keep themselves (advice arriving later leaves it)
  shownVersion: Infinity, // events up to this version have been flashed and announced
  photoBusy: false, // a photo of the dice is being read
  fromPhoto: false, // the pad holds dice read from a photo: the throw's source is "camera"
  doubt: [], // for each entered die, whether the photo's reader was unsure of it (marked ?)
  turnKey: undefined, // the turn shown last ("number:player"), to notice a new one
};
const PHOTO_SIDE = 1600; // a photo is sent at most this many pixels on its longer side
// Action-to-screen times in ms (read by the browser tests; reported in the README).
const metrics = (window.scorekeeperMetrics = { actions: [] });

// Every new state is also announced to the page's other modules (the camera panel follows
// the throws with it): a "scorekeeper:state" event on window.
const client = new GameClient(gameId, {
  onState: (g, why) => {
    render(g, why);
    window.dispatchEvent(new CustomEvent("scorekeeper:state", { detail: { why } }));
  },
  onConnection: connection,
});
window.scorekeeperClient = client;

// ---------- connection ----------
function connection(ok, text) {
  const el = $("#conn");
  el.textContent = ok ? "● Live" : "● Offline";
  el.classList.toggle("down", !ok);
  if (ok) banner(null);
  else banner(text || "Connection lost. Retrying…");
}

// ---------- messages ----------
function say(text, kind = "error") {
  const el = $("#message");
  el.textContent = text;
  el.className = `message ${text ? kind : ""}`;
}

function flash(kind, big, text, ms = 2500) {
  const el = $("#flash");
  el.className = `flash ${kind}`;
  $("#flash-big").textContent = big;
  $("#flash-text").textContent = text;
  el.hidden = false;
  clearTimeout(flash.timer);
  flash.timer = setTimeout(closeFlash, ms);
}
function closeFlash() { $("#flash").hidden = true; }
$("#flash-close").addEventListener("click", closeFlash);
$("#flash").addEventListener("click", (e) => { if (e.target.id === "flash") closeFlash(); });

// ---------- focus: re-rendering replaces buttons; keep the keyboard's place ----------
function focusKey(el) {
  if (!el || el === document.body) return null;
  if (el.id) return `#${el.id}`;
  if (el.dataset && el.dataset.keep) return `.keep[data-keep="${el.dataset.keep}"]`;
  if (el.dataset && el.dataset.face) return `#pad button[data-face="${el.dataset.face}"]`;
  return "?";
}

function usable(el) { return el && el.isConnected && el.offsetParent !== null && !el.disabled; }

function settleFocus(key) {
  if (!key || usable(document.activeElement)) return;
  let el = key === "?" ? null : document.querySelector(key);
  if (!usable(el)) {
    const st = client.game && client.game.state;
    if (!st) return;
    if (st.over) el = $("#winner a");
    else if (st.phase === "keep") el = $("#act-throw:not([disabled])") || $("#keeps-best .keep");
    else if (st.phase === "pass") el = $("#pass-section button.primary:not([disabled])");
    else if (!$("#quick-section").hidden) el = $("#quick-points");
    else el = $("#pad-submit:not([disabled])") || $("#pad button:not([disabled])");
  }
  if (usable(el)) el.focus({ preventScroll: true });
}

function keepingFocus(fn) {
  return (...args) => {
    const key = focusKey(document.activeElement);
    fn(...args);
    settleFocus(key);
  };
}

const render = keepingFocus(renderNow);
const renderPad = keepingFocus(renderPadNow);
const renderKeeps = keepingFocus(renderKeepsNow);

// ---------- render ----------
function renderNow(game, why) {
  const st = game.state;
  const rules = rulesOf(game);
  $("#loading").hidden = true;
  $("#table-tools").hidden = false; // hidden until a game has loaded
  $("#readonly-note").hidden = client.canControl;
  document.title = `${st.over ? "Game over" : `${st.players[st.current].name}'s turn`} · Farkle`;

  const fr = finalRoundText(st);
  $("#final-banner").hidden = !fr;
  $("#final-banner").textContent = fr || "";

  renderScores(st, rules);
  renderWinner(st);
  $("#turn").hidden = st.over;
  if (!st.over) renderTurn(st, rules);
  renderUndo(st);
  renderTools(st);
  showNewTurn(st);

  if ((why === "action" || why === "stream" || why === "stale") && game.version > ui.shownVersion) {
    ui.shownVersion = game.version;
    const ev = st.last_event || {};
    // The first step of "keep and bank" is not worth a flash of its own.
    const f = ui.midway ? null : eventFlash(st);
    if (f) flash(f.kind, f.big, f.text, f.ms);
    if (ev.message && !ui.midway) {
      announce(ev.message, Boolean(f) || ev.type === "final_round" || ev.type === "win");
    }
  }
  if (ui.pendingStart !== null && why === "action") {
    const start = ui.pendingStart;
    ui.pendingStart = null;
    requestAnimationFrame(() => metrics.actions.push({
      ms: Math.round((performance.now() - start.t) * 10) / 10, version: game.version, wall: start.wall,
    }));
  }
}

function renderScores(st, rules) {
  fill($("#scores"), st.players.map((p, i) => {
    const flags = [];
    if (!p.active) flags.push("left the game");
    else if (p.out) flags.push("out of the final round");
    else if (!p.on_board && rules.opening_minimum) flags.push("not on the board");
    if (p.farkle_streak) flags.push(`${"✗".repeat(p.farkle_streak)} ${p.farkle_streak} farkle${p.farkle_streak > 1 ? "s" : ""} in a row`);
    if (p.team) flags.push(`team ${p.team}`);
    if (p.start_score) flags.push(`started on ${fmt(p.start_score)}`);
    const current = i === st.current && !st.over;
    return h("li", { class: current ? "current" : "", "aria-current": current ? "true" : null },
      h("div", { class: "pname", title: p.name }, p.name),
      h("div", { class: "pscore" }, fmt(p.score)),
      h("div", { class: "pflags" }, flags.join(" · ")),
    );
  }));
  const tt = teamsText(st);
  $("#teams-line").hidden = !tt;
  $("#teams-line").textContent = tt || "";
}

function renderWinner(st) {
  const box = $("#winner");
  box.hidden = !st.over;
  if (!st.over) return;
  const top = Math.max(...st.players.map((p) => p.score));
  const said = (st.last_event && st.last_event.type === "win" && st.last_event.message) || `With ${fmt(top)} points.`;
  const standing = teamStanding(st);
  fill(box,
    h("h1", {}, `★ ${st.winner || "Nobody"} ${st.winners && st.winners.length > 1 ? "share the win" : "wins"}!`),
    h("p", {}, said),
    standing && standing.teams.length > 1 ? h("p", { class: "team-result" }, standing.line) : null,
    standingsList(st),
    rematchControls(gameId, client.canControl, client.token, "play"),
    h("div", { class: "row" },
      h("a", { class: "btn", href: `/history/${encodeURIComponent(gameId)}` }, "History and score sheet"),
      h("a", { class: "btn", href: "/" }, "New game")),
  );
}

// A new player's turn on a page scrolled down (a phone, after a bank or a farkle): bring the
// turn's title back into view, so the tablet says whose turn it is.
function showNewTurn(st) {
  const key = st.over ? "over" : `${st.turn.number}:${st.current}`;
  const before = ui.turnKey;
  ui.turnKey = key;
  if (before === undefined || before === key || st.over) return;
  const below = $(".topbar").getBoundingClientRect().bottom;
  const top = $("#turn").getBoundingClientRect().top;
  if ($("#turn-title").getBoundingClientRect().top < below) window.scrollBy(0, top - below - 8);
}

function renderTurn(st, rules) {
  const t = st.turn;
  const p = st.players[st.current];
  fill($("#turn-title"), h("span", { class: "tname", title: p.name }, p.name), "'s turn");
  const from = { camera: " · throw read by the camera", app: " · rolled by the app's virtual dice" }[t.source] || "";
  $("#turn-sub").textContent = `turn ${t.number}${from}`;
  $("#turn-total").textContent = fmt(t.total);
  $("#dice-left").textContent = String(t.dice_left);
  if (t.opening_needed === null || t.opening_needed === undefined) {
    $("#need-label").textContent = p.on_board ? "On the board" : "Opening minimum";
    $("#need").textContent = p.on_board ? "✓ yes" : "none";
  } else {
    $("#need-label").textContent = "Still needed to get on the board";
    $("#need").textContent = fmt(t.opening_needed);
  }
  const took = t.took_over;
  $("#turn-note").textContent = took && t.must_roll
    ? `Took over ${took.from}'s ${fmt(took.total)}: throw the ${took.dice === 1 ? "die" : `${took.dice} dice`} before banking; a farkle loses it all.`
    : (t.must_roll ? `Hot dice: throw all ${handWord(handOf(client.game))} again before banking.`
      : (t.reroll ? "A pair that scores nothing: throw the two dice again (once); a second one farkles." : ""));
  const tripled = (t.tripled || []).map((f) => `${f}s`);
  if (tripled.length && rules && rules.triple_addon) {
    const note = `Kept as three of a kind this turn: ${tripled.join(", ")}; each further one adds ${fmt(rules.triple_addon)}.`;
    $("#turn-note").textContent = [$("#turn-note").textContent, note].filter(Boolean).join(" ");
  }
  $("#turn-odds").textContent = typeof t.farkle_chance === "number" && st.phase === "throw"
    ? `Chance of a farkle with ${t.dice_left} ${t.dice_left === 1 ? "die" : "dice"}: ${(t.farkle_chance * 100).toFixed(1)}%.`
    : "";

  const fresh = t.total === 0 && (!t.kept || t.kept.length === 0) && st.phase === "throw";
  const quick = ui.quick && fresh;
  $("#quick-toggle").checked = ui.quick;
  $("#quick-section").hidden = !quick;
  $("#pad-section").hidden = quick || st.phase !== "throw";
  $("#keeps-section").hidden = st.phase !== "keep";
  $("#actions").hidden = quick || st.phase === "pass";
  $("#pass-section").hidden = st.phase !== "pass";
  document.querySelector("#turn .switches").hidden = st.phase === "pass";

  const controls = client.canControl;
  if (st.phase === "pass") renderPass(t, controls);
  if (st.phase === "throw") {
    if (ui.entered.length > t.dice_left) ui.entered = ui.entered.slice(0, t.dice_left);
    ui.selected = null;
    renderPad(t);
    const bank = $("#act-bank");
    bank.textContent = `Bank ${fmt(t.total)}`;
    bank.disabled = !controls || !t.can_bank || ui.busy;
    $("#why-bank").textContent = !controls ? "This device is only watching."
      : sentence(t.can_bank ? t.bank_warning : t.bank_refusal);
    $("#act-throw").parentElement.hidden = true;
  } else if (st.phase === "keep") {
    $("#act-throw").parentElement.hidden = false;
    renderKeeps(st);
  }
  // On a phone the turn's buttons and the page's message stick to the bottom of the screen;
  // with nothing to bank yet the dock gives way to the pad instead of sticking over it.
  const docked = !$("#actions").hidden && (st.phase === "keep" || (st.phase === "throw" && t.can_bank));
  $("#dock").classList.toggle("idle", !docked);
  if (quick) {
    $("#quick-submit").disabled = !controls || ui.busy;
    $("#quick-farkle").disabled = !controls || ui.busy;
  }
}

// pass_dice: the player takes over the passed total and dice, or throws six fresh dice
function renderPass(t, controls) {
  const p = t.passed;
  const dice = `${p.dice} ${p.dice === 1 ? "die" : "dice"}`;
  $("#pass-title").textContent = `${p.from} banked ${fmt(p.total)} and passes ${dice}`;
  const a = t.advice && t.advice.kind === "pass" ? t.advice : null;
  const take = $("#pass-take");
  const fresh = $("#pass-fresh");
  take.textContent = `Take over ${fmt(p.total)}, throw ${dice}`;
  fresh.textContent = `Throw ${handWord(handOf(client.game))} fresh dice`;
  if (a) (a.best === "take_over" ? take : fresh).textContent += " (advised)";
  take.classList.toggle("primary", !a || a.best === "take_over");
  fresh.classList.toggle("primary", Boolean(a) && a.best === "fresh");
  take.disabled = fresh.disabled = !controls || ui.busy;
  $("#pass-advice").textContent = a ? `Advice: ${sentence(a.message)}`
    : (t.advice_pending ? "Working out the advice…" : "");
  $("#pass-note").textContent = !controls ? "This device is only watching."
    : `Taking over: a farkle loses the ${fmt(p.total)} too. Fresh dice: a new turn from 0.`;
}

function renderPadNow(t) {
  const n = t.dice_left;
  if (ui.entered.length === 0) ui.fromPhoto = false;
  ui.doubt = ui.entered.map((_, i) => Boolean(ui.doubt[i])); // in step: a die added, cut or cleared
  const left = n - ui.entered.length;
  $("#pad-title").textContent = `Enter the throw of ${n} ${n === 1 ? "die" : "dice"}`;
  $("#pad-count").textContent = `${ui.entered.length} of ${n} entered`;
  const slots = [];
  ui.entered.forEach((v, i) => slots.push(h("button", {
    type: "button",
    class: ui.doubt[i] ? "unsure" : "",
    "aria-label": `Remove the ${v} (die ${i + 1}${ui.doubt[i] ? ", the camera is unsure: check it" : ""})`,
    onclick: () => { ui.entered.splice(i, 1); ui.doubt.splice(i, 1); renderPad(t); } }, die(v, 56))));
  for (let k = 0; k < left; k += 1) slots.push(h("span", { class: "slot", "aria-hidden": "true" }));
  fill($("#entered"), slots);
  const controls = client.canControl;
  fill($("#pad"), [1, 2, 3, 4, 5, 6].map((v) => h("button", {
    type: "button", "aria-label": `Add a ${v}`, "data-face": v,
    disabled: !controls || left <= 0 || ui.busy,
    onclick: () => addDie(v) }, die(v, 56), h("span", { class: "face-num", "aria-hidden": "true" }, String(v)))));
  $("#pad-back").disabled = ui.entered.length === 0;
  $("#pad-clear").disabled = ui.entered.length === 0;
  const roll = $("#roll-btn");
  roll.disabled = !controls || ui.busy;
  const icon = die(5, 22);
  for (const name of ["role", "aria-label"]) icon.removeAttribute(name);
  icon.setAttribute("aria-hidden", "true");
  fill(roll, icon, ` Roll ${n} ${n === 1 ? "die" : "dice"} for me `, h("kbd", {}, "r"));
  const photo = $("#photo-btn");
  photo.disabled = !controls || ui.busy || ui.photoBusy;
  photo.textContent = ui.photoBusy ? "Reading the photo…" : "Read the dice from a photo";
  const submit = $("#pad-submit");
  submit.disabled = !controls || left !== 0 || ui.busy;
  submit.textContent = left === 0 ? `Enter throw ${ui.entered.join(" ")}` : `Tap ${left} more ${left === 1 ? "die" : "dice"}`;
}

function addDie(v) {
  const t = client.game && client.game.state.turn;
  if (!t || ui.entered.length >= t.dice_left) return;
  ui.entered.push(v);
  renderPad(t);
}

function adviceIndex(t) {
  const a = adviceOf(t);
  if (!a) return null;
  const key = [...a.keep].sort().join(",");
  const i = t.keeps.findIndex((k) => [...k.keep].sort().join(",") === key);
  return i >= 0 ? i : null;
}

/** "Advice", or "Advice (not exact: triple_addon)" when the advisor cannot value an option. */
function adviceLabel(t) {
  const a = t.advice;
  const missing = a && a.exact === false && Array.isArray(a.not_modelled) ? a.not_modelled : [];
  return missing.length ? `Advice (not exact: ${missing.join(", ")})` : "Advice";
}

function keepButton(t, k, i, best, adviceI) {
  const selected = ui.selected === i;
  const label = [];
  if (i === adviceI) label.push(h("span", { class: "best-tag" }, "Best"));
  else if (adviceI === null && i === 0) label.push(h("span", { class: "best-tag" }, "Most points"));
  return h("li", {}, h("button", {
    type: "button", class: `keep${best ? " best" : ""}`, "aria-pressed": selected ? "true" : "false",
    "data-keep": k.keep.join(","),
    onclick: () => { ui.selected = i; ui.picked = true; renderKeeps(client.game.state); } },
    h("span", { class: "kdesc" },
      h("span", {}, label, diceRow(k.keep, 36)),
      h("span", { class: "kcombos" }, describeKeep(k)),
      best && t.advice_pending && adviceI === null
        ? h("span", { class: "kcombos" }, "Advice: working it out…") : null,
      i === adviceI && adviceOf(t).reason
        ? h("span", { class: "advice" }, `${adviceLabel(t)}: ${adviceOf(t).reason}`)
        : (!best && adviceFor(t, k.keep) ? h("span", { class: "kcombos" }, adviceFor(t, k.keep)) : null)),
    h("span", { class: "kpts" }, fmt(k.points))));
}

function renderKeepsNow(st) {
  const t = st.turn;
  const throwKey = `${st.turn.number}:${t.throw.join(",")}:${client.version}`;
  const adviceI = adviceIndex(t);
  const bestI = adviceI ?? 0;
  if (ui.lastThrowKey !== throwKey) {
    ui.lastThrowKey = throwKey;
    ui.selected = bestI;
    ui.picked = false;
    ui.showAll = false;
  } else if (!ui.picked) {
    ui.selected = bestI; // the advice arrived after the throw: follow it until a tap
  }
  fill($("#thrown"), diceRow(t.throw, 44));
  const others = t.keeps.map((k, i) => i).filter((i) => i !== bestI);
  fill($("#keeps-best"), keepButton(t, t.keeps[bestI], bestI, true, adviceI));
  fill($("#keeps-other"), others.map((i) => keepButton(t, t.keeps[i], i, false, adviceI)));
  const more = $("#keeps-more");
  more.hidden = others.length === 0;
  const selectedHidden = ui.selected !== null && ui.selected !== bestI;
  const open = ui.showAll || selectedHidden;
  $("#keeps-other").hidden = !open;
  more.setAttribute("aria-expanded", String(open));
  more.textContent = open ? "Hide the other options" : `Show ${others.length} other option${others.length > 1 ? "s" : ""}`;

  const controls = client.canControl;
  const k = ui.selected === null ? null : t.keeps[ui.selected];
  const thr = $("#act-throw");
  const bank = $("#act-bank");
  if (!k) {
    thr.textContent = "Keep and throw";
    bank.textContent = "Keep and bank";
    thr.disabled = bank.disabled = true;
    $("#why-throw").textContent = "Choose the dice to keep first.";
    $("#why-bank").textContent = "Choose the dice to keep first.";
    return;
  }
  const rest = t.dice_left - k.keep.length;
  const next = rest === 0 ? handOf(client.game) : rest;
  const total = t.total + k.points;
  thr.textContent = rest === 0 ? `Hot dice! Keep and throw all ${next}` : `Keep and throw ${next}`;
  thr.disabled = !controls || ui.busy;
  $("#why-throw").textContent = controls ? "" : "This device is only watching.";
  bank.textContent = `Keep and bank ${fmt(total)}`;
  const advice = adviceOf(t);
  const advised = advice && ui.selected === adviceIndex(t) ? advice.action : null;
  if (advised === "bank") bank.textContent += " (advised)";
  if (advised === "roll" || advised === "throw") thr.textContent += " (advised)";
  // The advised action is the primary button; without advice, throwing on is.
  bank.classList.toggle("primary", advised === "bank");
  thr.classList.toggle("primary", advised !== "bank");
  // the server's words for keeping these dice and banking (t.keep_then_bank is parallel to t.keeps)
  const { refusal = null, warning = null } = (t.keep_then_bank || [])[ui.selected] || {};
  bank.disabled = !controls || Boolean(refusal) || ui.busy;
  $("#why-bank").textContent = !controls ? "This device is only watching."
    : sentence(refusal || warning);
}

// ---------- undo and redo ----------
// The Undo button names what it would take back; after an undo a bar says what was undone,
// with Redo, until the next action (the server's state.redoable).
function renderUndo(st) {
  const undo = $("#undo");
  const next = st.undoable;
  undo.disabled = !client.canControl || !next;
  undo.title = next ? `Undo: ${next.text} (u)` : "Nothing to undo";
  undo.setAttribute("aria-label", next ? `Undo: ${next.text}` : "Undo: nothing to undo");
  const done = st.redoable;
  $("#undo-bar").hidden = !done;
  if (!done) return;
  $("#undo-text").textContent = `Undid: ${done.text}`;
  const redo = $("#redo");
  redo.disabled = !client.canControl || ui.busy;
  redo.setAttribute("aria-label", `Redo: ${done.text}`);
}

// Each undo names the action it takes back (undoes: its version), as the player saw it. A
// second tap within UNDO_REPEAT_MS is the same undo again (a double tap): it names the same
// action, so the server refuses it and never takes back two. An undo tapped while another
// action is on its way names that action once it is done.
const UNDO_REPEAT_MS = 700;
const undoTap = { at: -Infinity, action: null };
function undoClick() {
  const st = client.game && client.game.state;
  if (!st) return Promise.resolve(false);
  const now = performance.now();
  if (now - undoTap.at >= UNDO_REPEAT_MS || !undoTap.action) {
    const later = ui.busy && ui.inflightKind !== "undo";
    undoTap.action = { type: "undo", undoes: later || !st.undoable ? null : st.undoable.version };
  }
  undoTap.at = now;
  return act([undoTap.action]);
}

// ---------- actions ----------
// One action at a time: a second tap while one is on its way is dropped (no double keeps),
// except Undo, which waits for it and then undoes what it names.
function act(actions) {
  if (!client.canControl) return Promise.resolve(false);
  if (ui.busy) {
    if (actions[0].type !== "undo") return Promise.resolve(false);
    return ui.inflight.then(() => act(actions));
  }
  ui.inflightKind = actions[actions.length - 1].type;
  ui.inflight = actNow(actions);
  return ui.inflight;
}

async function actNow(actions) {
  const start = { t: performance.now(), wall: Date.now() };
  ui.busy = true;
  say("");
  try {
    for (let i = 0; i < actions.length; i += 1) {
      const last = i === actions.length - 1;
      if (last) ui.pendingStart = start;
      ui.midway = !last;
      const a = actions[i];
      if (a.type === "undo" && a.undoes === null) {
        // named now: the latest action once the one before it is done (shared by a double tap)
        const next = client.game && client.game.state.undoable;
        if (!next) { say("Nothing to undo.", "ok"); return false; }
        a.undoes = next.version;
      }
      await client.act(a);
    }
    return true;
  } catch (err) {
    ui.pendingStart = null;
    const redo = actions[0].type === "redo";
    if (err.code === "stale_undo" && !redo) {
      const next = client.game && client.game.state.undoable;
      say(`Already undone (a second tap): nothing more was taken back.${next ? ` Tap Undo again to take back ${next.text}.` : ""}`, "ok");
    } else if (err.status === 409 && redo) {
      say("Nothing was redone: the game moved on after the undo (the page now shows it). Enter the action again if it is still wanted.");
    } else if (err.status === 409) {
      say("Another tablet acted first: the game has been reloaded. Check the screen and try again.");
      banner("The game changed on another device; this page now shows the latest state.", "info");
      setTimeout(() => { if (client.connected) banner(null); }, 4000);
    } else if (err.status === 401 || err.status === 403) {
      say(`${sentence(err.message)} This device cannot change the game.`);
    } else {
      say(sentence(err.message));
    }
    announce(err.message, true);
    return false;
  } finally {
    ui.busy = false;
    ui.midway = false;
    if (client.game) render(client.game, "local");
  }
}

$("#pad-submit").addEventListener("click", async () => {
  const dice = [...ui.entered];
  const source = ui.fromPhoto ? "camera" : "manual";
  if (await act([{ type: "throw", dice, source }])) ui.entered = [];
  if (client.game) render(client.game, "local");
});
$("#roll-btn").addEventListener("click", async () => {
  // the server rolls the dice not set aside; dice tapped on the pad give way to them
  if (await act([{ type: "roll" }])) ui.entered = [];
  if (client.game) render(client.game, "local");
});
$("#pass-take").addEventListener("click", () => act([{ type: "pass_choice", choice: "take_over" }]));
$("#pass-fresh").addEventListener("click", () => act([{ type: "pass_choice", choice: "fresh" }]));
$("#pad-back").addEventListener("click", () => { ui.entered.pop(); renderPad(client.game.state.turn); });
$("#pad-clear").addEventListener("click", () => { ui.entered = []; renderPad(client.game.state.turn); });
$("#photo-btn").addEventListener("click", () => $("#photo-input").click());
$("#photo-input").addEventListener("change", (e) => {
  const file = e.target.files && e.target.files[0];
  e.target.value = ""; // the same photo can be chosen again
  if (file) readPhoto(file);
});

// ---------- a photo of the dice (the phone's own camera app; no https needed) ----------
// A phone photo (12 megapixels or more) goes as a JPEG of at most PHOTO_SIDE pixels, turned
// as the phone was held; what the browser cannot decode (HEIC on some) goes as it is, and the
// server says what it is.
async function shrinkPhoto(file) {
  try {
    const bmp = await createImageBitmap(file, { imageOrientation: "from-image" });
    const k = Math.min(1, PHOTO_SIDE / Math.max(bmp.width, bmp.height));
    const c = document.createElement("canvas");
    c.width = Math.round(bmp.width * k);
    c.height = Math.round(bmp.height * k);
    c.getContext("2d").drawImage(bmp, 0, 0, c.width, c.height);
    bmp.close();
    return (await new Promise((res) => c.toBlob(res, "image/jpeg", 0.9))) || file;
  } catch {
    return file;
  }
}

// The dice read from the photo fill the pad, left to right, for the player to check and enter;
// nothing is recorded until they tap "Enter throw".
async function readPhoto(file) {
  if (!client.game || client.game.state.phase !== "throw" || ui.photoBusy) return;
  ui.photoBusy = true;
  renderPad(client.game.state.turn);
  try {
    const body = await shrinkPhoto(file);
    const left = client.game.state.turn.dice_left;
    let resp;
    try {
      resp = await fetch(`/api/camera/photo?dice_left=${left}`, {
        method: "POST", headers: { "Content-Type": body.type || "application/octet-stream" }, body, cache: "no-store",
      });
    } catch {
      say("The photo could not be sent: check the Wi-Fi, then try again, or tap the dice in.");
      return;
    }
    const data = await resp.json().catch(() => null);
    if (!resp.ok || !data) {
      const why = (data && data.message) || `the photo was not read (the server answered ${resp.status})`;
      say(`${why.charAt(0).toUpperCase()}${why.slice(1)}. Tap the dice in instead.`);
      return;
    }
    if (client.game.state.phase !== "throw") return; // the game moved on meanwhile (another tablet)
    const t = client.game.state.turn;
    if (data.count === 0) {
      say("No dice were found in the photo: take it from above, closer, in good light, or tap the dice in.");
    } else if (data.count > t.dice_left) {
      say(`${data.message}. Take a photo of the thrown dice alone, from straight above, or tap them in.`);
    } else {
      ui.entered = data.dice.map((d) => d.value);
      ui.doubt = data.dice.map((d) => Boolean(d.unsure));
      ui.fromPhoto = true;
      // dice seen at an angle are what the reader most often doubts or misreads (model card, Limits)
      const tip = ui.doubt.some(Boolean) ? " Next time, a photo from straight above reads best." : "";
      say(`${data.message}. Check them against the dice (tap one above to remove it), then enter the throw.${tip}`, "ok");
      announce(`Read from the photo: ${ui.entered.join(" ")}`);
    }
  } finally {
    ui.photoBusy = false;
    if (client.game && client.game.state.phase === "throw") renderPad(client.game.state.turn);
  }
}
$("#keeps-more").addEventListener("click", () => {
  ui.showAll = !($("#keeps-more").getAttribute("aria-expanded") === "true");
  if (!ui.showAll && ui.selected !== null) ui.selected = adviceIndex(client.game.state.turn) ?? 0;
  renderKeeps(client.game.state);
});

function selectedKeep() {
  const st = client.game && client.game.state;
  if (!st || st.phase !== "keep" || ui.selected === null) return null;
  return st.turn.keeps[ui.selected] || null;
}

$("#act-throw").addEventListener("click", () => {
  const k = selectedKeep();
  if (k) act([{ type: "keep", dice: k.keep }]);
});
$("#act-bank").addEventListener("click", () => {
  const st = client.game && client.game.state;
  if (!st) return;
  if (st.phase === "keep") {
    const k = selectedKeep();
    if (k) act([{ type: "keep", dice: k.keep }, { type: "bank" }]);
  } else {
    act([{ type: "bank" }]);
  }
});
$("#undo").addEventListener("click", () => { undoClick(); });
$("#redo").addEventListener("click", () => {
  const done = client.game && client.game.state.redoable;
  if (done) act([{ type: "redo", redoes: done.version }]);
});

$("#quick-toggle").addEventListener("change", (e) => {
  ui.quick = e.target.checked;
  try { localStorage.setItem(QUICK_KEY, ui.quick ? "1" : "0"); } catch { /* ignore */ }
  if (client.game) render(client.game, "local");
});
$("#quick-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const input = $("#quick-points");
  const n = Number(input.value);
  if (input.value === "" || !Number.isInteger(n) || n < 0 || n % 50) {
    say(`${input.value || "Nothing"} is not a turn's score: type a multiple of 50 (0 for a farkle).`);
    return;
  }
  act([{ type: "quick_score", points: n }]).then((ok) => { if (ok) input.value = ""; });
});
$("#quick-farkle").addEventListener("click", () => act([{ type: "quick_score", points: 0 }]));

// ---------- players joining and leaving, ending ----------
function renderTools(st) {
  const controls = client.canControl && !st.over;
  const active = st.players.filter((p) => p.active !== false);
  const select = $("#leave-who");
  const chosen = select.value;
  fill(select, active.map((p) => h("option", { value: p.name, selected: p.name === chosen }, p.name)));
  $("#join-submit").disabled = !controls || st.final_round || st.tie_break;
  $("#leave-submit").disabled = !controls || active.length < 2;
  $("#end-game").disabled = !controls;
  $("#adjust-open").hidden = !client.canControl || st.over;
}

$("#join-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const input = $("#join-name");
  const name = input.value.trim().replace(/\s+/g, " ");
  if (!name) { say("Type the new player's name first."); return; }
  if (await act([{ type: "join", name }])) input.value = "";
});
$("#leave-submit").addEventListener("click", () => {
  const who = $("#leave-who").value;
  if (who) act([{ type: "leave", player: who }]);
});
$("#end-game").addEventListener("click", (e) => {
  const button = e.currentTarget;
  if (button.dataset.armed !== "1") {
    button.dataset.armed = "1";
    button.textContent = "Tap again to end the game (the highest score wins)";
    setTimeout(() => { button.dataset.armed = ""; button.textContent = "End the game now"; }, 4000);
    return;
  }
  button.dataset.armed = "";
  button.textContent = "End the game now";
  act([{ type: "end" }]);
});

// ---------- a score adjusted by hand ----------
function openAdjust() {
  const st = client.game && client.game.state;
  if (!st || !client.canControl || st.over) return;
  const active = st.players.filter((p) => p.active !== false);
  fill($("#adjust-player"), active.map((p) => h("option", { value: p.name, selected: p.name === st.players[st.current].name }, p.name)));
  $("#adjust-points").value = "";
  $("#adjust-reason").value = "";
  $("#adjust-error").textContent = "";
  $("#adjust-dialog").showModal();
  $("#adjust-points").focus();
}
$("#adjust-open").addEventListener("click", openAdjust);
$("#adjust-cancel").addEventListener("click", () => $("#adjust-dialog").close());
for (const sel of ["#adjust-points", "#adjust-reason"]) {
  $(sel).addEventListener("input", () => { $("#adjust-error").textContent = ""; });
}
$("#adjust-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const raw = $("#adjust-points").value.trim();
  const points = Number(raw);
  const reason = $("#adjust-reason").value.trim();
  const error = $("#adjust-error");
  if (!raw || !Number.isInteger(points) || points === 0) {
    error.textContent = "Type a whole number of points, not 0: e.g. -1 to take a point away, 500 to add.";
    $("#adjust-points").focus();
    return;
  }
  if (!reason) {
    error.textContent = "Give a reason (the table sees it in the history), e.g. sang the farkle song.";
    $("#adjust-reason").focus();
    return;
  }
  error.textContent = "";
  const ok = await act([{ type: "adjust", player: $("#adjust-player").value, points, reason }]);
  if (ok) $("#adjust-dialog").close();
  else error.textContent = $("#message").textContent;
});

// ---------- keyboard ----------
document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const tag = (e.target && e.target.tagName) || "";
  if (["INPUT", "SELECT", "TEXTAREA"].includes(tag)) return;
  if (e.key === "Escape") { closeFlash(); return; }
  const st = client.game && client.game.state;
  if (!st) return;
  const onControl = ["BUTTON", "A", "SUMMARY"].includes(tag);
  if (/^[1-6]$/.test(e.key)) {
    const v = Number(e.key);
    if (st.phase === "throw" && !$("#pad-section").hidden) addDie(v);
    else if (st.phase === "keep") {
      const order = [...$("#keeps-best").querySelectorAll("button"), ...$("#keeps-other").querySelectorAll("button")];
      if (v - 1 < order.length) {
        if (v > 1) ui.showAll = true;
        order[v - 1].click();
      }
    }
    e.preventDefault();
  } else if (e.key === "Backspace" && st.phase === "throw") {
    ui.entered.pop(); renderPad(st.turn); e.preventDefault();
  } else if (e.key === "Enter" && !onControl && st.phase === "throw") {
    if (!$("#pad-submit").disabled) $("#pad-submit").click();
    e.preventDefault();
  } else if (e.key === " " && !onControl) {
    if (st.phase === "keep" && !$("#act-throw").disabled) $("#act-throw").click();
    else if (st.phase === "throw" && !$("#pad-submit").disabled) $("#pad-submit").click();
    e.preventDefault();
  } else if (e.key === "b" || e.key === "B") {
    if (!$("#act-bank").disabled && !$("#actions").hidden) $("#act-bank").click();
  } else if ((e.key === "t" || e.key === "T") && st.phase === "pass") {
    if (!$("#pass-take").disabled) $("#pass-take").click();
  } else if ((e.key === "f" || e.key === "F") && st.phase === "pass") {
    if (!$("#pass-fresh").disabled) $("#pass-fresh").click();
  } else if (e.key === "u" || e.key === "U") {
    if (!$("#undo").disabled) $("#undo").click();
  } else if ((e.key === "r" || e.key === "R") && st.phase === "throw") {
    if (!$("#pad-section").hidden && !$("#roll-btn").disabled) $("#roll-btn").click();
  } else if (e.key === "q" || e.key === "Q") {
    $("#quick-toggle").click();
  }
});

// ---------- start ----------
client.load().then((g) => { ui.shownVersion = g.version; client.stream(); }).catch((err) => {
  $("#loading").textContent = err.status === 404
    ? `There is no game ${gameId} on this server. Start one from the home page.`
    : sentence(err.message);
  if (err.status === 0) setTimeout(() => location.reload(), 3000);
});
