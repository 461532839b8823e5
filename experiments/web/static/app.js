// The Cluedo page: shows the person's view (the board: board.js), plays its clicks, says what happened.
"use strict";

const KIND_TITLES = {
  roll: "Turn", passage: "Turn", stay: "Turn", no_move: "Move", enter: "Enter a room",
  toward: "Head toward a room", square: "Move to a square", suggest: "Suggest",
  no_suggestion: "Suggest", show: "Show a card", accuse: "Accuse", end_turn: "End the turn",
};
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

// The status line (#status, a live region: a screen reader says each change): `text`, then `detail` visually
// hidden (what a render says happened: news()).
function status(text, detail = "") {
  const node = document.getElementById("status");
  node.replaceChildren(text);
  if (detail) node.append(el("span", { class: "visually-hidden" }, (text ? ": " : "") + detail));
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
  const place = view.pawns[view.seat];  // (a seat plays the suspect of its number)
  for (const action of view.legal) {
    let title = KIND_TITLES[action.kind] || action.kind;
    if (title === "Suggest" && place.room !== undefined) title += ` ${placeName(place)}`;  // "Suggest in the Hall"
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
  if (view.seat >= 0 && !view.over) {  // where the seat's pawn is: "You are in the Lounge."
    const who = view.steps === undefined ? "You are" : `${view.players[view.seat].name} is`;
    now += ` ${who} ${placeName(view.pawns[view.seat])}.`;
  }
  if (view.suggestion && !view.over) now += ` On the table: ${view.suggestion.cards.map((k) => c.cards[k]).join(", ")}.`;
  document.getElementById("now").textContent = now;
  document.getElementById("hand").replaceChildren(...view.hand.cards.map((k) => el("li", {}, c.cards[k])));
  const players = document.getElementById("players-table");
  players.replaceChildren(el("tr"));
  players.firstChild.append(el("th", {}, "Player"), el("th", {}, "Agent"), el("th", {}, "Cards"));
  for (const p of view.players) {
    const row = el("tr", { class: (p.seat === view.seat ? "you " : "") + (p.out ? "out" : "") });
    const look = pawnLook(p.seat);  // the colour key: the player's pawn, as on the board
    const swatch = el("span", { class: "swatch", "aria-hidden": "true" }, String(p.seat));
    swatch.style.background = look.fill;
    swatch.style.color = look.text;
    const name = el("td", {}, `${p.name}${p.out ? ", out" : ""}`);
    name.prepend(swatch);
    row.append(name, el("td", {}, p.agent), el("td", {}, String(p.hand_size)));
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
    if (chance !== null) shade(heat, chance);
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

// A heat cell: red as deep as the chance, its text black or white, whichever contrasts more with the red laid
// over the panel's white (at least 4.5:1 at every chance).
function shade(cell, chance) {
  const alpha = Number(chance.toFixed(3));
  cell.style.background = `rgba(200, 30, 30, ${alpha})`;
  cell.style.color = textOn([200, 30, 30].map((v) => 255 + (v - 255) * alpha));
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
      shade(cell, chance);
      row.append(cell);
    });
    table.append(row);
  });
}

function render(next) {
  const focused = document.activeElement;  // (before the choices it may be one of are drawn anew)
  view = next;
  document.getElementById("setup").hidden = true;
  document.getElementById("saved").hidden = true;
  document.getElementById("replay-bar").hidden = view.steps === undefined;
  document.getElementById("game").hidden = false;
  drawPieces();
  renderPanels();
  renderPosterior();
  status(view.over ? "game over" : view.legal.length ? "your move" : "", news());
  if (view.steps === undefined) history.replaceState(null, "", `#game=${view.game}`);  // a reload finds it
  document.getElementById("leave").hidden = view.over || view.steps !== undefined;
  live = view.steps === undefined ? view.game : null;
  focusAfter(focused);
  document.getElementById("game").dataset.renders = ++renders;
}

let told = { key: null, lines: 0 };  // the view last announced: its game and viewer, and its story's length
const NEWS_LINES = 6;  // the most lines of the story one announcement reads (all are in "What you saw")

// What a render announces (the status line's hidden detail): in a game first dealt (or reloaded) whom you play
// and your cards; the story's lines new since the view before (at most NEWS_LINES: the first two, then the
// latest); what the Now panel says; the cards you may show when asked to; who won. A replay's step says its
// number and, stepped on by hand, its new lines; a step drawn while the replay plays says nothing (one each
// 0.1 s would drown the reader).
function news() {
  const c = catalogue;
  const key = `${view.game} ${view.viewer}`;
  const mine = view.steps === undefined;
  const again = key === told.key && view.story.length >= told.lines;
  let lines = again ? view.story.slice(told.lines) : mine ? view.story : [];
  told = { key, lines: view.story.length };
  if (playing && view.step < view.steps) return "";
  const parts = [];
  if (mine && !again) {
    parts.push(`You play ${view.players[view.seat].name}; your cards: ${view.hand.cards.map((k) => c.cards[k]).join(", ")}.`);
  }
  if (!mine) parts.push(`Step ${view.step} of ${view.steps}.`);
  if (lines.length > NEWS_LINES) {  // the first two (what your move brought) and the latest
    const skipped = `(${lines.length - NEWS_LINES} more lines are in What you saw)`;
    lines = [...lines.slice(0, 2), skipped, ...lines.slice(2 - NEWS_LINES)];
  }
  parts.push(...lines.map((line) => (/[.!?]$/.test(line) ? line : `${line}.`)));
  parts.push(document.getElementById("now").textContent);
  const shows = view.legal.filter((a) => a.kind === "show").map((a) => c.cards[a.card]);
  if (shows.length) parts.push(`You may show ${shows.join(" or ")}.`);
  if (view.over) parts.push(endHeading(), `The envelope: ${view.envelope.cards.map((k) => c.cards[k]).join(", ")}.`);
  return parts.join(" ");
}

// Focus after a render, for `here`, the element that had it, may be gone (the choices are drawn anew) or
// hidden (the setup): in the person's game the first new choice that is no accusation (end turn rather than
// accuse), else the accusation's first menu, else the result's heading at the end (else the Now text); in a
// replay the step-on button, unless focus is still on a control of the replay bar. After a click on the board
// (focus on the page's body) focus moves without scrolling the board away.
function focusAfter(here) {
  const lost = !here || here === document.body || !here.isConnected || here.closest("[hidden]") !== null;
  if (view.steps !== undefined) {
    if (lost) document.getElementById("step-on").focus();
    return;
  }
  const next = document.querySelector("#actions :is(button, select):not([data-form=accuse] *)") ||
    document.querySelector("#actions select") || document.getElementById(view.over ? "result" : "now");
  next.focus({ preventScroll: !here || here === document.body });
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
  document.getElementById("setup-title").focus();  // (focus was in the game or the replay bar, now hidden)
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
