import { assert, describe, expect, it } from "@effect/vitest"
import { Arbitrary, Effect, Option, Result, Schema } from "effect"
import { toStrictJsonSchema } from "openai/lib/transform"
import { compile, restoreAbsent, StrictSchemaError } from "../../src/internal/openAiStrict.ts"
import * as DynamicTool from "../../src/DynamicTool.ts"
import * as OpenAiChat from "../../src/provider/OpenAiChat.ts"
import * as Tool from "../../src/Tool.ts"
import * as ToolDefinition from "../../src/ToolDefinition.ts"
import * as ToolOutput from "../../src/ToolOutput.ts"
import * as ToolSet from "../../src/ToolSet.ts"
import { withoutNegativeZero } from "../support/json.ts"
import { accepts } from "../support/jsonSchema.ts"

const definition = (parameters: ToolDefinition.JsonSchema): ToolDefinition.ToolDefinition =>
  ToolDefinition.make({ name: "t", description: "test", parameters })

describe("compile", () => {
  it("makes every property required, optional ones nullable, and removes value-only keywords", () => {
    const compiled = Result.getOrThrow(compile(definition({
      type: "object",
      properties: {
        name: { type: "string", minLength: 2, pattern: "^[a-z]+$", description: "Name" },
        tags: { type: "array", items: { type: "string" }, uniqueItems: true, maxItems: 3 },
        kind: { type: "string", enum: ["a", "b"] },
        at: { type: "string", format: "date-time" },
        site: { type: "string", format: "uri" },
        note: { anyOf: [{ type: "string" }, { type: "null" }] },
        shape: { oneOf: [{ type: "object", properties: { r: { type: "number" } }, required: ["r"] }, { type: "integer" }] }
      },
      required: ["name"],
      additionalProperties: false
    })))
    expect(compiled.parameters).toStrictEqual({
      type: "object",
      properties: {
        name: { type: "string", pattern: "^[a-z]+$", description: "Name" },
        tags: { type: ["array", "null"], items: { type: "string" }, maxItems: 3 },
        kind: { anyOf: [{ type: "string", enum: ["a", "b"] }, { type: "null" }] },
        at: { type: ["string", "null"], format: "date-time" },
        site: { type: ["string", "null"] },
        note: { anyOf: [{ type: "string" }, { type: "null" }] },
        shape: {
          anyOf: [
            { type: "object", properties: { r: { type: "number" } }, required: ["r"], additionalProperties: false },
            { type: "integer" },
            { type: "null" }
          ]
        }
      },
      required: ["name", "tags", "kind", "at", "site", "note", "shape"],
      additionalProperties: false
    })
  })

  it("refuses what strict mode cannot express, naming the tool, the path and the keyword", () => {
    const refusal = (parameters: ToolDefinition.JsonSchema) => {
      const out = compile(definition(parameters))
      assert(Result.isFailure(out))
      return [out.failure.path, out.failure.keyword]
    }
    expect(refusal({ type: "object", properties: { m: { type: "object", additionalProperties: { type: "string" } } } }))
      .toStrictEqual(["/properties/m", "additionalProperties"])
    expect(refusal({ type: "object", properties: { t: { type: "array", prefixItems: [{ type: "string" }] } } }))
      .toStrictEqual(["/properties/t", "prefixItems"])
    expect(refusal({ type: "object", properties: { a: { allOf: [{ type: "string" }] } } }))
      .toStrictEqual(["/properties/a", "allOf"])
    // A union of objects at the top is offered as one object; one with a branch that is no object cannot be.
    expect(refusal({ anyOf: [{ type: "object" }, { type: "string" }] })).toStrictEqual(["/", "anyOf"])
    expect(refusal({ type: "string" })).toStrictEqual(["/", "type"])
    const out = compile(definition({ type: "object", properties: { "a/b": { not: { type: "string" } } } }))
    assert(Result.isFailure(out))
    expect(out.failure).toStrictEqual(
      new StrictSchemaError({
        toolName: "t",
        path: "/properties/a~1b",
        keyword: "not",
        message: "tool `t` cannot use OpenAI strict mode: `not` is not supported in strict mode (at /properties/a~1b)"
      })
    )
  })

  it("refuses an array without items, as the openai SDK's own strict transform does", () => {
    const parameters: ToolDefinition.JsonSchema = {
      type: "object",
      properties: { list: { type: "array", maxItems: 3 } },
      required: ["list"]
    }
    expect(() => toStrictJsonSchema(parameters)).toThrow(/array without `items`/)
    expect(compile(definition(parameters))).toStrictEqual(Result.fail(new StrictSchemaError({
      toolName: "t",
      path: "/properties/list",
      keyword: "items",
      message:
        "tool `t` cannot use OpenAI strict mode: an array without `items` cannot be expressed in strict mode (at /properties/list)"
    })))
    // `Schema.Array(Schema.Unknown)` is such an array.
    const Bag = Tool.make("bag", {
      description: "d",
      parameters: Schema.Struct({ things: Schema.Array(Schema.Unknown) }),
      call: () => Effect.succeed("ok")
    })
    const out = OpenAiChat.definitions(ToolSet.make(Bag), { strict: true })
    assert(Result.isFailure(out) && out.failure._tag === "StrictSchemaError")
    expect([out.failure.path, out.failure.keyword]).toStrictEqual(["/properties/things", "items"])
  })

  it("refuses untyped schemas (Schema.Unknown, Schema.Json), which accept any value", () => {
    const refusalOf = (field: typeof Schema.Unknown | typeof Schema.Json) => {
      const Any = Tool.make("any", {
        description: "d",
        parameters: Schema.Struct({ value: field }),
        call: () => Effect.succeed("ok")
      })
      const out = compile(ToolSet.definitions(ToolSet.make(Any))[0]!)
      assert(Result.isFailure(out))
      return out.failure
    }
    const expected = new StrictSchemaError({
      toolName: "any",
      path: "/properties/value",
      keyword: "type",
      message:
        "tool `any` cannot use OpenAI strict mode: a schema without a type (any JSON value) cannot be expressed in strict mode (at /properties/value)"
    })
    expect([refusalOf(Schema.Unknown), refusalOf(Schema.Json)]).toStrictEqual([expected, expected])
    // Typed by a union, a reference, a literal or properties alone, a node is still accepted.
    assert(Result.isSuccess(compile(definition({
      type: "object",
      properties: {
        a: { anyOf: [{ type: "string" }, { type: "null" }] },
        b: { enum: ["x", "y"] },
        c: { const: 1 },
        d: { properties: { e: { type: "string" } }, required: ["e"] },
        f: { $ref: "#/$defs/F" }
      },
      required: ["a", "b", "c", "d", "f"],
      $defs: { F: { type: "string" } }
    }))))
  })

  it("compiles recursive definitions in $defs", () => {
    const compiled = Result.getOrThrow(compile(definition({
      type: "object",
      properties: { root: { $ref: "#/$defs/Node" } },
      required: ["root"],
      $defs: {
        Node: {
          type: "object",
          properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } },
          required: ["name"]
        }
      }
    })))
    expect(compiled.parameters.$defs).toStrictEqual({
      Node: {
        type: "object",
        properties: {
          name: { type: "string" },
          children: { type: ["array", "null"], items: { $ref: "#/$defs/Node" } }
        },
        required: ["name", "children"],
        additionalProperties: false
      }
    })
    expect(restoreAbsent(compiled, {
      root: { name: "a", children: [{ name: "b", children: null }, { name: "c", children: [] }] }
    })).toStrictEqual({ root: { name: "a", children: [{ name: "b" }, { name: "c", children: [] }] } })
  })
})

