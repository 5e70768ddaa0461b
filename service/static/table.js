// hupai — the table: a whole game kept by the server (/v1/tables), scoreboard first. The
// four totals on top, "record a win" as the main action, the hands and their trend below,
// the settlement at the end; the read-only view follows the game live (polling with ETag)
// and is joined by a QR code. It takes over steps of the page through hooks (reading a
// photo, scoring, naming seats); while a table is open the seat selects hold *players* (0-3
// in chair order) and the server turns them into each hand's seats.
import { $, api, confirmAction, option, reveal, send, setStatus, showError } from "./dom.js";
import { register } from "./hooks.js";
import { choiceText, cityTitle, errorText, fieldLabel, isZh, onLanguage, t, windText, winText } from "./i18n.js";
import { series, trendChart } from "./chart.js";
import { context, currentCity, relabelSeatSelects, renderCity, showDiscarder } from "./form.js";
import { renderTiles, tileFields, tilesFromRequest, updateMeldSeats } from "./hand.js";
import { showTyped } from "./notation.js";
import { qrCanvas } from "./qr.js";
import { openRules } from "./rules.js";
import { clearReading, sendPhoto, showReading } from "./reading.js";
import { rescore, rescoreNow } from "./scoring.js";
import { renderSettlement, saveSettlementImage, shareSettlement } from "./settlement.js";
import { state } from "./state.js";
import { done, redo, showStackButtons, startUndo, undo } from "./undo.js";
import { chip, parseTiles } from "./tiles.js";

const TABLE_KEY = "hupai.table"; // the write token of the table this phone keeps
const FILLED_BY_TABLE = ["city", "options", "round_wind", "dealer_streak"];
const POLL_MS = 1000; // the live view asks this often (an unchanged table answers 304)

const game = {
  token: null, // the token this page was opened with (write or read)
  view: null, // GET /v1/tables/{token}
  etag: null,
  editing: null, // the hand being fixed: {number, revision, entry}
  photo: null, // the photo (made small) the tiles were read from, sent again when added
  poll: null,
};

// -- names ------------------------------------------------------------------------------------

/** The seating of the hand being scored: the next hand's, or the edited hand's. */
function currentSeating() {
  if (game.editing) {
    const hand = game.view.hands.find((h) => h.number === game.editing.number);
    if (hand && hand.seating) return hand.seating;
  }
  return game.view.next;
}

/** A player as the selects show them: "Bo (deals)". */
function playerLabel(player) {
  const v = game.view;
  const dealer = currentSeating().dealer;
  const deals = isZh() ? "（庄）" : ` (${t("deals")})`;
  return `${v.players[player]}${player === dealer ? deals : ""}`;
}

/** A player's wind in a seating (the dealer is East). */
function windOf(player, seating) {
  return windText((player - seating.dealer + 4) % 4);
}

function roundWind(seating) {
  return windText(Number(String(seating.round_wind)[0]) - 1);
}

// -- opening a table --------------------------------------------------------------------------

