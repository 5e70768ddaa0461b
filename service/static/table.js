// hupai — the table on the phone page: a whole game's totals, hands and next dealer, kept by
// the server (/v1/tables). Loaded after app.js and uses its helpers. While a table is open,
// the Winner / Discarded by / seat selects hold *players* (0-3 in chair order); the server
// turns them into each hand's seats and fills in the round wind and the dealer's streak.
"use strict";

const TABLE_KEY = "hupai.table"; // the write token of the table this phone keeps
const FILLED_BY_TABLE = ["city", "options", "round_wind", "dealer_streak"];

const game = {
  token: null, // the token this page was opened with (write or read)
  view: null, // GET /v1/tables/{token}
  editing: null, // the hand being fixed: {number, revision, entry}
  photo: null, // the File the tiles were read from (sent again when the hand is added)
  reading: null,
};

// -- names ------------------------------------------------------------------------------------

/** A player's label in the selects: "Bo (deals)". */
function playerLabel(player) {
  const v = game.view;
  if (!v) return String(player);
  const dealer = currentSeating().dealer;
  const deals = LANG === "zh" ? "（庄）" : ` (${t("deals")})`;
  return `${v.players[player]}${player === dealer ? deals : ""}`;
}

/** The seating of the hand being scored: the next hand's, or the edited hand's. */
function currentSeating() {
  if (game.editing) {
    const hand = game.view.hands.find((h) => h.number === game.editing.number);
    if (hand && hand.seating) return hand.seating;
  }
  return game.view.next;
}

function windOf(seating) {
  return windText(Number(String(seating.round_wind)[0]) - 1);
}

// -- the table's view -------------------------------------------------------------------------

