/**
 * Reciprocal rank fusion: each ranking gives an id `1 / (k + rank)`, and the sums decide. It needs no scores, so
 * rankings on different scales (BM25, cosine) combine without calibration; an id that one ranking misses still
 * gets the other's share, so a second retriever can only add candidates.
 */

/** The constant of the original paper (Cormack, Clarke and Büttcher, 2009): it damps the weight of the very top. */
export const rrfK = 60

/** The ids of all rankings, best fused score first, ties in id order. */
export const fuseRankings = (rankings: ReadonlyArray<ReadonlyArray<number>>, k: number = rrfK): Array<number> => {
  const scores = new Map<number, number>()
  for (const ranking of rankings) {
    ranking.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + rank + 1)))
  }
  return [...scores].sort((left, right) => right[1] - left[1] || left[0] - right[0]).map(([id]) => id)
}
