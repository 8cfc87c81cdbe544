/**
 * The one dispatch path. Every tool call — JSON text or a parsed value, valid or garbage, to a known tool or not —
 * goes through `dispatch` and ends in exactly one `ToolResult`. The returned Effect never fails and never dies.
 *
 *   1. look the name up            → not_found
 *   2. parse the arguments         → invalid_args (bad JSON, limits, not an object)
 *   3. decode with the Schema, or validate against the JSON Schema of a runtime tool
 *                                  → invalid_args (every failing path and what was expected)
 *   4. run `call` with a fresh ToolContext, under the tool's timeout
 *                                  → mapError / other / cancelled / timeout
 *   5. convert the return value into a ToolOutput: one frozen plain JSON copy, read once under the output limits,
 *      checked against a runtime tool's output JSON Schema
 *                                  → other (the value cannot be encoded, is not JSON, exceeds a limit, or mismatches)
 *   6. build the ToolResult; record metrics, and a span when a tracing backend is installed
 *
 * A `ToolServer` adds its `Policy` to the same path, and nothing else: its `onCall` hooks between steps 2 and 3 (run,
 * rewrite, skip, deny, stop), its limits on calls in flight and its default timeout around step 4, its retries over
 * steps 3 to 5 (hooks included, each attempt with a fresh ToolContext), and its `onResult` hooks before step 6.
 *
 * Everything a call can reuse is computed once per tool, in its `Plan`. A Schema parser answers a successful
 * synchronous parse with an `Exit`, and a tool that answers with `Effect.succeed` returns one too: the common path
 * needs no fiber steps beyond the one `execute` already runs on.
 */
import {
  Cause,
  Clock,
  Context,
  Duration,
  Effect,
  Exit,
  type Fiber,
  Option,
  References,
  Result,
  Schedule,
  SchemaAST,
  Tracer
} from "effect"
import { SchemaJITCompiler } from "effect/schema"
import * as SchemaParser from "effect/SchemaParser"
import type * as SchemaIssue from "effect/SchemaIssue"
import type * as Tool from "../Tool.ts"
import type * as ToolCall from "../ToolCall.ts"
import * as ToolDefinition from "../ToolDefinition.ts"
import type * as ToolHooks from "../ToolHooks.ts"
import { MissingToolContext, ToolContext } from "../ToolContext.ts"
import { CallContext } from "./callContext.ts"
import * as ToolExecutionError from "../ToolExecutionError.ts"
import * as ToolOutput from "../ToolOutput.ts"
import { ToolResult, type ToolResultFields } from "../ToolResult.ts"
import { describeError } from "./describe.ts"
import { hasKey } from "./hasKey.ts"
import { jsonCodec } from "./codec.ts"
import { bounded, formatIssues } from "./issues.ts"
import { type JsonSchemaValidator, validatorOf } from "./jsonSchemaValidator.ts"
import { deepFreeze, defaultLimits, defaultOutputLimits, type JsonLimits, parseArguments } from "./json.ts"
import { type Cancel, Limiter, Shed, type WaitQueue } from "./limiter.ts"
import { annotateSpan, ToolMetrics, unknownToolName } from "./telemetry.ts"

/** Per-call options of `execute`. */
export interface ExecuteOptions {
  /** The most UTF-8 bytes of argument JSON text to parse. Default 1 MiB. */
  readonly maxArgumentBytes?: number | undefined
  /** The deepest nesting of arrays and objects in the arguments. Default 64. */
  readonly maxArgumentDepth?: number | undefined
  /**
   * The most bytes of JSON text in a Json value of the output (counted as `JSON.stringify` would write it, in UTF-8,
   * over-estimating numbers and separators by a few bytes). Default 8 MiB.
   */
  readonly maxOutputBytes?: number | undefined
  /** The deepest nesting of arrays and objects in a Json value of the output. Default 128. */
  readonly maxOutputDepth?: number | undefined
}

/** The limits of one call: on its arguments, and on the JSON in its output. */
export interface CallLimits {
  readonly arguments: JsonLimits
  readonly output: JsonLimits
}

const defaultCallLimits: CallLimits = { arguments: defaultLimits, output: defaultOutputLimits }

/** Why an output could not be encoded: the reason for operators, and what was thrown, if anything. */
interface EncodeFailure {
  readonly reason: string
  readonly cause?: unknown
}

/**
 * What dispatch reuses across the calls of one tool. The plan is where a tool of Schemas and a tool of JSON Schemas
 * (a runtime tool) differ: how arguments are checked, and how an output is. Every other step is the same.
 */
interface Plan {
  readonly tool: Tool.Any
  /** The tool's `call`, held here too: a call reaches it without reading the tool. */
  readonly call: Tool.Any["call"]
  /**
   * Checks the parsed arguments and gives what `call` receives: for a tool of Schemas, the Schema codec's decoding
   * (its issue is formatted by `afterDecode`); for a runtime tool, `undefined`, as `check` does it.
   */
  readonly decode: ((input: unknown) => Effect.Effect<unknown, SchemaIssue.Issue>) | undefined
  /**
   * For a runtime tool, checks the parsed arguments with its JSON Schema validator, and freezes them: why they cannot
   * run, or `undefined` when `call` receives them as they are.
   */
  readonly check: ((input: unknown) => ToolExecutionError.ToolExecutionError | undefined) | undefined
  /** Encodes a return value with the `success` Schema's JSON codec; the output conversion copies what it makes. */
  readonly encode: ((value: unknown) => Result.Result<unknown, EncodeFailure>) | undefined
  /** Checks a converted output against a runtime tool's output JSON Schema: a JSON output must match it. */
  readonly checkOutput: ((output: ToolOutput.ToolOutput) => Result.Result<ToolOutput.ToolOutput, EncodeFailure>) | undefined
  readonly timeoutMs: number | undefined
  /** The tool's own limit on calls in flight (its `concurrency` annotation), shared by its copies, wherever they run. */
  readonly limiter: Limiter | undefined
  readonly metrics: ToolMetrics
}

/**
 * Whether a value is an Effect: `Effect.isEffect`, without the data-first-or-last wrapper of Effect's guards. The path
 * every call takes asks a few times per call.
 */
export const isEffectValue = (u: unknown): u is Effect.Effect<unknown, unknown, unknown> => hasKey(u, Effect.TypeId)

/**
 * The type id on the prototype of Effect's Exits, which `Exit.isExit` looks for: found once, on `Exit.void`. Should a
 * version of Effect name it otherwise, `isExitValue` falls back to `Exit.isExit` (a test pins that it is found).
 */
export const exitTypeId: string | undefined = Object.keys(Object.getPrototypeOf(Exit.void)).find((key) =>
  key.startsWith("~effect/Exit")
)

/** Whether an Effect is an Exit: `Exit.isExit`, checked inline. */
export const isExitValue = <A, E, R>(effect: Effect.Effect<A, E, R>): effect is Exit.Exit<A, E> =>
  exitTypeId === undefined ? Exit.isExit(effect) : exitTypeId in effect

const plans = new WeakMap<Tool.Any, Plan>()

const planOf = (tool: Tool.Any): Plan => {
  let plan = plans.get(tool)
  if (plan === undefined) {
    plan = makePlan(tool)
    plans.set(tool, plan)
  }
  return plan
}

// Compiled codecs are cached per Schema, not per tool: tools that share a Schema share its parser. Each codec is
// handed to Effect's JIT compiler for its AST only (not globally); where code generation is not allowed (a strict
// Content-Security-Policy, say) Effect falls back to its interpreter on its own, with the same results.
const decoders = new WeakMap<Tool.AnySchema, Record<"ignore" | "error", NonNullable<Plan["decode"]> | undefined>>()
const encoders = new WeakMap<Tool.AnySchema, NonNullable<Plan["encode"]>>()

