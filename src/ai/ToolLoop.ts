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
import { Context, Data, Effect, Option, Predicate, Tracer } from "effect"
import { AiError, LanguageModel, Prompt, type Response } from "effect/ai"
import type * as Tool from "../Tool.ts"
import type * as ToolCall from "../ToolCall.ts"
import * as ToolExecutionError from "../ToolExecutionError.ts"
import * as ToolHooks from "../ToolHooks.ts"
import type * as ToolIndex from "../ToolIndex.ts"
import * as ToolOutput from "../ToolOutput.ts"
import { ToolResult } from "../ToolResult.ts"
import * as ToolServer from "../ToolServer.ts"
import * as ToolSet from "../ToolSet.ts"
import {
  appendTurn,
  type DecidedCall,
  decidedCalls,
  detached,
  lastUserText,
  type Offered,
  offer,
  placeAnswers,
  toolResultPartOf
} from "./internal/loopParts.ts"
import { arrayOf, emptyArray, plain, textPart, toolMessage, userMessage } from "./internal/promptParts.ts"
import { noApprover, refusedResult } from "../internal/refusal.ts"

/**
 * What the loop executes calls against: a tool set, or a tool server (its hooks, limits and retries apply, and each
 * turn offers and runs a snapshot of its tools).
 *
 * @category models
 */
export type Tools = ToolSet.Any | Server<any>

/**
 * A tool server, as the loop takes one: every `ToolServer<PerCall>` is one (its `add`, whose requirements depend on
 * `PerCall`, is left out, so that a server of any per-call values fits). Its brand makes a look-alike object fail
 * to compile, as `run` refuses one.
 *
 * @category models
 */
export type Server<PerCall> = Omit<ToolServer.ToolServer<PerCall>, "add">

/**
 * What running the loop requires of the tools: the set's requirements, or the server's per-call inbound values.
 *
 * @category models
 */
export type Requirements<T> = T extends ToolSet.ToolSet<infer Tools> ? Tool.Requirements<Tools>
  : T extends Server<infer PerCall> ? PerCall
  : never

/**
 * How the tools can end the loop early: a tool server's hook may stop it ({@link Stopped}, a `ToolRunStopped`), and
 * its index may fail to select a turn's tools (`ToolIndexError`). A tool set never does.
 *
 * @category models
 */
export type ToolErrors<T> = T extends ToolSet.Any ? never : Stopped | ToolIndex.ToolIndexError

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
   * the last user message (default 5; see `ToolServer.snapshot`). A tool server only: a tool set offers all its
   * tools every turn, and `run` refuses a `topK` with one rather than ignore it.
   */
  readonly topK?: ([T] extends [ToolSet.Any] ? undefined : number) | undefined
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
    return `the model was still calling tools after ${this.maxTurns} turn${this.maxTurns === 1 ? "" : "s"}`
  }
}

/**
 * The model failed: its `AiError` (a rate limit, a network error, a response the provider package could not read),
 * at any request of the loop. The transcript is what the failing request was sent, every call of the earlier turns
 * answered: give it to another run to go on (once the provider is back, say) without running those calls again.
 *
 * @category errors
 */
export class ModelFailed extends Data.TaggedError("ModelFailed")<{
  /** The model's failure. */
  readonly cause: AiError.AiError
  /** Which request failed: 1 for the first. */
  readonly turn: number
  /** The conversation up to the failing request: what it was sent, every call of earlier turns answered. */
  readonly transcript: Prompt.Prompt
  /** The result of every call run before the failure, in call order. */
  readonly toolResults: ReadonlyArray<ToolResult>
}> {
  override get message(): string {
    return `the model failed on request ${this.turn}: ${this.cause.message}`
  }
}

/**
 * A tool server's hook stopped the loop: the server's `ToolRunStopped` (its `reason`, and the finished `results` of
 * the batch it stopped), with the conversation up to the stop. Its tag is `ToolRunStopped`, so
 * `Effect.catchTag("ToolRunStopped", …)` catches it, with these fields.
 *
 * The transcript answers every call of the last turn: a call the stop kept from running is answered `skipped`
 * ("the run was stopped: …; the call was not run"), so that the transcript can be given to another run to go on, as
 * {@link MaxTurnsExceeded}'s can.
 *
 * @category errors
 */
