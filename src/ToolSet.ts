/**
 * An immutable, ordered collection of tools, and the one way to execute a model's tool calls against it.
 *
 * `execute` turns any call — JSON text or a parsed value, valid or garbage, to a known tool or not — into exactly one
 * `ToolResult`. It never fails and never dies. Its requirement type is the union of the tools' requirements: a
 * missing inbound service is a compile error, not a runtime surprise.
 *
 * @since 0.1.0
 */
import { type Context, Effect, Layer, Option } from "effect"
import { capture, withCaptured } from "./internal/captured.ts"
import { hasKey } from "./internal/hasKey.ts"
import { dual } from "effect/Function"
import { type Pipeable, pipeArguments } from "effect/Pipeable"
import {
  concurrencyOf,
  dispatch,
  dispatchAll,
  type ExecuteOptions,
  limitsOf,
  lookup,
  makeRegistry,
  type Registry
} from "./internal/dispatch.ts"
import type * as Tool from "./Tool.ts"
import type * as ToolCall from "./ToolCall.ts"
import * as ToolDefinition from "./ToolDefinition.ts"
import type { ToolResult } from "./ToolResult.ts"

/**
 * Per-call options of {@link execute}: limits on the argument JSON (`maxArgumentBytes`, default 1 MiB;
 * `maxArgumentDepth`, default 64) and on the JSON of the output (`maxOutputBytes`, default 8 MiB of JSON text;
 * `maxOutputDepth`, default 128). A limit that is not a whole number of zero or more is ignored. An output over a
 * limit is kind `other`: the model sees the safe default, the message says which limit.
 *
 * @category models
 */
export type { ExecuteOptions }

const TypeId = "~effect-llm-tools/ToolSet" as const

/**
 * An ordered set of tools with unique names.
 *
 * @category models
 */
export interface ToolSet<out Tools extends Tool.Any> extends Pipeable {
  readonly [TypeId]: { readonly _Tools: (_: never) => Tools }
  /** The tools, in order. */
  readonly tools: ReadonlyArray<Tools>
  /** @internal */
  readonly registry: Registry
}

/**
 * Any tool set: for the constraint of a generic (`<S extends ToolSet.Any>`, or `<T extends Tool.Any>` with a
 * `ToolSet<T>` parameter), which keeps the set's tools and so its requirements.
 *
 * A parameter or value typed `ToolSet.Any` itself has lost them: its requirements are `never` (`Tool.Any` is no
 * particular tool), so executing it compiles without the services its tools need, which are then missing at run
 * time. They are not `unknown` (which would make such a set impossible to run) because sets of this type that need
 * nothing are common: a `ToolSetBuilder<Tool.Any>`, sets of tools defined at run time, helpers that only read names
 * or definitions. Type a helper that executes a set generically:
 *
 * ```ts
 * import { Context, Effect, Schema } from "effect"
 * import { Tool, ToolCall, ToolSet } from "effect-llm-tools"
 *
 * class CurrentUser extends Context.Service<CurrentUser, { readonly id: string }>()("app/CurrentUser") {}
 *
 * const Whoami = Tool.make("whoami", {
 *   description: "Who is asking",
 *   parameters: Schema.Struct({}),
 *   call: () => Effect.map(CurrentUser, (user) => user.id)
 * })
 *
 * const call = ToolCall.make({ id: "call_1", name: "whoami", arguments: {} })
 *
 * // Effect<ToolResult, never, Tool.Requirements<T>>: the caller must provide what the tools need.
 * const run = <T extends Tool.Any>(set: ToolSet.ToolSet<T>) => ToolSet.execute(set, call)
 *
 * // Effect<ToolResult, never, CurrentUser>; with `(set: ToolSet.Any)` it would be `never`, and compile unprovided.
 * const program = run(ToolSet.make(Whoami))
 * ```
 *
 * @category models
 */
export type Any = ToolSet<Tool.Any>

/**
 * The tools of a set.
 *
 * @category models
 */
export type Tools<S> = S extends ToolSet<infer T> ? T : never

/**
 * What executing calls against a set requires: the union of its tools' requirements.
 *
 * @category models
 */
export type Requirements<S> = Tool.Requirements<Tools<S>>

/**
 * Options of {@link executeAll}.
 *
 * @category models
 */