const decoderOf = (schema: Tool.AnySchema, onExcessProperty: "ignore" | "error"): NonNullable<Plan["decode"]> => {
  let bySetting = decoders.get(schema)
  if (bySetting === undefined) {
    bySetting = { ignore: undefined, error: undefined }
    decoders.set(schema, bySetting)
  }
  if (bySetting[onExcessProperty] === undefined) {
    const codec = jsonCodec(schema)
    SchemaJITCompiler.enable(codec.ast)
    // `reportInput` keeps on each issue the value it is about, which `formatIssues` needs to tell a message built
    // from that value (and so never shown) from a constant one; the values themselves are never printed.
    const decode = SchemaParser.decodeUnknownEffect(codec, { errors: "all", onExcessProperty, reportInput: true })
    bySetting[onExcessProperty] = onExcessProperty === "ignore" && hasObjectUnion(codec.ast)
      ? exactMemberFirst(SchemaParser.decodeUnknownEffect(codec, { onExcessProperty: "error" }), decode)
      : decode
  }
  return bySetting[onExcessProperty]
}

/**
 * A decoder for a Schema with a union of objects, whose members Effect tries in order, taking the first that decodes:
 * with unknown keys dropped, `Union([Struct({ query }), Struct({ query, page })])` decodes `{ query, page: 3 }` by the
 * first member, and `page` is lost, though the JSON Schema offered (each member closed) says only the second matches.
 * The arguments are decoded first with unknown keys refused, which finds the member that knows every key; only when
 * none does are they decoded as usual, unknown keys dropped. (A Schema without such a union decodes once.)
 */
const exactMemberFirst = (
  exact: NonNullable<Plan["decode"]>,
  usual: NonNullable<Plan["decode"]>
): NonNullable<Plan["decode"]> =>
(input) => {
  const decoded = exact(input)
  if (isExitValue(decoded)) return Exit.isSuccess(decoded) ? decoded : usual(input)
  return Effect.catchCause(decoded, () => usual(input))
}

/** Whether a union's member is an object on its JSON side, itself or through a `Schema.suspend`. */
const isObjectMember = (member: SchemaAST.AST): boolean => {
  let ast = SchemaAST.toEncoded(member)
  for (let hops = 0; ast._tag === "Suspend" && hops < 32; hops++) ast = SchemaAST.toEncoded(ast.thunk())
  return ast._tag === "Objects"
}

/** Whether the JSON side of an AST holds a union with an object member: one whose members may drop keys. */
const hasObjectUnion = (root: SchemaAST.AST): boolean => {
  const seen = new Set<SchemaAST.AST>()
  const pending: Array<SchemaAST.AST> = [root]
  while (pending.length > 0) {
    const ast = pending.pop()!
    if (seen.has(ast)) continue
    seen.add(ast)
    if (ast.encoding !== undefined) {
      pending.push(ast.encoding[ast.encoding.length - 1]!.to)
      continue
    }
    switch (ast._tag) {
      case "Union":
        if (ast.types.some(isObjectMember)) return true
        pending.push(...ast.types)
        break
      case "Objects":
        for (const property of ast.propertySignatures) pending.push(property.type)
        for (const index of ast.indexSignatures) pending.push(index.type)
        break
      case "Arrays":
        pending.push(...ast.elements, ...ast.rest)
        break
      case "Declaration":
        pending.push(...ast.typeParameters)
        break
      case "Suspend":
        pending.push(ast.thunk())
        break
    }
  }
  return false
}

const encoderOf = (schema: Tool.AnySchema): NonNullable<Plan["encode"]> => {
  let encode = encoders.get(schema)
  if (encode === undefined) {
    encode = makeEncoder(schema)
    encoders.set(schema, encode)
  }
  return encode
}

const makeEncoder = (schema: Tool.AnySchema): NonNullable<Plan["encode"]> => {
  // The same codec as the arguments': a non-finite number fails to encode (kind `other`) instead of reaching the
  // model as the string "NaN", which the tool's `outputSchema` (`{"type":"number"}`) does not allow.
  const codec = jsonCodec(schema)
  SchemaJITCompiler.enable(SchemaAST.flip(codec.ast))
  const options = { errors: "all" } as const
  const encodeEffect = SchemaParser.encodeUnknownEffect(codec, options)
  const encodeExit = SchemaParser.encodeUnknownExit(codec, options)
  // What the codec makes is not trusted as it is: a Schema may pass values through (`Any`, `Unknown`, `Json`), keep
  // references to what the tool returned, or, recursive, build values of any depth. The output conversion copies it
  // once under the call's limits, which costs no more than checking it would.
  return (value) => {
    // The parser answers a plain successful encoding with an Exit; anything else (a failure, an async step) goes
    // through its synchronous runner, which reports an async encoding as an issue.
    const first = encodeEffect(value)
    const exit = isExitValue(first) ? first : encodeExit(value)
    if (Exit.isSuccess(exit)) return Result.succeed(exit.value)
    const issue = Cause.findErrorOption(exit.cause as Cause.Cause<SchemaIssue.Issue>)
    return Option.isSome(issue)
      ? Result.fail({ reason: `the output does not match the success Schema:\n${formatIssues(issue.value)}` })
      : Result.fail({ reason: "encoding with the success Schema failed", cause: Cause.squash(exit.cause) })
  }
}

/**
 * The `check` of a runtime tool: its JSON Schema validator, compiled on the first call (a schema that does not
 * compile fails every call with `other`). Accepted arguments are passed on whole, every key kept, and frozen, as the
 * copy `parseArguments` makes of a parsed value already is, so that the tool cannot change what its result shows.
 */
const jsonSchemaCheck = (name: string, validator: JsonSchemaValidator): NonNullable<Plan["check"]> => (input) => {
  const checked = validator.validate(input)
  if (Result.isSuccess(checked)) {
    deepFreeze(input)
    return undefined
  }
  const failure = checked.failure
  return failure._tag === "Mismatch"
    ? ToolExecutionError.invalidArgs(`tool arguments did not match the schema:\n${failure.message}`)
    : ToolExecutionError.makeSafe(
      "other",
      `the parameters JSON Schema of tool \`${name}\` cannot be used: ${failure.reason}`,
      failure.cause
    )
}

/** The `checkOutput` of a runtime tool with an output JSON Schema: a JSON output (one Json block) must match it. */
const outputChecker = (validator: JsonSchemaValidator): NonNullable<Plan["checkOutput"]> => (output) => {
  const json = ToolOutput.asJson(output)
  if (Option.isNone(json)) return Result.succeed(output)
  const checked = validator.validate(json.value)
  if (Result.isSuccess(checked)) return Result.succeed(output)
  const failure = checked.failure
  return Result.fail(
    failure._tag === "Mismatch"
      ? { reason: `the output does not match the outputSchema:\n${failure.message}` }
      : { reason: `the outputSchema cannot be used: ${failure.reason}`, cause: failure.cause }
  )
}

const makePlan = (tool: Tool.Any): Plan => {
  const timeout = tool.annotations.timeout
  // Nothing is compiled here: a validator compiles on its first call, so a set of 1,000 runtime tools costs none.
  const schemas = tool.jsonSchemas
  return {
    tool,
    call: tool.call,
    decode: schemas !== undefined ? undefined : decoderOf(tool.parameters, tool.onExcessProperty),
    check: schemas !== undefined ? jsonSchemaCheck(tool.name, validatorOf(schemas.parameters)) : undefined,
    encode: schemas !== undefined || tool.success === undefined ? undefined : encoderOf(tool.success),
    checkOutput: schemas?.outputSchema !== undefined ? outputChecker(validatorOf(schemas.outputSchema)) : undefined,
    timeoutMs: timeout === undefined ? undefined : Duration.toMillis(Duration.fromInputUnsafe(timeout)),
    limiter: limiterOf(tool.annotations),
    metrics: new ToolMetrics(tool.name)
  }
}

// A tool's limit on calls in flight belongs to its annotations object, which `Tool.make` makes for each tool and the
// copies of a tool (`Tool.provide`, a server's `add`) share: the limit holds across them, wherever they run.
const limiters = new WeakMap<Tool.Annotations, Limiter>()

const limiterOf = (annotations: Tool.Annotations): Limiter | undefined => {
  if (annotations.concurrency === undefined) return undefined
  let limiter = limiters.get(annotations)
  if (limiter === undefined) {
    limiter = new Limiter(annotations.concurrency)
    limiters.set(annotations, limiter)
  }
  return limiter
}

const unknownToolMetrics = new ToolMetrics(unknownToolName)

/** How many available names a not_found error lists. */
const maxListedNames = 20

/** The immutable lookup structure dispatch runs against: each tool's plan by name, and the names in order. */
export interface Registry {
  readonly byName: ReadonlyMap<string, Plan>
  readonly names: ReadonlyArray<string>
  /** The end of a not_found message: which tools there are (at most 20 names). */
  readonly available: string
}

