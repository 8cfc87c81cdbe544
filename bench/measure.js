// Timing and allocation helpers shared by the benchmark sections.
import v8 from "node:v8"

/** Nanoseconds, as a number. */
export const now = () => Number(process.hrtime.bigint())

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** Runs `run(n)` and returns the nanoseconds it took (awaiting it when it is async). */
export const timeBatch = async (contender, n) => {
  if (contender.async) {
    const t0 = now()
    await contender.run(n)
    return now() - t0
  }
  const t0 = now()
  contender.run(n)
  return now() - t0
}

/** A batch size that takes about `targetMs`, a multiple of the contender's own batch when it has one. */
export const calibrate = async (contender, targetMs) => {
  const unit = contender.batch ?? 1
  let n = unit
  for (;;) {
    const ns = await timeBatch(contender, n)
    if (ns > 2e6 || n > 1e6) {
      const perCall = ns / n
      return Math.max(unit, Math.ceil(targetMs * 1e6 / perCall / unit) * unit)
    }
    n *= 4
  }
}

/** Runs a contender for about `ms` milliseconds, so that its code is optimized before anything is timed. */
export const warmup = async (contender, ms) => {
  const until = now() + ms * 1e6
  const n = contender.batch ?? 64
  while (now() < until) await contender.run(n)
}

/**
 * Bytes allocated on the V8 heap per call, without forcing a collection: the growth of `heapUsed` over a batch plus
 * what every collection that happened during the batch freed (from `v8.GCProfiler`, which reports the heap before and
 * after each one). Short-lived garbage is counted even when a scavenge reclaimed it mid-batch.
 */
export const bytesPerCall = async (contender, n) => {
  const profiler = new v8.GCProfiler()
  profiler.start()
  const before = process.memoryUsage().heapUsed
  if (contender.async) await contender.run(n)
  else contender.run(n)
  const after = process.memoryUsage().heapUsed
  const { statistics } = profiler.stop()
  let freed = 0
  for (const gc of statistics) {
    freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize
  }
  return (after - before + freed) / n
}

/**
 * Interleaved rounds: in every round each contender runs one batch, in an order rotated by one each round, so that
 * drift in the machine (another process, thermal state, a collection) falls on every contender alike.
 * Returns, per contender, the ns per call of each round (the rounds are aligned across contenders).
 */
export const interleave = async (contenders, sizes, rounds, onRound) => {
  const samples = contenders.map(() => [])
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < contenders.length; k++) {
      const j = (k + r) % contenders.length
      const ns = await timeBatch(contenders[j], sizes[j])
      samples[j].push(ns / sizes[j])
    }
    onRound?.(r)
  }
  return samples
}

/**
 * Warms every contender up, sizes its batch to about `roundMs`, then runs `rounds` interleaved rounds. Returns the
 * batch sizes and, per contender, the ns per call of each round.
 */
export const measureRounds = async (contenders, { warmupMs, roundMs, rounds }) => {
  for (const c of contenders) await warmup(c, warmupMs)
  const sizes = []
  for (const c of contenders) sizes.push(await calibrate(c, roundMs))
  return { sizes, samples: await interleave(contenders, sizes, rounds) }
}

/**
 * The profile driver of a section run alone (`node --cpu-prof bench/<section>.js profile <key> [seconds]`): the
 * contender named `key` runs `run(batch)` in a loop, 300 ms not counted, then `seconds`; returns its ns per call.
 * An unknown key throws, listing the keys of `script`.
 */
export const profileContender = (script, contenders, key, seconds, batch) => {
  const contender = contenders.find((c) => c.key === key)
  if (contender === undefined) {
    throw new Error(`usage: node ${script} profile ${contenders.map((c) => c.key).join("|")} [seconds]`)
  }
  const spin = (ms) => {
    const started = performance.now()
    let calls = 0
    while (performance.now() < started + ms) {
      contender.run(batch)
      calls += batch
    }
    return ((performance.now() - started) * 1e6) / calls
  }
  spin(300) // warm-up, not counted
  return { key: contender.key, nsPerCall: spin(seconds * 1000) }
}

/** The per-round ratio a/b, summarized by its median, min and max. */
export const ratioStats = (a, b) => {
  const ratios = a.map((x, r) => x / b[r])
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) }
}

export const fmtNs = (ns) => ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : ns >= 1e4 ? `${(ns / 1e3).toFixed(1)} µs` : `${Math.round(ns)} ns`
export const fmtX = (x) => x >= 100 ? `${x.toFixed(0)}×` : x >= 10 ? `${x.toFixed(1)}×` : `${x.toFixed(2)}×`
export const fmtBytes = (b) => b >= 10240 ? `${(b / 1024).toFixed(1)} KiB` : `${Math.round(b)} B`
export const fmtMiB = (b) => `${(b / 1048576).toFixed(1)} MiB`

/** A Markdown table. */
export const table = (header, rows, align) => {
  const lines = [`| ${header.join(" | ")} |`, `|${header.map((_, i) => (align?.[i] === "r" ? " ---: " : " --- ")).join("|")}|`]
  for (const row of rows) lines.push(`| ${row.join(" | ")} |`)
  return lines.join("\n")
}

/**
 * The table of contenders timed against one of them, the peer at index `peer`: each one's median, min and max per
 * call over the rounds, and its per-round ratio to the peer (median of rounds [min–max]); the peer's own ratio is "—".
 * `perCall` heads the median column ("median / call"), `versus` names the peer in the ratio column ("SDK").
 */
export const versusPeerTable = (measured, peer, { perCall, versus }) =>
  table(
    ["contender", perCall, "min", "max", `× ${versus} (median of rounds [min–max])`],
    measured.contenders.map((c, j) => {
      const xs = measured.samples[j]
      const vs = j === peer ? undefined : ratioStats(xs, measured.samples[peer])
      return [
        c.name,
        fmtNs(median(xs)),
        fmtNs(Math.min(...xs)),
        fmtNs(Math.max(...xs)),
        vs === undefined ? "—" : `${fmtX(vs.median)} [${fmtX(vs.min)}–${fmtX(vs.max)}]`
      ]
    }),
    ["l", "r", "r", "r", "r"]
  )
