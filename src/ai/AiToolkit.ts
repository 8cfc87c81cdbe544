/**
 * The bridge between our tools and effect/ai, both ways.
 *
 * - {@link fromToolSet}: a tool set (or the dispatch service of `ToolSet.toLayer`) as an effect/ai toolkit with its
 *   handlers, ready for `LanguageModel.generateText({ prompt, toolkit })` with any effect/ai provider. Every call the
 *   model makes runs through our dispatch: our validation and `invalid_args` text, limits, redaction, telemetry.
 *   Failures are results the model sees, never a failure of `generateText`; rich outputs (images, files) reach the
 *   model as effect/ai's model-output parts.
 * - {@link toToolSet}: an effect/ai toolkit and its handlers as one of our tool sets, so that effect/ai tools get our
 *   dispatch, limits, redaction, telemetry, provider adapters and MCP server.
 *
 * @since 0.1.0
 */
import {
  Context,
  Data,
  Effect,
  type JsonSchema,
  Layer,
  Option,
  Predicate,
  Result,
  Schema,
  SchemaAST,
  SchemaTransformation,
  type Scope,
  Stream
} from "effect"
import { Prompt, Tool as AiTool, Toolkit } from "effect/ai"
import * as SchemaIssue from "effect/SchemaIssue"
import * as DynamicTool from "../DynamicTool.ts"
import { bounded } from "../internal/issues.ts"
import * as Tool from "../Tool.ts"
import type * as ToolCall from "../ToolCall.ts"
import { ToolContext } from "../ToolContext.ts"
import type * as ToolDefinition from "../ToolDefinition.ts"
import type * as ToolExecutionError from "../ToolExecutionError.ts"
import * as ToolOutput from "../ToolOutput.ts"
import type { ToolResult } from "../ToolResult.ts"
import * as ToolSet from "../ToolSet.ts"
import { outcomesOf } from "./internal/failures.ts"
import {
  emptySuccessText,
  failureParts,
  jsonOf,
  modelParts,
  outputOfParts,
  visibleParts
} from "./internal/modelOutput.ts"
import { textPart } from "./internal/promptParts.ts"

const TypeId = "~effect-llm-tools/AiToolkit" as const

// ---------------------------------------------------------------------------
// Schemas of a bridged tool
// ---------------------------------------------------------------------------

const decodeOutput = (encoded: unknown): Effect.Effect<ToolOutput.ToolOutput, SchemaIssue.Issue> => {
  if (typeof encoded === "string") return Effect.succeed(ToolOutput.text(encoded))
  const output = ToolOutput.fromReturn(encoded)
  return Result.isSuccess(output)
    ? Effect.succeed(output.success)
    : Effect.fail(new SchemaIssue.InvalidValue({ message: "Expected a JSON value" }))
}

/**
 * The success Schema of a bridged tool. Its type is our `ToolOutput`: what the application reads as the `result` of
 * a successful tool-result part. It encodes to the output's JSON form, the `result` the transcript keeps: a lone text
 * as its string, a lone JSON value as that value, anything richer as the text a provider that takes only text shows
 * (the model itself is shown the output's parts, see {@link fromToolSet}). Decoding takes a string as a text output
 * and any other JSON as a JSON output.
 *
 * @category schemas
 */
export const OutputSchema: Schema.decodeTo<Schema.instanceOf<ToolOutput.ToolOutput>, Schema.Unknown> = Schema.Unknown
  .pipe(
    Schema.decodeTo(
      Schema.instanceOf(ToolOutput.ToolOutput),
      SchemaTransformation.transformEffect({
        decode: decodeOutput,
        encode: (output) => Effect.succeed(jsonOf(output))
      })
    )
  )

/**
 * The configuration of every bridged tool: the JSON Schema of our definition as its parameters (effect/ai leaves them
 * to our dispatch to check), our output as its success, the text the model is shown of a failed call as its failure,
 * and failure mode `"return"`: a failed call is a result the model sees.
 *
 * @category models
 */
export interface BridgedConfig {
  readonly parameters: JsonSchema.JsonSchema
  readonly success: typeof OutputSchema
  readonly failure: typeof Schema.String
  readonly failureMode: "return"
}

