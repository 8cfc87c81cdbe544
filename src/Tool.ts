/**
 * A tool is a typed `Effect` program with one `call`. Its arguments, output and errors are Schemas; its requirement
 * type is the typed inbound context of the call, which flows to whoever executes it.
 *
 * @since 0.1.0
 */
import type { Schema } from "effect"
import { Context, Duration, Effect, Exit, Option, Predicate } from "effect"
import { dual } from "effect/Function"
import { type Pipeable, pipeArguments } from "effect/Pipeable"
import type { PortableTool, Spec } from "./DynamicTool.ts"
import * as ToolDefinition from "./ToolDefinition.ts"
import { type MissingToolContext, ToolContext } from "./ToolContext.ts"
import * as ToolExecutionError from "./ToolExecutionError.ts"
import { bounded } from "./internal/issues.ts"
import { toJsonSchemaKept } from "./internal/jsonSchema.ts"
import { isPositiveInteger } from "./internal/limiter.ts"

const TypeId = "~effect-llm-tools/Tool" as const

/**
 * Hints for hosts and providers; all optional.
 *
 * @category models
 */
export interface Annotations {
  /** A human-readable title. */
  readonly title?: string | undefined
  /** The tool does not change its environment. */
  readonly readOnly?: boolean | undefined
  /** The tool may make changes that cannot be undone. */
  readonly destructive?: boolean | undefined
  /** Calling it again with the same arguments has no further effect. */
  readonly idempotent?: boolean | undefined
  /** The tool reaches outside the host (the web, third-party services). */
  readonly openWorld?: boolean | undefined
  /** Ask providers that support it (OpenAI) to hold the model to the schema exactly. */
  readonly strict?: boolean | undefined
  /**
   * Dispatch interrupts the call after this long and fails it with kind `timeout`. As with `Effect.timeout`, the
   * result waits for the interruption to finish, so the finalizers of the call's own scopes (its `Effect.scoped`,
   * `Effect.ensuring`, `Effect.onInterrupt`) have always run by then; a tool inside an uninterruptible region is
   * answered only when the region ends. A resource acquired into a `Scope` the tool requires (one left unclosed
   * in its requirements) belongs to whoever provides that scope, and lives as long as it: close a call's resources
   * with `Effect.scoped` inside the call.
   */
  readonly timeout?: Duration.Input | undefined
  /**
   * A human must approve each call before it runs: `ToolHooks.approval` asks for it (as it does for `destructive`
   * tools). A `ToolServer` without an approval hook denies its calls. A bare `ToolSet` has no hooks: `execute` runs
   * them as its caller asks, while the loop and the effect/ai bridge ask, or deny, themselves, and an MCP server
   * serving the set denies them.
   */
  readonly needsApproval?: boolean | undefined
  /**
   * The most calls of this tool that run at once, wherever it is executed (a `ToolSet`, a `ToolServer`); more wait
   * their turn. A whole number of one or more.
   */
  readonly concurrency?: number | undefined
}

/**
 * A Schema a tool can decode its arguments with, or encode its output with: no services needed.
 *
 * @category models
 */
export interface AnySchema extends Schema.Top {
  readonly DecodingServices: never
  readonly EncodingServices: never
}

/**
 * The JSON Schemas a tool defined at run time was made with (see `DynamicTool`): plain, frozen JSON. Dispatch checks
 * the arguments against `parameters` (and a JSON output against `outputSchema`) with a compiled JSON Schema
 * validator instead of the Schema codecs, passes every key on (the schema's `additionalProperties` decides which are
 * allowed, not `onExcessProperty`), and the definition carries these schemas as they are.
 *
 * @category models
 */
export interface JsonSchemas {
  readonly parameters: ToolDefinition.JsonSchema
  readonly outputSchema: ToolDefinition.JsonSchema | undefined
}

/**
 * A tool: its name (a literal type), description, Schemas and one `call`.
 *
 * - `Params`: the decoded arguments `call` receives.
 * - `Output`: what `call` returns (converted into the model-visible `ToolOutput` by dispatch).
 * - `Failure`: the typed errors of `call`, folded by `mapError`.
 * - `R`: the services `call` needs from its caller, the typed inbound context.
 *
 * @category models
 */
