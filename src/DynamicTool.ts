/**
 * Tools defined at run time: from an MCP server's tool list, a plugin, a user's configuration. Their arguments are
 * described by a JSON Schema, not by a Schema written in advance, and checked against it by a compiled validator.
 * They are `Tool`s like any other: they go into `ToolSet.make`, through the same dispatch, and give the same results,
 * telemetry and provider definitions.
 *
 * A portable tool needs nothing from whoever runs it (no services, no `ToolContext`), and carries a serializable
 * {@link Spec}: it can run in any set, in a server, behind MCP.
 *
 * @since 0.1.0
 */
import type { Effect } from "effect"
import { Context, Predicate, Schema } from "effect"
import * as Tool from "./Tool.ts"
import type { ToolContext } from "./ToolContext.ts"
import type * as ToolExecutionError from "./ToolExecutionError.ts"
import { bounded } from "./internal/issues.ts"
import { deepFreeze } from "./internal/json.ts"
import { checkSchema, type SchemaField } from "./internal/jsonSchemaValidator.ts"

/**
 * What a runtime tool's `call` receives: the arguments, a JSON object that its `parameters` JSON Schema accepted,
 * every key included, frozen.
 *
 * @category models
 */
export type Arguments = Schema.JsonObject

/**
 * A JSON Schema as a runtime tool is made with: a JSON object, draft-06, draft-07, 2019-09 or 2020-12 (its
 * `$schema` decides; without one, 2020-12).
 *
 * @category models
 */
export type JsonSchema = { readonly [key: string]: unknown }

/**
 * The fields of {@link make}: a tool's definition in JSON Schema, and its `call`.
 *
 * @category models
 */
export interface Options<E, R> {
  readonly description: string
  /** The arguments: a JSON Schema of an object. Unknown keys are allowed or refused by its `additionalProperties`. */
  readonly parameters: JsonSchema
  /** The output: with it, a JSON output is checked against it, and the definition has `outputSchema`. */
  readonly outputSchema?: JsonSchema | undefined
  /** The same annotations as `Tool.make`, `timeout` included. */
  readonly annotations?: Tool.Annotations | undefined
  readonly call: (args: Arguments) => Effect.Effect<unknown, E, R>
}

/**
 * The fields of {@link portable}: those of {@link make}, with a `call` that needs nothing and fails only with a
 * `ToolExecutionError`, so that its failures mean the same wherever it runs.
 *
 * @category models
 */
export interface PortableOptions extends Omit<Options<never, never>, "call"> {
  readonly call: (args: Arguments) => Effect.Effect<unknown, ToolExecutionError.ToolExecutionError>
}

/**
 * The serializable description of a portable tool: its name, description, JSON Schemas (as its definition has them:
 * the parameters with an object at the top, in 2020-12) and annotations, the timeout as a `Duration`. Encode it with
 * `Schema.toCodecJson(DynamicTool.Spec)`: the timeout becomes Effect's JSON form of a duration
 * (`{ "_tag": "Millis", "value": 5000 }`, or `{ "_tag": "Infinity" }`), exact and readable back.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { DynamicTool } from "effect-llm-tools"
 *
 * const Echo = DynamicTool.portable("echo", {
 *   description: "Echo the text back",
 *   parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
 *   annotations: { timeout: "5 seconds" },
 *   call: (args) => Effect.succeed(args.text)
 * })
 * const codec = Schema.toCodecJson(DynamicTool.Spec)
 * const json = Schema.encodeSync(codec)(Echo.spec)
 * const back = Schema.decodeUnknownSync(codec)(JSON.parse(JSON.stringify(json)))
 * ```
 *
 * @category schemas
 */
