/**
 * Choosing which tools a request sees. A `ToolIndex` ranks the embedding tools of a catalogue against a request;
 * {@link select} turns a full `ToolSet` into the set of one model turn: the few tools the request is about, plus the
 * tools that are always exposed.
 *
 * The default index is embedded, offline and needs no key: BM25 over each tool's docs, name, description and
 * parameters, with a Porter2 stemmer and names split into words. Given an effect/ai `EmbeddingModel`, it also embeds
 * the docs and fuses both rankings (reciprocal rank fusion). {@link fromSearch} wraps a search of your own store.
 *
 * @since 0.1.0
 */
import { Cause, Data, Effect, Predicate } from "effect"
import type { EmbeddingModel } from "effect/ai"
import { dual } from "effect/Function"
import { type Pipeable, pipeArguments } from "effect/Pipeable"
import { describeError } from "./internal/describe.ts"
import { bounded } from "./internal/issues.ts"
import { fromJsonSchema, fromSchemaAst, type ParameterText } from "./internal/parameterText.ts"
import { buildLexicalIndex, type LexicalIndex } from "./internal/lexicalIndex.ts"
import { fuseRankings } from "./internal/rankFusion.ts"
import { buildVectorIndex, type VectorIndex } from "./internal/vectorIndex.ts"
import type * as Tool from "./Tool.ts"
import * as ToolDefinition from "./ToolDefinition.ts"
import type * as ToolEmbedding from "./ToolEmbedding.ts"
import { isToolEmbedding } from "./ToolEmbedding.ts"
import * as ToolSet from "./ToolSet.ts"

const TypeId = "~effect-llm-tools/ToolIndex" as const

/**
 * What went wrong while building an index or selecting with it:
 *
 * - `DuplicateName`: two tools of a catalogue have the same name, so a model's call could not tell them apart.
 * - `EmbeddingModel`: the embedding model failed, or answered vectors that cannot be compared (a wrong count,
 *   differing lengths, numbers that are not finite).
 * - `Search`: the search function given to {@link fromSearch} failed, or answered something that is not a list.
 *
 * `message` is for operators; `cause` keeps the underlying failure.
 *
 * @category errors
 */
export class ToolIndexError extends Data.TaggedError("ToolIndexError")<{
  readonly reason: "DuplicateName" | "EmbeddingModel" | "Search"
  readonly message: string
  readonly cause?: unknown
}> {}

/**
 * An index over the embedding tools of a catalogue. Made by {@link make} or {@link fromSearch}; used by
 * {@link select}.
 *
 * @category models
 */
export interface ToolIndex extends Pipeable {
  readonly [TypeId]: typeof TypeId
  /** The names of the tools it ranks, in registration order. Every other tool of a set is always exposed. */
  readonly names: ReadonlyArray<string>
  /** @internal */
  readonly nameSet: ReadonlySet<string>
  /** @internal The names of the best tools for a query, best first; at most `limit`. */
  readonly rank: (query: string, limit: number) => Effect.Effect<ReadonlyArray<string>, ToolIndexError>
  /** @internal What `select` works out once per set: which tools are ranked, which are always exposed. */
  readonly plans: WeakMap<ToolSet.Any, Plan>
}

interface Plan {
  readonly always: ReadonlyArray<Tool.Any>
  readonly ranked: ReadonlyMap<string, Tool.Any>
  /** The ranked tools in set order: what fills a selection when the index answers fewer than `topK`. */
  readonly rankedInOrder: ReadonlyArray<Tool.Any>
}

/**
 * Options of {@link make}.
 *
 * @category models
 */
export interface Options {
  /**
   * An effect/ai embedding model: the docs are embedded at build time and each query at selection (its first 4,096
   * characters, as embedding models refuse long inputs), and the vector ranking is fused with the lexical one.
   * Without it the index is lexical only, offline.
   */
  readonly embeddingModel?: EmbeddingModel.EmbeddingModel | undefined
  /** How many docs go into one `embedMany` request (default 96). A value that is not a whole number of 1 or more is ignored. */
  readonly embeddingBatchSize?: number | undefined
}

/**
 * Options of {@link select}.
 *
 * @category models
 */
export interface SelectOptions {
  /**
   * How many ranked tools the turn gets, on top of the always-exposed ones (default 5). Fractions round down; 0, a
   * negative number or NaN give the always-exposed tools only; a number at or above the catalogue's size gives
   * every tool.
   */
  readonly topK?: number | undefined
}