export interface Tool<out Name extends string, in out Params, out Output, in out Failure, out R> extends Pipeable {
  readonly [TypeId]: {
    readonly _Params: (_: Params) => Params
    readonly _Output: (_: never) => Output
    readonly _Failure: (_: never) => Failure
    readonly _R: (_: never) => R
  }
  readonly name: Name
  readonly description: string
  readonly parameters: AnySchema
  readonly success: AnySchema | undefined
  readonly failure: Schema.Top | undefined
  readonly annotations: Annotations
  /** What dispatch does with argument keys the `parameters` Schema does not know: drop them, or reject the call. */
  readonly onExcessProperty: "ignore" | "error"
  /** For a tool defined at run time, the JSON Schemas it was made with; `undefined` for a tool of `Tool.make`. */
  readonly jsonSchemas: JsonSchemas | undefined
  readonly call: (args: Params) => Effect.Effect<Output, Failure, R | ToolContext>
  /** Folds failures of `call` that are not already a `ToolExecutionError`. */
  readonly mapError: (error: Exclude<Failure, ToolExecutionError.ToolExecutionError>) => ToolExecutionError.ToolExecutionError
}

/**
 * Any tool: for the constraint of a generic (`<T extends Tool.Any>`), which keeps the tool's type. A value typed
 * `Tool.Any` itself is no particular tool: its {@link Requirements} are `never`, so a set made of an
 * `Array<Tool.Any>` executes without the services its tools need (see `ToolSet.Any`).
 *
 * @category models
 */
export interface Any extends Pipeable {
  readonly [TypeId]: unknown
  readonly name: string
  readonly description: string
  readonly parameters: AnySchema
  readonly success: AnySchema | undefined
  readonly failure: Schema.Top | undefined
  readonly annotations: Annotations
  readonly onExcessProperty: "ignore" | "error"
  readonly jsonSchemas: JsonSchemas | undefined
  // `never` inputs: the most general function types, which every tool's `call` and `mapError` are assignable to.
  readonly call: (args: never) => Effect.Effect<unknown, unknown, unknown>
  readonly mapError: (error: never) => ToolExecutionError.ToolExecutionError
}

/**
 * The name of a tool.
 *
 * @category models
 */
export type Name<T> = T extends Tool<infer N, infer _P, infer _O, infer _F, infer _R> ? N : never

/**
 * The decoded arguments of a tool.
 *
 * @category models
 */
export type Parameters<T> = T extends Tool<infer _N, infer P, infer _O, infer _F, infer _R> ? P : never

/**
 * What a tool's `call` returns.
 *
 * @category models
 */
export type Output<T> = T extends Tool<infer _N, infer _P, infer O, infer _F, infer _R> ? O : never

/**
 * The typed errors of a tool's `call`.
 *
 * @category models
 */
export type Failure<T> = T extends Tool<infer _N, infer _P, infer _O, infer F, infer _R> ? F : never

/**
 * The services a tool needs from whoever executes it.
 *
 * @category models
 */
export type Requirements<T> = T extends Tool<infer _N, infer _P, infer _O, infer _F, infer R> ? R : never

/**
 * True for a tool.
 *
 * @category guards
 */
export const isTool = (u: unknown): u is Any => Predicate.hasProperty(u, TypeId)

const maxNameLength = 128

const namePattern = /^[A-Za-z0-9_.:-]+$/

/**
 * True for a valid tool name: 1 to 128 characters from `A-Z`, `a-z`, `0-9`, `_`, `.`, `:` and `-` (the MCP rule
 * for tool names, with `:` for namespaces). `Tool.make` refuses any other name.
 *
 * @category guards
 */
export const isValidName = (name: unknown): name is string =>
  typeof name === "string" && name.length <= maxNameLength && namePattern.test(name)

const variance = {
  _Params: (_: unknown) => _,
  _Output: (_: never) => _,
  _Failure: (_: never) => _,
  _R: (_: never) => _
}

const Proto = {
  [TypeId]: variance,
  pipe() {
    return pipeArguments(this, arguments)
  }
}