/**
 * The effect/ai tool one of our tools becomes: a dynamic tool named as ours, needing `R` (the tool's inbound
 * services) from whoever calls `generateText`.
 *
 * @category models
 */
export interface BridgedTool<Name extends string, R> extends AiTool.Dynamic<Name, BridgedConfig, R> {}

/**
 * The effect/ai tools of a tool set of tools `T`, by name.
 *
 * @category models
 */
export type ToolsOf<T extends Tool.Any> = {
  readonly [K in T as K["name"]]: BridgedTool<K["name"], Tool.Requirements<K>>
}

/**
 * An effect/ai toolkit with its handlers, made of our tools: pass it as the `toolkit` of `LanguageModel.generateText`
 * or `streamText`. It is also the effect/ai `Toolkit` of the same tools and a layer of their handlers, to merge with
 * effect/ai tools of your own (`Toolkit.merge(bridged.toolkit, Mine)` with `Layer.merge(bridged.handlers, MineLive)`),
 * where the calls of our tools still run through our dispatch.
 *
 * @category models
 */
export interface AiToolkit<in out Tools extends Record<string, AiTool.Any>> extends Toolkit.WithHandler<Tools> {
  readonly [TypeId]: typeof TypeId
  /** The effect/ai `Toolkit` of the same tools, to merge with other toolkits. */
  readonly toolkit: Toolkit.Toolkit<Tools>
  /** Handlers of {@link toolkit} that run every call through our dispatch. */
  readonly handlers: Layer.Layer<AiTool.HandlersFor<Tools>>
}

/**
 * True for a toolkit made by {@link fromToolSet}.
 *
 * @category guards
 */
export const isAiToolkit = (u: unknown): u is AiToolkit<Record<string, AiTool.Any>> => Predicate.hasProperty(u, TypeId)

// ---------------------------------------------------------------------------
// Ours → effect/ai
// ---------------------------------------------------------------------------

/** Our tool's hints as effect/ai's annotations: only those it sets, since effect/ai defaults some to `true`. */
const annotationsOf = (annotations: ToolDefinition.ToolDefinition["annotations"]): Context.Context<never> => {
  let context = Context.empty() as Context.Context<unknown>
  if (annotations.title !== undefined) context = Context.add(context, AiTool.Title, annotations.title)
  if (annotations.readOnly !== undefined) context = Context.add(context, AiTool.Readonly, annotations.readOnly)
  if (annotations.destructive !== undefined) context = Context.add(context, AiTool.Destructive, annotations.destructive)
  if (annotations.idempotent !== undefined) context = Context.add(context, AiTool.Idempotent, annotations.idempotent)
  if (annotations.openWorld !== undefined) context = Context.add(context, AiTool.OpenWorld, annotations.openWorld)
  if (annotations.strict !== undefined) context = Context.add(context, AiTool.Strict, annotations.strict)
  return context as Context.Context<never>
}

/**
 * A definition as an effect/ai tool. A tool that needs a human's approval for every call (`needsApproval`) asks for
 * it through effect/ai's own approval flow: `generateText` answers its calls with approval requests.
 */
const aiToolOf = (definition: ToolDefinition.ToolDefinition): AiTool.Any => {
  const tool = AiTool.dynamic(definition.name, {
    description: definition.description,
    parameters: definition.parameters as JsonSchema.JsonSchema,
    success: OutputSchema,
    failure: Schema.String,
    failureMode: "return",
    toModelOutput: modelParts,
    ...(definition.annotations.needsApproval === true ? { needsApproval: true } : {})
  })
  return tool.annotateMerge(annotationsOf(definition.annotations)) as unknown as AiTool.Any
}

/** What effect/ai's `handle` streams for one result of ours: a single final result. */
const handlerResultOf = (result: ToolResult): AiTool.HandlerResult<AiTool.Any> => {
  if (result.status === "success") {
    const visible = visibleParts(result.output)
    // Nothing to show is shown as our adapters show it, in the parts and in the encoded result alike.
    const empty = visible.length === 0
    const parts = empty ? [textPart(emptySuccessText)] : visible
    return {
      result: result.output,
      encodedResult: empty ? emptySuccessText : jsonOf(result.output, parts),
      modelOutput: parts,
      isFailure: false,
      preliminary: false
    }
  }
  const parts = failureParts(result)
  const text = Prompt.toolModelOutputToText(parts)
  return {
    result: text,
    encodedResult: text,
    modelOutput: parts,
    isFailure: true,
    failureOrigin: Option.isSome(result.error) && result.error.value.kind === "invalid_args" ? "parameters" : "handler",
    preliminary: false
  }
}

