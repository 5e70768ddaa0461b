// hupai — the phone page: photo or typed tiles → tiles a person can fix → score; a whole
// game at a table (table.js). Native ES modules, no build step; this one starts them.
//
//   i18n.js      the two languages (by code), onLanguage
//   dom.js       elements, the API, status, errors, confirmations
//   hooks.js     how table.js takes over steps (read, score, seat names) without globals,
//                and the events a module tells the ones above it (wired here): the
//                modules import one way (tests/service/test_page_modules.py)
//   form.js      the table form (city, who won, city fields, house rules) → context()
//   tiles.js     notation, hand size and four copies, the typed hand, the tile chip
//   hand.js      the hand's tiles on the page (photo order), rows of chips, request fields
//   picker.js    the tile picker        notation.js  the typed hand with its preview
//   shrink.js    the photo made small, sent with progress
//   reading.js   a photo's reading: warnings, suggestion, tap the photo to fix a tile
//   scoring.js   scoring the tiles and drawing the score
//   table.js     a table: the scoreboard, recording a hand, history, live view, share
//   undo.js      undo/redo stacks       rules.js     house rules changed mid-game
//   settlement.js + settle.js   who pays whom, fewest transfers
//   chart.js, qr.js   the trend chart, the QR code (vendor/uqr)
import { $, api, redrawStatus, showError, startDialogs } from "./dom.js";
import { on } from "./hooks.js";
import { applyStaticText, isZh, onLanguage, setLanguage } from "./i18n.js";
import { fillTable, redrawForm, renderCity, showDiscarder } from "./form.js";
import { addMeld, ensureTiles, renderTiles, updateMeldSeats } from "./hand.js";
import { showTyped, startNotation } from "./notation.js";
import { buildPicker, openPicker, redrawPicker } from "./picker.js";
import { renderReading, startReading } from "./reading.js";
import { redrawScore, rescore } from "./scoring.js";
import { state } from "./state.js";
import { startTable } from "./table.js";

/** The events the modules below tell (they import one way: none imports one above it). */
function wireEvents() {
  on("rescore", rescore);
  on("pick", openPicker);
  on("show-typed", showTyped);
  on("redraw-tiles", renderTiles);
}

async function start() {
  wireEvents();
  applyStaticText();
  startDialogs();
  $("lang").addEventListener("click", () => setLanguage(isZh() ? "en" : "zh"));
  buildPicker();
  try {
    state.meta = await api("/v1/cities");
  } catch (err) {
    showError(err);
    return;
  }
  fillTable(state.meta);
  renderCity();
  showDiscarder();
  $("city").addEventListener("change", () => {
    renderCity();
    rescore();
  });
  $("win").addEventListener("change", () => {
    showDiscarder();
    rescore();
  });
  $("winner").addEventListener("change", () => {
    showDiscarder();
    updateMeldSeats();
    renderTiles();
    rescore();
  });
  for (const id of ["table", "more"]) {
    $(id).addEventListener("change", (e) => {
      if (!["city", "win", "winner"].includes(e.target.id)) rescore();
    });
  }
  startReading();
  startNotation();
  $("manual").addEventListener("click", () => {
    ensureTiles();
    renderTiles();
    showTyped();
    $("tiles").scrollIntoView({ behavior: "smooth" });
  });
  $("add-meld").addEventListener("click", addMeld);
  onLanguage(() => {
    redrawForm();
    redrawPicker();
    renderTiles();
    showTyped();
    renderReading();
    redrawScore();
    redrawStatus();
  });
  await startTable();
  document.body.dataset.ready = "1";
}

document.addEventListener("DOMContentLoaded", start);