/** The registry of a list of tools with unique names. Plans are shared by every set that holds the same tool. */
export const makeRegistry = (tools: ReadonlyArray<Tool.Any>): Registry => {
  const byName = new Map<string, Plan>()
  for (const tool of tools) byName.set(tool.name, planOf(tool))
  const names = tools.map((tool) => tool.name)
  const listed = names.slice(0, maxListedNames).map((name) => `\`${name}\``).join(", ")
  const more = names.length > maxListedNames ? `, and ${names.length - maxListedNames} more` : ""
  const available = names.length === 0 ? "no tools are available" : `available tools: ${listed}${more}`
  return { byName, names, available }
}

/** The tool registered under a name. */
export const lookup = (registry: Registry, name: string): Tool.Any | undefined => registry.byName.get(name)?.tool

/**
 * What a `ToolServer` adds to the path of its calls: hooks, a default timeout, a limit on calls in flight with a bound
 * on waiting calls, and retries.
 */
export interface Policy {
  readonly onCall: ReadonlyArray<(event: ToolHooks.CallEvent) => Effect.Effect<ToolHooks.CallDecision, unknown, any>>
  /**
   * How many `onCall` hooks come up to the last approval hook: for a call a human approved through `resume`, they may
   * let it through, deny, skip or stop it, but a rewrite of theirs is not applied. They ran when the call was
   * deferred and shaped the arguments the human approved: a rewrite now would change them (a limit changed since,
   * another caller's values), or apply twice.
   */
  readonly approvalGates: number
  readonly onResult: ReadonlyArray<
    (event: ToolHooks.ResultEvent) => Effect.Effect<ToolHooks.ResultDecision, unknown, any>
  >
  /** The timeout of a tool without its own `timeout` annotation. */
  readonly timeoutMs: number | undefined
  readonly limiter: Limiter | undefined
  /** Calls waiting for a permit, the server's and the tools' own: beyond `max`, a call is shed (`rate_limited`). */
  readonly queue: WaitQueue | undefined
  /** Retries of retryable errors; its input is the error. */
  readonly retry: Schedule.Schedule<unknown, ToolExecutionError.ToolExecutionError> | undefined
  /** Whether an approval hook is among the hooks: without one, a tool that needs approval is never run. */
  readonly approves: boolean
  /**
   * Records the approvals a batch's results ask for (deferred calls), before the results go back, so that only those
   * can be resumed: the Effect that does it, or `undefined` when no result asks for one (the common case costs no
   * step).
   */
  readonly issue: (results: ReadonlyArray<ToolResult>) => Effect.Effect<void> | undefined
}

/** One batch of a server's calls: the reason of the first `stop`, once a hook decided one. */
class Batch {
  stopped: string | undefined = undefined
  /** What to do when it stops: end the waits of its calls that have not started (made when one first waits). */
  private listeners: Set<() => void> | undefined = undefined
  stop(reason: string): void {
    if (this.stopped !== undefined) return
    this.stopped = reason
    const listeners = this.listeners
    this.listeners = undefined
    if (listeners !== undefined) for (const listener of listeners) listener()
  }
  /** Calls `listener` once the batch stops (at once if it has); the function returned stops that. */
  onStop(listener: () => void): () => void {
    if (this.stopped !== undefined) {
      listener()
      return noop
    }
    const listeners = (this.listeners ??= new Set())
    listeners.add(listener)
    return () => listeners.delete(listener)
  }
  /** What ends a wait for a permit when the batch stops: the call has not started, and never will. */
  cancel(): Cancel<typeof NotStarted> {
    return { onCancel: (listener) => this.onStop(listener), error: NotStarted }
  }
  /** Succeeds once the batch stops; never, if it does not. */
  whenStopped(): Effect.Effect<void> {
    return Effect.callback<void>((resume) => Effect.sync(this.onStop(() => resume(Effect.void))))
  }
}

const noop = (): void => {}

/** How a deferred approval was decided, for the call being resumed. */
export type Resumed = ToolHooks.Approve | ToolHooks.Deny

/** Runs one call through the pipeline. Never fails, never dies. */
export const dispatch = (
  registry: Registry,
  call: ToolCall.ToolCall,
  limits: CallLimits
): Effect.Effect<ToolResult, never, any> =>
  start(registry, call, limits, undefined, undefined, undefined) as Effect.Effect<ToolResult, never, any>

/**
 * Runs one call of a server as a batch of its own: its result, or the failure `stopped` makes when a hook stopped the
 * batch (with the call's result, if it has one). The registry is read when the Effect runs. Never dies.
 */
export const dispatchOne = <E>(
  registry: () => Registry,
  call: ToolCall.ToolCall,
  limits: CallLimits,
  policy: Policy,
  stopped: (reason: string, results: ReadonlyArray<ToolResult>) => E,
  resumed?: Resumed
): Effect.Effect<ToolResult, E, any> =>
  Effect.withFiber((fiber) => {
    const batch = new Batch()
    // Without a stop, the call has its result.
    const end = (result: ToolResult | undefined) =>
      endBatch(batch, stopped, result === undefined ? [] : [result], result!, policy)
    const outcome = begin(fiber, registry(), call, limits, policy, batch, resumed)
    return isEffectValue(outcome) ? Effect.flatMap(outcome, end) : end(outcome)
  })

/**
 * Runs a batch of a server's calls: their results, in call order, or the failure `stopped` makes when a hook stopped
 * the batch (with the results of the calls that ran). Never dies.
 */
export const dispatchBatch = <E>(
  registry: Registry,
  calls: Iterable<ToolCall.ToolCall> | null | undefined,
  limits: CallLimits,
  concurrency: number | "unbounded",
  policy: Policy,
  stopped: (reason: string, results: ReadonlyArray<ToolResult>) => E
): Effect.Effect<Array<ToolResult>, E, any> =>
  Effect.suspend(() => {
    const batch = new Batch()
    return Effect.flatMap(
      dispatchAll(registry, calls, limits, concurrency, { policy, batch }),
      (results) => endBatch(batch, stopped, results, results, policy)
    )
  })

/**
 * The end of a batch: `value`, or the failure `stopped` makes of `results` when a hook stopped it; first, the
 * approvals its results ask for are issued (see `Policy.issue`), when there are any.
 */
const endBatch = <A, E>(
  batch: Batch,
  stopped: (reason: string, results: ReadonlyArray<ToolResult>) => E,
  results: ReadonlyArray<ToolResult>,
  value: A,
  policy: Policy
): Effect.Effect<A, E> => {
  const ended: Effect.Effect<A, E> = batch.stopped === undefined
    ? Effect.succeed(value)
    : Effect.fail(stopped(batch.stopped, results))
  const issuing = policy.issue(results)
  return issuing === undefined ? ended : Effect.andThen(issuing, ended)
}

const start = (
  registry: Registry,
  call: ToolCall.ToolCall,
  limits: CallLimits,
  policy: Policy | undefined,
  batch: Batch | undefined,
  resumed: Resumed | undefined
): Effect.Effect<ToolResult | undefined, never, any> =>
  Effect.withFiber((fiber) => toEffect(begin(fiber, registry, call, limits, policy, batch, resumed)))

/** Starts one call on `fiber`: its span, when a tracer observes, then the whole path. */
const begin = (
  fiber: Fiber.Fiber<any, any>,
  registry: Registry,
  call: ToolCall.ToolCall,
  limits: CallLimits,
  policy: Policy | undefined,
  batch: Batch | undefined,
  resumed: Resumed | undefined
): Now<ToolResult | undefined> => {
  // A stopped batch starts no more calls.
  if (batch?.stopped !== undefined) return undefined
  const self = new Call(registry, call, limits, fiber.context, policy, batch, resumed)
  // Effect's default tracer observes nothing: the span is skipped unless a tracing backend is installed. The fiber's
  // cache holds the tracer its context sets, if any, without a lookup.
  const tracer = fiber.cache.tracer
  if (tracer === undefined || tracer === Tracer.nativeTracer) return runCall(self)
  // The span is made by Effect (parent, sampling, propagation and span annotations as Effect decides) and ended
  // by `settle` with the result, which saves the extra fiber steps of `Effect.useSpan` on every call. It becomes
  // the parent of the tool's own spans when the tool runs (see runTool).
  // A registered tool's name is never cut (a valid name has at most 128 characters); a longer one was invented.
  const name = bounded(self.name, maxSpanNameLength)
  const attributes: Record<string, unknown> = {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": name,
    "gen_ai.tool.type": "function"
  }
  if (self.id !== "") attributes["gen_ai.tool.call.id"] = self.id
  return Effect.flatMap(
    Effect.makeSpan(`execute_tool ${name}`, { kind: "internal", attributes }),
    (span) => {
      self.span = span
      const outcome = runCall(self)
      // A call that finished synchronously has already ended its span with its result: nothing is left to
      // interrupt. Otherwise the caller interrupting `execute` produces no result; the span still ends, as
      // interrupted.
      return isEffectValue(outcome)
        ? Effect.onInterrupt(outcome, () => Effect.sync(() => self.endSpan(Exit.interrupt())))
        : Effect.succeed(outcome)
    }
  )
}