type Execute = (call: ToolCall.ToolCall) => Effect.Effect<ToolResult, never, unknown>

const bridge = (
  definitions: ReadonlyArray<ToolDefinition.ToolDefinition>,
  execute: Execute
): AiToolkit<Record<string, AiTool.Any>> => {
  const toolkit = Toolkit.make(...definitions.map(aiToolOf)) as unknown as Toolkit.Toolkit<Record<string, AiTool.Any>>
  const handler = (name: string) => (params: unknown, context: { readonly toolCallId?: string | undefined }) =>
    Effect.flatMap(
      execute({ id: context.toolCallId ?? "", name, arguments: params }),
      (result) =>
        result.status === "success"
          ? Effect.succeed(result.output)
          : Effect.fail(Prompt.toolModelOutputToText(failureParts(result)))
    )
  const handlers = toolkit.toLayer(
    Object.fromEntries(definitions.map((definition) => [definition.name, handler(definition.name)])) as never
  ) as unknown as AiToolkit<Record<string, AiTool.Any>>["handlers"]
  return {
    [TypeId]: TypeId,
    tools: toolkit.tools,
    toolkit,
    handlers,
    // effect/ai's own `handle` forks a fiber and fills a queue per call, for handlers that stream preliminary
    // results; ours never do, so each call is one dispatch and one final result. An unknown name is our `not_found`
    // result, like any other failure.
    handle: ((name: string, params: unknown, toolCallId?: string) =>
      Effect.map(
        execute({ id: toolCallId ?? "", name, arguments: params }),
        (result) => Stream.succeed(handlerResultOf(result))
      )) as unknown as Toolkit.WithHandler<Record<string, AiTool.Any>>["handle"]
  }
}

const isService = (u: unknown): u is ToolSet.Service<unknown> =>
  Predicate.hasProperty(u, "execute") && typeof u.execute === "function" &&
  Predicate.hasProperty(u, "definitions") && Array.isArray(u.definitions)

/**
 * An effect/ai toolkit with its handlers, made of a tool set: each tool becomes a dynamic effect/ai tool with our
 * JSON Schema as its parameters, and each call the model makes runs through our dispatch (`ToolSet.execute`, with
 * `options` as its limits).
 *
 * - A successful result's output reaches the model as effect/ai's model-output parts (`toModelOutput`): text and
 *   JSON as text, images, audio and files as file parts (inline as base64, or by URL), resource links as text. Blank
 *   text is left out, and an output with nothing left (an empty string, say) is shown as `(empty result)`, as our
 *   provider adapters send it. The application reads our `ToolOutput` as the part's `result`.
 * - A failed call is a failure result the model sees, never a failure of `generateText`. It is shown what our
 *   provider adapters show: the words for its status (`Tool call failed (invalid_args): `, `Tool call denied: `),
 *   then our error's model-visible output (our `invalid_args` message for bad arguments, the safe default of a
 *   failure the tool did not mean the model to see), or those words alone when it has nothing to show; its `result`
 *   is the same, as text.
 * - The tools' inbound services are the toolkit's requirements: `generateText` needs them, and the services of the
 *   program that calls it reach the tools. Given the dispatch service of `ToolSet.toLayer`, the toolkit needs its
 *   per-call values only, the rest having been captured when the layer was built.
 * - A tool annotated `needsApproval` goes through effect/ai's approval flow.
 *
 * effect/ai refuses a whole response that calls a tool the toolkit does not declare (an `AiError` with
 * `InvalidOutputError`, before any tool runs): to answer such calls with our `not_found` result instead, ask with
 * `disableToolCallResolution: true` and `toolCallValidation: "deferred"` and execute the calls with
 * `ToolSet.executeAll`, as `ToolLoop` does.
 *
 * Throws a `TypeError` when given neither a tool set nor a tool set's dispatch service.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import { Tool, ToolSet } from "effect-llm-tools"
 * import { AiToolkit } from "effect-llm-tools/ai"
 *
 * const Add = Tool.make("add", {
 *   description: "Add two integers",
 *   parameters: Schema.Struct({ left: Schema.Int, right: Schema.Int }),
 *   call: ({ left, right }) => Effect.succeed(left + right)
 * })
 *
 * const toolkit = AiToolkit.fromToolSet(ToolSet.make(Add))
 *
 * // Effect<GenerateTextResponse<…>, AiError, LanguageModel>: any effect/ai provider layer runs it.
 * const answer = LanguageModel.generateText({ prompt: "What is 2 + 3?", toolkit })
 * ```
 *
 * @category constructors
 */