describe("compile: what OpenAI refuses beyond the keywords", () => {
  const refusalOf = (parameters: ToolDefinition.JsonSchema) => {
    const out = compile(definition(parameters))
    assert(Result.isFailure(out), JSON.stringify(parameters).slice(0, 200))
    return out.failure
  }

  // pydantic v2 writes `Field(description=…)` on a model-typed field as a `$ref` with a sibling `description`;
  // OpenAI answers 400 "$ref cannot have keywords {'description'}".
  const shipParameters = {
    type: "object",
    title: "shipArguments",
    properties: { address: { $ref: "#/$defs/Address", description: "Where to ship" } },
    required: ["address"],
    $defs: {
      Address: {
        title: "Address",
        type: "object",
        properties: { street: { type: "string" }, unit: { type: "string" } },
        required: ["street"]
      }
    }
  }

  it("inlines a $ref that has keywords beside it, merged with them, as the openai SDK does", () => {
    const compiled = Result.getOrThrow(compile(definition(shipParameters)))
    expect(compiled.parameters.properties).toStrictEqual({
      address: {
        description: "Where to ship",
        title: "Address",
        type: "object",
        properties: { street: { type: "string" }, unit: { type: ["string", "null"] } },
        required: ["street", "unit"],
        additionalProperties: false
      }
    })
    expect(restoreAbsent(compiled, { address: { street: "Main St", unit: null } }))
      .toStrictEqual({ address: { street: "Main St" } })
  })

  it.effect("a strict model's arguments for the inlined reference pass the runtime tool's own schema", () =>
    Effect.gen(function*() {
      const Ship = DynamicTool.make("ship", {
        description: "Ship a parcel",
        parameters: shipParameters,
        call: (args) => Effect.succeed(args)
      })
      const set = ToolSet.make(Ship)
      const [call] = OpenAiChat.toolCalls({
        tool_calls: [{
          id: "c1",
          type: "function",
          function: { name: "ship", arguments: "{\"address\":{\"street\":\"Main St\",\"unit\":null}}" }
        }]
      }, { tools: set, strict: true })
      const result = yield* ToolSet.execute(set, call!)
      expect([result.status, result.output])
        .toStrictEqual(["success", ToolOutput.json({ address: { street: "Main St" } })])
    }))

  it("refuses a $ref with keywords beside it that leads back to itself or cannot be merged, and one to nothing", () => {
    const looping = refusalOf({
      type: "object",
      properties: { root: { $ref: "#/$defs/Node", description: "The root" } },
      $defs: {
        Node: { type: "object", properties: { child: { $ref: "#/$defs/Node", description: "A child" } } }
      }
    })
    expect([looping.path, looping.keyword]).toStrictEqual(["/properties/root/properties/child", "$ref"])
    assert.include(looping.message, "leads back to itself")
    const clash = refusalOf({
      type: "object",
      properties: { a: { $ref: "#/$defs/S", maxLength: 3 } },
      $defs: { S: { type: "string", maxLength: 5 } }
    })
    expect([clash.path, clash.keyword]).toStrictEqual(["/properties/a", "$ref"])
    assert.include(clash.message, "give `maxLength` different values")
    const missing = refusalOf({ type: "object", properties: { a: { $ref: "#/$defs/Missing" } }, $defs: {} })
    expect([missing.path, missing.keyword]).toStrictEqual(["/properties/a", "$ref"])
    assert.include(missing.message, "leads to no definition")
  })

  it("refuses schemas past OpenAI's documented limits, and takes them at the limit", () => {
    const nested = (levels: number): ToolDefinition.JsonSchema => {
      let node: ToolDefinition.JsonSchema = { type: "string" }
      for (let i = 0; i < levels; i++) node = { type: "object", properties: { [`l${i}`]: node }, required: [`l${i}`] }
      return node
    }
    const wide = (count: number) => ({
      type: "object",
      properties: Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, { type: "string" }]))
    })
    const enumOf = (values: ReadonlyArray<string>) => ({
      type: "object",
      properties: { code: { type: "string", enum: values } },
      required: ["code"]
    })
    const codes = (count: number, width = 1) => Array.from({ length: count }, (_, i) => `${i}`.padStart(width, "c"))
    const accepted = [nested(10), wide(5_000), enumOf(codes(1_000)), enumOf(codes(251, 59))]
    for (const parameters of accepted) assert(Result.isSuccess(compile(definition(parameters))))
    const refused = [
      [nested(11), "properties", "objects nest 11 levels deep (at most 10)"],
      [wide(5_001), "properties", "more than 5000 properties in all"],
      [enumOf(codes(1_001)), "enum", "more than 1000 enum values in all"],
      [enumOf(codes(251, 60)), "enum", "an enum of more than 250 strings is 15060 characters long"],
      [{ type: "object", properties: { ["k".repeat(120_001)]: { type: "string" } } }, "properties", "more than 120000"]
    ] as const
    for (const [parameters, keyword, reason] of refused) {
      const failure = refusalOf(parameters)
      expect(failure.keyword).toBe(keyword)
      assert.include(failure.message, reason)
    }
  })

  it("refuses draft-07 `dependencies`, offered as 2020-12's `dependentRequired`, as it refuses that", () => {
    const card = { card: { type: "string" }, cvv: { type: "string" } }
    const draft07 = refusalOf({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: card,
      dependencies: { card: ["cvv"] }
    })
    const draft2020 = refusalOf({ type: "object", properties: card, dependentRequired: { card: ["cvv"] } })
    expect([draft07.path, draft07.keyword, draft2020.path, draft2020.keyword])
      .toStrictEqual(["/", "dependentRequired", "/", "dependentRequired"])
  })

  it("refuses a required key that properties does not declare, naming it, rather than drop it", () => {
    const failure = refusalOf({
      type: "object",
      properties: { o: { type: "object", properties: { x: { type: "string" } }, required: ["x", "y"] } }
    })
    expect([failure.path, failure.keyword]).toStrictEqual(["/properties/o", "required"])
    assert.include(failure.message, "`required` names `y`, which `properties` does not declare")
  })
})

