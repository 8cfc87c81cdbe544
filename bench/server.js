// The ToolServer rows of the dispatch benchmark: what a server's policy (hooks, limits on calls in flight) adds to a
// call, against `ToolSet` on the same tool and the same calls.
//   node bench/server.js [--quick]                        these rows alone (against dist/, after `npm run build`)
//   node bench/server.js concurrency <variant> [calls]    one sample of 10,000 concurrent calls, in this fresh process
//   node --cpu-prof bench/server.js profile <key> [seconds]   a loop of one per-call contender, for profiling
//     (keys: set, server, bare, deferredSet, deferredServer; summarize with bench/profile-summary.js)
// `npm run bench` runs them with the rest. A concurrency sample prints one JSON line:
// { variant, calls, wallMs, rssBefore, rssAfter, peakRss }.
import { execFileSync } from "node:child_process"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Context, Effect, Exit, Layer, Schema, Scope } from "effect"
import { ToolCall, ToolHooks, ToolServer, ToolSet, Tool } from "effect-llm-tools"
import {
  bytesPerCall,
  fmtBytes,
  fmtMiB,
  fmtNs,
  fmtX,
  measureRounds,
  median,
  profileContender,
  ratioStats,
  table
} from "./measure.js"

const Params = Schema.Struct({ left: Schema.Int, right: Schema.Int })
const Success = Schema.Struct({ value: Schema.Int })

/**
 * The typed `add` tool answering with `Effect.sync`: still synchronous, but an Effect that dispatch has to run, so the
 * server's limit on calls in flight is taken and given back around it (a tool that answers with an Exit has already
 * finished when dispatch sees it, and takes no permit).
 */
const deferredAdd = Tool.make("add", {
  description: "Add two integers",
  parameters: Params,
  success: Success,
  call: ({ left, right }) => Effect.sync(() => ({ value: left + right }))
})

/** The hook of the server rows: it lets every call run, so what it costs is the hook machinery itself. */
const noOpHook = ToolHooks.make({ onCall: () => Effect.succeed(ToolHooks.run) })

class BenchTools extends Context.Service()("bench/Tools") {}

/**
 * Builds a server once, in its own scope, and hands back its service: the rows measure `execute`, not the layer.
 * `close` releases the scope.
 */
