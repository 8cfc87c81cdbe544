import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Layer, Schema } from "effect"
import { AiError, EmbeddingModel } from "effect/ai"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Tool, ToolCall, ToolEmbedding, ToolIndex, ToolSet } from "../src/index.ts"
import { typeErrorOf } from "./support/throws.ts"

const City = Schema.Struct({ city: Schema.String })

const lookup = (name: string, description: string) =>
  Tool.make(name, { description, parameters: City, call: () => Effect.succeed(`${name} done`) })

const GetTime = lookup("get_time", "The local time in a city")
const GetWeather = lookup("get_weather", "The weather forecast for a city")
const Translate = Tool.make("translate_text", {
  description: "Translate text into another language",
  parameters: Schema.Struct({
    text: Schema.String,
    targetLanguage: Schema.String.annotate({ description: "The language to translate into, such as French" })
  }),
  call: ({ text }) => Effect.succeed(text)
})
const StockPrice = lookup("stock_price", "The latest price of a stock ticker")
const SendEmail = lookup("send_email", "Send an email to a contact")
const Add = Tool.make("add", {
  description: "Add two integers",
  parameters: Schema.Struct({ left: Schema.Int, right: Schema.Int }),
  call: ({ left, right }) => Effect.succeed(left + right)
})
const Echo = lookup("echo", "Repeat the text back")

const embeddings = [
  ToolEmbedding.make(GetTime),
  ToolEmbedding.make(GetWeather, { docs: ["weather forecast for a city", "will it rain tomorrow"] }),
  ToolEmbedding.make(Translate),
  ToolEmbedding.make(StockPrice),
  ToolEmbedding.make(SendEmail)
]
// The always-exposed tools are registered between and around the ranked ones: their order must survive selection.
const catalogue = ToolSet.make(Add, GetTime, GetWeather, Echo, Translate, StockPrice, SendEmail)
const ranked = ["get_time", "get_weather", "translate_text", "stock_price", "send_email"]

const lexicalIndex = ToolIndex.make(embeddings)

const namesOf = (set: ToolSet.Any) => ToolSet.names(set)