describe("restoreAbsent", () => {
  const Params = Schema.Struct({
    shape: Schema.Union([
      Schema.TaggedStruct("Circle", { radius: Schema.optionalKey(Schema.Finite) }),
      Schema.TaggedStruct("Box", { radius: Schema.Finite, label: Schema.optionalKey(Schema.String) })
    ])
  })
  const Shapes = Tool.make("shapes", { description: "d", parameters: Params, call: () => Effect.succeed("ok") })
  const compiled = Result.getOrThrow(compile(ToolSet.definitions(ToolSet.make(Shapes))[0]!))

  it("picks the union branch by its keys and discriminator: null is absent only where that branch had it optional", () => {
    expect(restoreAbsent(compiled, { shape: { _tag: "Circle", radius: null } }))
      .toStrictEqual({ shape: { _tag: "Circle" } })
    expect(restoreAbsent(compiled, { shape: { _tag: "Box", radius: 1, label: null } }))
      .toStrictEqual({ shape: { _tag: "Box", radius: 1 } })
    // A null where the branch required a value stays, for the Schema to report.
    expect(restoreAbsent(compiled, { shape: { _tag: "Box", radius: null, label: "x" } }))
      .toStrictEqual({ shape: { _tag: "Box", radius: null, label: "x" } })
  })

  describe("branches with the same keys, told apart only by the discriminator", () => {
    const Choice = Schema.Struct({
      choice: Schema.Union([
        Schema.TaggedStruct("A", { x: Schema.optionalKey(Schema.String) }),
        Schema.TaggedStruct("B", { x: Schema.NullOr(Schema.String) })
      ])
    })
    type Choice = typeof Choice.Type
    const seen: Array<Choice> = []
    const Pick = Tool.make("pick", {
      description: "d",
      parameters: Choice,
      call: (choice) => Effect.sync(() => seen.push(choice)).pipe(Effect.as("ok"))
    })
    const picks = ToolSet.make(Pick)

    it("keeps null where branch B allows it, and makes it absent where branch A had the key optional", () => {
      const c = Result.getOrThrow(compile(ToolSet.definitions(picks)[0]!))
      expect(restoreAbsent(c, { choice: { _tag: "B", x: null } })).toStrictEqual({ choice: { _tag: "B", x: null } })
      expect(restoreAbsent(c, { choice: { _tag: "A", x: null } })).toStrictEqual({ choice: { _tag: "A" } })
      expect(restoreAbsent(c, { choice: { _tag: "A", x: "s" } })).toStrictEqual({ choice: { _tag: "A", x: "s" } })
    })

    it.effect("the tool decodes x: null for B and no x for A, from arguments sent as a strict model would", () =>
      Effect.gen(function*() {
        seen.length = 0
        const [offered] = Result.getOrThrow(OpenAiChat.definitions(picks, { strict: true }))
        const strictParameters = offered!.function.parameters
        const sent = [{ choice: { _tag: "B", x: null } }, { choice: { _tag: "A" } }, { choice: { _tag: "B", x: "s" } }]
          .map((value) => asStrictModel(strictParameters, value))
        // The model writes null for A's absent x, as it does for B's null x: the two look alike but for the tag.
        expect(sent).toStrictEqual([
          { choice: { _tag: "B", x: null } },
          { choice: { _tag: "A", x: null } },
          { choice: { _tag: "B", x: "s" } }
        ])
        const calls = OpenAiChat.toolCalls({
          tool_calls: sent.map((value, i) => ({
            id: `call_${i}`,
            type: "function" as const,
            function: { name: "pick", arguments: JSON.stringify(value) }
          }))
        }, { tools: picks, strict: true })
        const results = yield* Effect.forEach(calls, (call) => ToolSet.execute(picks, call))
        expect(results.map((result) => result.status)).toStrictEqual(["success", "success", "success"])
        expect(seen).toStrictEqual([
          { choice: { _tag: "B", x: null } },
          { choice: { _tag: "A" } },
          { choice: { _tag: "B", x: "s" } }
        ])
      }))
  })

  it("never mutates its input and keeps a __proto__ key an own property", () => {
    // JSON.parse, because an object literal's `__proto__` sets the prototype instead of a key.
    const c = Result.getOrThrow(compile(definition(JSON.parse(
      "{\"type\":\"object\",\"properties\":{\"__proto__\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"}}},\"y\":{\"type\":\"string\"}}}"
    ))))
    const input = JSON.parse("{\"__proto__\":{\"x\":null},\"y\":null}")
    const out = restoreAbsent(c, input) as Record<string, unknown>
    expect(input).toStrictEqual(JSON.parse("{\"__proto__\":{\"x\":null},\"y\":null}"))
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(Object.keys(out)).toStrictEqual(["__proto__"])
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toStrictEqual({})
  })
})

