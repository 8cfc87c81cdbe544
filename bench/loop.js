// The ToolLoop rows: what one turn of the model ⇄ tools loop costs beyond the model, against a bare
// `ToolSet.executeAll` of the same calls.
//   node bench/loop.js [--quick]                  these rows alone (against dist/, after `npm run build`)
//   node --cpu-prof bench/loop.js profile <key> [seconds]   a loop of one contender, for profiling
//     (keys: bare, loop, model, loopAi, modelAi; summarize with bench/profile-summary.js)
//
// One run is one conversation: the model answers the prompt with 3 calls of the typed `add` tool (arguments from the
// 64 of the per-call table), the loop executes them and sends the results back, and the model answers with text.
// The model is scripted, and its own cost is taken out two ways:
// - `loop` asks a model that hands back prebuilt responses (a lookup and `Effect.succeed`): nearly free, and the
//   `model` row times exactly those two requests alone, with the prompts the loop sends, to subtract what is left;
// - `loopAi` asks a model made with effect/ai's `LanguageModel.make`, so that effect/ai's own `generateText`
//   (decoding the response against the toolkit, its span) runs as it would with a provider; `modelAi` times those
//   two requests alone. That difference is reported too, but the model's cost dwarfs the calls, so it is noisier.
// The loop's own overhead per call is (loop − model) / 3, compared with bare `executeAll` / 3, per round.
import { pathToFileURL } from "node:url"
import { Effect, Stream } from "effect"
import { LanguageModel, Prompt, Response } from "effect/ai"
import { ToolCall, ToolSet } from "effect-llm-tools"
import { AiToolkit, ToolLoop } from "effect-llm-tools/ai"
import { argumentTexts, expectedValue, makeOurAdd } from "./contenders.js"
import { fmtNs, fmtX, measureRounds, median, profileContender, ratioStats, table } from "./measure.js"

/** Calls per turn: the unit every contender runs in (its `batch`), and what its time is divided by. */
const callsPerTurn = 3

const argumentsAt = (i) => JSON.parse(argumentTexts[i & 63])
const usage = new Response.Usage({ inputTokens: {}, outputTokens: {} })

/** The model's two turns of conversation `i`: 3 calls of `add`, then the final text. */
const turnsAt = (i) => {
  const calls = Array.from({ length: callsPerTurn }, (_, k) =>
    Response.makePart("tool-call", {
      id: `call_${i & 63}_${k}`,
      name: "add",
      params: argumentsAt(i + k),
      providerExecuted: false
    }))
  return [
    [...calls, Response.makePart("finish", { reason: "tool-calls", usage, response: undefined })],
    [
      Response.makePart("text", { text: "done" }),
      Response.makePart("finish", { reason: "stop", usage, response: undefined })
    ]
  ]
}

/** Which turn a request is: the first, or the one after the tool results. */
const turnOf = (prompt) => (prompt.content[prompt.content.length - 1]?.role === "tool" ? 1 : 0)

/** A model that hands back prebuilt responses: what the loop costs with a model that costs next to nothing. */
const makeStubModel = (state) => {
  const responses = Array.from({ length: 64 }, (_, i) =>
    turnsAt(i).map((parts) => new LanguageModel.GenerateTextResponse(parts)))
  return {
    [LanguageModel.TypeId]: LanguageModel.TypeId,
    generateText: (options) => Effect.succeed(responses[state.i & 63][turnOf(options.prompt)]),
    generateObject: () => Effect.die("not scripted"),
    streamText: () => Stream.die("not scripted")
  }
}

/** A model made with effect/ai's `LanguageModel.make`: `generateText` decodes the scripted parts as a provider's. */
const makeAiModel = (state) => {
  const encoded = Array.from({ length: 64 }, (_, i) =>
    turnsAt(i).map((parts) =>
      parts.map((part) =>
        part.type === "tool-call"
          ? { type: "tool-call", id: part.id, name: part.name, params: part.params }
          : part.type === "text"
          ? { type: "text", text: part.text }
          : { type: "finish", reason: part.reason, usage: { inputTokens: {}, outputTokens: {} } }
      )
    ))
  return Effect.runSync(LanguageModel.make({
    generateText: (options) => Effect.succeed(encoded[state.i & 63][turnOf(options.prompt)]),
    streamText: () => Stream.die("not scripted")
  }))
}

