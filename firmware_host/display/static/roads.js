// The Baccarat roads drawn from /api/roads (the logical columns tablehost computes): bead plate,
// big road on a 6-row grid with dragon tails, big eye boy, small road, cockroach pig, ask the road.
// Marks differ in shape as well as colour: banker a circle, player a square; on the derived roads
// red is round (ring, dot, "\") and blue is square (square ring, diamond, "/").
"use strict";
const ROWS = 6;

// Where each cell of logical columns goes on a grid `rows` high (as roads.big_road_grid does).
function gridLayout(columns, rows) {
  const taken = new Set(), placed = []; let start = -1;
  for (const column of columns) {
    start += 1; while (taken.has(`${start},0`)) start += 1;
    let x = start, y = 0, turned = false; const cells = [];
    column.forEach((_, index) => {
      if (index) {
        if (!turned && y + 1 < rows && !taken.has(`${x},${y + 1}`)) y += 1; else { turned = true; x += 1; }
      }
      taken.add(`${x},${y}`); cells.push([x, y]);
    });
    placed.push(cells);
  }
  return placed;
}

// A road's grid, `width` columns or as many as the panel holds, `ROWS` high. Its marks are drawn
// in cells of `cell` units; on screen a cell is the road's CSS --cell (display.css), so the
// picture scales with the screen and the grid still ends on a cell boundary.
function board(host, width, cell) {
  const px = Math.max(8, Math.floor(parseFloat(getComputedStyle(host).getPropertyValue("--cell")) || cell));
  const fits = Math.floor(((host.clientWidth || 600) - 16) / px);
  host.style.setProperty("--visible", `${fits * px + 1}px`);  // the grid window ends on a cell boundary
  const columns = Math.max(width, fits), scale = px / cell;
  const node = svg("svg", { width: (columns * cell + 1) * scale, height: (ROWS * cell + 1) * scale,
    viewBox: `0 0 ${columns * cell + 1} ${ROWS * cell + 1}`, "data-cell": px });
  for (let x = 0; x <= columns; x++) node.append(svg("line", { class: "rule", x1: x * cell + .5, y1: 0, x2: x * cell + .5, y2: ROWS * cell, stroke: "#d8d4c6" }));
  for (let y = 0; y <= ROWS; y++) node.append(svg("line", { class: "rule", x1: 0, y1: y * cell + .5, x2: columns * cell, y2: y * cell + .5, stroke: "#d8d4c6" }));
  return node;
}

const COLOUR = { banker: "#d0202a", player: "#1f5fd6", tie: "#17924f", red: "#d0202a", blue: "#1f5fd6" };

function sideMark(winner, cx, cy, r, filled) {
  // banker: circle; player: square (a colour-blind player tells them apart by shape)
  const colour = COLOUR[winner], fill = filled ? colour : "none", width = filled ? 0 : r * .32;
  return winner === "player"
    ? svg("rect", { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, rx: r * .18, fill, stroke: colour, "stroke-width": width })
    : svg("circle", { cx, cy, r, fill, stroke: colour, "stroke-width": width });
}

function drawBeadPlate(host, columns) {
  const cell = 58, node = board(host, columns.length, cell);
  const names = { B: "banker", P: "player", T: "tie" };
  columns.forEach((column, x) => column.forEach((letter, y) => {
    const cx = x * cell + cell / 2, cy = y * cell + cell / 2, winner = names[letter];
    const group = svg("g", { class: "bead", "data-col": x, "data-row": y, "data-letter": letter });
    group.append(winner === "tie"
      ? svg("polygon", { points: `${cx},${cy - 24} ${cx + 24},${cy} ${cx},${cy + 24} ${cx - 24},${cy}`, fill: COLOUR.tie })
      : sideMark(winner, cx, cy, 23, true));
    group.append(svg("text", { x: cx, y: cy + 9, "text-anchor": "middle", "font-size": 26, "font-weight": 800, fill: "#fff", text: letter }));
    node.append(group);
  }));
  place(host, "bead plate", node);
}

