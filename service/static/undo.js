// hupai — undo and redo at a table: two stacks of this phone's own changes (kept per table
// for the session). Undo asks the server to undo that hand's change; redo makes the change
// again (the ledger's undos stack, so an undo cannot itself be undone): an added hand or
// draw is added again — with its photo while this page holds it —, an edit saved again, a
// delete deleted again. A hand another phone changed since is left alone, saying so.
import { $, api, send, setStatus, showError } from "./dom.js";
import { t } from "./i18n.js";

const stacks = { token: null, undo: [], redo: [], busy: false };
const photos = new Map(); // change id → the photo of a hand this page added (for redo)
let table = { view: () => null, refresh: async () => {} };


function stacksKey() {
  return `hupai.undo.${stacks.token}`;
}

/** Start keeping this phone's changes to the table ``token`` (``view()``: the table as
 * shown; ``refresh()``: load and show it again). */
export function startUndo(token, view, refresh) {
  stacks.token = token;
  table = { view, refresh };
  loadStacks();
  showStackButtons();
}

function loadStacks() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(stacksKey()) || "null");
    stacks.undo = (saved && saved.undo) || [];
    stacks.redo = (saved && saved.redo) || [];
  } catch (e) {
    stacks.undo = [];
    stacks.redo = [];
  }
}

function saveStacks() {
  sessionStorage.setItem(stacksKey(), JSON.stringify({ undo: stacks.undo, redo: stacks.redo }));
  showStackButtons();
}

/** Undo and redo enabled while their stacks hold a change. Redo is offered only while the
 * table is as the undo left it (``tableRevision``): any later change — on this phone or
 * another, a hand or a house rule — and it is gone, never to re-apply an old edit later. It
 * says what it will redo. */
export function showStackButtons() {
  const view = table.view();
  const top = stacks.redo[stacks.redo.length - 1];
  if (top && view && !stacks.busy && top.tableRevision !== view.revision) {
    stacks.redo = [];
    sessionStorage.setItem(stacksKey(), JSON.stringify({ undo: stacks.undo, redo: stacks.redo }));
  }
  $("game-undo").disabled = stacks.undo.length === 0;
  const redo = $("game-redo");
  redo.disabled = stacks.redo.length === 0;
  redo.textContent = stacks.redo.length ? t("redo_what", { what: changeText(stacks.redo[stacks.redo.length - 1]) }) : t("redo");
}

/** A change made on this phone: it can be undone; what was undone can no longer be redone.
 * ``photo``: the photo of an added hand, kept (in this page only) to add it again on redo. */
export function done(change, photo) {
  change.id = `${Date.now()}-${Math.random()}`;
  if (photo) photos.set(change.id, photo);
  stacks.undo.push(change);
  stacks.redo = [];
  saveStacks();
}

/** A change in words, with the hand's number as the list shows it ("第 2 局"). */
function changeText(c) {
  const view = table.view();
  const n = (view && view.hands && view.hands.findIndex((h) => h.number === c.number) + 1) || c.ordinal || c.number;
  return t(`act_${c.kind}`, { n });
}

/** Undo this phone's latest change: the server puts that hand back as it was before it
 * (undoing an add deletes the hand). The change moves to the redo stack. */
export async function undo() {
  const change = stacks.undo[stacks.undo.length - 1];
  if (!change) return setStatus(() => t("nothing_to_undo"));
  if (!(await stillAsLeft(change, stacks.undo))) return;
  stacks.busy = true; // the table changes under this undo: not a newer change
  try {
    const body = await api(`/v1/tables/${stacks.token}/hands/${change.number}/undo`, { method: "POST" });
    stacks.undo.pop();
    stacks.redo.push({ ...change, revision: body.hand.revision });
    await settled();
    setStatus(() => t("undone_what", { what: changeText(change) }));
  } catch (err) {
    showError(err);
  } finally {
    stacks.busy = false;
    showStackButtons();
  }
}

/** After this phone's undo or redo: the table shown again, and the changes left to redo
 * belong to the table as it is now. */
async function settled() {
  await table.refresh();
  const revision = table.view().revision;
  for (const c of stacks.redo) c.tableRevision = revision;
  saveStacks();
}

/** Make the latest undone change again: an added hand or draw is added again (with its
 * photo while this page still holds it), an edit is saved again, a delete deleted again. */
export async function redo() {
  const change = stacks.redo[stacks.redo.length - 1];
  if (!change) return setStatus(() => t("nothing_to_redo"));
  if (!(await stillAsLeft(change, stacks.redo))) return;
  const base = `/v1/tables/${stacks.token}`;
  await table.refresh();
  if (!stacks.redo.length) return setStatus(() => t("nothing_to_redo")); // the table changed since
  stacks.busy = true;
  try {
    let body;
    if (change.kind === "edit") {
      body = await send("PUT", `${base}/hands/${change.number}`, { revision: change.revision, hand: change.entry });
    } else if (change.kind === "delete") {
      body = await api(`${base}/hands/${change.number}?revision=${change.revision}`, { method: "DELETE" });
    } else if (photos.has(change.id)) {
      const form = new FormData();
      form.append("photo", photos.get(change.id), "photo.jpg");
      form.append("context", JSON.stringify(change.entry));
      body = await api(`${base}/photo`, { method: "POST", body: form });
    } else {
      body = await send("POST", `${base}/hands`, change.entry);
    }
    stacks.redo.pop();
    stacks.undo.push({ ...change, number: body.hand.number, revision: body.hand.revision });
    await settled();
    setStatus(() => t("redone_what", { what: changeText(change) }));
  } catch (err) {
    showError(err);
  } finally {
    stacks.busy = false;
    showStackButtons();
  }
}

/** Whether the hand is still as this phone's change (or undo) left it; if another phone
 * changed it since, the change leaves its stack, saying why. */
async function stillAsLeft(change, stack) {
  let hand = null;
  try {
    hand = await api(`/v1/tables/${stacks.token}/hands/${change.number}`);
  } catch (e) {
    hand = null;
  }
  if (hand && hand.revision === change.revision) return true;
  stack.pop();
  saveStacks();
  showError({ local: t("undo_changed_elsewhere", { n: changeText(change) }) });
  return false;
}
