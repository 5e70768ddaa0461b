// hupai — the page's small DOM helpers: elements by id, the API, the status line, errors
// (announced and scrolled into view), and confirmations.
import { errorText, hintText, isZh, t } from "./i18n.js";

export const $ = (id) => document.getElementById(id);

export function option(value, text, selected) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = text;
  if (selected) o.selected = true;
  return o;
}

/** JSON from the API; a failure is thrown as the API's error body ({code, message, …}). */
export async function api(path, init) {
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw { code: "unreachable", message: t("unreachable"), local: t("unreachable") };
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
      : { message: t("server_answered", { status: `${response.status} ${response.statusText}` }), local: t("server_answered", { status: response.status }) };
  }
  return body;
}

/** JSON as ``api`` does, jsonified: POST/PUT with a JSON body. */
export function send(method, path, body) {
  return api(path, { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

let statusText = null; // the status line's words, said again after a change of language

/** The status line: ``text`` a string, or a function giving it in the page's language (then
 * said again when the language changes). */
export function setStatus(text, busy) {
  statusText = typeof text === "function" ? text : null;
  const s = $("status");
  s.textContent = statusText ? statusText() : text;
  s.classList.toggle("busy", Boolean(busy));
}

/** The status line in the page's language (after a switch). */
export function redrawStatus() {
  if (statusText) $("status").textContent = statusText();
  if (shownError && !$("error").hidden) showError(shownError);
}

let shownError = null;

let heldUntil = 0;

/** Keep the page where it is for ``ms`` (a tile was just fixed: its answer, even an error,
 * must not pull the page away from it; the error is still announced). */
export function holdScroll(ms = 1500) {
  heldUntil = Date.now() + ms;
}

/** Bring ``el`` into view unless the player is typing in a field or has just fixed a tile. */
export function reveal(el) {
  const typing = document.activeElement && document.activeElement.matches("input[type=text], textarea, dialog *");
  if (typing || Date.now() < heldUntil || typeof el.scrollIntoView !== "function") return;
  el.scrollIntoView({ block: "nearest", behavior: "smooth" });
}

/** Show ``err`` (an API error body or {local: text}) in the error box, or clear it (null).
 * The box is role=alert: screen readers announce it. */
export function showError(err) {
  shownError = err;
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
  if (detail && detail !== message) {
    // the reason in full, folded away (in Chinese on a Chinese screen: issue #39, row 6)
    const more = document.createElement("details");
    more.className = "detail";
    const summary = document.createElement("summary");
    summary.textContent = t("error_detail");
    const text = document.createElement("div");
    text.lang = isZh() ? "zh-CN" : "en";
    text.textContent = detail;
    more.append(summary, text);
    box.append(more);
  }
  const hint = hintText(err);
  if (hint) {
    const h = document.createElement("div");
    h.className = "hint";
    h.textContent = hint;
    box.append(h);
  }
  box.hidden = false;
  reveal(box);
}

/** Show ``err`` in a dialog's own error ``box``: what is wrong, and the reason on a line of
 * its own (in the page's language), unfolded — a dialog has room and nothing else to say. */
export function explainError(box, err) {
  const { message, detail } = errorText(err);
  const lines = [message, detail].filter((x, i, all) => x && all.indexOf(x) === i);
  box.replaceChildren(
    ...lines.map((text, i) => {
      const div = document.createElement("div");
      div.className = i === 0 ? "message" : "detail";
      div.textContent = text;
      return div;
    }),
  );
  box.hidden = false;
}

/** Open ``dialog`` as a modal that the phone's Back button closes (the half-entered hand
 * under it stays): the dialog takes a history entry while open, given back when it closes. */
export function openDialog(dialog) {
  if (dialog.open) return;
  dialog.showModal();
  history.pushState({ dialog: dialog.id }, "", location.href);
  dialog.addEventListener(
    "close",
    () => {
      if (history.state && history.state.dialog === dialog.id) history.back();
    },
    { once: true },
  );
}

/** Back with a dialog open closes the dialog (its history entry is already gone). */
export function startDialogs() {
  window.addEventListener("popstate", () => {
    const kept = history.state && history.state.dialog;
    for (const d of document.querySelectorAll("dialog[open]")) if (d.id !== kept) d.close();
  });
}

/** Ask before something is lost: resolves true for yes. */
export function confirmAction(text, yes) {
  const dialog = $("confirm");
  $("confirm-text").textContent = text;
  $("confirm-yes").textContent = yes || t("confirm_yes");
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
    dialog.returnValue = "";
    openDialog(dialog);
    $("confirm-no").focus();
  });
}
