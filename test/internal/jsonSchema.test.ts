import { assert, describe, expect, it } from "@effect/vitest"
import { Ajv2020 } from "ajv/dist/2020.js"
import { Result, Schema } from "effect"
import {
  inlineReference,
  type JsonSchema,
  mergeRoot,
  offeredParameters,
  toDraft2020,
  toJsonSchema,
  toParametersJsonSchema
} from "../../src/internal/jsonSchema.ts"
import { validatorOf } from "../../src/internal/jsonSchemaValidator.ts"
import { deepFreeze } from "../../src/internal/json.ts"
import { accepts, refsIn } from "../support/jsonSchema.ts"

const draft07 = "http://json-schema.org/draft-07/schema#"

class Point extends Schema.Class<Point>("Point")({ x: Schema.Int, y: Schema.Int }) {}
class Segment extends Schema.Class<Segment>("Segment")({ from: Point, to: Point }) {}

const pointSchema = {
  type: "object",
  properties: { x: { type: "integer" }, y: { type: "integer" } },
  required: ["x", "y"],
  additionalProperties: false
}

interface Expr {
  readonly op: string
  readonly args: ReadonlyArray<Expr>
  readonly at?: Point
}
const Expr: Schema.Codec<Expr, unknown> = Schema.Struct({
  op: Schema.String,
  args: Schema.Array(Schema.suspend((): Schema.Codec<Expr, unknown> => Expr)),
  at: Schema.optionalKey(Point)
}).annotate({ identifier: "Expr" })

interface Even {
  readonly next?: Odd
}
interface Odd {
  readonly next?: Even
}
const Even: Schema.Codec<Even, unknown> = Schema.Struct({
  next: Schema.optionalKey(Schema.suspend((): Schema.Codec<Odd, unknown> => Odd))
}).annotate({ identifier: "Even" })
const Odd: Schema.Codec<Odd, unknown> = Schema.Struct({
  next: Schema.optionalKey(Schema.suspend((): Schema.Codec<Even, unknown> => Even))
}).annotate({ identifier: "Odd" })

