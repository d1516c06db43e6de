// The play page's camera panel: the live picture with the dice the camera reads, a throwing
// area dragged on the picture, the camera's proposed throw to correct by tapping and to record
// with "Use this throw", and the tablet's own camera (getUserMedia, frames posted to the server).
// Manual entry on the dice pad stays available whatever the camera does.
import { $, h, fill, announce, pageData } from "./dom.js";
import { call, tokenFor } from "./api.js";
import { die } from "./dice.js";
import { handOf } from "./game-view.js";
import { teachSection } from "./camera-teach.js";

const panel = document.getElementById("camera-panel");
const gameId = pageData().game_id;
const POLL_MS = 300;
const STATUS_MS = 3000;
const cam = {
  status: null, // GET /api/camera
  proposal: null, // the proposal shown
  dice: [], // the dice shown, as the player corrected them
  origin: [], // for each of them, its index among the proposal's dice (-1: added by the player)
  removed: [], // indices among the proposal's dice of those the player removed
  unsure: [], // for each of them, whether the reader was unsure (only while uncorrected)
  done: new Set(), // proposals used or dismissed
  area: null,
  drag: null,
  tablet: null, // { stream, video, canvas, busy, timer }
  latest: null,
  acting: false, // "Use this throw" is being sent
  idle: true, // no game loaded (yet, or none by that id) or it is over: the panel is hidden, its live view stopped
  lastThrow: null, // { turn, dice, kept }: the game's last throw seen, and its keeps before it
};
window.scorekeeperCamera = cam;

document.head.append(h("link", { rel: "stylesheet", href: new URL("../css/camera.css", import.meta.url).href }));

const els = {};

function build() {
  els.status = h("span", { class: "cam-status" }, "…"); // no live region: the fps changes often
  els.banner = h("p", { class: "cam-banner", role: "alert", hidden: true });
  els.light = h("p", { class: "cam-light", id: "cam-light", role: "status", hidden: true });
  els.img = h("img", { class: "cam-img", alt: "Live camera picture with the dice the camera reads" });
  els.video = h("video", { class: "cam-video", playsinline: true, muted: true, hidden: true });
  els.boxes = h("canvas", { class: "cam-boxes", hidden: true, "aria-hidden": "true" });
  els.area = h("div", { class: "cam-area", hidden: true, "aria-hidden": "true" });
  els.drag = h("div", { class: "cam-drag", hidden: true, "aria-hidden": "true" });
  els.view = h("div", { class: "cam-view", id: "cam-view" }, els.img, els.video, els.boxes, els.area, els.drag);
  els.areaBtn = h("button", { type: "button", id: "cam-area-btn", onclick: startArea }, "Mark throwing area");
  els.wholeBtn = h("button", { type: "button", id: "cam-area-clear", onclick: () => sendArea(null) }, "Whole picture");
  els.tabletBtn = h("button", { type: "button", id: "cam-tablet", hidden: true, onclick: startTablet }, "Start this tablet's camera");
  els.demoBtn = h("button", { type: "button", id: "cam-demo", onclick: tryDemo }, "Try the demo camera");
  els.none = h("div", { class: "cam-none", id: "cam-none", hidden: true },
    h("p", { id: "cam-none-line" }, h("strong", {}, "No camera found."),
      " Tap the dice in on the pad. The demo camera throws pretend dice: for trying the app, not for a real game."),
    els.demoBtn);
  els.msg = h("span", { id: "cam-msg" });
  els.dice = h("div", { id: "cam-dice", class: "cam-dice", role: "group", "aria-label": "The camera's dice: tap one to change it" });
  els.use = h("button", { type: "button", id: "cam-use", class: "primary", onclick: useThrow }, "Use this throw");
  els.add = h("button", { type: "button", id: "cam-add", onclick: () => { cam.dice.push(1); cam.origin.push(-1); renderProposal(); } }, "+ die");
  els.dismiss = h("button", { type: "button", id: "cam-dismiss", onclick: dismiss }, "Dismiss");
  els.why = h("p", { class: "why", id: "cam-why" });
  els.leftover = h("p", { class: "cam-leftover", id: "cam-leftover", hidden: true },
    "These are the dice left lying from the last throw: throw them, and the camera reads the new throw.");
  els.waiting = h("p", { class: "muted", id: "cam-waiting", hidden: true },
    "The dice lying there were in the last throw: throw them, and the camera reads the new throw.");
  els.newer = h("p", { class: "muted", id: "cam-newer", hidden: true },
    "The camera has read a newer throw since: Dismiss this one to see it.");
  els.proposal = h("div", { class: "cam-proposal", id: "cam-proposal", hidden: true },
    h("p", {}, h("strong", {}, "The camera reads: "), els.msg),
    els.leftover,
    els.dice,
    h("p", { class: "muted cam-hint" }, "Tap a die to change its value; hold it (or right-click, or Delete) to remove it."),
    h("div", { class: "row" }, els.use, els.add, els.dismiss),
    els.why, els.newer);
  els.teach = teachSection(gameId);
  fill(panel,
    h("div", { class: "cam-head" }, h("h2", {}, "Camera"), els.status,
      h("span", { class: "cam-tools" }, els.tabletBtn, els.areaBtn, els.wholeBtn)),
    els.banner, els.none, els.light, els.view, els.waiting, els.proposal, els.teach.el);
  els.img.addEventListener("error", () => setTimeout(startStream, 2000));
}

