/**
 * A language model for tests: it replays scripted assistant turns, in order, and records every request it was sent,
 * so that a test of a tool loop can assert on the whole conversation without a network or a provider.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Predicate, Stream } from "effect"
import { AiError, LanguageModel, type Prompt, type Response, Tool as AiTool } from "effect/ai"
import type * as JsonSchema from "effect/JsonSchema"

/**
 * A text part of a scripted turn: what the assistant says.
 *
 * @category models
 */
export interface ScriptedText {
  readonly type: "text"
  readonly text: string
}

/**
 * A tool call of a scripted turn. Its arguments are either `params`, a value (as a provider hands over arguments it
 * has parsed), or `paramsText`, JSON text as the model emitted it: text that parses is sent parsed, as providers do;
 * text that does not (a broken call) is sent as the string itself, as a provider that leaves validation to the caller
 * passes it on. Without either, the arguments are `{}`.
 *
 * @category models
 */
export interface ScriptedToolCall {
  readonly type: "tool-call"
  /** Default: `call_<turn>_<position>`, both counted from 1. */
  readonly id?: string | undefined
  readonly name: string
  readonly params?: unknown
  readonly paramsText?: string | undefined
}

/**
 * A part of a scripted assistant turn.
 *
 * @category models
 */
export type ScriptedPart = ScriptedText | ScriptedToolCall

/**
 * One scripted assistant turn: its parts in order, or a string for a turn that is one text part.
 *
 * @category models
 */
export type ScriptedTurn = string | ReadonlyArray<ScriptedPart>

/**
 * A tool as the model was offered it: what a provider would send.
 *
 * @category models
 */
export interface OfferedTool {
  readonly name: string
  readonly description: string | undefined
  /** The JSON Schema of the parameters, as `effect/ai` renders it for providers. */
  readonly parameters: JsonSchema.JsonSchema
}

/**
 * One request the scripted model was sent.
 *
 * @category models
 */
export interface ScriptedRequest {
  /** Which request this was: 1 for the first. */
  readonly turn: number
  readonly method: "generateText" | "streamText"
  /** The whole conversation the model was sent. */
  readonly prompt: Prompt.Prompt
  /** The tools it was offered, in order. */
  readonly tools: ReadonlyArray<OfferedTool>
  readonly toolChoice: LanguageModel.ToolChoice<string>
}

/**
 * The recording of the scripted model a {@link scriptedModel} layer provides: what it was sent, and how much of its
 * script is left. Each build of the layer has its own script position and recording.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import { ToolTesting } from "effect-llm-tools/testing"
 *
 * const program = Effect.gen(function*() {
 *   const response = yield* LanguageModel.generateText({ prompt: "Hello" })
 *   const requests = yield* (yield* ToolTesting.ScriptedModel).requests
 *   return [response.text, requests.length] // ["Hi there", 1]
 * }).pipe(Effect.provide(ToolTesting.scriptedModel(["Hi there"])))
 * ```
 *
 * @category services
 */
export class ScriptedModel extends Context.Service<ScriptedModel, {
  /** Every request the model was sent, in order, including one it had no turn left for. */
  readonly requests: Effect.Effect<ReadonlyArray<ScriptedRequest>>
  /** How many scripted turns have not been replayed yet. */
  readonly remaining: Effect.Effect<number>
}>()("effect-llm-tools/testing/ScriptedModel") {}

/** The module name of the errors the scripted model fails with. */
const moduleName = "ScriptedModel"

/**
 * True for the error of a scripted model asked for more turns than its script has: an `AiError` of module
 * `ScriptedModel` whose reason is an `InvalidRequestError`.
 *
 * @category guards
 */
export const isScriptExhausted = (u: unknown): u is AiError.AiError =>
  AiError.isAiError(u) && u.module === moduleName && u.reason._tag === "InvalidRequestError"

/** A turn, checked and ready to be sent as response parts. */
type ReadyTurn = ReadonlyArray<Response.PartEncoded>

const fail = (message: string): never => {
  throw new TypeError(`scriptedModel: ${message}`)
}