export interface ExecuteAllOptions extends ExecuteOptions {
  /** How many calls run at once; results keep call order whatever order they finish in. Default: one at a time. */
  readonly concurrency?: number | "unbounded" | undefined
}

/**
 * True for a tool set.
 *
 * @category guards
 */
export const isToolSet = (u: unknown): u is Any => hasKey(u, TypeId)

const Proto = {
  [TypeId]: { _Tools: (_: never) => _ },
  pipe() {
    return pipeArguments(this, arguments)
  }
}

const fromArray = <T extends Tool.Any>(tools: ReadonlyArray<T>): ToolSet<T> => {
  const self = Object.create(Proto)
  self.tools = tools
  self.registry = makeRegistry(tools)
  return self
}

/**
 * `tools` followed by `added`, where an added tool replaces a same-named one in place. One pass with an index by
 * name, so building a set of n tools costs O(n).
 */
const upsertAll = <T extends Tool.Any>(tools: ReadonlyArray<T>, added: Iterable<T>): Array<T> => {
  const out = tools.slice()
  const indexByName = new Map<string, number>()
  out.forEach((tool, index) => indexByName.set(tool.name, index))
  for (const tool of added) {
    const index = indexByName.get(tool.name)
    if (index === undefined) {
      indexByName.set(tool.name, out.length)
      out.push(tool)
    } else out[index] = tool
  }
  return out
}

/**
 * A set of tools, in the order given. A later tool with the name of an earlier one replaces it in place.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Tool, ToolSet } from "effect-llm-tools"
 *
 * const Echo = Tool.make("echo", {
 *   description: "Echo the text back",
 *   parameters: Schema.Struct({ text: Schema.String }),
 *   call: ({ text }) => Effect.succeed(text)
 * })
 *
 * const set = ToolSet.make(Echo)
 * ```
 *
 * @category constructors
 */
export const make = <const T extends ReadonlyArray<Tool.Any>>(...tools: T): ToolSet<T[number]> =>
  fromArray(upsertAll<T[number]>([], tools))

/**
 * The empty set.
 *
 * @category constructors
 */
export const empty: ToolSet<never> = fromArray<never>([])

/**
 * Adds a tool. A tool with the same name is replaced in place, keeping its position.
 *
 * @category combinators
 */
export const add: {
  <T2 extends Tool.Any>(tool: T2): <T extends Tool.Any>(self: ToolSet<T>) => ToolSet<Replaced<T, T2>>
  <T extends Tool.Any, T2 extends Tool.Any>(self: ToolSet<T>, tool: T2): ToolSet<Replaced<T, T2>>
} = dual(
  2,
  <T extends Tool.Any, T2 extends Tool.Any>(self: ToolSet<T>, tool: T2): ToolSet<Replaced<T, T2>> =>
    fromArray(upsertAll<T | T2>(self.tools, [tool]) as Array<Replaced<T, T2>>)
)

/**
 * The tools of a set after the tools `T2` were added: a tool of `T` goes (its requirements with it) only when a tool of
 * `T2` surely replaces it, one whose name is exactly one string literal. A tool whose name is known only as `string`
 * (an imported MCP tool, `DynamicTool.fromSpec`), a pattern or a union of names could replace any tool or none, so
 * every tool of `T` stays: adding must never make a needed service optional.
 *
 * @category models
 */
export type Replaced<T extends Tool.Any, T2 extends Tool.Any> =
  | Exclude<T, { readonly name: ExactNames<T2> }>
  | T2

/**
 * A name when it is exactly one string literal, and `never` when it could stand for several names at run time:
 * `string`, a pattern (`` `mcp_${string}` ``), a union. `{} extends Record<N, unknown>` holds only when `N` adds no
 * required key, which is the case of `string`, of a pattern and of `never`.
 */
type ExactName<N> = [N] extends [UnionToIntersection<N>] ? {} extends Record<N & string, unknown> ? never : N
  : never

/** The exact names (see {@link ExactName}) of the tools `T`, one tool at a time. */
type ExactNames<T extends Tool.Any> = T extends Tool.Any ? ExactName<T["name"]> : never

type UnionToIntersection<U> = (U extends unknown ? (_: U) => void : never) extends (_: infer I) => void ? I : never

/**
 * Removes the tool with this name, keeping the order of the rest.
 *
 * @category combinators
 */
