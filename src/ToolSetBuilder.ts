/**
 * Builds a catalogue from three kinds of tools — static ones, runtime-defined ones, and embedding tools that are
 * exposed only when a request is about them — into one `ToolSet` and the `ToolIndex` that selects from it.
 *
 * @since 0.1.0
 */
import { Effect, Predicate } from "effect"
import { dual } from "effect/Function"
import { type Pipeable, pipeArguments } from "effect/Pipeable"
import { bounded } from "./internal/issues.ts"
import type * as Tool from "./Tool.ts"
import { isTool } from "./Tool.ts"
import type * as ToolEmbedding from "./ToolEmbedding.ts"
import { isToolEmbedding } from "./ToolEmbedding.ts"
import * as ToolIndex from "./ToolIndex.ts"
import * as ToolSet from "./ToolSet.ts"

const TypeId = "~effect-llm-tools/ToolSetBuilder" as const

/**
 * One registration: an always-exposed tool, or an embedding tool.
 *
 * @category models
 */
export type Entry =
  | { readonly _tag: "Static"; readonly tool: Tool.Any }
  | { readonly _tag: "Dynamic"; readonly tool: Tool.Any }
  | { readonly _tag: "Embedding"; readonly embedding: ToolEmbedding.Any }

/**
 * A catalogue being assembled; `T` is the union of its tools, which the built `ToolSet` carries (and with it their
 * requirements). Immutable: each `add…` returns a new builder.
 *
 * @category models
 */
export interface ToolSetBuilder<out T extends Tool.Any> extends Pipeable {
  readonly [TypeId]: { readonly _T: (_: never) => T }
  /** The registrations, in order. */
  readonly entries: ReadonlyArray<Entry>
}

/**
 * What {@link build} gives: the full set (every tool, in registration order, for dispatch and for a turn that
 * needs them all) and the index that selects a turn's tools from it.
 *
 * @category models
 */
export interface Built<T extends Tool.Any> {
  readonly toolSet: ToolSet.ToolSet<T>
  readonly index: ToolIndex.ToolIndex
}

/**
 * True for a builder.
 *
 * @category guards
 */
export const isToolSetBuilder = (u: unknown): u is ToolSetBuilder<Tool.Any> => Predicate.hasProperty(u, TypeId)

interface Node {
  readonly previous: Node | undefined
  readonly entry: Entry
}

const Proto = {
  [TypeId]: { _T: (_: never) => _ },
  pipe() {
    return pipeArguments(this, arguments)
  },
  // Each `add…` links one node to the builder it extends, so adding n tools one by one costs O(n), not the O(n²)
  // of copying an array each time; the array is made once, when first read.
  get entries(): ReadonlyArray<Entry> {
    const self = this as unknown as { last: Node | undefined; cached: ReadonlyArray<Entry> | undefined }
    if (self.cached === undefined) {
      const out: Array<Entry> = []
      for (let node = self.last; node !== undefined; node = node.previous) out.push(node.entry)
      self.cached = out.reverse()
    }
    return self.cached
  }
}

const append = <T extends Tool.Any>(builder: ToolSetBuilder<Tool.Any> | undefined, entry: Entry): ToolSetBuilder<T> => {
  // What is added is checked here, where the mistake is made, rather than when the set is built.
  if (entry._tag === "Embedding" ? !isToolEmbedding(entry.embedding) : !isTool(entry.tool)) {
    throw new TypeError(
      entry._tag === "Embedding"
        ? "ToolSetBuilder.addEmbedding: expected a ToolEmbedding (make one with ToolEmbedding.make)"
        : `ToolSetBuilder.add${entry._tag}: expected a tool`
    )
  }
  const self = Object.create(Proto)
  self.last = { previous: builder === undefined ? undefined : (builder as unknown as { last: Node | undefined }).last, entry }
  self.cached = undefined
  return self
}

/**
 * An empty builder.
 *
 * @category constructors
 */
export const make = (): ToolSetBuilder<never> => {
  const self = Object.create(Proto)
  self.last = undefined
  self.cached = undefined
  return self
}

/**
 * Adds a tool that every turn exposes. Throws a `TypeError` for anything but a tool.
 *
 * @category combinators
 */
export const addStatic: {
  <T2 extends Tool.Any>(tool: T2): <T extends Tool.Any>(self: ToolSetBuilder<T>) => ToolSetBuilder<T | T2>
  <T extends Tool.Any, T2 extends Tool.Any>(self: ToolSetBuilder<T>, tool: T2): ToolSetBuilder<T | T2>
} = dual(
  2,
  <T extends Tool.Any, T2 extends Tool.Any>(self: ToolSetBuilder<T>, tool: T2): ToolSetBuilder<T | T2> =>
    append(self, { _tag: "Static", tool })
)