/** How much of a tool's name a span shows: all of a valid name. */
const maxSpanNameLength = 128

/** The whole path of one call: steps 1 to 5, then a server's `onResult` hooks, then step 6. */
const runCall = (self: Call): Now<ToolResult | undefined> =>
  self.server === undefined ? run(self) : thenNow(run(self), (result) => complete(self, self.server!.policy, result))

/**
 * A step's outcome: the value itself when the step finished synchronously, as the common path does, or the Effect
 * that gives it. Steps pass plain values along without wrapping them, and only a step that has to wait costs a fiber
 * step. The values passed (a ToolResult, `undefined`) are never Effects.
 */
type Now<A> = A | Effect.Effect<A, never, any>

/** `f` after `now`: at once when `now` is a value. */
const thenNow = <A, B>(now: Now<A>, f: (a: A) => Now<B>): Now<B> =>
  isEffectValue(now) ? Effect.flatMap(now, (a) => toEffect(f(a))) : f(now)

const toEffect = <A>(now: Now<A>): Effect.Effect<A, never, any> => isEffectValue(now) ? now : Effect.succeed(now)

/**
 * One call on its way through the pipeline: what every step needs, in one object, and the one place a result is
 * built, so that every result is timed, counted and put on the span the same way.
 */
class Call {
  readonly startedAt = performance.now()
  readonly registry: Registry
  readonly limits: CallLimits
  readonly fiberContext: Context.Context<never>
  readonly id: string
  readonly name: string
  /** What a tool server adds: none for a call of a ToolSet. */
  readonly server: ServerCall | undefined
  span: Tracer.Span | undefined = undefined
  /** The raw arguments; once parsed, the parsed value (or the raw text when parsing failed); then what ran. */
  args: unknown
  /** The plan of the tool, once it was found. */
  plan: Plan | undefined = undefined
  constructor(
    registry: Registry,
    call: ToolCall.ToolCall,
    limits: CallLimits,
    fiberContext: Context.Context<never>,
    policy: Policy | undefined,
    batch: Batch | undefined,
    resumed: Resumed | undefined
  ) {
    this.registry = registry
    this.limits = limits
    this.fiberContext = fiberContext
    // The call comes from a model through an adapter, or from JavaScript: read it once, and make do with what is
    // readable. A missing or non-string id or name is empty (an unknown tool), never a dead dispatch.
    let id: unknown, name: unknown, args: unknown
    try {
      id = call.id
      name = call.name
      args = call.arguments
    } catch {
      // An unreadable call: nothing of it is trusted.
    }
    this.id = typeof id === "string" ? id : ""
    this.name = typeof name === "string" ? name : ""
    this.args = args
    this.server = policy === undefined ? undefined : new ServerCall(policy, batch ?? new Batch(), resumed, args)
  }
  /** The call, as the hooks see it. */
  event(): ToolCall.ToolCall {
    return { id: this.id, name: this.name, arguments: this.server?.rawArgs }
  }
  /** Builds the result. Without a policy it is final: it is recorded at once. */
  finish(
    plan: Plan | undefined,
    status: ToolResult["status"],
    output: ToolOutput.ToolOutput,
    error: Option.Option<ToolExecutionError.ToolExecutionError>,
    metadata: Context.Context<never>
  ): ToolResult {
    const result = new ToolResult({
      callId: this.id,
      name: this.name,
      arguments: this.args,
      status,
      output,
      error,
      metadata,
      durationMs: performance.now() - this.startedAt,
      attempts: this.server?.attempt ?? 1
    })
    return this.server === undefined ? this.settle(plan, result) : result
  }
  /** Records the final result: its metrics, and its span. */
  settle(plan: Plan | undefined, result: ToolResult): ToolResult {
    ;(plan === undefined ? unknownToolMetrics : plan.metrics).record(result, this.fiberContext)
    const span = this.span
    if (span !== undefined) {
      annotateSpan(span, result, plan?.tool.description)
      if (this.server !== undefined) this.server.annotate(span)
      this.endSpan(result.error._tag === "Some" ? Exit.fail(result.error.value) : Exit.succeed(result))
    }
    return result
  }
  endSpan(exit: Exit.Exit<unknown, unknown>): void {
    const span = this.span
    if (span === undefined || span.status._tag === "Ended") return
    const timed = Context.get(this.fiberContext, References.TracerTimingEnabled)
    span.end(timed ? Context.get(this.fiberContext, Clock.Clock).currentTimeNanosUnsafe() : 0n, exit)
  }
  fail(plan: Plan | undefined, error: ToolExecutionError.ToolExecutionError): ToolResult {
    return this.failWith(plan, error, noMetadata)
  }
  failWith(
    plan: Plan | undefined,
    error: ToolExecutionError.ToolExecutionError,
    metadata: Context.Context<never>
  ): ToolResult {
    const shown = this.heldToLimits(error)
    return this.finish(plan, shown.refused ? "denied" : "error", shown.modelOutput, Option.some(shown), metadata)
  }
  /**
   * The error with its `modelOutput` held to this call's output limits, as a tool's output is: an error checks it
   * only against the default limits when it is built, before any call's are known. One over them shows the model
   * the kind's safe default instead; the operators' message is kept. An output already checked under limits no
   * larger than the call's comes back as it is, without a copy.
   */
  heldToLimits(error: ToolExecutionError.ToolExecutionError): ToolExecutionError.ToolExecutionError {
    const checked = ToolOutput.fromReturn(error.modelOutput, undefined, this.limits.output)
    return Result.isSuccess(checked) ? error : ToolExecutionError.redact(error)
  }
}

/** What a tool server adds to a call: its policy and batch, and what its hooks, approval and retries did. */
class ServerCall {
  readonly policy: Policy
  readonly batch: Batch
  readonly resumed: Resumed | undefined
  /** The arguments as the model sent them, for the hooks' events. */
  readonly rawArgs: unknown
  /** Which attempt is running: retries add to it. */
  attempt = 1
  /** The call was shed by a full wait queue: it never ran, and is not retried. */
  shed = false
  /**
   * What each hook decided, in order (every attempt's `onCall` hooks, then the `onResult` hooks), kept for the span
   * of a traced call.
   */
  callDecisions: Array<string> | undefined = undefined
  resultDecisions: Array<string> | undefined = undefined
  /** How an approval hook decided: approved, denied or deferred. */
  approval: string | undefined = undefined
  /** The retry schedule's step function, made on the first retry. */
  retryStep: ((error: ToolExecutionError.ToolExecutionError) => Effect.Effect<unknown, unknown>) | undefined =
    undefined
  constructor(policy: Policy, batch: Batch, resumed: Resumed | undefined, rawArgs: unknown) {
    this.policy = policy
    this.batch = batch
    this.resumed = resumed
    this.rawArgs = rawArgs
  }
  /** Notes an `onCall` hook's decision for the span. */
  decidedCall(traced: boolean, decision: string): void {
    if (traced) (this.callDecisions ??= []).push(decision)
  }
  /** Notes an `onResult` hook's decision for the span. */
  decidedResult(traced: boolean, decision: string): void {
    if (traced) (this.resultDecisions ??= []).push(decision)
  }
  /** The decisions of the hooks, the approval and the attempts, on the span. */
  annotate(span: Tracer.Span): void {
    span.attribute("tool.attempts", this.attempt)
    if (this.callDecisions !== undefined) span.attribute("tool.hook.call_decisions", this.callDecisions)
    if (this.resultDecisions !== undefined) span.attribute("tool.hook.result_decisions", this.resultDecisions)
    if (this.approval !== undefined) span.attribute("tool.approval", this.approval)
    if (this.batch.stopped !== undefined) span.attribute("tool.batch_stopped", true)
  }
}

