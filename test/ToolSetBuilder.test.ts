import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { Context, Effect, Layer, Schema } from "effect"
import { EmbeddingModel } from "effect/ai"
import { Tool, ToolCall, ToolEmbedding, ToolIndex, ToolSet, ToolSetBuilder } from "../src/index.ts"

class Units extends Context.Service<Units, "metric" | "imperial">()("test/Units") {}

const Add = Tool.make("add", {
  description: "Add two integers",
  parameters: Schema.Struct({ left: Schema.Int, right: Schema.Int }),
  call: ({ left, right }) => Effect.succeed(left + right)
})
const SearchDocs = Tool.make("search_docs", {
  description: "Search the product documentation",
  parameters: Schema.Struct({ query: Schema.String }),
  call: () => Effect.succeed([])
})
const GetWeather = Tool.make("get_weather", {
  description: "The weather forecast for a city",
  parameters: Schema.Struct({ city: Schema.String }),
  call: ({ city }) =>
    Effect.gen(function*() {
      const units = yield* Units
      return `18 degrees (${units}) in ${city}`
    })
})
const GetTime = Tool.make("get_time", {
  description: "The local time in a city",
  parameters: Schema.Struct({ city: Schema.String }),
  call: () => Effect.succeed("noon")
})

const Weather = ToolEmbedding.make(GetWeather, { docs: ["weather forecast for a city", "will it rain tomorrow"] })
const Time = ToolEmbedding.make(GetTime)

const builder = ToolSetBuilder.make().pipe(
  ToolSetBuilder.addStatic(Add),
  ToolSetBuilder.addEmbedding(Weather),
  ToolSetBuilder.addDynamic(SearchDocs),
  ToolSetBuilder.addEmbedding(Time)
)