// The model under strict mode: it sends every property, writing null for the ones it leaves out.
const asStrictModel = (schema: unknown, value: unknown): unknown => {
  const node = schema as Record<string, unknown>
  if (value === null || typeof value !== "object") return value
  if (Array.isArray(node.anyOf)) {
    const branches = (node.anyOf as Array<Record<string, unknown>>).filter((b) => b.type !== "null")
    const branch = Array.isArray(value)
      ? branches.find((b) => b.type === "array")
      : branches.find((b) => {
        const tag = (b.properties as Record<string, { enum?: Array<unknown> }> | undefined)?._tag?.enum?.[0]
        return tag === undefined || tag === (value as Record<string, unknown>)._tag
      })
    return asStrictModel(branch, value)
  }
  if (Array.isArray(value)) return value.map((item) => asStrictModel(node.items, item))
  const out: Record<string, unknown> = {}
  for (const [key, property] of Object.entries(node.properties as Record<string, unknown>)) {
    const field = (value as Record<string, unknown>)[key]
    out[key] = field === undefined ? null : asStrictModel(property, field)
  }
  return out
}

const Item = Schema.Struct({
  sku: Schema.String,
  quantity: Schema.optionalKey(Schema.Int),
  note: Schema.optionalKey(Schema.String)
})