/**
 * A user's own search, for {@link fromSearch}: the names of the best tools for a query, best first. It may answer
 * more or fewer than `topK` names, and names it does not know: `select` keeps the first `topK` of the catalogue's.
 *
 * @category models
 */
export type Search = (query: string, topK: number) => Effect.Effect<Iterable<string>, unknown>

/**
 * True for an index.
 *
 * @category guards
 */
export const isToolIndex = (u: unknown): u is ToolIndex => Predicate.hasProperty(u, TypeId)

const Proto = {
  [TypeId]: TypeId,
  pipe() {
    return pipeArguments(this, arguments)
  }
}

const fromRank = (
  names: ReadonlyArray<string>,
  rank: (query: string, limit: number) => Effect.Effect<ReadonlyArray<string>, ToolIndexError>
): ToolIndex => {
  const self = Object.create(Proto)
  self.names = names
  self.nameSet = new Set(names)
  self.rank = rank
  self.plans = new WeakMap()
  return self
}

/** The first name that appears twice, if any. */
const firstDuplicate = (names: Iterable<string>): string | undefined => {
  const seen = new Set<string>()
  for (const name of names) {
    if (seen.has(name)) return name
    seen.add(name)
  }
  return undefined
}

/** The error of a catalogue that names one tool twice. */
const duplicateName = (name: string): ToolIndexError =>
  new ToolIndexError({
    reason: "DuplicateName",
    message: `two tools are named \`${bounded(name)}\`: a model's call could not tell them apart`
  })

/**
 * A failure or defect of user code (an embedding model, a search function) as a typed error; an interruption
 * stays one.
 */
const guarded = <A>(
  effect: () => Effect.Effect<A, unknown>,
  reason: ToolIndexError["reason"],
  doing: string
): Effect.Effect<A, ToolIndexError> =>
  Effect.catchCause(
    Effect.suspend(() => {
      const returned: unknown = effect()
      // JavaScript callers are not held to the signature: a Promise or a plain value is a typed error too.
      if (Effect.isEffect(returned)) return returned as Effect.Effect<A, unknown>
      const message = `${doing} returned ${describeError(returned)}, not an Effect`
      return Effect.fail(new ToolIndexError({ reason, message }))
    }),
    (cause) => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
      const error = Cause.squash(cause)
      return Effect.fail(
        error instanceof ToolIndexError ? error : new ToolIndexError({
          reason,
          message: `${doing} failed: ${describeError(error)}`,
          cause: error
        })
      )
    }
  )

const embeddingError = (message: string): ToolIndexError => new ToolIndexError({ reason: "EmbeddingModel", message })

/** The vectors of an `embedMany` answer, checked: one per input, all of `dimensions` finite numbers. */
const checkVectors = (
  response: unknown,
  expected: number,
  dimensions: number | undefined
): Effect.Effect<Array<ReadonlyArray<number>>, ToolIndexError> => {
  const embeddings = Predicate.hasProperty(response, "embeddings") ? response.embeddings : undefined
  if (!Array.isArray(embeddings) || embeddings.length !== expected) {
    return Effect.fail(embeddingError(`the embedding model answered ${Array.isArray(embeddings) ? embeddings.length : "no"} vectors for ${expected} texts`))
  }
  const vectors: Array<ReadonlyArray<number>> = []
  let length = dimensions
  for (const embedding of embeddings) {
    const vector: unknown = Predicate.hasProperty(embedding, "vector") ? embedding.vector : undefined
    if (!Array.isArray(vector) || vector.length === 0 || !vector.every((x) => typeof x === "number" && Number.isFinite(x))) {
      return Effect.fail(embeddingError("the embedding model answered a vector that is not a non-empty list of finite numbers"))
    }
    length ??= vector.length
    if (vector.length !== length) {
      return Effect.fail(embeddingError(`the embedding model answered vectors of ${length} and ${vector.length} dimensions`))
    }
    vectors.push(vector)
  }
  return Effect.succeed(vectors)
}

const defaultBatchSize = 96

const batchSizeOf = (value: number | undefined): number =>
  typeof value === "number" && Number.isInteger(value) && value >= 1 ? value : defaultBatchSize

