/**
 * The model ⇄ tools loop over an effect/ai `LanguageModel`: ask the model, execute the tools it calls through a
 * `ToolSet` or a `ToolServer` (our dispatch, hooks, limits and per-turn tool selection), append the results, and ask
 * again, until the model answers without calling a tool.
 *
 * Every call is resolved by our dispatch, never by effect/ai: a call to an unknown tool, or with arguments that are
 * not JSON, is one error result the model reads, and the conversation goes on.
 *
 * @since 0.1.0
 */
import { Data, Effect, Predicate, Tracer } from "effect"
import { type AiError, LanguageModel, Prompt } from "effect/ai"
import type * as Tool from "../Tool.ts"
import type * as ToolCall from "../ToolCall.ts"
import type * as ToolHooks from "../ToolHooks.ts"
import type * as ToolIndex from "../ToolIndex.ts"
import type { ToolResult } from "../ToolResult.ts"
import * as ToolServer from "../ToolServer.ts"
import * as ToolSet from "../ToolSet.ts"
import {
  assistantMessages,
  lastUserText,
  type Offered,
  offer,
  textPart,
  toolCallOf,
  toolMessage,
  toolResultPartOf,
  userMessage
} from "./internal/loopParts.ts"

/**
 * What the loop executes calls against: a tool set, or a tool server's handle (its hooks, limits and retries apply,
 * and each turn offers and runs a snapshot of its tools).
 *
 * @category models
 */
export type Tools = ToolSet.Any | Server<any>

/**
 * A tool server's handle, as the loop uses it: any `ToolServer<PerCall>` is one.
 *
 * @category models
 */
export type Server<PerCall> = Pick<ToolServer.ToolServer<PerCall>, "executeAll" | "snapshot">

/**
 * What running the loop requires of the tools: the set's requirements, or the server's per-call inbound values.
 *
 * @category models
 */
export type Requirements<T> = T extends ToolSet.ToolSet<infer Tools> ? Tool.Requirements<Tools>
  : T extends Server<infer PerCall> ? PerCall
  : never

/**
 * How the tools can end the loop early: a tool server's hook may stop it (`ToolRunStopped`), and its index may fail
 * to select a turn's tools (`ToolIndexError`). A tool set never does.
 *
 * @category models
 */
export type ToolErrors<T> = T extends ToolSet.Any ? never : ToolHooks.ToolRunStopped | ToolIndex.ToolIndexError

/**
 * The options of {@link run}.
 *
 * @category models
 */
export interface Options<T extends Tools> {
  /** The model to ask. Default: the `LanguageModel` service in context. */
  readonly model?: LanguageModel.LanguageModel | undefined
  readonly tools: T
  /** The conversation so far: a user message as a string, messages, or a `Prompt` (a transcript to go on with). */
  readonly prompt: Prompt.RawInput
  /**
   * The most requests to the model, a whole number of one or more. Default 10. The model's calls of the last allowed
   * turn are still executed, so that the transcript of {@link MaxTurnsExceeded} answers every call and can be given
   * to another run to go on.
   */
  readonly maxTurns?: number | undefined
  /**
   * How many of one turn's calls run at once, a whole number of one or more, or `"unbounded"` (the default: the calls
   * of one turn are meant to be independent). Results go back in call order whatever order they finish in. A tool
   * server's own limits still apply.
   */
  readonly concurrency?: number | "unbounded" | undefined
  /**
   * With a tool server whose tools came from `ToolSetBuilder.build`: how many tools its index selects each turn, by
   * the last user message (default 5; see `ToolServer.snapshot`).
   */
  readonly topK?: number | undefined
}

/**
 * What a finished loop gives back.
 *
 * @category models
 */
export interface Result {
  /** The text of the model's last answer. */
  readonly text: string
  /**
   * The whole conversation: the prompt, then each assistant turn and the tool message answering its calls, in call
   * order. Give it as the `prompt` of another run to go on.
   */
  readonly transcript: Prompt.Prompt
  /** How many requests the model was sent. */
  readonly turns: number
  /** The result of every call, in the order the calls were made: host-only metadata, pending approvals, timings. */
  readonly toolResults: ReadonlyArray<ToolResult>
  /** The model's last response (its finish reason, its usage). */
  readonly response: LanguageModel.GenerateTextResponse<{}, "deferred">
}

/**
 * The model was still calling tools after `maxTurns` requests. The transcript answers every call it made, the last
 * turn's included, so that it can be given to another run to go on.
 *
 * @category errors
 */