export const buildServer = async (options) => {
  const scope = await Effect.runPromise(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(ToolServer.layer(BenchTools, options), scope))
  return { server: Context.get(context, BenchTools), close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

const valueOf = (result) => {
  if (result?.status !== "success") throw new Error(`expected a success, got ${result?.status}: ${result?.output?.content?.[0]?.text}`)
  return result.output.content[0].value.value
}

/**
 * The per-call contenders: `ToolSet.execute` and `ToolServer.execute` on the same tool and the same calls, one
 * `runSync` per call. The first two are the target's pair.
 */
export const makeServerContenders = async () => {
  // Imported here, not at the top: a fresh-process concurrency sample should not load every peer framework.
  const { argumentTexts, expectedValue, makeOurAdd } = await import("./contenders.js")
  const textAt = (i) => argumentTexts[i & 63]
  const call = (i) => ToolCall.make({ id: `call_${i & 63}`, name: "add", arguments: textAt(i) })
  const built = []
  const server = async (options) => {
    const b = await buildServer(options)
    built.push(b)
    return b.server
  }
  const contenders = []
  const add = (name, key, one) =>
    contenders.push({
      name,
      key,
      async: false,
      one,
      run: (n) => {
        let last
        for (let i = 0; i < n; i++) last = one(i)
        return last
      }
    })

  // The typed `add` tool of the other per-call rows, answering with `Effect.succeed` (an Exit: nothing left to run).
  const set = ToolSet.make(makeOurAdd())
  add("ToolSet.execute, runSync/call", "set", (i) => Effect.runSync(ToolSet.execute(set, call(i))))
  const hooked = await server({ tools: set, hooks: [noOpHook], concurrency: 64 })
  add(
    "ToolServer.execute, one no-op onCall hook, concurrency 64, runSync/call",
    "server",
    (i) => Effect.runSync(hooked.execute(call(i)))
  )
  const bare = await server({ tools: set })
  add("ToolServer.execute, no hooks, no limits, runSync/call", "bare", (i) => Effect.runSync(bare.execute(call(i))))
  const deferredSet = ToolSet.make(deferredAdd)
  add(
    "add answering with Effect.sync: ToolSet.execute, runSync/call",
    "deferredSet",
    (i) => Effect.runSync(ToolSet.execute(deferredSet, call(i)))
  )
  const deferredServer = await server({ tools: deferredSet, hooks: [noOpHook], concurrency: 64 })
  add(
    "add answering with Effect.sync: ToolServer.execute, one no-op hook, concurrency 64 (a permit per call), runSync/call",
    "deferredServer",
    (i) => Effect.runSync(deferredServer.execute(call(i)))
  )

  // Every contender computes the right answer before anything is timed.
  for (const c of contenders) {
    for (const i of [0, 11, 63]) {
      const got = valueOf(c.one(i))
      if (got !== expectedValue(i)) throw new Error(`${c.name}: got ${got}, expected ${expectedValue(i)}`)
    }
  }
  return { contenders, close: () => Promise.all(built.map((b) => b.close())) }
}

// ---------------------------------------------------------------------------------------------------------------
// 10,000 concurrent calls, each sample in a fresh process

/** The variants of the concurrency sample; `toolset` is the reference of the others. */
export const concurrencyVariants = {
  toolset: "ToolSet.executeAll, concurrency unbounded",
  server: "ToolServer.executeAll, one no-op hook, concurrency unbounded",
  "server-limited": "ToolServer.executeAll, one no-op hook, server concurrency 10,000 (a permit per call, none waits)"
}

const sampleConcurrency = async (variant, calls) => {
  if (!(variant in concurrencyVariants)) {
    throw new Error(`usage: node bench/server.js concurrency ${Object.keys(concurrencyVariants).join("|")} [calls]`)
  }
  const timer = () => new Promise((resolve) => setTimeout(resolve, 0))
  // The tool of the ToolSet concurrency row: it awaits a real 0 ms timer, so every call is in flight at once.
  const set = ToolSet.make(Tool.make("add", {
    description: "Add two integers after a 0 ms timer",
    parameters: Params,
    success: Success,
    call: ({ left, right }) => Effect.map(Effect.promise(timer), () => ({ value: left + right }))
  }))
  const toolCalls = Array.from({ length: calls }, (_, i) =>
    ToolCall.make({ id: `call_${i}`, name: "add", arguments: `{"left":${i},"right":${i * 3}}` }))
  let program
  if (variant === "toolset") {
    program = (n) => ToolSet.executeAll(set, toolCalls.slice(0, n), { concurrency: "unbounded" })
  } else {
    const { server } = await buildServer({
      tools: set,
      hooks: [noOpHook],
      ...(variant === "server-limited" ? { concurrency: calls } : {})
    })
    program = (n) => server.executeAll(toolCalls.slice(0, n), { concurrency: "unbounded" })
  }
  // A small warm-up loads and compiles the code paths; the measured run is the first large one.
  await Effect.runPromise(program(200))
  const rssBefore = process.memoryUsage.rss()
  const t0 = performance.now()
  const results = await Effect.runPromise(program(calls))
  const wallMs = performance.now() - t0
  const rssAfter = process.memoryUsage.rss()
  if (results.length !== calls) throw new Error(`${variant}: ${results.length} results for ${calls} calls`)
  for (const i of [0, calls >> 1, calls - 1]) {
    if (results[i].callId !== `call_${i}` || valueOf(results[i]) !== i * 4) {
      throw new Error(`${variant}: wrong result for call ${i}`)
    }
  }
  // maxRSS is the process's lifetime peak; in this fresh process the measured run is what sets it.
  const peakRss = process.resourceUsage().maxRSS * 1024
  return { variant, calls, wallMs, rssBefore, rssAfter, peakRss }
}

// ---------------------------------------------------------------------------------------------------------------
// measuring and reporting

/**
 * Measures the server rows: the per-call contenders in interleaved rounds (their ratios taken per round), their
 * allocation, and `concurrencyReps` fresh-process samples of each concurrency variant (the order rotated every
 * repetition, the wall-time ratios taken per repetition).
 */
export const measureServer = async (
  { warmupMs, roundMs, rounds, allocMs, allocReps, concurrencyReps, calls = 10_000 },
  log = () => {}
) => {
  log(`[bench] ToolServer per call: ${rounds} interleaved rounds`)
  const { contenders, close } = await makeServerContenders()
  const { sizes, samples } = await measureRounds(contenders, { warmupMs, roundMs, rounds })
  const allocs = []
  for (let j = 0; j < contenders.length; j++) {
    const n = Math.ceil(sizes[j] * allocMs / roundMs)
    const reps = []
    for (let k = 0; k < allocReps; k++) reps.push(await bytesPerCall(contenders[j], n))
    allocs.push(median(reps))
  }
  await close()

  log(`[bench] ToolServer concurrency: ${concurrencyReps} fresh processes per variant`)
  const script = fileURLToPath(import.meta.url)
  const variants = Object.keys(concurrencyVariants)
  const conc = Object.fromEntries(variants.map((v) => [v, []]))
  for (let r = 0; r < concurrencyReps; r++) {
    // Rotate which goes first, so that none always runs on a machine just warmed (or disturbed) by another.
    for (let k = 0; k < variants.length; k++) {
      const v = variants[(k + r) % variants.length]
      conc[v].push(JSON.parse(execFileSync(process.execPath, [script, "concurrency", v, String(calls)], { encoding: "utf8" }).trim()))
    }
  }
  return { contenders: contenders.map(({ name, key }) => ({ name, key })), samples, allocs, conc, calls }
}

const indexOf = (measured, key) => measured.contenders.findIndex((c) => c.key === key)

/** The per-round ratio of two per-call contenders, by key. */
const perCallRatio = (measured, key, reference) =>
  ratioStats(measured.samples[indexOf(measured, key)], measured.samples[indexOf(measured, reference)])

/** The per-repetition wall-time ratio of a concurrency variant to the ToolSet's. */
const wallRatio = (measured, variant) => {
  const ratios = measured.conc[variant].map((x, r) => x.wallMs / measured.conc.toolset[r].wallMs)
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) }
}