export const Spec = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  parameters: Schema.JsonObject,
  outputSchema: Schema.optionalKey(Schema.JsonObject),
  annotations: Schema.Struct({
    title: Schema.optionalKey(Schema.String),
    readOnly: Schema.optionalKey(Schema.Boolean),
    destructive: Schema.optionalKey(Schema.Boolean),
    idempotent: Schema.optionalKey(Schema.Boolean),
    openWorld: Schema.optionalKey(Schema.Boolean),
    strict: Schema.optionalKey(Schema.Boolean),
    timeout: Schema.optionalKey(Schema.Duration),
    needsApproval: Schema.optionalKey(Schema.Boolean),
    concurrency: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)))
  })
})

type SpecType = typeof Spec.Type

/**
 * The type of {@link Spec}.
 *
 * @category models
 */
export interface Spec extends SpecType {}

/**
 * A tool that needs nothing from whoever runs it: no services, and no `ToolContext` (its `call` runs without one).
 * Made by {@link portable}, or by `Tool.provide` with `{ portable: true }`.
 *
 * @category models
 */
export interface PortableTool<
  Name extends string = string,
  Params = Arguments,
  Output = unknown,
  Failure = ToolExecutionError.ToolExecutionError
> extends Tool.Tool<Name, Params, Output, Failure, never> {
  readonly [Tool.PortableTypeId]: Tool.PortableTypeId
  /** The tool's serializable description. */
  readonly spec: Spec
  /**
   * Needs nothing, not even a `ToolContext`, so it can also be run directly, by whatever forwards calls to it; only
   * dispatch checks the arguments first.
   */
  readonly call: (args: Params) => Effect.Effect<Output, Failure>
}

/**
 * Any portable tool.
 *
 * @category models
 */
export interface AnyPortable extends Tool.Any {
  readonly [Tool.PortableTypeId]: Tool.PortableTypeId
  readonly spec: Spec
}

/**
 * True for a portable tool.
 *
 * @category guards
 */
export const isPortable = (u: unknown): u is AnyPortable => Tool.isTool(u) && Predicate.hasProperty(u, Tool.PortableTypeId)

/**
 * True for a tool defined with a JSON Schema: by {@link make} or {@link portable}, or provided from one.
 *
 * @category guards
 */
export const isDynamic = (u: unknown): u is Tool.Any => Tool.isTool(u) && u.jsonSchemas !== undefined

/**
 * Defines a tool from a JSON Schema. Its arguments are the JSON object the model sent, checked against `parameters`
 * by a validator compiled on the tool's first call (once, then reused); the services `call` uses become its
 * requirement type, as for `Tool.make`.
 *
 * - Arguments are held to the same limits as any tool's (size, depth, a JSON object), then validated: a mismatch is
 *   `invalid_args`, one `- $.path: message` line per problem, never quoting a value that was sent. Every key
 *   reaches `call` (`__proto__` included, as an own key): the schema's `additionalProperties` decides which are
 *   allowed, and nothing is dropped.
 * - With `outputSchema`, a JSON output (anything but text or content blocks) is checked against it; a mismatch is
 *   `other`, with the paths for operators.
 * - A schema that only the compiler can find wrong (a local `$ref` that leads nowhere) fails each call with `other`,
 *   and says why to operators.
 *
 * The schemas are copied when the tool is made: changing the objects given afterwards changes nothing.
 *
 * Throws a `TypeError` naming the tool for a name `Tool.make` refuses, a timeout that is not a duration, and a
 * schema that is not a JSON object schema, breaks its meta-schema (draft-06, draft-07, 2019-09 or 2020-12, by its
 * `$schema`), or holds a reference outside itself (a schema is never fetched).
 *
 * @example
 * ```ts
 * import { Context, Effect } from "effect"
 * import { DynamicTool } from "effect-llm-tools"
 *
 * class DocsIndex extends Context.Service<DocsIndex, {
 *   readonly search: (query: string, limit: number) => Effect.Effect<ReadonlyArray<string>>
 * }>()("app/DocsIndex") {}
 *
 * // Tool<"search_docs", DynamicTool.Arguments, unknown, never, DocsIndex>
 * const SearchDocs = DynamicTool.make("search_docs", {
 *   description: "Search the product docs",
 *   parameters: {
 *     type: "object",
 *     properties: { query: { type: "string", minLength: 1 }, limit: { type: "integer", minimum: 1, maximum: 20 } },
 *     required: ["query"],
 *     additionalProperties: false
 *   },
 *   call: (args) =>
 *     Effect.gen(function*() {
 *       const index = yield* DocsIndex
 *       return { hits: yield* index.search(args.query as string, (args.limit as number | undefined) ?? 5) }
 *     })
 * })
 * ```
 *
 * @category constructors
 */
