import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Tool, ToolDefinition } from "../src/index.ts"
import { accepts, refsIn } from "./support/jsonSchema.ts"

const Forecast = Tool.make("forecast", {
  description: "Weather forecast for a city",
  parameters: Schema.Struct({
    city: Schema.String.annotate({ description: "City name, such as Paris" }),
    days: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 14 }))),
    units: Schema.optionalKey(Schema.Literals(["metric", "imperial"]))
  }),
  success: Schema.Struct({ temperatures: Schema.Array(Schema.Finite), summary: Schema.String }),
  annotations: { title: "Forecast", readOnly: true, openWorld: true, idempotent: true, strict: false, timeout: "5 seconds" },
  call: () => Effect.succeed({ temperatures: [21.5], summary: "sunny" })
})

class Point extends Schema.Class<Point>("Point")({ x: Schema.Int, y: Schema.Int }) {}

interface Category {
  readonly name: string
  readonly children: ReadonlyArray<Category>
}
const Category: Schema.Codec<Category> = Schema.Struct({
  name: Schema.String,
  children: Schema.Array(Schema.suspend((): Schema.Codec<Category> => Category))
}).annotate({ identifier: "Category" })

describe("ToolDefinition", () => {
  it("carries name, description, parameter and output JSON Schemas, and the annotations without timeout", () => {
    assert.deepStrictEqual(Tool.definition(Forecast), ToolDefinition.make({
      name: "forecast",
      description: "Weather forecast for a city",
      parameters: {
        type: "object",
        properties: {
          city: { type: "string", description: "City name, such as Paris" },
          days: { type: "integer", minimum: 1, maximum: 14 },
          units: { type: "string", enum: ["metric", "imperial"] }
        },
        required: ["city"],
        additionalProperties: false
      },
      outputSchema: {
        type: "object",
        properties: { temperatures: { type: "array", items: { type: "number" } }, summary: { type: "string" } },
        required: ["temperatures", "summary"],
        additionalProperties: false
      },
      annotations: { title: "Forecast", readOnly: true, openWorld: true, idempotent: true, strict: false }
    }))
  })

  it("is computed once: the same object every time, from Tool.definition and fromTool", () => {
    const first = Tool.definition(Forecast)
    assert.strictEqual(Tool.definition(Forecast), first)
    assert.strictEqual(ToolDefinition.fromTool(Forecast), first)
  })

  it("gives tools that share a parameters Schema equal parameters, never the same objects", () => {
    const Shared = Schema.Struct({ city: Schema.String, nested: Schema.Struct({ days: Schema.Int }) })
    const [one, two] = ["one", "two"].map((name) =>
      ToolDefinition.fromTool(
        Tool.make(name, { description: "d", parameters: Shared, call: () => Effect.succeed("ok") })
      ).parameters as { readonly properties: { readonly nested: object } }
    )
    assert.deepStrictEqual(one, two)
    assert.notStrictEqual(one, two)
    assert.notStrictEqual(one!.properties, two!.properties)
    assert.notStrictEqual(one!.properties.nested, two!.properties.nested)
  })

  it("has no outputSchema key without a success Schema", () => {
    const Ping = Tool.make("ping", {
      description: "Check the service",
      parameters: Schema.Struct({}),
      call: () => Effect.succeed("pong")
    })
    const definition = Tool.definition(Ping)
    assert.isFalse("outputSchema" in definition)
    assert.deepStrictEqual(definition.annotations, {})
  })

  it("describes empty parameters as an object with no properties that takes no extra keys", () => {
    const Ping = Tool.make("ping", {
      description: "Check the service",
      parameters: Schema.Struct({}),
      call: () => Effect.succeed("pong")
    })
    assert.deepStrictEqual(Tool.definition(Ping).parameters, {
      type: "object",
      properties: {},
      required: [],
      additionalProperties: false
    })
  })

  it("leaves optional keys out of required, and says required: [] when every key is optional", () => {
    const Search = Tool.make("search", {
      description: "Search",
      parameters: Schema.Struct({ query: Schema.optionalKey(Schema.String), limit: Schema.optionalKey(Schema.Int) }),
      call: () => Effect.succeed([])
    })
    assert.deepStrictEqual(Tool.definition(Search).parameters, {
      type: "object",
      properties: { query: { type: "string" }, limit: { type: "integer" } },
      required: [],
      additionalProperties: false
    })
  })

  it("drops the ±2^53 bounds of Schema.Int but keeps real bounds", () => {
    const Page = Tool.make("page", {
      description: "A page of results",
      parameters: Schema.Struct({
        any: Schema.Int,
        page: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
        size: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))
      }),
      call: () => Effect.succeed([])
    })
    assert.deepStrictEqual(Tool.definition(Page).parameters.properties, {
      any: { type: "integer" },
      page: { type: "integer", minimum: 0 },
      size: { type: "integer", minimum: 1, maximum: 100 }
    })
  })

  it("keeps descriptions on fields, nested structs and the parameters themselves", () => {
    const Move = Tool.make("move", {
      description: "Move a piece",
      parameters: Schema.Struct({
        piece: Schema.String.annotate({ description: "The piece's name" }),
        to: Schema.Struct({ file: Schema.Int, rank: Schema.Int }).annotate({ description: "The target square" })
      }).annotate({ description: "Where to move" }),
      call: () => Effect.succeed("moved")
    })
    const parameters = Tool.definition(Move).parameters as {
      readonly description?: unknown
      readonly properties: Record<string, { readonly description?: unknown }>
    }
    assert.deepStrictEqual(
      [parameters.description, parameters.properties.piece?.description, parameters.properties.to?.description],
      ["Where to move", "The piece's name", "The target square"]
    )
  })

  it("keeps the description of a Schema.Class field", () => {
    const Draw = Tool.make("draw", {
      description: "Draw a dot",
      parameters: Schema.Struct({ at: Point.annotate({ description: "Where to draw the dot" }) }),
      call: () => Effect.succeed("drawn")
    })
    const properties = Tool.definition(Draw).parameters.properties as Record<string, Record<string, unknown>>
    assert.strictEqual(properties.at?.description, "Where to draw the dot")
  })

  it("inlines Schema.Class fields: no $ref and no definitions left", () => {
    const Line = Tool.make("line", {
      description: "Draw a line",
      parameters: Schema.Struct({ from: Point, to: Point }),
      success: Point,
      call: () => Effect.succeed(new Point({ x: 0, y: 0 }))
    })
    const definition = Tool.definition(Line)
    const point = {
      type: "object",
      properties: { x: { type: "integer" }, y: { type: "integer" } },
      required: ["x", "y"],
      additionalProperties: false
    }
    assert.deepStrictEqual(definition.parameters, {
      type: "object",
      properties: { from: point, to: point },
      required: ["from", "to"],
      additionalProperties: false
    })
    assert.deepStrictEqual(definition.outputSchema, point)
    assert.deepStrictEqual(refsIn(definition), [])
  })

  it("keeps a recursive field resolvable: a root $defs that every $ref points into", () => {
    const Classify = Tool.make("classify", {
      description: "File an item under a category tree",
      parameters: Schema.Struct({ item: Schema.String, tree: Category }),
      call: () => Effect.succeed("filed")
    })
    const parameters = Tool.definition(Classify).parameters
    const defs = parameters.$defs as Record<string, unknown> | undefined
    assert.isDefined(defs)
    assert.deepStrictEqual(Object.keys(defs!), ["Category"])
    assert.deepStrictEqual(refsIn(parameters), ["#/$defs/Category", "#/$defs/Category"])
    assert.deepStrictEqual(
      [parameters.type, parameters.required, parameters.additionalProperties],
      ["object", ["item", "tree"], false]
    )
    const tree = { name: "root", children: [{ name: "a", children: [{ name: "b", children: [] }] }] }
    assert.isTrue(accepts(parameters, { item: "x", tree }))
    assert.isFalse(accepts(parameters, { item: "x", tree: { name: "root", children: [{ name: 1, children: [] }] } }))
  })

  it("describes recursive parameters as an object at the top, with a resolvable $defs", () => {
    const Walk = Tool.make("walk", {
      description: "Walk a category tree",
      parameters: Category,
      call: () => Effect.succeed("walked")
    })
    const parameters = Tool.definition(Walk).parameters
    assert.deepStrictEqual(
      [parameters.type, parameters.properties !== undefined, parameters.required, parameters.additionalProperties],
      ["object", true, ["name", "children"], false]
    )
    // The top-level object and the definition both point into $defs: nothing points at the root with "#".
    assert.deepStrictEqual(Object.keys(parameters.$defs as Record<string, unknown>), ["Category"])
    assert.deepStrictEqual(refsIn(parameters), ["#/$defs/Category", "#/$defs/Category"])
    assert.isTrue(accepts(parameters, { name: "root", children: [{ name: "a", children: [] }] }))
    const deepMistake = { name: "root", children: [{ name: "a", children: [{ name: 1, children: [] }] }] }
    assert.isFalse(accepts(parameters, deepMistake))
  })

  it("generates schemas that accept the values the Schemas accept, and reject extra keys", () => {
    const definition = Tool.definition(Forecast)
    assert.isTrue(accepts(definition.parameters, { city: "Paris" }))
    assert.isTrue(accepts(definition.parameters, { city: "Paris", days: 3, units: "metric" }))
    assert.isFalse(accepts(definition.parameters, { city: "Paris", days: 30 }))
    assert.isFalse(accepts(definition.parameters, { city: "Paris", days: 1.5 }))
    assert.isFalse(accepts(definition.parameters, { days: 3 }))
    assert.isFalse(accepts(definition.parameters, { city: "Paris", country: "FR" }))
    assert.isTrue(accepts(definition.outputSchema!, { temperatures: [1, 2.5], summary: "ok" }))
    assert.isFalse(accepts(definition.outputSchema!, { temperatures: ["hot"], summary: "ok" }))
  })

  it("describes the JSON side of the parameters, the side the model writes", () => {
    const Schedule = Tool.make("schedule", {
      description: "Schedule a meeting",
      parameters: Schema.Struct({ at: Schema.Date, attendees: Schema.NumberFromString }),
      call: () => Effect.succeed("scheduled")
    })
    const parameters = Tool.definition(Schedule).parameters
    assert.deepStrictEqual(parameters.properties, { at: { type: "string" }, attendees: { type: "string" } })
    assert.isTrue(accepts(parameters, { at: "2024-01-31T10:00:00.000Z", attendees: "3" }))
  })

  it("offers Schema.Number as a number to the model, in parameters and outputSchema, and the model's number is taken", () => {
    const Measure = Tool.make("measure", {
      description: "Measure",
      parameters: Schema.Struct({ scale: Schema.Number, samples: Schema.Array(Schema.Number) }),
      success: Schema.Struct({ mean: Schema.Number }),
      call: ({ samples, scale }) => Effect.succeed({ mean: scale * samples.reduce((a, b) => a + b, 0) / samples.length })
    })
    const definition = Tool.definition(Measure)
    assert.deepStrictEqual(definition.parameters.properties, {
      scale: { type: "number" },
      samples: { type: "array", items: { type: "number" } }
    })
    assert.deepStrictEqual(definition.outputSchema!.properties, { mean: { type: "number" } })
    assert.isTrue(accepts(definition.parameters, { scale: 2.5, samples: [1, -2, 3e10] }))
    for (const text of ["NaN", "Infinity", "-Infinity"]) {
      assert.isFalse(accepts(definition.parameters, { scale: text, samples: [] }))
      assert.isFalse(accepts(definition.parameters, { scale: 1, samples: [text] }))
    }
  })

  it("a record or a union of structs as parameters still gets an object with properties and required at the top", () => {
    const Record = Tool.make("record", {
      description: "A record",
      parameters: Schema.Record(Schema.String, Schema.Finite),
      call: () => Effect.succeed("ok")
    })
    const Union = Tool.make("union", {
      description: "A union",
      parameters: Schema.Union([Schema.Struct({ a: Schema.String }), Schema.Struct({ b: Schema.Finite })]),
      call: () => Effect.succeed("ok")
    })
    assert.deepStrictEqual(ToolDefinition.fromTool(Record).parameters, {
      type: "object",
      additionalProperties: { type: "number" },
      properties: {},
      required: []
    })
    assert.deepStrictEqual(ToolDefinition.fromTool(Union).parameters, {
      anyOf: [
        { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false },
        { type: "object", properties: { b: { type: "number" } }, required: ["b"], additionalProperties: false }
      ],
      type: "object",
      properties: {},
      required: []
    })
  })

  it("make gives hand-made parameters the object at the top providers and MCP ask for, and keeps ones that have it", () => {
    const made = (parameters: ToolDefinition.JsonSchema) =>
      ToolDefinition.make({ name: "remote", description: "A remote tool", parameters }).parameters
    assert.deepStrictEqual(made({ type: "object" }), { type: "object", properties: {} })
    assert.deepStrictEqual(made({ type: ["object", "null"], properties: { q: true } }), {
      type: "object",
      properties: { q: {} }
    })
    assert.deepStrictEqual(
      made({ allOf: [{ properties: { a: { type: "string" } } }, { properties: { b: { type: "number" } } }] }),
      { type: "object", properties: { a: { type: "string" }, b: { type: "number" } } }
    )
    const complete = { type: "object", properties: { q: { type: "string" } }, required: ["q"] }
    assert.strictEqual(made(complete), complete)
    assert.strictEqual(ToolDefinition.fromTool(Forecast).parameters.type, "object")
  })
})
