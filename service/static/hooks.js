// hupai — hooks and events: how one part of the page lets another take over a step, or tells
// it that something happened, without importing it (the modules import one way: a module
// below says "rescore" or "pick a tile" by an event; app.js, on top, wires the events). A module registers a hook (table.js: "read a photo", "score
// the tiles", "name a seat"…); the module that owns the step asks for it and falls back to
// its own way when none is registered.

const hooks = new Map();

/** Register ``fn`` as the hook ``name`` (one per name; a later one replaces it). */
export function register(name, fn) {
  hooks.set(name, fn);
}

/** Call hook ``name`` with ``args``; ``fallback(...args)`` when none is registered. */
export function call(name, fallback, ...args) {
  const fn = hooks.get(name);
  if (fn) {
    const out = fn(...args);
    if (out !== undefined) return out;
  }
  return fallback ? fallback(...args) : undefined;
}

const listeners = new Map();

/** Listen to the event ``name`` (app.js wires them once, at the start). */
export function on(name, fn) {
  if (!listeners.has(name)) listeners.set(name, []);
  listeners.get(name).push(fn);
}

/** Tell the page that ``name`` happened: "rescore" (the hand or its context changed),
 * "pick" (open the tile picker on a target), "show-typed" (the tiles as notation),
 * "redraw-tiles" (the tiles' rows). */
export function emit(name, ...args) {
  for (const fn of listeners.get(name) || []) fn(...args);
}
