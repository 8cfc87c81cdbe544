// The contenders of the per-call comparison. Every one gets the same `add` tool ({left:int,right:int} → {value:int}),
// receives the arguments as the JSON text a model emits, and ends with what its framework would send back to the
// model. Each contender exposes `run(n)`: n calls in a row (sync or async), returning a value the caller keeps alive.
import { Ajv } from "ajv"
import { Effect, Exit, Schema, Tracer } from "effect"
import { Tool as AiTool, Toolkit as AiToolkit } from "effect/ai"
import * as Stream from "effect/Stream"
import { DynamicTool, ToolCall, ToolSet, Tool } from "effect-llm-tools"
import { tool as aiSdkTool } from "ai"
import { asSchema, executeTool as aiSdkExecuteTool, jsonSchema as aiSdkJsonSchema, safeParseJSON } from "@ai-sdk/provider-utils"
import { RunContext, tool as agentsTool } from "@openai/agents"
import { tool as langchainTool } from "@langchain/core/tools"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { z } from "zod"

/** The argument texts calls rotate through, so that no contender can cache one parse. */
export const argumentTexts = Array.from({ length: 64 }, (_, i) => `{"left":${i * 7 - 100},"right":${1000 - i * 13}}`)

const textAt = (i) => argumentTexts[i & 63]

/**
 * A tracing backend that records every span in memory (a fixed ring, so a long run does not grow without bound),
 * as an exporter's in-memory buffer would.
 */
export const makeRecordingTracer = (capacity = 4096) => {
  const spans = new Array(capacity)
  let count = 0
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      spans[count++ % capacity] = span
      return span
    }
  })
  return { tracer, recorded: () => count, last: () => spans[(count - 1) % capacity] }
}

// ---------------------------------------------------------------------------------------------------------------
// ours

export const Params = Schema.Struct({ left: Schema.Int, right: Schema.Int })
export const Success = Schema.Struct({ value: Schema.Int })

/** Our `add` tool, under a given name. */
export const makeOurAdd = (name = "add") =>
  Tool.make(name, {
    description: "Add two integers",
    parameters: Params,
    success: Success,
    call: ({ left, right }) => Effect.succeed({ value: left + right })
  })

/** The `add` tool's arguments and output as JSON Schema, as a server that defines its tools at run time sends them. */
export const addParametersJsonSchema = {
  type: "object",
  properties: { left: { type: "integer" }, right: { type: "integer" } },
  required: ["left", "right"],
  additionalProperties: false
}
export const addOutputJsonSchema = {
  type: "object",
  properties: { value: { type: "integer" } },
  required: ["value"],
  additionalProperties: false
}

/**
 * Our `add` tool defined at run time: the same tool from its JSON Schemas, arguments checked by the compiled JSON
 * Schema validator and the output by its output schema. `schemas` gives fresh schema objects (a first call then
 * compiles its own validators).
 */
export const makeOurDynamicAdd = (
  name = "add",
  schemas = { parameters: addParametersJsonSchema, outputSchema: addOutputJsonSchema }
) =>
  DynamicTool.make(name, {
    description: "Add two integers",
    parameters: schemas.parameters,
    outputSchema: schemas.outputSchema,
    call: (args) => Effect.succeed({ value: args.left + args.right })
  })

// ---------------------------------------------------------------------------------------------------------------

/**
 * @typedef {{ readonly name: string, readonly async: boolean, readonly group: string,
 *   readonly run: (n: number) => unknown | Promise<unknown>, readonly check: () => Promise<unknown> }} Contender
 */

