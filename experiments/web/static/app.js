// The Cluedo page: draws the board from /api/catalogue, shows the person's view, plays its clicks.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const PAWN_COLOURS = ["#d7263d", "#f2c14e", "#f5f5f5", "#2e8b57", "#1f6fd1", "#7b3fa0"];
const ROOM_COLOURS = ["#e8c9a0", "#d8c3e6", "#c9dfc0", "#f0d9b5", "#c8d8ea", "#e6cfcf", "#d9e4c6", "#e4d6ad", "#cfd6e6"];
const KIND_TITLES = {
  roll: "Turn", passage: "Turn", stay: "Turn", no_move: "Move", enter: "Enter a room",
  toward: "Head toward a room", square: "Move to a square", suggest: "Suggest",
  no_suggestion: "Suggest", show: "Show a card", accuse: "Accuse", end_turn: "End the turn",
};
const WEAPON_SIZE = [2.2, 0.6]; // a weapon token's width and height, in squares
let catalogue = null;
let view = null;
let live = null; // the id of the game on the page (not a replay's), or null
let renders = 0; // views drawn: the page's tests wait for the next one
// This page's id, drawn when it loads and named in each request for a game (?page=): the server takes a closed
// notice only from the page that last asked for the game, so the notice of a page reloaded, arriving after the
// new page's first request, does not mark the game the person plays on.
const PAGE = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
// A request that got no answer at all, and a 404 for the game on the page, in words.
const NO_ANSWER = "the server does not answer (stopped, or the network is down); try again once it is back";
const GONE = "that game is no longer on the server (it was restarted, or the game was left or dropped " +
  "after an hour idle): start a new one";

function el(tag, attrs = {}, text = "") {
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text) node.textContent = text;
  return node;
}

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  let response;
  try { response = await fetch(path, options); } catch { throw new Error(NO_ANSWER); }  // (no status)
  const text = await response.text();
  let data;
  try { data = JSON.parse(text); } catch { data = { detail: `${response.status} ${response.statusText}: ${text}` }; }
  if (!response.ok) {
    const error = new Error(typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail));
    error.status = response.status;
    throw error;
  }
  return data;
}

// The address of game `game`'s resource `tail` ("", "/actions", "/closed"), naming this page.
function gameUrl(game, tail = "") { return `/api/games/${game}${tail}?page=${PAGE}`; }

function status(text) { document.getElementById("status").textContent = text; }

// --- the board -------------------------------------------------------------------------

function drawBoard() {
  const board = catalogue.board;
  const svg = document.getElementById("board");
  svg.setAttribute("viewBox", `0 0 ${board.cols} ${board.rows}`);
  svg.replaceChildren();
  const base = el("svg:g", { id: "base" });
  for (const [r, c] of board.squares) base.append(el("svg:rect", { class: "square", x: c, y: r, width: 1, height: 1 }));
  board.starts.forEach(([r, c], s) => base.append(el("svg:circle", {
    class: "start", cx: c + 0.5, cy: r + 0.5, r: 0.32, stroke: PAWN_COLOURS[s],
  })));
  const roomOf = new Map();
  board.rooms.forEach((cells, room) => {
    for (const [r, c] of cells) {
      roomOf.set(`${r},${c}`, room);
      base.append(el("svg:rect", {
        class: "room", x: c, y: r, width: 1.02, height: 1.02, fill: ROOM_COLOURS[room % ROOM_COLOURS.length],
      }));
    }
  });
  board.rooms.forEach((cells, room) => {
    for (const [r, c] of cells) {
      for (const [dr, dc] of [[-1, 0], [1, 0], [0, -1], [0, 1]]) {
        if (roomOf.get(`${r + dr},${c + dc}`) === room) continue;
        base.append(edge(r, c, dr, dc, "wall"));
      }
    }
  });
  for (const [[r, c], [dr, dc]] of board.doors) base.append(edge(r, c, dr - r, dc - c, "door"));
  for (const { room, cell: [r, c], to } of board.passages) {
    base.append(el("svg:rect", {
      class: "passage", x: c + 0.1, y: r + 0.1, width: 0.8, height: 0.8, stroke: ROOM_COLOURS[to],
    }));
    base.append(el("svg:text", { class: "passage-label", x: c + 0.5, y: r + 0.68 }, catalogue.rooms[to][0]));
  }
  board.labels.forEach(([top, left, , right], room) => base.append(el("svg:text", {
    class: "label", x: (left + right) / 2, y: top + 0.75,
  }, catalogue.rooms[room])));
  svg.append(base, el("svg:g", { id: "marks" }), el("svg:g", { id: "pieces" }));
}