export class Stopped extends ToolHooks.ToolRunStopped {
  /** The conversation up to the stop, every call answered. */
  declare readonly transcript: Prompt.Prompt
  /** The result of every call of the run, in call order: the stopped turn's, its unrun calls `skipped`, included. */
  declare readonly toolResults: ReadonlyArray<ToolResult>
  constructor(fields: {
    readonly reason: string
    readonly results: ReadonlyArray<ToolResult>
    readonly transcript: Prompt.Prompt
    readonly toolResults: ReadonlyArray<ToolResult>
  }) {
    super(fields)
  }
}

/**
 * The options, checked. Like every object that lives through a request to the model, not an object literal: see
 * `internal/promptParts.ts` on how V8 treats those.
 */
class Checked {
  readonly model: LanguageModel.LanguageModel | undefined
  readonly tools: Tools
  readonly prompt: Prompt.Prompt
  readonly maxTurns: number
  readonly concurrency: number | "unbounded"
  readonly topK: number | undefined
  constructor(
    model: LanguageModel.LanguageModel | undefined,
    tools: Tools,
    prompt: Prompt.Prompt,
    maxTurns: number,
    concurrency: number | "unbounded",
    topK: number | undefined
  ) {
    this.model = model
    this.tools = tools
    this.prompt = prompt
    this.maxTurns = maxTurns
    this.concurrency = concurrency
    this.topK = topK
  }
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
  if (topK !== undefined && ToolSet.isToolSet(tools)) {
    fail("`topK` selects a tool server's tools: a ToolSet offers all its tools every turn")
  }
  if (typeof prompt !== "string" && !Prompt.isPrompt(prompt) && !Predicate.isIterable(prompt)) {
    fail("`prompt` must be a string, messages, or a Prompt")
  }
  let checkedPrompt: Prompt.Prompt
  try {
    checkedPrompt = typeof prompt === "string"
      ? Prompt.fromMessages(arrayOf(userMessage(arrayOf(textPart(prompt)))))
      : Prompt.make(prompt)
  } catch (error) {
    return fail(`\`prompt\` holds messages that are not messages: ${error instanceof Error ? error.message : ""}`)
  }
  return new Checked(model, tools, checkedPrompt, maxTurns ?? 10, concurrency ?? "unbounded", topK)
}

/** What one turn offers the model, and how its calls are executed. */
interface Turn {
  readonly toolkit: Offered
  readonly execute: (calls: ReadonlyArray<ToolCall.ToolCall>) => Effect.Effect<Array<ToolResult>, unknown, unknown>
}

/** What the model reads of a call that needs a human's approval, over a tool set. */
const approvalNeeded = noApprover("run the loop over a ToolServer with ToolHooks.approval")

/** A copy of a tool that refuses every call (status `denied`) without running, as `Tool.provide` copies a tool. */
const refusing = (tool: Tool.Any): Tool.Any => {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(tool)), tool)
  copy.call = () => Effect.fail(approvalNeeded)
  return copy
}

const guarded = new WeakMap<ToolSet.Any, ToolSet.Any>()

/**
 * The set a tool set's calls run against: the same set, but a tool annotated `needsApproval` refuses its calls. The
 * loop turns effect/ai's call handling off, and its approval flow with it, and a tool set has no hooks to ask a
 * human: running such a tool unasked would be the one thing its annotation forbids. The refusal is the tool's
 * failure, so dispatch builds its result as any other (arguments checked first, metrics, spans, call order). A set
 * is immutable: each is guarded once, and a set with no such tool is itself.
 */
const guard = (set: ToolSet.Any): ToolSet.Any => {
  const cached = guarded.get(set)
  if (cached !== undefined) return cached
  let made = set
  if (set.tools.some((tool) => tool.annotations.needsApproval === true)) {
    made = ToolSet.make(...set.tools.map((tool) => tool.annotations.needsApproval === true ? refusing(tool) : tool))
  }
  guarded.set(set, made)
  return made
}

/**
 * The turn of a tool set, every turn: the same tools, offered by one toolkit built once, and run against the set's
 * guarded copy (see `guard`). It is its own options of `ToolSet.executeAll` (its `concurrency`).
 */
class SetTurn implements Turn {
  readonly toolkit: Offered
  readonly set: ToolSet.Any
  readonly concurrency: number | "unbounded"
  constructor(set: ToolSet.Any, concurrency: number | "unbounded") {
    this.toolkit = offer(set)
    this.set = guard(set)
    this.concurrency = concurrency
  }
  execute(calls: ReadonlyArray<ToolCall.ToolCall>): Effect.Effect<Array<ToolResult>, never, unknown> {
    return ToolSet.executeAll(this.set, calls, this)
  }
}