// ---------- status and live view ----------
function game() { return window.scorekeeperClient && window.scorekeeperClient.game; }

function diceLeft() {
  const g = game();
  return g && g.state && g.state.turn ? g.state.turn.dice_left : null;
}

/** While the game waits for a throw, a key naming that moment (the game and its version): the
 * server offers only a proposal settled after it first saw the key (never the dice already
 * lying there), and each new key asks the built-in demo camera to throw the dice left. */
function throwKey() {
  const g = game();
  if (!g || !g.state || g.state.phase !== "throw" || !g.state.turn || !g.state.turn.dice_left) return "";
  return `&throw=${encodeURIComponent(`${gameId}:${g.version}`)}`;
}

function startStream() {
  // no camera: its view is hidden, and a stream would hold one of the server's few camera views
  if (!cam.status || cam.status.kind === "none" || cam.status.kind === "tablet" || cam.idle) return;
  els.img.src = `/api/camera/stream?t=${Date.now()}`;
}

function showStatus(st) {
  const first = cam.status === null;
  cam.status = st;
  const ok = st.status === "ok";
  const noCam = st.kind === "none";
  els.none.hidden = !st.demo_available;
  els.status.textContent = st.demo_available
    ? "No camera found"
    : noCam
    ? "off: tap the dice in on the pad, or read them from a photo"
    : `${ok ? "●" : "○"} ${st.source}${ok && st.fps ? ` · ${st.fps} fps` : ""}${ok && st.reads_per_s ? ` · reads ${st.reads_per_s}/s` : ""}`;
  els.status.title = st.reads_per_s
    ? `This machine reads the dice in ${st.reads_per_s} frames a second; the camera needs two reads that agree.`
    : "";
  els.status.className = `cam-status ${ok ? "ok" : noCam ? "" : "down"}`;
  if (ok || noCam) {
    els.banner.hidden = true;
  } else {
    showBanner(`Camera: ${st.message}. Enter the dice by tapping the pad meanwhile.`);
  }
  els.view.hidden = noCam;
  if (!cam.tablet) els.img.hidden = st.kind === "tablet";
  els.areaBtn.hidden = noCam;
  els.wholeBtn.hidden = noCam || !st.area || isWhole(st.area);
  els.tabletBtn.hidden = st.kind !== "tablet" || Boolean(cam.tablet);
  cam.area = st.area;
  drawArea();
  els.teach.showFor(st);
  if (first && !noCam) startStream();
}

/** Start the built-in demo camera (only offered where the server found no camera). */
async function tryDemo() {
  els.demoBtn.disabled = true;
  try {
    showStatus(await call("POST", "/api/camera/demo", {}));
    startStream();
    announce("The demo camera is on: it throws pretend dice whenever the game waits for a throw.");
  } catch (err) {
    showBanner(`Camera: ${err.message}`);
  } finally {
    els.demoBtn.disabled = false;
  }
}

/** Show a fault in the panel's banner (an alert: set only when the words change). */
function showBanner(text) {
  els.banner.hidden = false;
  if (els.banner.textContent !== text) els.banner.textContent = text;
}