/**
 * The parameter text of a tool, read from its parameters Schema: generating the JSON Schema of every tool of a large
 * catalogue would cost more than the rest of the index, and selection exists so that only a turn's few tools need
 * their definitions. A Schema that names no properties (a tool whose definition carries a JSON Schema of its own, a
 * record) is read through its definition instead.
 */
const parameterTextOf = (tool: Tool.Any): ParameterText => {
  const fromSchema = fromSchemaAst(tool.parameters.ast)
  return fromSchema.names.length > 0 ? fromSchema : fromJsonSchema(ToolDefinition.fromTool(tool).parameters)
}

/** Each ranking read this deep before fusion: deep enough for any `topK` a turn asks, shallow enough to be cheap. */
const fusionDepth = (limit: number) => Math.max(limit, 50)

const buildVectors = Effect.fnUntraced(function*(
  model: EmbeddingModel.EmbeddingModel,
  embeddings: ReadonlyArray<ToolEmbedding.Any>,
  batchSize: number
) {
  const owners: Array<number> = []
  const texts: Array<string> = []
  embeddings.forEach((embedding, id) => {
    for (const doc of embedding.docs) {
      owners.push(id)
      texts.push(doc)
    }
  })
  const entries: Array<{ owner: number; vector: ReadonlyArray<number> }> = []
  let dimensions: number | undefined
  for (let start = 0; start < texts.length; start += batchSize) {
    const batch = texts.slice(start, start + batchSize)
    const response = yield* guarded(() => model.embedMany(batch), "EmbeddingModel", "embedding the tools' docs")
    const vectors = yield* checkVectors(response, batch.length, dimensions)
    dimensions ??= vectors[0]?.length
    vectors.forEach((vector, i) => entries.push({ owner: owners[start + i]!, vector }))
  }
  // No docs at all: there is nothing to compare a query with, and the lexical ranking decides alone.
  return dimensions === undefined ? undefined : buildVectorIndex(dimensions, entries)
})

/**
 * An index over these embedding tools: BM25 over their docs, names, descriptions and parameters; with an
 * `embeddingModel`, also their docs' vectors, fused with the lexical ranking.
 *
 * Fails with `DuplicateName` when two tools share a name, and with `EmbeddingModel` when the model fails or answers
 * vectors that cannot be compared. Throws a `TypeError` when given anything but embedding tools.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Tool, ToolEmbedding, ToolIndex, ToolSet } from "effect-llm-tools"
 *
 * const GetWeather = Tool.make("get_weather", {
 *   description: "The weather forecast for a city",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   call: ({ city }) => Effect.succeed(`sunny in ${city}`)
 * })
 *
 * const program = Effect.gen(function*() {
 *   const index = yield* ToolIndex.make([ToolEmbedding.make(GetWeather)])
 *   return yield* ToolIndex.select(index, ToolSet.make(GetWeather), "will it rain in Oslo?", { topK: 5 })
 * })
 * ```
 *
 * @category constructors
 */
export const make = (
  embeddings: Iterable<ToolEmbedding.Any>,
  options?: Options
): Effect.Effect<ToolIndex, ToolIndexError> => {
  const list = embeddingList(embeddings)
  return Effect.suspend(() => {
    const names = list.map((embedding) => embedding.name)
    const duplicate = firstDuplicate(names)
    if (duplicate !== undefined) return Effect.fail(duplicateName(duplicate))
    return Effect.gen(function*() {
      const lexical = yield* buildLexicalIndex(list.map((embedding) => {
        const parameters = parameterTextOf(embedding.tool)
        return {
          name: embedding.name,
          description: embedding.tool.description,
          docs: embedding.docs,
          parameterNames: parameters.names,
          parameterText: parameters.text
        }
      }))
      const model = options?.embeddingModel
      const vectors = model === undefined
        ? undefined
        : yield* buildVectors(model, list, batchSizeOf(options?.embeddingBatchSize))
      return fromRank(names, vectors === undefined || model === undefined
        ? (query, limit) => Effect.succeed(lexical.search(query, limit).map((id) => names[id]!))
        : fusedRank(names, lexical, vectors, model))
    })
  }).pipe(Effect.withSpan("ToolIndex.make"))
}

/** The embedding tools of `make`'s argument; a `TypeError` for anything else, a mistake of the caller's code. */
const embeddingList = (embeddings: Iterable<ToolEmbedding.Any>): Array<ToolEmbedding.Any> => {
  if (!Predicate.isIterable(embeddings) || typeof embeddings === "string") {
    throw new TypeError("ToolIndex.make: expected a list of ToolEmbedding values")
  }
  const list = Array.from(embeddings)
  list.forEach((embedding, i) => {
    if (!isToolEmbedding(embedding)) {
      throw new TypeError(`ToolIndex.make: item ${i} is not a ToolEmbedding (make one with ToolEmbedding.make)`)
    }
  })
  return list
}