describe("ToolIndex.select", () => {
  it.effect("puts the best match first, then the rest of the top k, then the always-exposed tools in set order", () =>
    Effect.gen(function*() {
      const index = yield* lexicalIndex
      const turn = yield* ToolIndex.select(index, catalogue, "will it rain in Oslo tomorrow?", { topK: 2 })
      const names = namesOf(turn)
      assert.strictEqual(names[0], "get_weather")
      assert.strictEqual(names.length, 4)
      assert.include(ranked, names[1])
      assert.deepStrictEqual(names.slice(2), ["add", "echo"])
    }))

  it.effect("finds a tool by its parameters' names and descriptions, and by a split, stemmed name", () =>
    Effect.gen(function*() {
      const index = yield* lexicalIndex
      const byParameter = yield* ToolIndex.select(index, catalogue, "say this in French please", { topK: 1 })
      const bySplitName = yield* ToolIndex.select(index, catalogue, "stocks prices", { topK: 1 })
      assert.deepStrictEqual([namesOf(byParameter)[0], namesOf(bySplitName)[0]], ["translate_text", "stock_price"])
    }))

  it.effect("answers a call to a selected tool, and not_found to a tool left out of the turn", () =>
    Effect.gen(function*() {
      const index = yield* lexicalIndex
      const turn = yield* ToolIndex.select(index, catalogue, "will it rain tomorrow?", { topK: 1 })
      const call = (name: string, args: unknown) => ToolSet.execute(turn, ToolCall.make({ id: `c_${name}`, name, arguments: args }))
      const weather = yield* call("get_weather", { city: "Oslo" })
      const added = yield* call("add", { left: 1, right: 2 })
      const email = yield* call("send_email", { city: "Oslo" })
      assert.deepStrictEqual([weather.status, added.status], ["success", "success"])
      assert.strictEqual(email.status, "error")
      assert.strictEqual(email.error._tag === "Some" && email.error.value.kind, "not_found")
      // The full catalogue still has it: the turn, not the tool, decided.
      const full = yield* ToolSet.execute(catalogue, ToolCall.make({ id: "c", name: "send_email", arguments: { city: "x" } }))
      assert.strictEqual(full.status, "success")
    }))

  it.effect("gives only the always-exposed tools for an empty or blank query", () =>
    Effect.gen(function*() {
      const index = yield* lexicalIndex
      for (const query of ["", "   ", "\n\t"]) {
        assert.deepStrictEqual(namesOf(yield* ToolIndex.select(index, catalogue, query, { topK: 3 })), ["add", "echo"])
      }
    }))

  it.effect("gives only the always-exposed tools for a topK of 0, below 0, or NaN", () =>
    Effect.gen(function*() {
      const index = yield* lexicalIndex
      for (const topK of [0, -1, -Infinity, Number.NaN, 0.5]) {
        const turn = yield* ToolIndex.select(index, catalogue, "will it rain tomorrow?", { topK })
        assert.deepStrictEqual(namesOf(turn), ["add", "echo"], String(topK))
      }
    }))

  it.effect("gives every tool, ranked ones first, for a topK at or above the catalogue's size", () =>
    Effect.gen(function*() {
      const index = yield* lexicalIndex
      for (const topK of [5, 6, 1_000, Infinity]) {
        const names = namesOf(yield* ToolIndex.select(index, catalogue, "will it rain tomorrow?", { topK }))
        assert.strictEqual(names[0], "get_weather")
        assert.sameMembers(names.slice(0, 5), ranked)
        assert.deepStrictEqual(names.slice(5), ["add", "echo"], String(topK))
      }
    }))

  it.effect("fills the turn up to topK in set order when fewer tools match, and rounds a fractional topK down", () =>
    Effect.gen(function*() {
      const index = yield* lexicalIndex
      const turn = yield* ToolIndex.select(index, catalogue, "will it rain tomorrow?", { topK: 3.9 })
      // One tool matches; the next ranked tools of the set fill the rest.
      assert.deepStrictEqual(namesOf(turn), ["get_weather", "get_time", "translate_text", "add", "echo"])
      const nothing = yield* ToolIndex.select(index, catalogue, "zzzz qqqq", { topK: 2 })
      assert.deepStrictEqual(namesOf(nothing), ["get_time", "get_weather", "add", "echo"])
    }))

  it.effect("exposes five ranked tools when no topK is given", () =>
    Effect.gen(function*() {
      const index = yield* lexicalIndex
      const big = ToolSet.make(...Array.from({ length: 8 }, (_, i) => lookup(`tool_${i}`, "Does a thing")))
      const bigIndex = yield* ToolIndex.make(big.tools.map((tool) => ToolEmbedding.make(tool)))
      assert.strictEqual(namesOf(yield* ToolIndex.select(bigIndex, big, "thing")).length, 5)
      assert.strictEqual(namesOf(yield* ToolIndex.select(index, catalogue, "rain")).length, 7)
    }))

  it.effect("treats a set's tools the index does not rank as always exposed, and skips indexed names the set lacks", () =>
    Effect.gen(function*() {
      const index = yield* lexicalIndex
      const partial = ToolSet.make(SendEmail, Add, StockPrice)
      const turn = yield* ToolIndex.select(index, partial, "will it rain tomorrow?", { topK: 1 })
      // get_weather is the best match but not in this set: the best tool the set has stands in for it.
      assert.strictEqual(namesOf(turn).length, 2)
      assert.include(["send_email", "stock_price"], namesOf(turn)[0])
      assert.strictEqual(namesOf(turn)[1], "add")
    }))

  it.effect("is pipeable", () =>
    Effect.gen(function*() {
      const index = yield* lexicalIndex
      const turn = yield* index.pipe(ToolIndex.select(catalogue, "will it rain tomorrow?", { topK: 1 }))
      assert.deepStrictEqual(namesOf(turn), ["get_weather", "add", "echo"])
    }))

  it.effect.prop(
    "for any query and topK: a subset of the catalogue, every always-exposed tool once and last, at most topK ranked, deterministic",
    [
      Schema.Union([Schema.Literals(["will it rain tomorrow?", "send mail", "price of a stock", "translate"]), Schema.String]),
      Schema.Number
    ],
    ([query, topK]) =>
      Effect.gen(function*() {
        const index = yield* lexicalIndex
        const turn = namesOf(yield* ToolIndex.select(index, catalogue, query, { topK }))
        const again = namesOf(yield* ToolIndex.select(index, catalogue, query, { topK }))
        assert.deepStrictEqual(again, turn)
        assert.strictEqual(new Set(turn).size, turn.length)
        for (const name of turn) assert.include(namesOf(catalogue), name)
        const retrieved = turn.slice(0, turn.length - 2)
        assert.deepStrictEqual(turn.slice(-2), ["add", "echo"])
        for (const name of retrieved) assert.include(ranked, name)
        const expected = query.trim() === "" || !(topK > 0) ? 0 : Math.min(Math.floor(topK), ranked.length)
        assert.strictEqual(retrieved.length, expected)
      }),
    { arbitrary: { runs: 200 } }
  )
})

