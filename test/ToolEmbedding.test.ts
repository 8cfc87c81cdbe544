import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Tool, ToolEmbedding } from "../src/index.ts"
import { withoutNegativeZero } from "./support/json.ts"
import { typeErrorOf } from "./support/throws.ts"

const GetWeather = Tool.make("get_weather", {
  description: "The weather forecast for a city",
  parameters: Schema.Struct({ city: Schema.String }),
  call: ({ city }) => Effect.succeed(`sunny in ${city}`)
})

const GetTime = Tool.make("get_time", {
  description: "The local time in a city",
  parameters: Schema.Struct({ city: Schema.String }),
  call: () => Effect.succeed("noon")
})

describe("ToolEmbedding.make", () => {
  it("defaults the docs to the name and description, and the context to null", () => {
    const embedding = ToolEmbedding.make(GetWeather)
    assert.deepStrictEqual(
      [embedding.tool, embedding.name, embedding.docs, embedding.context],
      [GetWeather, "get_weather", ["get_weather: The weather forecast for a city"], null]
    )
    assert.deepStrictEqual(ToolEmbedding.defaultDocs(GetWeather), embedding.docs)
  })

  it("keeps the docs and the context it is given", () => {
    const embedding = ToolEmbedding.make(GetWeather, {
      docs: ["weather forecast for a city", "will it rain tomorrow"],
      context: { region: "eu", tags: ["weather", 1, true, null] }
    })
    assert.deepStrictEqual(
      [embedding.docs, embedding.context],
      [["weather forecast for a city", "will it rain tomorrow"], { region: "eu", tags: ["weather", 1, true, null] }]
    )
  })

  it("takes docs from any iterable, copied: changing the input afterwards changes nothing", () => {
    const docs = ["first"]
    const embedding = ToolEmbedding.make(GetWeather, { docs })
    docs.push("second")
    assert.deepStrictEqual(embedding.docs, ["first"])
    assert.deepStrictEqual(ToolEmbedding.make(GetWeather, { docs: new Set(["a", "b"]) }).docs, ["a", "b"])
    assert.isTrue(Object.isFrozen(embedding.docs))
  })

  it("accepts an empty list of docs: the index still reads the name, description and parameters", () => {
    assert.deepStrictEqual(ToolEmbedding.make(GetWeather, { docs: [] }).docs, [])
  })

  it("drops undefined fields of the context, as JSON does", () => {
    const context = { kept: 1, dropped: undefined } as unknown as Schema.Json
    assert.deepStrictEqual(ToolEmbedding.make(GetWeather, { context }).context, { kept: 1 })
  })

  it("refuses something that is not a tool", () => {
    assert.strictEqual(
      typeErrorOf(() => ToolEmbedding.make({ name: "fake" } as unknown as Tool.Any)),
      "ToolEmbedding.make: the first argument is not a tool"
    )
  })

  it("refuses docs that are a string rather than a list, naming the tool", () => {
    assert.strictEqual(
      typeErrorOf(() => ToolEmbedding.make(GetWeather, { docs: "rain" as unknown as Array<string> })),
      "tool `get_weather`: docs must be a list of strings"
    )
  })

  it("refuses a doc that is not a string, naming the tool and the doc", () => {
    assert.strictEqual(
      typeErrorOf(() => ToolEmbedding.make(GetWeather, { docs: ["ok", 42 as unknown as string] })),
      "tool `get_weather`: doc 1 is not a string"
    )
  })

  it("refuses a context that is not JSON, naming the tool and the path", () => {
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    const cases: Array<[unknown, string]> = [
      [Number.NaN, "$.context is NaN, not JSON"],
      [{ at: new Date(0) }, "$.context.at is Date, not JSON"],
      [cycle, "$.context.self is a cycle, not JSON"],
      [{ f: () => 1 }, "$.context.f is function, not JSON"]
    ]
    for (const [context, problem] of cases) {
      assert.strictEqual(
        typeErrorOf(() => ToolEmbedding.make(GetWeather, { context: context as Schema.Json })),
        `tool \`get_weather\`: the context must be JSON: ${problem}`
      )
    }
  })

  it("is recognised by its guard and pipes", () => {
    const embedding = ToolEmbedding.make(GetWeather)
    assert.deepStrictEqual(
      [ToolEmbedding.isToolEmbedding(embedding), ToolEmbedding.isToolEmbedding(GetWeather), ToolEmbedding.isToolEmbedding(null)],
      [true, false, false]
    )
    assert.strictEqual(embedding.pipe((e) => e.name), "get_weather")
  })

  it.prop("keeps any JSON context and any list of docs as given", [Schema.Json, Schema.Array(Schema.String)], ([context, docs]) => {
    const embedding = ToolEmbedding.make(GetWeather, { context, docs })
    assert.deepStrictEqual(withoutNegativeZero(embedding.context), withoutNegativeZero(context))
    assert.deepStrictEqual(embedding.docs, docs)
  })
})

describe("ToolEmbedding.schemas", () => {
  it("gives each tool's name, context and docs, in order", () => {
    const records = ToolEmbedding.schemas([
      ToolEmbedding.make(GetWeather, { docs: ["will it rain"], context: { region: "eu" } }),
      ToolEmbedding.make(GetTime)
    ])
    assert.deepStrictEqual(records, [
      { name: "get_weather", context: { region: "eu" }, embeddingDocs: ["will it rain"] },
      { name: "get_time", context: null, embeddingDocs: ["get_time: The local time in a city"] }
    ])
  })

  it("gives nothing for no tools", () => {
    assert.deepStrictEqual(ToolEmbedding.schemas([]), [])
  })
})