function tokenFromUrl() {
  const m = /(?:^|[#&])table=([A-Za-z0-9]+)/.exec(location.hash);
  return m ? m[1] : null;
}

export async function startTable() {
  register("seatName", (seat) => (game.view ? playerLabel(seat) : undefined));
  register("read", (file, seq) => (game.view ? readPhoto(file, seq) : undefined));
  register("score", (seq) => (game.view ? preview(seq) : undefined));
  onLanguage(() => game.view && showTable(game.view));
  $("game-start").addEventListener("click", openNewTable);
  $("nt-cancel").addEventListener("click", () => $("new-table").close());
  $("new-table-form").addEventListener("submit", createTable);
  $("game-leave").addEventListener("click", leaveTable);
  $("game-undo").addEventListener("click", undo);
  $("game-redo").addEventListener("click", redo);
  $("record-win").addEventListener("click", startRecording);
  $("game-draw").addEventListener("click", () => toggle("draw-box"));
  $("draw-add").addEventListener("click", addDraw);
  $("game-share").addEventListener("click", () => toggle("share-box"));
  $("game-settle").addEventListener("click", () => toggle("settle-box"));
  $("game-rules-edit").addEventListener("click", () => {
    const city = state.meta.cities.find((c) => c.name === game.view.city);
    openRules(game.view, city, game.token, async () => {
      await refreshTable();
      setStatus(t("rules_changed"));
    });
  });
  $("settle-text").addEventListener("click", () => shareSettlement(game.view));
  $("settle-image").addEventListener("click", () => saveSettlementImage(game.view));
  $("table-add").addEventListener("click", addHand);
  $("table-save").addEventListener("click", saveHand);
  $("table-delete").addEventListener("click", deleteHand);
  $("table-cancel").addEventListener("click", () => stopRecording(true));
  for (const id of ["nt-p0", "nt-p1", "nt-p2", "nt-p3"]) $(id).addEventListener("input", fillDealerChoice);
  window.addEventListener("hashchange", () => openTable(tokenFromUrl()));
  document.addEventListener("visibilitychange", () => document.hidden || poll());
  const token = tokenFromUrl() || localStorage.getItem(TABLE_KEY);
  if (token) await openTable(token);
}

function toggle(id) {
  const box = $(id);
  box.hidden = !box.hidden;
  if (!box.hidden) reveal(box);
}

async function openTable(token) {
  if (!token || token === game.token) return;
  try {
    const view = await api(`/v1/tables/${token}`);
    game.token = token;
    startUndo(game.token, () => game.view, refreshTable);
    showTable(view);
    if (view.access === "write") localStorage.setItem(TABLE_KEY, token);
    if (tokenFromUrl() !== token) history.replaceState(null, "", `#table=${token}`);
    startPolling();
  } catch (err) {
    if (localStorage.getItem(TABLE_KEY) === token) localStorage.removeItem(TABLE_KEY);
    showError(err);
  }
}

function showTable(view) {
  const first = !game.view;
  game.view = view;
  document.body.dataset.mode = "table";
  document.body.dataset.access = view.access;
  $("game-none").hidden = true;
  $("game-on").hidden = false;
  $("game-name").textContent = view.name || t("game");
  const city = state.meta.cities.find((c) => c.name === view.city);
  $("game-city").textContent = city ? cityTitle(city) : "";
  renderScoreboard(view);
  renderHands(view);
  renderSettlement(view);
  renderShare(view);
  showDrawInputs(city);
  if (first) {
    // the table's city and house rules; the round wind and streak come from the table
    $("city").value = view.city;
    $("city").disabled = true;
    $("round_wind").closest("label").hidden = true;
    renderCity();
    $("options-box").hidden = true;
    $("winner").prepend(option("", t("who_won"), true));
    $("winner").value = "";
  } else {
    $("winner").options[0].textContent = t("who_won");
  }
  relabelSeatSelects();
  renderTiles();
  showStackButtons();
}

// -- the scoreboard ---------------------------------------------------------------------------

function renderScoreboard(view) {
  const box = $("totals");
  box.replaceChildren();
  const next = view.next;
  view.players.forEach((name, player) => {
    const card = document.createElement("div");
    card.className = "seat" + (player === next.dealer ? " dealer" : "");
    card.dataset.player = player;
    const head = document.createElement("div");
    head.className = "name";
    const swatch = document.createElement("span");
    swatch.className = `swatch p${player}`;
    swatch.setAttribute("aria-hidden", "true");
    const wind = document.createElement("span");
    wind.className = "wind";
    wind.textContent = windOf(player, next);
    head.append(swatch, wind, " ", name);
    const total = document.createElement("div");
    total.className = "delta total";
    total.textContent = String(view.totals[player]);
    const m = document.createElement("div");
    m.className = "money";
    m.textContent = view.money ? view.money[player] : "";
    card.append(head, total, m);
    box.append(card);
  });
  $("game-rules").textContent = rulesText(view);
  const streak = next.dealer_streak > 1 ? t("streak", { n: next.dealer_streak }) : "";
  $("game-next").textContent = t("next", { wind: roundWind(next), deal: next.deal, dealer: next.dealer_name }) + streak;
  const writable = view.access === "write";
  for (const id of ["record-win", "game-draw", "game-undo", "game-redo", "game-rules-edit"]) $(id).hidden = !writable;
}

/** The table's house rules and options that differ from the city's defaults, in a line. */
function rulesText(view) {
  const city = state.meta.cities.find((c) => c.name === view.city);
  const given = { ...(view.options || {}), ...(view.house_rules || {}) };
  const parts = [];
  for (const f of (city && city.options) || []) {
    const v = given[f.name];
    if (v === undefined || v === f.default) continue;
    if (f.type === "boolean") {
      if (v) parts.push(fieldLabel(f.name));
    } else parts.push(`${fieldLabel(f.name).replace(/（.*）$/, "")} ${f.enum ? choiceText(v) : v}`);
  }
  return parts.length ? `${t("house_rules_table")}: ${parts.join(" · ")}` : "";
}

function describeHand(h) {
  if (h.kind === "draw") return t("draw");
  const how = winText(h.win || "");
  if (h.discarder_name) return t("won_from", { who: h.winner_name, how, from: h.discarder_name });
  return t("won", { who: h.winner_name, how });
}

function renderHands(view) {
  const list = $("hand-list");
  list.replaceChildren();
  $("hand-count").textContent = String(view.hands.length);
  $("hands-none").hidden = view.hands.length > 0;
  view.hands.forEach((h, i) => {
    const li = document.createElement("li");
    li.dataset.number = h.number;
    li.classList.toggle("editing", Boolean(game.editing && game.editing.number === h.number));
    const where = document.createElement("span");
    where.className = "where";
    const s = h.seating || {};
    where.textContent = `#${i + 1} · ${t("round_deal", { wind: roundWind(s), deal: s.deal, dealer: s.dealer_name })}`;
    const what = document.createElement("span");
    what.className = "what";
    what.textContent = describeHand(h);
    li.append(where, what);
    if (h.photo) {
      const img = document.createElement("img");
      img.className = "thumb";
      img.loading = "lazy";
      img.alt = "";
      img.src = `/v1/tables/${game.token}/hands/${h.number}/thumbnail.jpg`;
      li.append(img);
    }
    if (h.tiles) {
      const tiles = document.createElement("span");
      tiles.className = "chips small";
      tiles.setAttribute("aria-hidden", "true");
      for (const x of parseTiles(h.tiles)) tiles.append(chip(x));
      for (const c of tiles.querySelectorAll("button")) c.tabIndex = -1;
      li.append(tiles);
    }
    const d = document.createElement("span");
    d.className = "hand-deltas";
    d.textContent = view.players.map((p, k) => `${p} ${h.deltas[k] > 0 ? "+" : ""}${h.deltas[k]}`).join(" · ");
    li.append(d);
    if (view.access === "write" && h.kind === "win") {
      const fix = document.createElement("button");
      fix.type = "button";
      fix.className = "link fix";
      fix.textContent = t("fix_hand", { n: i + 1 });
      fix.addEventListener("click", () => editHand(h));
      li.append(fix);
    }
    list.append(li);
  });
  const chart = $("trend");
  chart.replaceChildren();
  $("trend-box").hidden = view.hands.length === 0;
  if (view.hands.length) {
    chart.append(trendChart(series(view.starting_points || 0, view.hands), t("trend_desc")));
    const legend = document.createElement("ul");
    legend.className = "legend";
    view.players.forEach((p, k) => {
      const li = document.createElement("li");
      const sw = document.createElement("span");
      sw.className = `swatch p${k}`;
      sw.setAttribute("aria-hidden", "true");
      li.append(sw, `${p} ${view.totals[k]}`);
      legend.append(li);
    });
    chart.append(legend);
  }
}

// -- share: links and the QR code -------------------------------------------------------------

function renderShare(view) {
  const read = `${location.origin}/#table=${view.read_token}`;
  $("share-read").value = read;
  const writable = view.access === "write";
  $("share-write-label").hidden = !writable;
  if (writable) $("share-write").value = `${location.origin}/#table=${view.write_token}`;
  // the read link: an export's address is safe to pass on, whoever made it
  $("export-csv").href = `/v1/tables/${view.read_token}/export.csv`;
  $("export-json").href = `/v1/tables/${view.read_token}/export.json`;
  const box = $("share-qr");
  if (box.dataset.text !== read || box.dataset.lang !== String(isZh())) {
    box.replaceChildren(qrCanvas(read, t("scan_to_watch")));
    box.dataset.text = read;
    box.dataset.lang = String(isZh());
  }
}

// -- live: polling with ETag ------------------------------------------------------------------

function startPolling() {
  clearInterval(game.poll);
  game.poll = setInterval(poll, POLL_MS);
}

/** Ask whether the table changed (If-None-Match: an unchanged table answers 304, no body);
 * while a hand is being recorded or fixed on this phone, the board is left as it is. */
async function poll() {
  if (!game.token || document.hidden || game.polling) return;
  if (document.body.classList.contains("recording")) return;
  game.polling = true;
  try {
    const headers = game.etag ? { "If-None-Match": game.etag } : {};
    const response = await fetch(`/v1/tables/${game.token}`, { headers, cache: "no-store" });
    $("live").classList.toggle("off", false);
    if (response.status === 200) {
      game.etag = response.headers.get("ETag");
      const view = await response.json();
      if (view.revision !== game.view.revision || view.hands.length !== game.view.hands.length) showTable(view);
    }
  } catch (e) {
    $("live").classList.toggle("off", true);
  } finally {
    game.polling = false;
  }
}

async function refreshTable() {
  const response = await fetch(`/v1/tables/${game.token}`, { cache: "no-store" });
  if (!response.ok) throw await response.json();
  game.etag = response.headers.get("ETag");
  showTable(await response.json());
}

// -- recording a hand -------------------------------------------------------------------------

/** "Record a win": a fresh hand — nobody chosen as winner, self-draw, no tiles, no photo. */
function startRecording() {
  clearHand();
  document.body.classList.add("recording");
  $("winner").value = "";
  $("win").value = "self_draw";
  $("last_tile").checked = false;
  $("first_turn").checked = false;
  showDiscarder();
  $("to-table").hidden = false;
  $("table-add").disabled = true;
  setStatus(t("choose_winner"));
  $("table").scrollIntoView({ block: "start" });
  $("winner").focus();
}

function stopRecording(cancelled) {
  clearHand();
  document.body.classList.remove("recording");
  if (cancelled) setStatus("");
  $("game").scrollIntoView({ block: "start" });
  poll();
}

function clearHand() {
  state.tiles = null;
  game.photo = null;
  game.editing = null;
  clearReading();
  showError(null);
  for (const id of ["table-save", "table-delete", "editing-note"]) $(id).hidden = true;
  $("table-add").hidden = false;
  renderTiles();
  showTyped();
  relabelSeatSelects();
  if (game.view) renderHands(game.view);
}

/** The hand as the table takes it: the page's context and tiles in players' terms, less what
 * the table fills in. Fields of an edited hand the page does not show are kept. */
function tableEntry() {
  const base = game.editing ? { ...game.editing.entry } : {};
  const entry = { ...base, ...context(), ...tileFields(), kind: "win" };
  for (const name of FILLED_BY_TABLE) delete entry[name];
  if (!(entry.win === "discard" || entry.win === "robbed_kong")) delete entry.discarder;
  return entry;
}

/** The photo hook: read the tiles (no score yet: the table scores them with its context). */
async function readPhoto(file, seq) {
  const { body, photo } = await sendPhoto("/v1/read?image=url", file, { city: game.view.city });
  if (seq !== state.seq) return null;
  game.photo = photo;
  showReading(body.reading, body.annotated_image, body.reading.request);
  setStatus(t("read_n_short", { n: body.reading.detections.class_id.length }));
  rescoreNow(); // at once: the player is waiting for this score
  return null;
}

/** The score hook: the hand as the table would score it (its dealer, wind, streak). */
async function preview(seq) {
  if ($("winner").value === "") {
    $("table-add").disabled = true;
    setStatus(t("choose_winner"));
    $("result").hidden = true;
    return null;
  }
  const number = game.editing ? `?number=${game.editing.number}` : "";
  const body = await send("POST", `/v1/tables/${game.token}/preview${number}`, tableEntry());
  if (seq !== state.seq) return null;
  state.shownDealer = body.seating.dealer;
  $("table-add").disabled = Boolean(body.problem);
  $("table-save").disabled = Boolean(body.problem);
  return { result: body.result, byPlayer: body.deltas };
}

async function addHand() {
  if ($("winner").value === "") return showError({ local: t("choose_winner") });
  const entry = tableEntry();
  setStatus(t("adding"), true);
  try {
    let body;
    if (game.photo) {
      const form = new FormData();
      form.append("photo", game.photo, "photo.jpg");
      form.append("context", JSON.stringify(entry));
      body = await api(`/v1/tables/${game.token}/photo`, { method: "POST", body: form });
    } else {
      body = await send("POST", `/v1/tables/${game.token}/hands`, entry);
    }
    done({ kind: "add", number: body.hand.number, revision: body.hand.revision, entry }, game.photo);
    await refreshTable();
    stopRecording(false);
    setStatus(t("hand_added", { what: describeHand(body.hand) }));
  } catch (err) {
    setStatus("");
    showError(err);
  }
}

async function addDraw() {
  const city = state.meta.cities.find((c) => c.name === game.view.city);
  const entry = { kind: "draw" };
  const draw = (city.succession || {}).draw;
  if (draw === "last_drawer") entry.last_drawer = Number($("draw-drawer").value);
  if (draw === "passes_if_kong" && $("draw-kong").checked) entry.kong_declared = true;
  if (city.draws) {
    const hands = [0, 1, 2, 3].map((i) => $(`draw-hand-${i}`).value.trim());
    if (hands.some((h) => h) && !hands.every((h) => h)) {
      showError({ local: t("draw_hands_partial") });
      return;
    }
    if (hands.every((h) => h)) entry.hands = hands.map((hand) => ({ hand }));
  }
  try {
    const body = await send("POST", `/v1/tables/${game.token}/hands`, entry);
    done({ kind: "draw", number: body.hand.number, revision: body.hand.revision, entry });
    $("draw-box").hidden = true;
    $("draw-kong").checked = false;
    for (const input of document.querySelectorAll("#draw-hand-inputs input")) input.value = "";
    await refreshTable();
    setStatus(t("draw_added"));
  } catch (err) {
    showError(err);
  }
}

function showDrawInputs(city) {
  // a city that settles a drawn hand (Guiyang's yellow tile) takes the four hands
  $("draw-hands").hidden = !(city && city.draws);
  const inputs = $("draw-hand-inputs");
  if (city && city.draws && inputs.children.length !== 4) {
    inputs.replaceChildren(
      ...game.view.players.map((name, i) => {
        const label = document.createElement("label");
        const caption = document.createElement("span");
        caption.textContent = name;
        const input = document.createElement("input");
        input.type = "text";
        input.id = `draw-hand-${i}`;
        input.autocapitalize = "off";
        input.spellcheck = false;
        input.placeholder = "123m456m789m123p5s";
        label.append(caption, input);
        return label;
      }),
    );
  }
  const succession = (city && city.succession) || {};
  $("draw-drawer-label").hidden = succession.draw !== "last_drawer";
  $("draw-kong-label").hidden = succession.draw !== "passes_if_kong";
  const sel = $("draw-drawer");
  const keep = sel.value;
  sel.replaceChildren(...game.view.players.map((p, i) => option(String(i), p, String(i) === keep)));
}

// -- fixing an earlier hand -------------------------------------------------------------------

function editHand(hand) {
  clearHand();
  document.body.classList.add("recording");
  game.editing = { number: hand.number, revision: hand.revision, entry: hand.entry };
  const e = hand.entry;
  $("win").value = e.win || "self_draw";
  $("winner").value = String(e.winner);
  if (e.discarder !== undefined && e.discarder !== null) $("discarder").value = String(e.discarder);
  $("last_tile").checked = Boolean(e.last_tile);
  $("first_turn").checked = Boolean(e.first_turn);
  showDiscarder();
  state.tiles = tilesFromRequest(e, null);
  updateMeldSeats();
  $("editing-note").textContent = t("fixing", { n: game.view.hands.indexOf(hand) + 1 });
  for (const id of ["editing-note", "table-save", "table-delete", "to-table"]) $(id).hidden = false;
  $("table-add").hidden = true;
  relabelSeatSelects();
  renderHands(game.view);
  renderTiles();
  showTyped();
  rescore();
  $("table").scrollIntoView({ block: "start" });
}

async function saveHand() {
  const { number, revision } = game.editing;
  const entry = tableEntry();
  try {
    const body = await send("PUT", `/v1/tables/${game.token}/hands/${number}`, { revision, hand: entry });
    done({ kind: "edit", number, revision: body.hand.revision, entry });
    await refreshTable();
    stopRecording(false);
    setStatus(t("hand_changed"));
  } catch (err) {
    showError(err);
    if (err.code === "stale") await refreshTable();
  }
}

async function deleteHand() {
  const { number, revision } = game.editing;
  const n = game.view.hands.findIndex((h) => h.number === number) + 1;
  if (!(await confirmAction(t("confirm_delete", { n }), t("delete")))) return;
  try {
    const body = await api(`/v1/tables/${game.token}/hands/${number}?revision=${revision}`, { method: "DELETE" });
    done({ kind: "delete", number, revision: body.hand ? body.hand.revision : revision + 1 });
    await refreshTable();
    stopRecording(false);
    setStatus(t("hand_deleted"));
  } catch (err) {
    showError(err);
  }
}

// -- a new table, leaving it ------------------------------------------------------------------

function fillDealerChoice() {
  const sel = $("nt-dealer");
  const keep = sel.value || "0";
  sel.replaceChildren(
    ...[0, 1, 2, 3].map((i) =>
      option(String(i), $(`nt-p${i}`).value.trim() || t("player_n", { n: i + 1 }), String(i) === keep),
    ),
  );
}

/** The new table's dialog holds the city's option widgets (house rules first) while open;
 * they go back to the one-hand form when it closes. */
function openNewTable() {
  fillDealerChoice();
  const city = currentCity();
  $("nt-tip").textContent = t("new_table_tip", { city: cityTitle(city) });
  $("nt-options").append($("city-options"));
  $("nt-options").hidden = city.options.length === 0;
  $("new-table").addEventListener("close", () => $("options-box").append($("city-options")), { once: true });
  $("nt-succession-label").hidden = !(city.succession && city.succession.other_win_option);
  $("nt-error").hidden = true;
  $("new-table").showModal();
}

async function createTable(event) {
  event.preventDefault();
  const ctx = context();
  const body = {
    name: $("nt-name").value.trim(),
    city: ctx.city,
    players: [0, 1, 2, 3].map((i) => $(`nt-p${i}`).value.trim()),
    first_dealer: Number($("nt-dealer").value || 0),
    starting_points: Number($("nt-start").value || 0),
    options: ctx.options || {},
  };
  if ($("nt-rate").value.trim()) body.rate = $("nt-rate").value.trim();
  if (!$("nt-succession-label").hidden && $("nt-succession").value) body.succession = $("nt-succession").value;
  try {
    const view = await send("POST", "/v1/tables", body);
    $("new-table").close();
    game.token = view.write_token;
    localStorage.setItem(TABLE_KEY, view.write_token);
    history.replaceState(null, "", `#table=${view.write_token}`);
    startUndo(game.token, () => game.view, refreshTable);
    showTable(view);
    startPolling();
    setStatus(t("table_started", { players: view.players.join(isZh() ? "、" : ", ") }));
  } catch (err) {
    const box = $("nt-error");
    const { message } = errorText(err);
    box.textContent = message;
    box.hidden = false;
  }
}

async function leaveTable() {
  if (!(await confirmAction(t("confirm_leave"), t("leave")))) return;
  localStorage.removeItem(TABLE_KEY);
  history.replaceState(null, "", location.pathname);
  location.reload();
}