/**
 * The most UTF-16 units of a query that are embedded. A query is usually a user's message, which can be a pasted
 * page, and embedding models take a few thousand tokens at most (OpenAI 8,191, Gemini 2,048): a longer input is
 * refused, and the whole selection would fail. The lexical ranking reads the first 256 distinct words (1,024 in all)
 * likewise.
 */
const maxEmbeddedQueryLength = 4096

/** The part of a query that is embedded: its start, never ending in half of a surrogate pair. */
const embeddedQuery = (query: string): string => {
  if (query.length <= maxEmbeddedQueryLength) return query
  const last = query.charCodeAt(maxEmbeddedQueryLength - 1)
  return query.slice(0, last >= 0xd800 && last <= 0xdbff ? maxEmbeddedQueryLength - 1 : maxEmbeddedQueryLength)
}

const fusedRank = (
  names: ReadonlyArray<string>,
  lexical: LexicalIndex,
  vectors: VectorIndex,
  model: EmbeddingModel.EmbeddingModel
) =>
(query: string, limit: number): Effect.Effect<ReadonlyArray<string>, ToolIndexError> =>
  guarded(() => model.embedMany([embeddedQuery(query)]), "EmbeddingModel", "embedding the query").pipe(
    Effect.flatMap((response) => checkVectors(response, 1, vectors.dimensions)),
    Effect.map(([vector]) => {
      const depth = fusionDepth(limit)
      return fuseRankings([lexical.search(query, depth), vectors.search(vector!, depth)])
        .slice(0, limit)
        .map((id) => names[id]!)
    })
  )

/**
 * An index over a search of your own: a vector store filled from `ToolEmbedding.schemas`, a hosted search. `tools`
 * names the tools the search ranks (names, or the `ToolSchema` records themselves); every other tool of a set is
 * always exposed. A failure or defect of `search` is a `ToolIndexError` with reason `Search`. Throws a `TypeError` for
 * options of another shape.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ToolIndex } from "effect-llm-tools"
 *
 * const index = ToolIndex.fromSearch({
 *   tools: ["get_weather", "get_time"],
 *   search: (query, topK) => Effect.succeed(query.includes("rain") ? ["get_weather"] : ["get_time"].slice(0, topK))
 * })
 * ```
 *
 * @category constructors
 */
export const fromSearch = (options: {
  readonly tools: Iterable<string | { readonly name: string }>
  readonly search: Search
}): ToolIndex => {
  if (!Predicate.isIterable(options?.tools) || typeof options.tools === "string" || typeof options.search !== "function") {
    throw new TypeError("ToolIndex.fromSearch: expected { tools: a list of names, search: a function }")
  }
  const names = [...new Set(Array.from(options.tools, (tool, i) => {
    const name: unknown = typeof tool === "string" ? tool : Predicate.hasProperty(tool, "name") ? tool.name : undefined
    if (typeof name !== "string") throw new TypeError(`ToolIndex.fromSearch: tool ${i} is neither a name nor a record with one`)
    return name
  }))]
  return fromRank(names, (query, limit) =>
    guarded(() => options.search(query, limit), "Search", "the search").pipe(
      Effect.flatMap((answer) => namesOf(answer, names.length + limit))
    ))
}

/**
 * The names a search answered, read up to `max` entries (more cannot matter: the turn takes at most every ranked
 * tool): an answer that is no list, or whose reading throws, is a typed error, and an endless one is read no further.
 */
const namesOf = (answer: unknown, max: number): Effect.Effect<Array<string>, ToolIndexError> => {
  const fail = (problem: string) =>
    Effect.fail(
      new ToolIndexError({ reason: "Search", message: `the search did not answer a list of names: ${problem}` })
    )
  if (!Predicate.isIterable(answer) || typeof answer === "string") return fail(`it answered ${describeError(answer)}`)
  const out: Array<string> = []
  try {
    let read = 0
    for (const name of answer) {
      if (++read > max) break
      if (typeof name === "string") out.push(name)
    }
  } catch (thrown) {
    return fail(`reading it threw ${describeError(thrown)}`)
  }
  return Effect.succeed(out)
}

