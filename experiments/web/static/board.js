// The board of the Cluedo page: drawn once from /api/catalogue, its pieces drawn on each view, and where they
// are said in words (the list #places, for a screen reader). Loaded before app.js, whose el, catalogue, view and
// play it uses when called.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const PAWN_COLOURS = ["#d7263d", "#f2c14e", "#f5f5f5", "#2e8b57", "#1f6fd1", "#7b3fa0"];
const ROOM_COLOURS = ["#e8c9a0", "#d8c3e6", "#c9dfc0", "#f0d9b5", "#c8d8ea", "#e6cfcf", "#d9e4c6", "#e4d6ad", "#cfd6e6"];
const WEAPON_SIZE = [2.2, 0.6]; // a weapon token's width and height, in squares

// --- colours ---------------------------------------------------------------------------

// The relative luminance of an sRGB colour [r, g, b] (0 to 255 each), as WCAG 2 counts it.
function luminance(rgb) {
  const [r, g, b] = rgb.map((v) => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

// Black or white, whichever contrasts more with the colour rgb: at least 4.58:1 whatever the colour.
function textOn(rgb) {
  const l = luminance(rgb);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? "#000" : "#fff";
}

function hexRgb(hex) { return [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16)); }

// A pawn's look: its colour, and the colour of the suspect's number written on it. Also the players' colour key.
function pawnLook(suspect) {
  const fill = PAWN_COLOURS[suspect];
  return { fill, text: textOn(hexRgb(fill)) };
}

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
  describePlaces(inRoom);
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

// A suspect's pawn: a circle of its colour with the suspect's number on it (the number of the player who plays
// it, as on the ANSI board; the Players table's key pairs each colour and number with a name).
function pawn(x, y, suspect) {
  const look = pawnLook(suspect);
  const group = el("svg:g", { "data-suspect": suspect });
  group.append(el("svg:title", {}, catalogue.suspects[suspect]));
  group.append(el("svg:circle", { class: "pawn", cx: x, cy: y, r: 0.38, fill: look.fill }));
  group.append(el("svg:text", { class: "pawn-label", x, y: y + 0.18, fill: look.text }, String(suspect)));
  return group;
}

// A pawn in words: "Miss Scarlet (pawn 0, you)"; "you" only in the person's own game.
function pawnName(suspect) {
  const you = view.steps === undefined && suspect === view.seat ? ", you" : "";
  return `${catalogue.suspects[suspect]} (pawn ${suspect}${you})`;
}

// Where the pieces are, in words: a line per room holding a pawn or a weapon, then each pawn on a square.
// The list is visually hidden (the board shows the same); inRoom lists the pawns in each room.
function describePlaces(inRoom) {
  const c = catalogue;
  const lines = [];
  c.rooms.forEach((name, room) => {
    const weapons = view.weapons.map((w, i) => [w, i]).filter(([w]) => w === room).map(([, i]) => `the ${c.weapons[i]}`);
    const pieces = [...inRoom[room].map(pawnName), ...weapons];
    if (pieces.length) lines.push(`${name}: ${pieces.join(", ")}`);
  });
  view.pawns.forEach((place, suspect) => {
    if (place.square) lines.push(`${pawnName(suspect)}: on square ${place.square.join(",")}`);
  });
  document.getElementById("places").replaceChildren(...lines.map((line) => el("li", {}, line)));
}

// Where a pawn is, in words: "in the Lounge", "on square 17,7".
function placeName(place) {
  return place.room !== undefined ? `in the ${catalogue.rooms[place.room]}` : `on square ${place.square.join(",")}`;
}
