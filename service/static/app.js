// hupai — the phone page: photo → reading → tiles a person can fix → score. No build step.
//
// The page keeps the tiles of the current hand (read from a photo, or entered by hand) and
// re-scores them with POST /v1/score/hand after every edit or change of table context, so a
// misread tile is fixed without sending the photo again.
"use strict";

const ALL_TILES = [
  ..."123456789".split("").map((r) => r + "m"),
  ..."123456789".split("").map((r) => r + "p"),
  ..."123456789".split("").map((r) => r + "s"),
  ..."1234567".split("").map((r) => r + "z"),
  ..."12345678".split("").map((r) => r + "f"),
];
// The sideways tile's place → how many seats after the winner the meld came from.
const CALLED_STEP = { left: 3, across: 2, right: 1 };
const MELD_SIZE = { chow: 3, pung: 3, kong: 4, added_kong: 4, concealed_kong: 4 };
const PHOTO_FIELDS = new Set(["indicator", "fishing"]);

const state = {
  meta: null, // GET /v1/cities
  tiles: null, // {hand: [], win: index|null, melds: [], flowers: [], indicator: [], fishing: []}
  widgets: { fields: [], options: [] },
  picker: null, // what the tile picker edits: {row, index, meld}
  alternatives: {}, // the reading's names per tile: {hand: [[{tile, p}…]…], flowers, set_apart}
  seq: 0, // the latest score request; older answers are dropped
  lastReading: null, // {reading, image}: redrawn when the language changes
  lastScore: null, // {result, byPlayer}
  table: null, // the table being scored (table.js): its view and token; seats are then players
  shownDealer: 0, // the player the shown score's seat 0 is (a table's hand); 0 otherwise
};

const $ = (id) => document.getElementById(id);

// -- tiles ------------------------------------------------------------------------------------

/** "123m44z" or "1m2m3m" → ["1m", "2m", "3m", …]; throws on anything else. */
function parseTiles(text) {
  const out = [];
  let ranks = [];
  for (const ch of String(text || "").replace(/[\s,]+/g, "")) {
    if (ch >= "0" && ch <= "9") ranks.push(ch);
    else if ("mpszf".includes(ch) && ranks.length) {
      for (const r of ranks) out.push(r + ch);
      ranks = [];
    } else throw new Error(`'${text}' is not in tile notation (e.g. 123m44z)`);
  }
  if (ranks.length) throw new Error(`'${text}': the ranks at the end have no suit letter`);
  return out;
}

/** ["1m", "2m", "4z"] → "12m4z" (runs of one suit share the letter). */
function formatTiles(tiles) {
  let out = "";
  tiles.forEach((t, i) => {
    out += t[0];
    if (i === tiles.length - 1 || tiles[i + 1][1] !== t[1]) out += t[1];
  });
  return out;
}

/** A tile as players know it: its picture (public-domain art, static/tiles/CREDITS.md) with
 * its notation beneath, so it reads at a glance in either language. */
function chip(tile, { onClick, label, extraClass } = {}) {
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
  b.setAttribute("aria-label", label || tileName(tile));
  b.title = tileName(tile);
  if (onClick) b.addEventListener("click", onClick);
  return b;
}

function addChip(onClick, label) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "chip add";
  b.textContent = "+";
  b.setAttribute("aria-label", label);
  b.addEventListener("click", onClick);
  return b;
}

// -- the table form ---------------------------------------------------------------------------

function option(value, text, selected) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = text;
  if (selected) o.selected = true;
  return o;
}

function seatName(seat) {
  if (state.table) return playerLabel(seat); // table.js: the selects hold players
  const dealer = seat === 0 ? (LANG === "zh" ? "（庄）" : ` (${t("dealer")})`) : "";
  return `${seat} ${windText(seat)}${dealer}`;
}

function currentCity() {
  return state.meta.cities.find((c) => c.name === $("city").value);
}

function isSeatField(f) {
  return f.type === "integer" && f.min === 0 && f.max === 3;
}

/** A form control for one field described by GET /v1/cities; get() is undefined when the
 * field is left at its default (the server then applies it). */