export const remove: {
  <N extends string>(name: N): <T extends Tool.Any>(self: ToolSet<T>) => ToolSet<Removed<T, N>>
  <T extends Tool.Any, N extends string>(self: ToolSet<T>, name: N): ToolSet<Removed<T, N>>
} = dual(
  2,
  <T extends Tool.Any, N extends string>(self: ToolSet<T>, name: N): ToolSet<Removed<T, N>> =>
    fromArray(self.tools.filter((tool) => tool.name !== name) as Array<Removed<T, N>>)
)

/**
 * The tools of a set after the tool named `N` was removed. Only a name that is exactly one string literal removes a
 * tool from the type: a name known only as `string`, a pattern or a union (`"a" | "b"`, of which one tool goes at run
 * time) could be any tool's, so the set keeps its type and its requirements. Removing must never make a needed
 * service optional.
 *
 * @category models
 */
export type Removed<T extends Tool.Any, N extends string> = Exclude<T, { readonly name: ExactName<N> }>

/**
 * The tools of both sets: `self`'s in order, then `that`'s; a tool of `that` replaces a same-named tool of `self` in
 * place.
 *
 * @category combinators
 */
export const merge: {
  <T2 extends Tool.Any>(that: ToolSet<T2>): <T extends Tool.Any>(self: ToolSet<T>) => ToolSet<Replaced<T, T2>>
  <T extends Tool.Any, T2 extends Tool.Any>(self: ToolSet<T>, that: ToolSet<T2>): ToolSet<Replaced<T, T2>>
} = dual(
  2,
  <T extends Tool.Any, T2 extends Tool.Any>(self: ToolSet<T>, that: ToolSet<T2>): ToolSet<Replaced<T, T2>> =>
    fromArray(upsertAll<T | T2>(self.tools, that.tools) as Array<Replaced<T, T2>>)
)

/**
 * The tool with this name.
 *
 * @category accessors
 */
export const get: {
  (name: string): <T extends Tool.Any>(self: ToolSet<T>) => Option.Option<T>
  <T extends Tool.Any>(self: ToolSet<T>, name: string): Option.Option<T>
} = dual(
  2,
  <T extends Tool.Any>(self: ToolSet<T>, name: string): Option.Option<T> =>
    Option.fromUndefinedOr(lookup(self.registry, name) as T | undefined)
)

/**
 * The names of the tools, in order.
 *
 * @category accessors
 */
export const names = <T extends Tool.Any>(self: ToolSet<T>): ReadonlyArray<T["name"]> => self.registry.names

/**
 * The provider-facing definitions of the tools, in order.
 *
 * @category accessors
 */
export const definitions = <T extends Tool.Any>(self: ToolSet<T>): ReadonlyArray<ToolDefinition.ToolDefinition> =>
  self.tools.map(ToolDefinition.fromTool)

/**
 * Executes one call. Always succeeds with exactly one `ToolResult`, whatever the model sent and whatever the tool did.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Tool, ToolCall, ToolSet } from "effect-llm-tools"
 *
 * const Echo = Tool.make("echo", {
 *   description: "Echo the text back",
 *   parameters: Schema.Struct({ text: Schema.String }),
 *   call: ({ text }) => Effect.succeed(text)
 * })
 *
 * const program = ToolSet.make(Echo).pipe(
 *   ToolSet.execute(ToolCall.make({ id: "call_1", name: "echo", arguments: "{\"text\":\"hi\"}" }))
 * )
 * ```
 *
 * @category execution
 */
export const execute: {
  (
    call: ToolCall.ToolCall,
    options?: ExecuteOptions
  ): <T extends Tool.Any>(self: ToolSet<T>) => Effect.Effect<ToolResult, never, Tool.Requirements<T>>
  <T extends Tool.Any>(
    self: ToolSet<T>,
    call: ToolCall.ToolCall,
    options?: ExecuteOptions
  ): Effect.Effect<ToolResult, never, Tool.Requirements<T>>
} = dual(
  (args) => isToolSet(args[0]),
  <T extends Tool.Any>(
    self: ToolSet<T>,
    call: ToolCall.ToolCall,
    options?: ExecuteOptions
  ): Effect.Effect<ToolResult, never, Tool.Requirements<T>> => dispatch(self.registry, call, limitsOf(options))
)