describe("ToolIndex.make", () => {
  it.effect("refuses two tools with one name", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(ToolIndex.make([ToolEmbedding.make(GetTime), ToolEmbedding.make(GetTime)]))
      assert.deepStrictEqual(
        [error._tag, error.reason, error.message],
        ["ToolIndexError", "DuplicateName", "two tools are named `get_time`: a model's call could not tell them apart"]
      )
    }))

  it("throws a TypeError, at the call, for anything but a list of embedding tools", () => {
    assert.strictEqual(
      typeErrorOf(() => ToolIndex.make(null as never)),
      "ToolIndex.make: expected a list of ToolEmbedding values"
    )
    assert.strictEqual(
      typeErrorOf(() => ToolIndex.make("get_time" as never)),
      "ToolIndex.make: expected a list of ToolEmbedding values"
    )
    assert.strictEqual(
      typeErrorOf(() => ToolIndex.make([ToolEmbedding.make(GetTime), GetWeather as never])),
      "ToolIndex.make: item 1 is not a ToolEmbedding (make one with ToolEmbedding.make)"
    )
    const shape = "ToolIndex.fromSearch: expected { tools: a list of names, search: a function }"
    assert.strictEqual(
      typeErrorOf(() => ToolIndex.fromSearch({ tools: null as never, search: () => Effect.succeed([]) })),
      shape
    )
    assert.strictEqual(typeErrorOf(() => ToolIndex.fromSearch({ tools: [], search: "no" as never })), shape)
    assert.strictEqual(
      typeErrorOf(() => ToolIndex.fromSearch({ tools: ["a", 42 as never], search: () => Effect.succeed([]) })),
      "ToolIndex.fromSearch: tool 1 is neither a name nor a record with one"
    )
  })

  it.effect("lists the names it ranks, in order", () =>
    Effect.gen(function*() {
      const index = yield* lexicalIndex
      assert.deepStrictEqual([...index.names], ranked)
      assert.isTrue(ToolIndex.isToolIndex(index))
      assert.isFalse(ToolIndex.isToolIndex(catalogue))
    }))

  it.effect("indexes an empty catalogue: every tool of a set is then always exposed", () =>
    Effect.gen(function*() {
      const index = yield* ToolIndex.make([])
      assert.deepStrictEqual(namesOf(yield* ToolIndex.select(index, catalogue, "rain", { topK: 3 })), namesOf(catalogue))
    }))

  it.effect("reads the parameters of a tool whose Schema names none through its definition", () =>
    Effect.gen(function*() {
      const Config = Tool.make("set_config", {
        description: "Change settings",
        parameters: Schema.Record(Schema.String, Schema.String.annotate({ description: "A hostname or port" })),
        call: () => Effect.void
      })
      const index = yield* ToolIndex.make([ToolEmbedding.make(SendEmail), ToolEmbedding.make(Config)])
      const turn = yield* ToolIndex.select(index, ToolSet.make(SendEmail, Config), "hostname", { topK: 1 })
      assert.deepStrictEqual(namesOf(turn), ["set_config"])
    }))

  it("loads the search engine and the stemmer only when an index is built, never on import", () => {
    const root = fileURLToPath(new URL("..", import.meta.url))
    const hook = `export async function resolve(specifier, context, next) {
      const resolved = await next(specifier, context)
      if (/\\/node_modules\\/(minisearch|wink-porter2-stemmer)\\//.test(resolved.url)) process.stderr.write("loaded\\n")
      return resolved
    }`
    const register = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)})`
    const script = `
      const { Effect } = await import("effect")
      const lib = await import("./src/index.ts")
      process.stderr.write("imported\\n")
      await Effect.runPromise(lib.ToolIndex.make([]))
      process.stderr.write("built\\n")
    `
    const child = spawnSync(process.execPath, [
      "--import", "tsx",
      "--import", `data:text/javascript,${encodeURIComponent(register)}`,
      "--input-type=module", "-e", script
    ], { cwd: root, encoding: "utf8" })
    assert.strictEqual(child.status, 0, child.stderr)
    // Both packages load once, after the import and before the build ends: the check sees loads when there are any.
    assert.deepStrictEqual(child.stderr.split("\n").filter((line) => line !== ""), ["imported", "loaded", "loaded", "built"])
  })
})

describe("ToolIndex.fromSearch", () => {
  const searchIndex = (search: ToolIndex.Search) => ToolIndex.fromSearch({ tools: ToolEmbedding.schemas(embeddings), search })

  it.effect("keeps the store's order, skips names it does not rank, repeats and always-exposed names", () =>
    Effect.gen(function*() {
      const asked: Array<[string, number]> = []
      const index = searchIndex((query, topK) => {
        asked.push([query, topK])
        return Effect.succeed(["stock_price", "nobody", "add", "stock_price", "send_email", "get_time"])
      })
      const turn = yield* ToolIndex.select(index, catalogue, "anything", { topK: 2 })
      assert.deepStrictEqual(namesOf(turn), ["stock_price", "send_email", "add", "echo"])
      assert.deepStrictEqual(asked, [["anything", 2]])
    }))

  it.effect("takes names as strings or records, and fills from the set when the store answers too few", () =>
    Effect.gen(function*() {
      const index = ToolIndex.fromSearch({ tools: ["get_time", { name: "send_email" }], search: () => Effect.succeed([]) })
      assert.deepStrictEqual([...index.names], ["get_time", "send_email"])
      const turn = yield* ToolIndex.select(index, catalogue, "anything", { topK: 5 })
      assert.deepStrictEqual(namesOf(turn), [
        "get_time", "send_email", "add", "get_weather", "echo", "translate_text", "stock_price"
      ])
    }))

  it.effect("never searches for a blank query or a topK of 0", () =>
    Effect.gen(function*() {
      let searches = 0
      const index = searchIndex(() => Effect.sync(() => (searches++, ["get_time"])))
      yield* ToolIndex.select(index, catalogue, " ", { topK: 3 })
      yield* ToolIndex.select(index, catalogue, "time", { topK: 0 })
      assert.strictEqual(searches, 0)
      yield* ToolIndex.select(index, catalogue, "time", { topK: 1 })
      assert.strictEqual(searches, 1)
    }))

  it.effect("turns a failing search into a Search error that keeps the cause", () =>
    Effect.gen(function*() {
      const boom = new Error("store is down")
      const error = yield* Effect.flip(ToolIndex.select(searchIndex(() => Effect.fail(boom)), catalogue, "x", { topK: 1 }))
      assert.deepStrictEqual([error.reason, error.message, error.cause], ["Search", "the search failed: Error", boom])
    }))

  it.effect("turns a search that throws or dies into a Search error, never a defect", () =>
    Effect.gen(function*() {
      const throws = searchIndex(() => {
        throw new TypeError("bug")
      })
      const dies = searchIndex(() => Effect.die("bug"))
      for (const index of [throws, dies]) {
        const exit = yield* Effect.exit(ToolIndex.select(index, catalogue, "x", { topK: 1 }))
        assert.isTrue(Exit.isFailure(exit) && !Cause.hasDies(exit.cause))
        const error = yield* Effect.flip(ToolIndex.select(index, catalogue, "x", { topK: 1 }))
        assert.strictEqual(error.reason, "Search")
      }
    }))

  it.effect("refuses an answer that is not a list of names", () =>
    Effect.gen(function*() {
      for (const [answer, kind] of [[null, "null"], [42, "a number"], ["get_time", "a string"]] as const) {
        const index = searchIndex(() => Effect.succeed(answer as unknown as Array<string>))
        const error = yield* Effect.flip(ToolIndex.select(index, catalogue, "x", { topK: 1 }))
        assert.deepStrictEqual(
          [error.reason, error.message],
          ["Search", `the search did not answer a list of names: it answered ${kind}`]
        )
      }
    }))

  it.effect("an answer whose reading throws, or a search that returns no Effect, is a Search error, never a defect", () =>
    Effect.gen(function*() {
      function* breaksHalfway() {
        yield "get_time"
        throw new Error("cursor lost")
      }
      const unreadable = { [Symbol.iterator]: () => { throw new Error("no iterator") } }
      const searches: Array<[ToolIndex.Search, string]> = [
        [() => Effect.succeed(breaksHalfway()), "the search did not answer a list of names: reading it threw Error"],
        [() => Effect.succeed(unreadable as never), "the search did not answer a list of names: reading it threw Error"],
        [() => Promise.resolve(["get_time"]) as never, "the search returned Promise, not an Effect"],
        [() => ["get_time"] as never, "the search returned Array, not an Effect"]
      ]
      for (const [search, message] of searches) {
        const exit = yield* Effect.exit(ToolIndex.select(searchIndex(search), catalogue, "x", { topK: 1 }))
        assert.isTrue(Exit.isFailure(exit) && !Cause.hasDies(exit.cause), message)
        const error = yield* Effect.flip(ToolIndex.select(searchIndex(search), catalogue, "x", { topK: 1 }))
        assert.deepStrictEqual([error.reason, error.message], ["Search", message])
      }
    }))

  it.effect("reads an endless answer only as far as a turn can use", () =>
    Effect.gen(function*() {
      function* endless() {
        yield "stock_price"
        for (;;) yield "nobody"
      }
      const turn = yield* ToolIndex.select(searchIndex(() => Effect.succeed(endless())), catalogue, "x", { topK: 2 })
      assert.deepStrictEqual(namesOf(turn).slice(0, 2), ["stock_price", "get_time"])
    }))

  it.effect("leaves an interruption of the search an interruption", () =>
    Effect.gen(function*() {
      const index = searchIndex(() => Effect.never)
      const fiber = yield* Effect.forkChild(ToolIndex.select(index, catalogue, "x", { topK: 1 }))
      yield* Effect.yieldNow
      const exit = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)))
      assert.isTrue(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause))
    }))
})

// A deterministic embedding model: one axis per topic, counting the topic's words in the text.
const topics: ReadonlyArray<ReadonlyArray<string>> = [
  ["weather", "rain", "umbrella", "forecast", "sunny"],
  ["time", "clock", "hour"],
  ["translate", "language", "french"],
  ["stock", "price", "shares", "market"],
  ["email", "mail", "inbox", "contact"]
]
const vectorOf = (text: string): Array<number> => {
  const words = text.toLowerCase().split(/[^a-z]+/)
  return topics.map((topic) => words.filter((word) => topic.includes(word)).length)
}

const makeFake = (batches: Array<number>) =>
  EmbeddingModel.make({
    embedMany: ({ inputs }) =>
      Effect.sync(() => {
        batches.push(inputs.length)
        return { results: inputs.map(vectorOf), usage: { inputTokens: undefined } }
      })
  })

const FakeEmbeddings = Layer.effect(EmbeddingModel.EmbeddingModel, makeFake([]))

/** A model whose `embedMany` answers what `answer` says, unchecked: for answers a provider could get wrong. */
const rawModel = (answer: (inputs: ReadonlyArray<string>) => unknown): EmbeddingModel.EmbeddingModel =>
  ({ embedMany: (inputs: ReadonlyArray<string>) => Effect.sync(() => answer(inputs)) }) as unknown as EmbeddingModel.EmbeddingModel

const aiFailure = AiError.make({
  module: "Fake",
  method: "embedMany",
  reason: new AiError.InvalidOutputError({ description: "the provider is down" })
})

describe("ToolIndex with an embedding model", () => {
  const umbrella = "should I pack an umbrella"

  it.effect("finds a tool that no word of the request names, which the lexical index alone cannot", () =>
    Effect.gen(function*() {
      const model = yield* EmbeddingModel.EmbeddingModel
      const fused = yield* ToolIndex.make(embeddings, { embeddingModel: model })
      const lexical = yield* lexicalIndex
      const withModel = namesOf(yield* ToolIndex.select(fused, catalogue, umbrella, { topK: 1 }))
      const withoutModel = namesOf(yield* ToolIndex.select(lexical, catalogue, umbrella, { topK: 1 }))
      assert.deepStrictEqual([withModel, withoutModel], [["get_weather", "add", "echo"], ["get_time", "add", "echo"]])
    }).pipe(Effect.provide(FakeEmbeddings)))

  it.effect("keeps what the lexical ranking found: the vectors only add candidates", () =>
    Effect.gen(function*() {
      const model = yield* EmbeddingModel.EmbeddingModel
      const fused = yield* ToolIndex.make(embeddings, { embeddingModel: model })
      // Lexically, only translate_text matches; by vector, the umbrella points at get_weather.
      const names = namesOf(yield* ToolIndex.select(fused, catalogue, `${umbrella}, and translate`, { topK: 2 }))
      assert.sameMembers(names.slice(0, 2), ["get_weather", "translate_text"])
    }).pipe(Effect.provide(FakeEmbeddings)))

  it.effect("embeds the docs in batches of the given size, and each query once", () =>
    Effect.gen(function*() {
      const batches: Array<number> = []
      const model = yield* makeFake(batches)
      // Six docs: get_weather has two.
      const index = yield* ToolIndex.make(embeddings, { embeddingModel: model, embeddingBatchSize: 4 })
      assert.deepStrictEqual(batches, [4, 2])
      yield* ToolIndex.select(index, catalogue, umbrella, { topK: 1 })
      assert.deepStrictEqual(batches, [4, 2, 1])
      const defaults: Array<number> = []
      yield* ToolIndex.make(embeddings, { embeddingModel: yield* makeFake(defaults), embeddingBatchSize: 0 })
      assert.deepStrictEqual(defaults, [6])
    }))

  it.effect("embeds the start of a long query, never half of a character: embedding models refuse long inputs", () =>
    Effect.gen(function*() {
      const embedded: Array<string> = []
      const model = EmbeddingModel.make({
        embedMany: ({ inputs }) =>
          Effect.sync(() => {
            embedded.push(...inputs)
            return { results: inputs.map(vectorOf), usage: { inputTokens: undefined } }
          })
      })
      const index = yield* ToolIndex.make(embeddings, { embeddingModel: yield* model })
      embedded.length = 0
      // A pasted page: the request first, then 100,000 characters, a surrogate pair across the cut.
      const page = `${umbrella} ${"x".repeat(4096 - umbrella.length - 2)}\u{1F302} ${"log line ".repeat(11_000)}`
      const names = namesOf(yield* ToolIndex.select(index, catalogue, page, { topK: 1 }))
      assert.strictEqual(names[0], "get_weather")
      assert.strictEqual(embedded.length, 1)
      assert.strictEqual(embedded[0], page.slice(0, 4095))
      yield* ToolIndex.select(index, catalogue, umbrella, { topK: 1 })
      assert.strictEqual(embedded[1], umbrella)
    }))

  it.effect("turns a model failure while indexing or selecting into an EmbeddingModel error with its cause", () =>
    Effect.gen(function*() {
      const failing = rawModel(() => {
        throw aiFailure
      })
      const failingModel = { embedMany: () => Effect.fail(aiFailure) } as unknown as EmbeddingModel.EmbeddingModel
      const atBuild = yield* Effect.flip(ToolIndex.make(embeddings, { embeddingModel: failingModel }))
      assert.deepStrictEqual(
        [atBuild.reason, atBuild.message, atBuild.cause],
        ["EmbeddingModel", "embedding the tools' docs failed: AiError", aiFailure]
      )
      const thrownAtBuild = yield* Effect.flip(ToolIndex.make(embeddings, { embeddingModel: failing }))
      assert.strictEqual(thrownAtBuild.reason, "EmbeddingModel")
      let calls = 0
      const failsLater = rawModel((inputs) => {
        if (calls++ > 0) throw aiFailure
        return { embeddings: inputs.map((input) => ({ vector: vectorOf(input) })) }
      })
      const index = yield* ToolIndex.make(embeddings, { embeddingModel: failsLater })
      const atSelect = yield* Effect.flip(ToolIndex.select(index, catalogue, umbrella, { topK: 1 }))
      assert.deepStrictEqual([atSelect.reason, atSelect.message], ["EmbeddingModel", "embedding the query failed: AiError"])
    }))

  it.effect("refuses vectors that cannot be compared", () =>
    Effect.gen(function*() {
      const cases: Array<[(inputs: ReadonlyArray<string>) => unknown, string]> = [
        [() => ({ embeddings: [] }), "the embedding model answered 0 vectors for 6 texts"],
        [() => ({}), "the embedding model answered no vectors for 6 texts"],
        [
          (inputs) => ({ embeddings: inputs.map((_, i) => ({ vector: i === 3 ? [Number.NaN, 1] : [1, 2] })) }),
          "the embedding model answered a vector that is not a non-empty list of finite numbers"
        ],
        [
          (inputs) => ({ embeddings: inputs.map(() => ({ vector: [] })) }),
          "the embedding model answered a vector that is not a non-empty list of finite numbers"
        ],
        [
          (inputs) => ({ embeddings: inputs.map((_, i) => ({ vector: i === 0 ? [1, 2] : [1, 2, 3] })) }),
          "the embedding model answered vectors of 2 and 3 dimensions"
        ]
      ]
      for (const [answer, message] of cases) {
        const error = yield* Effect.flip(ToolIndex.make(embeddings, { embeddingModel: rawModel(answer) }))
        assert.deepStrictEqual([error.reason, error.message], ["EmbeddingModel", message])
      }
      // A query vector of another length than the docs' is refused at selection.
      let calls = 0
      const shrinking = rawModel((inputs) => ({ embeddings: inputs.map(() => ({ vector: calls++ < 6 ? [1, 2, 3] : [1, 2] })) }))
      const index = yield* ToolIndex.make(embeddings, { embeddingModel: shrinking })
      const error = yield* Effect.flip(ToolIndex.select(index, catalogue, "x", { topK: 1 }))
      assert.deepStrictEqual([error.reason, error.message], ["EmbeddingModel", "the embedding model answered vectors of 3 and 2 dimensions"])
    }))

  it.effect("a vector without a direction (zeros) adds nothing: the lexical ranking decides", () =>
    Effect.gen(function*() {
      // Fifty tools the request is not about, registered first, then the one it is about.
      const tools = [
        ...Array.from({ length: 50 }, (_, i) => lookup(`list_invoices_${i}`, `List the invoices of account ${i}`)),
        GetWeather
      ]
      const set = ToolSet.make(...tools)
      const catalogueOf = tools.map((tool) => ToolEmbedding.make(tool))
      const query = "weather forecast"
      const zeros = (queryVector: boolean) =>
        rawModel((inputs) => ({
          embeddings: inputs.map((text) => ({ vector: (text === query) === queryVector ? [0, 0, 0] : [1, 0, 0] }))
        }))
      for (const queryVector of [true, false]) {
        const index = yield* ToolIndex.make(catalogueOf, { embeddingModel: zeros(queryVector) })
        const turn = yield* ToolIndex.select(index, set, query, { topK: 1 })
        assert.deepStrictEqual(namesOf(turn), ["get_weather"], queryVector ? "a zero query" : "zero docs")
      }
    }))

  it.effect("vectors of very large or very small numbers keep their direction", () =>
    Effect.gen(function*() {
      // get_weather's docs point one way, the others another; the query points get_weather's way, scaled far up.
      const scaled = (scale: number) =>
        rawModel((inputs) => ({
          embeddings: inputs.map((text) => ({
            vector: /weather|rain|umbrella/.test(text) ? [scale, 0, 0] : [0, scale, scale]
          }))
        }))
      for (const scale of [1e200, 1e-170]) {
        const index = yield* ToolIndex.make(embeddings, { embeddingModel: scaled(scale) })
        const turn = yield* ToolIndex.select(index, catalogue, "umbrella", { topK: 1 })
        assert.strictEqual(namesOf(turn)[0], "get_weather", String(scale))
      }
    }))

  it.effect("ranks lexically alone when no tool has a doc to embed", () =>
    Effect.gen(function*() {
      const batches: Array<number> = []
      const index = yield* ToolIndex.make([ToolEmbedding.make(GetWeather, { docs: [] })], { embeddingModel: yield* makeFake(batches) })
      const turn = yield* ToolIndex.select(index, ToolSet.make(GetWeather), "weather", { topK: 1 })
      assert.deepStrictEqual([namesOf(turn), batches], [["get_weather"], []])
    }))
})

describe("the default retriever", () => {
  const rank = (tools: ReadonlyArray<Tool.Any>, query: string, topK = 1) =>
    Effect.gen(function*() {
      const index = yield* ToolIndex.make(tools.map((tool) => ToolEmbedding.make(tool, { docs: [] })))
      return namesOf(yield* ToolIndex.select(index, ToolSet.make(...tools), query, { topK }))
    })

  it.effect("splits names on camelCase, dots and dashes", () =>
    Effect.gen(function*() {
      const tools = [lookup("noop", "Does nothing"), lookup("createCalendarEvent", "Adds an entry"), lookup("github.open-ticket", "Files one")]
      assert.deepStrictEqual(yield* rank(tools, "calendar"), ["createCalendarEvent"])
      assert.deepStrictEqual(yield* rank(tools, "ticket"), ["github.open-ticket"])
    }))

  it.effect("lets a query word match the longer words it begins", () =>
    Effect.gen(function*() {
      const tools = [lookup("noop", "Does nothing"), lookup("check_authentication", "Checks a login")]
      assert.deepStrictEqual(yield* rank(tools, "auth"), ["check_authentication"])
    }))

  it.effect("searches a request's everyday words with the words tool authors use", () =>
    Effect.gen(function*() {
      const tools = [lookup("read_file", "Read a file"), lookup("delete_file", "Delete a file")]
      // Both mention a file; only the thesaurus knows that removing is deleting.
      assert.deepStrictEqual(yield* rank(tools, "remove that file"), ["delete_file"])
    }))

  it.effect("ignores function words, which match nearly every description", () =>
    Effect.gen(function*() {
      const tools = [lookup("noop", "Does nothing"), lookup("get_thing", "Get the thing")]
      // "the" matches nothing, so the turn is filled in set order.
      assert.deepStrictEqual(yield* rank(tools, "the"), ["noop"])
    }))

  it.effect("searches at most the first 256 distinct words of a query", () =>
    Effect.gen(function*() {
      const tools = [lookup("noop", "Does nothing"), lookup("get_weather", "The weather forecast")]
      const noise = Array.from({ length: 300 }, (_, i) => `w${i}x`).join(" ")
      assert.deepStrictEqual(yield* rank(tools, `weather ${noise}`), ["get_weather"])
      assert.deepStrictEqual(yield* rank(tools, `${noise} weather`), ["noop"])
    }))

  it.effect("keeps the first 64 characters of a word: a long token in a description or a query matches by them", () =>
    Effect.gen(function*() {
      const token = "a1b2c3d4".repeat(16)
      const tools = [lookup("noop", "Does nothing"), lookup("find_commit", `Finds the commit ${token}`)]
      // The same first 64 characters, then another ending: the same word, cut.
      assert.deepStrictEqual(yield* rank(tools, `${token.slice(0, 64)}ffff`), ["find_commit"])
      // Another word within its first 64 characters is another word.
      assert.deepStrictEqual(yield* rank(tools, `${token.slice(0, 60)}zzzz`), ["noop"])
    }))

  it.effect("answers a query of one word a megabyte long, and builds over a description that holds one", () =>
    Effect.gen(function*() {
      // The stemmer's time grows with the square of a word's length: whole, such a word would take hours.
      const huge = "s".repeat(1 << 20)
      const tools = [lookup("noop", "Does nothing"), lookup("get_weather", `The weather forecast ${huge}`)]
      assert.deepStrictEqual(yield* rank(tools, huge), ["get_weather"])
      // A megabyte of a script written without spaces is half a million words: the first of them are read.
      assert.deepStrictEqual(yield* rank(tools, `weather ${"\u4f60\u597d".repeat(1 << 19)}`), ["get_weather"])
    }))

  it.effect("matches a word however Unicode spells it: composed or decomposed accents, full-width letters", () =>
    Effect.gen(function*() {
      const tools = [lookup("noop", "Does nothing"), lookup("find_cafe", "Finds a caf\u00e9 nearby")]
      assert.deepStrictEqual(yield* rank(tools, "cafe\u0301"), ["find_cafe"])
      assert.deepStrictEqual(yield* rank(tools, "\uff43\uff41\uff46\u00e9"), ["find_cafe"])
    }))

  it.effect("treats a query that is not a string as blank", () =>
    Effect.gen(function*() {
      const index = yield* lexicalIndex
      for (const query of [42, null, undefined, { toString: () => "rain" }]) {
        const turn = yield* ToolIndex.select(index, catalogue, query as unknown as string, { topK: 3 })
        assert.deepStrictEqual(namesOf(turn), ["add", "echo"])
      }
    }))
})