/**
 * A turn of a tool server: a snapshot of its tools, offered and run. It is its own options of the server's
 * `executeAll` (the snapshot and the `concurrency`).
 */
class SnapshotTurn implements Turn {
  readonly toolkit: Offered
  readonly server: ToolServer.ToolServer<unknown>
  readonly snapshot: ToolServer.Snapshot
  readonly concurrency: number | "unbounded"
  constructor(
    server: ToolServer.ToolServer<unknown>,
    snapshot: ToolServer.Snapshot,
    concurrency: number | "unbounded"
  ) {
    this.toolkit = offer(snapshot.toolSet)
    this.server = server
    this.snapshot = snapshot
    this.concurrency = concurrency
  }
  execute(calls: ReadonlyArray<ToolCall.ToolCall>): Effect.Effect<Array<ToolResult>, unknown, unknown> {
    return this.server.executeAll(calls.map(detached), this)
  }
}

/** The next turn of a tool server: a snapshot selected by the text of the last user message. */
const serverTurn = (
  server: ToolServer.ToolServer<unknown>,
  checked: Checked,
  messages: ReadonlyArray<Prompt.Message>
): Effect.Effect<Turn, ToolIndex.ToolIndexError> => {
  const query = lastUserText(messages)
  return Effect.map(
    server.snapshot(query === undefined ? undefined : { query, topK: checked.topK }),
    (snapshot) => new SnapshotTurn(server, snapshot, checked.concurrency)
  )
}

/**
 * What the loop asks the model: effect/ai's tool-call resolution off and the validation of calls deferred, so that
 * every call, even one the toolkit does not declare, reaches our dispatch.
 */
const Request = plain<
  [prompt: Prompt.Prompt, toolkit: Offered],
  {
    prompt: Prompt.Prompt
    toolkit: Offered
    disableToolCallResolution: true
    toolCallValidation: "deferred"
  }
>(function(prompt, toolkit) {
  this.prompt = prompt
  this.toolkit = toolkit
  this.disableToolCallResolution = true
  this.toolCallValidation = "deferred"
})

type ModelResponse = LanguageModel.GenerateTextResponse<{}, "deferred">

/** The finish reasons of a response that ended as the model meant it to: effect/ai runs the calls of those alone. */
const complete: ReadonlySet<unknown> = new Set<Response.FinishReason>(["stop", "tool-calls", "pause"])

/** The finish reasons the words of a cut-off call may name: the others are `unknown`, never a provider's text. */
const named: ReadonlySet<unknown> = new Set<Response.FinishReason>(["length", "content-filter", "error", "other"])

/**
 * Why a response was cut off, as effect/ai reads it: the reason of a finish part that is not a complete one. A
 * response with no finish part is complete, as effect/ai takes it.
 */
const cutOff = (content: ReadonlyArray<Response.Part<any, any>>): string | undefined => {
  for (const part of content) {
    if (part.type === "finish" && !complete.has(part.reason)) return named.has(part.reason) ? part.reason : "unknown"
  }
  return undefined
}

/**
 * The answer to a call that was not run: status `skipped`. The calls of a cut-off response are not run (their
 * arguments may be cut short too, and effect/ai runs none of them either), nor those a hook's stop kept from running.
 */
const notRun = (call: ToolCall.ToolCall, why: string): ToolResult =>
  new ToolResult({
    callId: call.id,
    name: call.name,
    arguments: call.arguments,
    status: "skipped",
    output: ToolOutput.text(`${why}; the call was not run`),
    error: Option.none(),
    metadata: Context.empty(),
    durationMs: 0
  })

/** Why the calls of a cut-off response were not run. */
const cutOffBecause = (reason: string): string => `the response was cut off (${reason})`

/**
 * The positions of the calls whose id an earlier call of the same turn has; `undefined` when every id is its own
 * (a provider's ids are).
 */
const repeatedIds = (calls: ReadonlyArray<ToolCall.ToolCall>): Set<number> | undefined => {
  let repeated: Set<number> | undefined
  const seen = new Set<string>()
  for (let i = 0; i < calls.length; i++) {
    const id = calls[i]!.id
    if (seen.has(id)) (repeated ??= new Set()).add(i)
    else seen.add(id)
  }
  return repeated
}

