// hupai — hooks: how one part of the page lets another take over a step without either
// calling the other's globals. A module registers a hook (table.js: "read a photo", "score
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
