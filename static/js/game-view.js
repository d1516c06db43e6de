// Words and checks shared by the play, board and history pages (pure functions of the state).
import { fmt, h } from "./dom.js";

/** The rules options of a game from the API (whatever the nesting). */
/** How many dice the game's turns throw: 5 under `dice=5` (a five-dice game), else 6. */
export function handOf(game) {
  return rulesOf(game).dice === 5 ? 5 : 6;
}

/** A whole hand in words: "five" or "six". */
export function handWord(n) {
  return n === 5 ? "five" : "six";
}

export function rulesOf(game) {
  const r = game && game.rules;
  if (r && typeof r.opening_minimum === "number") return r;
  if (r && r.rules && typeof r.rules === "object") return r.rules;
  if (r && r.options && typeof r.options === "object") return r.options;
  return { opening_minimum: 0, bank_minimum: 0, hot_dice: "optional", target: game?.state?.target };
}

/** The advisor's pick for the current throw as {keep, reason, action}, or null. */
export function adviceOf(turn) {
  const a = turn && turn.advice;
  if (!a || typeof a !== "object") return null;
  const best = a.best && typeof a.best === "object" ? a.best : a;
  const keep = Array.isArray(best.keep) ? best.keep : null;
  if (!keep) return null;
  const reason = best.reason || a.message || a.reason || "";
  return { keep, reason: String(reason), action: typeof best.action === "string" ? best.action : null };
}

const sameDice = (x, y) => [...x].sort().join(",") === [...y].sort().join(",");

/** The advisor's best line for one keep (its best action), or null. */
export function adviceFor(turn, keep) {
  const opts = turn && turn.advice && Array.isArray(turn.advice.options) ? turn.advice.options : [];
  const mine = opts.filter((o) => Array.isArray(o.keep) && sameDice(o.keep, keep) && o.allowed !== false);
  if (!mine.length) return null;
  mine.sort((x, y) => (y.value ?? 0) - (x.value ?? 0));
  return mine[0].reason || null;
}