/**
 * What the encoded side of a tool's `parameters` must be, besides an `object`: neither iterable (an array, a tuple, a
 * `Map`, a `Set`) nor convertible to a primitive (a `Date`). Such Schemas have object types in TypeScript but are
 * carried by JSON as arrays or strings, which a call's arguments (a JSON object) never decode to. Only symbol keys
 * are looked at, so every field name stays free.
 *
 * @category models
 */
export interface ObjectEncoded {
  readonly [Symbol.iterator]?: never
  readonly [Symbol.toPrimitive]?: never
}

/**
 * A Schema a tool's arguments can be decoded with, the constraint of {@link make}'s `parameters`: it needs no
 * services, and it encodes to an object (see {@link ObjectEncoded}). For any other Schema (a string, an array, a
 * union with either, a `Date`, a `Map`) `Tool.make` fails to compile on the `parameters` line. A helper that passes
 * its Schema on to `Tool.make` takes `<P extends Tool.ParametersSchema>` (see {@link make}).
 *
 * @category models
 */
export interface ParametersSchema extends AnySchema {
  readonly Encoded: object & ObjectEncoded
}

/**
 * What a Schema `P extends Tool.AnySchema` must also be to pass as a tool's `parameters`: a helper over any Schema
 * types its argument `P & Tool.ObjectParameters<P>`, which is a {@link ParametersSchema}. (Taking
 * `P extends Tool.ParametersSchema` says the same more simply.)
 *
 * @category models
 */
export type ObjectParameters<_P extends AnySchema> = { readonly Encoded: object & ObjectEncoded }

/**
 * What a tool's `call` may fail with when it declares a `failure` Schema: that Schema's type, or errors dispatch
 * handles itself (a `ToolExecutionError`, a `MissingToolContext`). Without a `failure` Schema, anything.
 *
 * @category models
 */
export type DeclaredFailure<F extends Schema.Top> = [F] extends [never] ? unknown
  : F["Type"] | ToolExecutionError.ToolExecutionError | MissingToolContext

/**
 * Defines a tool.
 *
 * @example
 * ```ts
 * import { Context, Effect, Schema } from "effect"
 * import { Tool, ToolContext } from "effect-llm-tools"
 *
 * class AuditRecord extends Context.Service<AuditRecord, number>()("app/AuditRecord") {}
 *
 * const Add = Tool.make("add", {
 *   description: "Add two integers",
 *   parameters: Schema.Struct({ left: Schema.Int, right: Schema.Int }),
 *   success: Schema.Struct({ value: Schema.Int }),
 *   call: Effect.fn("add")(function*({ left, right }) {
 *     const value = left + right
 *     yield* ToolContext.insertResult(AuditRecord, value)
 *     return { value }
 *   })
 * })
 * ```
 *
 * A helper that passes a Schema of its own on to `Tool.make` constrains it with {@link ParametersSchema}:
 * `P extends Tool.AnySchema` does not compile there, since it admits `Schema.String` too. One that builds a struct
 * takes fields of {@link AnySchema} (fields of `Schema.Struct.Fields` may need services, which dispatch cannot give):
 *
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Tool } from "effect-llm-tools"
 *
 * const echo = <const Name extends string, P extends Tool.ParametersSchema>(name: Name, parameters: P) =>
 *   Tool.make(name, {
 *     description: "Echo the arguments back",
 *     parameters,
 *     call: (args) => Effect.succeed(args)
 *   })
 *
 * const fromFields = <const Name extends string, F extends Record<string, Tool.AnySchema>>(name: Name, fields: F) =>
 *   echo(name, Schema.Struct(fields))
 *
 * const EchoText = fromFields("echo_text", { text: Schema.String })
 * ```
 *
 * Throws a `TypeError` when the name is not a valid tool name (see {@link isValidName}), when the `timeout`
 * annotation is not a duration, when the `concurrency` annotation is not a whole number of one or more, or when the
 * JSON Schema of `parameters` (the one the definition is made from) admits something other than an object at its
 * top: a `type` other than `"object"`, or a union with such a branch. That catches at once what the compiler cannot
 * see through a cast or a widened type (`Schema.Date`, which JSON carries as a string; a `Map`, carried as an array),
 * to which no call's arguments could ever decode. Mistakes in the definition, reported where they are made.
 *
 * @category constructors
 */
