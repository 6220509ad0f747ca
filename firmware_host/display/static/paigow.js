// The Pai Gow dealer display (bank offers, delivery plan, tile entry with the house way) and player board.
"use strict";
let diceRegisteredAt = null, latestPrompt = null, tileKinds = [];
const entry = { hands: {}, order: [], current: null };

function positionName(label) {
  if (label == null) return "\u2013";
  return label === "dealer" ? "Dealer" : label === "dead" ? "Dead Hand" : `Position ${label}`;
}
function clockTime(epoch) {
  return epoch == null ? "\u2013" : new Date(epoch * 1000).toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" });
}

function renderPaiGowDealer(message) {
  const state = message.state, current = state.current, prompt = state.prompt;
  renderHeader(state); renderAlerts(state); renderDevices(state); renderLog(state);
  latestPrompt = prompt;
  const box = $("#prompt"); box.dataset.action = prompt.action;
  // The delivery's stack-by-stack plan is drawn below; the prompt says what to do in a line.
  box.textContent = prompt.action === "deliver" ? `deliver ${prompt.style.replace(/-/g, " ")} from ${positionName(prompt.start).toLowerCase()}` : prompt.text;
  box.classList.toggle("long", box.textContent.length > 80);
  $("#bank").textContent = current.bank && current.bank.seat != null ? `seat ${current.bank.seat}${current.bank.co_bank ? " + house" : ""}` : "dealer";
  $("#dice").replaceChildren(...(current.dice || []).map((n) => dieSvg(n, 76)));
  $("#total").textContent = current.total == null ? "\u2013" : current.total;
  $("#start").textContent = positionName(current.start);
  const style = current.style || prompt.style;
  $("#style").textContent = style ? style.replace(/-/g, " ") : "\u2013";
  diceRegisteredAt = state.dice_clock.registered_at;
  $("#dice-age").textContent = age(diceRegisteredAt); $("#dice-expires").textContent = clockTime(state.dice_clock.expires_at);
  $("#recent").replaceChildren(...state.rolls.slice(-8).map((roll) => el("span", { class: "badge roll-badge",
    text: roll.status === "void" ? `R${roll.round} void` : `${roll.total} \u2192 ${roll.start}` })));
  renderWork(prompt, current);
  const next = { place_bets: "no_more_bets", offer_bank: "no_bank", reveal: "reveal", deliver: "delivered", set_hands: "tiles", replace_dice: "new_dice" }[prompt.action];
  for (const button of document.querySelectorAll("button.act")) button.classList.toggle("next", button.dataset.command === next);
}

function renderWork(prompt, current) {
  const work = $("#work");
  if (prompt.action === "offer_bank") {
    const coBank = el("input", { type: "checkbox", id: "co-bank" });
    const seats = el("div", { class: "seats" }, prompt.order.map((seat) => {
      const button = el("button", { type: "button", text: `Seat ${seat} banks`, "data-seat": seat });
      button.onclick = () => act("bank", { seat, co_bank: coBank.checked, chips_confirmed: true }, `Seat ${seat} banks`, false);
      return button;
    }));
    work.replaceChildren(el("h2", { text: "Bank offer (in this order)" }), seats, el("label", {}, [coBank, " co-bank with the house"]));
  } else if (prompt.action === "deliver") {
    work.replaceChildren(el("h2", { text: `Deliver ${prompt.style.replace(/-/g, " ")} from ${positionName(prompt.start)}` }),
      el("div", { class: "plan" }, prompt.hands.map((hand, index) => el("div", { class: index === 0 ? "first" : "" },
        [el("b", { text: positionName(hand.position) }), hand.tiles.join("  ")]))));
  } else if (current.results) {
    work.replaceChildren(el("h2", { text: "Result" }), el("div", { class: "house-way", text: current.house_way ? `Dealer (house way): ${current.house_way.replace("/", "  /  ")}` : "" }),
      el("div", { class: "plan" }, current.results.map((r) => el("div", {}, [el("b", { text: positionName(String(r.position)) }), r.outcome]))));
  } else if (prompt.action === "set_hands") {
    work.replaceChildren(el("h2", { text: "Hands to enter" }), el("div", { class: "plan" },
      [...(prompt.dealer ? ["dealer"] : []), ...prompt.positions].map((p) => el("div", {}, [el("b", { text: positionName(p) }), "4 tiles"]))));
  } else {
    work.replaceChildren(el("h2", { text: "Round" }), el("div", { class: "legend", text: current.bank && current.bank.seat != null ? `the bank: seat ${current.bank.seat}` : "the dealer banks" }));
  }
}