const noMetadata: Context.Context<never> = Context.empty()

/**
 * Runs a batch of calls, results in call order whatever order they finish in. Never fails, never dies.
 *
 * The list is read once, when the Effect runs, before any call starts. An entry that is not a call is a call with an
 * empty id and name (not_found). A list that cannot be read to its end (an iterable that throws part-way, something
 * that is not iterable) keeps the calls read before the failure, which run as usual, and ends with one more result
 * for its unreadable rest: empty callId and name, kind `invalid_args`. Nothing read is lost, and nothing unread is
 * silently dropped. `null` and `undefined` hold no calls.
 */
export const dispatchAll = (
  registry: Registry,
  calls: Iterable<ToolCall.ToolCall> | null | undefined,
  limits: CallLimits,
  concurrency: number | "unbounded",
  server?: { readonly policy: Policy; readonly batch: Batch }
): Effect.Effect<Array<ToolResult>, never, any> =>
  Effect.suspend(() => {
    const read: Array<ToolCall.ToolCall> = []
    let readToEnd = true
    if (calls !== null && calls !== undefined) {
      try {
        for (const call of calls) read.push(call)
      } catch {
        readToEnd = false
      }
    }
    const results = server === undefined
      ? Effect.forEach(read, (call) => dispatch(registry, call, limits), { concurrency })
      : Effect.map(
        Effect.forEach(read, (call) => start(registry, call, limits, server.policy, server.batch, undefined), {
          concurrency
        }),
        // The calls a stop kept from running have no result.
        (results) => results.filter((result) => result !== undefined)
      )
    if (readToEnd) return results
    return Effect.flatMap(results, (results) =>
      Effect.withFiber((fiber) => {
        const rest = new Call(registry, unreadableRest, limits, fiber.context, server?.policy, server?.batch, undefined)
        const answer = rest.fail(undefined, ToolExecutionError.invalidArgs(unreadableRestMessage))
        // A server's `onResult` hooks see it, as they see every result the host gets back.
        const reviewed = server === undefined ? answer : complete(rest, server.policy, answer)
        return Effect.map(toEffect(reviewed), (result) => {
          if (result !== undefined) results.push(result)
          return results
        })
      }))
  })

const unreadableRest: ToolCall.ToolCall = { id: "", name: "", arguments: undefined }

const unreadableRestMessage =
  "the list of tool calls could not be read to its end: the calls before that point ran, the rest are unknown"

/** A concurrency the host set: a whole number of one or more, or "unbounded"; anything else runs one at a time. */
export const concurrencyOf = (concurrency: unknown): number | "unbounded" =>
  concurrency === "unbounded"
    ? concurrency
    : typeof concurrency === "number" && concurrency >= 1 && concurrency <= Number.MAX_SAFE_INTEGER
    ? Math.floor(concurrency)
    : 1

/** Steps 1 and 2: look up, parse; then a server's hooks and retries, or straight on to step 3. */
const run = (self: Call): Now<ToolResult | undefined> => {
  const plan = self.registry.byName.get(self.name)
  self.plan = plan
  const parsed = parseArguments(self.args, self.limits.arguments)
  self.args = parsed.value
  if (plan === undefined) return self.fail(undefined, notFound(self.registry, self.name))
  if (Result.isFailure(parsed.result)) return self.fail(plan, unparsed(parsed.result.failure))
  return self.server === undefined
    ? decodeAndRun(self, plan, parsed.result.success)
    : attemptCall(self, self.server.policy, plan, parsed.result.success, undefined)
}

const unparsed = (failure: { readonly _tag: string; readonly reason?: string }): ToolExecutionError.ToolExecutionError =>
  ToolExecutionError.invalidArgs(
    failure._tag === "NotAnObject"
      ? "tool arguments must be a JSON object"
      : `failed to parse tool arguments: ${failure.reason}`
  )

/** Steps 3 to 5: decode (or check), run the tool, convert its output. */
const decodeAndRun = (self: Call, plan: Plan, args: unknown): Now<ToolResult | undefined> => {
  if (plan.decode === undefined) {
    const error = plan.check!(args)
    return error === undefined ? runTool(self, plan, args) : self.fail(plan, error)
  }
  const decoded = plan.decode(args)
  // A successful synchronous parse answers with an Exit: no extra step for it.
  return isExitValue(decoded)
    ? afterDecode(self, plan, decoded)
    : Effect.flatMap(Effect.exit(decoded), (exit) => toEffect(afterDecode(self, plan, exit)))
}

/** Step 4 on with what a Schema decoded, or the failure to decode. */
const afterDecode = (
  self: Call,
  plan: Plan,
  decoded: Exit.Exit<unknown, SchemaIssue.Issue>
): Now<ToolResult | undefined> => {
  if (Exit.isSuccess(decoded)) return runTool(self, plan, decoded.value)
  const issue = Cause.findErrorOption(decoded.cause)
  return self.fail(
    plan,
    Option.isSome(issue)
      ? ToolExecutionError.invalidArgs(`tool arguments did not match the schema:\n${formatIssues(issue.value)}`)
      : ToolExecutionError.makeSafe(
        "other",
        "decoding the tool arguments failed unexpectedly",
        Cause.squash(decoded.cause)
      )
  )
}

/**
 * One attempt of a server's call: its `onCall` hooks, then steps 3 to 5, then a retry if the error is retryable and
 * the schedule goes on. `args` are the parsed arguments before any hook; `last` is the previous attempt's result. No
 * result when the batch was stopped before the tool first ran.
 */
const attemptCall = (
  self: Call,
  policy: Policy,
  plan: Plan,
  args: unknown,
  last: ToolResult | undefined
): Now<ToolResult | undefined> => {
  const resumed = self.server!.resumed
  if (resumed?._tag === "Deny") {
    self.server!.approval = "denied"
    return self.fail(plan, ToolExecutionError.refused(reasonOf(resumed.reason)))
  }
  // Only an approval hook can ask a human: on a server without one, a tool that needs approval never runs, but for
  // a call a human approved through `resume` (a server sharing its store with the one that asked, say).
  if (plan.tool.annotations.needsApproval === true && !policy.approves && resumed?._tag !== "Approve") {
    return self.fail(plan, ToolExecutionError.refused(unapprovable(plan.tool.name)))
  }
  // A call a human approved runs what the human approved (see `Policy.approvalGates`), and its span says so.
  const approved = resumed?._tag === "Approve"
  if (approved) self.server!.approval = "approved"
  if (policy.onCall.length === 0) return runAttempt(self, policy, plan, args, args, last)
  const state = new CallState({
    call: self.event(),
    tool: ToolDefinition.fromTool(plan.tool),
    arguments: args,
    attempt: self.server!.attempt,
    approved
  })
  if (approved) state.gates = policy.approvalGates
  const decided = runHooks(policy.onCall, state, (exit) => decideCall(self, state, exit), self.span)
  return isEffectValue(decided)
    ? Effect.flatMap(decided, () => toEffect(afterCallHooks(self, policy, plan, args, last, state)))
    : afterCallHooks(self, policy, plan, args, last, state)
}

/** Why a call of a tool that needs approval is denied on a server that cannot ask for it. */
const unapprovable = (name: string): string =>
  `tool \`${name}\` needs a human's approval before it runs, and this tool server has no approval hook to ask for it`

/** What the `onCall` hooks decided: run the attempt with their arguments, or end the call as they said. */
const afterCallHooks = (
  self: Call,
  policy: Policy,
  plan: Plan,
  args: unknown,
  last: ToolResult | undefined,
  state: CallState
): Now<ToolResult | undefined> => {
  if (state.failure !== undefined) return self.fail(plan, state.failure)
  const decision = state.decision
  if (decision === undefined) return runAttempt(self, policy, plan, args, state.event.arguments, last)
  self.args = state.event.arguments
  switch (decision._tag) {
    case "Skip":
      return self.finish(plan, "skipped", ToolOutput.text(decision.reason), Option.none(), decision.metadata ?? noMetadata)
    case "Deny":
      return self.fail(plan, ToolExecutionError.refused(decision.reason))
    case "Stop":
      self.server!.batch.stop(decision.reason)
      return self.finish(plan, "skipped", ToolOutput.text(decision.reason), Option.none(), noMetadata)
  }
}

