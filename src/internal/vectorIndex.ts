/**
 * An in-memory cosine index over embedding vectors. A tool may have several docs, hence several vectors: its score
 * for a query is that of its closest doc.
 */

/** A built index: the ids of the closest tools, best first, ties in id order. */
export interface VectorIndex {
  readonly dimensions: number
  readonly search: (query: ReadonlyArray<number>, limit: number) => Array<number>
}

/** The vector scaled to length 1; the zero vector stays zero (its cosine with anything is 0). */
const normalized = (vector: ReadonlyArray<number>): Float64Array => {
  let sum = 0
  for (const x of vector) sum += x * x
  const out = Float64Array.from(vector)
  if (sum > 0) {
    const scale = 1 / Math.sqrt(sum)
    for (let i = 0; i < out.length; i++) out[i]! *= scale
  }
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
  const matrix = new Float64Array(entries.length * dimensions)
  const owners = new Int32Array(entries.length)
  entries.forEach((entry, row) => {
    matrix.set(normalized(entry.vector), row * dimensions)
    owners[row] = entry.owner
  })
  return {
    dimensions,
    search: (query, limit) => {
      if (limit <= 0 || entries.length === 0) return []
      const q = normalized(query)
      const best = new Map<number, number>()
      for (let row = 0; row < entries.length; row++) {
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
