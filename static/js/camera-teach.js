// "Teach the camera your dice" in the play page's camera panel: lay every die showing 1 in the
// throwing area and tap "Read them as 1s", then 2s, ... up to 6s. The server keeps each die the
// camera sees with the face asked (POST /api/camera/teach), beside the dice players corrected;
// "Forget the taught dice" clears them. Teaching needs the game's control (a watching device
// only sees the counts).
import { h, fill, announce } from "./dom.js";
import { call, tokenFor } from "./api.js";

const FACES = 6;

/** The teach section for game ``gameId``: ``{ el, showFor(status) }``. */
export function teachSection(gameId) {
  const t = { face: 0, stats: null, busy: false, done: [] };
  const els = {};
  els.summary = h("p", { class: "muted", id: "teach-summary" }, "…");
  els.progress = h("p", { id: "teach-progress", role: "status" });
  els.result = h("p", { id: "teach-result", class: "teach-result" });
  els.start = h("button", { type: "button", id: "teach-start", onclick: begin }, "Start teaching");
  els.clear = h("button", { type: "button", id: "teach-clear", onclick: forget }, "Forget the taught dice");
  els.read = h("button", { type: "button", id: "teach-read", class: "primary", onclick: readFace }, "Read them");
  els.skip = h("button", { type: "button", id: "teach-skip", onclick: () => next(false) }, "Skip this face");
  els.stop = h("button", { type: "button", id: "teach-stop", onclick: end }, "Done");
  els.why = h("p", { class: "why", id: "teach-why" });
  els.steps = h("div", { class: "teach-steps", id: "teach-steps", hidden: true },
    els.progress, h("div", { class: "row" }, els.read, els.skip, els.stop));
  els.el = h("details", { class: "cam-teach", id: "cam-teach", hidden: true },
    h("summary", {}, "Teach the camera your dice"),
    h("p", { class: "muted" },
      "Show the camera your own dice face by face, and it keeps a picture of each with its value; so does every die you correct in its proposal."),
    els.summary,
    h("div", { class: "row" }, els.start, els.clear),
    els.steps, els.result, els.why);

  function canControl() {
    const client = window.scorekeeperClient;
    return Boolean(client && client.canControl);
  }

  function faceWord(f) { return `${f}s`; }

  function showStats(st) {
    t.stats = st;
    if (!st.enabled) {
      els.summary.textContent = "Teaching is switched off on this server.";
      els.start.disabled = els.clear.disabled = true;
      return;
    }
    const faces = Object.entries(st.faces).filter(([, n]) => n > 0).map(([f, n]) => `${n} ${faceWord(f)}`);
    const notDice = st.not_dice ? `, ${st.not_dice} ${st.not_dice === 1 ? "thing" : "things"} that ${st.not_dice === 1 ? "is" : "are"} not a die` : "";
    const use = {
      read: "The camera reads with them.",
      marks: "The camera marks a die \"?\" when they show it as another face, or as a thing that is not a die. (Reading with them marks fewer dice \"?\" on one set of plain dice but lets more mistakes through on mixed dice; the host can switch it on: scorekeeper serve --read-taught.)",
    }[st.adapt] || "They are kept; the camera reads as before.";
    els.summary.textContent = st.crops
      ? `Taught: ${st.crops} ${st.crops === 1 ? "die" : "dice"} (${faces.join(", ")}${notDice}). ${use}`
      : "Nothing taught yet.";
    els.clear.disabled = !st.crops || !canControl();
    els.start.disabled = !canControl() || t.face > 0;
    els.why.textContent = canControl() ? "" : "This device only watches this game: teaching needs the tablet that controls it.";
  }

  async function refresh() {
    try {
      showStats(await call("GET", "/api/camera/teach"));
    } catch { /* the camera status shows what is wrong */ }
  }

  function begin() {
    t.face = 1;
    t.done = [];
    els.result.textContent = "";
    step();
  }

  function step() {
    els.steps.hidden = false;
    els.start.disabled = true;
    const f = t.face;
    const so = t.done.length ? ` Done: ${t.done.join(", ")}.` : "";
    els.progress.textContent = `Step ${f} of ${FACES}: lay all your dice in the throwing area, each showing ${f}, then tap "Read them as ${faceWord(f)}".${so}`;
    els.read.textContent = `Read them as ${faceWord(f)}`;
    els.read.disabled = t.busy;
  }

  async function readFace() {
    const f = t.face;
    if (!f || t.busy) return;
    t.busy = true;
    els.read.disabled = true;
    try {
      const out = await call("POST", "/api/camera/teach", { face: f, game: gameId }, tokenFor(gameId));
      t.done.push(`${out.kept} ${out.kept === 1 ? "die" : "dice"} as ${faceWord(f)}`);
      els.result.textContent = out.message;
      announce(out.message);
      showStats(out.taught);
      t.busy = false;
      next(true);
    } catch (err) {
      t.busy = false;
      els.result.textContent = err.message;
      announce(err.message);
      els.read.disabled = false;
    }
  }

  function next() {
    if (t.face >= FACES) {
      end();
      return;
    }
    t.face += 1;
    step();
  }

  function end() {
    const done = t.done.length ? `Taught ${t.done.join(", ")}.` : "Nothing taught this time.";
    t.face = 0;
    els.steps.hidden = true;
    els.progress.textContent = "";
    els.result.textContent = done;
    announce(done);
    refresh();
  }

  async function forget() {
    if (!window.confirm("Forget every die the camera was taught at this table?")) return;
    try {
      const out = await call("POST", "/api/camera/teach/clear", { game: gameId }, tokenFor(gameId));
      els.result.textContent = out.message;
      announce(out.message);
      showStats(out.taught);
    } catch (err) {
      els.result.textContent = err.message;
    }
  }

  /** Show the section while a camera is on (not for "none" or an unstarted demo). */
  function showFor(status) {
    const on = status && status.kind !== "none" && !status.demo_available;
    const was = !els.el.hidden;
    els.el.hidden = !on;
    if (on && !was) refresh();
  }

  els.el.addEventListener("toggle", () => { if (els.el.open) refresh(); });
  return { el: els.el, showFor };
}
