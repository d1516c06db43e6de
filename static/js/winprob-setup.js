// The fair handicap on the setup page (added by scorekeeper/web/api_winprob.py): for two
// players of equal skill, the starting points for the second player that make the game
// fairest, for the rules chosen on the form. Rules already solved answer at once; others can
// be worked out on request (about a minute, then cached for every later game).

import { $, h, fill, pageData } from "./dom.js";

const OPTIONS = (pageData().options || {}).options || [];
const RETRY_MS = 3000;
const form = $("#setup");
const anchor = $("#options-box") || $("#presets");

const box = h("p", { id: "winprob-fair", class: "note", "aria-live": "polite" });
if (anchor) anchor.after(box);

let asked = "";
let timer = null;

function query() {
  const preset = (document.querySelector('input[name="preset"]:checked') || {}).value || "standard";
  const params = new URLSearchParams({ rules: preset });
  for (const opt of OPTIONS) {
    const el = document.getElementById(`opt-${opt.name}`);
    if (!el) continue;
    // a number the form refuses (out of range, not a step of 50): no question to ask yet
    if (opt.kind !== "bool" && el.validity && !el.validity.valid) return null;
    const value = opt.kind === "bool" ? String(el.checked) : el.value;
    if (value !== "") params.append("set", `${opt.name}=${value}`);
  }
  return params.toString();
}

function players() {
  return document.querySelectorAll("#players > li").length;
}

// "Start Bob on 300 points": a checkbox that sets (or clears) the second player's starting
// score on the form (setup.js listens for the event and sends start_scores).
function applyControl(points) {
  const rows = document.querySelectorAll("#players > li");
  if (rows.length !== 2 || !points) return null;
  const name = (rows[1].querySelector("input.name") || {}).value?.trim() || "the second player";
  const start = rows[1].querySelector("input.start");
  const on = Boolean(start) && Number(start.value) === points;
  const input = h("input", { type: "checkbox", id: "winprob-apply", checked: on,
    onchange: (e) => form.dispatchEvent(new CustomEvent("sk-start-score",
      { detail: { seat: 1, points: e.target.checked ? points : 0 } })) });
  return h("label", { class: "apply-handicap" }, " ", input, ` Start ${name} on ${points} points`);
}

async function ask(solve = false) {
  clearTimeout(timer);
  const q = query();
  asked = q;
  if (q === null) { fill(box); return; }
  let data;
  try {
    const resp = await fetch(`/api/winprob?${q}&solve=${solve ? 1 : 0}`);
    data = await resp.json();
    if (!resp.ok) { fill(box); return; }
  } catch {
    return;
  }
  if (q !== asked) return;
  const two = players() === 2 ? "" : " (for two players)";
  if (data.available) {
    const pct = (100 * data.p_first).toFixed(1);
    fill(box, `Fair handicap${two}: start the second player on ${data.fair_compensation} points. `
      + `Without it the first player wins ${pct}% of games between equals.`,
      applyControl(data.fair_compensation));
  } else if (data.status === "solving") {
    fill(box, `Fair handicap${two}: working it out for these rules…`);
    timer = setTimeout(() => ask(false), RETRY_MS);
  } else if (data.status === "not_solved") {
    fill(box, `Fair handicap${two}: `,
      h("button", { type: "button", onclick: () => ask(true) }, "Work it out (about a minute)"));
  } else {
    fill(box, h("span", { class: "muted" }, `No fair handicap: ${data.reason}`));
  }
}

function later() {
  clearTimeout(timer);
  timer = setTimeout(() => ask(false), 300);
}

if (form && anchor) {
  form.addEventListener("change", later);
  form.addEventListener("click", (e) => { if (e.target.closest && e.target.closest(".preset, #reset-options, #add-player, .player-row button, #rolloff button")) later(); });
  later();
}