async function refreshStatus() {
  try {
    showStatus(await call("GET", "/api/camera"));
  } catch (err) {
    showBanner(`Camera: ${err.message}`);
  }
}

async function poll() {
  if (!cam.status || cam.status.kind === "none" || cam.status.kind === "tablet" || cam.idle) return;
  const left = diceLeft();
  const query = left !== null ? `?dice_left=${left}${throwKey()}` : "";
  try {
    const latest = await call("GET", `/api/camera/latest${query}`);
    onReading(latest);
  } catch { /* the status poll shows the banner */ }
}

function onReading(r) {
  cam.latest = r;
  showLight(r.light || null);
  if (cam.status && r.status !== cam.status.status) refreshStatus();
  const p = r.proposal;
  els.waiting.hidden = !(r.before_throw && !cam.proposal);
  // a new reading replaces the proposal shown unless the player has started correcting it or
  // is recording it: the dice they tapped stay until they use or dismiss them
  const busy = cam.proposal && (cam.acting || corrected());
  const fresh = p && !cam.done.has(p.id);
  els.newer.hidden = !(fresh && busy && cam.proposal.id !== p.id);
  if (fresh && (!cam.proposal || (cam.proposal.id !== p.id && !busy))) {
    const client = window.scorekeeperClient;
    cam.proposal = { ...p, shownVersion: client ? client.version : -1 };
    cam.dice = [...p.dice];
    cam.origin = p.dice.map((_, i) => i);
    cam.removed = [];
    announce(`The camera reads ${p.dice.join(", ")}. ${p.message}.`);
    renderProposal();
  } else if (cam.proposal && cam.proposal.id === (p && p.id)) {
    cam.proposal = { ...cam.proposal, message: p.message, dice_left: p.dice_left, count_matches: p.count_matches };
    renderProposal();
  }
}

/** Advice on the picture's exposure (the server keeps it steady; set only when it changes). */
function showLight(text) {
  els.light.hidden = !text;
  if (text && els.light.textContent !== text) els.light.textContent = text;
}

// ---------- the proposal: correct and confirm ----------
function renderProposal() {
  const p = cam.proposal;
  els.proposal.hidden = !p;
  if (!p) {
    els.newer.hidden = true;
    return;
  }
  const left = diceLeft();
  const n = cam.dice.length;
  const changed = corrected();
  const noun = n === 1 ? "die" : "dice";
  // the dice the reader was unsure of, marked until the player changes anything
  cam.unsure = changed ? [] : (p.unsure || []);
  const doubts = cam.unsure.filter(Boolean).length;
  els.msg.textContent = changed
    ? `corrected to ${n} ${noun}${left !== null && left !== n ? `, ${left} ${left === 1 ? "is" : "are"} left to throw` : ""}.`
    : `${p.message}.${doubts ? ` Check the ${doubts === 1 ? "die" : `${doubts} dice`} marked ?: the camera is unsure.` : ""}`;
  // rebuild the buttons only when the dice change: a button replaced between a tap's press and
  // release loses the tap (and the old button's hold timer would still remove its die)
  const key = `${cam.dice.join(",")}|${cam.unsure.map(Number).join("")}`;
  if (els.dice.dataset.key !== key) {
    els.dice.dataset.key = key;
    fillDice();
  }
  const leftover = !changed && isLeftover(p.dice);
  els.leftover.hidden = !leftover;
  // nudged dice left lying are no throw: their button is no longer primary and says so
  els.use.classList.toggle("primary", !leftover);
  els.use.textContent = leftover ? "Use anyway (a new throw of the same dice)" : "Use this throw";
  const why = refusal(left, n);
  els.use.disabled = Boolean(why);
  els.why.textContent = why || "";
  els.add.disabled = n >= handOf(game());
}

/** Follow the game's throws: the dice of the last one thrown, and what its keep left lying. */
function noteThrows() {
  const g = game();
  const st = g && g.state;
  if (!st || !st.turn) return;
  if (st.phase === "keep" && st.turn.throw) {
    cam.lastThrow = { turn: st.turn.number, dice: [...st.turn.throw], kept: st.turn.kept.length };
  }
}

/** Whether ``dice`` (sorted) are exactly what the last keep left of the last throw: the dice
 * still lying there before the player throws them (a webcam proposes them once the kept ones
 * are picked up). A real throw of the same values is rare; the player can still use it. */