/** The answer to a call whose id an earlier call of its turn has: an `invalid_args` error, the tool not run. */
const repeatedCall = (call: ToolCall.ToolCall): ToolResult =>
  refusedResult(
    call,
    "error",
    ToolExecutionError.invalidArgs("another call of this turn has the same id; only the first of them was run")
  )

/** The answer to a call that effect/ai's approval flow in the prompt denied: `denied`, with the human's reason. */
const deniedByHuman = (decision: DecidedCall): ToolResult =>
  refusedResult(
    decision.call,
    "denied",
    ToolExecutionError.refused(decision.reason ?? "a human did not approve this call")
  )

/** A {@link Result}. */
const Finished = plain<
  [
    text: string,
    transcript: Prompt.Prompt,
    turns: number,
    toolResults: ReadonlyArray<ToolResult>,
    response: ModelResponse
  ],
  Result
>(function(text, transcript, turns, toolResults, response) {
  this.text = text
  this.transcript = transcript
  this.turns = turns
  this.toolResults = toolResults
  this.response = response
})

/**
 * One run of the loop, over its own transcript: ask the model, execute its calls, answer them, and ask again.
 *
 * The steps are chained with `Effect.flatMap` (a generator's steps cost more), by continuations made once per run
 * rather than once per turn; an answer the model already has (a cache's, a script's) is taken at once
 * (`flatMapEager`), without a step of the fiber.
 */
class Conversation {
  readonly checked: Checked
  readonly model: LanguageModel.LanguageModel
  readonly messages: Array<Prompt.Message>
  readonly toolResults = emptyArray<ToolResult>()
  /** The tool set's turn, the same every turn; `undefined` with a tool server, whose turns are snapshots. */
  readonly fixed: SetTurn | undefined
  /** How many requests the model was sent, and the turn of the last one. */
  turns = 0
  turn: Turn | undefined = undefined

  constructor(checked: Checked, model: LanguageModel.LanguageModel) {
    this.checked = checked
    this.model = model
    this.messages = checked.prompt.content.slice()
    this.fixed = ToolSet.isToolSet(checked.tools) ? new SetTurn(checked.tools, checked.concurrency) : undefined
  }

  ask(): Effect.Effect<Result, unknown, unknown> {
    if (this.fixed !== undefined) return this.askWith(this.fixed)
    const server = this.checked.tools as ToolServer.ToolServer<unknown>
    return Effect.flatMapEager(serverTurn(server, this.checked, this.messages), this.askWith)
  }

  readonly askWith = (turn: Turn): Effect.Effect<Result, unknown, unknown> => {
    this.turns++
    this.turn = turn
    const prompt = Prompt.fromMessages(this.messages.slice())
    return Effect.flatMapEager(this.model.generateText(new Request(prompt, turn.toolkit)), this.answer)
  }

  /**
   * The run: the first request once the prompt's decided calls are answered (see {@link begin}), and a failure of the
   * model, at any request, as {@link ModelFailed}, with the conversation it was sent: nothing the loop ran is lost
   * with it. (Caught once for the run, not at each request: an answer at hand stays one, see `askWith`.)
   */
  run(): Effect.Effect<Result, unknown, unknown> {
    return Effect.catchIf(this.begin(), AiError.isAiError, (cause) =>
      Effect.fail(
        new ModelFailed({
          cause,
          turn: this.turns,
          transcript: Prompt.fromMessages(this.messages),
          toolResults: this.toolResults
        })
      ))
  }

  readonly answer = (response: ModelResponse): Effect.Effect<Result, unknown, unknown> => {
    const calls = appendTurn(this.messages, response.content)
    if (calls.length === 0) {
      const transcript = Prompt.fromMessages(this.messages)
      return Effect.succeed(new Finished(response.text, transcript, this.turns, this.toolResults, response))
    }
    const reason = cutOff(response.content)
    // Through a step of the fiber, as the calls that run go: a model whose answers are at hand (`flatMapEager`) and
    // always cut off would otherwise recurse, answer to request to answer, on the stack, one frame a turn.
    if (reason !== undefined) {
      return Effect.flatMap(Effect.succeed(calls.map((call) => notRun(call, cutOffBecause(reason)))), this.answered)
    }
    const repeated = repeatedIds(calls)
    if (repeated === undefined) return Effect.flatMap(this.execute(calls, calls, undefined), this.answered)
    // Only the first call of an id runs: a tool with effects would have them twice, and neither the model nor the
    // provider could tell the two answers apart.
    const runnable = calls.filter((_, i) => !repeated.has(i))
    return Effect.flatMap(this.execute(runnable, calls, repeated), (results) => {
      const all = new Array<ToolResult>(calls.length)
      let next = 0
      for (let i = 0; i < calls.length; i++) all[i] = repeated.has(i) ? repeatedCall(calls[i]!) : results[next++]!
      return this.answered(all)
    })
  }