describe("internal/jsonSchema", () => {
  describe("toJsonSchema", () => {
    it("removes the ±2^53 bounds of integers everywhere, keeping real ones", () => {
      assert.deepStrictEqual(toJsonSchema(Schema.Int), { type: "integer" })
      assert.deepStrictEqual(toJsonSchema(Schema.Array(Schema.Int)), { type: "array", items: { type: "integer" } })
      assert.deepStrictEqual(toJsonSchema(Schema.NullOr(Schema.Int)), {
        anyOf: [{ type: "integer" }, { type: "null" }]
      })
      assert.deepStrictEqual(toJsonSchema(Schema.Int.check(Schema.isBetween({ minimum: -5, maximum: 5 }))), {
        type: "integer",
        minimum: -5,
        maximum: 5
      })
      assert.deepStrictEqual(toJsonSchema(Schema.Int.check(Schema.isLessThanOrEqualTo(10))), {
        type: "integer",
        maximum: 10
      })
    })

    it("describes finite numbers as plain numbers", () => {
      assert.deepStrictEqual(toJsonSchema(Schema.Finite), { type: "number" })
    })

    it("describes Schema.Number as a plain number everywhere, never with the NaN and Infinity strings", () => {
      const number = { type: "number" }
      assert.deepStrictEqual(toJsonSchema(Schema.Number), number)
      assert.deepStrictEqual(toJsonSchema(Schema.Array(Schema.Number)), { type: "array", items: number })
      assert.deepStrictEqual(toJsonSchema(Schema.Record(Schema.String, Schema.Number)), {
        type: "object",
        additionalProperties: number
      })
      assert.deepStrictEqual(toJsonSchema(Schema.Union([Schema.Number, Schema.String])), {
        anyOf: [number, { type: "string" }]
      })
      assert.deepStrictEqual(toJsonSchema(Schema.Tuple([Schema.Number])), {
        type: "array",
        prefixItems: [number],
        minItems: 1,
        maxItems: 1
      })
      assert.deepStrictEqual(
        toJsonSchema(Schema.Struct({
          a: Schema.Number,
          b: Schema.optionalKey(Schema.Number),
          c: Schema.optional(Schema.Number),
          d: Schema.NullOr(Schema.Number)
        })),
        {
          type: "object",
          properties: {
            a: number,
            b: number,
            c: { anyOf: [number, { type: "null" }] },
            d: { anyOf: [number, { type: "null" }] }
          },
          required: ["a", "d"],
          additionalProperties: false
        }
      )
    })

    it("describes numbers inside classes and recursive definitions as plain numbers", () => {
      class Reading extends Schema.Class<Reading>("Reading")({ value: Schema.Number }) {}
      assert.deepStrictEqual(toJsonSchema(Schema.Struct({ reading: Reading })), {
        type: "object",
        properties: {
          reading: { type: "object", properties: { value: { type: "number" } }, required: ["value"], additionalProperties: false }
        },
        required: ["reading"],
        additionalProperties: false
      })
      interface Node {
        readonly weight: number
        readonly next: ReadonlyArray<Node>
      }
      const Node: Schema.Codec<Node, unknown> = Schema.Struct({
        weight: Schema.Number,
        next: Schema.Array(Schema.suspend((): Schema.Codec<Node, unknown> => Node))
      }).annotate({ identifier: "Node" })
      const schema = toJsonSchema(Schema.Struct({ root: Node }))
      assert.deepStrictEqual(schema.$defs, {
        Node: {
          type: "object",
          properties: { weight: { type: "number" }, next: { type: "array", items: { $ref: "#/$defs/Node" } } },
          required: ["weight", "next"],
          additionalProperties: false
        }
      })
      assert.isTrue(accepts(schema, { root: { weight: 1, next: [{ weight: 2, next: [] }] } }))
      assert.isFalse(accepts(schema, { root: { weight: 1, next: [{ weight: "NaN", next: [] }] } }))
    })

    it("keeps the checks and descriptions of a number", () => {
      assert.deepStrictEqual(
        toJsonSchema(Schema.Struct({ price: Schema.Number.check(Schema.isGreaterThan(0)).annotate({ description: "in euros" }) })),
        {
          type: "object",
          properties: { price: { type: "number", exclusiveMinimum: 0, description: "in euros" } },
          required: ["price"],
          additionalProperties: false
        }
      )
    })

    it("leaves a number carried as a string a string", () => {
      assert.deepStrictEqual(toJsonSchema(Schema.NumberFromString), { type: "string" })
    })

    it("closes struct objects with additionalProperties: false, nested ones too", () => {
      assert.deepStrictEqual(toJsonSchema(Schema.Struct({ a: Schema.Struct({ b: Schema.String }) })), {
        type: "object",
        properties: {
          a: { type: "object", properties: { b: { type: "string" } }, required: ["b"], additionalProperties: false }
        },
        required: ["a"],
        additionalProperties: false
      })
    })

    it("keeps the value schema of records: only a blanket true becomes false", () => {
      assert.deepStrictEqual(toJsonSchema(Schema.Record(Schema.String, Schema.Int)), {
        type: "object",
        additionalProperties: { type: "integer" }
      })
    })

    it("inlines classes, nested classes and classes inside arrays and unions, leaving no $ref", () => {
      assert.deepStrictEqual(toJsonSchema(Point), pointSchema)
      assert.deepStrictEqual(toJsonSchema(Segment), {
        type: "object",
        properties: { from: pointSchema, to: pointSchema },
        required: ["from", "to"],
        additionalProperties: false
      })
      assert.deepStrictEqual(toJsonSchema(Schema.Array(Point)), { type: "array", items: pointSchema })
      const union = toJsonSchema(Schema.Union([Point, Schema.Struct({ r: Schema.Finite })]))
      assert.deepStrictEqual(refsIn(union), [])
      assert.notProperty(union, "$defs")
    })

    it("keeps a recursive definition in a root $defs, with every $ref resolvable", () => {
      const schema = toJsonSchema(Schema.Struct({ expr: Expr }))
      const defs = schema.$defs as Record<string, JsonSchema>
      assert.deepStrictEqual(Object.keys(defs), ["Expr"])
      assert.deepStrictEqual(refsIn(schema), ["#/$defs/Expr", "#/$defs/Expr"])
      // The non-recursive class inside the recursive definition is inlined.
      assert.deepStrictEqual((defs.Expr!.properties as Record<string, unknown>).at, pointSchema)
      assert.isTrue(accepts(schema, { expr: { op: "+", args: [{ op: "1", args: [], at: { x: 1, y: 2 } }] } }))
      assert.isFalse(accepts(schema, { expr: { op: "+", args: [{ op: 1, args: [] }] } }))
    })

    it("keeps mutually recursive definitions in $defs, each resolvable", () => {
      const schema = toJsonSchema(Schema.Struct({ start: Even }))
      const defs = schema.$defs as Record<string, JsonSchema>
      assert.deepStrictEqual(Object.keys(defs).sort(), ["Even", "Odd"])
      // start → Even, Even.next → Odd, Odd.next → Even.
      assert.deepStrictEqual(refsIn(schema), ["#/$defs/Even", "#/$defs/Even", "#/$defs/Odd"])
      assert.isTrue(accepts(schema, { start: { next: { next: { next: {} } } } }))
      assert.isFalse(accepts(schema, { start: { next: { next: { extra: 1 } } } }))
    })

    it("gives nested objects whose keys are all optional required: []", () => {
      const schema = toJsonSchema(Schema.Struct({ inner: Schema.Struct({ a: Schema.optionalKey(Schema.String) }) }))
      assert.deepStrictEqual((schema as any).properties.inner, {
        type: "object",
        properties: { a: { type: "string" } },
        required: [],
        additionalProperties: false
      })
    })

    it("lists each anyOf alternative once: an optional nullable key says null once", () => {
      const schema = toJsonSchema(Schema.Struct({ note: Schema.optional(Schema.NullOr(Schema.String)) }))
      assert.deepStrictEqual((schema as any).properties.note, { anyOf: [{ type: "string" }, { type: "null" }] })
    })

    it("keeps descriptions", () => {
      assert.deepStrictEqual(
        toJsonSchema(
          Schema.Struct({ q: Schema.String.annotate({ description: "the query" }) }).annotate({ description: "search" })
        ),
        {
          type: "object",
          properties: { q: { type: "string", description: "the query" } },
          required: ["q"],
          additionalProperties: false,
          description: "search"
        }
      )
    })
  })

  describe("toParametersJsonSchema", () => {
    it("describes an empty struct explicitly", () => {
      assert.deepStrictEqual(toParametersJsonSchema(Schema.Struct({})), {
        type: "object",
        properties: {},
        required: [],
        additionalProperties: false
      })
    })

    it("adds required: [] when every key is optional", () => {
      assert.deepStrictEqual(toParametersJsonSchema(Schema.Struct({ a: Schema.optionalKey(Schema.String) })), {
        type: "object",
        properties: { a: { type: "string" } },
        required: [],
        additionalProperties: false
      })
    })

    it("leaves optional keys out of required", () => {
      const schema = toParametersJsonSchema(
        Schema.Struct({ a: Schema.String, b: Schema.optionalKey(Schema.Int), c: Schema.Boolean })
      )
      assert.deepStrictEqual(schema.required, ["a", "c"])
    })

    it("inlines a class used as the whole parameters", () => {
      assert.deepStrictEqual(toParametersJsonSchema(Point), pointSchema)
    })

    it("gives recursive parameters an object at the top, with $defs for the recursion", () => {
      const schema = toParametersJsonSchema(Expr)
      assert.deepStrictEqual(
        [schema.type, schema.required, schema.additionalProperties, Object.keys(schema.properties ?? {})],
        ["object", ["op", "args"], false, ["op", "args", "at"]]
      )
      assert.deepStrictEqual(Object.keys(schema.$defs as Record<string, JsonSchema>), ["Expr"])
      // The top-level args and the definition's args.
      assert.deepStrictEqual(refsIn(schema), ["#/$defs/Expr", "#/$defs/Expr"])
      assert.isTrue(accepts(schema, { op: "+", args: [{ op: "1", args: [] }] }))
      assert.isFalse(accepts(schema, { op: "+", args: [{ op: "1", args: [{ op: 2, args: [] }] }] }))
    })
  })

  describe("toDraft2020", () => {
    const pair = { type: "array", items: [{ type: "integer" }, { type: "string" }], additionalItems: false }
    const pair2020 = { type: "array", prefixItems: [{ type: "integer" }, { type: "string" }], items: false }

    it("writes a schema of draft 6, 7 or 2019-09 in 2020-12, wherever a schema sits, data left as it is", () => {
      for (const uri of [draft07, "https://json-schema.org/draft-07/schema", "http://json-schema.org/draft-06/schema#"]) {
        expect(toDraft2020({
          $schema: uri,
          type: "object",
          $id: "#args",
          properties: {
            pair,
            list: { type: "array", items: { type: "string" }, additionalItems: false },
            nested: { anyOf: [pair, { type: "null" }] },
            card: { type: "string" },
            cvv: { type: "string", $id: "https://example.com/cvv" },
            address: { $ref: "#/definitions/address" }
          },
          dependencies: { card: ["cvv"], cvv: { required: ["card"] } },
          definitions: { address: { $id: "#address", type: "object", properties: { line: pair } } },
          // Data: a default, a constant and an example are values, whatever they look like.
          default: { pair: [1, "a"], items: [1] },
          examples: [{ items: [{ type: "integer" }] }]
        })).toStrictEqual({
          type: "object",
          $anchor: "args",
          properties: {
            pair: pair2020,
            list: { type: "array", items: { type: "string" } },
            nested: { anyOf: [pair2020, { type: "null" }] },
            card: { type: "string" },
            cvv: { type: "string", $id: "https://example.com/cvv" },
            address: { $ref: "#/definitions/address" }
          },
          definitions: { address: { $anchor: "address", type: "object", properties: { line: pair2020 } } },
          default: { pair: [1, "a"], items: [1] },
          examples: [{ items: [{ type: "integer" }] }],
          dependentRequired: { card: ["cvv"] },
          dependentSchemas: { cvv: { required: ["card"] } }
        })
      }
    })

    it("in 2019-09, writes tuples and recursive references, and keeps dependentRequired as it is", () => {
      expect(toDraft2020({
        $schema: "https://json-schema.org/draft/2019-09/schema",
        $recursiveAnchor: true,
        type: "object",
        properties: { pair, child: { $recursiveRef: "#" } },
        dependentRequired: { a: ["b"] }
      })).toStrictEqual({
        type: "object",
        properties: { pair: pair2020, child: { $ref: "#" } },
        dependentRequired: { a: ["b"] }
      })
    })

    it("keeps references that pass through a keyword it writes otherwise leading where they led", () => {
      const given = {
        $schema: draft07,
        type: "object",
        properties: {
          pair,
          first: { $ref: "#/properties/pair/items/0" },
          rest: { $ref: "#/properties/list/additionalItems" },
          list: { type: "array", items: [{ type: "string" }], additionalItems: { type: "integer" } },
          // A property named items is no tuple, and a dependency's schema moves to dependentSchemas.
          items: { type: "boolean" },
          flag: { $ref: "#/properties/items" },
          card: { $ref: "#/dependencies/cvv" }
        },
        dependencies: { cvv: { required: ["card"] } }
      }
      const translated = toDraft2020(given) as { readonly properties: Record<string, { readonly $ref?: string }> }
      expect(["first", "rest", "flag", "card"].map((key) => translated.properties[key]!.$ref)).toStrictEqual([
        "#/properties/pair/prefixItems/0",
        "#/properties/list/items",
        "#/properties/items",
        "#/dependentSchemas/cvv"
      ])
      const before = validatorOf(given)
      const after = validatorOf(translated)
      const cases = [
        { first: 1, rest: 2, flag: true, card: { card: "x" } },
        { first: "a" },
        { rest: "b" },
        { flag: 1 },
        { card: {} }
      ]
      expect(cases.map((args) => Result.isSuccess(after.validate(args))))
        .toStrictEqual(cases.map((args) => Result.isSuccess(before.validate(args))))
      expect(cases.map((args) => Result.isSuccess(before.validate(args)))).toStrictEqual([true, false, false, false, false])
    })

    it("writes only what 2020-12 allows: an anchor it can name, no $schema below the root, both references kept", () => {
      const translated = toDraft2020({
        $schema: draft07,
        properties: { a: { $id: "#1bad" }, b: { $id: "x.json#foo" }, c: { $id: "#ok" }, d: { $schema: draft07 } }
      })
      assert.isTrue(new Ajv2020({ strict: false }).validateSchema(translated) as boolean)
      expect(toDraft2020({
        $schema: draft07,
        type: "object",
        properties: {
          a: { $id: "#a:b", type: "string" },
          b: { $id: "#_b.c-1", type: "string" },
          c: { $schema: draft07, type: "string" },
          d: { $id: "person.json#address", type: "string" },
          e: { $id: "#1bad", type: "string" },
          f: { $id: "https://example.com/f.json", type: "string" }
        }
      })).toStrictEqual({
        type: "object",
        properties: {
          a: { type: "string" },
          b: { $anchor: "_b.c-1", type: "string" },
          c: { type: "string" },
          d: { $id: "person.json", $anchor: "address", type: "string" },
          e: { type: "string" },
          f: { $id: "https://example.com/f.json", type: "string" }
        }
      })
      expect(toDraft2020({
        $schema: "https://json-schema.org/draft/2019-09/schema",
        $defs: { named: { type: "object" } },
        properties: { child: { $ref: "#/$defs/named", $recursiveRef: "#", allOf: [{ required: ["x"] }] } }
      })).toStrictEqual({
        $defs: { named: { type: "object" } },
        properties: { child: { $ref: "#/$defs/named", allOf: [{ required: ["x"] }, { $ref: "#" }] } }
      })
    })

    it("returns a schema of 2020-12, or of no draft, as it is, and never changes what it is given", () => {
      const given = { type: "object", properties: { pair } }
      assert.strictEqual(toDraft2020(given), given)
      const named = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" }
      assert.strictEqual(toDraft2020(named), named)
      const frozen = { $schema: draft07, type: "object", properties: { pair }, dependencies: { a: ["b"] } }
      const copy = structuredClone(frozen)
      deepFreeze(frozen)
      expect(toDraft2020(frozen)).toStrictEqual({
        type: "object",
        properties: { pair: pair2020 },
        dependentRequired: { a: ["b"] }
      })
      expect(frozen).toStrictEqual(copy)
    })

    it("means what it meant: a validator of each draft accepts and refuses the same arguments", () => {
      const given = {
        $schema: draft07,
        type: "object",
        properties: { pair, card: { type: "string" }, cvv: { type: "string" } },
        dependencies: { card: ["cvv"] }
      }
      const before = validatorOf(given)
      const after = validatorOf(toDraft2020(given))
      const cases = [
        { pair: [1, "a"] },
        { pair: [1, "a", "extra"] },
        { pair: ["a", 1] },
        { card: "4242" },
        { card: "4242", cvv: "123" },
        {}
      ]
      expect(cases.map((args) => Result.isSuccess(after.validate(args))))
        .toStrictEqual(cases.map((args) => Result.isSuccess(before.validate(args))))
      expect(cases.map((args) => Result.isSuccess(before.validate(args))))
        .toStrictEqual([true, false, false, false, true, true])
    })
  })

  describe("offeredParameters", () => {
    it("gives the root the object every provider and MCP ask for, where it has none", () => {
      const q = { type: "string" }
      const cases: ReadonlyArray<readonly [JsonSchema, JsonSchema]> = [
        // MCP's Go SDK, for a tool without arguments: OpenAI answers "object schema missing properties".
        [{ type: "object" }, { type: "object", properties: {} }],
        [{ type: "object", additionalProperties: false }, {
          type: "object",
          additionalProperties: false,
          properties: {}
        }],
        [{}, { type: "object", properties: {} }],
        [{ properties: { q }, required: ["q"] }, { type: "object", properties: { q }, required: ["q"] }],
        [{ type: ["object", "null"], properties: { q } }, { type: "object", properties: { q } }],
        [{ type: ["object"], properties: { q } }, { type: "object", properties: { q } }],
        [{ type: "object", properties: { any: true, none: false, q } }, {
          type: "object",
          properties: { any: {}, none: { not: {} }, q }
        }],
        // zod 4's z.union: the union stays for the adapters to lower, under an object.
        [{ anyOf: [{ type: "object", properties: { q } }] }, {
          type: "object",
          anyOf: [{ type: "object", properties: { q } }],
          properties: {}
        }]
      ]
      for (const [given, offered] of cases) expect(offeredParameters(given)).toStrictEqual(offered)
    })

    it("keeps a schema that already has its object as the same value", () => {
      const given = { type: "object", properties: { q: { type: "string" } }, required: ["q"] }
      assert.strictEqual(offeredParameters(given), given)
      const generated = toParametersJsonSchema(Schema.Struct({ a: Schema.String }))
      assert.strictEqual(offeredParameters(generated), generated)
    })

    it("points a 2019-09 $recursiveRef to the root at the root as it was, as it points a $ref to it", () => {
      const given = [
        {
          $schema: "https://json-schema.org/draft/2019-09/schema",
          $recursiveAnchor: true,
          type: ["object", "null"],
          properties: { child: { $recursiveRef: "#" } }
        },
        { $schema: draft07, type: ["object", "null"], properties: { child: { $ref: "#" } } }
      ]
      for (const schema of given) {
        // The child may still be null: it refers to the root as it was, not to the object it is offered as.
        expect(offeredParameters(schema)).toStrictEqual({
          type: "object",
          properties: { child: { $ref: "#/$defs/root" } },
          $defs: { root: { type: ["object", "null"], properties: { child: { $ref: "#/$defs/root" } } } }
        })
      }
    })

    it("inlines a root $ref into the schema's own definitions, as zod-to-json-schema writes it with a name", () => {
      const args = {
        type: "object",
        properties: { q: { type: "string" }, next: { $ref: "#/definitions/Args" } },
        required: ["q"],
        additionalProperties: false
      }
      const given = {
        $ref: "#/definitions/Args",
        definitions: { Args: args },
        $schema: "http://json-schema.org/draft-07/schema#"
      }
      expect(offeredParameters(given)).toStrictEqual({
        type: "object",
        properties: args.properties,
        required: ["q"],
        additionalProperties: false,
        definitions: { Args: args }
      })
    })

    it("merges a root allOf of objects (zod's .and()) into one object where that is exact", () => {
      const given = {
        allOf: [
          { type: "object", properties: { a: { type: "string" } }, required: ["a"], description: "First" },
          { type: "object", properties: { a: { minLength: 2 }, b: { type: "integer" } }, required: ["b"] }
        ],
        unevaluatedProperties: false
      }
      expect(offeredParameters(given)).toStrictEqual({
        type: "object",
        properties: { a: { allOf: [{ type: "string" }, { minLength: 2 }] }, b: { type: "integer" } },
        required: ["a", "b"],
        unevaluatedProperties: false,
        description: "First"
      })
    })

    it("keeps a root allOf no single object can stand for exactly, and says why", () => {
      const closedA = { type: "object", properties: { a: { type: "string" } }, additionalProperties: false }
      const closedB = { type: "object", properties: { b: { type: "string" } }, additionalProperties: false }
      const cases: ReadonlyArray<readonly [JsonSchema, string]> = [
        [{ allOf: [closedA, closedB] }, "its parts close their objects over different properties"],
        [{ allOf: [closedA, { properties: { c: {} } }] }, "names `c`, which another part's `additionalProperties`"],
        [{ allOf: [{ minProperties: 1 }, { minProperties: 2 }] }, "its parts give `minProperties` different values"],
        [{ allOf: [{ type: "object" }, { type: "string" }] }, "its parts allow no type in common"],
        [{ allOf: [{ properties: {}, unevaluatedProperties: false }] }, "has its own `unevaluatedProperties`"],
        [{ allOf: [{ $ref: "#/properties/x" }] }, "would no longer lead to the same place"]
      ]
      for (const [given, reason] of cases) {
        const merged = mergeRoot(given)
        assert(Result.isFailure(merged), JSON.stringify(given))
        assert.include(merged.failure, reason)
        expect(offeredParameters(given).allOf).toStrictEqual(given.allOf)
      }
    })

    it("merges references that fan out once each: a small schema cannot make the work grow with their product", () => {
      // Eight levels of nine references each: 9^8 paths, which a merge that followed every one would walk for hours.
      const $defs: Record<string, JsonSchema> = {}
      for (let i = 0; i < 8; i++) {
        $defs[`d${i}`] = i === 7
          ? { type: "object", properties: { a: { type: "string" } } }
          : { allOf: Array.from({ length: 9 }, () => ({ $ref: `#/$defs/d${i + 1}` })) }
      }
      const merged = mergeRoot({ allOf: [{ $ref: "#/$defs/d0" }], $defs })
      assert(Result.isSuccess(merged))
      expect(merged.success).toStrictEqual({ type: "object", properties: { a: { type: "string" } }, $defs })
      // Distinct references past the cap are refused, never walked.
      const wide: Record<string, JsonSchema> = {}
      for (let i = 0; i < 300; i++) wide[`w${i}`] = { type: "object" }
      const refused = mergeRoot({ allOf: Object.keys(wide).map((name) => ({ $ref: `#/$defs/${name}` })), $defs: wide })
      assert(Result.isFailure(refused))
      assert.include(refused.failure, "more than 256 parts")
    })

    it("points a `$ref: \"#\"` at a copy of the root as it was, when the root's type is narrowed to an object", () => {
      const given = { type: ["object", "null"], properties: { next: { $ref: "#" } } }
      const offered = offeredParameters(given)
      expect(offered).toStrictEqual({
        type: "object",
        properties: { next: { $ref: "#/$defs/root" } },
        $defs: { root: { type: ["object", "null"], properties: { next: { $ref: "#/$defs/root" } } } }
      })
      assert.isTrue(validatorOf(offered).validate({ next: { next: null } })._tag === "Success")
      assert.isTrue(validatorOf(offered).validate({ next: 1 })._tag === "Failure")
    })

    it("freezes what it makes of a frozen schema, and never touches one that is not", () => {
      const frozen = Object.freeze({ properties: Object.freeze({ q: Object.freeze({ type: "string" }) }) })
      assert.isTrue(Object.isFrozen(offeredParameters(frozen)))
      const open = { type: "object" }
      offeredParameters(open)
      expect(open).toStrictEqual({ type: "object" })
      assert.isFalse(Object.isFrozen(open))
    })
  })

  describe("inlineReference", () => {
    it("merges what a $ref names with the keywords beside it, as pydantic writes a described field", () => {
      const root = {
        type: "object",
        properties: { address: { $ref: "#/$defs/Address", description: "Where to ship" } },
        $defs: { Address: { title: "Address", type: "object", properties: { street: { type: "string" } } } }
      }
      expect(inlineReference(root, root.properties.address)).toStrictEqual(Result.succeed({
        description: "Where to ship",
        type: "object",
        properties: { street: { type: "string" } },
        title: "Address"
      }))
    })
  })
})
