// hupai — the hand being scored, shared by the page's modules (one object, no globals).

export const state = {
  meta: null, // GET /v1/cities
  tiles: null, // {hand: [], win: index|null, melds: [], flowers: [], indicator: [], fishing: []}
  widgets: { fields: [], options: [] },
  picker: null, // what the tile picker edits: {row, index, meld}
  alternatives: {}, // per place (hand, flowers, set_apart): the reading's names per tile
  reading: null, // {reading, image, places}: the latest photo's reading (redrawn on a language change)
  seq: 0, // the latest score request; older answers are dropped
  lastScore: null, // {result, byPlayer, doubts, settled}
  tableFields: new Set(), // the city fields a table fills in itself (not shown while one is open)
  shownDealer: 0, // the player the shown score's seat 0 is (a table's hand); 0 otherwise
};

export function emptyTiles() {
  return { hand: [], win: null, melds: [], flowers: [], indicator: [], fishing: [] };
}