function widget(f, labelText) {
  const doc = f.doc || "";
  const wrap = document.createElement("label");
  wrap.title = doc;
  const caption = document.createElement("span");
  caption.textContent = labelText || fieldLabel(f.name);
  if (!labelText) caption.dataset.field = f.name; // relabelled when the language changes
  if (f.type === "boolean") {
    const box = document.createElement("input");
    box.type = "checkbox";
    box.name = f.name;
    box.checked = Boolean(f.default);
    wrap.className = "check";
    wrap.append(box, caption);
    return { el: wrap, get: () => (box.checked === Boolean(f.default) ? undefined : box.checked) };
  }
  wrap.append(caption);
  if (f.enum || isSeatField(f)) {
    const sel = document.createElement("select");
    sel.name = f.name;
    if (isSeatField(f)) sel.dataset.seat = ""; // relabelled when the seats are a table's players
    if (f.default === undefined || f.default === null) sel.append(option("", "—", true));
    const values = f.enum || [0, 1, 2, 3];
    for (const v of values) {
      sel.append(option(String(v), isSeatField(f) ? seatName(v) : String(v), v === f.default));
    }
    wrap.append(sel);
    return {
      el: wrap,
      get: () => {
        if (sel.value === "") return undefined;
        const v = isSeatField(f) ? Number(sel.value) : sel.value;
        return v === f.default ? undefined : v;
      },
    };
  }
  if (f.type === "integer" || f.type === "number") {
    const input = document.createElement("input");
    input.type = "number";
    input.name = f.name;
    input.inputMode = "numeric";
    if (f.min !== undefined) input.min = f.min;
    if (f.max !== undefined) input.max = f.max;
    if (f.default !== undefined && f.default !== null) input.value = f.default;
    input.placeholder = f.nullable ? "—" : "";
    wrap.append(input);
    return {
      el: wrap,
      get: () => {
        if (input.value.trim() === "") return undefined;
        const v = Number(input.value);
        return v === f.default ? undefined : v;
      },
    };
  }
  // tile, tiles, strings: typed in notation; the server checks them.
  const input = document.createElement("input");
  input.type = "text";
  input.name = f.name;
  input.autocapitalize = "off";
  input.spellcheck = false;
  input.placeholder = f.type === "tile" ? "e.g. 5p" : f.type === "tiles" ? "e.g. 1s9p" : "";
  wrap.append(input);
  return { el: wrap, get: () => (input.value.trim() === "" ? undefined : input.value.trim()) };
}

/** Objects, per-seat tuples, lists of rows and seat sets, built from the simple widgets. */
function fieldControl(f) {
  const label = fieldLabel(f.name);
  if (f.type === "object") return objectControl(f.fields, label, f.doc);
  if (f.type === "list" && Array.isArray(f.items)) {
    // One value per seat (Pao Zi antes, chickens held).
    const box = fieldset(label, f.doc);
    const parts = f.items.map((item, seat) => {
      const w = widget({ ...item, name: `${f.name}.${seat}`, default: undefined }, seatName(seat));
      box.append(w.el);
      return w;
    });
    return {
      el: box,
      get: () => {
        const values = parts.map((w) => w.get());
        if (values.every((v) => v === undefined)) return undefined;
        return values.map((v, i) => (v === undefined ? emptyOf(f.items[i]) : v));
      },
    };
  }
  if (f.type === "list" && f.items && f.items.type === "object") return rowsControl(f, label);
  if (f.type === "list" && f.items && isSeatField(f.items)) {
    const box = fieldset(label, f.doc);
    const boxes = [0, 1, 2, 3].map((seat) => {
      const w = widget({ name: `${f.name}.${seat}`, type: "boolean", default: false }, seatName(seat));
      box.append(w.el);
      return w;
    });
    return {
      el: box,
      get: () => {
        const seats = boxes.flatMap((w, seat) => (w.get() ? [seat] : []));
        return seats.length ? seats : undefined;
      },
    };
  }
  return widget(f);
}

function emptyOf(item) {
  return item.type === "tiles" ? "" : item.type === "integer" ? 0 : null;
}

function fieldset(label, doc) {
  const box = document.createElement("fieldset");
  const legend = document.createElement("legend");
  legend.textContent = label;
  legend.title = doc || "";
  box.append(legend);
  if (doc) {
    const p = document.createElement("div");
    p.className = "field-doc";
    p.textContent = doc;
    box.append(p);
  }
  return box;
}

