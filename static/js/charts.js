// Small SVG line charts (the review card and the players page). Text goes in as text nodes.

import { s } from "./dom.js";

const W = 320;
const H = 160;
const PAD = { left: 44, right: 8, top: 10, bottom: 22 };

/**
 * A line chart: lines = [{label, points: [[x, y], ...], dashed, cls}], with axis labels.
 * yZero draws the y = 0 line (for luck). Returns an <svg> element with a <title>.
 */
export function lineChart(title, lines, { xLabel = "", yZero = false } = {}) {
  const all = lines.flatMap((l) => l.points);
  const xs = all.map((p) => p[0]);
  const ys = all.map((p) => p[1]);
  if (yZero) ys.push(0);
  const x0 = Math.min(...xs, 0);
  const x1 = Math.max(...xs, 1);
  const y0 = Math.min(...ys, 0);
  const y1 = Math.max(...ys, 1);
  const sx = (x) => PAD.left + ((x - x0) / (x1 - x0 || 1)) * (W - PAD.left - PAD.right);
  const sy = (y) => H - PAD.bottom - ((y - y0) / (y1 - y0 || 1)) * (H - PAD.top - PAD.bottom);
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img" },
    s("title", {}, title));
  svg.append(
    s("line", { x1: PAD.left, y1: sy(y0), x2: W - PAD.right, y2: sy(y0), class: "axis" }),
    s("line", { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: H - PAD.bottom, class: "axis" }),
    s("text", { x: PAD.left - 4, y: sy(y1) + 4, "text-anchor": "end", class: "tick" }, Math.round(y1).toLocaleString("en-US")),
    s("text", { x: PAD.left - 4, y: sy(y0), "text-anchor": "end", class: "tick" }, Math.round(y0).toLocaleString("en-US")),
    s("text", { x: W - PAD.right, y: H - 4, "text-anchor": "end", class: "tick" }, xLabel),
  );
  if (yZero && y0 < 0) {
    svg.append(s("line", { x1: PAD.left, y1: sy(0), x2: W - PAD.right, y2: sy(0), class: "zero" }));
  }
  lines.forEach((line, i) => {
    if (!line.points.length) return;
    const d = line.points.map(([x, y], j) => `${j ? "L" : "M"}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(" ");
    svg.append(s("path", {
      d,
      class: `series s${i % 6}${line.dashed ? " dashed" : ""}${line.cls ? ` ${line.cls}` : ""}`,
      "data-label": line.label,
    }, s("title", {}, line.label)));
    for (const [x, y] of line.points) {
      svg.append(s("circle", { cx: sx(x).toFixed(1), cy: sy(y).toFixed(1), r: 2.5, class: `dot s${i % 6}` }));
    }
  });
  return svg;
}