function edge(r, c, dr, dc, cls) {
  const x0 = dc === 1 ? c + 1 : c, y0 = dr === 1 ? r + 1 : r;
  const x1 = dr !== 0 ? c + 1 : x0, y1 = dc !== 0 ? r + 1 : y0;
  return el("svg:line", { class: cls, x1: x0, y1: y0, x2: x1, y2: y1 });
}

function drawPieces() {
  const board = catalogue.board;
  const marks = document.getElementById("marks");
  const pieces = document.getElementById("pieces");
  marks.replaceChildren();
  pieces.replaceChildren();
  const actionFor = (kind, key, value) => view.legal.find((a) => a.kind === kind && JSON.stringify(a[key]) === JSON.stringify(value));
  for (const room of view.enterable) {
    const action = actionFor("enter", "room", room);
    for (const [r, c] of board.rooms[room]) {
      const cell = el("svg:rect", { class: "enterable", x: c, y: r, width: 1, height: 1, "data-room": room });
      if (action) cell.addEventListener("click", () => play(action.id));
      marks.append(cell);
    }
  }
  for (const [r, c] of view.reachable) {
    const action = actionFor("square", "square", [r, c]);
    const mark = el("svg:rect", { class: "reach", x: c + 0.2, y: r + 0.2, width: 0.6, height: 0.6 });
    if (action) mark.addEventListener("click", () => play(action.id));
    marks.append(mark);
  }
  const inRoom = board.rooms.map(() => []);
  view.pawns.forEach((place, suspect) => {
    if (place.room !== undefined) { inRoom[place.room].push(suspect); return; }
    const [r, c] = place.square;
    pieces.append(pawn(c + 0.5, r + 0.5, suspect));
  });
  board.labels.forEach(([top, left, bottom, right], room) => {
    const width = right - left;
    inRoom[room].forEach((suspect, k) => {
      pieces.append(pawn(left + width / 2 + (k - (inRoom[room].length - 1) / 2) * 0.9, top + 1.5, suspect));
    });
    const here = view.weapons.map((w, i) => [w, i]).filter(([w]) => w === room).map(([, i]) => i);
    const across = Math.max(1, Math.floor(width / WEAPON_SIZE[0]));
    const rows = Math.ceil(here.length / across);
    here.forEach((weapon, k) => {
      const row = Math.floor(k / across), inRow = Math.min(across, here.length - row * across);
      const x = left + width / 2 + ((k % across) - (inRow - 1) / 2) * WEAPON_SIZE[0];
      const y = Math.min(top + 2.5, bottom - rows * WEAPON_SIZE[1] - 0.1) + row * WEAPON_SIZE[1];
      pieces.append(weaponToken(x, y, weapon));
    });
  });
}

// A weapon's piece: a small labelled token in the room it lies in (the state's public weapon_room).
function weaponToken(x, y, weapon) {
  const [w, h] = WEAPON_SIZE;
  const name = catalogue.weapons[weapon];
  const group = el("svg:g", { class: "weapon", "data-weapon": weapon });
  group.append(el("svg:title", {}, name));
  group.append(el("svg:rect", { x: x - w / 2 + 0.05, y: y, width: w - 0.1, height: h - 0.08, rx: 0.14 }));
  const text = el("svg:text", { x, y: y + h * 0.62 }, name);
  if (name.length > 9) { text.setAttribute("textLength", w - 0.3); text.setAttribute("lengthAdjust", "spacingAndGlyphs"); }
  group.append(text);
  return group;
}

function pawn(x, y, suspect) {
  const group = el("svg:g", { "data-suspect": suspect });
  group.append(el("svg:title", {}, catalogue.suspects[suspect]));
  group.append(el("svg:circle", { class: "pawn", cx: x, cy: y, r: 0.38, fill: PAWN_COLOURS[suspect] }));
  return group;
}

// --- the panels ------------------------------------------------------------------------

