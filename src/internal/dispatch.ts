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
 * Everything a call can reuse is computed once per tool, in its `Plan`. A Schema parser answers a successful
 * synchronous parse with an `Exit`, and a tool that answers with `Effect.succeed` returns one too: the common path
 * needs no fiber steps beyond the one `execute` already runs on.
 */
import { Cause, Clock, Context, Duration, Effect, Exit, Option, References, Result, SchemaAST, Tracer } from "effect"
import { SchemaJITCompiler } from "effect/schema"
import * as SchemaParser from "effect/SchemaParser"
import type * as SchemaIssue from "effect/SchemaIssue"
import type * as Tool from "../Tool.ts"
import type * as ToolCall from "../ToolCall.ts"
import { MissingToolContext, ToolContext } from "../ToolContext.ts"
import { CallContext } from "./callContext.ts"
import * as ToolExecutionError from "../ToolExecutionError.ts"
import * as ToolOutput from "../ToolOutput.ts"
import { ToolResult } from "../ToolResult.ts"
import { describeError } from "./describe.ts"
import { jsonCodec } from "./codec.ts"
import { bounded, formatIssues } from "./issues.ts"
import { type JsonSchemaValidator, validatorOf } from "./jsonSchemaValidator.ts"
import { defaultLimits, defaultOutputLimits, type JsonLimits, parseArguments } from "./json.ts"
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
  /**
   * Checks the parsed arguments and gives what `call` receives: the Schema codec's decoding (its issue is formatted
   * by `runTool`), or, for a runtime tool, the arguments themselves once its JSON Schema validator accepts them (its
   * failures are already errors).
   */
  readonly decode: (input: unknown) => Effect.Effect<unknown, SchemaIssue.Issue | ToolExecutionError.ToolExecutionError>
  /** Encodes a return value with the `success` Schema's JSON codec; the output conversion copies what it makes. */
  readonly encode: ((value: unknown) => Result.Result<unknown, EncodeFailure>) | undefined
  /** Checks a converted output against a runtime tool's output JSON Schema: a JSON output must match it. */
  readonly checkOutput: ((output: ToolOutput.ToolOutput) => Result.Result<ToolOutput.ToolOutput, EncodeFailure>) | undefined
  readonly timeoutMs: number | undefined
  readonly metrics: ToolMetrics
}

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
const decoders = new WeakMap<Tool.AnySchema, Record<"ignore" | "error", Plan["decode"] | undefined>>()
const encoders = new WeakMap<Tool.AnySchema, NonNullable<Plan["encode"]>>()

const decoderOf = (schema: Tool.AnySchema, onExcessProperty: "ignore" | "error"): Plan["decode"] => {
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
    bySetting[onExcessProperty] = SchemaParser.decodeUnknownEffect(codec, {
      errors: "all",
      onExcessProperty,
      reportInput: true
    })
  }
  return bySetting[onExcessProperty]
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
    const exit = Exit.isExit(first) ? first : encodeExit(value)
    if (Exit.isSuccess(exit)) return Result.succeed(exit.value)
    const issue = Cause.findErrorOption(exit.cause as Cause.Cause<SchemaIssue.Issue>)
    return Option.isSome(issue)
      ? Result.fail({ reason: `the output does not match the success Schema:\n${formatIssues(issue.value)}` })
      : Result.fail({ reason: "encoding with the success Schema failed", cause: Cause.squash(exit.cause) })
  }
}

/**
 * The `decode` of a runtime tool: its JSON Schema validator, compiled on the first call (a schema that does not
 * compile fails every call with `other`). Accepted arguments are passed on whole, every key kept, and frozen, as the
 * copy `parseArguments` makes of a parsed value already is, so that the tool cannot change what its result shows.
 */
const jsonSchemaDecoder = (name: string, validator: JsonSchemaValidator): Plan["decode"] => (input) => {
  const checked = validator.validate(input)
  if (Result.isSuccess(checked)) return Exit.succeed(Object.isFrozen(input) ? input : deepFreeze(input))
  const failure = checked.failure
  return Exit.fail(
    failure._tag === "Mismatch"
      ? ToolExecutionError.invalidArgs(`tool arguments did not match the schema:\n${failure.message}`)
      : ToolExecutionError.makeSafe(
        "other",
        `the parameters JSON Schema of tool \`${name}\` cannot be used: ${failure.reason}`,
        failure.cause
      )
  )
}