const readParams = (part: ScriptedToolCall, where: string): unknown => {
  const hasParams = Object.hasOwn(part, "params") && part.params !== undefined
  const text = part.paramsText
  if (text === undefined) return hasParams ? part.params : {}
  if (hasParams) fail(`${where} has both params and paramsText; give one`)
  if (typeof text !== "string") fail(`${where}: paramsText must be a string`)
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const readTurn = (turn: unknown, turnIndex: number): ReadyTurn => {
  const where = `turn ${turnIndex + 1}`
  if (typeof turn === "string") return [{ type: "text", text: turn }, finishPart("stop")]
  if (!Array.isArray(turn)) fail(`${where} must be a string or an array of parts`)
  const parts: Array<Response.PartEncoded> = []
  let calls = 0
  ;(turn as ReadonlyArray<unknown>).forEach((part, partIndex) => {
    const at = `${where}, part ${partIndex + 1}`
    if (!Predicate.isObject(part)) return fail(`${at} is not a part`)
    const scripted = part as unknown as ScriptedPart
    switch (scripted.type) {
      case "text":
        if (typeof scripted.text !== "string") fail(`${at}: text must be a string`)
        parts.push({ type: "text", text: scripted.text })
        return
      case "tool-call": {
        if (typeof scripted.name !== "string") fail(`${at}: a tool call needs a name`)
        const id = scripted.id ?? `call_${turnIndex + 1}_${partIndex + 1}`
        if (typeof id !== "string") fail(`${at}: id must be a string`)
        parts.push({ type: "tool-call", id, name: scripted.name, params: readParams(scripted, at) })
        calls++
        return
      }
      default:
        return fail(`${at} has type ${String((part as { readonly type?: unknown }).type)}, not text or tool-call`)
    }
  })
  parts.push(finishPart(calls > 0 ? "tool-calls" : "stop"))
  return parts
}

const finishPart = (reason: Response.FinishReason): Response.FinishPartEncoded => ({
  type: "finish",
  reason,
  usage: { inputTokens: {}, outputTokens: {} }
})

/** The same turn as stream parts: text as a start, one delta and an end; the rest as they are. */
const toStreamParts = (turn: ReadyTurn, turnNumber: number): Array<Response.StreamPartEncoded> =>
  turn.flatMap((part, index): Array<Response.StreamPartEncoded> => {
    if (part.type !== "text") return [part as Response.StreamPartEncoded]
    const id = `text_${turnNumber}_${index + 1}`
    return [{ type: "text-start", id }, { type: "text-delta", id, delta: part.text }, { type: "text-end", id }]
  })

const offered = (tool: AiTool.Any): OfferedTool => ({
  name: tool.name,
  description: AiTool.getDescription(tool),
  parameters: AiTool.getJsonSchema(tool)
})

/**
 * A `LanguageModel` layer that replays `turns`, one per request, in order, for `generateText` and `streamText`
 * alike. Every request is recorded (the prompt, the tools offered, the tool choice); read the recording through the
 * {@link ScriptedModel} service the layer also provides. A request past the end of the script fails with an
 * `AiError` of module `ScriptedModel` (see {@link isScriptExhausted}) that says how many turns the script has.
 *
 * A turn's tool calls are sent as a provider sends them: the response finishes with `tool-calls`; a turn without
 * any finishes with `stop`. A call to a tool the request did not offer is sent too; whether it is refused is the
 * caller's choice (`toolCallValidation`), as with a real provider.
 *
 * Throws a `TypeError` for a script that is not one: a turn that is neither a string nor an array of parts, a part
 * of another type, a call without a name, a call with both `params` and `paramsText`.
 *
 * @example
 * ```ts
 * import { ToolTesting } from "effect-llm-tools/testing"
 *
 * const model = ToolTesting.scriptedModel([
 *   [
 *     { type: "text", text: "Let me look." },
 *     { type: "tool-call", name: "get_weather", params: { city: "Paris" } },
 *     { type: "tool-call", name: "add", paramsText: "{\"left\": 1," }
 *   ],
 *   "It is sunny in Paris."
 * ])
 * ```
 *
 * @category layers
 */
export const scriptedModel = (
  turns: ReadonlyArray<ScriptedTurn>
): Layer.Layer<LanguageModel.LanguageModel | ScriptedModel> => {
  if (!Array.isArray(turns)) fail("turns must be an array")
  const script = turns.map(readTurn)
  return Layer.effectContext(Effect.gen(function*() {
    const requests: Array<ScriptedRequest> = []
    const next = (
      method: ScriptedRequest["method"],
      options: LanguageModel.ProviderOptions
    ): Effect.Effect<{ readonly turn: number; readonly parts: ReadyTurn }, AiError.AiError> =>
      Effect.suspend(() => {
        const turn = requests.length + 1
        requests.push({
          turn,
          method,
          prompt: options.prompt,
          tools: options.tools.map(offered),
          toolChoice: options.toolChoice
        })
        const parts = script[turn - 1]
        if (parts !== undefined) return Effect.succeed({ turn, parts })
        return Effect.fail(AiError.make({
          module: moduleName,
          method,
          reason: new AiError.InvalidRequestError({
            description: `request ${turn} has no scripted turn: the script has ${script.length}`
          })
        }))
      })
    const model = yield* LanguageModel.make({
      generateText: (options) => Effect.map(next("generateText", options), ({ parts }) => parts.slice()),
      streamText: (options) =>
        Stream.unwrap(
          Effect.map(next("streamText", options), ({ parts, turn }) => Stream.fromIterable(toStreamParts(parts, turn)))
        )
    })
    const recording = ScriptedModel.of({
      requests: Effect.sync(() => requests.slice()),
      remaining: Effect.sync(() => Math.max(0, script.length - requests.length))
    })
    return Context.make(LanguageModel.LanguageModel, model).pipe(Context.add(ScriptedModel, recording))
  }))
}