/**
 * Adds a runtime-defined tool (from a plugin, a configuration, an MCP server) that every turn exposes. Throws a
 * `TypeError` for anything but a tool.
 *
 * @category combinators
 */
export const addDynamic: {
  <T2 extends Tool.Any>(tool: T2): <T extends Tool.Any>(self: ToolSetBuilder<T>) => ToolSetBuilder<T | T2>
  <T extends Tool.Any, T2 extends Tool.Any>(self: ToolSetBuilder<T>, tool: T2): ToolSetBuilder<T | T2>
} = dual(
  2,
  <T extends Tool.Any, T2 extends Tool.Any>(self: ToolSetBuilder<T>, tool: T2): ToolSetBuilder<T | T2> =>
    append(self, { _tag: "Dynamic", tool })
)

/**
 * Adds an embedding tool: a turn exposes it only when the index ranks it among the `topK` for the request. Throws a
 * `TypeError` for anything but a `ToolEmbedding`.
 *
 * @category combinators
 */
export const addEmbedding: {
  <T2 extends Tool.Any>(
    embedding: ToolEmbedding.ToolEmbedding<T2>
  ): <T extends Tool.Any>(self: ToolSetBuilder<T>) => ToolSetBuilder<T | T2>
  <T extends Tool.Any, T2 extends Tool.Any>(
    self: ToolSetBuilder<T>,
    embedding: ToolEmbedding.ToolEmbedding<T2>
  ): ToolSetBuilder<T | T2>
} = dual(
  2,
  <T extends Tool.Any, T2 extends Tool.Any>(
    self: ToolSetBuilder<T>,
    embedding: ToolEmbedding.ToolEmbedding<T2>
  ): ToolSetBuilder<T | T2> => append(self, { _tag: "Embedding", embedding })
)

const toolOf = (entry: Entry): Tool.Any => entry._tag === "Embedding" ? entry.embedding.tool : entry.tool

/**
 * The embedding tools of a builder, in order: what `ToolEmbedding.schemas` takes, for a store of your own.
 *
 * @category accessors
 */
export const embeddings = <T extends Tool.Any>(self: ToolSetBuilder<T>): ReadonlyArray<ToolEmbedding.Any> =>
  self.entries.flatMap((entry) => entry._tag === "Embedding" ? [entry.embedding] : [])

/**
 * Builds the set of every tool, in registration order, and the index over the embedding tools. `options` are the
 * index's (an embedding model, its batch size).
 *
 * Fails with `DuplicateName` when two registrations share a name, whatever their kinds: a set would keep only one,
 * and a call could not tell which the model meant. Fails with `EmbeddingModel` when the embedding model does.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Tool, ToolEmbedding, ToolIndex, ToolSetBuilder } from "effect-llm-tools"
 *
 * const Add = Tool.make("add", {
 *   description: "Add two integers",
 *   parameters: Schema.Struct({ left: Schema.Int, right: Schema.Int }),
 *   call: ({ left, right }) => Effect.succeed(left + right)
 * })
 * const GetWeather = Tool.make("get_weather", {
 *   description: "The weather forecast for a city",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   call: ({ city }) => Effect.succeed(`sunny in ${city}`)
 * })
 *
 * const program = Effect.gen(function*() {
 *   const { toolSet, index } = yield* ToolSetBuilder.make().pipe(
 *     ToolSetBuilder.addStatic(Add),
 *     ToolSetBuilder.addEmbedding(ToolEmbedding.make(GetWeather, { docs: ["will it rain tomorrow"] })),
 *     ToolSetBuilder.build
 *   )
 *   // get_weather, then add
 *   return yield* ToolIndex.select(index, toolSet, "will it rain in Oslo?", { topK: 5 })
 * })
 * ```
 *
 * @category constructors
 */
export const build = <T extends Tool.Any>(
  self: ToolSetBuilder<T>,
  options?: ToolIndex.Options
): Effect.Effect<Built<T>, ToolIndex.ToolIndexError> =>
  Effect.suspend(() => {
    const seen = new Set<string>()
    for (const entry of self.entries) {
      const name = toolOf(entry).name
      if (seen.has(name)) {
        return Effect.fail(
          new ToolIndex.ToolIndexError({
            reason: "DuplicateName",
            message: `two tools are named \`${bounded(name)}\`: a set would keep one, and a call could not tell which`
          })
        )
      }
      seen.add(name)
    }
    return Effect.map(ToolIndex.make(embeddings(self), options), (index): Built<T> => ({
      toolSet: ToolSet.make(...(self.entries.map(toolOf) as Array<T>)),
      index
    }))
  }).pipe(Effect.withSpan("ToolSetBuilder.build"))