function label(action) {
  const c = catalogue;
  switch (action.kind) {
    case "enter": return `enter the ${c.rooms[action.room]}`;
    case "toward": return `head toward the ${c.rooms[action.room]}`;
    case "square": return `move to square ${action.square.join(",")}`;
    case "show": return `show ${c.cards[action.card]}`;
    case "suggest": return `suggest ${c.suspects[action.suspect]} with the ${c.weapons[action.weapon]}`;
    case "accuse": return `accuse ${c.suspects[action.suspect]} with the ${c.weapons[action.weapon]} in the ${c.rooms[action.room]}`;
    default: return action.text;
  }
}

function button(action) {
  const node = el("button", { type: "button", "data-action-id": action.id, "data-kind": action.kind }, label(action));
  node.addEventListener("click", () => play(action.id));
  return node;
}

// A suggestion or an accusation: one menu per part, listing only the parts of legal actions.
function form(kind, actions) {
  const parts = kind === "accuse" ? ["suspect", "weapon", "room"] : ["suspect", "weapon"];
  const names = { suspect: catalogue.suspects, weapon: catalogue.weapons, room: catalogue.rooms };
  const box = el("div", { class: "form", "data-form": kind });
  const menus = parts.map((part) => {
    const menu = el("select", { "data-part": part, "aria-label": part });
    for (const value of [...new Set(actions.map((a) => a[part]))].sort((a, b) => a - b)) {
      menu.append(el("option", { value }, names[part][value]));
    }
    box.append(menu);
    return menu;
  });
  const go = el("button", { type: "button", "data-kind": kind, "data-submit": kind }, kind === "accuse" ? "Accuse" : "Suggest");
  go.addEventListener("click", () => {
    const chosen = actions.find((a) => parts.every((part, k) => String(a[part]) === menus[k].value));
    if (chosen) play(chosen.id); else status("that combination is not a legal choice");
  });
  box.append(go);
  return box;
}

function renderActions() {
  const box = document.getElementById("actions");
  box.replaceChildren();
  const groups = new Map();
  for (const action of view.legal) {
    const title = KIND_TITLES[action.kind] || action.kind;
    if (!groups.has(title)) groups.set(title, []);
    groups.get(title).push(action);
  }
  for (const [title, actions] of groups) {
    const set = el("fieldset");
    set.append(el("legend", {}, title));
    for (const kind of ["suggest", "accuse"]) {
      const members = actions.filter((a) => a.kind === kind);
      if (members.length) set.append(form(kind, members));
    }
    for (const action of actions.filter((a) => a.kind !== "suggest" && a.kind !== "accuse")) set.append(button(action));
    box.append(set);
  }
}

// What the exact posterior makes certain of card k: "in the envelope (deduced)", "P2 has it (deduced)".
function deduced(k) {
  if (view.beliefs.envelope[k] === 1) return "in the envelope (deduced)";
  const holder = view.beliefs.players[k].indexOf(1);
  return holder >= 0 && holder !== view.seat ? `P${holder} has it (deduced)` : "";
}

