/**
 * A tool is a typed `Effect` program with one `call`. Its arguments, output and errors are Schemas; its requirement
 * type is the typed inbound context of the call, which flows to whoever executes it.
 *
 * @since 0.1.0
 */
import type { Effect, Schema } from "effect"
import { Duration, Option, Predicate } from "effect"
import { type Pipeable, pipeArguments } from "effect/Pipeable"
import * as ToolDefinition from "./ToolDefinition.ts"
import type { MissingToolContext, ToolContext } from "./ToolContext.ts"
import * as ToolExecutionError from "./ToolExecutionError.ts"

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
   * result waits for the interruption to finish, so the tool's finalizers have always run by then; a tool inside an
   * uninterruptible region is answered only when the region ends.
   */
  readonly timeout?: Duration.Input | undefined
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
  readonly call: (args: Params) => Effect.Effect<Output, Failure, R | ToolContext>
  /** Folds failures of `call` that are not already a `ToolExecutionError`. */
  readonly mapError: (error: Exclude<Failure, ToolExecutionError.ToolExecutionError>) => ToolExecutionError.ToolExecutionError
}

/**
 * Any tool.
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
 * Arguments arrive as a JSON object, so a tool's `parameters` must encode to one: for any other Schema (a string, an
 * array) this type makes `Tool.make` fail to compile, naming the problem.
 *
 * @category models
 */
export type ObjectParameters<P extends AnySchema> = P["Encoded"] extends ReadonlyArray<unknown>
  ? { readonly "parameters must be a Schema of an object": never }
  : P["Encoded"] extends object ? unknown
  : { readonly "parameters must be a Schema of an object": never }

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
 * Throws a `TypeError` when the `timeout` annotation is not a duration: a mistake in the definition, reported where
 * it is made.
 *
 * @category constructors
 */
export const make = <
  const Name extends string,
  P extends AnySchema,
  A,
  F extends Schema.Top = never,
  E extends DeclaredFailure<F> = never,
  R = never,
  S extends AnySchema = never
>(name: Name, options: {
  readonly description: string
  /** The arguments: a Schema of an object (a struct, a class, a record). `Schema.Struct({})` for none. */
  readonly parameters: P & ObjectParameters<P>
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
  const timeout = options.annotations?.timeout
  if (timeout !== undefined && Option.isNone(Duration.fromInput(timeout))) {
    // A definition-time mistake of the tool's author, reported where it is made rather than on the first call.
    throw new TypeError(`tool \`${name}\`: the timeout annotation is not a duration: ${String(timeout)}`)
  }
  const self = Object.create(Proto)
  self.name = name
  self.description = options.description
  self.parameters = options.parameters
  self.success = options.success
  self.failure = options.failure
  self.annotations = options.annotations ?? {}
  self.onExcessProperty = options.onExcessProperty ?? "ignore"
  self.call = options.call
  self.mapError = options.mapError ?? ToolExecutionError.fromError
  return self
}

/**
 * The provider-facing definition of a tool: name, description and JSON Schemas. Computed once per tool.
 *
 * @category accessors
 */
export const definition = (tool: Any): ToolDefinition.ToolDefinition => ToolDefinition.fromTool(tool)