function objectControl(fields, label, doc) {
  const box = fieldset(label, doc);
  const row = document.createElement("div");
  row.className = "sub-row";
  box.append(row);
  const parts = fields.map((sub) => {
    const w = widget({ ...sub, default: sub.required ? null : sub.default });
    row.append(w.el);
    return [sub, w];
  });
  return {
    el: box,
    get: () => {
      const out = {};
      for (const [sub, w] of parts) {
        const v = w.get();
        if (v !== undefined) out[sub.name] = v;
      }
      return Object.keys(out).length ? out : undefined;
    },
  };
}

function rowsControl(f, label) {
  const box = fieldset(label, f.doc);
  const rows = [];
  const add = document.createElement("button");
  add.type = "button";
  add.textContent = `+ ${label.replace(/s$/, "")}`;
  add.addEventListener("click", () => {
    const row = objectControl(f.items.fields, `${label} ${rows.length + 1}`);
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "link";
    remove.textContent = "remove";
    remove.addEventListener("click", () => {
      rows.splice(rows.indexOf(row), 1);
      row.el.remove();
      rescore();
    });
    row.el.append(remove);
    rows.push(row);
    box.insertBefore(row.el, add);
  });
  box.append(add);
  return {
    el: box,
    get: () => {
      const values = rows.map((r) => r.get()).filter((v) => v !== undefined);
      return values.length ? values : undefined;
    },
  };
}

function renderCity() {
  const city = currentCity();
  localStorage.setItem("hupai.city", city.name);
  const fields = $("city-fields");
  const options = $("city-options");
  fields.replaceChildren();
  options.replaceChildren();
  state.widgets.fields = city.fields
    .filter((f) => !PHOTO_FIELDS.has(f.name))
    .map((f) => {
      const w = fieldControl(f);
      fields.append(w.el);
      return [f.name, w];
    });
  state.widgets.options = city.options.map((f) => {
    const w = widget(f);
    options.append(w.el);
    return [f.name, w];
  });
  $("options-box").hidden = city.options.length === 0;
  moveSetApartTiles(city);
  renderTiles();
}

/** The tiles set apart above the hand are the indicator in one city and the fishing tiles in
 * another: keep them when the city changes. */
function moveSetApartTiles(city) {
  const t = state.tiles;
  if (!t) return;
  const names = new Set(city.fields.map((f) => f.name));
  if (names.has("fishing") && !names.has("indicator") && t.indicator.length) {
    t.fishing = [...t.fishing, ...t.indicator].slice(0, 3);
    t.indicator = [];
  } else if (names.has("indicator") && !names.has("fishing") && t.fishing.length === 1) {
    t.indicator = t.fishing;
    t.fishing = [];
  }
}

function showDiscarder() {
  const win = $("win").value;
  $("discarder-label").hidden = !(win === "discard" || win === "robbed_kong");
}

/** The table context: everything of the score request but the tiles. */
function context() {
  const ctx = {
    city: $("city").value,
    win: $("win").value,
    winner: Number($("winner").value),
    round_wind: $("round_wind").value,
  };
  if (!$("discarder-label").hidden) ctx.discarder = Number($("discarder").value);
  if ($("last_tile").checked) ctx.last_tile = true;
  if ($("first_turn").checked) ctx.first_turn = true;
  for (const [name, w] of state.widgets.fields) {
    const v = w.get();
    if (v !== undefined) ctx[name] = v;
  }
  const options = {};
  for (const [name, w] of state.widgets.options) {
    const v = w.get();
    if (v !== undefined) options[name] = v;
  }
  if (Object.keys(options).length) ctx.options = options;
  return ctx;
}

// -- the tiles of the hand --------------------------------------------------------------------

function emptyTiles() {
  return { hand: [], win: null, melds: [], flowers: [], indicator: [], fishing: [] };
}

/** The photo's request fields → the editable tiles. */
function tilesFromRequest(req, reading) {
  const t = emptyTiles();
  t.hand = parseTiles(req.hand || "");
  if (req.win_tile) t.win = t.hand.lastIndexOf(req.win_tile);
  if (t.win === -1) t.win = null;
  const read = (reading && reading.melds) || [];
  t.melds = (req.melds || []).map((m, i) => ({
    kind: m.kind,
    tiles: parseTiles(m.tiles),
    from: m.from === undefined ? null : m.from,
    called: (read[i] && read[i].called_from) || null,
  }));
  t.flowers = parseTiles(req.flowers || "");
  t.indicator = req.indicator ? parseTiles(req.indicator) : [];
  t.fishing = parseTiles(req.fishing || "");
  return t;
}

