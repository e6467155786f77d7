/**
 * Which claimable deliveries may run now without breaking the order of their ordering key.
 *
 * Deliveries of one key run one at a time, in `sequence` order. A candidate (due, and not held by a
 * live claim) may run when every earlier delivery of its key that is still pending or claimed is a
 * candidate of the same claim: those run first, in the same chain, one after another. One earlier
 * delivery that is not a candidate (waiting for its retry, claimed by a live instance, locked by a
 * concurrent claim) blocks the key's later ones. Done, dead and discarded deliveries block nothing.
 */

export interface OrderedRow {
  id: string;
  orderingKey: string;
  sequence: number;
}

/**
 * `candidates`: the claimable rows found; `active`: the pending or claimed rows of their keys
 * (with a sequence below the largest candidate's, at least), candidates included or not. Returns
 * the candidates that may be claimed, in their given order.
 */
export function eligibleRows<T extends OrderedRow>(candidates: readonly T[], active: readonly OrderedRow[]): T[] {
  const candidateIds = new Set(candidates.map((c) => c.id));
  const firstBlocker = new Map<string, number>();
  for (const row of active) {
    if (candidateIds.has(row.id)) continue;
    const seen = firstBlocker.get(row.orderingKey);
    if (seen === undefined || row.sequence < seen) firstBlocker.set(row.orderingKey, row.sequence);
  }
  const seenIds = new Set<string>();
  return candidates.filter((c) => {
    if (seenIds.has(c.id)) return false;
    seenIds.add(c.id);
    const blocker = firstBlocker.get(c.orderingKey);
    return blocker === undefined || c.sequence < blocker;
  });
}

/** Rows grouped by ordering key, each group in sequence order; groups in order of their first row. */
export function chainsByKey<T extends OrderedRow>(rows: readonly T[]): T[][] {
  const chains = new Map<string, T[]>();
  for (const row of [...rows].sort((a, b) => a.sequence - b.sequence)) {
    const chain = chains.get(row.orderingKey);
    if (chain) chain.push(row);
    else chains.set(row.orderingKey, [row]);
  }
  return [...chains.values()];
}