export const fromToolSet: {
  <T extends Tool.Any>(set: ToolSet.ToolSet<T>, options?: ToolSet.ExecuteOptions): AiToolkit<ToolsOf<T>>
  <PerCall>(
    service: ToolSet.Service<PerCall>,
    options?: ToolSet.ExecuteOptions
  ): AiToolkit<Record<string, BridgedTool<string, PerCall>>>
} = (source: unknown, options?: ToolSet.ExecuteOptions): any => {
  if (ToolSet.isToolSet(source)) {
    return bridge(ToolSet.definitions(source), (call) => ToolSet.execute(source, call, options))
  }
  if (isService(source)) return bridge(source.definitions, (call) => source.execute(call, options))
  throw new TypeError(
    "AiToolkit.fromToolSet takes a ToolSet (ToolSet.make) or the dispatch service of ToolSet.toLayer"
  )
}

// ---------------------------------------------------------------------------
// effect/ai → ours
// ---------------------------------------------------------------------------

/**
 * An effect/ai tool could not become one of ours: its name is not a valid tool name, its parameters are not a
 * Schema or JSON Schema of an object, or the handlers give it no handler. It names the tool and says why.
 *
 * @category errors
 */
export class ConversionError extends Data.TaggedError("AiToolkitConversionError")<{
  /** The tool's name, cut to its first 64 characters. */
  readonly toolName: string
  readonly message: string
}> {}

/**
 * Our tool made of an effect/ai tool: its name, its parameters (decoded as effect/ai would, checked by our dispatch),
 * and the request-level services it declares (`Tool.addDependency`) as its requirements.
 *
 * @category models
 */
export type FromAiTool<T> = T extends AiTool.Any ? Tool.Tool<
    AiTool.Name<T>,
    AiTool.Parameters<T>,
    unknown,
    ToolExecutionError.ToolExecutionError,
    AiTool.Requirements<T>
  >
  : never

/**
 * Our tools made of an effect/ai toolkit's tools. Provider-defined tools are left out: the provider runs them.
 *
 * @category models
 */
export type FromAiTools<Tools extends Record<string, AiTool.Any>> = {
  [K in keyof Tools]: Tools[K] extends AiTool.AnyProviderDefined ? never : FromAiTool<Tools[K]>
}[keyof Tools]

/** The services the Schemas of a toolkit's tools need to decode parameters and encode results. */
type SchemaServices<Tools extends Record<string, AiTool.Any>> =
  | AiTool.ParametersDecodingServices<Tools[keyof Tools]>
  | AiTool.ResultEncodingServices<Tools[keyof Tools]>

/**
 * Our dispatch decodes arguments with no services at hand: for a toolkit whose Schemas need some, this type makes
 * {@link toToolSet} fail to compile, naming them.
 *
 * @category models
 */
export type ServiceFreeSchemas<Tools extends Record<string, AiTool.Any>> = [SchemaServices<Tools>] extends [never]
  ? unknown
  : { readonly "the tools' Schemas must need no services; they need": SchemaServices<Tools> }

const has = (context: Context.Context<unknown>, key: Context.Key<any, any>): boolean => context.mapUnsafe.has(key.key)

