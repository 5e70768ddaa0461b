// hupai — the tiles of the hand on the page: from a reading (in the photo's order) or typed,
// drawn as rows of chips a player taps to fix, and turned back into the request's fields.
import { $, option } from "./dom.js";
import { meldText, t, tileName } from "./i18n.js";
import { currentCity, seatName } from "./form.js";
import { emit } from "./hooks.js";
import { emptyTiles, state } from "./state.js";
import { MELD_SIZE, addChip, chip, formatTiles, handSize, parseTiles } from "./tiles.js";

// The sideways tile's place → how many seats after the winner the meld came from.
const CALLED_STEP = { left: 3, across: 2, right: 1 };

/** The hand's tiles in the photo's order, with each one's detection (index in the reading's
 * columns): the reading's ``hand_in_order`` matched to its hand boxes left to right. */
function photoOrder(reading) {
  const d = reading.detections || {};
  const order = parseTiles(reading.hand_in_order || reading.hand || "");
  const free = (d.role || []).flatMap((role, i) => (role === "hand" ? [i] : []));
  const x = (i) => (d.xyxy[i][0] + d.xyxy[i][2]) / 2;
  free.sort((a, b) => x(a) - x(b));
  const boxes = order.map((tile) => {
    const k = free.findIndex((i) => d.class_name[i] === tile);
    return k < 0 ? null : free.splice(k, 1)[0];
  });
  return { order, boxes };
}

/** The photo's request fields → the editable tiles; with the reading, the hand keeps the
 * photo's order and each tile its box (for tapping the photo and the likely names). */
export function tilesFromRequest(req, reading) {
  const tiles = emptyTiles();
  tiles.hand = parseTiles(req.hand || "");
  const read = (reading && reading.melds) || [];
  const places = { hand: tiles.hand.map(() => null), melds: [] };
  if (reading && reading.hand_in_order && formatTiles([...tiles.hand].sort()) === formatTiles(parseTiles(reading.hand_in_order).sort())) {
    const { order, boxes } = photoOrder(reading);
    tiles.hand = order;
    places.hand = boxes;
  }
  if (req.win_tile) tiles.win = tiles.hand.lastIndexOf(req.win_tile);
  if (tiles.win === -1) tiles.win = null;
  tiles.melds = (req.melds || []).map((m, i) => ({
    kind: m.kind,
    tiles: parseTiles(m.tiles),
    from: m.from === undefined ? null : m.from,
    called: (read[i] && read[i].called_from) || null,
  }));
  places.melds = tiles.melds.map((m, i) => (read[i] && read[i].detections) || []);
  tiles.flowers = parseTiles(req.flowers || "");
  tiles.indicator = req.indicator ? parseTiles(req.indicator) : [];
  tiles.fishing = parseTiles(req.fishing || "");
  if (reading) state.reading = { ...(state.reading || {}), places };
  return tiles;
}

/** The names the reader gave a tile (chosen first), from its box. */
export function namesOf(target) {
  const r = state.reading;
  if (!r || !r.reading || !r.places) return [];
  const d = r.reading.detections || {};
  let box = null;
  if (target.row === "hand") box = r.places.hand[target.index];
  else if (target.row === "meld") box = (r.places.melds[target.meld] || [])[target.index];
  else {
    const place = target.row === "indicator" || target.row === "fishing" ? "set_apart" : target.row;
    return (state.alternatives[place] || [])[target.index] || [];
  }
  return box === null || box === undefined || !d.alternatives ? [] : d.alternatives[box] || [];
}

export function tileFields() {
  const tiles = state.tiles;
  const city = currentCity();
  const names = new Set(city.fields.map((f) => f.name));
  const req = { hand: formatTiles([...tiles.hand].sort(byCode)) };
  if (tiles.win !== null && tiles.hand[tiles.win]) req.win_tile = tiles.hand[tiles.win];
  req.melds = tiles.melds.map((m) => {
    const out = { kind: m.kind, tiles: formatTiles(m.tiles) };
    if (m.from !== null && m.kind !== "concealed_kong") out.from = m.from;
    return out;
  });
  if (tiles.flowers.length) req.flowers = formatTiles(tiles.flowers);
  if (names.has("indicator") && tiles.indicator.length) req.indicator = tiles.indicator[0];
  if (names.has("fishing") && tiles.fishing.length) req.fishing = formatTiles(tiles.fishing);
  return req;
}

const SUIT_ORDER = "mpszf";
function byCode(a, b) {
  return SUIT_ORDER.indexOf(a[1]) - SUIT_ORDER.indexOf(b[1]) || a[0].localeCompare(b[0]);
}

/** Follow the winner with claimed melds whose sideways tile was read from the photo. */
export function updateMeldSeats() {
  if (!state.tiles) return;
  const winner = Number($("winner").value);
  for (const m of state.tiles.melds) {
    if (m.called && CALLED_STEP[m.called] !== undefined && m.kind !== "chow") {
      m.from = (winner + CALLED_STEP[m.called]) % 4;
    }
  }
}