  /**
   * The calls of a turn that run (`runnable`: every call but the repeats of an id) through the turn's tools; a
   * hook's stop ends the loop with the conversation so far, which answers all the turn's `calls`.
   */
  execute(
    runnable: ReadonlyArray<ToolCall.ToolCall>,
    calls: ReadonlyArray<ToolCall.ToolCall>,
    repeated: ReadonlySet<number> | undefined
  ): Effect.Effect<Array<ToolResult>, unknown, unknown> {
    const executed = this.turn!.execute(runnable)
    if (this.fixed !== undefined) return executed
    return Effect.catchIf(
      executed,
      (error): error is ToolHooks.ToolRunStopped => error instanceof ToolHooks.ToolRunStopped,
      (stopped) => {
        const answers = this.afterStop(stopped, calls, repeated)
        this.record(answers)
        return Effect.fail(this.stopped(stopped))
      }
    )
  }

  /**
   * The answers of a batch a hook stopped, in call order: its finished results, a `skipped` answer for each call the
   * stop kept from running, and the `invalid_args` answer of each repeat of an id (`repeated`, positions in `calls`),
   * which never reached the batch.
   */
  afterStop(
    stopped: ToolHooks.ToolRunStopped,
    calls: ReadonlyArray<ToolCall.ToolCall>,
    repeated: ReadonlySet<number> | undefined
  ): Array<ToolResult> {
    // The batch's ids are each its own: the repeats were left out of it.
    const finished = new Map(stopped.results.map((result) => [result.callId, result]))
    return calls.map((call, i) =>
      repeated?.has(i) === true
        ? repeatedCall(call)
        : finished.get(call.id) ?? notRun(call, `the run was stopped: ${stopped.reason}`)
    )
  }

  /** The loop's {@link Stopped}, with the conversation so far, whose every call is answered. */
  stopped(stopped: ToolHooks.ToolRunStopped): Stopped {
    return new Stopped({
      reason: stopped.reason,
      results: stopped.results,
      transcript: Prompt.fromMessages(this.messages),
      toolResults: this.toolResults
    })
  }

  /** Appends a turn's answers, in call order: to the results, and to the transcript as one tool message. */
  record(results: ReadonlyArray<ToolResult>): void {
    for (const result of results) this.toolResults.push(result)
    this.messages.push(toolMessage(results.map(toolResultPartOf)))
  }

  /**
   * The first request, once the calls of the prompt that effect/ai's approval flow decided are answered (see
   * `decidedCalls`): an approved call runs through the tools (a human was asked; over a tool server, its hooks run
   * on it as on any call, and decide again: an approval hook may ask again, and a server without one denies a
   * `needsApproval` tool), a denied one is answered `denied` with the human's reason. The answers go where the calls
   * were made, and into the results first.
   */
  begin(): Effect.Effect<Result, unknown, unknown> {
    const decided = decidedCalls(this.messages)
    if (decided.length === 0) return this.ask()
    const approved = decided.filter((decision) => decision.approved).map((decision) => decision.call)
    const place = (ran: ReadonlyArray<ToolResult>): void => {
      const finished = new Map(ran.map((result) => [result.callId, result]))
      const answers = decided.map((decision) =>
        decision.approved ? finished.get(decision.call.id)! : deniedByHuman(decision)
      )
      for (const answer of answers) this.toolResults.push(answer)
      placeAnswers(this.messages, answers.map(toolResultPartOf))
    }
    const { concurrency, tools } = this.checked
    let ran: Effect.Effect<Array<ToolResult>, unknown, unknown>
    if (approved.length === 0) ran = Effect.succeed([])
    // The tools themselves, not their guarded copy: a human approved these calls.
    else if (ToolSet.isToolSet(tools)) ran = ToolSet.executeAll(tools, approved, { concurrency })
    else {
      ran = Effect.catchIf(
        (tools as ToolServer.ToolServer<unknown>).executeAll(approved.map(detached), { concurrency }),
        (error): error is ToolHooks.ToolRunStopped => error instanceof ToolHooks.ToolRunStopped,
        (stopped) => {
          place(this.afterStop(stopped, approved, undefined))
          return Effect.fail(this.stopped(stopped))
        }
      )
    }
    return Effect.flatMap(ran, (results) => {
      place(results)
      return this.ask()
    })
  }