/** effect/ai's annotations as our hints: only those the tool sets (effect/ai's defaults are not ours). */
const hintsOf = (tool: AiTool.Any): Tool.Annotations => {
  const annotations = tool.annotations as Context.Context<unknown>
  const hints: { -readonly [K in keyof Tool.Annotations]: Tool.Annotations[K] } = {}
  if (has(annotations, AiTool.Title)) hints.title = Context.get(annotations, AiTool.Title)
  if (has(annotations, AiTool.Readonly)) hints.readOnly = Context.get(annotations, AiTool.Readonly)
  if (has(annotations, AiTool.Destructive)) hints.destructive = Context.get(annotations, AiTool.Destructive)
  if (has(annotations, AiTool.Idempotent)) hints.idempotent = Context.get(annotations, AiTool.Idempotent)
  if (has(annotations, AiTool.OpenWorld)) hints.openWorld = Context.get(annotations, AiTool.OpenWorld)
  const strict = AiTool.getStrictMode(tool)
  if (strict !== undefined) hints.strict = strict
  // An approval decided per call by a function cannot be told in advance: every call asks, the cautious reading.
  if (tool.needsApproval !== undefined && tool.needsApproval !== false) hints.needsApproval = true
  return hints
}

/**
 * What a handler's success shows the model: the parts of the tool's `toModelOutput` when it has one (as effect/ai
 * would), its encoded result otherwise. Returned to dispatch, which converts it as any tool's return value.
 */
const successOf = (
  tool: AiTool.Any,
  encode: (value: unknown) => Effect.Effect<unknown, ToolExecutionError.ToolExecutionError>
) =>
(value: unknown): Effect.Effect<unknown, ToolExecutionError.ToolExecutionError> => {
  const toModelOutput = tool.toModelOutput
  if (toModelOutput !== undefined) {
    const output = outputOfParts(toModelOutput(value))
    if (Option.isSome(output)) return Effect.succeed(output.value)
  }
  // effect/ai's default success is `Schema.Void`: nothing, which JSON says as `null`.
  return Effect.map(encode(value), (encoded) => encoded === undefined ? null : encoded)
}

/** A Schema that an object can be the encoding of: a struct, a record, a union of them, or any value at all. */
const isObjectAst = (ast: SchemaAST.AST): boolean => {
  switch (ast._tag) {
    case "Objects":
    case "Unknown":
    case "Any":
      return true
    case "Union":
      return ast.types.every(isObjectAst)
    default:
      return false
  }
}

const conversionError = (tool: AiTool.Any, reason: string): ConversionError => {
  const toolName = bounded(String(tool.name))
  return new ConversionError({ toolName, message: `effect/ai tool \`${toolName}\` cannot run here: ${reason}` })
}

/** One effect/ai tool and its handler as our tool, or why it cannot be one. */
const toolOf = (tool: AiTool.Any, handler: AiTool.Handler<string>): Result.Result<Tool.Any, ConversionError> => {
  const outcomes = outcomesOf(tool)
  const succeed = successOf(tool, outcomes.success)
  const failWith = (error: unknown) => Effect.flatMap(outcomes.failure(error), Effect.fail)
  const call = (args: unknown) =>
    Effect.flatMap(ToolContext, (context) =>
      handler.handler(args, { toolCallId: context.callId, preliminary: () => Effect.void }).pipe(
        // As effect/ai's own `handle` runs it: in the caller's context over the one its handlers were built in.
        Effect.updateContext((input: Context.Context<never>) => Context.merge(handler.context, input)),
        Effect.matchEffect({ onFailure: failWith, onSuccess: succeed })
      ))
  const description = AiTool.getDescription(tool) ?? ""
  const annotations = hintsOf(tool)
  const dynamic = AiTool.isDynamic(tool) && tool.jsonSchema !== undefined
  // Arguments arrive as a JSON object: a tool of any other parameters could never be called. (A JSON Schema's own
  // checks are `DynamicTool.make`'s.)
  if (!dynamic && !isObjectAst(SchemaAST.toEncoded(tool.parametersSchema.ast))) {
    return Result.fail(conversionError(tool, "its parameters are not a Schema of an object"))
  }
  try {
    const made = dynamic
      ? DynamicTool.make(tool.name, {
        description,
        parameters: tool.jsonSchema as DynamicTool.JsonSchema,
        annotations,
        call
      })
      : Tool.make(tool.name, {
        description,
        parameters: tool.parametersSchema as Tool.AnySchema as Schema.Struct<{}>,
        annotations,
        call
      })
    return Result.succeed(made as Tool.Any)
  } catch (cause) {
    return Result.fail(conversionError(tool, cause instanceof Error ? cause.message : String(cause)))
  }
}

