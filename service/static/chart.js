// hupai — the trend chart: the four players' totals after each hand, one line each (SVG,
// drawn from the table's hands; no library).

const NS = "http://www.w3.org/2000/svg";
export const COLORS = ["#b3261e", "#1d4f9c", "#12733a", "#8a3fa0"];

function el(name, attrs) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/** The totals after each hand: row 0 the start, row k after hand k. */
export function series(start, hands) {
  const rows = [[start, start, start, start]];
  for (const h of hands) rows.push(rows[rows.length - 1].map((v, p) => v + (h.deltas[p] || 0)));
  return rows;
}

/** An SVG line chart of ``rows`` (the totals after each hand), ``label`` its description. */
export function trendChart(rows, label) {
  const W = 340;
  const H = 160;
  const pad = { l: 34, r: 8, t: 8, b: 18 };
  const all = rows.flat();
  let lo = Math.min(...all);
  let hi = Math.max(...all);
  if (lo === hi) [lo, hi] = [lo - 1, hi + 1];
  const x = (k) => pad.l + (rows.length === 1 ? 0 : (k * (W - pad.l - pad.r)) / (rows.length - 1));
  const y = (v) => pad.t + ((hi - v) * (H - pad.t - pad.b)) / (hi - lo);
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": label, class: "trend" });
  const zero = rows[0][0];
  svg.append(el("line", { x1: pad.l, x2: W - pad.r, y1: y(zero), y2: y(zero), stroke: "#bbb", "stroke-dasharray": "3 3" }));
  for (const [v, anchor] of [[hi, "hi"], [lo, "lo"]]) {
    const text = el("text", { x: pad.l - 4, y: y(v) + (anchor === "hi" ? 8 : 0), "text-anchor": "end", "font-size": 10, fill: "#5d6360" });
    text.textContent = String(v);
    svg.append(text);
  }
  for (let p = 0; p < 4; p++) {
    const points = rows.map((r, k) => `${x(k).toFixed(1)},${y(r[p]).toFixed(1)}`).join(" ");
    svg.append(el("polyline", { points, fill: "none", stroke: COLORS[p], "stroke-width": 2.5, "stroke-linejoin": "round", "data-player": p }));
    const last = rows[rows.length - 1];
    svg.append(el("circle", { cx: x(rows.length - 1), cy: y(last[p]), r: 3.5, fill: COLORS[p] }));
  }
  return svg;
}