function tileFields() {
  const t = state.tiles;
  const city = currentCity();
  const names = new Set(city.fields.map((f) => f.name));
  const req = { hand: formatTiles(t.hand) };
  if (t.win !== null && t.hand[t.win]) req.win_tile = t.hand[t.win];
  req.melds = t.melds.map((m) => {
    const out = { kind: m.kind, tiles: formatTiles(m.tiles) };
    if (m.from !== null && m.kind !== "concealed_kong") out.from = m.from;
    return out;
  });
  if (t.flowers.length) req.flowers = formatTiles(t.flowers);
  if (names.has("indicator") && t.indicator.length) req.indicator = t.indicator[0];
  if (names.has("fishing") && t.fishing.length) req.fishing = formatTiles(t.fishing);
  return req;
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
        onClick: () => openPicker({ row, index }),
      }),
    );
  });
  if (max === undefined || tiles.length < max) {
    box.append(addChip(() => openPicker({ row, index: tiles.length }), t("add_a", { row: t(row) })));
  }
}

function renderMelds() {
  const box = $("melds");
  box.replaceChildren();
  state.tiles.melds.forEach((meld, m) => {
    const row = document.createElement("div");
    row.className = "meld";
    const kind = document.createElement("select");
    kind.setAttribute("aria-label", `meld ${m + 1} kind`);
    for (const k of Object.keys(MELD_SIZE)) kind.append(option(k, meldText(k), k === meld.kind));
    kind.addEventListener("change", () => {
      meld.kind = kind.value;
      meld.tiles = resize(meld.tiles, MELD_SIZE[meld.kind], meld.kind);
      renderTiles();
      rescore();
    });
    row.append(kind);
    meld.tiles.forEach((tile, index) =>
      row.append(
        chip(tile, {
          label: `${t("meld_n", { n: m + 1 })}: ${tileName(tile)}`,
          onClick: () => openPicker({ row: "meld", meld: m, index }),
        }),
      ),
    );
    if (meld.kind !== "concealed_kong") {
      const from = document.createElement("select");
      from.setAttribute("aria-label", `meld ${m + 1} claimed from`);
      from.append(option("", `${t("from")} —`, meld.from === null));
      for (const s of [0, 1, 2, 3]) from.append(option(String(s), `${t("from")} ${seatName(s)}`, meld.from === s));
      from.addEventListener("change", () => {
        meld.from = from.value === "" ? null : Number(from.value);
        meld.called = null; // set by hand: no longer follows the winner
        rescore();
      });
      row.append(from);
    }
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "remove";
    remove.textContent = "✕";
    remove.setAttribute("aria-label", `remove meld ${m + 1}`);
    remove.addEventListener("click", () => {
      state.tiles.melds.splice(m, 1);
      renderTiles();
      rescore();
    });
    row.append(remove);
    box.append(row);
  });
}

function resize(tiles, n, kind) {
  const first = tiles[0] || "1m";
  if (kind === "chow") return chowFrom(first);
  return Array.from({ length: n }, () => first);
}

function chowFrom(tile) {
  let rank = Math.min(Number(tile[0]), 7);
  if (!"mps".includes(tile[1])) return ["1m", "2m", "3m"];
  return [0, 1, 2].map((k) => `${rank + k}${tile[1]}`);
}

function renderTiles() {
  const t = state.tiles;
  $("tiles").hidden = t === null;
  if (t === null) return;
  const city = currentCity();
  const names = new Set(city.fields.map((f) => f.name));
  renderRow("hand", t.hand, "hand", { win: t.win === null ? undefined : t.win });
  renderMelds();
  renderRow("flowers", t.flowers, "flowers", { max: 8 });
  $("flowers-row").hidden = city.tiles <= 136 && t.flowers.length === 0;
  renderRow("indicator", t.indicator, "indicator", { max: 1 });
  $("indicator-row").hidden = !names.has("indicator");
  renderRow("fishing", t.fishing, "fishing", { max: 3 });
  $("fishing-row").hidden = !names.has("fishing");
}

// -- the tile picker --------------------------------------------------------------------------

function buildPicker() {
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
    if (p.row === "hand" && state.tiles.win !== null) {
      if (state.tiles.win === p.index) state.tiles.win = null;
      else if (state.tiles.win > p.index) state.tiles.win -= 1;
    }
    closePicker(true);
  });
  $("picker").addEventListener("close", () => {
    state.picker = null;
  });
}

