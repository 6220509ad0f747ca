// tablehost display: the live stream, the PIN pad and actions, and drawing helpers shared by the pages.
"use strict";
const TH = window.tablehost = { messages: [], seq: null, source: null, view: null, render: null };

function $(selector, root) { return (root || document).querySelector(selector); }
function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "text") node.textContent = value; else if (key === "class") node.className = value;
    else if (key === "style") Object.assign(node.style, value);  // properties, never a style attribute: the CSP forbids those
    else node.setAttribute(key, value);
  }
  for (const child of children || []) node.append(child);
  return node;
}
const SVG_NS = "http://www.w3.org/2000/svg";
function svg(tag, attrs, children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "text") node.textContent = value; else node.setAttribute(key, value);
  }
  for (const child of children || []) node.append(child);
  return node;
}

// -- the live stream: SSE, id = <epoch>.<journal seq>; the browser reconnects with Last-Event-ID -
function follow(view, render, lastId) {
  TH.view = view; TH.render = render;
  const query = lastId == null ? "" : `&last_event_id=${encodeURIComponent(lastId)}`;
  const source = new EventSource(`/api/stream?view=${view}${query}`);
  source.onopen = () => { document.body.dataset.connected = "true"; };
  source.onerror = () => { document.body.dataset.connected = "false"; };
  source.onmessage = (event) => {
    const message = JSON.parse(event.data);
    const id = event.lastEventId;
    TH.messages.push({ id: Number(id.slice(id.indexOf(".") + 1)), data: message });
    TH.lastId = id; TH.seq = message.seq;
    render(message);
    document.body.dataset.seq = String(message.seq);
  };
  TH.source = source;
}
// Drop the stream and follow again from the last update seen (what a dropped connection does).
TH.reconnect = () => { TH.source.close(); follow(TH.view, TH.render, TH.lastId); };
TH.disconnect = () => { TH.source.close(); document.body.dataset.connected = "false"; };

// -- actions: every one asks for a PIN; the server decides whose it is ---------------------------
let pending = null;
function act(command, args, label, supervisor) {
  pending = { command, args: args || null };
  $("#pin-title").textContent = label || command.replace(/_/g, " ");
  $("#pin-who").textContent = supervisor ? "Supervisor PIN" : "Dealer PIN";
  $("#pin").value = ""; $("#pin-error").textContent = "";
  $("#pin-modal").classList.add("open"); $("#pin").focus();
}
async function sendAction() {
  if (!pending) return;
  const body = { ...pending, pin: $("#pin").value };
  const response = await fetch("/api/action", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const answer = await response.json();
  if (response.status === 202) {
    $("#pin-modal").classList.remove("open"); pending = null;
    toast(`${answer.accepted.replace(/_/g, " ")}: sent (${answer.by})`);
  } else {
    $("#pin-error").textContent = answer.error; $("#pin").value = "";
  }
}
function setupPinPad() {
  // The PIN pad (touch: a key pad; keyboard: type and Enter) and the line that says what was sent.
  const keys = el("div", { class: "keys", id: "pin-keys" });
  document.body.append(
    el("div", { class: "modal", id: "pin-modal" }, [el("div", { class: "pad" }, [el("h3", { id: "pin-title" }), el("p", { id: "pin-who" }),
      el("input", { id: "pin", type: "password", inputmode: "numeric", autocomplete: "off" }), keys, el("div", { class: "error", id: "pin-error" })])]),
    el("div", { class: "toast", id: "toast" }));
  for (const key of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "cancel", "0", "ok"]) {
    const button = el("button", { type: "button", text: key === "cancel" ? "\u2715" : key === "ok" ? "OK" : key, "data-key": key });
    if (key === "ok") button.className = "ok"; if (key === "cancel") button.className = "cancel";
    button.onclick = () => {
      if (key === "ok") sendAction();
      else if (key === "cancel") { $("#pin-modal").classList.remove("open"); pending = null; }
      else $("#pin").value += key;
    };
    keys.append(button);
  }
  $("#pin").addEventListener("keydown", (event) => { if (event.key === "Enter") sendAction(); });
}
function toast(text) {
  const box = $("#toast"); box.textContent = text; box.classList.add("show");
  clearTimeout(toast.timer); toast.timer = setTimeout(() => box.classList.remove("show"), 2500);
}

