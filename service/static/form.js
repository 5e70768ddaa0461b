// hupai — the table form: the city, who won and how, the city's own fields and house rules,
// built from GET /v1/cities; context() is the score request less its tiles.
import { $, option } from "./dom.js";
import { call, emit } from "./hooks.js";
import { choiceText, cityTitle, fieldDoc, fieldLabel, isZh, meldText, t, windText, winText } from "./i18n.js";
import { state } from "./state.js";
import { MELD_SIZE } from "./tiles.js";

// The tiles set apart above the hand are read from the photo, not typed in the form.
const PHOTO_FIELDS = new Set(["indicator", "fishing"]);

/** A seat as people say it: its wind (seat 0 deals: East), or a table's player (a hook). */
export function seatName(seat) {
  return call("seatName", (s) => `${windText(s)}${s === 0 ? (isZh() ? "（庄）" : ` (${t("dealer")})`) : ""}`, seat);
}

export function currentCity() {
  return state.meta.cities.find((c) => c.name === $("city").value);
}

export function isSeatField(f) {
  return f.type === "integer" && f.min === 0 && f.max === 3;
}

/** A form control for one field described by GET /v1/cities; get() is undefined when the
 * field is left at its default (the server then applies it). */
export function widget(f, labelText) {
  const wrap = document.createElement("label");
  const caption = document.createElement("span");
  caption.textContent = labelText || fieldLabel(f.name);
  if (!labelText) caption.dataset.field = f.name; // relabelled when the language changes
  const w = control(f, wrap, caption);
  if (!labelText && f.doc && !f.name.includes(".")) w.el = withHelp(w.el, f);
  return w;
}

/** A field's control with its one-line help visible under it (phones show no tooltips). */
function withHelp(el, f) {
  const box = document.createElement("div");
  box.className = "field";
  const help = document.createElement("div");
  help.className = "field-doc";
  help.dataset.doc = f.name;
  help.dataset.docEn = f.doc || "";
  help.textContent = fieldDoc(f.name, f.doc);
  box.append(el, help);
  return box;
}

function control(f, wrap, caption) {
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
      const o = option(String(v), isSeatField(f) ? seatName(v) : choiceText(v), v === f.default);
      if (!isSeatField(f)) o.dataset.choice = String(v); // translated again on a change of language
      sel.append(o);
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
  input.placeholder = f.type === "tile" ? "5p" : f.type === "tiles" ? "1s9p" : "";
  wrap.append(input);
  return { el: wrap, get: () => (input.value.trim() === "" ? undefined : input.value.trim()) };
}