const range = (r) => `${fmtX(r.median)} [${fmtX(r.min)}–${fmtX(r.max)}]`

/** Which ToolSet row each per-call row is compared with: the same tool, the same calls. */
const referenceOf = { set: "set", server: "set", bare: "set", deferredSet: "deferredSet", deferredServer: "deferredSet" }

/** The per-call table: median, min and max ns per call, the ratio to ToolSet on the same tool, allocation. */
export const serverPerCallTable = (measured) =>
  table(
    ["contender", "median / call", "min", "max", "× ToolSet.execute, same tool (median of rounds [min–max])", "allocated / call"],
    measured.contenders.map((c, j) => {
      const s = measured.samples[j]
      return [
        c.name,
        fmtNs(median(s)),
        fmtNs(Math.min(...s)),
        fmtNs(Math.max(...s)),
        c.key === referenceOf[c.key] ? "—" : range(perCallRatio(measured, c.key, referenceOf[c.key])),
        fmtBytes(measured.allocs[j])
      ]
    }),
    ["l", "r", "r", "r", "r", "r"]
  )

/** The concurrency table: wall time and RSS of each variant, and its wall-time ratio to the ToolSet's. */
export const serverConcurrencyTable = (measured) =>
  table(
    [`${measured.calls.toLocaleString("en-US")} concurrent calls (0 ms timer)`, "wall (median)", "min", "max", "× ToolSet (median of pairs [min–max])", "peak RSS", "Δ RSS"],
    Object.entries(concurrencyVariants).map(([variant, name]) => {
      const xs = measured.conc[variant]
      const walls = xs.map((x) => x.wallMs)
      return [
        name,
        `${median(walls).toFixed(1)} ms`,
        `${Math.min(...walls).toFixed(1)} ms`,
        `${Math.max(...walls).toFixed(1)} ms`,
        variant === "toolset" ? "—" : range(wallRatio(measured, variant)),
        fmtMiB(median(xs.map((x) => x.peakRss))),
        fmtMiB(median(xs.map((x) => x.rssAfter - x.rssBefore)))
      ]
    }),
    ["l", "r", "r", "r", "r", "r", "r"]
  )

/** The targets of issue 9's speed section, as `[what, measured, pass]`. */
export const serverTargets = (measured) => {
  const perCall = perCallRatio(measured, "server", "set").median
  const wall = wallRatio(measured, "server").median
  const wallLimited = wallRatio(measured, "server-limited").median
  return [
    ["ToolServer.execute, one no-op hook, concurrency 64 ≤ 1.3× ToolSet.execute per call", fmtX(perCall), perCall <= 1.3],
    ["10,000 concurrent async calls through ToolServer.executeAll (one no-op hook): wall ≤ 1.5× ToolSet.executeAll", fmtX(wall), wall <= 1.5],
    ["the same with a server concurrency of 10,000 (a permit per call): wall ≤ 1.5× ToolSet.executeAll", fmtX(wallLimited), wallLimited <= 1.5]
  ]
}

// ---------------------------------------------------------------------------------------------------------------
// run alone

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === "profile") {
    const { contenders, close } = await makeServerContenders()
    const seconds = Number(process.argv[4] ?? 5)
    console.log(JSON.stringify(profileContender("bench/server.js", contenders, process.argv[3], seconds, 1000)))
    await close()
  } else if (process.argv[2] === "concurrency") {
    const sample = await sampleConcurrency(process.argv[3], Number(process.argv[4] ?? 10_000))
    console.log(JSON.stringify(sample))
  } else {
    const quick = process.argv.includes("--quick")
    const config = quick
      ? { warmupMs: 250, roundMs: 6, rounds: 15, allocMs: 40, allocReps: 3, concurrencyReps: 3 }
      : { warmupMs: 1000, roundMs: 20, rounds: 41, allocMs: 150, allocReps: 5, concurrencyReps: 7 }
    const measured = await measureServer(config, (...args) => console.error(...args))
    console.log(table(["", "target", "measured"], serverTargets(measured).map(([w, m, p]) => [`**${p ? "PASS" : "FAIL"}**`, w, m])))
    console.log()
    console.log(serverPerCallTable(measured))
    console.log()
    console.log(serverConcurrencyTable(measured))
  }
}