// -- tile entry: a tile picker per hand, with the house way of the four tiles shown ----------------
function openTiles() {
  const prompt = latestPrompt || {};
  const bank = prompt.bank == null ? [] : [String(prompt.bank)];  // the player bank's hands are entered too
  entry.order = [...(prompt.dealer ? ["dealer"] : []), ...(prompt.positions || []).filter((p) => !bank.includes(p)), ...bank];
  entry.bank = bank[0] || null;
  entry.hands = Object.fromEntries(entry.order.map((hand) => [hand, []]));
  entry.current = entry.order[0] || null;
  drawEntry(); $("#tiles-modal").classList.add("open");
}
async function drawEntry() {
  $("#hand-tabs").replaceChildren(...entry.order.map((hand) => {
    const button = el("button", { type: "button", text: hand === entry.bank ? `Bank (seat ${hand})` : positionName(hand), "data-hand": hand,
      class: (hand === entry.current ? "on " : "") + (entry.hands[hand].length === 4 ? "done" : "") });
    button.onclick = () => { entry.current = hand; drawEntry(); };
    return button;
  }));
  const chosen = entry.current ? entry.hands[entry.current] : [];
  $("#chosen").replaceChildren(...chosen.map((text) => tileSvg(text, 46)));
  $("#house-way").textContent = "";
  if (chosen.length === 4) {
    const answer = await (await fetch(`/api/house_way?tiles=${encodeURIComponent(chosen.join(","))}`)).json();
    $("#house-way").textContent = answer.error ? answer.error : `House way: high ${answer.high.tiles.join(" ")}  \u00b7  low ${answer.low.tiles.join(" ")}  (\u00a7 ${answer.section})`;
  }
}
function setupTileEntry() {
  fetch("/api/tiles").then((r) => r.json()).then((kinds) => {
    tileKinds = kinds;
    $("#picker").replaceChildren(...kinds.map((kind) => {
      const button = el("button", { type: "button", "data-tile": kind.text }, [tileSvg(kind.text, 34), el("small", { text: kind.name })]);
      button.onclick = () => {
        const hand = entry.hands[entry.current];
        if (hand && hand.length < 4) { hand.push(kind.text); drawEntry(); }
      };
      return button;
    }));
  });
  $("#tiles-cancel").onclick = () => $("#tiles-modal").classList.remove("open");
  $("#tiles-clear").onclick = () => { if (entry.current) entry.hands[entry.current] = []; drawEntry(); };
  $("#tiles-ok").onclick = () => {
    if (entry.order.some((hand) => entry.hands[hand].length !== 4)) { toast("every hand needs four tiles"); return; }
    const hands = Object.fromEntries(entry.order.filter((h) => h !== "dealer").map((h) => [h, entry.hands[h].join(",")]));
    const args = { hands, ...(entry.hands.dealer ? { dealer: entry.hands.dealer.join(",") } : {}) };
    $("#tiles-modal").classList.remove("open");
    act("tiles", args, "Settle the tiles", false);
  };
}

function startPaiGowDealer() {
  setupPinPad(); setupTileEntry();
  for (const button of document.querySelectorAll("button.act")) {
    const command = button.dataset.command, supervisor = button.classList.contains("supervisor");
    button.onclick = () => command === "tiles" ? openTiles()
      : act(command, command === "void_round" ? { reason: "voided at the dealer display" } : null, button.firstChild.textContent, supervisor);
  }
  setInterval(() => { $("#dice-age").textContent = age(diceRegisteredAt); }, 1000);
  follow("dealer", renderPaiGowDealer);
}

function renderPaiGowBoard(message) {
  const board = message.scoreboard, rolls = [...board.rolls].reverse();
  $("#table-id").textContent = board.table; renderLimits(board.limits);
  const latest = rolls.find((roll) => roll.status === "completed");
  $("#latest-dice").replaceChildren(...(latest ? latest.dice.map((n) => dieSvg(n, 120)) : []));
  $("#latest-total").textContent = latest ? latest.total : "\u2013";
  $("#latest-start").textContent = latest ? `${positionName(latest.start)} first` : "place your bets";
  $("#rolls").replaceChildren(...rolls.slice(0, 8).map((roll) => el("div", { class: "roll", "data-round": roll.round },
    roll.status === "void" ? [el("span", { text: `#${roll.round}` }), el("span", { class: "no", text: "void round" })]
      : [el("span", { text: `#${roll.round}` }), el("div", { class: "dice" }, roll.dice.map((n) => dieSvg(n, 64))),
        el("span", { class: "total", text: roll.total }),
        el("span", { class: "start", text: positionName(roll.start) + (roll.bank_seat != null ? `  \u00b7  bank seat ${roll.bank_seat}` : "") })])));
  const counts = {};
  for (const roll of board.rolls) if (roll.status === "completed") counts[roll.start] = (counts[roll.start] || 0) + 1;
  const most = Math.max(1, ...Object.values(counts));
  $("#starts").replaceChildren(...["dealer", "1", "2", "3", "4", "5", "6", "dead"].map((label) => el("div", { class: "start-row", "data-start": label },
    [el("span", { text: positionName(label).replace("Position ", "Pos. ") }), el("i", { style: { width: `${(counts[label] || 0) / most * 100}%` } }), el("b", { text: counts[label] || 0 })])));
  document.body.dataset.rolls = String(board.rolls.length);
}

function startPaiGowBoard() { follow("scoreboard", renderPaiGowBoard); }