export class MaxTurnsExceeded extends Data.TaggedError("MaxTurnsExceeded")<{
  readonly maxTurns: number
  readonly transcript: Prompt.Prompt
  readonly toolResults: ReadonlyArray<ToolResult>
}> {
  override get message(): string {
    return `the model was still calling tools after ${this.maxTurns} turns`
  }
}

/** The options, checked. */
interface Checked {
  readonly model: LanguageModel.LanguageModel | undefined
  readonly tools: Tools
  readonly prompt: Prompt.Prompt
  readonly maxTurns: number
  readonly concurrency: number | "unbounded"
  readonly topK: number | undefined
}

const isPositiveInteger = (u: unknown): u is number => typeof u === "number" && Number.isInteger(u) && u >= 1

const check = (options: Options<Tools>): Checked => {
  const fail = (message: string): never => {
    throw new TypeError(`ToolLoop.run: ${message}`)
  }
  if (!Predicate.isObject(options)) fail("the options must be an object")
  const { model, tools, prompt, maxTurns, concurrency, topK } = options
  if (model !== undefined && !Predicate.hasProperty(model, LanguageModel.TypeId)) {
    fail("`model` must be a LanguageModel service")
  }
  if (!ToolSet.isToolSet(tools) && !ToolServer.isToolServer(tools)) {
    fail("`tools` must be a ToolSet or a ToolServer")
  }
  if (maxTurns !== undefined && !isPositiveInteger(maxTurns)) {
    fail(`\`maxTurns\` must be a whole number of one or more, not ${String(maxTurns)}`)
  }
  if (concurrency !== undefined && concurrency !== "unbounded" && !isPositiveInteger(concurrency)) {
    fail(`\`concurrency\` must be a whole number of one or more, or "unbounded", not ${String(concurrency)}`)
  }
  if (topK !== undefined && !isPositiveInteger(topK)) {
    fail(`\`topK\` must be a whole number of one or more, not ${String(topK)}`)
  }
  if (typeof prompt !== "string" && !Prompt.isPrompt(prompt) && !Predicate.isIterable(prompt)) {
    fail("`prompt` must be a string, messages, or a Prompt")
  }
  let checkedPrompt: Prompt.Prompt
  try {
    checkedPrompt = typeof prompt === "string"
      ? Prompt.fromMessages([userMessage([textPart(prompt)])])
      : Prompt.make(prompt)
  } catch (error) {
    return fail(`\`prompt\` holds messages that are not messages: ${error instanceof Error ? error.message : ""}`)
  }
  return {
    model,
    tools,
    prompt: checkedPrompt,
    maxTurns: maxTurns ?? 10,
    concurrency: concurrency ?? "unbounded",
    topK
  }
}

/** What one turn offers the model, and how its calls are executed. */
interface Turn {
  readonly toolkit: Offered
  readonly execute: (calls: ReadonlyArray<ToolCall.ToolCall>) => Effect.Effect<Array<ToolResult>, unknown, unknown>
}

/** The turn of a tool set, every turn: the same tools, offered by one toolkit built once. */
const setTurn = (set: ToolSet.Any, concurrency: number | "unbounded"): Turn => {
  const options = { concurrency }
  return { toolkit: offer(set), execute: (calls) => ToolSet.executeAll(set, calls, options) }
}

/** The turns of a tool server: each a snapshot, selected by the last user message, offered and run. */
const serverTurns = (
  server: Server<unknown>,
  checked: Checked
) =>
(messages: ReadonlyArray<Prompt.Message>): Effect.Effect<Turn, ToolIndex.ToolIndexError> => {
  const query = lastUserText(messages)
  return Effect.map(
    server.snapshot(query === undefined ? undefined : { query, topK: checked.topK }),
    (snapshot): Turn => ({
      toolkit: offer(snapshot.toolSet),
      execute: (calls) => server.executeAll(calls, { snapshot, concurrency: checked.concurrency })
    })
  )
}