export const make = <
  const Name extends string,
  P extends ParametersSchema,
  A,
  F extends Schema.Top = never,
  E extends DeclaredFailure<F> = never,
  R = never,
  S extends AnySchema = never
>(name: Name, options: {
  readonly description: string
  /** The arguments: a Schema of an object (a struct, a class, a record). `Schema.Struct({})` for none. */
  readonly parameters: P
  /** The output; with it, dispatch encodes the output with its JSON codec and the definition has `outputSchema`. */
  readonly success?: S | undefined
  /** The typed errors: documentation for operators, and something for `mapError` to match on. */
  readonly failure?: F | undefined
  /**
   * Folds the typed errors that are not already a `ToolExecutionError` (those pass through as they are). It sees the
   * `failure` Schema's type when one is given, `unknown` otherwise. The default hides the error from the model and
   * keeps it as the `cause`.
   */
  readonly mapError?: ((error: [F] extends [never] ? unknown : F["Type"]) => ToolExecutionError.ToolExecutionError) | undefined
  readonly annotations?: Annotations | undefined
  /** Reject argument keys the `parameters` Schema does not know, instead of dropping them. */
  readonly onExcessProperty?: "ignore" | "error" | undefined
  readonly call: (args: P["Type"]) => Effect.Effect<[S] extends [never] ? A : S["Type"], E, R>
}): Tool<
  Name,
  P["Type"],
  [S] extends [never] ? A : S["Type"],
  E | ([F] extends [never] ? never : F["Type"]),
  Exclude<R, ToolContext>
> => {
  if (!isValidName(name)) {
    // A tool named "" would answer every call that names no tool; a name with spaces or slashes is refused by
    // providers only when the request is sent. Both are the author's mistakes, reported here.
    throw new TypeError(
      `tool name ${JSON.stringify(bounded(String(name)))} is not valid: a tool name is 1 to ${maxNameLength} ` +
        "characters from A-Z, a-z, 0-9, `_`, `.`, `:` and `-`"
    )
  }
  const timeout = options.annotations?.timeout
  if (timeout !== undefined && Option.isNone(Duration.fromInput(timeout))) {
    // A definition-time mistake of the tool's author, reported where it is made rather than on the first call.
    throw new TypeError(`tool \`${name}\`: the timeout annotation is not a duration: ${String(timeout)}`)
  }
  const concurrency = options.annotations?.concurrency
  if (concurrency !== undefined && !isPositiveInteger(concurrency)) {
    throw new TypeError(
      `tool \`${name}\`: the concurrency annotation must be a whole number of one or more, not ${String(concurrency)}`
    )
  }
  checkParameters(name, options.parameters)
  const self = Object.create(Proto)
  self.name = name
  self.description = options.description
  self.parameters = options.parameters
  self.success = options.success
  self.failure = options.failure
  // A copy of its own: a tool's identity for the limits its annotations set (its `concurrency`), which the copies that
  // `provide` and a server's `add` make share with it.
  self.annotations = Object.freeze({ ...options.annotations })
  self.onExcessProperty = options.onExcessProperty ?? "ignore"
  self.jsonSchemas = undefined
  self.call = options.call
  self.mapError = options.mapError ?? ToolExecutionError.fromError
  return self
}

// Parameters Schemas already found to describe objects: tools that share a Schema (every `DynamicTool` shares
// `Schema.JsonObject`) generate its JSON Schema here once.
const objectParameters = new WeakSet<AnySchema>()

/**
 * Throws when the JSON Schema of `parameters` admits a value that is not an object at its top, which no call's
 * arguments (a JSON object) could decode to. A Schema without a JSON Schema is left to the definition to report, as
 * before this check; one that constrains nothing (`Schema.Any`) decodes every object and passes.
 */
const checkParameters = (name: string, parameters: AnySchema): void => {
  if (objectParameters.has(parameters)) return
  let root: ToolDefinition.JsonSchema
  try {
    // Kept for the tool's definition, which would generate it again.
    root = toJsonSchemaKept(parameters)
  } catch {
    return
  }
  const found = nonObjectType(root)
  if (found !== undefined) {
    throw new TypeError(
      `tool \`${name}\`: parameters must be a Schema of an object (a call's arguments are a JSON object), but ` +
        `their JSON Schema allows ${found} at the top: ${bounded(JSON.stringify(root), 120)}`
    )
  }
  objectParameters.add(parameters)
}

