// hupai — the tile picker: a dialog of every tile, the reader's likely names first. It keeps
// a hand within its size (the + is gone once the hand is full) and never lets a fifth copy
// of a tile in (those tiles are shown disabled, with the reason).
import { $, holdScroll, openDialog } from "./dom.js";
import { t, tileName } from "./i18n.js";
import { namesOf, tilesChanged } from "./hand.js";
import { state } from "./state.js";
import { ALL_TILES, chip, copies } from "./tiles.js";

export function buildPicker() {
  const grid = $("picker-grid");
  for (const tile of ALL_TILES) {
    grid.append(chip(tile, { label: t("pick", { tile: tileName(tile) }), onClick: () => pick(tile) }));
  }
  $("picker-win").addEventListener("click", () => {
    const p = state.picker;
    state.tiles.win = state.tiles.win === p.index ? null : p.index;
    closePicker(true);
  });
  $("picker-remove").addEventListener("click", () => {
    const p = state.picker;
    const list = state.tiles[p.row];
    list.splice(p.index, 1);
    if (p.row === "hand") {
      if (state.reading && state.reading.places) state.reading.places.hand.splice(p.index, 1);
      if (state.tiles.win !== null) {
        if (state.tiles.win === p.index) state.tiles.win = null;
        else if (state.tiles.win > p.index) state.tiles.win -= 1;
      }
    }
    closePicker(true);
  });
  $("picker").addEventListener("close", () => {
    state.picker = null;
  });
}

/** Copies of each tile there would be if the target took ``tile``. */
function wouldHold(target, tile) {
  const n = copies(state.tiles);
  if (tile[1] === "f") return 0;
  let have = n.get(tile) || 0;
  if (target.row === "meld") {
    const meld = state.tiles.melds[target.meld];
    if (meld.kind === "chow") return have + 1 - (meld.tiles[target.index] === tile ? 1 : 0);
    return have - meld.tiles.filter((x) => x === tile).length + meld.tiles.length;
  }
  const list = state.tiles[target.row] || [];
  if (list[target.index] === tile) have -= 1;
  return have + 1;
}

/** The picker's tiles that would be a fifth copy: disabled, saying why. */
function markFull(target) {
  for (const c of $("picker-grid").querySelectorAll(".chip")) {
    const full = wouldHold(target, c.dataset.tile) > 4;
    c.disabled = full;
    c.title = full ? t("fifth_copy", { tile: tileName(c.dataset.tile) }) : tileName(c.dataset.tile);
  }
}

function showLikely(target) {
  const box = $("picker-likely");
  const label = box.querySelector(".likely-label");
  box.replaceChildren(label);
  const names = namesOf(target).filter((n) => n.tile !== "back");
  const current = target.row === "meld" ? state.tiles.melds[target.meld].tiles[target.index] : (state.tiles[target.row] || [])[target.index];
  const usable = names.length && names[0].tile === current ? names : [];
  box.hidden = usable.length < 2;
  for (const n of usable) {
    const pct = `${Math.round(n.p * 100)}%`;
    const c = chip(n.tile, { label: `${t("pick", { tile: tileName(n.tile) })} ${pct}`, onClick: () => pick(n.tile) });
    const prob = document.createElement("span");
    prob.className = "prob";
    prob.textContent = pct;
    c.append(prob);
    c.disabled = wouldHold(target, n.tile) > 4;
    box.append(c);
  }
}

/** Only the tiles the table's city plays with: 108 (no honours, no flowers), 136 (no
 * flowers) or 144. */
function showCityTiles() {
  const city = state.meta.cities.find((c) => c.name === $("city").value);
  const count = (city && city.tiles) || 144;
  for (const c of $("picker-grid").querySelectorAll(".chip")) {
    const suit = c.dataset.tile[1];
    c.hidden = (suit === "z" && count < 136) || (suit === "f" && count < 144);
  }
}

export function openPicker(target) {
  state.picker = target;
  showCityTiles();
  showLikely(target);
  markFull(target);
  const editing = target.row !== "meld" && target.index < state.tiles[target.row].length;
  $("picker-win").hidden = !(target.row === "hand" && editing);
  $("picker-remove").hidden = !editing;
  openDialog($("picker"));
}

function closePicker(changed) {
  holdScroll();
  const dialog = $("picker");
  if (dialog.open) dialog.close();
  state.picker = null;
  if (changed) tilesChanged();
}

function pick(tile) {
  const p = state.picker;
  if (!p) return;
  if (p.row === "meld") {
    const meld = state.tiles.melds[p.meld];
    if (meld.kind === "chow") meld.tiles[p.index] = tile;
    else meld.tiles = meld.tiles.map(() => tile); // a pung or kong is one tile, four times
  } else {
    const list = state.tiles[p.row];
    if (p.row === "hand" && p.index >= list.length && state.reading && state.reading.places) state.reading.places.hand.push(null);
    list[p.index] = tile;
  }
  closePicker(true);
}

/** The picker's words in the page's language. */
export function redrawPicker() {
  for (const c of document.querySelectorAll("#picker-grid .chip")) {
    c.setAttribute("aria-label", `${c.dataset.tile} ${t("pick", { tile: tileName(c.dataset.tile) })}`);
    c.title = tileName(c.dataset.tile);
  }
}
