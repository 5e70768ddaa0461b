// hupai — tiles: notation ("123m44z") both ways, the rules of a hand's size and of four
// copies, the typed notation of a whole hand (melds in brackets), and the tile chip.
import { t, tileName } from "./i18n.js";

export const ALL_TILES = [
  ..."123456789".split("").map((r) => r + "m"),
  ..."123456789".split("").map((r) => r + "p"),
  ..."123456789".split("").map((r) => r + "s"),
  ..."1234567".split("").map((r) => r + "z"),
  ..."12345678".split("").map((r) => r + "f"),
];
export const MELD_SIZE = { chow: 3, pung: 3, kong: 4, added_kong: 4, concealed_kong: 4 };
/** A concealed hand with no meld holds 14 tiles once won; each meld takes 3 of them. */
export const HAND_TILES = 14;

/** A notation problem: ``code`` (for the page's words) and the place in the text. */
export class NotationError extends Error {
  constructor(code, vars, at) {
    super(code);
    this.code = code;
    this.vars = vars || {};
    this.at = at;
  }
}

/** "123m44z" or "1m2m3m" → ["1m", "2m", "3m", …]; throws a NotationError on anything else. */
export function parseTiles(text) {
  const out = [];
  let ranks = [];
  let i = 0;
  for (const ch of String(text || "")) {
    if (/[\s,]/.test(ch)) {
      i += 1;
      continue;
    }
    if (ch >= "0" && ch <= "9") ranks.push(ch);
    else if ("mpszf".includes(ch.toLowerCase())) {
      const suit = ch.toLowerCase();
      if (!ranks.length) throw new NotationError("suit_without_rank", { suit }, i);
      for (const r of ranks) {
        const tile = r + suit;
        if (!ALL_TILES.includes(tile)) throw new NotationError("no_such_tile", { tile }, i);
        out.push(tile);
      }
      ranks = [];
    } else throw new NotationError("bad_char", { ch }, i);
    i += 1;
  }
  if (ranks.length) throw new NotationError("rank_without_suit", { ranks: ranks.join("") }, i);
  return out;
}

/** ["1m", "2m", "4z"] → "12m4z" (runs of one suit share the letter). */
export function formatTiles(tiles) {
  let out = "";
  tiles.forEach((tile, i) => {
    out += tile[0];
    if (i === tiles.length - 1 || tiles[i + 1][1] !== tile[1]) out += tile[1];
  });
  return out;
}

/** How many concealed tiles a hand with ``melds`` holds (kongs count as three). */
export function handSize(melds) {
  return HAND_TILES - 3 * melds.length;
}

/** Every copy of each tile in the hand, melds, set-apart tiles (the wall holds four). */
export function copies(tiles) {
  const n = new Map();
  const add = (tile) => n.set(tile, (n.get(tile) || 0) + 1);
  tiles.hand.forEach(add);
  for (const m of tiles.melds) m.tiles.forEach(add);
  tiles.indicator.forEach(add);
  tiles.fishing.forEach(add);
  return n;
}

/** The first rule the tiles break ({code, vars}), or null: too many tiles, a fifth copy. */
export function handProblem(tiles) {
  const max = handSize(tiles.melds);
  if (tiles.hand.length > max) return { code: "too_many_tiles", vars: { n: max } };
  for (const [tile, n] of copies(tiles)) {
    if (n > 4 && tile[1] !== "f") return { code: "fifth_copy", vars: { tile: tileName(tile) } };
  }
  if (tiles.hand.length && tiles.hand.length < max) return { code: "too_few_tiles", vars: { n: max, got: tiles.hand.length } };
  return null;
}

const MELD_OF = { "(": { 3: "pung", 4: "kong" }, "[": { 4: "concealed_kong" } };

/** A typed hand: "123m456p789s11122z", melds in brackets — (777p) pung, (1111m) kong,
 * [1111m] concealed kong, (123s) chow — flowers as f tiles. The last concealed tile is the
 * winning tile (as in a photo, where it is set apart at the right end). */
export function parseHand(text) {
  const out = { hand: [], win: null, melds: [], flowers: [], indicator: [], fishing: [] };
  const src = String(text || "");
  const re = /([([])([^)\]]*)([)\]])?/g;
  let last = 0;
  let m;
  const plain = (part, offset) => {
    try {
      for (const tile of parseTiles(part)) (tile[1] === "f" ? out.flowers : out.hand).push(tile);
    } catch (e) {
      if (e instanceof NotationError) e.at += offset;
      throw e;
    }
  };
  while ((m = re.exec(src))) {
    plain(src.slice(last, m.index), last);
    if (!m[3]) throw new NotationError("unclosed", { open: m[1] }, m.index);
    const tiles = parseTiles(m[2]);
    const same = tiles.every((x) => x === tiles[0]);
    let kind = same ? MELD_OF[m[1]][tiles.length] : null;
    if (!same && m[1] === "(" && tiles.length === 3 && isRun(tiles)) kind = "chow";
    if (!kind) throw new NotationError("bad_meld", { meld: m[2] }, m.index);
    out.melds.push({ kind, tiles, from: null, called: null });
    last = re.lastIndex;
  }
  plain(src.slice(last), last);
  if (out.hand.length) out.win = out.hand.length - 1;
  return out;
}

function isRun(tiles) {
  const s = [...tiles].sort();
  return "mps".includes(s[0][1]) && s.every((x, i) => x[1] === s[0][1] && Number(x[0]) === Number(s[0][0]) + i);
}

/** The tiles back as typed notation (melds in brackets, the winning tile last). */
export function formatHand(tiles) {
  const hand = [...tiles.hand];
  if (tiles.win !== null && hand[tiles.win]) hand.push(hand.splice(tiles.win, 1)[0]);
  let text = formatTiles(hand);
  for (const m of tiles.melds) {
    const [open, close] = m.kind === "concealed_kong" ? ["[", "]"] : ["(", ")"];
    text += ` ${open}${formatTiles(m.tiles)}${close}`;
  }
  if (tiles.flowers.length) text += ` ${formatTiles(tiles.flowers)}`;
  return text.trim();
}

/** A notation problem in the page's words. */
export function notationMessage(e) {
  return t(`nt_${e.code}`, e.vars);
}

/** A tile as players know it: its picture (public-domain art, static/tiles/CREDITS.md) with
 * its notation beneath. Its accessible name starts with the tile's visible code, so that
 * the name a voice-control user says matches what is shown (label-content-name-mismatch). */
export function chip(tile, { onClick, label, extraClass } = {}) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "chip" + (extraClass ? " " + extraClass : "");
  b.dataset.tile = tile;
  b.dataset.suit = tile[1];
  const face = document.createElement("img");
  face.className = "face";
  face.src = `/static/tiles/${tile}.svg`;
  face.alt = "";
  face.draggable = false;
  const code = document.createElement("span");
  code.className = "code";
  code.textContent = tile;
  b.append(face, code);
  b.setAttribute("aria-label", `${tile} ${label || tileName(tile)}`);
  b.title = tileName(tile);
  if (onClick) b.addEventListener("click", onClick);
  return b;
}

export function addChip(onClick, label) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "chip add";
  b.textContent = "+";
  b.setAttribute("aria-label", `+ ${label}`);
  b.addEventListener("click", onClick);
  return b;
}