const Order = Schema.Struct({
  customer: Schema.String,
  express: Schema.optionalKey(Schema.Boolean),
  address: Schema.optionalKey(Schema.Struct({
    street: Schema.String,
    unit: Schema.optionalKey(Schema.String),
    geo: Schema.optionalKey(Schema.Struct({ lat: Schema.Finite, lon: Schema.optionalKey(Schema.Finite) }))
  })),
  items: Schema.Array(Item),
  gift: Schema.optionalKey(Schema.Array(Item)),
  payment: Schema.Union([
    Schema.TaggedStruct("Card", { last4: Schema.String, expiry: Schema.optionalKey(Schema.String) }),
    Schema.TaggedStruct("Invoice", { expiry: Schema.optionalKey(Schema.String), po: Schema.optionalKey(Schema.String) })
  ])
})

const Echo = Tool.make("place_order", {
  description: "Echo an order",
  parameters: Order,
  success: Order,
  call: (order) => Effect.succeed(order)
})

const set = ToolSet.make(Echo)
const strictSchema = Result.getOrThrow(OpenAiChat.definitions(set, { strict: true }))[0]!.function.parameters
const encode = Schema.encodeSync(Schema.toCodecJson(Order))

it.effect.prop(
  "any value sent as a strict-mode model would (absent optional → null) reaches the tool unchanged",
  [Order],
  ([order]) =>
    Effect.gen(function*() {
      const sent = JSON.stringify(asStrictModel(strictSchema, encode(order)))
      const calls = OpenAiChat.toolCalls({
        tool_calls: [{ id: "call_1", type: "function", function: { name: "place_order", arguments: sent } }]
      }, { tools: set, strict: true })
      const [result] = yield* ToolSet.executeAll(set, calls)
      expect(result!.status).toBe("success")
      // The text the model sends cannot carry -0; everything else comes back as generated.
      expect(ToolOutput.asJson(result!.output)).toStrictEqual(Option.some(withoutNegativeZero(encode(order))))
    })
)