/** Whole numbers of 0 or more; NaN and negatives are 0 (no ranked tools), fractions round down. */
const topKOf = (topK: number | undefined): number => {
  if (topK === undefined) return 5
  if (typeof topK !== "number" || !(topK > 0)) return 0
  return Math.floor(topK)
}

const planOf = (self: ToolIndex, set: ToolSet.Any): Plan => {
  let plan = self.plans.get(set)
  if (plan === undefined) {
    const always: Array<Tool.Any> = []
    const ranked = new Map<string, Tool.Any>()
    const rankedInOrder: Array<Tool.Any> = []
    for (const tool of set.tools) {
      if (self.nameSet.has(tool.name)) {
        ranked.set(tool.name, tool)
        rankedInOrder.push(tool)
      } else always.push(tool)
    }
    plan = { always, ranked, rankedInOrder }
    self.plans.set(set, plan)
  }
  return plan
}

const toolSetOf = <T extends Tool.Any>(tools: ReadonlyArray<Tool.Any>): ToolSet.ToolSet<T> =>
  ToolSet.make(...(tools as ReadonlyArray<T>))

/**
 * The tool set of one model turn: the `topK` tools of the index that best match `query` (best first), then the
 * tools of `toolSet` the index does not rank, which are always exposed, in the set's order. A tool is never both,
 * and an always-exposed tool is never left out. A call to a tool outside the turn's set is `not_found`.
 *
 * An empty or blank query, or a `topK` of 0 or less, gives the always-exposed tools only, without searching; a
 * `topK` at or above the number of ranked tools gives every tool. When the index finds fewer than `topK` matches,
 * the rest of the ranked tools fill the turn in set order, so a turn always has `min(topK, ranked tools)` of them.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Tool, ToolEmbedding, ToolSetBuilder, ToolIndex } from "effect-llm-tools"
 *
 * const GetWeather = Tool.make("get_weather", {
 *   description: "The weather forecast for a city",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   call: ({ city }) => Effect.succeed(`sunny in ${city}`)
 * })
 *
 * const program = Effect.gen(function*() {
 *   const { toolSet, index } = yield* ToolSetBuilder.make().pipe(
 *     ToolSetBuilder.addEmbedding(ToolEmbedding.make(GetWeather)),
 *     ToolSetBuilder.build
 *   )
 *   return yield* ToolIndex.select(index, toolSet, "will it rain in Oslo?", { topK: 5 })
 * })
 * ```
 *
 * @category combinators
 */
export const select: {
  <T extends Tool.Any>(
    toolSet: ToolSet.ToolSet<T>,
    query: string,
    options?: SelectOptions
  ): (self: ToolIndex) => Effect.Effect<ToolSet.ToolSet<T>, ToolIndexError>
  <T extends Tool.Any>(
    self: ToolIndex,
    toolSet: ToolSet.ToolSet<T>,
    query: string,
    options?: SelectOptions
  ): Effect.Effect<ToolSet.ToolSet<T>, ToolIndexError>
} = dual(
  (args) => isToolIndex(args[0]),
  <T extends Tool.Any>(
    self: ToolIndex,
    toolSet: ToolSet.ToolSet<T>,
    query: string,
    options?: SelectOptions
  ): Effect.Effect<ToolSet.ToolSet<T>, ToolIndexError> =>
    Effect.suspend(() => {
      const plan = planOf(self, toolSet)
      const topK = Math.min(topKOf(options?.topK), plan.rankedInOrder.length)
      if (topK === 0 || typeof query !== "string" || query.trim() === "") {
        return Effect.succeed(toolSetOf<T>(plan.always))
      }
      // Names the index ranks but the set lacks are skipped: ask for enough to fill `topK` despite them.
      const missing = self.names.length - plan.rankedInOrder.length
      return Effect.map(self.rank(query, topK + missing), (names) => {
        const picked = new Set<Tool.Any>()
        for (const name of names) {
          if (picked.size === topK) break
          const tool = plan.ranked.get(name)
          if (tool !== undefined) picked.add(tool)
        }
        for (let i = 0; picked.size < topK && i < plan.rankedInOrder.length; i++) picked.add(plan.rankedInOrder[i]!)
        return toolSetOf<T>([...picked, ...plan.always])
      })
    }).pipe(Effect.withSpan("ToolIndex.select"))
)