/** What the `onCall` hooks of one attempt have decided so far. */
class CallState {
  /** The event the next hook sees: its arguments are the latest rewrite. */
  event: ToolHooks.CallEvent
  /** A decision that ends the chain (skip, deny, stop), once one was made. */
  decision: ToolHooks.Skip | ToolHooks.Deny | ToolHooks.Stop | undefined = undefined
  /** The chain failed (a hook failed, or rewrote the arguments into something that is not an object of JSON). */
  failure: ToolExecutionError.ToolExecutionError | undefined = undefined
  /** How many of the next hooks may not rewrite the arguments (see `Policy.approvalGates`). */
  gates = 0
  constructor(event: ToolHooks.CallEvent) {
    this.event = event
  }
}

const decisionName = {
  Run: "run",
  Rewrite: "rewrite",
  Skip: "skip",
  Deny: "deny",
  Stop: "stop"
} as const

/**
 * Applies what one `onCall` hook answered: its decision, read as data the chain can trust whatever the hook
 * returned, or its failure. Whether the chain is done.
 */
const decideCall = (self: Call, state: CallState, exit: Exit.Exit<unknown, unknown>): boolean => {
  const server = self.server!
  const traced = self.span !== undefined
  const gate = state.gates > 0
  if (gate) state.gates--
  if (Exit.isFailure(exit)) {
    server.decidedCall(traced, "failed")
    state.failure = hookFailure(exit.cause)
    return true
  }
  const decision = exit.value
  const tag = tagOf(decision)
  if (gate && tag === "Rewrite") {
    // The arguments are the ones a human approved: a hook before the approval lets them through as they are.
    server.decidedCall(traced, "run")
    return false
  }
  const known = tag === "Run" || tag === "Rewrite" || tag === "Skip" || tag === "Deny" || tag === "Stop"
  server.decidedCall(traced, known ? decisionName[tag] : "invalid")
  const approval = (decision as { readonly approval?: unknown } | undefined)?.approval
  if (typeof approval === "string") server.approval = approval
  switch (tag) {
    case "Run":
      return false
    case "Rewrite": {
      // Checked like the model's own arguments: under the limits, into a frozen copy of JSON.
      const parsed = parseArguments((decision as ToolHooks.Rewrite).arguments, self.limits.arguments)
      if (Result.isFailure(parsed.result)) {
        self.args = parsed.value
        const failure = parsed.result.failure
        const why = failure._tag === "NotAnObject" ? "they are not a JSON object" : failure.reason
        state.failure = ToolExecutionError.invalidArgs(`a hook rewrote the tool arguments into ones that cannot run: ${why}`)
        return true
      }
      state.event = { ...state.event, arguments: parsed.result.success }
      return false
    }
    case "Skip":
    case "Deny":
    case "Stop": {
      const reason = reasonOf((decision as { readonly reason?: unknown }).reason)
      const metadata = (decision as { readonly metadata?: unknown }).metadata
      state.decision = tag === "Skip"
        ? { _tag: "Skip", reason, metadata: Context.isContext(metadata) ? metadata as Context.Context<never> : undefined }
        : { _tag: tag, reason }
      return true
    }
  }
  state.failure = notADecision("onCall", decision)
  return true
}

/** The tag of a decision, read once and safely: a hook written in JavaScript can return anything. */
const tagOf = (decision: unknown): unknown => {
  try {
    return typeof decision === "object" && decision !== null ? (decision as { readonly _tag?: unknown })._tag : undefined
  } catch {
    return undefined
  }
}

/** A hook's reason, which the model sees: a string, held to the length of a sentence or a page. */
const reasonOf = (reason: unknown): string => {
  if (typeof reason === "string") return reason
  return "the host declined to run this call"
}

const notADecision = (stage: string, decision: unknown): ToolExecutionError.ToolExecutionError =>
  ToolExecutionError.makeSafe("other", `an ${stage} hook returned ${describeError(decision)}, not a decision`)

/**
 * Steps 3 to 5 of one attempt with `args` (what the hooks let run), under the server's limits; then, for a retryable
 * error, the next attempt from `original` (the arguments before any hook), once the schedule's delay has passed.
 */
const runAttempt = (
  self: Call,
  policy: Policy,
  plan: Plan,
  original: unknown,
  args: unknown,
  last: ToolResult | undefined
): Now<ToolResult | undefined> => {
  // A stopped batch runs no more tools: a retry keeps the result it has.
  if (self.server?.batch.stopped !== undefined) return last
  self.args = args
  return thenNow(decodeAndRun(self, plan, args), (result): Now<ToolResult | undefined> => {
    // The batch stopped while this call waited for a permit: its tool did not run.
    if (result === undefined) return last
    if (!retries(self, policy, plan, result)) return result
    const error = (result.error as Option.Some<ToolExecutionError.ToolExecutionError>).value
    const step = self.server!.retryStep === undefined
      ? Effect.flatMap(Schedule.toStepWithSleep(policy.retry!), (step) => {
        self.server!.retryStep = step
        return step(error)
      })
      : self.server!.retryStep(error)
    // A stop of the batch during the wait ends it: no more attempts, and this result is the last.
    const waited = Effect.raceFirst(Effect.exit(step), Effect.as(self.server!.batch.whenStopped(), undefined))
    return Effect.flatMap(waited, (exit) => {
      // The schedule is done (or failed), or the batch stopped: this result is the last.
      if (exit === undefined || Exit.isFailure(exit) || self.server!.batch.stopped !== undefined) {
        return Effect.succeed(result)
      }
      self.server!.attempt++
      return toEffect(attemptCall(self, policy, plan, original, result))
    })
  })
}

/**
 * Whether a result is retried: a server with a schedule, an error the tool (or its kind) marks retryable, a call
 * that ran (not one shed by a full queue), and a tool that is not destructive unless it is also idempotent.
 */
const retries = (self: Call, policy: Policy, plan: Plan, result: ToolResult): boolean => {
  if (policy.retry === undefined || self.server!.shed || result.status !== "error") return false
  if (result.error._tag !== "Some" || result.error.value.retryable !== true) return false
  const annotations = plan.tool.annotations
  return annotations.destructive !== true || annotations.idempotent === true
}

/** A server's `onResult` hooks, then step 6: the result is recorded. */
const complete = (
  self: Call,
  policy: Policy,
  result: ToolResult | undefined
): Now<ToolResult | undefined> => {
  if (result === undefined) {
    // The batch stopped before this call's tool ran: it has no result, and nothing to record but its span's end.
    if (self.span !== undefined) {
      self.span.attribute("gen_ai.tool.call.outcome", "stopped")
      self.server!.annotate(self.span)
      self.endSpan(Exit.succeed(undefined))
    }
    return undefined
  }
  if (policy.onResult.length === 0) return self.settle(self.plan, result)
  const state = new ResultState(self.event(), result)
  const reviewed = runHooks(policy.onResult, state, (exit) => decideResult(self, state, exit), self.span)
  return isEffectValue(reviewed)
    ? Effect.map(reviewed, () => self.settle(self.plan, state.result))
    : self.settle(self.plan, state.result)
}

/** The result as the `onResult` hooks have left it so far, and the event the next one sees. */
class ResultState {
  readonly call: ToolCall.ToolCall
  result: ToolResult
  event: ToolHooks.ResultEvent
  constructor(call: ToolCall.ToolCall, result: ToolResult) {
    this.call = call
    this.result = result
    this.event = { call, result }
  }
  set(result: ToolResult): void {
    if (result === this.result) return
    this.result = result
    this.event = { call: this.call, result }
  }
}

/**
 * Applies what one `onResult` hook answered. Every hook runs, a `stop` included: each sees the result. A failed hook
 * fails the result with kind `other`. The chain is never done early.
 */