/** A sentence: capital first letter, full stop at the end. */
export function sentence(text) {
  const s = String(text || "").trim();
  if (!s) return "";
  const t = s[0].toUpperCase() + s.slice(1);
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

const KINDS = { three_of_a_kind: "three", four_of_a_kind: "four", five_of_a_kind: "five", six_of_a_kind: "six" };
const NAMES = {
  straight: "straight 1-6", partial_straight: "partial straight", three_pairs: "three pairs",
  four_kind_pair: "four of a kind + a pair", two_triplets: "two triplets",
  full_house: "full house", triple_addon: "on the earlier triple",
};

/** "three 1s + single 5" for a keep's combinations. */
export function describeKeep(keep) {
  return (keep.combos || []).map((c) => {
    if (c.name === "single") return `single ${c.dice[0]}`;
    if (c.name === "triple_addon") return `${c.dice[0]} on the earlier triple`;
    if (KINDS[c.name]) return `${KINDS[c.name]} ${c.dice[0]}s`;
    return NAMES[c.name] || c.name.replace(/_/g, " ");
  }).join(" + ");
}

/** The banner text for a final round or tie-break, or null. */
export function finalRoundText(st) {
  const left = st.final_turns_left || [];
  const still = left.length ? ` Still to play: ${left.join(", ")}.` : "";
  if (st.final_round) {
    const lead = st.leader ? `${st.leader}'s ${fmt(st.to_beat)}` : fmt(st.to_beat);
    const out = st.players.filter((p) => p.out).map((p) => p.name);
    const gone = out.length ? ` Out: ${out.join(", ")}.` : "";
    return `Final round! Beat ${lead}.${still}${gone}`;
  }
  if (st.tie_break) return `Tie-break! Score to beat: ${fmt(st.to_beat)}.${still}`;
  return null;
}

/** The teams by total, highest first, and a line on the team standing ("Team Red leads with
 * 1,650.", at the end "Team Red has the highest total: 1,650.", "Red and Blue are level on
 * 1,100."), or null without teams. */
export function teamStanding(st) {
  if (!st.teams || !st.teams.length) return null;
  const teams = [...st.teams].sort((a, b) => b.score - a.score);
  const top = teams[0].score;
  const leaders = teams.filter((t) => t.score === top).map((t) => t.name);
  let line;
  const won = st.over && Array.isArray(st.team_winners) ? st.team_winners : [];
  if (teams.length > 1 && won.length === 1) line = `Team ${won[0]} wins with ${fmt(top)}.`;
  else if (teams.length === 1) line = `Team ${leaders[0]}: ${fmt(top)}.`;
  else if (leaders.length > 1) {
    const names = `${leaders.slice(0, -1).join(", ")} and ${leaders[leaders.length - 1]}`;
    line = `Teams ${names} are level on ${fmt(top)}.`;
  } else {
    line = st.over ? `Team ${leaders[0]} has the highest total: ${fmt(top)}.` : `Team ${leaders[0]} leads with ${fmt(top)}.`;
  }
  return { teams, leaders, line };
}

/** "Teams: Red 1,200 (Ann + Bob) · Blue 900 (Cy)" or null. */
export function teamsText(st) {
  if (!st.teams || !st.teams.length) return null;
  return "Teams: " + st.teams.map((t) => `${t.name} ${fmt(t.score)} (${t.members.join(" + ")})`).join(" · ");
}

function lastThrow(st) {
  const last = (st.history || [])[st.history.length - 1];
  const throws = (last && last.throws) || [];
  return throws[throws.length - 1] || null;
}

/** The full-screen flash for the latest event, or null. */
export function eventFlash(st) {
  const ev = st.last_event || {};
  const all = ev.all || [ev.type];
  const text = ev.message || "";
  const farkle = all.includes("farkle") || all.includes("farkle_penalty") || all.includes("farkle_kept");
  // a game won (or tied) on the last turn's farkle or toxic twos flashes the winner
  const how = farkle ? "A farkle on the last turn. " : all.includes("toxic_twos") ? "Toxic twos on the last turn. " : "";
  if (all.includes("win")) return { kind: "good", big: "★ WINNER! ★", text: how + text, ms: 3000 };
  if (all.includes("tie_break")) return { kind: "good", big: "TIE-BREAK!", text: how + text, ms: 3000 };
  if (farkle) {
    const th = lastThrow(st);
    if (th && Array.isArray(th.dice) && th.dice.length === 6 && th.result === "farkle") {
      return {
        kind: "party", big: "SIX-DIE FARKLE!", ms: 5000,
        text: `Everybody: hands in the air, wiggle back and forth and sing “SIX-DIE FARKLE!” ${text}`,
      };
    }
    return { kind: "", big: "FARKLE!", text, ms: 2500 };
  }
  if (all.includes("toxic_twos")) return { kind: "", big: "TOXIC TWOS!", text, ms: 3000 };
  if (all.includes("six_dice_bonus")) return { kind: "good", big: "SIX-DICE BONUS!", text, ms: 2500 };
  if (all.includes("final_round")) return { kind: "good", big: "FINAL ROUND!", text, ms: 3000 };
  if (all.includes("hot_dice")) return { kind: "good", big: "HOT DICE!", text, ms: 1500 };
  return null;
}

/** One line for a finished turn of the history. */
export function turnLine(turn) {
  const line = turnWords(turn);
  const took = turn.took_over;
  return took ? `${line} (took over ${took.from}'s ${fmt(took.total)})` : line;
}

/** The ranked final standings as an ordered list ("1st Ann 10,200", tied players share a
 * place), or null before the game is over. */
export function standingsList(st) {
  if (!st.over || !Array.isArray(st.standings)) return null;
  return h("ol", { class: "standings", "aria-label": "Final standings" }, st.standings.map((s) =>
    h("li", { class: s.winner ? "winner" : "" },
      h("span", { class: "place" }, s.place), " ",
      h("span", { class: "sname", title: s.name }, s.name), " ",
      h("span", { class: "sscore" }, fmt(s.score)))));
}

/** The recorded roll-off for the first player in words, or null. */
export function rolloffText(st) {
  const r = st.rolloff;
  if (!r || !Array.isArray(r.rounds)) return null;
  const rounds = r.rounds.map((round, k) => {
    const throws = Object.entries(round).map(([name, d]) => `${name} ${d}`).join(", ");
    return k ? `tie: ${throws}` : throws;
  });
  return `Roll-off for the first player: ${rounds.join("; ")}; ${r.first} started.`;
}

function turnWords(turn) {
  // the server's one wording of a turn's result (the CSV and JSON exports say the same)
  if (turn.result) {
    if (turn.outcome === "left") return `${turn.player} left the game`;
    return `${turn.player}: ${turn.result} → ${fmt(turn.score)}`;
  }
  const pts = fmt(turn.points);
  switch (turn.outcome) {
    case "bank": return `${turn.player} banked ${pts} → ${fmt(turn.score)}`;
    case "quick_score": return `${turn.player} scored ${pts} → ${fmt(turn.score)}`;
    case "farkle": return turn.banked < 0
      ? `${turn.player} farkled (3rd in a row: ${fmt(turn.banked)}) → ${fmt(turn.score)}`
      : `${turn.player} farkled${turn.points ? `, losing ${pts}` : ""}`;
    case "toxic_twos": return `${turn.player}: toxic twos, score wiped → ${fmt(turn.score)}`;
    case "overshoot": return `${turn.player} overshot: ${turn.note || ""}`;
    case "farkle_kept": return `${turn.player} farkled but kept ${pts} → ${fmt(turn.score)}`;
    case "six_ones": return `${turn.player} threw six 1s and won`;
    case "left": return `${turn.player} left the game`;
    default: return `${turn.player}: ${turn.outcome} ${pts}`;
  }
}