/** The names the reader gave the tile being edited (chosen first), while it still holds the
 * tile that was read. */
function likelyNames(target) {
  if (target.row === "meld") return [];
  const place = target.row === "indicator" || target.row === "fishing" ? "set_apart" : target.row;
  const names = (state.alternatives[place] || [])[target.index];
  const current = state.tiles[target.row][target.index];
  if (!names || !names.length || names[0].tile !== current) return [];
  return names.filter((n) => n.tile !== "back");
}

function showLikely(target) {
  const box = $("picker-likely");
  const label = box.querySelector(".likely-label");
  box.replaceChildren(label);
  const names = likelyNames(target);
  box.hidden = names.length < 2;
  for (const n of names) {
    const c = chip(n.tile, {
      label: `${t("pick", { tile: tileName(n.tile) })} (${Math.round(n.p * 100)}%)`,
      onClick: () => pick(n.tile),
    });
    const prob = document.createElement("span");
    prob.className = "prob";
    prob.textContent = `${Math.round(n.p * 100)}%`;
    c.append(prob);
    box.append(c);
  }
}

function openPicker(target) {
  state.picker = target;
  showLikely(target);
  const editing = target.row !== "meld" && target.index < state.tiles[target.row].length;
  $("picker-win").hidden = !(target.row === "hand" && editing);
  $("picker-remove").hidden = !editing;
  const dialog = $("picker");
  if (typeof dialog.showModal === "function") dialog.showModal();
  else dialog.setAttribute("open", "");
}

function closePicker(changed) {
  const dialog = $("picker");
  if (typeof dialog.close === "function") dialog.close();
  else dialog.removeAttribute("open");
  state.picker = null;
  if (changed) {
    renderTiles();
    rescore();
  }
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
    list[p.index] = tile;
  }
  closePicker(true);
}

function addMeld() {
  if (state.tiles === null) state.tiles = emptyTiles();
  const kind = $("meld-kind").value;
  state.tiles.melds.push({ kind, tiles: resize(["1m"], MELD_SIZE[kind], kind), from: null, called: null });
  renderTiles();
  openPicker({ row: "meld", meld: state.tiles.melds.length - 1, index: 0 });
}

// -- talking to the API -----------------------------------------------------------------------

function setStatus(text, busy) {
  const s = $("status");
  s.textContent = text;
  s.classList.toggle("busy", Boolean(busy));
}

function showError(err) {
  const box = $("error");
  if (!err) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const { message, detail } = errorText(err);
  const msg = document.createElement("div");
  msg.className = "message";
  msg.textContent = message;
  box.replaceChildren(msg);
  if (detail) {
    const more = document.createElement("div");
    more.className = "detail";
    more.lang = "en";
    more.textContent = detail;
    box.append(more);
  }
  const hintText = err.code && ADVICE_TEXT[LANG][err.code] ? ADVICE_TEXT[LANG][err.code] : LANG === "en" ? err.hint : null;
  if (hintText) {
    const hint = document.createElement("div");
    hint.className = "hint";
    hint.textContent = hintText;
    box.append(hint);
  }
  box.hidden = false;
  // the error may be below the fold on a phone (after a photo was read): bring it into view
  if (typeof box.scrollIntoView === "function") box.scrollIntoView({ block: "center" });
}

async function api(path, init) {
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw { message: t("unreachable") };
  }
  let body = null;
  try {
    body = await response.json();
  } catch (e) {
    body = null;
  }
  if (!response.ok) {
    throw body && body.message
      ? body
      : { message: t("server_answered", { status: `${response.status} ${response.statusText}` }) };
  }
  return body;
}

/** Follow the winner with claimed melds whose sideways tile was read from the photo. */
function updateMeldSeats() {
  if (!state.tiles) return;
  const winner = Number($("winner").value);
  for (const m of state.tiles.melds) {
    if (m.called && CALLED_STEP[m.called] !== undefined && m.kind !== "chow") {
      m.from = (winner + CALLED_STEP[m.called]) % 4;
    }
  }
}

