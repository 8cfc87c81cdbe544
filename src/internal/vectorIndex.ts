/**
 * An in-memory cosine index over embedding vectors. A tool may have several docs, hence several vectors: its score
 * for a query is that of its closest doc.
 */

/**
 * A built index: the ids of the closest tools, best first, ties in id order. A tool whose every doc vector is all
 * zeros is never among them, and a query vector of zeros finds none.
 */
export interface VectorIndex {
  readonly dimensions: number
  readonly search: (query: ReadonlyArray<number>, limit: number) => Array<number>
}

/**
 * The vector scaled to length 1, or `undefined` for one with no direction (all zeros), which is like nothing. Its
 * values are first divided by the largest of them, so that very large and very small ones (1e200, 1e-170) neither
 * overflow nor vanish when squared.
 */
export const normalized = (vector: ReadonlyArray<number>): Float64Array | undefined => {
  let largest = 0
  for (const x of vector) largest = Math.max(largest, Math.abs(x))
  if (!(largest > 0) || !Number.isFinite(largest)) return undefined
  const out = Float64Array.from(vector, (x) => x / largest)
  let sum = 0
  for (const x of out) sum += x * x
  const scale = 1 / Math.sqrt(sum)
  for (let i = 0; i < out.length; i++) out[i]! *= scale
  return out
}

/**
 * Builds the index from one entry per doc: the vector and the id of the tool it belongs to. Every vector has
 * `dimensions` finite numbers: the caller checks that before.
 */
export const buildVectorIndex = (
  dimensions: number,
  entries: ReadonlyArray<{ readonly owner: number; readonly vector: ReadonlyArray<number> }>
): VectorIndex => {
  // A doc whose vector has no direction says nothing about the tool: it is left out.
  const kept = entries.flatMap((entry) => {
    const vector = normalized(entry.vector)
    return vector === undefined ? [] : [{ owner: entry.owner, vector }]
  })
  const matrix = new Float64Array(kept.length * dimensions)
  const owners = new Int32Array(kept.length)
  kept.forEach((entry, row) => {
    matrix.set(entry.vector, row * dimensions)
    owners[row] = entry.owner
  })
  return {
    dimensions,
    search: (query, limit) => {
      if (limit <= 0 || kept.length === 0) return []
      // A query without a direction is close to nothing: no ranking, rather than every tool tied in id order.
      const q = normalized(query)
      if (q === undefined) return []
      const best = new Map<number, number>()
      for (let row = 0; row < kept.length; row++) {
        let dot = 0
        const offset = row * dimensions
        for (let i = 0; i < dimensions; i++) dot += matrix[offset + i]! * q[i]!
        const owner = owners[row]!
        const previous = best.get(owner)
        if (previous === undefined || dot > previous) best.set(owner, dot)
      }
      return [...best]
        .sort((left, right) => right[1] - left[1] || left[0] - right[0])
        .slice(0, limit)
        .map(([owner]) => owner)
    }
  }
}
