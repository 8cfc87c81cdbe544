// One sample of the concurrency section, run in a fresh process so that its RSS is its own:
// 10,000 concurrent calls of an async tool that awaits a real 0 ms timer.
//   node bench/concurrency.js ours|baseline [calls]
// Prints one JSON line: { which, calls, wallMs, rssBefore, rssAfter, peakRss, sampledPeakRss }.
import { Effect, Schema } from "effect"
import { ToolCall, ToolSet, Tool } from "effect-llm-tools"

const which = process.argv[2]
const calls = Number(process.argv[3] ?? 10_000)

const Params = Schema.Struct({ left: Schema.Int, right: Schema.Int })
const Success = Schema.Struct({ value: Schema.Int })
const timer = () => new Promise((resolve) => setTimeout(resolve, 0))
const texts = Array.from({ length: calls }, (_, i) => `{"left":${i},"right":${i * 3}}`)

let program
if (which === "ours") {
  const set = ToolSet.make(Tool.make("add", {
    description: "Add two integers after a 0 ms timer",
    parameters: Params,
    success: Success,
    call: ({ left, right }) => Effect.map(Effect.promise(timer), () => ({ value: left + right }))
  }))
  const toolCalls = texts.map((text, i) => ToolCall.make({ id: `call_${i}`, name: "add", arguments: text }))
  program = (n) => ToolSet.executeAll(set, toolCalls.slice(0, n), { concurrency: "unbounded" })
} else if (which === "baseline") {
  const decode = Schema.decodeUnknownEffect(Schema.toCodecJson(Params))
  const encode = Schema.encodeEffect(Schema.toCodecJson(Success))
  program = (n) =>
    Effect.forEach(texts.slice(0, n), (text) =>
      Effect.gen(function*() {
        const { left, right } = yield* decode(JSON.parse(text))
        yield* Effect.promise(timer)
        return JSON.stringify(yield* encode({ value: left + right }))
      }), { concurrency: "unbounded" })
} else {
  throw new Error(`usage: node bench/concurrency.js ours|baseline [calls]`)
}

const check = (results) => {
  if (results.length !== calls) throw new Error(`${which}: ${results.length} results for ${calls} calls`)
  const last = results[calls - 1]
  const value = typeof last === "string" ? JSON.parse(last).value : last.output.content[0].value.value
  if (value !== (calls - 1) * 4) throw new Error(`${which}: wrong last value ${value}`)
}

// A small warm-up loads and compiles the code paths; the measured run is the first large one.
await Effect.runPromise(program(200))

let sampledPeakRss = 0
const sampler = setInterval(() => {
  sampledPeakRss = Math.max(sampledPeakRss, process.memoryUsage.rss())
}, 1)
const rssBefore = process.memoryUsage.rss()
const t0 = performance.now()
const results = await Effect.runPromise(program(calls))
const wallMs = performance.now() - t0
const rssAfter = process.memoryUsage.rss()
clearInterval(sampler)
check(results)
sampledPeakRss = Math.max(sampledPeakRss, rssAfter)
// maxRSS is the process's lifetime peak; in this fresh process the measured run is what sets it.
const peakRss = process.resourceUsage().maxRSS * 1024
console.log(JSON.stringify({ which, calls, wallMs, rssBefore, rssAfter, peakRss, sampledPeakRss }))
