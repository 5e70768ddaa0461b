// hupai — a table's city and house rules changed mid-game (PUT /v1/tables/{token}/options):
// the city first, then its options (cap 封顶 and dealer_double 庄家翻倍 first) filled with the
// table's values; saving re-scores every hand at the server. A new city says first what it
// does to the hands already recorded (issue #39, row 5).
import { $, explainError, openDialog, option, send } from "./dom.js";
import { choiceText, cityTitle, fieldLabel, t } from "./i18n.js";

/** One control per option, holding ``value``; get() its value now. */
function control(f, value) {
  const label = document.createElement("label");
  const caption = document.createElement("span");
  caption.textContent = fieldLabel(f.name);
  if (f.type === "boolean") {
    const box = document.createElement("input");
    box.type = "checkbox";
    box.name = f.name;
    box.checked = Boolean(value);
    label.className = "check";
    label.append(box, caption);
    return { el: label, get: () => box.checked };
  }
  label.append(caption);
  if (f.enum) {
    const sel = document.createElement("select");
    sel.name = f.name;
    for (const v of f.enum) sel.append(option(String(v), choiceText(v), v === value));
    label.append(sel);
    return { el: label, get: () => sel.value };
  }
  const input = document.createElement("input");
  input.type = "number";
  input.name = f.name;
  input.inputMode = "numeric";
  if (f.min !== undefined) input.min = f.min;
  if (f.max !== undefined) input.max = f.max;
  input.value = value;
  label.append(input);
  return { el: label, get: () => (input.value.trim() === "" ? f.default : Number(input.value)) };
}

/** Open the rules dialog for ``view`` (a table, write link) with the ``cities`` it may
 * play; ``saved(view)`` after a change. */
export function openRules(view, cities, token, saved) {
  const given = { ...(view.house_rules || {}), ...(view.options || {}) };
  const sel = $("rules-city");
  sel.replaceChildren(...cities.map((c) => option(c.name, cityTitle(c), c.name === view.city)));
  let controls = [];
  const show = () => {
    const city = cities.find((c) => c.name === sel.value);
    // the table's values for its own city; a new city starts from its defaults, keeping the
    // house rules every city takes (cap, dealer double)
    const kept = city.name === view.city ? given : view.house_rules || {};
    controls = city.options.map((f) => [f, control(f, kept[f.name] ?? f.default)]);
    $("rules-fields").replaceChildren(...controls.map(([, c]) => c.el));
    const warning = $("rules-city-warning");
    const hands = (view.hands || []).length;
    warning.hidden = city.name === view.city || hands === 0;
    const old = cities.find((c) => c.name === view.city);
    warning.textContent = t("city_change_warning", { n: hands, city: cityTitle(city), old: old ? cityTitle(old) : view.city });
  };
  sel.onchange = show;
  show();
  $("rules-error").hidden = true;
  const dialog = $("rules");
  const form = $("rules-form");
  form.onsubmit = async (event) => {
    event.preventDefault();
    const options = {};
    for (const [f, c] of controls) {
      const v = c.get();
      if (v !== f.default) options[f.name] = v;
    }
    const change = { revision: view.revision, options };
    if (sel.value !== view.city) change.city = sel.value;
    try {
      const next = await send("PUT", `/v1/tables/${token}/options`, change);
      dialog.close();
      saved(next);
    } catch (err) {
      explainError($("rules-error"), err);
    }
  };
  $("rules-cancel").onclick = () => dialog.close();
  openDialog(dialog);
}
