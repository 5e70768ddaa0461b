// hupai — the typed hand: "123m456p789s11122z" (melds in brackets) in one field, with a live
// preview of the tiles and the first problem in plain words, beside the photo.
import { $ } from "./dom.js";
import { t } from "./i18n.js";
import { renderTiles } from "./hand.js";
import { rescore } from "./scoring.js";
import { state } from "./state.js";
import { NotationError, formatHand, handProblem, notationMessage, parseHand } from "./tiles.js";

let timer = null;

export function startNotation() {
  const input = $("notation");
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(typed, 150);
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      clearTimeout(timer);
      typed();
    }
  });
}

/** Read the field: the tiles (the set-apart ones kept), the preview, the problem if any. */
function typed() {
  const text = $("notation").value;
  const box = $("notation-error");
  let tiles;
  try {
    tiles = parseHand(text);
  } catch (e) {
    if (!(e instanceof NotationError)) throw e;
    box.textContent = notationMessage(e);
    box.hidden = false;
    $("notation").setAttribute("aria-invalid", "true");
    return;
  }
  const old = state.tiles;
  if (old) {
    tiles.indicator = old.indicator;
    tiles.fishing = old.fishing;
    if (!tiles.flowers.length) tiles.flowers = old.flowers;
  }
  state.tiles = tiles;
  state.reading = null; // typed: no photo's boxes behind these tiles
  state.alternatives = {};
  const problem = handProblem(tiles);
  const blocking = problem && problem.code !== "too_few_tiles";
  box.textContent = problem ? t(problem.code, problem.vars) : "";
  box.hidden = !problem;
  $("notation").setAttribute("aria-invalid", blocking ? "true" : "false");
  preview(tiles);
  renderTiles();
  if (text.trim()) rescore();
}

function preview(tiles) {
  const strip = $("notation-preview");
  strip.replaceChildren();
  const all = [...tiles.hand.map((x, i) => [x, i === tiles.win ? "win" : ""])];
  for (const m of tiles.melds) for (const x of m.tiles) all.push([x, "meld"]);
  for (const x of tiles.flowers) all.push([x, "flower"]);
  for (const [tile, kind] of all) {
    const img = document.createElement("img");
    img.src = `/static/tiles/${tile}.svg`;
    img.alt = "";
    img.className = "mini " + kind;
    strip.append(img);
  }
  $("notation-count").textContent = all.length ? t("n_tiles", { n: all.length }) : "";
}

/** Show tiles edited elsewhere (picker, photo) as typed notation, unless the player is typing. */
export function showTyped() {
  const input = $("notation");
  if (document.activeElement === input) return;
  if (!state.tiles) {
    input.value = "";
    $("notation-preview").replaceChildren();
    $("notation-count").textContent = "";
    $("notation-error").hidden = true;
    return;
  }
  input.value = formatHand(state.tiles);
  preview(state.tiles);
  const problem = handProblem(state.tiles);
  $("notation-error").textContent = problem ? t(problem.code, problem.vars) : "";
  $("notation-error").hidden = !problem;
}