function isLeftover(dice) {
  const g = game();
  const st = g && g.state;
  const last = cam.lastThrow;
  if (!st || st.phase !== "throw" || !last || !st.turn || st.turn.number !== last.turn) return false;
  if (st.turn.kept.length !== last.kept + 1) return false; // one keep since that throw
  const rest = [...last.dice];
  for (const v of st.turn.kept[st.turn.kept.length - 1].keep) {
    const i = rest.indexOf(v);
    if (i < 0) return false;
    rest.splice(i, 1);
  }
  rest.sort((a, b) => a - b);
  return rest.length > 0 && rest.length === dice.length && rest.every((v, i) => v === dice[i]);
}

/** Whether the player has changed the dice of the proposal shown. */
function corrected() {
  const p = cam.proposal;
  return Boolean(p) && (cam.dice.length !== p.dice.length || cam.dice.some((v, i) => v !== p.dice[i]));
}

function fillDice() {
  fill(els.dice, cam.dice.map((v, i) => {
    const unsure = Boolean(cam.unsure[i]);
    const b = h("button", {
      type: "button",
      class: unsure ? "cam-die unsure" : "cam-die",
      "aria-label": `die ${i + 1}: ${v}, ${unsure ? "the camera is unsure: check it, " : ""}tap to change`,
    }, die(v, 44));
    b.addEventListener("click", () => { cam.dice[i] = (cam.dice[i] % 6) + 1; renderProposal(); });
    b.addEventListener("contextmenu", (e) => { e.preventDefault(); removeDie(i); });
    b.addEventListener("keydown", (e) => {
      if (e.key === "Delete" || e.key === "Backspace") { e.preventDefault(); e.stopPropagation(); removeDie(i); }
    });
    let hold = null;
    b.addEventListener("pointerdown", () => { hold = setTimeout(() => { hold = "done"; removeDie(i); }, 650); });
    b.addEventListener("pointerup", (e) => { if (hold === "done") e.preventDefault(); clearTimeout(hold); });
    return b;
  }));
}

function removeDie(i) {
  cam.dice.splice(i, 1);
  const [from] = cam.origin.splice(i, 1);
  if (from >= 0) cam.removed.push(from);
  renderProposal();
}

/** The player's corrections of the proposal's dice, for the camera to keep: [[index among the
 * proposal's dice, the value given]], 0 for a die removed (no die there). */
function corrections(p) {
  const out = cam.removed.map((i) => [i, 0]);
  cam.origin.forEach((i, k) => { if (i >= 0 && cam.dice[k] !== p.dice[i]) out.push([i, cam.dice[k]]); });
  return out;
}

function refusal(left, n) {
  const g = game();
  const client = window.scorekeeperClient;
  if (!g || !g.state) return "The game is still loading.";
  if (!client || !client.canControl) return "This device only watches this game.";
  if (g.state.phase === "over") return "The game is over.";
  if (g.state.phase !== "throw") return "Choose the dice to keep from the current throw first.";
  if (n === 0) return "Add the dice that were thrown.";
  if (left !== null && n !== left) {
    const need = `The throw needs exactly ${left} ${left === 1 ? "die" : "dice"}: tap + die or hold one to remove it.`;
    // more dice than are left, after a keep: most likely the kept ones, still in the picture
    const setAside = n > left && g.state.turn && g.state.turn.kept && g.state.turn.kept.length > 0;
    return setAside ? `${need} If the kept dice are in the picture, Mark throwing area to leave them out.` : need;
  }
  return null;
}

async function useThrow() {
  const p = cam.proposal;
  if (!p) return;
  const dice = [...cam.dice];
  const fixes = corrections(p);
  els.use.disabled = true;
  cam.acting = true;
  try {
    await window.scorekeeperClient.act({ type: "throw", dice, source: "camera" });
  } catch (err) {
    els.why.textContent = err.message;
    els.use.disabled = false;
    return;
  } finally {
    cam.acting = false;
  }
  finish(p, dice, fixes);
}