/** Builds every contender, and checks that each computes the right answer before any is timed. */
export const makeContenders = async () => {
  /** @type {Array<Contender>} */
  const contenders = []
  const add = (name, group, isAsync, one) => {
    const run = isAsync
      ? async (n) => {
        let last
        for (let i = 0; i < n; i++) last = await one(i)
        return last
      }
      : (n) => {
        let last
        for (let i = 0; i < n; i++) last = one(i)
        return last
      }
    contenders.push({ name, group, async: isAsync, run, one })
  }

  // floor: JSON.parse + hand-written checks + add + JSON.stringify
  add("floor (JSON.parse + checks + JSON.stringify)", "floor", false, (i) => {
    const args = JSON.parse(textAt(i))
    if (typeof args !== "object" || args === null || Array.isArray(args)) throw new Error("not an object")
    const { left, right } = args
    if (!Number.isSafeInteger(left) || !Number.isSafeInteger(right)) throw new Error("not integers")
    return JSON.stringify({ value: left + right })
  })

  // Effect baseline, plain: Schema.decodeUnknownSync + encodeSync
  const paramsCodec = Schema.toCodecJson(Params)
  const successCodec = Schema.toCodecJson(Success)
  const decodeSync = Schema.decodeUnknownSync(paramsCodec)
  const encodeSync = Schema.encodeSync(successCodec)
  add("Effect Schema decodeUnknownSync + encodeSync", "effect-baseline", false, (i) => {
    const { left, right } = decodeSync(JSON.parse(textAt(i)))
    return JSON.stringify(encodeSync({ value: left + right }))
  })

  // Effect baseline, the same inside Effect.gen, one runSync per call
  const decodeEffect = Schema.decodeUnknownEffect(paramsCodec)
  const encodeEffect = Schema.encodeEffect(successCodec)
  add("Effect baseline: decode+encode in Effect.gen, runSync/call", "effect-baseline", false, (i) =>
    Effect.runSync(Effect.gen(function*() {
      const { left, right } = yield* decodeEffect(JSON.parse(textAt(i)))
      const encoded = yield* encodeEffect({ value: left + right })
      return JSON.stringify(encoded)
    })))

  // The same under a recording tracer, with one `Effect.withSpan` per call carrying the attributes our span carries:
  // what a traced call costs in Effect itself, the peer of our traced rows.
  const baselineRecording = makeRecordingTracer()
  add(
    "Effect baseline, recording tracer: decode+encode in Effect.gen, one Effect.withSpan, runSync/call",
    "effect-baseline",
    false,
    (i) =>
      Effect.runSync(Effect.withTracer(
        Effect.withSpan(
          Effect.gen(function*() {
            const { left, right } = yield* decodeEffect(JSON.parse(textAt(i)))
            const encoded = yield* encodeEffect({ value: left + right })
            return JSON.stringify(encoded)
          }),
          "execute_tool add",
          {
            kind: "internal",
            attributes: {
              "gen_ai.operation.name": "execute_tool",
              "gen_ai.tool.name": "add",
              "gen_ai.tool.call.id": `call_${i & 63}`
            }
          }
        ),
        baselineRecording.tracer
      ))
  )

  // The same span without the stack trace `Effect.withSpan` captures by default (our span captures none): what the
  // span itself costs in Effect.
  add(
    "Effect baseline, recording tracer, Effect.withSpan without a stack trace, runSync/call",
    "effect-baseline",
    false,
    (i) =>
      Effect.runSync(Effect.withTracer(
        Effect.withSpan(
          Effect.gen(function*() {
            const { left, right } = yield* decodeEffect(JSON.parse(textAt(i)))
            const encoded = yield* encodeEffect({ value: left + right })
            return JSON.stringify(encoded)
          }),
          "execute_tool add",
          {
            kind: "internal",
            captureStackTrace: false,
            attributes: {
              "gen_ai.operation.name": "execute_tool",
              "gen_ai.tool.name": "add",
              "gen_ai.tool.call.id": `call_${i & 63}`
            }
          }
        ),
        baselineRecording.tracer
      ))
  )

  // ours
  const set = ToolSet.make(makeOurAdd())
  const calls = argumentTexts.map((text, i) => ToolCall.make({ id: `call_${i}`, name: "add", arguments: text }))
  const recording = makeRecordingTracer()
  const callAt = (i) => ToolCall.make({ id: calls[i & 63].id, name: "add", arguments: textAt(i) })

  add("ours: ToolSet.execute, runSync/call", "ours", false, (i) => Effect.runSync(ToolSet.execute(set, callAt(i))))
  // The same call to the same tool defined at run time from JSON Schema (DynamicTool): the JSON Schema path.
  const dynamicSet = ToolSet.make(makeOurDynamicAdd())
  add(
    "ours: dynamic add (JSON Schema), ToolSet.execute, runSync/call",
    "ours",
    false,
    (i) => Effect.runSync(ToolSet.execute(dynamicSet, callAt(i)))
  )
  // What any Effect dispatch that checks a JSON-schema tool's call as ours does must do at the least, hand-written for
  // this one tool: parse, validate the arguments, freeze them, call, make a frozen copy of the output, validate it, and
  // time the call, in one Effect run, ending with a bare result object. No lookup, limits, metrics, span check or
  // typed output: a bound, not a contender.
  const boundAjv = new Ajv({ allErrors: true })
  const boundArguments = boundAjv.compile(addParametersJsonSchema)
  const boundOutput = boundAjv.compile(addOutputJsonSchema)
  const boundCall = (args) => Effect.succeed({ value: args.left + args.right })
  add(
    "bound: a validated JSON-schema call by hand (parse, validate, freeze, call, copy, validate, time), runSync/call",
    "floor",
    false,
    (i) =>
      Effect.runSync(Effect.withFiber(() => {
        const startedAt = performance.now()
        const args = JSON.parse(textAt(i))
        if (!boundArguments(args)) throw new Error("invalid arguments")
        const returned = boundCall(Object.freeze(args))
        if (!Exit.isExit(returned) || !Exit.isSuccess(returned)) throw new Error("the call failed")
        const output = Object.freeze({ value: returned.value.value })
        if (!boundOutput(output)) throw new Error("invalid output")
        const content = [{ _tag: "Json", value: output }]
        return Effect.succeed({ status: "success", output: { content }, durationMs: performance.now() - startedAt })
      }))
  )
  add(
    "ours: ToolSet.execute, runSync/call, recording tracer",
    "ours",
    false,
    (i) => Effect.runSync(Effect.withTracer(ToolSet.execute(set, callAt(i)), recording.tracer))
  )
  const batchSize = 100
  const batches = Array.from({ length: 64 }, (_, b) =>
    Array.from({ length: batchSize }, (_, j) => callAt(b * batchSize + j)))
  const runBatches = (n, wrap) => {
    let last
    for (let done = 0, b = 0; done < n; done += batchSize, b++) {
      last = Effect.runSync(wrap(ToolSet.executeAll(set, batches[b & 63])))
    }
    return last
  }
  contenders.push({
    name: `ours: ToolSet.executeAll, ${batchSize} calls/runSync`,
    group: "ours",
    async: false,
    batch: batchSize,
    run: (n) => runBatches(n, (e) => e),
    one: () => Effect.runSync(ToolSet.executeAll(set, [callAt(3)]))[0]
  })
  contenders.push({
    name: `ours: ToolSet.executeAll, ${batchSize} calls/runSync, recording tracer`,
    group: "ours",
    async: false,
    batch: batchSize,
    run: (n) => runBatches(n, (e) => Effect.withTracer(e, recording.tracer)),
    one: () => Effect.runSync(Effect.withTracer(ToolSet.executeAll(set, [callAt(3)]), recording.tracer))[0]
  })

  // effect/ai Toolkit handle: the params a provider decoded from the JSON text, handle, drain the stream, encoded
  // result to JSON text.
  const AiAdd = AiTool.make("add", { description: "Add two integers", parameters: Params, success: Success })
  const toolkit = AiToolkit.make(AiAdd)
  const handlers = await Effect.runPromise(
    Effect.provide(toolkit, toolkit.toLayer({ add: ({ left, right }) => Effect.succeed({ value: left + right }) }))
  )
  add("effect/ai Toolkit.handle, runPromise/call", "peer", true, (i) =>
    Effect.runPromise(Effect.gen(function*() {
      const stream = yield* handlers.handle("add", JSON.parse(textAt(i)), `call_${i & 63}`)
      let final
      yield* Stream.runForEach(stream, (part) => Effect.sync(() => {
        if (!part.preliminary) final = part
      }))
      return JSON.stringify(final.encodedResult)
    })))

  // Vercel AI SDK: its tool-call path — parse the input JSON against the tool's schema (doParseToolCall:
  // safeParseJSON + asSchema), execute (executeTool, as executeToolCall drives it), and the model output
  // (createToolModelOutput: a JSON round trip of the output), then the text sent back.
  const aiAdd = aiSdkTool({
    description: "Add two integers",
    inputSchema: z.object({ left: z.number().int(), right: z.number().int() }),
    execute: async ({ left, right }) => ({ value: left + right })
  })
  const aiTools = { add: aiAdd }
  add("Vercel AI SDK: parse + validate + execute + model output", "peer", true, async (i) => {
    const tool = Object.hasOwn(aiTools, "add") ? aiTools.add : undefined
    const parsed = await safeParseJSON({ text: textAt(i), schema: asSchema(tool.inputSchema) })
    if (!parsed.success) throw parsed.error
    let output
    for await (
      const part of aiSdkExecuteTool({
        tool,
        input: parsed.value,
        options: { toolCallId: `call_${i & 63}`, messages: [], abortSignal: undefined, context: undefined }
      })
    ) {
      if (part.type !== "preliminary") output = part.output
    }
    const serialized = JSON.stringify(output)
    const modelOutput = { type: "json", value: serialized === undefined ? null : JSON.parse(serialized) }
    return JSON.stringify(modelOutput.value)
  })

  // The AI SDK's path for a tool defined at run time: its `jsonSchema` helper instead of zod, the same steps.
  // Its steps are written out again, not shared with the row above: one function for both would let V8 tune it to
  // two tools at once, and each row would no longer measure the path as an application runs it.
  const aiDynamicTools = {
    add: aiSdkTool({
      description: "Add two integers",
      inputSchema: aiSdkJsonSchema(addParametersJsonSchema),
      execute: async ({ left, right }) => ({ value: left + right })
    })
  }
  add("Vercel AI SDK, jsonSchema tool: parse + validate + execute + model output", "peer", true, async (i) => {
    const tool = Object.hasOwn(aiDynamicTools, "add") ? aiDynamicTools.add : undefined
    const parsed = await safeParseJSON({ text: textAt(i), schema: asSchema(tool.inputSchema) })
    if (!parsed.success) throw parsed.error
    let output
    for await (
      const part of aiSdkExecuteTool({
        tool,
        input: parsed.value,
        options: { toolCallId: `call_${i & 63}`, messages: [], abortSignal: undefined, context: undefined }
      })
    ) {
      if (part.type !== "preliminary") output = part.output
    }
    const serialized = JSON.stringify(output)
    const modelOutput = { type: "json", value: serialized === undefined ? null : JSON.parse(serialized) }
    return JSON.stringify(modelOutput.value)
  })

  // @openai/agents: FunctionTool.invoke with a RunContext; the runner sends non-string output as JSON text.
  const agentsAdd = agentsTool({
    name: "add",
    description: "Add two integers",
    parameters: z.object({ left: z.number().int(), right: z.number().int() }),
    execute: async ({ left, right }) => ({ value: left + right })
  })
  const runContext = new RunContext({})
  add("@openai/agents FunctionTool.invoke", "peer", true, async (i) => {
    const out = await agentsAdd.invoke(runContext, textAt(i), { toolCall: undefined })
    return typeof out === "string" ? out : JSON.stringify(out)
  })
  // The same with a JSON-schema tool, as an agent gets one at run time (strict, as the SDK requires of JSON Schema).
  const agentsJsonAdd = agentsTool({
    name: "add",
    description: "Add two integers",
    parameters: addParametersJsonSchema,
    strict: true,
    execute: async ({ left, right }) => ({ value: left + right })
  })
  add("@openai/agents FunctionTool.invoke, JSON-schema tool", "peer", true, async (i) => {
    const out = await agentsJsonAdd.invoke(runContext, textAt(i), { toolCall: undefined })
    return typeof out === "string" ? out : JSON.stringify(out)
  })

  // LangChain: tool().invoke with a ToolCall (the chat model has parsed the arguments); ends with the ToolMessage's
  // content.
  const lcAdd = langchainTool(async ({ left, right }) => ({ value: left + right }), {
    name: "add",
    description: "Add two integers",
    schema: z.object({ left: z.number().int(), right: z.number().int() })
  })
  add("LangChain tool().invoke(ToolCall)", "peer", true, async (i) => {
    const message = await lcAdd.invoke({ type: "tool_call", id: `call_${i & 63}`, name: "add", args: JSON.parse(textAt(i)) })
    return typeof message.content === "string" ? message.content : JSON.stringify(message.content)
  })

  // MCP: client → in-memory transport → server → tool → back; ends with the result's text content.
  const sdk = await makeSdkMcpPair()
  add("MCP SDK client→server (in-memory transport)", "peer", true, async (i) => {
    const result = await sdk.client.callTool({ name: "add", arguments: JSON.parse(textAt(i)) })
    return result.content[0].text
  })

  return { contenders, recording, close: sdk.close }
}