async function scorePhoto(file) {
  if (state.table) return tableReadPhoto(file); // table.js: read, then preview at the table
  showError(null);
  setStatus(t("reading_tiles"), true);
  const form = new FormData();
  form.append("photo", file, file.name || "photo.jpg");
  form.append("context", JSON.stringify(context()));
  const seq = ++state.seq;
  try {
    const body = await api("/v1/score?image=base64", { method: "POST", body: form });
    if (seq !== state.seq) return;
    state.tiles = tilesFromRequest(body.request, body.reading);
    state.alternatives = body.reading.alternatives || {};
    updateMeldSeats();
    renderReading(body.reading, body.annotated_image);
    renderTiles();
    if (body.score) renderScore(body.score);
    else {
      $("result").hidden = true;
      if (body.score_error) showError(body.score_error);
    }
    setStatus(t("read_n", { n: body.reading.detections.class_id.length, s: body.reading.seconds }));
  } catch (err) {
    if (seq !== state.seq) return;
    setStatus("");
    showError(err);
  }
}

let rescoreTimer = null;

/** Score the tiles as they stand now (after an edit or a change of context). */
function rescore() {
  if (state.tiles === null) return;
  clearTimeout(rescoreTimer);
  rescoreTimer = setTimeout(rescoreNow, 120);
}

async function rescoreNow() {
  if (state.tiles === null) return; // cleared since the rescore was asked for
  if (state.tiles.hand.length === 0) {
    $("result").hidden = true;
    showError(null);
    setStatus(t("add_tiles"));
    return;
  }
  if (state.table) return tablePreview(); // table.js
  const request = { ...context(), ...tileFields() };
  const seq = ++state.seq;
  setStatus(t("scoring"), true);
  try {
    const result = await api("/v1/score/hand", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(request),
    });
    if (seq !== state.seq) return;
    showError(null);
    renderScore(result);
    setStatus("");
  } catch (err) {
    if (seq !== state.seq) return;
    scoreFailed(err);
  }
}

// -- results ----------------------------------------------------------------------------------

/** A winning reading that renames uncertain tiles: shown, applied only when the player taps. */
function renderSuggestion(reading) {
  const s = reading.suggestion;
  const box = $("suggestion");
  box.hidden = !s;
  if (!s) return;
  const changes = s.changes.map((c) => `${tileName(c.from)} → ${tileName(c.to)} (${Math.round(c.p * 100)}%)`);
  $("suggestion-text").textContent = t("suggestion", { changes: changes.join(", ") });
  $("suggestion-apply").onclick = () => {
    state.tiles = tilesFromRequest(s.request, reading);
    box.hidden = true;
    renderTiles();
    rescore();
  };
}

function renderReading(reading, image) {
  state.lastReading = { reading, image };
  $("reading").hidden = false;
  renderSuggestion(reading);
  const img = $("annotated");
  img.hidden = !image;
  if (image) img.src = image;
  const list = $("warnings");
  list.replaceChildren();
  for (const w of reading.warnings || []) {
    const li = document.createElement("li");
    const code = document.createElement("code");
    code.textContent = w.code;
    const advice = document.createElement("span");
    advice.className = "advice";
    advice.textContent = adviceText(w);
    li.append(code, " " + warningText(w), advice);
    list.append(li);
  }
}

/** The score; ``byPlayer``: the deltas by player of a table's hand (the result's are by seat,
 * seat 0 being the player ``state.shownDealer``). */
function renderScore(result, byPlayer) {
  state.lastScore = { result, byPlayer };
  $("result").hidden = false;
  const verdict = $("verdict");
  verdict.textContent = verdictText(result);
  verdict.classList.toggle("invalid", !result.valid || result.reason !== "ok");
  const winner = Number($("winner").value);
  const deltas = $("deltas");
  deltas.replaceChildren();
  (byPlayer || result.deltas).forEach((d, seat) => {
    const card = document.createElement("div");
    card.className = "seat" + (d > 0 ? " gain" : d < 0 ? " loss" : "");
    card.dataset.seat = seat;
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = seatName(seat);
    const delta = document.createElement("div");
    delta.className = "delta";
    delta.textContent = (d > 0 ? "+" : "") + d;
    const tag = document.createElement("div");
    tag.className = "tag";
    tag.textContent = seat === winner ? t("winner_tag") : "";
    card.append(name, delta, tag);
    deltas.append(card);
  });
  const patterns = $("patterns");
  patterns.replaceChildren();
  for (const p of result.patterns) {
    const li = document.createElement("li");
    li.textContent = patternText(p);
    patterns.append(li);
  }
  const items = $("items");
  items.replaceChildren();
  // no payments (not a winning hand, below the minimum): no empty "Settlement" heading
  $("items-title").hidden = result.items.length === 0;
  items.hidden = result.items.length === 0;
  for (const item of result.items) {
    const li = document.createElement("li");
    const amount = document.createElement("span");
    amount.className = "amount";
    amount.textContent = item.amount;
    const group = document.createElement("span");
    group.className = "group";
    group.textContent = groupText(item.group);
    const who = (s) => seatName(state.table ? (s + state.shownDealer) % 4 : s);
    li.title = item.text;
    li.append(`${who(item.payer)} → ${who(item.payee)}: `, amount, ` ${itemText(item)}`, group);
    items.append(li);
  }
  const warnings = $("score-warnings");
  warnings.replaceChildren();
  for (const w of result.warnings || []) {
    const li = document.createElement("li");
    li.textContent = scoreWarningText(typeof w === "string" ? w : w.message || JSON.stringify(w));
    warnings.append(li);
  }
}