const loop = Effect.fnUntraced(function*(checked: Checked) {
  const model = checked.model ?? (yield* LanguageModel.LanguageModel)
  const fixed = ToolSet.isToolSet(checked.tools) ? setTurn(checked.tools, checked.concurrency) : undefined
  const snapshotTurn = fixed === undefined ? serverTurns(checked.tools as Server<unknown>, checked) : undefined
  const messages: Array<Prompt.Message> = checked.prompt.content.slice()
  const toolResults: Array<ToolResult> = []
  for (let turns = 1;; turns++) {
    const turn = fixed ?? (yield* snapshotTurn!(messages))
    const response = yield* model.generateText({
      prompt: Prompt.fromMessages(messages.slice()),
      toolkit: turn.toolkit,
      disableToolCallResolution: true,
      toolCallValidation: "deferred"
    })
    for (const message of assistantMessages(response.content)) messages.push(message)
    // Calls the provider ran itself came back with their results: ours are the others.
    const calls: Array<ToolCall.ToolCall> = []
    for (const part of response.content) {
      if (part.type === "tool-call" && part.providerExecuted !== true) calls.push(toolCallOf(part))
    }
    if (calls.length === 0) {
      return {
        text: response.text,
        transcript: Prompt.fromMessages(messages),
        turns,
        toolResults,
        response
      } satisfies Result
    }
    const results = yield* turn.execute(calls)
    for (const result of results) toolResults.push(result)
    messages.push(toolMessage(results.map(toolResultPartOf)))
    if (turns >= checked.maxTurns) {
      return yield* new MaxTurnsExceeded({
        maxTurns: checked.maxTurns,
        transcript: Prompt.fromMessages(messages),
        toolResults
      })
    }
  }
})

/**
 * The loop in a `ToolLoop.run` span, the parent of the model's and the calls' spans, when a tracing backend is
 * installed. Effect's default tracer observes nothing, so there the span is skipped, as dispatch skips its own.
 */
const traced = (checked: Checked) =>
  Effect.withFiber((fiber) =>
    fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
      ? loop(checked)
      : Effect.withSpan(loop(checked), "ToolLoop.run")
  )

/**
 * Runs the loop: asks the model with the tools offered, executes the calls it makes, in one batch per turn, through
 * the tools' dispatch, sends the results back in call order, and repeats until the model answers without calling a
 * tool. It gives back the final text and the whole transcript.
 *
 * - A call to a tool the turn did not offer (unknown, or outside a tool server's snapshot) is a `not_found` result;
 *   arguments that are not valid JSON, or not what the tool takes, are an `invalid_args` result. The model reads
 *   them, and the loop goes on. (The model is asked with effect/ai's `disableToolCallResolution` and deferred tool
 *   call validation, so that such a call never fails the whole response. A provider package parses the model's
 *   argument text itself: one that hands text it cannot parse over as a string gets our `invalid_args` answer; one
 *   that fails the response instead ends the loop with that `AiError`.)
 * - Results go back as effect/ai tool-result parts. A lone JSON value is the part's `result`, which the provider
 *   renders as any structured result; richer outputs are shown through `modelOutput` (effect/ai's `toModelOutput`
 *   parts): text as text, images, audio and files as file parts, by the same mapping as `AiToolkit`. A result that is
 *   not a success is flagged `isFailure`, and what the model reads starts with the words our provider adapters use
 *   (`Tool call denied: …`, `Tool call failed (invalid_args): …`).
 * - With a tool server, each turn offers and runs a snapshot of its tools, selected by the text of the last user
 *   message when its tools came from `ToolSetBuilder.build`; its hooks run on every call. A hook's `stop` ends the
 *   loop with `ToolRunStopped`.
 * - After `maxTurns` requests that all called tools, it fails with {@link MaxTurnsExceeded}, which carries the
 *   transcript. A failure of the model (an `AiError`) ends it too.
 *
 * Throws a `TypeError`, at the call, for options that cannot work: `maxTurns`, `concurrency` or `topK` that is not a
 * whole number of one or more (`concurrency` may also be `"unbounded"`), `tools` that are neither a `ToolSet` nor a
 * `ToolServer`, a `model` that is not a `LanguageModel`, a `prompt` that is not one.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Tool, ToolSet } from "effect-llm-tools"
 * import { ToolLoop } from "effect-llm-tools/ai"
 *
 * const GetWeather = Tool.make("get_weather", {
 *   description: "The weather in a city",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   call: ({ city }) => Effect.succeed(`Sunny in ${city}`)
 * })
 *
 * // Needs a LanguageModel: provide an effect/ai provider's layer (or ToolTesting.scriptedModel in tests).
 * const program = Effect.gen(function*() {
 *   const { text, transcript } = yield* ToolLoop.run({
 *     tools: ToolSet.make(GetWeather),
 *     prompt: "What is the weather in Paris?",
 *     maxTurns: 5
 *   })
 *   return { text, messages: transcript.content.length }
 * })
 * ```
 *
 * @category execution
 */
export const run = <T extends Tools, M extends LanguageModel.LanguageModel | undefined = undefined>(
  options: Options<T> & { readonly model?: M }
): Effect.Effect<
  Result,
  AiError.AiError | MaxTurnsExceeded | ToolErrors<T>,
  Requirements<T> | (M extends LanguageModel.LanguageModel ? never : LanguageModel.LanguageModel)
> => traced(check(options)) as any