/** Freezes parsed JSON, without recursion: the host may allow any depth. */
const deepFreeze = (root: unknown): unknown => {
  const stack: Array<unknown> = [root]
  while (stack.length > 0) {
    const node = stack.pop()
    if (typeof node !== "object" || node === null || Object.isFrozen(node)) continue
    Object.freeze(node)
    for (const key in node) stack.push((node as Record<string, unknown>)[key])
  }
  return root
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
    decode: schemas !== undefined
      ? jsonSchemaDecoder(tool.name, validatorOf(schemas.parameters))
      : decoderOf(tool.parameters, tool.onExcessProperty),
    encode: schemas !== undefined || tool.success === undefined ? undefined : encoderOf(tool.success),
    checkOutput: schemas?.outputSchema !== undefined ? outputChecker(validatorOf(schemas.outputSchema)) : undefined,
    timeoutMs: timeout === undefined ? undefined : Duration.toMillis(Duration.fromInputUnsafe(timeout)),
    metrics: new ToolMetrics(tool.name)
  }
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

/** Runs one call through the pipeline. Never fails, never dies. */
export const dispatch = (
  registry: Registry,
  call: ToolCall.ToolCall,
  limits: CallLimits
): Effect.Effect<ToolResult, never, any> =>
  Effect.withFiber((fiber) => {
    const self = new Call(registry, call, limits, fiber.context)
    // Effect's default tracer observes nothing: the span is skipped unless a tracing backend is installed.
    if (fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer) return run(self)
    // The span is made by Effect (parent, sampling, propagation and span annotations as Effect decides) and ended
    // by `finish` with the result, which saves the extra fiber steps of `Effect.useSpan` on every call. It becomes
    // the parent of the tool's own spans when the tool runs (see runTool).
    const name = bounded(self.name)
    return Effect.flatMap(
      Effect.makeSpan(`execute_tool ${name}`, {
        kind: "internal",
        attributes: {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": name,
          "gen_ai.tool.call.id": self.id
        }
      }),
      (span) => {
        self.span = span
        const program = run(self)
        // A call that finished synchronously has already ended its span with its result: nothing is left to
        // interrupt. Otherwise the caller interrupting `execute` produces no result; the span still ends, as
        // interrupted.
        return Exit.isExit(program)
          ? program
          : Effect.onInterrupt(program, () => Effect.sync(() => self.endSpan(Exit.interrupt())))
      }
    )
  })

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
  span: Tracer.Span | undefined = undefined
  /** The raw arguments; once parsed, the parsed value (or the raw text when parsing failed). */
  args: unknown
  constructor(
    registry: Registry,
    call: ToolCall.ToolCall,
    limits: CallLimits,
    fiberContext: Context.Context<never>
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
  }
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
      durationMs: performance.now() - this.startedAt
    })
    ;(plan === undefined ? unknownToolMetrics : plan.metrics).record(result, this.fiberContext)
    if (this.span !== undefined) {
      annotateSpan(this.span, result)
      this.endSpan(error._tag === "Some" ? Exit.fail(error.value) : Exit.succeed(result))
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
  concurrency: number | "unbounded"
): Effect.Effect<Array<ToolResult>, never, any> =>
  Effect.suspend(() => {
    const read: Array<ToolCall.ToolCall> = []
    let complete = true
    if (calls !== null && calls !== undefined) {
      try {
        for (const call of calls) read.push(call)
      } catch {
        complete = false
      }
    }
    const results = Effect.forEach(read, (call) => dispatch(registry, call, limits), { concurrency })
    if (complete) return results
    return Effect.flatMap(results, (results) =>
      Effect.withFiber((fiber) => {
        const rest = new Call(registry, unreadableRest, limits, fiber.context)
        results.push(rest.fail(undefined, ToolExecutionError.invalidArgs(unreadableRestMessage)))
        return Effect.succeed(results)
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

/** Steps 1 to 3: look up, parse, decode. */
const run = (self: Call): Effect.Effect<ToolResult, never, any> => {
  const plan = self.registry.byName.get(self.name)
  const parsed = parseArguments(self.args, self.limits.arguments)
  self.args = parsed.value
  if (plan === undefined) return Effect.succeed(self.fail(undefined, notFound(self.registry, self.name)))
  if (Result.isFailure(parsed.result)) {
    const failure = parsed.result.failure
    const message = failure._tag === "NotAnObject"
      ? "tool arguments must be a JSON object"
      : `failed to parse tool arguments: ${failure.reason}`
    return Effect.succeed(self.fail(plan, ToolExecutionError.invalidArgs(message)))
  }
  const decoded = plan.decode(parsed.result.success)
  // A successful synchronous parse answers with an Exit: no extra step for it.
  return Exit.isExit(decoded)
    ? runTool(self, plan, decoded as Exit.Exit<unknown, SchemaIssue.Issue | ToolExecutionError.ToolExecutionError>)
    : Effect.flatMap(Effect.exit(decoded), (exit) => runTool(self, plan, exit))
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
const runTool = (
  self: Call,
  plan: Plan,
  decoded: Exit.Exit<unknown, SchemaIssue.Issue | ToolExecutionError.ToolExecutionError>
): Effect.Effect<ToolResult, never, any> => {
  if (Exit.isFailure(decoded)) {
    const issue = Cause.findErrorOption(decoded.cause)
    const error = Option.isSome(issue)
      ? ToolExecutionError.isToolExecutionError(issue.value)
        ? issue.value
        : ToolExecutionError.invalidArgs(`tool arguments did not match the schema:\n${formatIssues(issue.value)}`)
      : ToolExecutionError.makeSafe(
        "other",
        "decoding the tool arguments failed unexpectedly",
        Cause.squash(decoded.cause)
      )
    return Effect.succeed(self.fail(plan, error))
  }
  let program: Effect.Effect<unknown, unknown, any>
  let returned: "effect" | "success" | "failure" | "other"
  let settled: unknown
  try {
    program = plan.tool.call(decoded.value as never)
    // Telling what came back reads it (`in` checks, an Exit's fields): a proxy's traps may throw there too.
    if (!Effect.isEffect(program)) returned = "other"
    else if (!Exit.isExit(program)) returned = "effect"
    else if (Exit.isSuccess(program)) {
      returned = "success"
      settled = program.value
    } else {
      returned = "failure"
      settled = program.cause
    }
  } catch (defect) {
    // A `call` that throws before it returns an Effect is a defect like any other.
    return Effect.succeed(self.fail(plan, defectError(defect)))
  }
  // A tool that answered with an Exit (`Effect.succeed`, `Effect.fail`) has already finished: nothing runs, so there
  // is no context to provide, no timeout to arm and no metadata to keep.
  switch (returned) {
    case "success":
      return Effect.succeed(succeeded(self, plan, settled, undefined))
    case "failure":
      return Effect.succeed(failed(self, plan, settled as Cause.Cause<unknown>, undefined))
    case "other":
      // A runtime-built or JavaScript tool can return anything, a Promise say: that is a defect, not a dead dispatch.
      return Effect.succeed(self.fail(plan, defectError(new TypeError("the tool's call did not return an Effect"))))
  }
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
  if (plan.timeoutMs !== undefined) {
    const timeoutMs = plan.timeoutMs
    program = Effect.flatMap(
      Effect.timeoutOption(program, timeoutMs),
      (option) => Option.isSome(option) ? Effect.succeed(option.value) : Effect.fail(new TimedOut({ timeoutMs }))
    )
  }
  return Effect.matchCause(program, {
    onFailure: (cause) => failed(self, plan, cause, context),
    onSuccess: (value) => succeeded(self, plan, value, context)
  })
}

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
    const completed = Option.isSome(failure) && !(failure.value instanceof TimedOut)
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