// The game moved on without this panel (another tablet, the dice pad, a keep, undo): the
// proposal is out of date. A throw typed on the pad is logged as what was recorded for it.
function dropIfStale() {
  const p = cam.proposal;
  const g = game();
  if (!p || cam.acting || !g || !g.state) return;
  if (p.shownVersion < 0) { p.shownVersion = g.version; return; }
  if (g.version <= p.shownVersion) return;
  const st = g.state;
  const ev = st.last_event || {};
  if (ev.type === "throw" && st.turn && st.turn.throw && st.turn.source !== "camera") {
    finish(p, [...st.turn.throw].sort((a, b) => a - b));
  } else {
    cam.done.add(p.id);
    cam.proposal = null;
    renderProposal();
  }
}

function dismiss() {
  if (cam.proposal) finish(cam.proposal, null);
}

function finish(p, recorded, fixes = []) {
  cam.done.add(p.id);
  cam.proposal = null;
  renderProposal();
  const body = { recorded, game: gameId };
  if (fixes.length && recorded) body.corrections = fixes;
  call("POST", `/api/camera/proposals/${encodeURIComponent(p.id)}`, body, tokenFor(gameId)).catch(() => {});
}

// ---------- the throwing area ----------
function isWhole(a) { return a.x0 === 0 && a.y0 === 0 && a.x1 === 1 && a.y1 === 1; }

function drawArea() {
  const a = cam.area;
  els.area.hidden = !a || isWhole(a);
  if (els.area.hidden) return;
  Object.assign(els.area.style, {
    left: `${a.x0 * 100}%`, top: `${a.y0 * 100}%`,
    width: `${(a.x1 - a.x0) * 100}%`, height: `${(a.y1 - a.y0) * 100}%`,
  });
}

function startArea() {
  els.view.classList.add("marking");
  els.areaBtn.textContent = "Drag over the throwing area…";
  els.areaBtn.disabled = true;
}

function frac(e) {
  const r = els.view.getBoundingClientRect();
  return [Math.min(1, Math.max(0, (e.clientX - r.left) / r.width)), Math.min(1, Math.max(0, (e.clientY - r.top) / r.height))];
}

els.onDown = (e) => {
  if (!els.view.classList.contains("marking")) return;
  e.preventDefault();
  els.view.setPointerCapture(e.pointerId);
  cam.drag = { start: frac(e), end: frac(e) };
  els.drag.hidden = false;
  moveDrag();
};
els.onMove = (e) => {
  if (!cam.drag) return;
  cam.drag.end = frac(e);
  moveDrag();
};
els.onUp = () => {
  if (!cam.drag) return;
  const [[ax, ay], [bx, by]] = [cam.drag.start, cam.drag.end];
  cam.drag = null;
  els.drag.hidden = true;
  els.view.classList.remove("marking");
  els.areaBtn.textContent = "Mark throwing area";
  els.areaBtn.disabled = false;
  if (Math.abs(bx - ax) < 0.05 || Math.abs(by - ay) < 0.05) return;
  sendArea({ x0: Math.min(ax, bx), y0: Math.min(ay, by), x1: Math.max(ax, bx), y1: Math.max(ay, by) });
};

function moveDrag() {
  const [[ax, ay], [bx, by]] = [cam.drag.start, cam.drag.end];
  Object.assign(els.drag.style, {
    left: `${Math.min(ax, bx) * 100}%`, top: `${Math.min(ay, by) * 100}%`,
    width: `${Math.abs(bx - ax) * 100}%`, height: `${Math.abs(by - ay) * 100}%`,
  });
}

async function sendArea(area) {
  try {
    const out = await call("POST", "/api/camera/area", area ? area : { area: null });
    cam.area = out.area;
    els.wholeBtn.hidden = out.whole;
    drawArea();
  } catch (err) {
    showBanner(`Throwing area: ${err.message}`);
  }
}

// ---------- the tablet's own camera ----------
async function startTablet() {
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    showBanner("This browser allows the camera only on https: start the server with --https (or open it on localhost). Enter the dice by tapping meanwhile.");
    return;
  }
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment", width: { ideal: 640 }, height: { ideal: 480 } }, audio: false });
  } catch (err) {
    showBanner(err && err.name === "NotAllowedError"
      ? "Camera permission was refused: allow it in the browser's site settings, or enter the dice by tapping."
      : `The tablet's camera cannot start (${err && err.name ? err.name : err}). Enter the dice by tapping.`);
    return;
  }
  els.img.hidden = true;
  els.video.hidden = false;
  els.boxes.hidden = false;
  els.video.srcObject = stream;
  await els.video.play().catch(() => {});
  cam.tablet = { stream, busy: false, grab: document.createElement("canvas"), wait: 80 };
  els.tabletBtn.hidden = true;
  stream.getVideoTracks().forEach((t) => t.addEventListener("ended", () => {
    cam.tablet = null;
    els.tabletBtn.hidden = false;
    showBanner("The tablet's camera stopped. Tap \"Start this tablet's camera\" again, or enter the dice by tapping.");
  }));
  sendFrame();
}