/**
 * The official MCP SDK's pair: its `Client` connected to its `McpServer` serving the `add` tool (zod schemas,
 * structured output) over its `InMemoryTransport`, the tool list read once.
 */
export const makeSdkMcpPair = async () => {
  const server = new McpServer({ name: "bench", version: "1.0.0" })
  server.registerTool(
    "add",
    {
      description: "Add two integers",
      inputSchema: { left: z.number().int(), right: z.number().int() },
      outputSchema: { value: z.number().int() }
    },
    async ({ left, right }) => {
      const structuredContent = { value: left + right }
      return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent }
    }
  )
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
  const client = new Client({ name: "bench-client", version: "1.0.0" })
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)])
  await client.listTools()
  return { client, close: () => Promise.all([client.close(), server.close()]) }
}

/** What each contender must produce for call i (its final text, or our ToolResult's Json value). */
export const expectedValue = (i) => {
  const { left, right } = JSON.parse(textAt(i))
  return left + right
}

/** Checks one call of a contender against the expected sum, whatever shape its framework ends with. */
export const verify = async (contender, i) => {
  const out = await contender.one(i)
  let value
  if (typeof out === "string") value = JSON.parse(out).value
  else if (out && typeof out === "object" && out.status === "success") value = out.output.content[0].value.value
  else throw new Error(`${contender.name}: unexpected output ${String(out)}`)
  const expected = contender.batch === undefined ? expectedValue(i) : expectedValue(3)
  if (value !== expected) throw new Error(`${contender.name}: got ${value}, expected ${expected}`)
}

