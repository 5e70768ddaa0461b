// hupai — the table: a whole game kept by the server (/v1/tables), scoreboard first. The
// four totals on top, "record a win" as the main action, the hands and their trend below,
// the settlement at the end; the read-only view follows the game live (polling with ETag)
// and is joined by a QR code. It takes over steps of the page through hooks (reading a
// photo, scoring, naming seats); while a table is open the seat selects hold *players* (0-3
// in chair order) and the server turns them into each hand's seats.
import { $, api, confirmAction, explainError, openDialog, option, reveal, send, setStatus, showError } from "./dom.js";
import { register } from "./hooks.js";
import { choiceText, cityTitle, fieldLabel, isZh, onLanguage, problemText, t, windText, winText } from "./i18n.js";
import { series, trendChart } from "./chart.js";
import { context, currentCity, relabelSeatSelects, renderCity, renderCityFields, showDiscarder } from "./form.js";
import { renderTiles, tileFields, tilesFromRequest, updateMeldSeats } from "./hand.js";
import { showTyped } from "./notation.js";
import { qrCanvas } from "./qr.js";
import { openRules } from "./rules.js";
import { clearReading, sendPhoto, showReading } from "./reading.js";
import { rescore, rescoreNow } from "./scoring.js";
import { renderSettlement, saveSettlementImage, shareSettlement } from "./settlement.js";
import { state } from "./state.js";
import { done, redo, showStackButtons, startUndo, undo } from "./undo.js";
import { parseTiles } from "./tiles.js";

const TABLE_KEY = "hupai.table"; // the write token of the table this phone keeps
const FILLED_BY_TABLE = ["city", "options", "round_wind", "dealer_streak"];
const POLL_MS = 1000; // the live view asks this often (an unchanged table answers 304)