const valueOf = (result) => {
  if (result?.status !== "success") throw new Error(`expected a success, got ${result?.status}`)
  return result.output.content[0].value.value
}

/** The contenders, each running whole turns: `run(n)` runs n / 3 of them, and its time is per call. */
export const makeLoopContenders = async () => {
  const set = ToolSet.make(makeOurAdd())
  const callsAt = (i) =>
    Array.from({ length: callsPerTurn }, (_, k) =>
      ToolCall.make({ id: `call_${i & 63}_${k}`, name: "add", arguments: argumentsAt(i + k) }))
  const batches = Array.from({ length: 64 }, (_, i) => callsAt(i))
  const stubState = { i: 0 }
  const aiState = { i: 0 }
  const stub = makeStubModel(stubState)
  const ai = makeAiModel(aiState)

  // The requests the loop sends, as it sends them: the prompt, then the prompt with the turn and its results.
  const options = (model) => ({ model, tools: set, prompt: "add these" })
  const firstRun = Effect.runSync(ToolLoop.run(options(stub)))
  const prompts = Array.from({ length: 64 }, (_, i) => {
    stubState.i = i
    const transcript = Effect.runSync(ToolLoop.run(options(stub))).transcript
    return [Prompt.fromMessages(transcript.content.slice(0, 1)), Prompt.fromMessages(transcript.content.slice(0, 3))]
  })
  // The toolkit the loop offers: the set's declarations, with a handler that is never asked for.
  const offered = { tools: AiToolkit.fromToolSet(set).tools, handle: () => Effect.die("not resolved") }
  const request = (prompt) => ({
    prompt,
    toolkit: offered,
    disableToolCallResolution: true,
    toolCallValidation: "deferred"
  })
  const requestsAt = prompts.map(([first, second]) => [request(first), request(second)])

  const contenders = []
  const add = (name, key, one) =>
    contenders.push({
      name,
      key,
      async: false,
      batch: callsPerTurn,
      one,
      run: (n) => {
        let last
        for (let i = 0; i < n; i += callsPerTurn) last = one(i / callsPerTurn)
        return last
      }
    })
  /** Conversation `i`: the whole loop, one runSync; its results. */
  const converse = (model, state) => (i) => {
    state.i = i
    return Effect.runSync(ToolLoop.run(options(model))).toolResults
  }
  /** Conversation `i`'s two requests, as the loop sends them, to the model alone: one runSync each. */
  const ask = (model, state) => (i) => {
    state.i = i
    const [first, second] = requestsAt[i & 63]
    Effect.runSync(model.generateText(first))
    return Effect.runSync(model.generateText(second))
  }
  add(
    "bare ToolSet.executeAll, 3 calls, concurrency unbounded, runSync/turn",
    "bare",
    (i) => Effect.runSync(ToolSet.executeAll(set, batches[i & 63], { concurrency: "unbounded" }))
  )
  add(
    "ToolLoop.run, one turn of 3 calls then the answer, prebuilt responses, runSync/run",
    "loop",
    converse(stub, stubState)
  )
  add("the same model alone: its 2 requests, runSync each", "model", ask(stub, stubState))
  add(
    "ToolLoop.run, the same, a LanguageModel.make model (effect/ai's generateText), runSync/run",
    "loopAi",
    converse(ai, aiState)
  )
  add(
    "that model alone: its 2 requests through effect/ai's generateText, runSync each",
    "modelAi",
    ask(ai, aiState)
  )

  // Every contender does what it is timed for before anything is timed.
  if (firstRun.text !== "done" || firstRun.turns !== 2) throw new Error("the loop did not finish its conversation")
  for (const key of ["bare", "loop", "loopAi"]) {
    const c = contenders.find((contender) => contender.key === key)
    for (const i of [0, 11, 63]) {
      const values = c.one(i).map(valueOf)
      const expected = Array.from({ length: callsPerTurn }, (_, k) => expectedValue(i + k))
      if (JSON.stringify(values) !== JSON.stringify(expected)) {
        throw new Error(`${c.name}: got ${values}, expected ${expected}`)
      }
    }
  }
  for (const key of ["model", "modelAi"]) {
    const c = contenders.find((contender) => contender.key === key)
    if (c.one(5).text !== "done") throw new Error(`${c.name}: the second request did not answer with the text`)
  }
  return contenders
}

