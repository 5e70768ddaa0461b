// hupai — the end of a game: who pays whom, in as few transfers as possible, as text to
// share or as a picture. Pure arithmetic on whole points; money at the table's rate.

/** Transfers [{from, to, points}] that settle ``net`` (points won, summing to 0) with the
 * fewest transfers: the players are split into as many groups that sum to zero as possible
 * (a group of k settles in k − 1 transfers), each group settled largest debt first. */
export function fewestTransfers(net) {
  const n = net.length;
  const full = (1 << n) - 1;
  const sum = (mask) => net.reduce((s, v, i) => (mask & (1 << i) ? s + v : s), 0);
  // best[mask]: the most zero-sum groups the players in ``mask`` (summing to 0) split into
  const best = new Array(full + 1).fill(-1);
  const split = new Array(full + 1).fill(0);
  best[0] = 0;
  for (let mask = 1; mask <= full; mask++) {
    if (sum(mask) !== 0) continue;
    for (let sub = mask; sub; sub = (sub - 1) & mask) {
      if (sum(sub) !== 0 || best[mask ^ sub] < 0) continue;
      if (best[mask ^ sub] + 1 > best[mask]) {
        best[mask] = best[mask ^ sub] + 1;
        split[mask] = sub;
      }
    }
  }
  const groups = [];
  if (best[full] < 0) groups.push(full); // not zero-sum (cannot happen at a table): one group
  else for (let mask = full; mask; mask ^= split[mask]) groups.push(split[mask]);
  const out = [];
  for (const g of groups) {
    const bal = net.map((v, i) => (g & (1 << i) ? v : 0));
    for (;;) {
      const debtor = bal.indexOf(Math.min(...bal));
      const creditor = bal.indexOf(Math.max(...bal));
      if (bal[debtor] >= 0) break;
      const points = Math.min(-bal[debtor], bal[creditor]);
      out.push({ from: debtor, to: creditor, points });
      bal[debtor] += points;
      bal[creditor] -= points;
    }
  }
  return out;
}

/** ``points`` at ``rate`` (a decimal string, or null) as money with two decimals. */
export function money(points, rate) {
  if (rate === null || rate === undefined || rate === "") return null;
  const cents = Math.round(points * Number(rate) * 100);
  return (cents / 100).toFixed(2);
}