const decideResult = (self: Call, state: ResultState, exit: Exit.Exit<unknown, unknown>): boolean => {
  const server = self.server!
  const traced = self.span !== undefined
  const result = state.result
  if (Exit.isFailure(exit)) {
    server.decidedResult(traced, "failed")
    state.set(replaced(result, hookFailure(exit.cause)))
    return false
  }
  const decision = exit.value
  const tag = tagOf(decision)
  switch (tag) {
    case "Keep":
      server.decidedResult(traced, "keep")
      return false
    case "Stop":
      server.decidedResult(traced, "stop")
      server.batch.stop(reasonOf((decision as { readonly reason?: unknown }).reason))
      return false
    case "RewriteOutput": {
      server.decidedResult(traced, "rewrite_output")
      // Checked as a tool's output is: read once, under the call's limits, into a frozen copy.
      const given = (decision as ToolHooks.RewriteOutput).output
      const output = ToolOutput.fromReturn(given, undefined, self.limits.output)
      state.set(
        Result.isSuccess(output) && ToolOutput.isToolOutput(given)
          ? new ToolResult({ ...fieldsOf(result), output: output.success })
          : replaced(
            result,
            ToolExecutionError.makeSafe("other", "an onResult hook rewrote the output into something that is not a ToolOutput")
          )
      )
      return false
    }
  }
  server.decidedResult(traced, "invalid")
  state.set(replaced(result, notADecision("onResult", decision)))
  return false
}

/** The result, now failed with `error` (a hook failed on it): what the model sees is the error's. */
const replaced = (result: ToolResult, error: ToolExecutionError.ToolExecutionError): ToolResult =>
  new ToolResult({ ...fieldsOf(result), status: "error", output: error.modelOutput, error: Option.some(error) })

const fieldsOf = (result: ToolResult): ToolResultFields => ({
  callId: result.callId,
  name: result.name,
  arguments: result.arguments,
  status: result.status,
  output: result.output,
  error: result.error,
  metadata: result.metadata,
  durationMs: result.durationMs,
  attempts: result.attempts
})

/**
 * Runs hooks in order on one chain's state until `apply` (which records what a hook answered) says the chain is done.
 * A hook that throws, returns something that is not an Effect, fails or dies answers with that failure; so does one
 * whose decision cannot be read. Hooks that answer with an Exit (`Effect.succeed`) cost no fiber step: when all of
 * them do, the chain ends here and nothing is returned; otherwise the Effect that ends it. The program of a hook runs
 * under the call's span, when it has one: the hook's own spans are its children, as the tool's are.
 */
const runHooks = <S extends { readonly event: unknown }>(
  hooks: ReadonlyArray<(event: any) => Effect.Effect<unknown, unknown, any>>,
  state: S,
  apply: (exit: Exit.Exit<unknown, unknown>) => boolean,
  span: Tracer.Span | undefined,
  from = 0
): Effect.Effect<void, never, any> | undefined => {
  for (let index = from; index < hooks.length; index++) {
    let returned: unknown
    try {
      returned = hooks[index]!(state.event)
    } catch (thrown) {
      returned = Exit.die(thrown)
    }
    const effect = isEffectValue(returned)
      ? returned as Effect.Effect<unknown, unknown, any>
      : Exit.die(new TypeError(`a hook returned ${describeError(returned)}, not an Effect`))
    if (isExitValue(effect)) {
      if (applySafely(apply, effect)) return undefined
      continue
    }
    const program = span === undefined ? effect : Effect.provideService(effect, Tracer.ParentSpan, span)
    return Effect.flatMap(Effect.exit(program), (exit) => {
      if (applySafely(apply, exit)) return Effect.void
      return runHooks(hooks, state, apply, span, index + 1) ?? Effect.void
    })
  }
  return undefined
}

/** `apply`, with a decision whose fields throw when read (a proxy, a getter) taken as the hook's failure. */
const applySafely = (apply: (exit: Exit.Exit<unknown, unknown>) => boolean, exit: Exit.Exit<unknown, unknown>) => {
  try {
    return apply(exit)
  } catch (thrown) {
    return apply(Exit.die(thrown))
  }
}

/** A hook failed or died: kind `other`, the cause kept for operators. */
const hookFailure = (cause: Cause.Cause<unknown>): ToolExecutionError.ToolExecutionError => {
  const failure = Cause.findErrorOption(cause)
  const reason = Option.isSome(failure)
    ? describeError(failure.value)
    : Result.isSuccess(Cause.findDefect(cause))
    ? describeError(Cause.squash(cause))
    : "an interruption"
  return ToolExecutionError.makeSafe("other", `a hook failed with ${reason}`, Cause.squash(cause))
}

const notFound = (registry: Registry, name: string): ToolExecutionError.ToolExecutionError =>
  ToolExecutionError.notFound(`tool \`${bounded(name)}\` not found; ${registry.available}`)

/**
 * The limits of a call's options; resolved once per `execute` or `executeAll`, not per call. Options that cannot be
 * read (a throwing getter) are the defaults: the options belong to the host, but a dead dispatch is never the answer.
 */
export const limitsOf = (options: ExecuteOptions | undefined): CallLimits => {
  if (options === undefined) return defaultCallLimits
  let maxArgumentBytes: unknown, maxArgumentDepth: unknown, maxOutputBytes: unknown, maxOutputDepth: unknown
  try {
    ;({ maxArgumentBytes, maxArgumentDepth, maxOutputBytes, maxOutputDepth } = options)
  } catch {
    return defaultCallLimits
  }
  if (
    maxArgumentBytes === undefined && maxArgumentDepth === undefined && maxOutputBytes === undefined &&
    maxOutputDepth === undefined
  ) return defaultCallLimits
  return {
    arguments: maxArgumentBytes === undefined && maxArgumentDepth === undefined ? defaultLimits : {
      maxBytes: limit(maxArgumentBytes, defaultLimits.maxBytes),
      maxDepth: limit(maxArgumentDepth, defaultLimits.maxDepth)
    },
    output: maxOutputBytes === undefined && maxOutputDepth === undefined ? defaultOutputLimits : {
      maxBytes: limit(maxOutputBytes, defaultOutputLimits.maxBytes),
      maxDepth: limit(maxOutputDepth, defaultOutputLimits.maxDepth)
    }
  }
}

/** A limit the host set: a whole number of zero or more; anything else (NaN, a negative, a string) is the default. */
const limit = (value: unknown, fallback: number): number =>
  typeof value === "number" && value >= 0 && Number.isFinite(value) ? Math.floor(value) : fallback

/** Steps 4 to 6: run `call` with a fresh ToolContext under the tool's timeout, convert its output, build the result. */
const runTool = (self: Call, plan: Plan, args: unknown): Now<ToolResult | undefined> => {
  const toolLimiter = plan.limiter
  const serverLimiter = self.server?.policy.limiter
  // Under limits on calls in flight, a call holds a permit of each while its tool runs. When both are free, the
  // tool is called at once with them held: a tool that answers with an Exit has finished by the time they are given
  // back, and the program of any other runs under them, taken again, without ever being shed (its call has begun).
  // Otherwise the call waits for them, and the tool is called only once it holds them.
  let queue = self.server?.policy.queue
  // A call that waits before it has begun: a hook's stop of its batch ends the wait, and the call never runs.
  let cancel: Cancel<typeof NotStarted> | undefined
  let called: Effect.Effect<unknown, unknown, any> | ToolResult
  if (toolLimiter === undefined && serverLimiter === undefined) called = eagerCall(self, plan, args)
  else if (acquire(toolLimiter, serverLimiter)) {
    try {
      called = eagerCall(self, plan, args)
    } finally {
      toolLimiter?.release()
      serverLimiter?.release()
    }
    queue = undefined
  } else {
    called = deferredCall(self, plan, args)
    cancel = self.server?.batch.cancel()
  }
  if (called instanceof ToolResult) return called
  let program = called
  const context = new CallContext(self.id, plan.tool.name)
  // One context change per call: the ToolContext, and the call's span as the parent of the tool's own spans.
  const span = self.span
  program = Effect.updateContext(
    program,
    span === undefined
      ? (outer: Context.Context<never>) => Context.add(outer, ToolContext, context) as Context.Context<any>
      : (outer: Context.Context<never>) =>
        Context.add(Context.add(outer, ToolContext, context), Tracer.ParentSpan, span) as Context.Context<any>
  )
  // The tool's own timeout wins over a server's default.
  const timeoutMs = plan.timeoutMs ?? self.server?.policy.timeoutMs
  if (timeoutMs !== undefined) {
    program = Effect.flatMap(
      Effect.timeoutOption(program, timeoutMs),
      (option) => Option.isSome(option) ? Effect.succeed(option.value) : Effect.fail(new TimedOut({ timeoutMs }))
    )
  }
  // Limits on calls in flight hold around the run, so that time spent waiting for a permit is not the tool's time.
  // The server's permit is taken inside the tool's own: a call waiting for its tool holds no server-wide slot.
  if (serverLimiter !== undefined) program = serverLimiter.run(program, queue, cancel)
  if (toolLimiter !== undefined) program = toolLimiter.run(program, queue, cancel)
  return Effect.matchCause(program, {
    onFailure: (cause) => notStarted(cause) ? undefined : failed(self, plan, cause, context),
    onSuccess: (value) => succeeded(self, plan, value, context)
  })
}