describe("restoreAbsent picks the branch the value satisfies", () => {
  // No discriminator, and the branches share `a`: only the types of `b` tell them apart.
  const Shared = Schema.Struct({
    value: Schema.Union([
      Schema.Struct({ a: Schema.optionalKey(Schema.String), b: Schema.String }),
      Schema.Struct({ a: Schema.NullOr(Schema.String), b: Schema.Finite })
    ])
  })
  const Pick = Tool.make("pick", { description: "d", parameters: Shared, call: (args) => Effect.succeed(args) })
  const picks = ToolSet.make(Pick)

  it("keeps a null that the matching branch allows, and drops one where it had the key optional", () => {
    const c = Result.getOrThrow(compile(ToolSet.definitions(picks)[0]!))
    expect([
      restoreAbsent(c, { value: { a: null, b: 5 } }),
      restoreAbsent(c, { value: { a: null, b: "x" } }),
      // Neither branch: left for the Schema to report.
      restoreAbsent(c, { value: { a: null, b: true } })
    ]).toStrictEqual([{ value: { a: null, b: 5 } }, { value: { b: "x" } }, { value: { a: null, b: true } }])
  })

  it.effect("the tool decodes the model's {\"a\":null,\"b\":5}, valid for the offered schema", () =>
    Effect.gen(function*() {
      const offered = Result.getOrThrow(OpenAiChat.definitions(picks, { strict: true }))[0]!.function.parameters
      const sent = { value: { a: null, b: 5 } }
      expect(accepts(offered, sent)).toBe(true)
      const calls = OpenAiChat.toolCalls({
        tool_calls: [{ id: "c", type: "function", function: { name: "pick", arguments: JSON.stringify(sent) } }]
      }, { tools: picks, strict: true })
      const [result] = yield* ToolSet.executeAll(picks, calls)
      expect([result!.status, ToolOutput.asJson(result!.output)]).toStrictEqual(["success", Option.some(sent)])
    }))
})

describe("a top-level union, lowered: a nested value written in another branch's form", () => {
  // Found by the generated-schema property below (a seed of it): `a` is an object in both branches, with other keys.
  const Mixed = Tool.make("mixed", {
    description: "d",
    parameters: Schema.Union([
      Schema.Struct({ b: Schema.Finite, a: Schema.Struct({ a: Schema.optionalKey(Schema.Finite) }) }),
      Schema.Struct({
        a: Schema.Struct({ c: Schema.optionalKey(Schema.Literal("y")) }),
        c: Schema.NullOr(Schema.String),
        b: Schema.optionalKey(Schema.NullOr(Schema.String))
      })
    ]),
    call: (args) => Effect.succeed(args)
  })
  const mixed = ToolSet.make(Mixed)

  it.effect("reads as the branch it stands for: nulls for the other form's keys, a required null kept", () =>
    Effect.gen(function*() {
      const offered = Result.getOrThrow(OpenAiChat.definitions(mixed, { strict: true }))[0]!.function.parameters
      // The second branch's `{ a: {}, c: null }`, its `a` written in the first branch's form (`a: null`).
      const sent = { b: null, a: { a: null }, c: null }
      expect(accepts(offered, sent)).toBe(true)
      const calls = OpenAiChat.toolCalls({
        tool_calls: [{ id: "c", type: "function", function: { name: "mixed", arguments: JSON.stringify(sent) } }]
      }, { tools: mixed, strict: true })
      const [result] = yield* ToolSet.executeAll(mixed, calls)
      expect([result!.status, ToolOutput.asJson(result!.output)]).toStrictEqual([
        "success",
        Option.some({ a: {}, c: null })
      ])
    }))
})

describe("a top-level union, lowered: an optional reference in another branch's form", () => {
  const Ref = DynamicTool.make("ref", {
    description: "d",
    parameters: {
      $defs: { A1: { type: "object", properties: { x: { type: "string" }, y: { type: "string" } }, required: ["y"] } },
      anyOf: [
        {
          type: "object",
          properties: { k: { type: "object", properties: { p: { type: "string" } } }, a: { $ref: "#/$defs/A1" } },
          required: ["k"]
        },
        {
          type: "object",
          properties: { k: { type: "object", properties: { q: { type: "string" } } }, z: { type: ["string", "null"] } },
          required: ["k", "z"]
        }
      ]
    },
    call: (args) => Effect.succeed(args)
  })
  const refs = ToolSet.make(Ref)

  it.effect("reads the reference's nulls as absent, whichever branch's form the other keys take", () =>
    Effect.gen(function*() {
      const offered = Result.getOrThrow(OpenAiChat.definitions(refs, { strict: true }))[0]!.function.parameters
      for (const k of [{ q: null }, { p: null }]) {
        const sent = { k, a: { x: null, y: "v" }, z: null }
        expect(accepts(offered, sent)).toBe(true)
        const calls = OpenAiChat.toolCalls({
          tool_calls: [{ id: "c", type: "function", function: { name: "ref", arguments: JSON.stringify(sent) } }]
        }, { tools: refs, strict: true })
        const [result] = yield* ToolSet.executeAll(refs, calls)
        expect([result!.status, ToolOutput.asJson(result!.output)]).toStrictEqual([
          "success",
          Option.some({ k: {}, a: { y: "v" } })
        ])
      }
    }))
})