export const make = <const Name extends string, E = never, R = never>(
  name: Name,
  options: Options<E, R>
): Tool.Tool<Name, Arguments, unknown, E, Exclude<R, ToolContext>> => {
  // The name and annotation checks of every tool, first: the schema checks below name the tool.
  const tool = Tool.make(name, {
    description: options.description,
    // Dispatch never decodes with it. A record names no properties, so whatever reads a tool's parameters (the
    // ToolIndex) reads the JSON Schema of its definition instead.
    parameters: Schema.JsonObject,
    annotations: options.annotations,
    call: options.call
  })
  const parameters = frozenCopy(options.parameters, name, "parameters")
  const outputSchema = options.outputSchema === undefined
    ? undefined
    : frozenCopy(options.outputSchema, name, "outputSchema")
  // Set once, before anyone else sees the tool: `Tool.make` leaves it empty for the tools of Schemas.
  ;(tool as { jsonSchemas: Tool.JsonSchemas | undefined }).jsonSchemas = Object.freeze({ parameters, outputSchema })
  return tool as Tool.Tool<Name, Arguments, unknown, E, Exclude<R, ToolContext>>
}

/**
 * Defines a portable tool from a JSON Schema: like {@link make}, with a `call` that needs no services and fails
 * only with a `ToolExecutionError`. It runs without a `ToolContext`, and carries its {@link Spec}.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { DynamicTool, ToolExecutionError } from "effect-llm-tools"
 *
 * const Shout = DynamicTool.portable("shout", {
 *   description: "Upper-case a text",
 *   parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
 *   call: (args) =>
 *     typeof args.text === "string"
 *       ? Effect.succeed(args.text.toUpperCase())
 *       : Effect.fail(ToolExecutionError.invalidArgs("text must be a string"))
 * })
 * Shout.spec.parameters // the JSON Schema, as its definition has it
 * ```
 *
 * @category constructors
 */
export const portable = <const Name extends string>(name: Name, options: PortableOptions): PortableTool<Name> =>
  Tool.provide(make(name, options), Context.empty(), { portable: true })

/**
 * The portable tool a {@link Spec} describes, running `call`: the other side of sending a spec. The spec is checked
 * as {@link portable} checks its fields.
 *
 * @category constructors
 */
export const fromSpec = (spec: Spec, call: PortableOptions["call"]): PortableTool =>
  portable(spec.name, {
    description: spec.description,
    parameters: spec.parameters,
    outputSchema: spec.outputSchema,
    annotations: spec.annotations,
    call
  })

/**
 * A plain, deeply frozen copy of a schema, checked. The copy is what is checked and kept: a getter or a proxy in
 * what was given is read once, and nothing done to it later reaches the tool (validators are cached by schema
 * object, and must never see it change).
 */
const frozenCopy = (schema: unknown, toolName: string, field: SchemaField): Schema.JsonObject => {
  if (typeof schema !== "object" || schema === null) checkSchema(schema, toolName, field)
  let copy: unknown
  try {
    copy = structuredClone(schema)
  } catch (cause) {
    // A function or a symbol in it, say: the check of what was given names it, and where it is.
    checkSchema(schema, toolName, field)
    throw new TypeError(
      `tool \`${bounded(toolName)}\`: ${field} is not a usable JSON Schema: it cannot be copied: ` +
        bounded(cause instanceof Error ? cause.message : String(cause))
    )
  }
  checkSchema(copy, toolName, field)
  deepFreeze(copy)
  return copy as Schema.JsonObject
}