function renderRow(id, tiles, row, { max, win } = {}) {
  const box = $(id);
  box.replaceChildren();
  tiles.forEach((tile, index) => {
    const isWin = win !== undefined && win === index;
    box.append(
      chip(tile, {
        extraClass: isWin ? "win" : "",
        label: `${t("tile_n", { row: t(row), n: index + 1 })}: ${tileName(tile)}${isWin ? ` (${t("winning_tile")})` : ""}`,
        onClick: () => emit("pick", { row, index }),
      }),
    );
  });
  if (max === undefined || tiles.length < max) {
    box.append(addChip(() => emit("pick", { row, index: tiles.length }), t("add_a", { row: t(row) })));
  }
}

function renderMelds() {
  const box = $("melds");
  box.replaceChildren();
  state.tiles.melds.forEach((meld, m) => {
    const row = document.createElement("div");
    row.className = "meld";
    const kind = document.createElement("select");
    kind.setAttribute("aria-label", `${t("meld_n", { n: m + 1 })} · ${t("meld_kind")}`);
    for (const k of Object.keys(MELD_SIZE)) kind.append(option(k, meldText(k), k === meld.kind));
    kind.addEventListener("change", () => {
      meld.kind = kind.value;
      meld.tiles = resize(meld.tiles, MELD_SIZE[meld.kind], meld.kind);
      tilesChanged();
    });
    row.append(kind);
    meld.tiles.forEach((tile, index) =>
      row.append(
        chip(tile, {
          label: `${t("meld_n", { n: m + 1 })}: ${tileName(tile)}`,
          onClick: () => emit("pick", { row: "meld", meld: m, index }),
        }),
      ),
    );
    if (meld.kind !== "concealed_kong") {
      const from = document.createElement("select");
      from.setAttribute("aria-label", `${t("meld_n", { n: m + 1 })} · ${t("from")}`);
      from.append(option("", `${t("from")} —`, meld.from === null));
      for (const s of [0, 1, 2, 3]) from.append(option(String(s), `${t("from")} ${seatName(s)}`, meld.from === s));
      from.addEventListener("change", () => {
        meld.from = from.value === "" ? null : Number(from.value);
        meld.called = null; // set by hand: no longer follows the winner
        emit("rescore");
      });
      row.append(from);
    }
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "remove";
    remove.textContent = "✕";
    remove.setAttribute("aria-label", `✕ ${t("remove")} ${t("meld_n", { n: m + 1 })}`);
    remove.addEventListener("click", () => {
      state.tiles.melds.splice(m, 1);
      if (state.reading && state.reading.places) state.reading.places.melds.splice(m, 1);
      tilesChanged();
    });
    row.append(remove);
    box.append(row);
  });
}

export function resize(tiles, n, kind) {
  const first = tiles[0] || "1m";
  if (kind === "chow") return chowFrom(first);
  return Array.from({ length: n }, () => first);
}

function chowFrom(tile) {
  const rank = Math.min(Number(tile[0]), 7);
  if (!"mps".includes(tile[1])) return ["1m", "2m", "3m"];
  return [0, 1, 2].map((k) => `${rank + k}${tile[1]}`);
}

export function renderTiles() {
  const tiles = state.tiles;
  $("tiles").hidden = tiles === null;
  if (tiles === null) return;
  const city = currentCity();
  const names = new Set(city.fields.map((f) => f.name));
  renderRow("hand", tiles.hand, "hand", { win: tiles.win === null ? undefined : tiles.win, max: handSize(tiles.melds) });
  renderMelds();
  renderRow("flowers", tiles.flowers, "flowers", { max: 8 });
  $("flowers-row").hidden = city.tiles <= 136 && tiles.flowers.length === 0;
  renderRow("indicator", tiles.indicator, "indicator", { max: 1 });
  $("indicator-row").hidden = !names.has("indicator");
  renderRow("fishing", tiles.fishing, "fishing", { max: 3 });
  $("fishing-row").hidden = !names.has("fishing");
  $("hand-size").textContent = t("n_of", { n: tiles.hand.length, max: handSize(tiles.melds) });
}

/** The tiles were edited (picker, meld, photo tap): redraw, show them typed, score again. */
export function tilesChanged() {
  renderTiles();
  emit("show-typed");
  emit("rescore");
}

/** Start a hand with no tiles (typed or picked). */
export function ensureTiles() {
  if (state.tiles === null) state.tiles = emptyTiles();
}

export function addMeld() {
  ensureTiles();
  const kind = $("meld-kind").value;
  state.tiles.melds.push({ kind, tiles: resize(["1m"], MELD_SIZE[kind], kind), from: null, called: null });
  if (state.reading && state.reading.places) state.reading.places.melds.push([]);
  renderTiles();
  emit("pick", { row: "meld", meld: state.tiles.melds.length - 1, index: 0 });
}