// -- start ------------------------------------------------------------------------------------

function fillTable(meta) {
  const city = $("city");
  const saved = localStorage.getItem("hupai.city");
  for (const c of meta.cities) city.append(option(c.name, cityTitle(c), c.name === saved));
  for (const w of meta.win_methods) $("win").append(option(w, winText(w), w === "self_draw"));
  for (const k of Object.keys(MELD_SIZE)) $("meld-kind").append(option(k, meldText(k), k === "chow"));
  for (const sel of document.querySelectorAll("select[data-seat]")) {
    for (const s of [0, 1, 2, 3]) sel.append(option(String(s), seatName(s), false));
  }
  $("discarder").value = "1";
  for (const i of meta.seats.keys()) $("round_wind").append(option(`${i + 1}z`, windText(i), i === 0));
}

/** The seat selects (winner, discarder, the city's seat fields) named again: after a change
 * of language, or of the table's dealer. */
function relabelSeatSelects() {
  for (const sel of document.querySelectorAll("select[data-seat]")) {
    for (const o of sel.options) if (o.value !== "") o.textContent = seatName(Number(o.value));
  }
}

/** No score to show: the request failed (``err`` says why). */
function scoreFailed(err) {
  $("result").hidden = true;
  setStatus("");
  showError(err);
}

/** Redraw what the page drew in the other language, keeping the hand and the score as they
 * are (i18n.js calls it). */
function redraw() {
  if (!state.meta) return;
  for (const o of $("city").options) o.textContent = cityTitle(state.meta.cities.find((c) => c.name === o.value));
  for (const o of $("win").options) o.textContent = winText(o.value);
  for (const o of $("meld-kind").options) o.textContent = meldText(o.value);
  for (const o of $("round_wind").options) o.textContent = windText(Number(o.value[0]) - 1);
  relabelSeatSelects();
  for (const el of document.querySelectorAll("[data-field]")) el.textContent = fieldLabel(el.dataset.field);
  for (const c of document.querySelectorAll("#picker-grid .chip")) {
    c.setAttribute("aria-label", t("pick", { tile: tileName(c.dataset.tile) }));
    c.title = tileName(c.dataset.tile);
  }
  renderTiles();
  if (state.lastReading && !$("reading").hidden) renderReading(state.lastReading.reading, state.lastReading.image);
  if (state.lastScore && !$("result").hidden) renderScore(state.lastScore.result, state.lastScore.byPlayer);
  if (typeof redrawTable === "function") redrawTable();
}

async function start() {
  applyStaticText();
  $("lang").addEventListener("click", () => setLanguage(LANG === "zh" ? "en" : "zh"));
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
    updateMeldSeats();
    renderTiles();
    rescore();
  });
  $("table").addEventListener("change", (e) => {
    if (!["city", "win", "winner"].includes(e.target.id)) rescore();
  });
  $("photo").addEventListener("change", (e) => {
    const file = e.target.files && e.target.files[0];
    if (file) scorePhoto(file);
    e.target.value = ""; // the same photo may be picked again
  });
  $("manual").addEventListener("click", () => {
    if (state.tiles === null) state.tiles = emptyTiles();
    renderTiles();
    rescore();
    $("tiles").scrollIntoView({ behavior: "smooth" });
  });
  $("add-meld").addEventListener("click", addMeld);
  if (typeof startTable === "function") await startTable(); // table.js
  document.body.dataset.ready = "1";
}

document.addEventListener("DOMContentLoaded", start);