/** Objects, per-seat tuples, lists of rows and seat sets, built from the simple widgets. */
function fieldControl(f) {
  const label = fieldLabel(f.name);
  if (f.type === "object") return objectControl(f.fields, label, f.name, f.doc);
  if (f.type === "list" && Array.isArray(f.items)) {
    // One value per seat (Pao Zi antes, chickens held).
    const box = fieldset(label, f.name, f.doc);
    const parts = f.items.map((item, seat) => {
      const w = widget({ ...item, name: `${f.name}.${seat}`, default: undefined }, seatName(seat));
      w.el.querySelector("span").dataset.seatName = seat; // named again on a change of language
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
    const box = fieldset(label, f.name, f.doc);
    const boxes = [0, 1, 2, 3].map((seat) => {
      const w = widget({ name: `${f.name}.${seat}`, type: "boolean", default: false }, seatName(seat));
      w.el.querySelector("span").dataset.seatName = seat;
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

function fieldset(label, name, enDoc) {
  const box = document.createElement("fieldset");
  const legend = document.createElement("legend");
  legend.textContent = label;
  if (name && label === fieldLabel(name)) legend.dataset.field = name;
  box.append(legend);
  const p = document.createElement("div");
  p.className = "field-doc";
  p.dataset.doc = name;
  p.dataset.docEn = enDoc || "";
  p.textContent = fieldDoc(name, enDoc);
  box.append(p);
  return box;
}

function objectControl(fields, label, parent, doc) {
  const box = fieldset(label, parent, doc);
  const row = document.createElement("div");
  row.className = "sub-row";
  box.append(row);
  const parts = fields.map((sub) => {
    const w = widget({ ...sub, name: parent ? `${parent}.${sub.name}` : sub.name, default: sub.required ? null : sub.default });
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
  const box = fieldset(label, f.name, f.doc);
  const rows = [];
  const add = document.createElement("button");
  add.type = "button";
  add.textContent = `+ ${label}`;
  add.dataset.addField = f.name;
  add.addEventListener("click", () => {
    const row = objectControl(f.items.fields, `${label} ${rows.length + 1}`, f.name, "");
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "link";
    remove.textContent = t("remove");
    remove.addEventListener("click", () => {
      rows.splice(rows.indexOf(row), 1);
      row.el.remove();
      emit("rescore");
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

export function renderCity() {
  const city = currentCity();
  localStorage.setItem("hupai.city", city.name);
  const options = $("city-options");
  options.replaceChildren();
  renderCityFields();
  state.widgets.options = city.options.map((f) => {
    const w = widget(f);
    options.append(w.el);
    return [f.name, w];
  });
  $("options-box").hidden = city.options.length === 0;
  moveSetApartTiles(city);
  emit("redraw-tiles");
}

/** The city's own fields of a hand, blank (every hand starts without the last one's chickens,
 * kongs …); the fields a table fills in itself (``state.tableFields``) are not shown. */
export function renderCityFields() {
  const fields = $("city-fields");
  fields.replaceChildren();
  state.widgets.fields = currentCity()
    .fields.filter((f) => !PHOTO_FIELDS.has(f.name) && !state.tableFields.has(f.name))
    .map((f) => {
      const w = fieldControl(f);
      fields.append(w.el);
      return [f.name, w];
    });
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

/** The discarder is asked for a discard or a robbed kong; never the winner ("谁放炮？"
 * until chosen: no default that silently scores the wrong player). */
export function showDiscarder() {
  const win = $("win").value;
  $("discarder-label").hidden = !(win === "discard" || win === "robbed_kong");
  const winner = $("winner").value;
  const sel = $("discarder");
  for (const o of sel.options) o.disabled = o.value === "" || o.value === winner;
  if (sel.value === winner) sel.value = "";
}

/** Why the form cannot be scored yet (the discarder not chosen), or null. */
export function formProblem() {
  if (!$("discarder-label").hidden && $("discarder").value === "") return t("who_discarded");
  return null;
}

/** The table context: everything of the score request but the tiles. */
export function context() {
  const ctx = {
    city: $("city").value,
    win: $("win").value,
    winner: Number($("winner").value),
    round_wind: $("round_wind").value,
  };
  if (!$("discarder-label").hidden && $("discarder").value !== "") ctx.discarder = Number($("discarder").value);
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


export function fillTable(meta) {
  const city = $("city");
  const saved = localStorage.getItem("hupai.city");
  for (const c of meta.cities) city.append(option(c.name, cityTitle(c), c.name === saved));
  for (const w of meta.win_methods) $("win").append(option(w, winText(w), w === "self_draw"));
  for (const k of Object.keys(MELD_SIZE)) $("meld-kind").append(option(k, meldText(k), k === "chow"));
  for (const sel of document.querySelectorAll("select[data-seat]")) {
    for (const s of [0, 1, 2, 3]) sel.append(option(String(s), seatName(s), false));
  }
  const ask = option("", t("who_discarded"), true);
  ask.dataset.i18n = "who_discarded";
  $("discarder").prepend(ask);
  $("discarder").value = "";
  for (const i of meta.seats.keys()) $("round_wind").append(option(`${i + 1}z`, windText(i), i === 0));
}

/** The seat selects (winner, discarder, the city's seat fields) named again: after a change
 * of language, or of the table's dealer. */
export function relabelSeatSelects() {
  for (const sel of document.querySelectorAll("select[data-seat]")) {
    for (const o of sel.options) if (o.value !== "") o.textContent = seatName(Number(o.value));
  }
  for (const el of document.querySelectorAll("[data-seat-name]")) el.textContent = seatName(Number(el.dataset.seatName));
}

/** The form's words in the page's language (the values kept). */
export function redrawForm() {
  for (const o of $("city").options) o.textContent = cityTitle(state.meta.cities.find((c) => c.name === o.value));
  for (const o of $("win").options) o.textContent = winText(o.value);
  for (const o of $("meld-kind").options) o.textContent = meldText(o.value);
  for (const o of $("round_wind").options) o.textContent = windText(Number(o.value[0]) - 1);
  relabelSeatSelects();
  for (const el of document.querySelectorAll("[data-field]")) el.textContent = fieldLabel(el.dataset.field);
  for (const el of document.querySelectorAll("[data-add-field]")) el.textContent = `+ ${fieldLabel(el.dataset.addField)}`;
  for (const o of document.querySelectorAll("option[data-choice]")) o.textContent = choiceText(o.dataset.choice);
  for (const el of document.querySelectorAll("[data-doc]")) el.textContent = fieldDoc(el.dataset.doc, el.dataset.docEn);
}