function renderPanels() {
  const c = catalogue;
  const deciding = view.players[view.deciding];
  let now = `Turn ${view.turn}. `;
  if (view.over) now = "The game is over.";
  // the dice are the turn player's: the person's own only outside a refutation (of another's suggestion)
  else if (view.legal.length) now += `Your decision (${view.phase})` + (view.dice.length && view.phase !== "refute" ? `; you rolled ${view.dice.reduce((a, b) => a + b, 0)}` : "") + ".";
  else now += `${deciding.name} decides.`;
  if (view.suggestion && !view.over) now += ` On the table: ${view.suggestion.cards.map((k) => c.cards[k]).join(", ")}.`;
  document.getElementById("now").textContent = now;
  document.getElementById("hand").replaceChildren(...view.hand.cards.map((k) => el("li", {}, c.cards[k])));
  const players = document.getElementById("players-table");
  players.replaceChildren(el("tr"));
  players.firstChild.append(el("th", {}, "Player"), el("th", {}, "Agent"), el("th", {}, "Cards"));
  for (const p of view.players) {
    const row = el("tr", { class: (p.seat === view.seat ? "you " : "") + (p.out ? "out" : "") });
    row.append(el("td", {}, p.name), el("td", {}, p.agent), el("td", {}, String(p.hand_size)));
    players.append(row);
  }
  const notes = new Map(view.notes.map((n) => [n.card, n.note]));
  const pad = document.getElementById("notepad");
  const auto = document.getElementById("auto-mark").checked && view.beliefs;
  pad.replaceChildren(el("tr"));
  pad.firstChild.append(el("th", {}, "Card"), el("th", {}, "Your note"), el("th", {}, "In the envelope"));
  c.cards.forEach((name, k) => {
    const row = el("tr", { "data-card": k });
    let note = notes.get(k) || "?";
    if (auto && !notes.has(k)) note = deduced(k) || note;
    const chance = view.beliefs ? view.beliefs.envelope[k] : null;
    const heat = el("td", { class: "heat" }, chance === null ? "" : `${Math.round(chance * 100)}%`);
    if (chance !== null) heat.style.background = `rgba(200, 30, 30, ${chance.toFixed(3)})`;
    row.append(el("td", {}, name), el("td", {}, note), heat);
    pad.append(row);
  });
  document.getElementById("story").replaceChildren(...view.story.map((line) => el("li", {}, line)));
  const story = document.getElementById("story");
  story.scrollTop = story.scrollHeight;
  renderActions();
  const end = document.getElementById("end");
  end.hidden = !view.envelope;
  if (view.envelope) { // the end, or a replay seen by everyone
    document.getElementById("result").textContent = endHeading();
    const reveal = document.getElementById("reveal");
    reveal.replaceChildren(el("p", {}, "The envelope: " + view.envelope.cards.map((k) => c.cards[k]).join(", ") + "."));
    for (const hand of view.hands) {
      reveal.append(el("p", {}, `${view.players[hand.seat].name}: ` + hand.cards.map((k) => c.cards[k]).join(", ")));
    }
    if (view.face_down.cards.length) reveal.append(el("p", {}, "Face down on the rooms: " + view.face_down.cards.map((k) => c.cards[k]).join(", ")));
    if (view.replay) reveal.append(el("p", {}, `Saved as the replay ${view.replay}.`));
    if (view.save_error) reveal.append(el("p", {}, `Not saved: ${view.save_error}.`));
  }
}

// The end's heading: the winner by name, "You won!" only in the person's own game (everyone's view of a replay
// has seat -1, the winner of a game nobody won), or why nobody won.
function endHeading() {
  if (!view.over) return "Everyone's view: the envelope and the hands";
  if (view.winner < 0) return view.truncated ? "Out of turns: nobody won." : "Everyone accused wrongly: nobody won.";
  return view.steps === undefined && view.winner === view.seat ? "You won!" : `${view.winner_name} won.`;
}

// A replay seen by one seat: that seat's exact posterior as a heat map, cards x owners.
function renderPosterior() {
  const section = document.getElementById("posterior");
  section.hidden = view.steps === undefined || !view.beliefs;
  if (section.hidden) return;
  const c = catalogue;
  document.getElementById("posterior-title").textContent = `${view.players[view.seat].name}'s exact posterior`;
  const owners = [...view.players.map((p) => `P${p.seat}`), "Envelope"];
  const table = document.getElementById("heatmap");
  const head = el("tr");
  head.append(el("th", {}, "Card"), ...owners.map((name) => el("th", {}, name)));
  table.replaceChildren(head);
  c.cards.forEach((name, k) => {
    const row = el("tr", { "data-card": k });
    row.append(el("td", {}, name));
    [...view.beliefs.players[k], view.beliefs.envelope[k]].forEach((chance, owner) => {
      const cell = el("td", { class: "heat", "data-owner": owner === owners.length - 1 ? "envelope" : owner },
        `${Math.round(chance * 100)}`);
      cell.style.background = `rgba(200, 30, 30, ${chance.toFixed(3)})`;
      if (chance > 0.6) cell.style.color = "#fff";
      row.append(cell);
    });
    table.append(row);
  });
}

function render(next) {
  view = next;
  document.getElementById("setup").hidden = true;
  document.getElementById("saved").hidden = true;
  document.getElementById("replay-bar").hidden = view.steps === undefined;
  document.getElementById("game").hidden = false;
  drawPieces();
  renderPanels();
  renderPosterior();
  status(view.over ? "game over" : view.legal.length ? "your move" : "");
  if (view.steps === undefined) history.replaceState(null, "", `#game=${view.game}`);  // a reload finds it
  document.getElementById("leave").hidden = view.over || view.steps !== undefined;
  live = view.steps === undefined ? view.game : null;
  document.getElementById("game").dataset.renders = ++renders;
}