/** Takes a permit of each limiter there is, at once, or none. */
const acquire = (tool: Limiter | undefined, server: Limiter | undefined): boolean => {
  if (tool !== undefined && !tool.tryAcquire()) return false
  if (server !== undefined && !server.tryAcquire()) {
    tool?.release()
    return false
  }
  return true
}

/**
 * Calls the tool at once. A tool that answered with an Exit (`Effect.succeed`, `Effect.fail`) has already finished:
 * its result is built here, as nothing is left to run, so there is no context to provide, no timeout to arm and no
 * metadata to keep. Otherwise, the program to run.
 */
const eagerCall = (self: Call, plan: Plan, args: unknown): Effect.Effect<unknown, unknown, any> | ToolResult => {
  let program: unknown
  let finished: "success" | "failure" | undefined
  let settled: unknown
  try {
    program = plan.call.call(plan.tool, args as never)
    // Telling what came back reads it (`in` checks, an Exit's fields): a proxy's traps may throw there too.
    if (!isEffectValue(program)) {
      // A runtime-built or JavaScript tool can return anything, a Promise say: that is a defect, not a dead dispatch.
      return self.fail(plan, defectError(notAnEffect()))
    }
    if (isExitValue(program)) {
      finished = Exit.isSuccess(program) ? "success" : "failure"
      settled = Exit.isSuccess(program) ? program.value : program.cause
    }
  } catch (defect) {
    // A `call` that throws before it returns an Effect is a defect like any other.
    return self.fail(plan, defectError(defect))
  }
  if (finished === undefined) return program as Effect.Effect<unknown, unknown, any>
  return finished === "success"
    ? succeeded(self, plan, settled, undefined)
    : failed(self, plan, settled as Cause.Cause<unknown>, undefined)
}

/**
 * Calls the tool only when its program runs: under a limit on calls in flight, whatever `call` does before it
 * returns its Effect (start a request, say) waits for a permit like the rest, runs under the timeout, and never runs
 * for a call that is shed, nor for one whose batch a hook stopped while it waited.
 */
const deferredCall = (self: Call, plan: Plan, args: unknown): Effect.Effect<unknown, unknown, any> =>
  Effect.suspend(() => {
    if (self.server?.batch.stopped !== undefined) return Effect.fail(NotStarted)
    const program: unknown = plan.call.call(plan.tool, args as never)
    return isEffectValue(program) ? program as Effect.Effect<unknown, unknown, any> : Effect.die(notAnEffect())
  })

/** The batch stopped before the tool got its permit: the call has no result. Never escapes dispatch. */
const NotStarted: unique symbol = Symbol("NotStarted")

const notStarted = (cause: Cause.Cause<unknown>): boolean => {
  const failure = Cause.findErrorOption(cause)
  return Option.isSome(failure) && failure.value === NotStarted
}

const notAnEffect = (): TypeError => new TypeError("the tool's call did not return an Effect")

/** Step 5 and 6 for a tool that succeeded: convert its output, keep its metadata. */
const succeeded = (self: Call, plan: Plan, value: unknown, context: CallContext | undefined): ToolResult => {
  // Total: whatever the value does when it is read ends in an output or a failure, never in a throw.
  let output = ToolOutput.fromReturn(value, plan.encode, self.limits.output)
  if (plan.checkOutput !== undefined && Result.isSuccess(output)) output = plan.checkOutput(output.success)
  if (Result.isFailure(output)) {
    context?.seal(false)
    const failure = typeof output.failure === "string" ? { reason: output.failure } : output.failure
    return self.fail(
      plan,
      ToolExecutionError.makeSafe(
        "other",
        `tool \`${plan.tool.name}\` returned an output that cannot be encoded: ${failure.reason}`,
        failure.cause
      )
    )
  }
  return self.finish(plan, "success", output.success, Option.none(), context?.seal(true) ?? noMetadata)
}

/** Step 6 for a tool that failed: fold the cause into one error. */
const failed = (self: Call, plan: Plan, cause: Cause.Cause<unknown>, context: CallContext | undefined): ToolResult =>
  inspecting(self, plan, context, () => {
    const error = fromCause(plan, cause)
    // A call that completed with a typed failure keeps its metadata; one that did not complete (a dispatch timeout,
    // an interruption, a defect) keeps none.
    const failure = Cause.findErrorOption(cause)
    const shed = Option.isSome(failure) && failure.value instanceof Shed
    if (shed && self.server !== undefined) self.server.shed = true
    const completed = Option.isSome(failure) && !(failure.value instanceof TimedOut) && !shed
    const metadata = context?.seal(completed) ?? noMetadata
    return self.failWith(plan, error, metadata)
  })

/**
 * Runs a step that reads what the tool returned or failed with. Those values are the tool's: a getter or a proxy
 * trap in them may throw, and that must end in a result, not in a dead dispatch.
 */
const inspecting = (self: Call, plan: Plan, context: CallContext | undefined, step: () => ToolResult): ToolResult => {
  try {
    return step()
  } catch (thrown) {
    context?.seal(false)
    return self.fail(
      plan,
      ToolExecutionError.makeSafe(
        "other",
        `the output or error of tool \`${plan.tool.name}\` could not be read: reading it threw ${describeError(thrown)}`,
        thrown
      )
    )
  }
}

/** The tool ran past its timeout: dispatch interrupted it. Never escapes dispatch. */
class TimedOut {
  readonly timeoutMs: number
  constructor(options: { readonly timeoutMs: number }) {
    this.timeoutMs = options.timeoutMs
  }
}

/** Folds the cause of a failed call into one error. A typed failure wins over a defect, a defect over interruption. */
const fromCause = (plan: Plan, cause: Cause.Cause<unknown>): ToolExecutionError.ToolExecutionError => {
  const failure = Cause.findErrorOption(cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    if (error instanceof TimedOut) {
      return ToolExecutionError.makeSafe("timeout", `tool \`${plan.tool.name}\` timed out after ${error.timeoutMs} ms`)
    }
    if (error instanceof Shed) {
      return ToolExecutionError.rateLimited(
        `the tool server is at capacity: ${error.queued} calls are already waiting; try again later`
      )
    }
    if (error instanceof MissingToolContext) return ToolExecutionError.other(error.message)
    // Already folded by the tool author: it passes through, whatever the tool's mapError does with other errors, made
    // whole again if JavaScript changed its fields (a missing or invalid modelOutput becomes the kind's safe default).
    if (ToolExecutionError.isToolExecutionError(error)) return ToolExecutionError.fromError(error)
    let mapped: unknown
    try {
      mapped = plan.tool.mapError(error as never)
    } catch (defect) {
      return ToolExecutionError.makeSafe("other", `the mapError of tool \`${plan.tool.name}\` threw`, defect)
    }
    // JavaScript callers are not held to the signature: anything else would leave the result without an output.
    if (ToolExecutionError.isToolExecutionError(mapped)) return ToolExecutionError.fromError(mapped)
    return ToolExecutionError.makeSafe(
      "other",
      `the mapError of tool \`${plan.tool.name}\` returned ${describeError(mapped)}, not a ToolExecutionError`,
      error
    )
  }
  const defect = Cause.findDefect(cause)
  if (Result.isSuccess(defect)) return defectError(defect.success)
  return ToolExecutionError.cancelled()
}

const defectError = (defect: unknown): ToolExecutionError.ToolExecutionError =>
  ToolExecutionError.makeSafe("other", `tool died with ${describeError(defect)}`, defect)