  readonly answered = (results: Array<ToolResult>): Effect.Effect<Result, unknown, unknown> => {
    this.record(results)
    if (this.turns < this.checked.maxTurns) return this.ask()
    const { maxTurns } = this.checked
    return Effect.fail(
      new MaxTurnsExceeded({ maxTurns, transcript: Prompt.fromMessages(this.messages), toolResults: this.toolResults })
    )
  }
}

/**
 * The loop, with a conversation of its own each time the Effect runs, in a `ToolLoop.run` span (the parent of the
 * model's and the calls' spans) when a tracing backend is installed. Effect's default tracer observes nothing, so
 * there the span is skipped, as dispatch skips its own.
 */
const start = (checked: Checked): Effect.Effect<Result, unknown, unknown> =>
  Effect.withFiber((fiber) => {
    const program = checked.model !== undefined
      ? new Conversation(checked, checked.model).run()
      : Effect.flatMap(LanguageModel.LanguageModel, (model) => new Conversation(checked, model).run())
    return fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer ? program : Effect.withSpan(program, "ToolLoop.run")
  })

/**
 * Puts results into a transcript, each in place of the pending answer to its call: the `skipped` answer of a call
 * that waited for a human's approval (`ToolHooks.approval` deferred it) by the result the tool server's `resume` gave
 * once they decided, say. The answers stay where the calls were made, as providers require, and read as the loop
 * writes every answer. Give the settled transcript, with a new user message if you like, to another run to go on.
 *
 * The answer a result replaces is the one tool-result part, anywhere in the transcript, that has the result's call
 * id and tool name and is a `skipped` answer as the loop writes one (flagged a failure, reading
 * `Tool call skipped…`): the answer of a deferred call, of a call a hook's stop kept from running, or of a cut-off
 * response's call. Every other answer stays: one the tool gave, the `invalid_args` answer of a call that repeated an
 * id of its turn, an answer to a call of the same id in another turn, to another tool.
 *
 * Throws a `TypeError` for a result whose call the transcript has no such answer to; for a result two such answers
 * could be for (a provider reused the id, in two turns, for calls to the same tool that were both left unrun), as
 * putting it in the wrong place would tell the model something false; and for two results for the same call.
 *
 * @example
 * ```ts
 * import { Effect, Option } from "effect"
 * import { Prompt } from "effect/ai"
 * import { ToolHooks, type ToolServer } from "effect-llm-tools"
 * import { ToolLoop } from "effect-llm-tools/ai"
 *
 * // A run over a server whose approval hook deferred a call; later, a human approved it.
 * const approveAndGoOn = (server: ToolServer.ToolServer, run: ToolLoop.Result) =>
 *   Effect.gen(function*() {
 *     const pending = run.toolResults.flatMap((result) => Option.toArray(ToolHooks.pendingApproval(result)))
 *     const decided = yield* Effect.forEach(pending, (approval) => server.resume(approval, ToolHooks.approve))
 *     const settled = ToolLoop.settle(run.transcript, decided)
 *     return yield* ToolLoop.run({
 *       tools: server,
 *       prompt: Prompt.concat(settled, Prompt.make("The transfers were approved: go on."))
 *     })
 *   })
 * ```
 *
 * @category execution
 */