function tokenFromUrl() {
  const m = /(?:^|[#&])table=([A-Za-z0-9]+)/.exec(location.hash);
  return m ? m[1] : null;
}

async function startTable() {
  $("game-start").addEventListener("click", openNewTable);
  $("nt-cancel").addEventListener("click", () => $("new-table").close());
  $("new-table-form").addEventListener("submit", createTable);
  $("game-leave").addEventListener("click", leaveTable);
  $("game-undo").addEventListener("click", undoLast);
  $("game-draw").addEventListener("click", () => ($("draw-box").hidden = !$("draw-box").hidden));
  $("draw-add").addEventListener("click", addDraw);
  $("game-share").addEventListener("click", () => ($("share-box").hidden = !$("share-box").hidden));
  $("table-add").addEventListener("click", addHand);
  $("table-save").addEventListener("click", saveHand);
  $("table-delete").addEventListener("click", deleteHand);
  $("table-cancel").addEventListener("click", stopEditing);
  for (const id of ["nt-p0", "nt-p1", "nt-p2", "nt-p3"]) $(id).addEventListener("input", fillDealerChoice);
  window.addEventListener("hashchange", () => openTable(tokenFromUrl()));
  const token = tokenFromUrl() || localStorage.getItem(TABLE_KEY);
  if (token) await openTable(token);
}

async function openTable(token) {
  if (!token) return;
  try {
    const view = await api(`/v1/tables/${token}`);
    game.token = token;
    showTable(view);
    if (view.access === "write") localStorage.setItem(TABLE_KEY, token);
    if (tokenFromUrl() !== token) history.replaceState(null, "", `#table=${token}`);
  } catch (err) {
    if (localStorage.getItem(TABLE_KEY) === token) localStorage.removeItem(TABLE_KEY);
    showError(err);
  }
}

function showTable(view) {
  const first = !state.table;
  game.view = view;
  state.table = view;
  $("game-none").hidden = true;
  $("game-on").hidden = false;
  $("game-name").textContent = view.name || t("game");
  const city = state.meta.cities.find((c) => c.name === view.city);
  $("game-city").textContent = city ? cityTitle(city) : view.city;
  renderTotals(view);
  renderHands(view);
  const writable = view.access === "write";
  for (const id of ["game-draw", "game-undo", "table-add"]) $(id).hidden = !writable;
  $("shoot").hidden = !writable;
  $("share-read").value = `${location.origin}/#table=${view.read_token}`;
  $("share-write-label").hidden = !writable;
  if (writable) $("share-write").value = `${location.origin}/#table=${view.write_token}`;
  $("export-csv").href = `/v1/tables/${game.token}/export.csv`;
  $("export-json").href = `/v1/tables/${game.token}/export.json`;
  showDrawInputs(city);
  if (first) {
    // the table's city and house rules; the round wind and streak come from the table
    $("city").value = view.city;
    $("city").disabled = true;
    $("round_wind").closest("label").hidden = true;
    renderCity();
    $("options-box").hidden = true;
  }
  relabelSeats();
  $("to-table").hidden = !writable || state.tiles === null;
}

function renderTotals(view) {
  const box = $("totals");
  box.replaceChildren();
  view.players.forEach((name, player) => {
    const card = document.createElement("div");
    const total = view.totals[player];
    card.className = "seat" + (player === view.next.dealer ? " dealer" : "");
    card.dataset.player = player;
    const n = document.createElement("div");
    n.className = "name";
    n.textContent = name;
    const t = document.createElement("div");
    t.className = "delta total";
    t.textContent = String(total);
    const m = document.createElement("div");
    m.className = "money";
    m.textContent = view.money ? view.money[player] : "";
    card.append(n, t, m);
    box.append(card);
  });
  const next = view.next;
  const streak = next.dealer_streak > 1 ? t("streak", { n: next.dealer_streak }) : "";
  $("game-next").textContent =
    t("next", { wind: windOf(next), deal: next.deal, dealer: next.dealer_name }) + streak;
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
  view.hands.forEach((h, i) => {
    const li = document.createElement("li");
    li.dataset.number = h.number;
    li.classList.toggle("editing", Boolean(game.editing && game.editing.number === h.number));
    const where = document.createElement("span");
    where.className = "where";
    const s = h.seating || {};
    where.textContent = `#${i + 1} · ${t("round_deal", { wind: windOf(s), deal: s.deal, dealer: s.dealer_name })}`;
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
      for (const t of parseTiles(h.tiles)) tiles.append(chip(t, { label: t }));
      li.append(tiles);
    }
    const d = document.createElement("span");
    d.className = "hand-deltas";
    d.textContent = view.players.map((p, k) => `${p} ${h.deltas[k] > 0 ? "+" : ""}${h.deltas[k]}`).join(" · ");
    li.append(d);
    if (h.problem) {
      const p = document.createElement("span");
      p.className = "problem";
      p.textContent = h.problem;
      li.append(p);
    }
    if (view.access === "write" && h.kind === "win") li.addEventListener("click", () => editHand(h));
    list.append(li);
  });
}

/** Seat selects (winner, discarder, melds' "from", the city's seat fields) list players. */
function relabelSeats() {
  relabelSeatSelects();
  renderTiles();
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
  sel.replaceChildren(...game.view.players.map((p, i) => option(String(i), p, false)));
}

// -- a new table ------------------------------------------------------------------------------

function fillDealerChoice() {
  const sel = $("nt-dealer");
  const keep = sel.value || "0";
  sel.replaceChildren(
    ...[0, 1, 2, 3].map((i) =>
      option(String(i), $(`nt-p${i}`).value.trim() || t("player_n", { n: i + 1 }), String(i) === keep),
    ),
  );
}

function openNewTable() {
  fillDealerChoice();
  const city = currentCity();
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
    const view = await api("/v1/tables", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    $("new-table").close();
    game.token = view.write_token;
    localStorage.setItem(TABLE_KEY, view.write_token);
    history.replaceState(null, "", `#table=${view.write_token}`);
    showTable(view);
    setStatus(t("table_started", { players: view.players.join(", ") }));
  } catch (err) {
    const box = $("nt-error");
    box.textContent = err.message || String(err);
    box.hidden = false;
  }
}

function leaveTable() {
  localStorage.removeItem(TABLE_KEY);
  history.replaceState(null, "", location.pathname);
  location.reload();
}

// -- scoring a hand at the table --------------------------------------------------------------

/** The hand as the table takes it: the page's context and tiles in players' terms, less what
 * the table fills in. Fields of an edited hand the page does not show are kept. */
function tableEntry() {
  const base = game.editing ? { ...game.editing.entry } : {};
  const entry = { ...base, ...context(), ...tileFields(), kind: "win" };
  for (const name of FILLED_BY_TABLE) delete entry[name];
  if (!(entry.win === "discard" || entry.win === "robbed_kong")) delete entry.discarder;
  return entry;
}

async function tableReadPhoto(file) {
  showError(null);
  setStatus(t("reading_tiles"), true);
  const form = new FormData();
  form.append("photo", file, file.name || "photo.jpg");
  form.append("city", game.view.city);
  const seq = ++state.seq;
  try {
    const body = await api("/v1/read?image=base64", { method: "POST", body: form });
    if (seq !== state.seq) return;
    game.photo = file;
    game.reading = body.reading;
    state.tiles = tilesFromRequest(body.reading.request, body.reading);
    state.alternatives = body.reading.alternatives || {};
    updateMeldSeats();
    renderReading(body.reading, body.annotated_image);
    renderTiles();
    setStatus(t("read_n_short", { n: body.reading.detections.class_id.length }));
    $("to-table").hidden = game.view.access !== "write";
    tablePreview();
  } catch (err) {
    if (seq !== state.seq) return;
    setStatus("");
    showError(err);
  }
}

async function tablePreview() {
  const seq = ++state.seq;
  const number = game.editing ? `?number=${game.editing.number}` : "";
  setStatus(t("scoring"), true);
  try {
    const body = await api(`/v1/tables/${game.token}/preview${number}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(tableEntry()),
    });
    if (seq !== state.seq) return;
    showError(null);
    state.shownDealer = body.seating.dealer;
    renderScore(body.result, body.deltas);
    $("to-table").hidden = game.view.access !== "write";
    $("table-add").disabled = Boolean(body.problem);
    $("table-save").disabled = Boolean(body.problem);
    setStatus("");
  } catch (err) {
    if (seq !== state.seq) return;
    scoreFailed(err);
  }
}

async function addHand() {
  const entry = tableEntry();
  setStatus(t("adding"), true);
  try {
    let body;
    if (game.photo) {
      const form = new FormData();
      form.append("photo", game.photo, game.photo.name || "photo.jpg");
      form.append("context", JSON.stringify(entry));
      body = await api(`/v1/tables/${game.token}/photo`, { method: "POST", body: form });
    } else {
      body = await api(`/v1/tables/${game.token}/hands`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(entry),
      });
    }
    await refreshTable();
    clearHand();
    setStatus(t("hand_added", { what: describeHand(body.hand) }));
    $("game").scrollIntoView({ block: "start" }); // the new totals
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
      showError({ message: t("draw_hands_partial") });
      return;
    }
    if (hands.every((h) => h)) entry.hands = hands.map((hand) => ({ hand }));
  }
  try {
    await api(`/v1/tables/${game.token}/hands`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(entry),
    });
    $("draw-box").hidden = true;
    $("draw-kong").checked = false;
    for (const input of document.querySelectorAll("#draw-hand-inputs input")) input.value = "";
    await refreshTable();
    setStatus(t("draw_added"));
  } catch (err) {
    showError(err);
  }
}

async function refreshTable() {
  showTable(await api(`/v1/tables/${game.token}`));
}

function clearHand() {
  state.tiles = null;
  game.photo = null;
  game.reading = null;
  game.editing = null;
  state.alternatives = {};
  for (const id of ["reading", "result", "to-table", "table-save", "table-delete", "table-cancel", "editing-note"]) {
    $(id).hidden = true;
  }
  $("table-add").hidden = false;
  renderTiles();
  relabelSeats();
  renderHands(game.view);
}

// -- fixing an earlier hand -------------------------------------------------------------------

function editHand(hand) {
  game.editing = { number: hand.number, revision: hand.revision, entry: hand.entry };
  game.photo = null;
  const e = hand.entry;
  $("win").value = e.win || "self_draw";
  $("winner").value = String(e.winner);
  if (e.discarder !== undefined && e.discarder !== null) $("discarder").value = String(e.discarder);
  $("last_tile").checked = Boolean(e.last_tile);
  $("first_turn").checked = Boolean(e.first_turn);
  showDiscarder();
  state.tiles = tilesFromRequest(e, null);
  state.alternatives = {};
  $("reading").hidden = true;
  $("editing-note").textContent = t("fixing", { n: game.view.hands.indexOf(hand) + 1 });
  for (const id of ["editing-note", "table-save", "table-delete", "table-cancel"]) $(id).hidden = false;
  $("table-add").hidden = true;
  relabelSeats();
  renderHands(game.view);
  tablePreview();
  $("tiles").scrollIntoView({ block: "start" });
}

function stopEditing() {
  clearHand();
  setStatus("");
}

async function saveHand() {
  const { number, revision } = game.editing;
  try {
    await api(`/v1/tables/${game.token}/hands/${number}`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ revision, hand: tableEntry() }),
    });
    await refreshTable();
    clearHand();
    setStatus(t("hand_changed"));
  } catch (err) {
    showError(err);
    if (err.code === "stale") await refreshTable();
  }
}

async function deleteHand() {
  const { number, revision } = game.editing;
  try {
    await api(`/v1/tables/${game.token}/hands/${number}?revision=${revision}`, { method: "DELETE" });
    await refreshTable();
    clearHand();
    setStatus(t("hand_deleted"));
  } catch (err) {
    showError(err);
  }
}

async function undoLast() {
  try {
    await api(`/v1/tables/${game.token}/undo`, { method: "POST" });
    await refreshTable();
    setStatus(t("undone"));
  } catch (err) {
    showError(err);
  }
}

/** The table's parts drawn in the page's language (i18n.js → app.js redraw). */
function redrawTable() {
  if (!game.view) return;
  showTable(game.view);
}