/**
 * The first type other than `"object"` that a JSON Schema names for a value, itself or through a branch of `anyOf`,
 * `oneOf` or `allOf`; `undefined` when it names none. (`Schema.Struct({})` is `{"not":{"type":"null"}}`: it names
 * none, and decodes every object.)
 */
const nonObjectType = (schema: unknown): string | undefined => {
  if (typeof schema !== "object" || schema === null) return undefined
  const node = schema as Record<string, unknown>
  const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type]
  const other = types.find((type) => type !== "object")
  if (other !== undefined) return JSON.stringify(other)
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const branches = node[key]
    if (!Array.isArray(branches)) continue
    for (const branch of branches) {
      const found = nonObjectType(branch)
      if (found !== undefined) return found
    }
  }
  return undefined
}

/**
 * The provider-facing definition of a tool: name, description and JSON Schemas. Computed once per tool.
 *
 * @category accessors
 */
export const definition = (tool: Any): ToolDefinition.ToolDefinition => ToolDefinition.fromTool(tool)

/**
 * The brand of a portable tool (see `DynamicTool.portable` and {@link provide}): a tool that needs no services, runs
 * without a `ToolContext`, and carries its serializable `spec`.
 *
 * @category symbols
 */
export const PortableTypeId = "~effect-llm-tools/PortableTool" as const

/**
 * The type of {@link PortableTypeId}.
 *
 * @category symbols
 */
export type PortableTypeId = typeof PortableTypeId

/**
 * What {@link provide} returns: the same tool, needing its services minus `S`. A portable tool stays portable (it
 * needed nothing to begin with).
 *
 * @category models
 */
export type Provided<T, S> = T extends PortableTool<infer N, infer P, infer O, infer F> ? PortableTool<N, P, O, F>
  : T extends Tool<infer N, infer P, infer O, infer F, infer R> ? Tool<N, P, O, F, Exclude<R, S>>
  : never

/**
 * A portable tool needs nothing: for {@link provide} with `portable: true`, this type makes the call fail to compile,
 * naming the services `context` does not hold.
 *
 * @category models
 */
export type FullyProvided<T, S> = [Exclude<Requirements<T>, S>] extends [never] ? unknown
  : { readonly "a portable tool needs no services; still needed": Exclude<Requirements<T>, S> }

/**
 * The options of {@link provide}.
 *
 * @category models
 */
export interface ProvideOptions {
  /**
   * Make the result portable: it must need no more services (checked by the compiler), its `call` runs without a
   * `ToolContext`, and it carries a `spec` made from its definition.
   */
  readonly portable?: boolean | undefined
}

/** The options of {@link provide} that do not ask for a portable tool. */
type NotPortable = ProvideOptions & { readonly portable?: false | undefined }

/**
 * Closes a tool over services it needs: the result needs the rest (its requirement type is `R` minus `S`), and its
 * calls see these services whoever executes them. Everything else (name, Schemas, annotations, JSON Schemas of a
 * runtime tool) stays the same. A `ToolContext` in `context` is ignored: dispatch gives every call its own.
 *
 * **Portability.** A portable tool can run anywhere (in any set, in a server, behind MCP) because it needs neither
 * services nor the per-call `ToolContext`. Whether a typed tool uses `ToolContext` cannot be known: `Tool.make`
 * takes it out of the requirement type, since dispatch always provides it. So the result is portable only when the
 * tool already was (`DynamicTool.portable`), or when asked for with `{ portable: true }`. That asks the compiler to
 * check that `context` leaves nothing required, and runs the tool's `call` without a `ToolContext`: a tool that
 * uses one anyway (`ToolContext.insertResult`, say) fails its calls with kind `other`, instead of losing its
 * metadata silently where the tool is moved to.
 *
 * @example
 * ```ts
 * import { Context, Effect, Schema } from "effect"
 * import { Tool } from "effect-llm-tools"
 *
 * class Rates extends Context.Service<Rates, { readonly eurToUsd: number }>()("app/Rates") {}
 *
 * const Convert = Tool.make("convert", {
 *   description: "Convert euros to dollars",
 *   parameters: Schema.Struct({ euros: Schema.Finite }),
 *   call: Effect.fn(function*({ euros }) {
 *     const rates = yield* Rates
 *     return { dollars: euros * rates.eurToUsd }
 *   })
 * })
 * // DynamicTool.PortableTool<"convert", { readonly euros: number }, { dollars: number }, never>
 * const Portable = Tool.provide(Convert, Context.make(Rates, { eurToUsd: 1.1 }), { portable: true })
 * ```
 *
 * @category combinators
 */