const game = {
  token: null, // the token this page was opened with (write or read)
  view: null, // GET /v1/tables/{token}
  etag: null,
  editing: null, // the hand being fixed: {number, revision, entry}
  editingDraw: null, // the draw being fixed: {number, revision, entry}
  photo: null, // the photo (made small) the tiles were read from: sent again only if need be
  photoKey: null, // the server's key for that photo's reading and annotated picture
  poll: null,
  changed: null, // the views before and after the latest change (its list, redrawn on a switch)
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
  register("unscorable", () => {
    if (!game.view) return undefined;
    $("table-add").disabled = true;
    $("table-save").disabled = true;
    return null;
  });
  onLanguage(() => {
    if (!game.view) return;
    showTable(game.view);
    if (game.changed) showChanges(...game.changed); // the list a change left, in the new words
  });
  $("game-start").addEventListener("click", openNewTable);
  $("nt-cancel").addEventListener("click", () => $("new-table").close());
  $("new-table-form").addEventListener("submit", createTable);
  $("game-leave").addEventListener("click", leaveTable);
  $("game-undo").addEventListener("click", undo);
  $("game-redo").addEventListener("click", redo);
  $("record-win").addEventListener("click", startRecording);
  $("game-draw").addEventListener("click", () => {
    stopEditingDraw();
    toggle("draw-box");
  });
  $("draw-add").addEventListener("click", addDraw);
  $("draw-delete").addEventListener("click", deleteDraw);
  $("nt-city").addEventListener("change", () => {
    $("city").value = $("nt-city").value;
    renderCity();
    showNewTableCity();
  });
  $("game-share").addEventListener("click", () => toggle("share-box"));
  $("game-settle").addEventListener("click", () => toggle("settle-box"));
  $("game-rules-edit").addEventListener("click", () => {
    const was = game.view.city;
    openRules(game.view, state.meta.cities, game.token, async (next) => {
      await refreshTable();
      const city = state.meta.cities.find((c) => c.name === next.city);
      setStatus(() => (next.city === was ? t("rules_changed") : t("city_changed", { city: cityTitle(city) })));
    });
  });
  $("settle-text").addEventListener("click", () => shareSettlement(game.view));
  $("settle-image").addEventListener("click", () => saveSettlementImage(game.view));
  $("table-add").addEventListener("click", addHand);
  $("table-save").addEventListener("click", saveHand);
  $("table-delete").addEventListener("click", deleteHand);
  $("table-cancel").addEventListener("click", cancelRecording);
  $("share-copy").addEventListener("click", copyReadLink);
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
  const before = game.view;
  game.view = view;
  document.body.dataset.mode = "table";
  document.body.dataset.access = view.access;
  $("read-only-tag").hidden = view.access === "write";
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
    state.tableFields = new Set(FILLED_BY_TABLE);
    renderCity();
    $("options-box").hidden = true;
    const ask = option("", t("who_won"), true);
    ask.dataset.i18n = "who_won";
    ask.disabled = true;
    $("winner").prepend(ask);
    $("winner").value = "";
  } else {
    $("winner").options[0].textContent = t("who_won");
    if (before && before.city !== view.city) {
      // the table's city was changed (here or on another phone): the form follows it
      $("city").value = view.city;
      renderCity();
      $("options-box").hidden = true;
    }
    if (before && before.revision !== view.revision) {
      game.changed = [before, view];
      showChanges(before, view);
    }
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
  $("game-next").textContent = t("next", { n: view.hands ? view.hands.length + 1 : view.hand_count + 1, wind: roundWind(next), dealer: next.dealer_name }) + streak;
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
    li.dataset.ordinal = i + 1;
    li.classList.toggle("editing", Boolean(game.editing && game.editing.number === h.number));
    // one compact row (issue #39, row 18): which hand and what happened, the deltas, and
    // beside them the thumbnail and the fix button; the tiles across the row below
    const head = document.createElement("span");
    head.className = "head";
    const where = document.createElement("span");
    where.className = "where";
    const s = h.seating || {};
    where.textContent = `${t("hand_n", { n: i + 1 })} · ${t("round_deal_short", { wind: roundWind(s), dealer: s.dealer_name })}`;
    const what = document.createElement("span");
    what.className = "what";
    what.textContent = describeHand(h);
    head.append(where, " ", what);
    const d = document.createElement("span");
    d.className = "hand-deltas";
    d.textContent = view.players.map((p, k) => `${p} ${h.deltas[k] > 0 ? "+" : ""}${h.deltas[k]}`).join(" · ");
    const side = document.createElement("span");
    side.className = "side";
    if (h.photo) {
      const img = document.createElement("img");
      img.className = "thumb";
      img.loading = "lazy";
      img.alt = "";
      img.src = `/v1/tables/${game.token}/hands/${h.number}/thumbnail.jpg`;
      side.append(img);
    }
    if (view.access === "write") {
      const fix = document.createElement("button");
      fix.type = "button";
      fix.className = "link fix";
      fix.textContent = t("fix");
      fix.setAttribute("aria-label", t("fix_hand", { n: i + 1 }));
      fix.addEventListener("click", () => (h.kind === "win" ? editHand(h) : editDraw(h)));
      side.append(fix);
    }
    li.append(head, side, d);
    if (h.tiles) li.append(handTiles(h));
    if (h.problem && h.problem !== "ok") {
      // kept as given, but not scored (a change of city or an earlier edit left it so)
      li.classList.add("unscored");
      const problem = document.createElement("span");
      problem.className = "problem";
      problem.dataset.testid = "hand-problem";
      problem.textContent = t("hand_problem", { why: problemText(h.problem) });
      li.append(problem);
    }
    list.prepend(li); // newest first
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

/** A hand's tiles, small and not tappable: the concealed tiles, then each meld apart. */
function handTiles(h) {
  const box = document.createElement("span");
  box.className = "hand-tiles";
  box.setAttribute("aria-hidden", "true");
  const group = (tiles, kind) => {
    const g = document.createElement("span");
    g.className = `tile-group ${kind}`;
    for (const x of parseTiles(tiles)) {
      const img = document.createElement("img");
      img.src = `/static/tiles/${x}.svg`;
      img.alt = "";
      img.className = "mini";
      img.dataset.tile = x;
      g.append(img);
    }
    box.append(g);
  };
  group(h.tiles, "concealed");
  for (const m of h.melds || []) group(m, "meld");
  return box;
}

/** The hands whose score moved in a change (an edit, a delete, a house rule, an undo): each
 * with the players whose points moved, from what to what. */
function showChanges(before, after) {
  const box = $("changes");
  const old = new Map((before.hands || []).map((h) => [h.number, h]));
  const lines = [];
  const sign = (d) => (d > 0 ? `+${d}` : String(d));
  const city = state.meta.cities.find((c) => c.name === after.city);
  (after.hands || []).forEach((h, i) => {
    const was = old.get(h.number);
    if (!was) return;
    if (h.problem && h.problem !== was.problem) {
      const why = t("changes_problem", { city: city ? cityTitle(city) : after.city, why: problemText(h.problem) });
      lines.push(`${t("hand_n", { n: i + 1 })}${isZh() ? "：" : ": "}${why}`);
      return;
    }
    if (was.deltas.every((d, k) => d === h.deltas[k])) return;
    const moves = after.players
      .map((p, k) => (was.deltas[k] === h.deltas[k] ? null : `${p} ${sign(was.deltas[k])} → ${sign(h.deltas[k])}`))
      .filter(Boolean);
    lines.push(`${t("hand_n", { n: i + 1 })}${isZh() ? "：" : ": "}${moves.join(isZh() ? "，" : ", ")}`);
  });
  const list = $("changes-list");
  list.replaceChildren(
    ...lines.map((text) => {
      const li = document.createElement("li");
      li.textContent = text;
      return li;
    }),
  );
  box.hidden = lines.length === 0;
}

// -- share: links and the QR code -------------------------------------------------------------

function renderShare(view) {
  const read = `${location.origin}/#table=${view.read_token}`;
  $("share-read").value = read;
  const writable = view.access === "write";
  $("share-write-box").hidden = !writable;
  if (writable) $("share-write").value = `${location.origin}/#table=${view.write_token}`;
  // the read link: an export's address is safe to pass on, whoever made it
  $("export-csv").href = `/v1/tables/${view.read_token}/export.csv${isZh() ? "?lang=zh" : ""}`;
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
  setStatus(() => t("choose_winner"));
  $("table").scrollIntoView({ block: "start" });
  $("winner").focus();
}

/** 取消: a hand with a read photo or tiles on it is thrown away only when the player says so. */
async function cancelRecording() {
  // a saved hand being fixed loses nothing; a new hand's photo or tiles would be lost
  const work = !game.editing && (game.photo || (state.tiles && state.tiles.hand.length > 0));
  if (work && !(await confirmAction(t("confirm_drop_photo"), t("drop")))) return;
  stopRecording(true);
}

async function copyReadLink() {
  const input = $("share-read");
  try {
    await navigator.clipboard.writeText(input.value);
    setStatus(() => t("copied"));
  } catch (e) {
    input.select();
    setStatus(() => t("copy_failed"));
  }
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
  game.photoKey = null;
  game.editing = null;
  renderCityFields(); // every hand starts blank: no chickens, kongs … of the last one
  $("discarder").value = "";
  clearReading();
  showError(null);
  for (const id of ["table-save", "table-delete", "editing-banner"]) $(id).hidden = true;
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
  // the server keeps the reading beside its annotated photo: the hand is added by this key,
  // not by sending the photo a second time (issue #39, row 9)
  const kept = /\/v1\/annotated\/([0-9a-f]{32})\.jpg$/.exec(body.annotated_image || "");
  game.photoKey = kept ? kept[1] : null;
  showReading(body.reading, body.annotated_image, body.reading.request);
  setStatus(() => t("read_n_short", { n: body.reading.detections.class_id.length }));
  rescoreNow(); // at once: the player is waiting for this score
  return null;
}

/** The score hook: the hand as the table would score it (its dealer, wind, streak). */
async function preview(seq) {
  if ($("winner").value === "") {
    $("table-add").disabled = true;
    setStatus(() => t("choose_winner"));
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

/** Add the hand: a photo hand by the key of the photo read a moment ago (the server kept its
 * reading and annotated picture); the photo is sent again only when the server no longer
 * has it (restarted, or many photos read since). */
async function addEntry(entry) {
  const hands = `/v1/tables/${game.token}/hands`;
  if (game.photoKey) {
    try {
      return await send("POST", `${hands}?photo=${game.photoKey}`, entry);
    } catch (err) {
      if (!err || err.code !== "photo_gone" || !game.photo) throw err;
    }
  }
  if (!game.photo) return send("POST", hands, entry);
  const form = new FormData();
  form.append("photo", game.photo, "photo.jpg");
  form.append("context", JSON.stringify(entry));
  return api(`/v1/tables/${game.token}/photo`, { method: "POST", body: form });
}

async function addHand() {
  if ($("winner").value === "") return showError({ local: t("choose_winner") });
  const entry = tableEntry();
  setStatus(() => t("adding"), true);
  try {
    const body = await addEntry(entry);
    done({ kind: "add", number: body.hand.number, revision: body.hand.revision, entry, ordinal: game.view.hands.length + 1 }, game.photo);
    await refreshTable();
    stopRecording(false);
    setStatus(() => t("hand_added", { what: describeHand(body.hand) }));
  } catch (err) {
    setStatus("");
    showError(err);
  }
}

async function addDraw() {
  const city = state.meta.cities.find((c) => c.name === game.view.city);
  const entry = { ...(game.editingDraw ? game.editingDraw.entry : {}), kind: "draw" };
  delete entry.last_drawer;
  delete entry.kong_declared;
  delete entry.hands;
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
    const fixing = game.editingDraw;
    if (fixing) {
      const body = await send("PUT", `/v1/tables/${game.token}/hands/${fixing.number}`, { revision: fixing.revision, hand: entry });
      done({ kind: "edit", number: fixing.number, revision: body.hand.revision, entry, ordinal: ordinalOf(fixing.number) });
    } else {
      const body = await send("POST", `/v1/tables/${game.token}/hands`, entry);
      done({ kind: "draw", number: body.hand.number, revision: body.hand.revision, entry, ordinal: game.view.hands.length + 1 });
    }
    stopEditingDraw();
    $("draw-box").hidden = true;
    await refreshTable();
    setStatus(() => t(fixing ? "hand_changed" : "draw_added"));
  } catch (err) {
    showError(err);
  }
}

function ordinalOf(number) {
  return game.view.hands.findIndex((h) => h.number === number) + 1;
}

/** Fix a draw: the draw's box filled with it, saved or deleted like a win. */
function editDraw(hand) {
  stopRecording(true);
  game.editingDraw = { number: hand.number, revision: hand.revision, entry: hand.entry };
  const e = hand.entry;
  if (e.last_drawer !== undefined) $("draw-drawer").value = String(e.last_drawer);
  $("draw-kong").checked = Boolean(e.kong_declared);
  (e.hands || []).forEach((h, i) => {
    const input = $(`draw-hand-${i}`);
    if (input) input.value = h.hand || "";
  });
  $("draw-add").textContent = t("save_changes");
  $("draw-delete").hidden = false;
  $("draw-editing").textContent = t("fixing", { n: ordinalOf(hand.number) });
  $("draw-editing").hidden = false;
  $("draw-box").hidden = false;
  reveal($("draw-box"));
}

function stopEditingDraw() {
  game.editingDraw = null;
  $("draw-add").textContent = t("add_draw");
  $("draw-delete").hidden = true;
  $("draw-editing").hidden = true;
  $("draw-kong").checked = false;
  for (const input of document.querySelectorAll("#draw-hand-inputs input")) input.value = "";
}

function deleteDraw() {
  return deleteInPlay(game.editingDraw, () => {
    stopEditingDraw();
    $("draw-box").hidden = true;
  });
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
  $("editing-banner").textContent = t("fixing", { n: game.view.hands.indexOf(hand) + 1 });
  for (const id of ["editing-banner", "table-save", "table-delete", "to-table"]) $(id).hidden = false;
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
    done({ kind: "edit", number, revision: body.hand.revision, entry, ordinal: ordinalOf(number) });
    await refreshTable();
    stopRecording(false);
    setStatus(() => t("hand_changed"));
  } catch (err) {
    showError(err);
    if (err.code === "stale") await refreshTable();
  }
}

function deleteHand() {
  return deleteInPlay(game.editing, () => stopRecording(false));
}

/** Delete the hand or draw being fixed (``editing``), asking first; ``after()`` puts the
 * form away once the table is shown without it. */
async function deleteInPlay(editing, after) {
  const { number, revision } = editing;
  const n = ordinalOf(number);
  if (!(await confirmAction(t("confirm_delete", { n }), t("delete")))) return;
  try {
    const body = await api(`/v1/tables/${game.token}/hands/${number}?revision=${revision}`, { method: "DELETE" });
    done({ kind: "delete", number, revision: body.hand ? body.hand.revision : revision + 1, ordinal: n });
    await refreshTable();
    after();
    setStatus(() => t("hand_deleted"));
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
  const sel = $("nt-city");
  sel.replaceChildren(...state.meta.cities.map((c) => option(c.name, cityTitle(c), c.name === $("city").value)));
  $("nt-options").append($("city-options"));
  $("new-table").addEventListener("close", () => $("options-box").append($("city-options")), { once: true });
  showNewTableCity();
  $("nt-error").hidden = true;
  openDialog($("new-table"));
}

/** The new table's dialog follows its city: that city's house rules and succession choice. */
function showNewTableCity() {
  const city = currentCity();
  $("nt-options").hidden = city.options.length === 0;
  $("nt-succession-label").hidden = !(city.succession && city.succession.other_win_option);
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
    setStatus(() => t("table_started", { players: view.players.join(isZh() ? "、" : ", ") }));
  } catch (err) {
    explainError($("nt-error"), err);
  }
}

async function leaveTable() {
  if (!(await confirmAction(t("confirm_leave"), t("leave")))) return;
  localStorage.removeItem(TABLE_KEY);
  history.replaceState(null, "", location.pathname);
  location.reload();
}