async function sendFrame() {
  const t = cam.tablet;
  if (!t) return;
  const v = els.video;
  if (v.videoWidth && !cam.idle) {
    const scale = Math.min(1, 640 / v.videoWidth);
    t.grab.width = Math.round(v.videoWidth * scale);
    t.grab.height = Math.round(v.videoHeight * scale);
    t.grab.getContext("2d").drawImage(v, 0, 0, t.grab.width, t.grab.height);
    const blob = await new Promise((res) => t.grab.toBlob(res, "image/jpeg", 0.75));
    const left = diceLeft();
    try {
      const resp = await fetch(`/api/camera/frame${left !== null ? `?dice_left=${left}${throwKey()}` : ""}`, {
        method: "POST", headers: { "Content-Type": "image/jpeg" }, body: blob, cache: "no-store",
      });
      const data = await resp.json().catch(() => null);
      if (resp.ok && data) {
        t.wait = 80;
        drawBoxes(data);
        onReading(data);
        if (cam.status && cam.status.status !== "ok") refreshStatus();
      } else if (resp.status === 429) {
        t.wait = Math.min(2000, t.wait * 2);
      } else if (data && data.message) {
        showBanner(`Camera: ${data.message}`);
        t.wait = 1000;
      }
    } catch {
      t.wait = 2000;
    }
  }
  setTimeout(sendFrame, t.wait);
}

function drawBoxes(r) {
  const c = els.boxes;
  c.width = r.width || 640;
  c.height = r.height || 480;
  const ctx = c.getContext("2d");
  ctx.clearRect(0, 0, c.width, c.height);
  ctx.lineWidth = 3;
  ctx.font = "bold 22px sans-serif";
  for (const [list, colour] of [[r.ignored || [], "#999"], [r.dice || [], r.proposal ? "#3c3" : "#fff"]]) {
    for (const d of list) {
      const [x0, y0, x1, y1] = d.box;
      const doubt = d.unsure && list === r.dice; // set-aside dice stay grey
      const c = doubt ? "#ffd24a" : colour; // amber: the reader is unsure
      const label = doubt ? `${d.value}?` : String(d.value);
      ctx.strokeStyle = c;
      ctx.strokeRect(x0, y0, x1 - x0, y1 - y0);
      ctx.fillStyle = c;
      ctx.fillRect(x0, Math.max(0, y0 - 24), 12 + 12 * label.length, 24);
      ctx.fillStyle = "#000";
      ctx.fillText(label, x0 + 5, Math.max(20, y0 - 4));
    }
  }
}

/** The panel shows once the game has loaded. A finished game needs no camera: the panel hides
 * and its live view stops (no stream to keep the tablet's radio busy); an undo that reopens the
 * game brings both back. A page for a game that is not there never shows it. */
function followGame() {
  const g = game();
  const idle = !(g && g.state && g.state.phase !== "over");
  if (idle === cam.idle) return;
  cam.idle = idle;
  panel.hidden = idle;
  if (idle) els.img.removeAttribute("src");
  else startStream();
}

// ---------- start ----------
if (panel) {
  build();
  els.view.addEventListener("pointerdown", els.onDown);
  els.view.addEventListener("pointermove", els.onMove);
  els.view.addEventListener("pointerup", els.onUp);
  els.view.addEventListener("pointercancel", els.onUp);
  refreshStatus();
  setInterval(refreshStatus, STATUS_MS);
  setInterval(poll, POLL_MS);
  // Re-check the "Use this throw" button whenever the game changes.
  setInterval(() => { followGame(); noteThrows(); dropIfStale(); if (cam.proposal) renderProposal(); }, 500);
  window.addEventListener("scorekeeper:state", () => { noteThrows(); followGame(); });
}