/** Measures the loop rows in interleaved rounds. */
export const measureLoop = async ({ warmupMs, roundMs, rounds }, log = () => {}) => {
  log(`[bench] ToolLoop: ${rounds} interleaved rounds`)
  const contenders = await makeLoopContenders()
  const { samples } = await measureRounds(contenders, { warmupMs, roundMs, rounds })
  return { contenders: contenders.map(({ name, key }) => ({ name, key })), samples }
}

const samplesOf = (measured, key) => measured.samples[measured.contenders.findIndex((c) => c.key === key)]

/**
 * Per round: (loop − model) ÷ bare, each per call; with `bookkeeping`, (loop − model − bare) ÷ bare: what the loop
 * adds to executing the calls.
 */
const overheadRatio = (measured, loopKey, modelKey, bookkeeping = false) => {
  const loop = samplesOf(measured, loopKey)
  const model = samplesOf(measured, modelKey)
  const bare = samplesOf(measured, "bare")
  const own = loop.map((ns, r) => ns - model[r] - (bookkeeping ? bare[r] : 0))
  return { own: median(own), ...ratioStats(own, bare) }
}

const range = (r) => `${fmtX(r.median)} [${fmtX(r.min)}–${fmtX(r.max)}]`

/** The per-call table: ns per call (a run's time ÷ 3) of each contender, and the loop's own overhead. */
export const loopTable = (measured) => {
  const rows = measured.contenders.map((c, j) => {
    const s = measured.samples[j]
    return [c.name, fmtNs(median(s)), fmtNs(Math.min(...s)), fmtNs(Math.max(...s))]
  })
  const stub = overheadRatio(measured, "loop", "model")
  const ai = overheadRatio(measured, "loopAi", "modelAi")
  rows.push(["loop's own overhead: ToolLoop.run − its model (prebuilt responses)", fmtNs(stub.own), "", ""])
  rows.push(["loop's own overhead: ToolLoop.run − its model (effect/ai's generateText)", fmtNs(ai.own), "", ""])
  return [
    table(["per call (one run ÷ 3 calls)", "median", "min", "max"], rows, ["l", "r", "r", "r"]),
    "",
    table(
      ["loop's own overhead per call ÷ bare ToolSet.executeAll per call", "median of rounds [min–max]"],
      [
        ["model with prebuilt responses (the target's)", range(stub)],
        [
          "the same, less the calls: what the loop adds to executing them",
          range(overheadRatio(measured, "loop", "model", true))
        ],
        ["model through effect/ai's generateText", range(ai)]
      ],
      ["l", "r"]
    )
  ].join("\n")
}

/** The target of issue 12's speed section, as `[what, measured, pass]`. */
export const loopTargets = (measured) => {
  const ratio = overheadRatio(measured, "loop", "model").median
  const what = "one loop turn with 3 tool calls and a scripted model: the loop's own overhead per call " +
    "≤ 1.3× a bare ToolSet.executeAll"
  return [[what, fmtX(ratio), ratio <= 1.3]]
}

// ---------------------------------------------------------------------------------------------------------------
// run alone

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === "profile") {
    const contenders = await makeLoopContenders()
    const seconds = Number(process.argv[4] ?? 5)
    console.log(JSON.stringify(profileContender("bench/loop.js", contenders, process.argv[3], seconds, 300)))
  } else {
    const quick = process.argv.includes("--quick")
    const config = quick ? { warmupMs: 250, roundMs: 6, rounds: 15 } : { warmupMs: 1000, roundMs: 20, rounds: 41 }
    const measured = await measureLoop(config, (...args) => console.error(...args))
    const rows = loopTargets(measured).map(([what, value, pass]) => [`**${pass ? "PASS" : "FAIL"}**`, what, value])
    console.log(table(["", "target", "measured"], rows))
    console.log()
    console.log(loopTable(measured))
  }
}