/**
 * Our tools made of an effect/ai toolkit, with the handlers of a built handlers layer.
 */
const convert = (
  tools: Record<string, AiTool.Any>,
  context: Context.Context<never>
): Effect.Effect<ToolSet.ToolSet<Tool.Any>, ConversionError> => {
  const converted: Array<Tool.Any> = []
  for (const tool of Object.values(tools)) {
    // A provider-defined tool is run by the provider, and has nothing for our dispatch to run.
    if (AiTool.isProviderDefined(tool)) continue
    const handler = context.mapUnsafe.get(tool.id) as AiTool.Handler<string> | undefined
    if (handler === undefined) return Effect.fail(conversionError(tool, "the handlers layer has no handler for it"))
    const made = toolOf(tool, handler)
    if (Result.isFailure(made)) return Effect.fail(made.failure)
    converted.push(made.success)
  }
  return Effect.succeed(ToolSet.make(...converted))
}

/**
 * One of our tool sets made of an effect/ai toolkit and the layer of its handlers (`toolkit.toLayer(…)`): each tool
 * becomes ours, and runs through our dispatch.
 *
 * - Its parameters Schema (or the JSON Schema of a dynamic tool) becomes ours: our dispatch checks the arguments, and
 *   our definitions and provider adapters describe them. Its description and hints (title, read-only, destructive,
 *   idempotent, open world, strict, needs approval) carry over.
 * - A call runs the tool's handler, as effect/ai would: in the caller's context over the one the handlers layer was
 *   built in. A success shows the model the parts of the tool's `toModelOutput`, or its result encoded with its
 *   success Schema. A failure folds into our `ToolExecutionError`: effect/ai's errors by their reason (a rate limit is
 *   `rate_limited`, a network error `network`, …), a declared failure of a tool in failure mode `"return"` with its
 *   encoding as what the model sees, any other with the kind's safe default.
 * - The request-level services a tool declares (`Tool.addDependency`) are the requirements of our tool.
 * - Provider-defined tools are left out: the provider runs them.
 *
 * The handlers layer is built in the current scope, which keeps what it acquired until the scope closes. Fails with
 * {@link ConversionError} for a tool that cannot become ours (see there), and with the layer's error.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Prompt, Tool as AiTool, Toolkit } from "effect/ai"
 * import { ToolCall, ToolSet } from "effect-llm-tools"
 * import { AiToolkit } from "effect-llm-tools/ai"
 *
 * const GetWeather = AiTool.make("get_weather", {
 *   description: "The weather in a city",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   success: Schema.Struct({ celsius: Schema.Number })
 * })
 * const Weather = Toolkit.make(GetWeather)
 * const WeatherLive = Weather.toLayer({ get_weather: () => Effect.succeed({ celsius: 21 }) })
 *
 * const program = Effect.gen(function*() {
 *   const set = yield* AiToolkit.toToolSet(Weather, WeatherLive)
 *   const call = ToolCall.make({ id: "1", name: "get_weather", arguments: "{\"city\":\"Oslo\"}" })
 *   return yield* ToolSet.execute(set, call)
 * }).pipe(Effect.scoped)
 * ```
 *
 * @category constructors
 */
export const toToolSet = <Tools extends Record<string, AiTool.Any>, EX = never, RX = never>(
  toolkit: Toolkit.Toolkit<Tools> & ServiceFreeSchemas<Tools>,
  handlers: Layer.Layer<AiTool.HandlersFor<Tools>, EX, RX>
): Effect.Effect<ToolSet.ToolSet<FromAiTools<Tools>>, EX | ConversionError, RX | Scope.Scope> =>
  Effect.flatMap(
    Layer.build(handlers),
    (context) => convert(toolkit.tools, context as Context.Context<never>)
  ) as Effect.Effect<ToolSet.ToolSet<FromAiTools<Tools>>, EX | ConversionError, RX | Scope.Scope>