function drawBigRoad(host, columns) {
  const cell = 48, layout = gridLayout(columns, ROWS);
  const width = Math.max(0, ...layout.flat().map(([x]) => x + 1));
  const node = board(host, width, cell);
  columns.forEach((column, c) => column.forEach((mark, r) => {
    const [x, y] = layout[c][r], cx = x * cell + cell / 2, cy = y * cell + cell / 2;
    const group = svg("g", { class: "big-cell", "data-col": c, "data-row": r, "data-x": x, "data-y": y, "data-winner": mark.winner,
      "data-ties": mark.ties, "data-player-pair": mark.player_pair, "data-banker-pair": mark.banker_pair });
    group.append(sideMark(mark.winner, cx, cy, 16, false));
    if (mark.ties) {
      group.append(svg("line", { x1: cx - 14, y1: cy + 14, x2: cx + 14, y2: cy - 14, stroke: COLOUR.tie, "stroke-width": 5 }));
      if (mark.ties > 1) group.append(svg("text", { x: cx, y: cy + 7, "text-anchor": "middle", "font-size": 19, "font-weight": 800, fill: "#0a5a30", text: mark.ties }));
    }
    // pairs: banker pair a dot top left, player pair a dot bottom right
    if (mark.banker_pair) group.append(svg("circle", { cx: cx - 15, cy: cy - 15, r: 6, fill: COLOUR.banker, stroke: "#fff", "stroke-width": 2 }));
    if (mark.player_pair) group.append(svg("rect", { x: cx + 9, y: cy + 9, width: 12, height: 12, fill: COLOUR.player, stroke: "#fff", "stroke-width": 2 }));
    node.append(group);
  }));
  place(host, "big road", node);
}

const DERIVED_SHAPES = {
  big_eye_boy: (colour, cx, cy, r) => colour === "red"
    ? svg("circle", { cx, cy, r, fill: "none", stroke: COLOUR.red, "stroke-width": r * .38 })
    : svg("rect", { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, fill: "none", stroke: COLOUR.blue, "stroke-width": r * .38 }),
  small_road: (colour, cx, cy, r) => colour === "red"
    ? svg("circle", { cx, cy, r, fill: COLOUR.red })
    : svg("polygon", { points: `${cx},${cy - r * 1.25} ${cx + r * 1.25},${cy} ${cx},${cy + r * 1.25} ${cx - r * 1.25},${cy}`, fill: COLOUR.blue }),
  cockroach_pig: (colour, cx, cy, r) => colour === "red"
    ? svg("line", { x1: cx - r, y1: cy - r, x2: cx + r, y2: cy + r, stroke: COLOUR.red, "stroke-width": r * .55, "stroke-linecap": "round" })
    : svg("line", { x1: cx - r, y1: cy + r, x2: cx + r, y2: cy - r, stroke: COLOUR.blue, "stroke-width": r * .55, "stroke-linecap": "round" }),
};

function drawDerived(host, name, columns) {
  const cell = 30, layout = gridLayout(columns, ROWS);
  const width = Math.max(0, ...layout.flat().map(([x]) => x + 1));
  const node = board(host, width, cell);
  columns.forEach((column, c) => column.forEach((colour, r) => {
    const [x, y] = layout[c][r];
    const group = svg("g", { class: "derived-mark", "data-road": name, "data-col": c, "data-row": r, "data-colour": colour });
    group.append(DERIVED_SHAPES[name](colour, x * cell + cell / 2, y * cell + cell / 2, 9));
    node.append(group);
  }));
  place(host, name.replace(/_/g, " "), node);
}

// The road's name above its grid; the grid shows its newest columns when it is wider than the panel.
function place(host, label, node) {
  host.replaceChildren(el("span", { class: "label", text: label }), el("div", { class: "grid" }, [node]));
}

function drawAsk(host, side, marks) {
  const node = svg("svg", { width: 204, height: 56, viewBox: "0 0 204 56" });
  Object.entries(marks).forEach(([name, colour], index) => {
    const group = svg("g", { class: "ask-mark", "data-side": side, "data-road": name, "data-colour": colour || "none" });
    if (colour) group.append(DERIVED_SHAPES[name](colour, 34 + index * 68, 28, 15));
    else group.append(svg("text", { x: 34 + index * 68, y: 38, "text-anchor": "middle", "font-size": 30, fill: "#999", text: "\u2013" }));
    node.append(group);
  });
  host.replaceChildren(node);
}

function drawRoads(roads) {
  drawBeadPlate($("#bead-plate"), roads.bead_plate);
  drawBigRoad($("#big-road"), roads.big_road);
  for (const name of ["big_eye_boy", "small_road", "cockroach_pig"]) drawDerived($(`#${name.replace(/_/g, "-")}`), name, roads[name]);
  drawAsk($("#ask-banker"), "banker", roads.next.banker);
  drawAsk($("#ask-player"), "player", roads.next.player);
  for (const [key, value] of Object.entries(roads.counts)) { const box = $(`#count-${key}`); if (box) box.textContent = value; }
  document.body.dataset.rounds = String(roads.rounds);
}
