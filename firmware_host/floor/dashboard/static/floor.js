// tablehost floor dashboard: the floor map (one tile per table, keyed by table id) and a table's
// drill-down. Updates come by SSE: the server sends one batch of changed tiles per pass; the page
// gathers them and draws once per animation frame, touching only the tiles that changed.
"use strict";
const FLOOR = window.floor = { tiles: new Map(), pending: new Map(), scheduled: false, frames: 0, batches: 0, firstDrawn: null,
  drawMs: 0, maxDrawMs: 0 };

function make(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text != null) made.textContent = text;
  return made;
}
function cents(value) { return value == null ? "–" : (value < 0 ? "-$" : "$") + Math.abs(value / 100).toLocaleString("en-US", { maximumFractionDigits: 0 }); }
function alertText(alert) { return alert.text ? `${alert.code}: ${alert.text}` : alert.code; }
function lag(seconds) { return seconds == null ? "lag –" : `lag ${seconds < 10 ? seconds.toFixed(1) : seconds.toFixed(0)} s`; }
async function who() {
  const response = await fetch("/api/me");
  if (response.status === 401) {  // no session (or it ended): the login page, then back here
    location.assign(`/login?next=${encodeURIComponent(location.pathname)}`);
    return;
  }
  const me = await response.json();
  const logout = make("button", "logout", "log out");
  logout.addEventListener("click", async () => { await fetch("/api/logout", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" }); location.assign("/login"); });
  document.getElementById("who").replaceChildren(`${me.user} · ${me.role} `, logout);
  document.body.dataset.role = me.role;
}

// -- the live stream ------------------------------------------------------------------------------
function follow(onBatch) {
  const source = new EventSource("/api/stream");
  source.onopen = () => { document.body.dataset.connected = "true"; };
  source.onerror = () => {
    document.body.dataset.connected = "false";
    if (source.readyState === EventSource.CLOSED) who();  // refused (a session ended): log in again
  };
  source.onmessage = (event) => { FLOOR.batches += 1; onBatch(JSON.parse(event.data)); };
  FLOOR.source = source;
}

// -- the map: keyed tiles, drawn once a frame -------------------------------------------------------
function queueTiles(batch) {
  for (const tile of batch.tiles) FLOOR.pending.set(tile.table, tile);
  if (!FLOOR.scheduled) { FLOOR.scheduled = true; requestAnimationFrame(drawPending); }
}
function drawPending() {
  const started = performance.now();
  FLOOR.scheduled = false;
  const pending = FLOOR.pending; FLOOR.pending = new Map();
  const added = [];
  for (const tile of pending.values()) {
    let entry = FLOOR.tiles.get(tile.table);
    if (!entry) { entry = newTile(tile.table); FLOOR.tiles.set(tile.table, entry); added.push(entry); }
    drawTile(entry, tile);
  }
  if (added.length) placeTiles(added);
  drawCounts(); applyFilter(added);
  FLOOR.frames += 1;
  document.body.dataset.frames = String(FLOOR.frames);
  setData(document.body, "tiles", String(FLOOR.tiles.size));
  if (FLOOR.firstDrawn == null && FLOOR.tiles.size) FLOOR.firstDrawn = performance.now();
  const took = performance.now() - started;
  FLOOR.drawMs += took; FLOOR.maxDrawMs = Math.max(FLOOR.maxDrawMs, took);
}
// a DOM write only where the value differs: a tile whose lag alone changed touches one line
function setText(node, text) { if (node.textContent !== text) node.textContent = text; }
function setData(node, name, value) { if (node.dataset[name] !== value) node.dataset[name] = value; }
function newTile(id) {
  const node = make("a", "tile"); node.href = `/table/${encodeURIComponent(id)}`; node.dataset.table = id;
  const top = make("div", "top"); top.append(make("span", "id", id), make("span", "game", ""));
  const parts = { game: top.lastChild, where: make("div", "line"), last: make("div", "line last"), lag: make("div", "line"),
    flags: make("div", "flags"), alert: make("div", "alert-text") };
  node.append(top, parts.where, parts.last, parts.lag, parts.flags, parts.alert);
  return { id, node, parts, tile: null };
}
function placeTiles(added) {
  // the map stays in table order: new tiles go where their id sorts
  const map = document.getElementById("map");
  const ids = [...FLOOR.tiles.keys()].sort();
  FLOOR.tiles = new Map(ids.map((id) => [id, FLOOR.tiles.get(id)]));
  if (added.length === FLOOR.tiles.size) { const all = document.createDocumentFragment(); for (const e of FLOOR.tiles.values()) all.append(e.node); map.append(all); return; }
  for (const entry of added) {
    const after = ids.indexOf(entry.id) + 1;
    const next = after < ids.length ? FLOOR.tiles.get(ids[after]) : null;
    map.insertBefore(entry.node, next && next.node.parentNode ? next.node : null);
  }
}
function drawTile(entry, tile) {
  const { node, parts } = entry;
  entry.tile = tile;
  setData(node, "online", tile.online == null ? "" : String(tile.online));
  setData(node, "severity", tile.severity || "");
  setData(node, "seq", String(tile.seq));
  setText(parts.game, tile.game || "–");
  const state = tile.online == null ? "no status" : tile.online ? "online" : "offline";
  setText(parts.where, `${state} · shoe ${tile.shoe ?? "–"} · round ${tile.round ?? "–"}`);
  setText(parts.last, tile.last ? `last: ${tile.last}` : "no round yet");
  setText(parts.lag, lag(tile.lag_s));
  const flags = [];
  if (tile.gaps) flags.push(["bad", `${tile.gaps} gap${tile.gaps > 1 ? "s" : ""}`]);
  if (tile.breaks) flags.push(["bad", `${tile.breaks} break${tile.breaks > 1 ? "s" : ""}`]);
  if (tile.refused) flags.push(["bad", `${tile.refused} refused`]);
  if (tile.clock_skew) flags.push(["bad", "clock-skew"]);
  for (const device of tile.devices_offline) flags.push(["bad", `${device} offline`]);
  if (tile.alert_count) flags.push([tile.severity, `${tile.alert_count} alert${tile.alert_count > 1 ? "s" : ""}`]);
  const flagKey = JSON.stringify(flags);
  if (entry.flags !== flagKey) {
    entry.flags = flagKey;
    parts.flags.replaceChildren(...flags.map(([kind, text]) => make("span", `flag ${kind}`, text)));
  }
  const first = tile.alerts[0];
  const alertClass = `alert-text ${first ? first.severity : ""}`;
  if (parts.alert.className !== alertClass) parts.alert.className = alertClass;
  setText(parts.alert, first ? alertText(first) : "");
}
function drawCounts() {
  let online = 0, offline = 0, fault = 0, attention = 0, gaps = 0;
  for (const { tile } of FLOOR.tiles.values()) {
    if (tile.online === true) online += 1; else if (tile.online === false) offline += 1;
    if (tile.severity === "fault") fault += 1; else if (tile.severity === "attention") attention += 1;
    if (tile.gaps || tile.breaks) gaps += 1;
  }
  const set = (id, value) => { setText(document.getElementById(id), String(value)); };
  set("n-tables", FLOOR.tiles.size); set("n-online", online); set("n-offline", offline);
  set("n-fault", fault); set("n-attention", attention); set("n-gaps", gaps);
}
function applyFilter(entries) {
  const text = document.getElementById("filter").value.trim().toLowerCase();
  for (const entry of entries || FLOOR.tiles.values()) entry.node.hidden = Boolean(text) && !entry.id.toLowerCase().includes(text);
}
function startMap() {
  who();
  document.getElementById("filter").addEventListener("input", () => applyFilter(null));
  follow(queueTiles);
}

// -- a table's drill-down ----------------------------------------------------------------------------
const TABLE = { id: decodeURIComponent(location.pathname.split("/").pop()), wanted: false, loading: false };

function cell(text, className) { return make("td", className, text); }
function row(cells) { const tr = make("tr"); tr.append(...cells); return tr; }
function fill(selector, rows, empty) {
  const body = document.querySelector(`${selector} tbody`);
  body.replaceChildren(...(rows.length ? rows : [row([Object.assign(cell(empty, "empty"), { colSpan: 8 })])]));
}
function fact(label, value) { const box = make("div", "fact"); box.append(make("span", null, label), make("b", null, value)); return box; }
function sections(round) {
  const found = new Set();
  // A keyed table sends what it likes: anything but a list of objects names no section.
  for (const line of Array.isArray(round.settlement) ? round.settlement : []) if (line && line.section) found.add(String(line.section));
  for (const item of Array.isArray(round.irregularities) ? round.irregularities : []) if (item && item.section) found.add(String(item.section));
  return [...found].map((s) => `§ ${s}`).join(", ");
}
function drawTable(detail) {
  const tile = detail.tile;
  document.title = `tablehost · ${tile.table}`;
  const state = tile.online == null ? "no status" : tile.online ? "online" : "offline";
  document.getElementById("facts").replaceChildren(fact("game", tile.game || "–"), fact("status", state), fact("shoe", tile.shoe ?? "–"),
    fact("round", tile.round ?? "–"), fact("last", tile.last || "–"), fact("feed", lag(tile.lag_s)));
  const roads = detail.roads;
  document.getElementById("roads-panel").hidden = !roads;
  if (roads) {
    document.getElementById("roads-shoe").textContent = tile.shoe ?? "–";
    drawRoads(roads);
    const c = roads.counts;
    document.getElementById("road-counts").textContent = `banker ${c.banker} · player ${c.player} · tie ${c.tie}`;
  }
  document.getElementById("rolls-panel").hidden = !detail.rolls;
  if (detail.rolls) {
    document.getElementById("rolls").replaceChildren(...detail.rolls.map((roll) => {
      const box = make("div", "roll"); box.dataset.valid = String(roll.valid !== false);
      box.append(make("span", null, `round ${roll.round}`));
      for (const die of roll.dice || []) box.append(dieSvg(die, 26));
      box.append(make("b", null, roll.total ?? "")); return box;
    }));
  }
  fill("#rounds", detail.rounds.map((round) => {
    const link = make("a", "record", "full record"), linked = cell(null);
    link.href = `/api/tables/${encodeURIComponent(tile.table)}/rounds/${round.round}`;
    linked.append(link);
    return row([cell(round.round), cell(round.shoe ?? "–"), cell(round.result), cell(round.wagers, "num"), cell(cents(round.drop), "num"),
      cell(cents(round.win), "num"), cell(sections(round)), linked]);
  }), "no round yet");
  const figures = detail.figures;
  fill("#figures", [["shoe", figures.shoe], [`day ${figures.day.day || ""}`, figures.day]].map(([label, f]) =>
    row([cell(`${label} (${f.rounds} rounds)`), cell(cents(f.drop), "num"), cell(cents(f.win), "num"),
      cell(f.theo == null ? "–" : cents(f.theo), "num"), cell(f.hold == null ? "–" : `${f.hold.toFixed(2)}%`, "num"),
      cell(f.rounds_per_hour == null ? "–" : f.rounds_per_hour.toFixed(0), "num")])), "");
  const alertRow = (a) => row([cell(a.round ?? "–"), cell(a.severity, `sev ${a.severity}`), cell(alertText(a)),
    cell(a.section ? `§ ${a.section}` : "")]);
  fill("#open-alerts", detail.open_alerts.map(alertRow), "none open");
  fill("#alerts", detail.alerts.map(alertRow), "no alert");
  const feed = detail.continuity;
  fill("#continuity", feed ? [["last seq", `${feed.last_seq} of ${feed.max_seq}`],
    ["gaps", feed.gaps.map(([a, b]) => `${a}..${b}`).join(", ") || "none"], ["breaks", feed.breaks], ["refused", feed.refused],
    ["duplicates", feed.duplicates], ["unreadable", feed.unreadable]].map(([k, v]) => row([cell(k), cell(String(v), "num")])) : [], "no status");
  document.body.dataset.loaded = String(Number(document.body.dataset.loaded) + 1);
  document.body.dataset.seq = String(tile.seq);
}
async function loadTable() {
  if (TABLE.loading) { TABLE.wanted = true; return; }
  TABLE.loading = true; TABLE.wanted = false;
  try {
    const response = await fetch(`/api/tables/${encodeURIComponent(TABLE.id)}`);
    const detail = response.ok ? await response.json() : null;
    if (detail) requestAnimationFrame(() => drawTable(detail));
  } finally {
    TABLE.loading = false;
    if (TABLE.wanted) setTimeout(loadTable, 500);  // at most two fetches a second, whatever the stream brings
  }
}
function startTable() {
  document.getElementById("table-id").textContent = TABLE.id;
  who(); loadTable();
  follow((batch) => { if (!batch.snapshot && batch.tiles.some((t) => t.table === TABLE.id)) loadTable(); });
}
