/**
 * A tool marked for retrieval: exposed to the model only when a request is about it. It carries the texts a
 * retriever matches requests against (its embedding docs) and a JSON context stored beside them.
 *
 * @since 0.1.0
 */
import { Predicate, Result, type Schema } from "effect"
import { type Pipeable, pipeArguments } from "effect/Pipeable"
import { bounded } from "./internal/issues.ts"
import { toJsonValue } from "./internal/json.ts"
import * as Tool from "./Tool.ts"

const TypeId = "~effect-llm-tools/ToolEmbedding" as const

/**
 * A tool and what a retriever matches requests against. Made by {@link make}.
 *
 * @category models
 */
export interface ToolEmbedding<out T extends Tool.Any> extends Pipeable {
  readonly [TypeId]: typeof TypeId
  readonly tool: T
  /** The tool's name. */
  readonly name: T["name"]
  /** The texts that describe when the tool is wanted, in the user's words. */
  readonly docs: ReadonlyArray<string>
  /** JSON stored beside the docs, for stores that return it with a hit; `null` when none was given. */
  readonly context: Schema.Json
}

/**
 * Any embedding tool.
 *
 * @category models
 */
export type Any = ToolEmbedding<Tool.Any>

/**
 * The tool of an embedding tool.
 *
 * @category models
 */
export type ToolOf<E> = E extends ToolEmbedding<infer T> ? T : never

/**
 * What a vector store keeps for one tool: its name, its context, and the texts to embed.
 *
 * @category models
 */
export interface ToolSchema {
  readonly name: string
  readonly context: Schema.Json
  readonly embeddingDocs: ReadonlyArray<string>
}

/**
 * True for an embedding tool.
 *
 * @category guards
 */
export const isToolEmbedding = (u: unknown): u is Any => Predicate.hasProperty(u, TypeId)

const Proto = {
  [TypeId]: TypeId,
  pipe() {
    return pipeArguments(this, arguments)
  }
}

/**
 * The docs of a tool given none: its name and description, the one text every tool has.
 *
 * @category accessors
 */
export const defaultDocs = (tool: Tool.Any): ReadonlyArray<string> => [`${tool.name}: ${tool.description}`]

/**
 * Marks a tool for retrieval. `docs` defaults to {@link defaultDocs}; `context` to `null`.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Tool, ToolEmbedding } from "effect-llm-tools"
 *
 * const GetWeather = Tool.make("get_weather", {
 *   description: "The weather forecast for a city",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   call: ({ city }) => Effect.succeed(`sunny in ${city}`)
 * })
 *
 * const Weather = ToolEmbedding.make(GetWeather, {
 *   docs: ["weather forecast for a city", "will it rain tomorrow"],
 *   context: { region: "eu" }
 * })
 * ```
 *
 * Throws a `TypeError` naming the tool when `tool` is not a tool, a doc is not a string, or `context` is not JSON:
 * mistakes in the definition, reported where they are made.
 *
 * @category constructors
 */
export const make = <T extends Tool.Any>(tool: T, options?: {
  /** The texts a request is matched against. An empty list leaves the tool's name, description and parameters. */
  readonly docs?: Iterable<string> | undefined
  /** Any JSON value. */
  readonly context?: Schema.Json | undefined
}): ToolEmbedding<T> => {
  if (!Tool.isTool(tool)) throw new TypeError("ToolEmbedding.make: the first argument is not a tool")
  const label = `tool \`${bounded(tool.name)}\``
  const given = options?.docs
  if (given !== undefined && (typeof given !== "object" || given === null || !(Symbol.iterator in given))) {
    throw new TypeError(`${label}: docs must be a list of strings`)
  }
  const docs = given === undefined ? defaultDocs(tool) : Array.from(given)
  docs.forEach((doc, i) => {
    if (typeof doc !== "string") throw new TypeError(`${label}: doc ${i} is not a string`)
  })
  // Wrapped, so that the failure names a path under `$.context` even when the context itself is the problem.
  const checked = toJsonValue({ context: options?.context === undefined ? null : options.context })
  if (Result.isFailure(checked)) throw new TypeError(`${label}: the context must be JSON: ${checked.failure}`)
  const self = Object.create(Proto)
  self.tool = tool
  self.name = tool.name
  self.docs = Object.freeze(docs)
  self.context = (checked.success as { readonly context: Schema.Json }).context
  return self
}

/**
 * The records a vector store keeps for these tools, in order: for users who embed and search in their own store,
 * and hand its search to `ToolIndex.fromSearch`.
 *
 * @category accessors
 */
export const schemas = (embeddings: Iterable<Any>): Array<ToolSchema> =>
  Array.from(embeddings, (embedding) => ({
    name: embedding.name,
    context: embedding.context,
    embeddingDocs: embedding.docs
  }))
