// hupai — reading a photo: made small in the browser, sent with its progress shown, the
// reading drawn (warnings, a suggestion only when it is likely, the annotated photo that a
// player taps to fix the tile under a finger).
import { $, setStatus, showError } from "./dom.js";
import { call } from "./hooks.js";
import { adviceText, t, tileName, warningText } from "./i18n.js";
import { context } from "./form.js";
import { renderTiles, tilesFromRequest, updateMeldSeats } from "./hand.js";
import { showTyped } from "./notation.js";
import { openPicker } from "./picker.js";
import { renderScore, rescore } from "./scoring.js";
import { postWithProgress, shrinkPhoto } from "./shrink.js";
import { state } from "./state.js";

/** A suggestion ("did you mean …") is offered only when each tile it renames has at least
 * this probability under the namer. Measured on 3,206 ground-truth crops (the real test
 * split and camerash's single tiles) named by the shipped namer: of the second and third
 * names of uncertain tiles (first name under 0.9), those at 0.30 or more were right 9 times
 * in 13 (69 %), those at 0.20–0.30 5 in 21 (24 %), under 0.20 under 16 % (/work/notes/issue-28.md). */
export const SUGGEST_MIN_P = 0.3;

/** The photo made small, then sent with the progress in the status line. */
export async function sendPhoto(url, file, fields) {
  setStatus(() => t("shrinking"), true);
  const photo = await shrinkPhoto(file);
  const form = new FormData();
  form.append("photo", photo, "photo.jpg");
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const kb = Math.round(photo.size / 1024);
  setStatus(() => t("uploading", { pct: 0, kb }), true);
  const body = await postWithProgress(url, form, (f) => {
    setStatus(f < 1 ? t("uploading", { pct: Math.round(f * 100), kb }) : t("reading_tiles"), true);
  });
  return { body, photo };
}

/** Forget the last hand's reading and score (a new photo, a failed one, a new hand). */
export function clearReading() {
  state.reading = null;
  state.alternatives = {};
  state.lastScore = null;
  $("reading").hidden = true;
  $("result").hidden = true;
  $("annotated").removeAttribute("src");
}

export async function scorePhoto(file) {
  showError(null);
  clearReading(); // a failed photo must not leave the previous score on screen
  const seq = ++state.seq;
  try {
    const taken = await call("read", null, file, seq);
    if (taken !== undefined) return;
    const { body } = await sendPhoto("/v1/score?image=url", file, { context: JSON.stringify(context()) });
    if (seq !== state.seq) return;
    showReading(body.reading, body.annotated_image, body.request);
    if (body.score) {
      renderScore(body.score, undefined, body.doubts || [], body.settled || []);
      setStatus(() => t("read_n", { n: body.reading.detections.class_id.length, s: body.reading.seconds }));
    } else {
      setStatus("");
      if (body.score_error) showError(body.score_error);
    }
  } catch (err) {
    if (seq !== state.seq) return;
    setStatus("");
    showError(err);
    if (err && err.code === "unreachable") offerRetry(file, seq);
  }
}

let retryWhenOnline = null;

/** The link was lost mid-upload: a 重试 button under the error, and the photo sent again by
 * itself when the phone is back online (unless another photo or hand came meanwhile). */
function offerRetry(file, seq) {
  const again = () => {
    window.removeEventListener("online", retryWhenOnline);
    retryWhenOnline = null;
    if (seq === state.seq) scorePhoto(file);
  };
  const button = document.createElement("button");
  button.type = "button";
  button.id = "retry";
  button.textContent = t("retry");
  button.addEventListener("click", again);
  $("error").append(button);
  if (retryWhenOnline) window.removeEventListener("online", retryWhenOnline);
  retryWhenOnline = again;
  window.addEventListener("online", again, { once: true });
}

/** A photo's reading becomes the hand's tiles (in the photo's order) and is drawn. */
export function showReading(reading, image, request) {
  state.tiles = tilesFromRequest(request || reading.request, reading);
  state.alternatives = reading.alternatives || {};
  state.reading = { ...state.reading, reading, image };
  updateMeldSeats();
  renderReading();
  renderTiles();
  showTyped();
}

/** A winning reading that renames uncertain tiles: shown only when every renamed tile is
 * likely enough, applied only when the player taps. */
function renderSuggestion(reading) {
  const s = reading.suggestion;
  const box = $("suggestion");
  const likely = s && s.changes.every((c) => c.p >= SUGGEST_MIN_P);
  box.hidden = !likely;
  if (!likely) return;
  const changes = s.changes.map((c) => `${tileName(c.from)} → ${tileName(c.to)} (${Math.round(c.p * 100)}%)`);
  $("suggestion-text").textContent = t("suggestion", { changes: changes.join(", ") });
  $("suggestion-apply").onclick = () => {
    state.tiles = tilesFromRequest(s.request, reading);
    box.hidden = true;
    renderTiles();
    showTyped();
    rescore();
  };
}

export function renderReading() {
  const r = state.reading;
  if (!r || !r.reading) return;
  const { reading, image } = r;
  $("reading").hidden = false;
  renderSuggestion(reading);
  const img = $("annotated");
  img.hidden = !image;
  if (image && img.getAttribute("src") !== image) img.src = image;
  img.alt = t("annotated_alt");
  $("tap-photo").hidden = !image;
  const list = $("warnings");
  list.replaceChildren();
  for (const w of reading.warnings || []) {
    const li = document.createElement("li");
    const advice = document.createElement("span");
    advice.className = "advice";
    advice.textContent = adviceText(w);
    li.append(warningText(w), advice);
    li.dataset.code = w.code;
    list.append(li);
  }
}

/** The tile under a tap on the annotated photo: the picker opens on it. */
function tapPhoto(event) {
  const r = state.reading;
  if (!r || !r.reading || !r.places || !state.tiles) return;
  const img = event.currentTarget;
  const rect = img.getBoundingClientRect();
  const [w, h] = r.reading.size;
  const x = ((event.clientX - rect.left) / rect.width) * w;
  const y = ((event.clientY - rect.top) / rect.height) * h;
  const boxes = r.reading.detections.xyxy;
  let best = null;
  let bestD = Infinity;
  boxes.forEach(([x0, y0, x1, y1], i) => {
    const pad = (x1 - x0) * 0.5; // a tap beside a tile still finds it (the nearest centre wins)
    if (x < x0 - pad || x > x1 + pad || y < y0 - pad || y > y1 + pad) return;
    const d = Math.hypot(x - (x0 + x1) / 2, y - (y0 + y1) / 2);
    if (d < bestD) [best, bestD] = [i, d];
  });
  if (best === null) return;
  const inHand = r.places.hand.indexOf(best);
  if (inHand >= 0) return openPicker({ row: "hand", index: inHand });
  const m = r.places.melds.findIndex((list) => list.includes(best));
  if (m >= 0) return openPicker({ row: "meld", meld: m, index: r.places.melds[m].indexOf(best) });
}

export function startReading() {
  $("photo").addEventListener("change", (e) => {
    const file = e.target.files && e.target.files[0];
    if (file) scorePhoto(file);
    e.target.value = ""; // the same photo may be picked again
  });
  $("annotated").addEventListener("click", tapPhoto);
}