export const provide: {
  <S>(
    context: Context.Context<S>,
    options: ProvideOptions & { readonly portable: true }
  ): <T extends Any>(tool: T & FullyProvided<T, S>) => PortableOf<T>
  <S>(context: Context.Context<S>, options?: NotPortable): <T extends Any>(tool: T) => Provided<T, S>
  <T extends Any, S>(
    tool: T & FullyProvided<T, S>,
    context: Context.Context<S>,
    options: ProvideOptions & { readonly portable: true }
  ): PortableOf<T>
  <T extends Any, S>(tool: T, context: Context.Context<S>, options?: NotPortable): Provided<T, S>
} = dual(
  (args) => isTool(args[0]),
  (tool: Any, context: Context.Context<never>, options?: ProvideOptions): Any => {
    // Dispatch gives every call its own ToolContext: one in `context` would be shared by every call.
    const services = Context.omit(ToolContext)(context)
    const call = tool.call as (args: unknown) => Effect.Effect<unknown, unknown, unknown>
    const portable = options?.portable === true || isPortable(tool)
    const self = Object.assign(Object.create(Object.getPrototypeOf(tool)), tool)
    // Whatever `call` returns that is not a running program (an Exit is finished; anything else is for dispatch to
    // report) passes through as it is.
    self.call = portable
      ? (args: unknown) => {
        const program = call(args)
        return !Effect.isEffect(program) || Exit.isExit(program)
          ? program
          : Effect.updateContext(
            program,
            (outer: Context.Context<never>) => Context.merge(Context.omit(ToolContext)(outer), services) as Context.Context<unknown>
          )
      }
      : (args: unknown) => {
        const program = call(args)
        return Effect.isEffect(program) ? Effect.provideContext(program, services) : program
      }
    if (portable && !isPortable(tool)) {
      self[PortableTypeId] = PortableTypeId
      self.spec = specOf(tool)
    }
    return self
  }
)

/**
 * The portable version of a tool's type: what {@link provide} with `portable: true` returns.
 *
 * @category models
 */
export type PortableOf<T> = T extends Tool<infer N, infer P, infer O, infer F, infer _R> ? PortableTool<N, P, O, F>
  : never

const isPortable = (tool: Any): boolean => Predicate.hasProperty(tool, PortableTypeId)

// The annotations a spec carries: every field of `Annotations`, which this type makes the compiler hold it to.
const annotationFields: { readonly [K in keyof Annotations]-?: true } = {
  title: true,
  readOnly: true,
  destructive: true,
  idempotent: true,
  openWorld: true,
  strict: true,
  timeout: true,
  needsApproval: true,
  concurrency: true
}

const annotationKeys = Object.keys(annotationFields) as ReadonlyArray<keyof Annotations>

/**
 * The serializable description of a tool: its definition, and its annotations with the timeout as a `Duration`.
 * Only the annotations that are set are kept, so that the spec encodes without `undefined`s.
 */
const specOf = (tool: Any): Spec => {
  const definition = ToolDefinition.fromTool(tool)
  const annotations: Record<string, unknown> = {}
  for (const key of annotationKeys) {
    const value = tool.annotations[key]
    if (value === undefined) continue
    // The timeout was checked when the tool was made.
    annotations[key] = key === "timeout" ? Duration.fromInputUnsafe(value as Duration.Input) : value
  }
  return {
    name: tool.name,
    description: tool.description,
    parameters: definition.parameters as Spec["parameters"],
    ...(definition.outputSchema !== undefined ? { outputSchema: definition.outputSchema as Spec["parameters"] } : {}),
    annotations: annotations as Spec["annotations"]
  }
}