// ---------------------------------------------------------------------------
// Generated schemas: what a strict model may send always reaches the tool
// ---------------------------------------------------------------------------

const Key = Schema.Literals(["a", "b", "c"])
const Leaf = Schema.Literals(["string", "number", "boolean", "literalX", "literalY", "nullableString"])
const LeafField = Schema.Struct({ key: Key, optional: Schema.Boolean, type: Leaf })
const Inner = Schema.Struct({
  /** A union of these structs (one struct when there is one). */
  // Not empty: an empty struct is "any non-null value" to Effect's JSON Schema, which strict mode cannot express.
  branches: Schema.Array(Schema.Array(LeafField).check(Schema.isMinLength(1), Schema.isMaxLength(3))).check(
    Schema.isMinLength(1),
    Schema.isMaxLength(3)
  ),
  array: Schema.Boolean
})
const Field = Schema.Struct({ key: Key, optional: Schema.Boolean, type: Schema.Union([Leaf, Inner]) })
/** The parameters: one struct, or a union of structs (a top-level union, offered lowered). */
const ParametersSpec = Schema.Array(Schema.Array(Field).check(Schema.isMinLength(1), Schema.isMaxLength(3))).check(
  Schema.isMinLength(1),
  Schema.isMaxLength(3)
)
type LeafSpec = typeof Leaf.Type
type FieldSpec = { readonly key: string; readonly optional: boolean; readonly type: LeafSpec | typeof Inner.Type }

const leafSchema = (leaf: LeafSpec): Schema.Top => {
  switch (leaf) {
    case "string":
      return Schema.String
    case "number":
      return Schema.Finite
    case "boolean":
      return Schema.Boolean
    case "literalX":
      return Schema.Literal("x")
    case "literalY":
      return Schema.Literal("y")
    case "nullableString":
      return Schema.NullOr(Schema.String)
  }
}

const structOf = (fields: ReadonlyArray<FieldSpec>): Schema.Top => {
  const out: Record<string, Schema.Top> = {}
  for (const field of fields) {
    if (field.key in out) continue
    const type = typeof field.type === "string" ? leafSchema(field.type) : innerSchema(field.type)
    out[field.key] = field.optional ? Schema.optionalKey(type) : type
  }
  return Schema.Struct(out as Schema.Struct.Fields)
}

const unionOf = (branches: ReadonlyArray<ReadonlyArray<FieldSpec>>): Schema.Top =>
  branches.length === 1 ? structOf(branches[0]!) : Schema.Union(branches.map(structOf))

const innerSchema = (inner: typeof Inner.Type): Schema.Top => {
  const union = unionOf(inner.branches)
  return inner.array ? Schema.Array(union) : union
}

/** Whether `written` says what `value` says, with `null` for keys the value leaves out and nothing else changed. */
const sameData = (written: unknown, value: unknown): boolean => {
  if (Array.isArray(value)) {
    return Array.isArray(written) && written.length === value.length && value.every((item, i) => sameData(written[i], item))
  }
  if (typeof value !== "object" || value === null) return Object.is(written, value)
  if (typeof written !== "object" || written === null || Array.isArray(written)) return false
  const source = value as Record<string, unknown>
  const out = written as Record<string, unknown>
  return Object.keys(out).every((key) => Object.hasOwn(source, key) ? sameData(out[key], source[key]) : out[key] === null) &&
    Object.keys(source).every((key) => Object.hasOwn(out, key))
}

/** The schemas offered for one tool: strict, and as it is (which keeps which properties are optional). */
interface Offered {
  readonly strict: ToolDefinition.JsonSchema
  readonly plain: ToolDefinition.JsonSchema
}

/** A node of one of the offered schemas, with its root's `$defs`. */
const withDefs = (root: ToolDefinition.JsonSchema, node: Record<string, unknown>): Record<string, unknown> =>
  root.$defs === undefined ? node : { ...node, $defs: root.$defs }

const resolve = (root: ToolDefinition.JsonSchema, node: unknown): unknown =>
  typeof node === "object" && node !== null && typeof (node as { $ref?: unknown }).$ref === "string"
    ? (root.$defs as Record<string, unknown>)[(node as { $ref: string }).$ref.slice("#/$defs/".length)]
    : node