// The game as the server has it now: after an answer that did not arrive, or a move the game had passed.
async function redraw(why) {
  const asked = opened;
  try {
    const now = await api(gameUrl(view.game));
    if (asked === opened) { render(now); status(`${why}: the game is drawn as it is now`); }
  } catch (error) {
    if (asked !== opened) return;
    if (error.status === 404) gone();
    else status(error.status === undefined ? error.message : `${why}; ${error.message}`);  // no answer: said once
  }
}

// The game on the page is no longer on the server: back to the start, saying so.
function gone() {
  closeReplay();
  status(GONE);
}

let sending = false;  // one request at a time: a click while one is on its way is ignored

async function play(action) {
  if (sending) return;
  sending = true;
  status("the others are playing...");
  const asked = opened;  // a game left while the others play stays left
  try {
    const next = await api(gameUrl(view.game, "/actions"), { action, step: view.step });
    if (asked === opened) render(next);
  } catch (error) {
    // 409: the game had moved on (another tab); no status: no answer (lost on the way, or the server is down)
    if (asked !== opened) return;
    if (error.status === 409) await redraw(error.message);
    else if (error.status === undefined) await redraw("the answer to your move did not arrive");
    else if (error.status === 404) gone();
    else status(error.message);
  } finally { sending = false; }
}

// --- saved games ----------------------------------------------------------------------

let playing = null;  // the replay being played: its token, or null
let opened = 0;  // counts the games and replays opened and left: an answer for one left since is dropped

async function showStep(step) {
  const name = document.getElementById("replay-name").value;
  const seat = document.getElementById("bar-seat").value || document.getElementById("replay-seat").value;
  const asked = opened;
  let next;
  try { next = await api(`/api/replays/${encodeURIComponent(name)}?step=${step}&seat=${seat}`); }
  catch (error) { if (asked === opened) { status(error.message); stopPlaying(); } return; }
  if (asked !== opened) return;  // closed (or another opened) while the answer was on its way
  render(next);
  const slider = document.getElementById("step");
  slider.max = view.steps;
  slider.value = view.step;
  document.getElementById("step-text").textContent = `step ${view.step} of ${view.steps}, seen by ` +
    (view.viewer === "all" ? "everyone" : view.players[view.viewer].name);
  const seats = document.getElementById("bar-seat");
  if (seats.options.length !== view.players.length + 1) { // this replay's seats, and everyone
    seats.replaceChildren(el("option", { value: "all" }, "everyone"),
      ...view.players.map((p) => el("option", { value: p.seat }, p.name)));
  }
  seats.value = String(view.viewer);
}

function closeReplay() {
  opened++;
  live = null;
  stopPlaying();
  history.replaceState(null, "", location.pathname);  // back to the start: a reload deals no old game
  for (const id of ["setup", "saved"]) document.getElementById(id).hidden = false;
  for (const id of ["game", "replay-bar"]) document.getElementById(id).hidden = true;
  listReplays().catch((error) => status(error.message));
}

// "Leave this game", or "New game" at its end: the server drops the game at once (one left unfinished is not saved).
function leaveGame() {
  if (live) fetch(`/api/games/${live}`, { method: "DELETE", keepalive: true }).catch(() => {});
  closeReplay();
}

function stopPlaying() {
  playing = null;
  document.getElementById("play-replay").textContent = "Play";
}

async function listReplays() {
  const { replays } = await api("/api/replays");
  const menu = document.getElementById("replay-name");
  menu.replaceChildren(...replays.map((name) => el("option", { value: name }, name)));
  document.getElementById("open").disabled = !replays.length;
}

// An uploaded replay: the server checks it (replaying it on the rules core) and keeps it under a name of its own.
async function uploadReplay(input) {
  const file = input.files[0];
  if (!file) return;
  status(`checking ${file.name}...`);
  try {
    const response = await fetch("/api/replays", { method: "POST", headers: { "Content-Type": "application/x-ndjson" }, body: file });
    const data = await response.json();
    if (!response.ok) throw new Error(typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail));
    await listReplays();
    document.getElementById("replay-name").value = data.replay;
    status(`${file.name} uploaded as ${data.replay}`);
  } catch (error) { status(`${file.name} refused: ${error.message}`); }
  input.value = "";
}

