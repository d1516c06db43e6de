// Dice faces drawn as SVG, with the value as their accessible name.
import { s } from "./dom.js";

const PIPS = {
  1: [[50, 50]],
  2: [[28, 28], [72, 72]],
  3: [[28, 28], [50, 50], [72, 72]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]],
  5: [[28, 28], [72, 28], [50, 50], [28, 72], [72, 72]],
  6: [[28, 26], [72, 26], [28, 50], [72, 50], [28, 74], [72, 74]],
};
const NAMES = ["", "one", "two", "three", "four", "five", "six"];

/** An SVG die showing `value` (1-6), `size` px square. */
export function die(value, size = 48) {
  const svg = s("svg", {
    class: `die ${NAMES[value] || ""}`, viewBox: "0 0 100 100", width: size, height: size,
    role: "img", "aria-label": String(value),
  });
  svg.append(s("rect", { x: 4, y: 4, width: 92, height: 92, rx: 18 }));
  for (const [cx, cy] of PIPS[value] || []) svg.append(s("circle", { cx, cy, r: 9.5 }));
  return svg;
}

/** A row of dice. */
export function diceRow(values, size = 40) {
  const row = document.createElement("span");
  row.className = "dice-row";
  row.setAttribute("aria-label", `dice ${values.join(", ")}`);
  for (const v of values) row.append(die(v, size));
  return row;
}
