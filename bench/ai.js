// The effect/ai rows: `LanguageModel.generateText` resolving the same 3 tool calls of the `add` tool, once with our
// bridged toolkit (`AiToolkit.fromToolSet`, every call through our dispatch) and once with effect/ai's own Toolkit
// (`Toolkit.make` + `toLayer` handlers, every call through `Toolkit.handle`), against the same scripted model.
//   node bench/ai.js [--quick]      these rows alone (against dist/, after `npm run build`)
// The scripted model answers every request with the same turn: three `add` calls whose arguments it has parsed, as a
// provider does, rotating through the 64 argument texts of the per-call rows.
import { Effect, Stream } from "effect"
import { LanguageModel, Prompt, Tool as AiTool, Toolkit } from "effect/ai"
import { ToolCall, ToolSet } from "effect-llm-tools"
import { AiToolkit } from "effect-llm-tools/ai"
import { pathToFileURL } from "node:url"
import { argumentTexts, expectedValue, makeOurAdd, Params, Success } from "./contenders.js"
import { fmtX, measureRounds, ratioStats, table, versusPeerTable } from "./measure.js"

const callsPerTurn = 3

/** The argument text of call `k` of request `i`. */
const textOf = (i, k) => argumentTexts[(i * callsPerTurn + k) & 63]

/**
 * A language model that answers each request with three `add` calls. `at.i` says which request this is, so that
 * every contender is sent the same calls for the same `i`; a contender sets it before it asks.
 */
const makeScriptedModel = (at) =>
  Effect.runSync(LanguageModel.make({
    generateText: () =>
      Effect.sync(() => [
        ...Array.from({ length: callsPerTurn }, (_, k) => ({
          type: "tool-call",
          id: `call_${k}`,
          name: "add",
          params: JSON.parse(textOf(at.i, k))
        })),
        { type: "finish", reason: "tool-calls", usage: { inputTokens: {}, outputTokens: {} } }
      ]),
    streamText: () => Stream.empty
  }))

const prompt = Prompt.make("Add these numbers")

/** The sums of a response's tool results, in call order (effect/ai gives them in the order they finish). */
const sumsOf = (response) =>
  [...response.toolResults]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((part) => {
      if (part.isFailure) throw new Error(`a tool call failed: ${JSON.stringify(part.encodedResult)}`)
      return part.encodedResult.value
    })

/**
 * A contender's request `i`: `generateText` with `toolkit` against a scripted model of the contender's own (so that
 * the request it is told to answer is its own), run with `runPromise`, giving the sums of the tool results.
 */
const generating = (toolkit) => {
  const at = { i: 0 }
  const model = makeScriptedModel(at)
  return async (i) => {
    at.i = i
    const request = LanguageModel.generateText({ prompt, toolkit })
    const response = await Effect.runPromise(Effect.provideService(request, LanguageModel.LanguageModel, model))
    return sumsOf(response)
  }
}

/** The contenders: ours, effect/ai's own Toolkit, and our ToolSet.executeAll on the same calls as a reference. */
export const makeAiContenders = async () => {
  const contenders = []
  const add = (name, key, one) =>
    contenders.push({
      name,
      key,
      async: true,
      one,
      run: async (n) => {
        let last
        for (let i = 0; i < n; i++) last = await one(i)
        return last
      }
    })

  const set = ToolSet.make(makeOurAdd())
  add(
    "ours: generateText, toolkit AiToolkit.fromToolSet (our dispatch), 3 calls, runPromise/request",
    "ours",
    generating(AiToolkit.fromToolSet(set))
  )

  const AiAdd = AiTool.make("add", { description: "Add two integers", parameters: Params, success: Success })
  const toolkit = Toolkit.make(AiAdd)
  const handlers = await Effect.runPromise(
    Effect.provide(toolkit, toolkit.toLayer({ add: ({ left, right }) => Effect.succeed({ value: left + right }) }))
  )
  add(
    "effect/ai: generateText, Toolkit.make + toLayer handlers (Toolkit.handle), 3 calls, runPromise/request",
    "peer",
    generating(handlers)
  )

  add(
    "reference: ToolSet.executeAll of the same 3 calls (no model, no generateText), runPromise/request",
    "executeAll",
    async (i) => {
      const calls = Array.from({ length: callsPerTurn }, (_, k) =>
        ToolCall.make({ id: `call_${k}`, name: "add", arguments: JSON.parse(textOf(i, k)) }))
      const results = await Effect.runPromise(ToolSet.executeAll(set, calls))
      return results.map((result) => result.output.content[0].value.value)
    }
  )

  // Every contender computes the right sums before anything is timed.
  for (const c of contenders) {
    for (const i of [0, 11, 63]) {
      const got = await c.one(i)
      const expected = Array.from({ length: callsPerTurn }, (_, k) => expectedValue(i * callsPerTurn + k))
      if (JSON.stringify(got) !== JSON.stringify(expected)) {
        throw new Error(`${c.name}: got ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`)
      }
    }
  }
  return { contenders }
}

/** Interleaved rounds of the contenders. */
export const measureAi = async ({ warmupMs, roundMs, rounds }, log = () => {}) => {
  log(`[bench] effect/ai generateText: ${rounds} interleaved rounds`)
  const { contenders } = await makeAiContenders()
  const { samples } = await measureRounds(contenders, { warmupMs, roundMs, rounds })
  return { contenders: contenders.map(({ name, key }) => ({ name, key })), samples }
}

const indexOf = (measured, key) => measured.contenders.findIndex((c) => c.key === key)

/** The per-round ratio of ours to effect/ai's own Toolkit. */
const oursToPeer = (measured) =>
  ratioStats(measured.samples[indexOf(measured, "ours")], measured.samples[indexOf(measured, "peer")])

/** The target of issue 12's speed section, as `[what, measured, pass]`. */
export const aiTargets = (measured) => {
  const ratio = oursToPeer(measured).median
  return [[
    "effect/ai generateText, 3 tool calls, scripted model: our bridged toolkit < 1× effect/ai's Toolkit.handle path",
    fmtX(ratio),
    ratio < 1
  ]]
}

/** The table of the rows: time per request (3 calls) and the ratio to effect/ai's own Toolkit. */
export const aiTable = (measured) =>
  versusPeerTable(measured, indexOf(measured, "peer"), { perCall: "median / request", versus: "effect/ai Toolkit" })

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes("--quick")
  const measured = await measureAi(
    quick ? { warmupMs: 250, roundMs: 20, rounds: 15 } : { warmupMs: 1000, roundMs: 40, rounds: 41 },
    (...args) => console.error(...args)
  )
  const rows = aiTargets(measured).map(([what, value, pass]) => [`**${pass ? "PASS" : "FAIL"}**`, what, value])
  console.log(table(["", "target", "measured"], rows))
  console.log()
  console.log(aiTable(measured))
  process.exit(0)
}