describe("ToolSetBuilder", () => {
  it.effect("builds the set of every tool in registration order, and an index over the embedding tools", () =>
    Effect.gen(function*() {
      const { toolSet, index } = yield* ToolSetBuilder.build(builder)
      assert.deepStrictEqual(ToolSet.names(toolSet), ["add", "get_weather", "search_docs", "get_time"])
      assert.deepStrictEqual([...index.names], ["get_weather", "get_time"])
    }))

  it.effect("selects a turn: retrieved embedding tools first, then static and dynamic tools in registration order", () =>
    Effect.gen(function*() {
      const { toolSet, index } = yield* ToolSetBuilder.build(builder)
      const turn = yield* ToolIndex.select(index, toolSet, "will it rain in Oslo?", { topK: 1 })
      assert.deepStrictEqual(ToolSet.names(turn), ["get_weather", "add", "search_docs"])
      const none = yield* ToolIndex.select(index, toolSet, "", { topK: 1 })
      assert.deepStrictEqual(ToolSet.names(none), ["add", "search_docs"])
      const outside = yield* ToolSet.execute(turn, ToolCall.make({ id: "c1", name: "get_time", arguments: { city: "Oslo" } }))
      assert.strictEqual(outside.error._tag === "Some" && outside.error.value.kind, "not_found")
      const inside = yield* ToolSet.execute(turn, ToolCall.make({ id: "c2", name: "get_weather", arguments: { city: "Oslo" } }))
      assert.strictEqual(inside.status, "success")
    }).pipe(Effect.provideService(Units, "metric")))

  it.effect("refuses two registrations with one name, whatever their kinds", () =>
    Effect.gen(function*() {
      const cases: Array<ToolSetBuilder.ToolSetBuilder<Tool.Any>> = [
        ToolSetBuilder.make().pipe(ToolSetBuilder.addStatic(GetWeather), ToolSetBuilder.addEmbedding(Weather)),
        ToolSetBuilder.make().pipe(ToolSetBuilder.addStatic(Add), ToolSetBuilder.addDynamic(Add)),
        ToolSetBuilder.make().pipe(ToolSetBuilder.addEmbedding(Time), ToolSetBuilder.addEmbedding(ToolEmbedding.make(GetTime))),
        ToolSetBuilder.make().pipe(ToolSetBuilder.addStatic(Add), ToolSetBuilder.addStatic(Add))
      ]
      const names = ["get_weather", "add", "get_time", "add"]
      for (const [i, duplicate] of cases.entries()) {
        const error = yield* Effect.flip(ToolSetBuilder.build(duplicate))
        assert.deepStrictEqual(
          [error._tag, error.reason, error.message],
          [
            "ToolIndexError",
            "DuplicateName",
            `two tools are named \`${names[i]}\`: a set would keep one, and a call could not tell which`
          ]
        )
      }
    }))

  it.effect("builds an empty catalogue", () =>
    Effect.gen(function*() {
      const { toolSet, index } = yield* ToolSetBuilder.build(ToolSetBuilder.make())
      assert.deepStrictEqual([ToolSet.names(toolSet), index.names], [[], []])
      assert.deepStrictEqual(ToolSet.names(yield* ToolIndex.select(index, toolSet, "rain", { topK: 5 })), [])
    }))

  it("is immutable: adding returns a new builder and leaves the old one as it was", () => {
    const base = ToolSetBuilder.make().pipe(ToolSetBuilder.addStatic(Add))
    const one = ToolSetBuilder.addEmbedding(base, Weather)
    const other = ToolSetBuilder.addEmbedding(base, Time)
    assert.deepStrictEqual(
      [base.entries.length, one.entries.map((e) => e._tag), other.entries.map((e) => e._tag)],
      [1, ["Static", "Embedding"], ["Static", "Embedding"]]
    )
    assert.strictEqual((other.entries[1] as { embedding: ToolEmbedding.Any }).embedding, Time)
    assert.isTrue(ToolSetBuilder.isToolSetBuilder(base))
    assert.isFalse(ToolSetBuilder.isToolSetBuilder(Add))
  })

  it("throws a TypeError when something else than a tool or an embedding tool is added", () => {
    const builder = ToolSetBuilder.make()
    assert.throws(() => ToolSetBuilder.addStatic(builder, { name: "x" } as never), TypeError, "ToolSetBuilder.addStatic: expected a tool")
    assert.throws(() => ToolSetBuilder.addDynamic(builder, Weather as never), TypeError, "ToolSetBuilder.addDynamic: expected a tool")
    assert.throws(
      () => ToolSetBuilder.addEmbedding(builder, GetWeather as never),
      TypeError,
      "ToolSetBuilder.addEmbedding: expected a ToolEmbedding (make one with ToolEmbedding.make)"
    )
  })

  it("lists its embedding tools in order, for ToolEmbedding.schemas", () => {
    assert.deepStrictEqual(ToolEmbedding.schemas(ToolSetBuilder.embeddings(builder)).map((s) => s.name), ["get_weather", "get_time"])
  })

  it.effect("passes the index options on: with an embedding model, the docs are embedded", () =>
    Effect.gen(function*() {
      const inputs: Array<string> = []
      const model = yield* EmbeddingModel.EmbeddingModel
      const counting = { embedMany: (texts: ReadonlyArray<string>) => (inputs.push(...texts), model.embedMany(texts)) }
      yield* ToolSetBuilder.build(builder, { embeddingModel: counting as unknown as EmbeddingModel.EmbeddingModel })
      assert.deepStrictEqual(inputs, ["weather forecast for a city", "will it rain tomorrow", "get_time: The local time in a city"])
    }).pipe(Effect.provide(Layer.effect(
      EmbeddingModel.EmbeddingModel,
      EmbeddingModel.make({
        embedMany: ({ inputs }) => Effect.succeed({ results: inputs.map((text) => [text.length, 1]), usage: { inputTokens: undefined } })
      })
    ))))

  it("keeps every tool's type, and with it the services the set needs", () => {
    const built = ToolSetBuilder.build(builder)
    type Built = Effect.Success<typeof built>
    expectTypeOf<ToolSet.Requirements<Built["toolSet"]>>().toEqualTypeOf<Units>()
    expectTypeOf<Effect.Error<typeof built>>().toEqualTypeOf<ToolIndex.ToolIndexError>()
    expectTypeOf<Effect.Services<typeof built>>().toEqualTypeOf<never>()
  })

  it("adds many tools one at a time without copying the list each time", () => {
    let many = ToolSetBuilder.make() as ToolSetBuilder.ToolSetBuilder<Tool.Any>
    for (let i = 0; i < 20_000; i++) many = ToolSetBuilder.addStatic(many, Add)
    assert.strictEqual(many.entries.length, 20_000)
  })
})