// -- shared views ---------------------------------------------------------------------------
function renderHeader(state) {
  $("#table-id").textContent = state.table;
  $("#round").textContent = state.round == null ? "\u2013" : state.round;
  const lamp = $("#lamp"); lamp.dataset.colour = state.lamp; $("#lamp-word").textContent = state.lamp;
  const banner = $("#banner");  // the table stopped: its journal cannot be written
  if (banner) { banner.hidden = !state.banner; banner.textContent = state.banner || ""; }
  const mark = $("#clock-mark"); if (mark) mark.hidden = state.synchronised !== false;  // rounds marked so too
}
// Most severe first, then newest first: on a small screen the alerts that fold away are the
// least severe, never a fault behind newer warnings.
const SEVERITY_RANK = { fault: 0, attention: 1, warning: 2 };
function renderAlerts(state) {
  const box = $("#alerts"); box.replaceChildren();
  const rank = (alert) => SEVERITY_RANK[alert.severity] ?? 1;
  const shown = state.alerts.map((alert, age) => ({ alert, age })).sort((a, b) => rank(a.alert) - rank(b.alert) || b.age - a.age);
  for (const { alert } of shown) {
    box.append(el("div", { class: "alert", "data-severity": alert.severity, "data-code": alert.code, text: alert.text }));
  }
  if (!state.alerts.length) box.append(el("div", { class: "legend", text: "no open alerts" }));
}
function renderDevices(state) {
  const box = $("#devices"); box.replaceChildren();
  for (const [name, device] of Object.entries(state.devices)) {
    const ok = device.online && !device.refusal;
    const detail = device.refusal ? device.refusal : device.online ? `${device.model || ""} fw ${device.firmware || "?"}` : "offline";
    box.append(el("div", { class: "device", "data-ok": String(ok), "data-device": name },
      [el("i"), el("b", { text: name }), el("small", { text: detail })]));
  }
}
function renderLog(state) {
  $("#log").replaceChildren(...state.log.slice(-5).reverse().map((line) => el("div", { text: line })));
}
function age(since) {
  if (since == null) return "\u2013";
  const seconds = Math.max(0, Math.floor(Date.now() / 1000 - since));
  const h = Math.floor(seconds / 3600), m = Math.floor(seconds / 60) % 60, s = seconds % 60;
  return `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`;
}
function money(cents) { return "$" + (cents / 100).toLocaleString("en-US", { maximumFractionDigits: 0 }); }
function renderLimits(limits) {
  const box = $("#limits"); if (!box) return;
  box.replaceChildren(...(limits ? [el("span", { text: "MIN " }), el("b", { text: money(limits.min) }),
    el("span", { text: "   MAX " }), el("b", { text: money(limits.max) })] : []));
}

// -- a Pai Gow tile ("a-b") and a die, drawn with their pips ---------------------------------
const PIPS = { 1: [[.5, .5]], 2: [[.28, .28], [.72, .72]], 3: [[.25, .25], [.5, .5], [.75, .75]],
  4: [[.28, .28], [.72, .28], [.28, .72], [.72, .72]], 5: [[.27, .27], [.73, .27], [.5, .5], [.27, .73], [.73, .73]],
  6: [[.28, .22], [.72, .22], [.28, .5], [.72, .5], [.28, .78], [.72, .78]] };
function tileSvg(text, size) {
  const [a, b] = text.split("-").map(Number); const w = size || 44, h = w * 2;
  const node = svg("svg", { width: w, height: h, viewBox: "0 0 100 200", class: "tile", "data-tile": text });
  node.append(svg("rect", { x: 3, y: 3, width: 94, height: 194, rx: 14, fill: "#141414", stroke: "#d9b44a", "stroke-width": 4 }));
  node.append(svg("line", { x1: 12, y1: 100, x2: 88, y2: 100, stroke: "#d9b44a", "stroke-width": 3 }));
  [[a, 0], [b, 100]].forEach(([n, top]) => {
    for (const [x, y] of PIPS[n]) {
      const red = n === 1 || n === 4;
      node.append(svg("circle", { cx: 100 * x, cy: top + 100 * y, r: n === 1 ? 15 : 10, fill: red ? "#e0393e" : "#f5f1e6" }));
    }
  });
  return node;
}
function dieSvg(n, size) {
  const s = size || 64;
  const node = svg("svg", { width: s, height: s, viewBox: "0 0 100 100", class: "die", "data-die": n });
  node.append(svg("rect", { x: 4, y: 4, width: 92, height: 92, rx: 16, fill: "#fdfdf8", stroke: "#0006", "stroke-width": 3 }));
  for (const [x, y] of PIPS[n] || []) node.append(svg("circle", { cx: 100 * x, cy: 100 * y, r: 9, fill: n === 1 || n === 4 ? "#c8102e" : "#111" }));
  return node;
}