/**
 * Executes a batch of calls, results in call order whatever order they finish in. Never fails, never dies.
 *
 * The calls are read once, when the Effect runs. An entry that is not a call is a call with an empty id and name
 * (`not_found`). A list that cannot be read to its end (an iterable that throws part-way, a value that is not
 * iterable) keeps the calls read before that point, which run as usual, and gets one more result for its unreadable
 * rest: empty `callId` and `name`, kind `invalid_args`. `null` and `undefined` hold no calls.
 *
 * @category execution
 */
export const executeAll: {
  (
    calls: Iterable<ToolCall.ToolCall>,
    options?: ExecuteAllOptions
  ): <T extends Tool.Any>(self: ToolSet<T>) => Effect.Effect<Array<ToolResult>, never, Tool.Requirements<T>>
  <T extends Tool.Any>(
    self: ToolSet<T>,
    calls: Iterable<ToolCall.ToolCall>,
    options?: ExecuteAllOptions
  ): Effect.Effect<Array<ToolResult>, never, Tool.Requirements<T>>
} = dual(
  (args) => isToolSet(args[0]),
  <T extends Tool.Any>(
    self: ToolSet<T>,
    calls: Iterable<ToolCall.ToolCall>,
    options?: ExecuteAllOptions
  ): Effect.Effect<Array<ToolResult>, never, Tool.Requirements<T>> =>
  {
    let concurrency: unknown
    try {
      concurrency = options?.concurrency
    } catch {
      // Options that cannot be read run one call at a time, as if none were given.
    }
    return dispatchAll(self.registry, calls, limitsOf(options), concurrencyOf(concurrency))
  }
)

/**
 * The dispatch service a layer supplies: the set's `execute`, `executeAll` and `definitions`, with the services
 * captured when the layer was built already provided. `PerCall` is what is left: the inbound values each call needs.
 *
 * @category services
 */
export interface Service<PerCall> {
  readonly execute: (call: ToolCall.ToolCall, options?: ExecuteOptions) => Effect.Effect<ToolResult, never, PerCall>
  readonly executeAll: (
    calls: Iterable<ToolCall.ToolCall>,
    options?: ExecuteAllOptions
  ) => Effect.Effect<Array<ToolResult>, never, PerCall>
  readonly definitions: ReadonlyArray<ToolDefinition.ToolDefinition>
}

/**
 * A layer that supplies a set's dispatch service under `tag`. The service type of the tag names the per-call inbound
 * values (`Service<CurrentUser>`); every other requirement of the tools is captured when the layer is built, and
 * becomes the layer's requirement. Values the caller provides per call take precedence over captured ones.
 *
 * @example
 * ```ts
 * import { Context, Effect, Layer, Schema } from "effect"
 * import { Tool, ToolSet } from "effect-llm-tools"
 *
 * class Database extends Context.Service<Database, { readonly lookup: (id: string) => string }>()("app/Database") {}
 * class CurrentUser extends Context.Service<CurrentUser, { readonly id: string }>()("app/CurrentUser") {}
 *
 * const Whoami = Tool.make("whoami", {
 *   description: "Who is asking",
 *   parameters: Schema.Struct({}),
 *   call: () =>
 *     Effect.gen(function*() {
 *       const db = yield* Database
 *       const user = yield* CurrentUser
 *       return db.lookup(user.id)
 *     })
 * })
 *
 * class Tools extends Context.Service<Tools, ToolSet.Service<CurrentUser>>()("app/Tools") {}
 *
 * // Layer<Tools, never, Database>: the database is captured once; each call brings its CurrentUser.
 * const ToolsLive = ToolSet.toLayer(Tools, ToolSet.make(Whoami))
 * ```
 *
 * @category layers
 */
export const toLayer = <I, PerCall, T extends Tool.Any>(
  tag: Context.Key<I, Service<PerCall>>,
  set: ToolSet<T>
): Layer.Layer<I, never, Exclude<Tool.Requirements<T>, PerCall>> =>
  Layer.effect(
    tag,
    Effect.map(Effect.context<Exclude<Tool.Requirements<T>, PerCall>>(), (built): Service<PerCall> => {
      const captured = capture(built)
      return {
        execute: (call, options) => withCaptured(captured, execute(set, call, options)),
        executeAll: (calls, options) => withCaptured(captured, executeAll(set, calls, options)),
        definitions: definitions(set)
      }
    })
  )
