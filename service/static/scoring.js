// hupai — scoring the tiles as they stand (POST /v1/score/hand, or the table's preview
// through the "score" hook) and drawing the score: verdict, deltas, patterns, settlement.
import { $, reveal, send, setStatus, showError } from "./dom.js";
import { call } from "./hooks.js";
import { doubtText, groupText, itemText, patternText, scoreWarningText, t, tileName, verdictText } from "./i18n.js";
import { context, formProblem, seatName } from "./form.js";
import { tileFields } from "./hand.js";
import { state } from "./state.js";
import { handProblem } from "./tiles.js";

let timer = null;

/** Score the tiles as they stand now (after an edit or a change of context). */
export function rescore() {
  if (state.tiles === null) return;
  clearTimeout(timer);
  timer = setTimeout(rescoreNow, 120);
}

/** Why the tiles cannot be scored yet (shown instead of a score), or null. */
function notReady() {
  if (state.tiles.hand.length === 0) return { local: t("add_tiles") };
  const problem = handProblem(state.tiles);
  if (problem) return { local: t(problem.code, problem.vars) };
  const asked = formProblem();
  return asked ? { local: asked } : null;
}

export async function rescoreNow() {
  if (state.tiles === null) return; // cleared since the rescore was asked for
  const problem = notReady();
  if (problem) {
    state.seq += 1; // an answer still on its way is for other tiles
    $("result").hidden = true;
    showError(null);
    setStatus(() => ((state.tiles && notReady()) || problem).local);
    call("unscorable", null);
    return;
  }
  const request = { ...context(), ...tileFields() };
  const seq = ++state.seq;
  setStatus(() => t("scoring"), true);
  try {
    const scored = await call("score", () => scoreHand(request), seq);
    if (seq !== state.seq || !scored) return;
    showError(null);
    renderScore(scored.result, scored.byPlayer);
    setStatus(() => verdictText(scored.result));
  } catch (err) {
    if (seq !== state.seq) return;
    scoreFailed(err);
  }
}

async function scoreHand(request) {
  return { result: await send("POST", "/v1/score/hand", request) };
}

/** No score to show: the request failed (``err`` says why). */
export function scoreFailed(err) {
  $("result").hidden = true;
  setStatus("");
  showError(err);
}

/** The score; ``byPlayer``: the deltas by player of a table's hand (the result's are by seat,
 * seat 0 being the player ``state.shownDealer``). */
export function renderScore(result, byPlayer, doubts = null, settled = null) {
  state.lastScore = { result, byPlayer, doubts, settled };
  const section = $("result");
  const wasHidden = section.hidden;
  section.hidden = false;
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
  for (const line of paymentLines(result.items)) {
    const li = document.createElement("li");
    const amount = document.createElement("span");
    amount.className = "amount";
    amount.textContent = line.amount;
    const group = document.createElement("span");
    group.className = "group";
    group.textContent = groupText(line.group);
    const who = (s) => seatName(byPlayer ? (s + state.shownDealer) % 4 : s);
    li.append(`${who(line.payer)} → ${who(line.payee)}: `, amount, ` ${line.text}`, group);
    items.append(li);
  }
  const warnings = $("score-warnings");
  warnings.replaceChildren();
  for (const w of result.warnings || []) {
    const li = document.createElement("li");
    li.textContent = scoreWarningText(typeof w === "string" ? w : w.message || JSON.stringify(w));
    warnings.append(li);
  }
  renderDoubts(doubts);
  renderSettled(settled);
  if (wasHidden) reveal(section);
}

/** Why a score read from a photo is not to be trusted as it stands (the answer's `doubts`):
 * shown in the page's language; none after the player has fixed the tiles by hand. */
function renderDoubts(doubts) {
  const box = $("doubts");
  box.hidden = !doubts || doubts.length === 0;
  const list = $("doubts-list");
  list.replaceChildren();
  for (const d of doubts || []) {
    const li = document.createElement("li");
    li.dataset.code = d.code;
    li.textContent = doubtText(d);
    list.append(li);
  }
}

/** The tiles the photo left unsure whose names the hand's shape confirmed (the answer's
 * `settled`): the score is confident, and the player sees which names it rests on. */
function renderSettled(settled) {
  const box = $("settled");
  box.hidden = !settled || settled.length === 0;
  box.textContent = box.hidden ? "" : t("settled", { tiles: settled.map(tileName).join(" ") });
}

/** The settlement's items as lines a player reads: a payment brought down by the table's
 * cap is one line, "8（10，封顶 8）" — what is paid, what it was, the cap — not the hand's
 * 10 and a 2 paid back on a line of its own. */
export function paymentLines(items) {
  const pair = (payer, payee) => `${payer}>${payee}`;
  const back = new Map(); // the capped pair → the points handed back
  for (const item of items) if (item.reason === "cap") back.set(pair(item.payee, item.payer), item.amount);
  const lines = [];
  const merged = new Map();
  for (const item of items) {
    if (item.reason === "cap") continue;
    const key = pair(item.payer, item.payee);
    if (item.group === "hand" && back.has(key)) {
      if (!merged.has(key)) {
        const line = { payer: item.payer, payee: item.payee, group: item.group, total: 0, texts: [] };
        merged.set(key, line);
        lines.push(line);
      }
      const line = merged.get(key);
      line.total += item.amount;
      line.texts.push(itemText(item));
      continue;
    }
    lines.push({ payer: item.payer, payee: item.payee, group: item.group, amount: String(item.amount), text: itemText(item) });
  }
  for (const [key, line] of merged) {
    const paid = line.total - back.get(key);
    line.amount = t("capped_amount", { paid, total: line.total });
    line.text = [...new Set(line.texts)].join(" · ");
  }
  return lines;
}

/** The shown score in the page's language. */
export function redrawScore() {
  const last = state.lastScore;
  if (last && !$("result").hidden) renderScore(last.result, last.byPlayer, last.doubts, last.settled);
}
