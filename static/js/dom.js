// Small DOM helpers. Text always goes in through textContent: user data never becomes markup.

const SVG_NS = "http://www.w3.org/2000/svg";

function apply(el, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") el.textContent = String(value);
    else if (key === "class") el.setAttribute("class", value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** An HTML element: h("button", {class: "x", onclick: f}, "text", childNode). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  apply(el, attrs);
  return append(el, children);
}

/** An SVG element, same calling convention as h(). */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  apply(el, attrs);
  return append(el, children);
}

/** Replace an element's children. */
export function fill(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

export const $ = (sel, root = document) => root.querySelector(sel);

/** A number with thousands separators: 10,250. */
export function fmt(n) {
  return typeof n === "number" ? n.toLocaleString("en-US") : String(n ?? "");
}

/** Speak a line to screen readers (urgent lines interrupt). */
export function announce(text, urgent = false) {
  const el = document.getElementById(urgent ? "live-urgent" : "live");
  if (!el) return;
  el.textContent = "";
  // A new text node after a tick makes screen readers read repeated lines again.
  setTimeout(() => { el.textContent = text; }, 30);
}

/** Show the page banner ("error" or "info"); text null hides it. */
export function banner(text, kind = "error") {
  const el = document.getElementById("banner");
  if (!el) return;
  if (!text) { el.hidden = true; el.textContent = ""; return; }
  el.className = `banner ${kind}`;
  el.textContent = text;
  el.hidden = false;
}

/** The JSON the server embedded in the page. */
export function pageData() {
  const el = document.getElementById("page-data");
  return el ? JSON.parse(el.textContent) : {};
}