function setupReplays() {
  document.getElementById("open-replay").addEventListener("submit", (event) => {
    event.preventDefault();
    document.getElementById("bar-seat").replaceChildren(); // the seat chosen in the form, at first
    opened++;
    stopPlaying();  // (another replay's play ends)
    showStep(0);
  });
  document.getElementById("bar-seat").addEventListener("change", () => showStep(view.step));
  document.getElementById("close-replay").addEventListener("click", closeReplay);
  document.getElementById("upload").addEventListener("change", (event) => uploadReplay(event.target));
  document.getElementById("upload-replay").addEventListener("submit", (event) => event.preventDefault());
  document.getElementById("step").addEventListener("change", (event) => showStep(Number(event.target.value)));
  document.getElementById("step-back").addEventListener("click", () => showStep(Math.max(0, view.step - 1)));
  document.getElementById("step-on").addEventListener("click", () => showStep(Math.min(view.steps, view.step + 1)));
  document.getElementById("play-replay").addEventListener("click", async (event) => {
    if (playing) { stopPlaying(); return; }
    event.target.textContent = "Pause";
    const mine = playing = {};  // this play's token: a pause (or an error) ends its loop
    while (playing === mine && view.step < view.steps) {  // a step asked for once the one before is drawn
      const tick = new Promise((done) => setTimeout(done, Number(document.getElementById("speed").value)));
      await showStep(view.step + 1);
      await tick;
    }
    if (playing === mine) stopPlaying();
  });
}

// --- the setup -------------------------------------------------------------------------

function setupChoices(agentNames, defaults) {
  const players = Number(document.getElementById("players").value);
  const seat = document.getElementById("seat");
  const chosen = Math.min(Number(seat.value || 0), players - 1);
  seat.replaceChildren(...Array.from({ length: players }, (_, k) => el("option", { value: k }, `P${k} (${catalogue.suspects[k]})`)));
  seat.value = chosen;
  const box = document.getElementById("agent-choices");
  box.replaceChildren();
  for (let k = 0; k < players - 1; k++) {
    const menu = el("select", { "data-agent": k, "aria-label": `agent ${k + 1}` });
    for (const name of agentNames) menu.append(el("option", { value: name }, name));
    menu.value = defaults[k % defaults.length];
    box.append(el("label", {}, `Agent ${k + 1} `), menu);
  }
}

async function main() {
  catalogue = await api("/api/catalogue");
  const { agents, default: defaults } = await api("/api/agents");
  drawBoard();
  setupChoices(agents, defaults);
  document.getElementById("players").addEventListener("change", () => setupChoices(agents, defaults));
  document.getElementById("auto-mark").addEventListener("change", () => { if (view) renderPanels(); });
  document.getElementById("again").addEventListener("click", leaveGame);
  document.getElementById("leave").addEventListener("click", leaveGame);
  // A tab closed (or reloaded) on a game: the server drops it first when it is full, unless the game is asked
  // for again (the reload's request, a page back from the browser's cache). The notice names this page: once
  // the reloaded page has asked for the game, this one's notice, arriving later, marks nothing.
  window.addEventListener("pagehide", () => { if (live) navigator.sendBeacon(gameUrl(live, "/closed")); });
  window.addEventListener("pageshow", (event) => { if (event.persisted && live) api(gameUrl(live)).catch(() => {}); });
  setupReplays();
  await listReplays();
  document.getElementById("new-game").addEventListener("submit", async (event) => {
    event.preventDefault();
    const seed = document.getElementById("seed").value.trim();
    if (!/^[0-9]*$/.test(seed)) {
      status(`the seed must be a whole number written in digits (such as 7), or empty for a random deal; got "${seed.slice(0, 40)}"`);
      return;
    }
    const body = {
      agents: [...document.querySelectorAll("#agent-choices select")].map((m) => m.value),
      seat: Number(document.getElementById("seat").value),
      seed: seed === "" ? null : seed,  // its digits: a Number would round a seed above 2**53
    };
    status("dealing...");
    try { render(await api(`/api/games?page=${PAGE}`, body)); } catch (error) { status(error.message); }
  });
  const kept = location.hash.match(/^#game=([\w-]+)$/);  // a reload of a game's page: the game again
  if (kept) {
    try { render(await api(gameUrl(kept[1]))); }
    catch (error) { history.replaceState(null, "", location.pathname); status(error.status === 404 ? GONE : error.message); }
  }
}

main();
