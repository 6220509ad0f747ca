// The Baccarat dealer display and player board, rendered from the stream's state.
"use strict";
const SUIT = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const RANK = { T: "10" };
let shoeLoadedAt = null, awaitingCard = null;

function cardFace(text) {
  if (!text) return el("div", { class: "card slot", "data-card": "hidden" });
  const rank = text.slice(0, -1), suit = text.slice(-1);
  return el("div", { class: "card" + (suit === "D" || suit === "H" ? " red" : ""), "data-card": text },
    [el("span", { class: "r", text: RANK[rank] || rank }), el("span", { class: "s", text: SUIT[suit] })]);
}

function renderDealer(message) {
  const state = message.state;
  renderHeader(state); renderAlerts(state); renderDevices(state); renderLog(state);
  $("#shoe").textContent = state.shoe == null ? "\u2013" : state.shoe;
  $("#last-hand").classList.toggle("hidden", !state.last_hand);
  const prompt = $("#prompt"); prompt.textContent = state.prompt.text; prompt.dataset.action = state.prompt.action;
  prompt.classList.toggle("long", state.prompt.text.length > 80);
  const last = state.results[state.results.length - 1];
  // Between rounds the last round's hands stay up (dimmed) until the next round's first cards show.
  const between = !state.hand.player.length && !state.hand.banker.length && last && last.status === "completed"
    && state.prompt.action === "place_bets";
  const hand = between ? last : state.hand;
  for (const side of ["player", "banker"]) {
    $(`#${side}-cards`).replaceChildren(...hand[side].map(cardFace));
    $(`#${side}-total`).textContent = hand[`${side}_total`] == null ? "" : hand[`${side}_total`];
    $(`#${side}-hand`).classList.toggle("previous", Boolean(between));
    $(`#${side}-was`).textContent = between ? `round ${last.round}` : "";
  }
  const shown = state.hand.winner || state.hand.status ? state.hand : between ? last : null;
  const outcome = $("#outcome");
  outcome.dataset.winner = shown ? (shown.status === "void" ? "void" : shown.winner) : "";
  outcome.textContent = outcomeText(shown);
  $("#recent").replaceChildren(...state.results.slice(-10).map((r) => el("span", { class: "badge", text: r.status === "void" ? "V" : r.winner[0].toUpperCase(),
    style: { background: r.status === "void" ? "#555" : r.winner === "banker" ? "#e0393e" : r.winner === "player" ? "#2f7bf5" : "#27b36a" } })));
  shoeLoadedAt = state.shoe_loaded_at; $("#deck-age").textContent = age(shoeLoadedAt); $("#burn-card").textContent = state.burn_card || "\u2013";
  awaitingCard = state.prompt.action === "enter_card" ? state.prompt.card : null;
  for (const button of document.querySelectorAll("button.act")) {
    const next = { place_bets: "no_more_bets", reveal: "reveal", enter_card: "card_entered" }[state.prompt.action];
    button.classList.toggle("next", button.dataset.command === next);
  }
}

function outcomeText(shown) {
  if (!shown) return "";
  if (shown.status === "void") return `ROUND ${shown.round} VOID`;
  if (shown.winner === "tie") return `TIE HAND ${shown.player_total}–${shown.banker_total}`;
  const [own, other] = shown.winner === "banker" ? [shown.banker_total, shown.player_total] : [shown.player_total, shown.banker_total];
  return `${shown.winner.toUpperCase()} WINS ${own}–${other}`;
}

function setupDealerActions() {
  for (const button of document.querySelectorAll("button.act")) {
    const command = button.dataset.command, supervisor = button.classList.contains("supervisor");
    button.onclick = () => command === "card_entered" ? openCardEntry()
      : act(command, command === "void_round" ? { reason: "voided at the dealer display" } : null, button.firstChild.textContent, supervisor);
  }
  const ranks = $("#rank-keys"), suits = $("#suit-keys");
  for (const rank of ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"]) {
    ranks.append(el("button", { type: "button", text: RANK[rank] || rank, "data-rank": rank }));
  }
  for (const suit of ["C", "D", "H", "S"]) suits.append(el("button", { type: "button", text: SUIT[suit], "data-suit": suit }));
  let rank = "", suit = "";
  const show = () => { $("#card-text").value = (RANK[rank] || rank) + (SUIT[suit] || ""); };
  ranks.onclick = (event) => { if (event.target.dataset.rank) { rank = event.target.dataset.rank; show(); } };
  suits.onclick = (event) => { if (event.target.dataset.suit) { suit = event.target.dataset.suit; show(); } };
  $("#card-cancel").onclick = () => $("#card-modal").classList.remove("open");
  $("#card-ok").onclick = () => {
    if (!rank || !suit) return;
    $("#card-modal").classList.remove("open");
    act("card_entered", { card: rank + suit }, `Key in ${rank}${SUIT[suit]}`, false);
  };
  window.openCardEntry = () => { rank = suit = ""; show(); $("#card-number").textContent = awaitingCard ? `#${awaitingCard}` : ""; $("#card-modal").classList.add("open"); };
}

function startBaccaratDealer() {
  setupPinPad(); setupDealerActions();
  setInterval(() => { $("#deck-age").textContent = age(shoeLoadedAt); }, 1000);
  follow("dealer", renderDealer);
}

function renderBoard(message) {
  const board = message.scoreboard;
  $("#table-id").textContent = board.table;
  $("#shoe").textContent = board.shoe == null ? "\u2013" : board.shoe;
  $("#rounds").textContent = board.roads.rounds;
  $("#last-hand").classList.toggle("hidden", !board.last_hand);
  renderLimits(board.limits);
  const last = board.last, result = $("#result"), completed = last && last.status === "completed";
  result.dataset.winner = completed ? last.winner : "";
  $("#result-who").textContent = !last ? "PLACE YOUR BETS" : !completed ? `ROUND ${last.round} VOID`
    : last.winner === "tie" ? "TIE" : `${last.winner.toUpperCase()} WINS`;
  $("#result-score").replaceChildren(...(completed ? [el("span", { class: "p", text: `P ${last.player_total}` }),
    el("span", { text: "  \u00b7  " }), el("span", { class: "b", text: `B ${last.banker_total}` })] : []));
  $("#result-natural").classList.toggle("hidden", !(completed && last.natural));
  drawRoads(board.roads);
}

function startBaccaratBoard() {
  follow("scoreboard", renderBoard);
  // The roads' grids are drawn to their panels' widths: a screen turned or resized gets them anew.
  window.addEventListener("resize", () => { const last = TH.messages[TH.messages.length - 1]; if (last) drawRoads(last.data.scoreboard.roads); });
}