export const settle = (transcript: Prompt.Prompt, results: Iterable<ToolResult>): Prompt.Prompt => {
  const fail = (message: string): never => {
    throw new TypeError(`ToolLoop.settle: ${message}`)
  }
  if (!Prompt.isPrompt(transcript)) fail("`transcript` must be a Prompt")
  const byCall = new Map<string, ToolResult>()
  for (const result of results) {
    if (!(result instanceof ToolResult)) fail("every result must be a ToolResult")
    if (byCall.has(result.callId)) fail(`two results are for the call \`${result.callId}\``)
    byCall.set(result.callId, result)
  }
  // Where each result goes: the message and part of the one answer it may replace.
  const places = new Map<string, { message: number; part: number }>()
  const messages = transcript.content
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!
    if (message.role !== "tool") continue
    for (let j = 0; j < message.content.length; j++) {
      const part = message.content[j]!
      if (part.type !== "tool-result") continue
      const result = byCall.get(part.id)
      if (result === undefined || part.name !== result.name || !isSkippedAnswer(part)) continue
      if (places.has(part.id)) {
        fail(`two answers could be the one to the call \`${part.id}\` of \`${part.name}\`: its id was reused`)
      }
      places.set(part.id, { message: i, part: j })
    }
  }
  for (const result of byCall.values()) {
    if (!places.has(result.callId)) {
      fail(`the transcript has no skipped answer to a call \`${result.callId}\` of \`${result.name}\``)
    }
  }
  if (byCall.size === 0) return Prompt.fromMessages(messages)
  const settled = messages.slice()
  for (const [callId, { message, part }] of places) {
    const old = settled[message] as Prompt.ToolMessage
    const content = old.content.slice()
    content[part] = toolResultPartOf(byCall.get(callId)!)
    settled[message] = toolMessage(content)
  }
  return Prompt.fromMessages(settled)
}

/** Whether a tool-result part is a `skipped` answer, as the loop writes one (see `toolResultPartOf`). */
const isSkippedAnswer = (part: Prompt.ToolResultPart): boolean =>
  part.isFailure && part.providerExecuted !== true && typeof part.result === "string" &&
  part.result.startsWith("Tool call skipped")

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
 *   that fails the response instead ends the loop with {@link ModelFailed}.)
 * - Results go back as effect/ai tool-result parts. A lone JSON value is the part's `result`, which the provider
 *   renders as any structured result; richer outputs are shown through `modelOutput` (effect/ai's `toModelOutput`
 *   parts): text as text, images, audio and files as file parts, by the same mapping as `AiToolkit`. A result that is
 *   not a success is flagged `isFailure`, and what the model reads starts with the words our provider adapters use
 *   (`Tool call denied: …`, `Tool call failed (invalid_args): …`): a failed call reads the same through `AiToolkit`.
 * - With a tool server, each turn offers and runs a snapshot of its tools, selected by the text of the last user
 *   message when its tools came from `ToolSetBuilder.build` (`topK` of them); its hooks run on every call. A hook's
 *   `stop` ends the loop with `ToolRunStopped` ({@link Stopped}, with the transcript so far). A call its approval
 *   hook deferred is answered as pending; {@link settle} puts the result of its `resume` in the transcript later.
 * - Calls of one turn that share an id run once: the first runs, the others are answered `invalid_args`.
 * - A tool annotated `needsApproval` never runs unasked. The loop turns effect/ai's call handling off, its approval
 *   flow with it: with a tool server, its hooks decide (`ToolHooks.approval` asks a human); with a tool set, which has
 *   none, each call to such a tool is refused, a `denied` result (`permission_denied`) the model reads, once its
 *   arguments are checked.
 * - A prompt that carries effect/ai's own approval flow (a `tool-approval-request` and its `tool-approval-response`,
 *   from an earlier `generateText` with `AiToolkit.fromToolSet`) has its decided calls answered before the first
 *   request, each in the tool message after its call: an approved call runs (over a tool server, through its hooks,
 *   which decide again, as for any call), a denied one is answered `denied` with the human's reason.
 * - A response cut off before its end (a finish reason other than `stop`, `tool-calls` or `pause`: `length`,
 *   `content-filter`, …) may carry calls cut short: as effect/ai does, none of them runs. Each is answered with a
 *   `skipped` result ("the response was cut off (length); the call was not run"), and the model is asked again.
 * - After `maxTurns` requests that all called tools, it fails with {@link MaxTurnsExceeded}, which carries the
 *   transcript. A failure of the model (its `AiError`) ends it with {@link ModelFailed}, which carries the
 *   transcript up to the failing request and every result so far: tools that ran need not run again.
 *
 * Throws a `TypeError`, at the call, for options that cannot work: `maxTurns`, `concurrency` or `topK` that is not a
 * whole number of one or more (`concurrency` may also be `"unbounded"`), a `topK` with a `ToolSet`, `tools` that are
 * neither a `ToolSet` nor a `ToolServer`, a `model` that is not a `LanguageModel`, a `prompt` that is not one.
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
  ModelFailed | MaxTurnsExceeded | ToolErrors<T>,
  Requirements<T> | (M extends LanguageModel.LanguageModel ? never : LanguageModel.LanguageModel)
> => start(check(options)) as any
