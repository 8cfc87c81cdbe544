// A loop of ToolSet.execute with one runSync per call, for profiling:
//   node --cpu-prof --cpu-prof-dir=bench/profiles bench/profile.js [seconds] [module]
// `module` (default: the built package) may point at a modified copy of dist/ to compare a change.
import { Effect } from "effect"
import { argumentTexts } from "./contenders.js"

const seconds = Number(process.argv[2] ?? 5)
const { ToolCall, ToolSet, Tool } = await import(process.argv[3] ?? "effect-llm-tools")
const { Schema } = await import("effect")

const set = ToolSet.make(Tool.make("add", {
  description: "Add two integers",
  parameters: Schema.Struct({ left: Schema.Int, right: Schema.Int }),
  success: Schema.Struct({ value: Schema.Int }),
  call: ({ left, right }) => Effect.succeed({ value: left + right })
}))
let sink = 0
const loop = (ms) => {
  const started = performance.now()
  const until = started + ms
  let calls = 0
  while (performance.now() < until) {
    for (let i = 0; i < 1000; i++, calls++) {
      const result = Effect.runSync(ToolSet.execute(set, ToolCall.make({ id: "c", name: "add", arguments: argumentTexts[i & 63] })))
      sink += result.output.content[0].value.value
    }
  }
  return ((performance.now() - started) * 1e6) / calls
}
loop(300) // warm-up, not counted
const nsPerCall = loop(seconds * 1000)
console.log(JSON.stringify({ nsPerCall, sink }))