/**
 * A value as a strict-mode model may write it for `value`: every property of the chosen object present, `null` for
 * the ones the value leaves out, and, in a union, any branch whose strict schema the written value satisfies without
 * saying anything else (`pick` chooses among them), of the branches `value` is an instance of. `schema` and `plain`
 * are the same node of the strict and the plain schema: a strict `null` can stand for an absent optional property or
 * for a null, and only the plain schema says which branches leave a property out (a strict union lists the same
 * branches in the same order, and `null` after them for an optional property).
 */
const asAnyStrictModel = (
  offered: Offered,
  schema: unknown,
  plain: unknown,
  value: unknown,
  pick: () => number
): unknown => {
  schema = resolve(offered.strict, schema)
  plain = resolve(offered.plain, plain)
  if (typeof schema !== "object" || schema === null) return value
  const node = schema as Record<string, unknown>
  const plainNode = (typeof plain === "object" && plain !== null ? plain : {}) as Record<string, unknown>
  if (Array.isArray(node.anyOf)) {
    const plainBranches = Array.isArray(plainNode.anyOf) ? plainNode.anyOf as Array<unknown> : [plainNode]
    const candidates = (node.anyOf as Array<unknown>)
      .map((branch, i) => asAnyStrictModel(offered, branch, plainBranches[i], value, pick))
      .filter((written, i) => {
        const branch = (node.anyOf as Array<Record<string, unknown>>)[i]!
        const plainBranch = resolve(offered.plain, plainBranches[i]) as Record<string, unknown> | undefined
        return sameData(written, value) && accepts(withDefs(offered.strict, branch), written) &&
          (plainBranch === undefined || accepts(withDefs(offered.plain, plainBranch), value))
      })
    return candidates.length === 0 ? value : candidates[pick() % candidates.length]
  }
  if (value === null || typeof value !== "object") return value
  if (Array.isArray(value)) return value.map((item) => asAnyStrictModel(offered, node.items, plainNode.items, item, pick))
  if (node.properties === undefined) return value
  const plainProperties = (plainNode.properties ?? {}) as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const [key, property] of Object.entries(node.properties as Record<string, unknown>)) {
    const field = (value as Record<string, unknown>)[key]
    out[key] = field === undefined ? null : asAnyStrictModel(offered, property, plainProperties[key], field, pick)
  }
  return out
}

/** A parameters spec, with values its Schema accepts. */
const SpecAndValues = Arbitrary.flatMap(
  Arbitrary.schema(ParametersSpec),
  (spec) =>
    Arbitrary.all([
      Arbitrary.Constant(spec),
      Arbitrary.array(Arbitrary.schema(unionOf(spec)), { minLength: 1, maxLength: 4 })
    ])
)

it.effect.prop(
  "for generated schemas, any value a strict model may send for a valid value reaches the tool decoded",
  [SpecAndValues, Schema.Array(Schema.Int)],
  ([[spec, values], picks]) =>
    Effect.gen(function*() {
      const parameters = unionOf(spec) as Schema.Codec<{ readonly [key: string]: unknown }>
      const Echo = Tool.make("echo", { description: "d", parameters, call: () => Effect.succeed("ok") })
      const echo = ToolSet.make(Echo)
      const offered = {
        strict: Result.getOrThrow(OpenAiChat.definitions(echo, { strict: true }))[0]!.function.parameters,
        plain: Result.getOrThrow(OpenAiChat.definitions(echo))[0]!.function.parameters
      }
      let next = 0
      const pick = () => Math.abs(picks[next++ % Math.max(picks.length, 1)] ?? 0)
      for (const value of values) {
        const encoded = Schema.encodeSync(Schema.toCodecJson(parameters))(value as { readonly [key: string]: unknown })
        const sent = asAnyStrictModel(offered, offered.strict, offered.plain, encoded, pick)
        expect({ sent, accepted: accepts(offered.strict, sent) }).toStrictEqual({ sent, accepted: true })
        const calls = OpenAiChat.toolCalls({
          tool_calls: [{ id: "c", type: "function", function: { name: "echo", arguments: JSON.stringify(sent) } }]
        }, { tools: echo, strict: true })
        const [result] = yield* ToolSet.executeAll(echo, calls)
        expect({ sent, status: result!.status }).toStrictEqual({ sent, status: "success" })
      }
    }),
  { timeout: 60_000, arbitrary: { runs: 300 } }
)