/**
 * What a tool defined at run time costs before its steady state, over `n` tools made from fresh schema objects (so
 * that none reuses another's compiled validators): `DynamicTool.make` (structural and meta-schema checks, nothing
 * compiled), its first call (which compiles the argument and output validators), and its second call.
 */
export const measureDynamicFirstCalls = (n = 50) => {
  const make = []
  const first = []
  const second = []
  for (let i = 0; i < n; i++) {
    const schemas = { parameters: structuredClone(addParametersJsonSchema), outputSchema: structuredClone(addOutputJsonSchema) }
    const t0 = performance.now()
    const tool = makeOurDynamicAdd(`add_${i}`, schemas)
    const t1 = performance.now()
    const set = ToolSet.make(tool)
    const call = ToolCall.make({ id: `call_${i}`, name: `add_${i}`, arguments: textAt(i) })
    const t2 = performance.now()
    const one = Effect.runSync(ToolSet.execute(set, call))
    const t3 = performance.now()
    const two = Effect.runSync(ToolSet.execute(set, call))
    const t4 = performance.now()
    if (one.status !== "success" || two.status !== "success") throw new Error(`dynamic first call: ${one.status}, ${two.status}`)
    make.push(t1 - t0)
    first.push(t3 - t2)
    second.push(t4 - t3)
  }
  return { make, first, second }
}
