import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { Arbitrary, Context, Effect, Exit, Option, Result, Schema, SchemaGetter } from "effect"
import { DynamicTool, Tool, ToolCall, ToolExecutionError, ToolOutput, ToolResult, ToolSet } from "../../src/index.ts"
import { jsonCodec } from "../../src/internal/codec.ts"
import { validatorOf } from "../../src/internal/jsonSchemaValidator.ts"
import { ToolTesting } from "../../src/testing/index.ts"
import { marker } from "../../src/testing/internal/invalidArguments.ts"
import { Compiler } from "../../src/testing/internal/jsonSchemaArbitrary.ts"
import { build, problemOf } from "../../src/testing/internal/totality.ts"
import * as ScriptedModelModule from "../../src/testing/scriptedModel.ts"
import { executeOrFail } from "../support/dispatch.ts"
import { throwingProxy } from "../support/hostile.ts"
import {
  catalogueTools as catalogue,
  draft07Schema,
  draft2020Schema,
  searchDocsParameters
} from "../support/mcpSchemas.ts"
import { kindOf } from "../support/results.ts"
import { typeErrorOf } from "../support/throws.ts"

// -------------------------------------------------------------------------------------------------------------
// Tools
// -------------------------------------------------------------------------------------------------------------

/** What each tool received, by tool name: the tools below record their arguments here. */
const received = new Map<string, Array<unknown>>()

const record = (name: string, args: unknown) => {
  const list = received.get(name) ?? []
  list.push(args)
  received.set(name, list)
}

/** A runtime tool that records its arguments and answers them back. */
const echoing = (name: string, parameters: DynamicTool.JsonSchema) =>
  DynamicTool.make(name, {
    description: `Echoes ${name}`,
    parameters,
    call: (args) =>
      Effect.sync(() => {
        record(name, args)
        return args
      })
  })

/** A typed tool that records its decoded arguments. */
const typed = <P extends Tool.AnySchema>(
  name: string,
  parameters: P & Tool.ObjectParameters<P>,
  onExcessProperty?: "error"
) =>
  Tool.make(name, {
    description: `Records ${name}`,
    parameters,
    ...(onExcessProperty === undefined ? {} : { onExcessProperty }),
    call: (args) =>
      Effect.sync(() => {
        record(name, args)
        return "ok"
      })
  })

class Point extends Schema.Class<Point>("Point")({ x: Schema.Finite, y: Schema.Finite }) {}

const typedTools = [
  typed("add", Schema.Struct({ left: Schema.Int, right: Schema.Int })),
  typed(
    "profile",
    Schema.Struct({
      id: Schema.Int,
      name: Schema.String,
      note: Schema.optionalKey(Schema.String),
      tags: Schema.Array(Schema.String),
      point: Schema.Struct({ x: Schema.Int, y: Schema.Int, label: Schema.optionalKey(Schema.String) }),
      mode: Schema.Literals(["fast", "slow"]),
      levels: Schema.Array(Schema.Struct({ depth: Schema.Int, kind: Schema.Literal("leaf") }))
    })
  ),
  typed("class_params", Point),
  typed(
    "tagged_union",
    Schema.Union([
      Schema.Struct({ kind: Schema.Literal("circle"), radius: Schema.Finite }),
      Schema.Struct({ kind: Schema.Literal("square"), side: Schema.Int })
    ])
  ),
  typed(
    "checked",
    Schema.Struct({
      code: Schema.String.check(Schema.isPattern(/^[A-Z]{3}-\d{2}$/)),
      count: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10 })),
      tags: Schema.Array(Schema.String).check(Schema.isMaxLength(3))
    })
  ),
  typed("strict", Schema.Struct({ query: Schema.String, limit: Schema.optionalKey(Schema.Int) }), "error"),
  typed("record", Schema.Record(Schema.String, Schema.Json)),
  // Numbers as any JSON number, and numbers that travel as strings.
  typed("number_kinds", Schema.Struct({ any: Schema.Number, text: Schema.NumberFromString, when: Schema.Date }))
]

/** JSON Schemas as real servers send them, and one for each keyword the generator builds. */
const jsonSchemas: ReadonlyArray<readonly [string, DynamicTool.JsonSchema]> = [
  ["search_docs", searchDocsParameters],
  ["create_commit", draft07Schema],
  ["route", draft2020Schema],
  ["formats", {
    type: "object",
    properties: Object.fromEntries(
      [
        "date",
        "time",
        "date-time",
        "iso-time",
        "iso-date-time",
        "duration",
        "uri",
        "uri-reference",
        "url",
        "uri-template",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "regex",
        "uuid",
        "json-pointer",
        "json-pointer-uri-fragment",
        "relative-json-pointer",
        "byte",
        "password",
        "binary",
        "x-unknown-format"
      ].map((format) => [format, { type: "string", format }]).concat(
        ["int32", "int64", "float", "double"].map((format) => [format, { type: "number", format }])
      )
    ),
    additionalProperties: false
  }],
  ["numbers", {
    type: "object",
    properties: {
      cents: { type: "number", multipleOf: 0.01, minimum: 0, maximum: 5 },
      dozens: { type: "integer", multipleOf: 6, exclusiveMinimum: 0 },
      both: { type: "integer", allOf: [{ multipleOf: 4 }, { multipleOf: 6 }], maximum: 100 },
      fraction: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
      small: { type: "integer", minimum: -3, maximum: 3 },
      huge: { type: "number", minimum: 1e300 }
    },
    required: ["cents", "dozens", "both", "fraction", "small", "huge"]
  }],
  ["strings", {
    type: "object",
    properties: {
      code: { type: "string", pattern: "^[A-Z]{2}-\\d{3,5}$", maxLength: 7 },
      three: { type: "string", minLength: 3, maxLength: 3 },
      containing: { type: "string", pattern: "abc" },
      dated: { type: "string", format: "date", pattern: "^\\d{4}-" }
    },
    required: ["code", "three", "containing", "dated"]
  }],
  ["unions", {
    type: "object",
    properties: {
      nullable: { type: ["string", "null"], maxLength: 4 },
      either: { anyOf: [{ type: "string", maxLength: 2 }, { type: "integer" }] },
      exactly: { oneOf: [{ const: 1 }, { const: "one" }] },
      members: { enum: [{ a: 1 }, [1, 2], "x", null, 7] },
      fixed: { const: { deep: [true, { n: 0 }] } }
    },
    required: ["nullable", "either", "exactly", "members", "fixed"]
  }],
  ["all_of", {
    allOf: [
      { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
      { properties: { b: { type: "boolean" }, a: { maxLength: 2 } }, required: ["b"] }
    ]
  }],
  ["conditional", {
    type: "object",
    properties: {
      kind: { enum: ["card", "cash"] },
      number: { type: "string", pattern: "^\\d{4}$" },
      change: { type: "boolean" }
    },
    required: ["kind"],
    if: { properties: { kind: { const: "card" } } },
    then: { required: ["number"] },
    else: { required: ["change"] }
  }],
  ["patterned", {
    type: "object",
    properties: { id: { type: "integer" } },
    patternProperties: { "^x-": { type: "string", maxLength: 5 } },
    additionalProperties: false,
    required: ["id", "x-trace"]
  }],
  // Keys by pattern only, as many MCP tools declare a map of environment variables.
  ["env_map", {
    type: "object",
    patternProperties: { "^[A-Z_][A-Z0-9_]*$": { type: "string" } },
    additionalProperties: false,
    minProperties: 1
  }],
  ["pattern_bounds", {
    type: "object",
    properties: { ABC: { type: "string", maxLength: 1 } },
    patternProperties: { "^[A-Z]{1,3}$": { type: "string" }, "^[A-Z]$": { maxLength: 2 } },
    additionalProperties: false,
    minProperties: 2,
    maxProperties: 3
  }],
  ["dependent", {
    type: "object",
    properties: { card: { type: "string" }, billing: { type: "string" } },
    dependentRequired: { card: ["billing"] },
    additionalProperties: false
  }],
  ["dependencies_07", {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: { card: { type: "string" }, billing: { type: "string" } },
    dependencies: { card: ["billing"] },
    additionalProperties: false
  }],
  ["distinct", {
    type: "object",
    properties: { letters: { type: "array", items: { enum: ["a", "b", "c"] }, uniqueItems: true, minItems: 2 } },
    required: ["letters"]
  }],
  ["arrays", {
    type: "object",
    properties: {
      needle: { type: "array", items: { type: "string" }, contains: { const: "needle" } },
      one: { type: "array", items: { type: "integer" }, maxItems: 1 },
      some: { type: "array", minItems: 3 }
    },
    required: ["needle", "one", "some"]
  }],
  ["tree", {
    $ref: "#/$defs/node",
    $defs: {
      node: {
        type: "object",
        properties: { value: { type: "integer" }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
        required: ["value"],
        additionalProperties: false
      }
    }
  }],
  ["linked", { type: "object", properties: { value: { type: "string" }, next: { $ref: "#" } }, required: ["value"] }],
  ["anchored", {
    type: "object",
    properties: { at: { $ref: "#place" } },
    required: ["at"],
    $defs: { place: { $anchor: "place", type: "object", properties: { lat: { type: "number" } }, required: ["lat"] } }
  }],
  ["anchored_07", {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: { item: { $ref: "#item" } },
    required: ["item"],
    definitions: { item: { $id: "#item", type: "string", enum: ["x", "y"] } }
  }],
  ["checked_only", {
    type: "object",
    properties: { a: { type: "integer", not: { const: 0 } } },
    required: ["a"],
    propertyNames: { maxLength: 3 },
    minProperties: 1
  }],
  ["booleans", { type: "object", properties: { anything: true, nothing: false }, required: ["anything"] }],
  ["few_keys", {
    type: "object",
    properties: { a: { type: "string" }, b: { type: "string" }, c: { type: "string" } },
    maxProperties: 1
  }],
  ["permissive", { type: "object" }],
  ["untyped", {}],
  ["object_or_null", { type: ["object", "null"], properties: { n: { type: "null" } } }]
]

const jsonTools = jsonSchemas.map(([name, schema]) => echoing(name, schema))

/** The tools of published MCP servers, each answering its arguments back. */
const catalogueTools = catalogue.map((tool) => echoing(tool.name, tool.inputSchema))

const set = ToolSet.make(...typedTools, ...jsonTools, ...catalogueTools)

/** Runs one call; dispatch must never fail or die. */
const execute = (name: string, args: unknown) => executeOrFail(set, ToolCall.make({ id: "c", name, arguments: args }))

const describeResult = (result: ToolResult.ToolResult) =>
  `${result.status} ${kindOf(result)}: ${ToolOutput.render(result.output)}`

/** A sample of an arbitrary, with a fixed seed. */
const sample = <A>(arbitrary: Arbitrary.Arbitrary<A>, count = 200) =>
  Arbitrary.sampleEffect(arbitrary, { count, seed: 42 })

const dynamic = (parameters: DynamicTool.JsonSchema, name = "t") =>
  DynamicTool.make(name, { description: "", parameters, call: () => Effect.void })

// -------------------------------------------------------------------------------------------------------------
// arbitraryArguments
// -------------------------------------------------------------------------------------------------------------

describe("ToolTesting.arbitraryArguments", () => {
  it("finds the published tools, so that the properties below cover them", () => {
    assert.isAbove(catalogueTools.length, 50)
  })

  const allTools: ReadonlyArray<Tool.Any> = [...typedTools, ...jsonTools, ...catalogueTools]

  it.effect.prop(
    "every value is plain JSON, accepted by dispatch parsed or as text, and a runtime tool receives it as it was sent",
    [Arbitrary.all(allTools.map((tool) => ToolTesting.arbitraryArguments(tool)))],
    ([values]) =>
      Effect.gen(function*() {
        for (let i = 0; i < allTools.length; i++) {
          const tool = allTools[i]!
          const value = values[i]!
          // Plain JSON: what its text gives back, with no -0 (which JSON cannot tell from 0).
          assert.deepStrictEqual(value, JSON.parse(JSON.stringify(value)))
          assert.notInclude(JSON.stringify(value, (_, v) => Object.is(v, -0) ? "negative zero" : v), "negative zero")
          received.delete(tool.name)
          const parsed = yield* execute(tool.name, value)
          const text = yield* execute(tool.name, JSON.stringify(value))
          for (const result of [parsed, text]) {
            const shown = `${tool.name}: ${JSON.stringify(value)}\n${describeResult(result)}`
            assert.strictEqual(result.status, "success", shown)
          }
          if (DynamicTool.isDynamic(tool)) assert.deepStrictEqual(received.get(tool.name), [value, value])
        }
      }),
    { timeout: 120_000, arbitrary: { runs: 40 } }
  )

  // `Schema.Any` parameters accept whatever is sent, `null` and blank text too, which dispatch takes for `{}`.
  const Anything = Tool.make("anything", {
    description: "Takes any arguments",
    parameters: Schema.Any,
    call: () => Effect.succeed("ok")
  })

  it.effect.prop(
    "a tool whose parameters accept anything gets JSON objects, never null or a string",
    [ToolTesting.arbitraryArguments(Anything)],
    ([value]) =>
      Effect.sync(() => {
        assert.isTrue(typeof value === "object" && value !== null && !Array.isArray(value), JSON.stringify(value))
      }),
    { arbitrary: { runs: 200 } }
  )

  it.effect.prop(
    "a typed tool receives the arguments decoded, the same from the value and from its text",
    [Arbitrary.all(typedTools.map((tool) => ToolTesting.arbitraryArguments(tool)))],
    ([values]) =>
      Effect.gen(function*() {
        for (let i = 0; i < typedTools.length; i++) {
          const tool = typedTools[i]!
          received.delete(tool.name)
          yield* execute(tool.name, values[i])
          yield* execute(tool.name, JSON.stringify(values[i]))
          const [fromValue, fromText] = received.get(tool.name)!
          assert.deepStrictEqual(fromValue, fromText, tool.name)
          assert.deepStrictEqual(
            fromValue,
            Schema.decodeUnknownSync(jsonCodec(tool.parameters))(values[i]),
            tool.name
          )
        }
      }),
    { arbitrary: { runs: 60 } }
  )

  // Keywords left to the validator (and `uniqueItems`, whose repeats are dropped, which may leave too few items) are
  // left out here: for the rest, the generator's values must be valid before any filter.
  const builtSchemas = jsonSchemas.filter(([name]) => !["checked_only", "conditional", "distinct"].includes(name))

  it.prop(
    "values built for schemas that use only built keywords are valid without the validator's filter",
    [Arbitrary.all(builtSchemas.map(([, schema]) => new Compiler(schema).root()))],
    ([values]) => {
      values.forEach((value, i) => {
        const [name, schema] = builtSchemas[i]!
        const result = validatorOf(schema).validate(value)
        const lines = Result.isFailure(result) && result.failure._tag === "Mismatch" ? result.failure.message : ""
        assert.isTrue(Result.isSuccess(result), `${name}: ${JSON.stringify(value)}\n${lines}`)
      })
    },
    { arbitrary: { runs: 60 } }
  )

  it.effect("builds values that are hard to find by chance: formats, patterns, multiples, constants, tuples", () =>
    Effect.gen(function*() {
      // A generator that guessed and filtered would be exhausted by these long before 200 values.
      for (
        const name of ["formats", "numbers", "strings", "unions", "arrays", "distinct", "patterned", "env_map", "route"]
      ) {
        const values = yield* sample(ToolTesting.arbitraryArguments(set.tools.find((tool) => tool.name === name)!))
        assert.strictEqual(values.length, 200, name)
      }
    }))

  it.effect("covers the choices a schema leaves: optional keys, every branch, every member, undeclared keys", () =>
    Effect.gen(function*() {
      const of = (name: string) => ToolTesting.arbitraryArguments(set.tools.find((tool) => tool.name === name)!)
      const kinds = (values: ReadonlyArray<unknown>, read: (value: Record<string, unknown>) => unknown) =>
        [...new Set(values.map((value) => JSON.stringify(read(value as Record<string, unknown>))))].sort()

      const search = yield* sample(of("search_docs"))
      assert.deepStrictEqual(kinds(search, (value) => "limit" in value), ["false", "true"])

      const unions = yield* sample(of("unions"))
      assert.deepStrictEqual(kinds(unions, (value) => value.nullable === null), ["false", "true"])
      assert.deepStrictEqual(kinds(unions, (value) => typeof value.either), ["\"number\"", "\"string\""])
      assert.deepStrictEqual(kinds(unions, (value) => value.exactly), ["\"one\"", "1"])
      assert.deepStrictEqual(kinds(unions, (value) => value.members), ["\"x\"", "7", "[1,2]", "null", "{\"a\":1}"])

      const conditional = yield* sample(of("conditional"))
      assert.deepStrictEqual(kinds(conditional, (value) => value.kind), ["\"card\"", "\"cash\""])

      // An open object also gets keys it does not declare; a closed one never does.
      const permissive = yield* sample(of("permissive"))
      assert.isTrue(permissive.some((value) => Object.keys(value).length > 0))
      assert.isTrue(search.every((value) => Object.keys(value).every((key) => key === "query" || key === "limit")))

      const tree = yield* sample(of("tree"))
      const depth = (node: unknown): number =>
        1 + Math.max(0, ...((node as { children?: ReadonlyArray<unknown> }).children ?? []).map(depth))
      assert.isTrue(tree.some((value) => depth(value) >= 3), "recursion is unrolled")
    }))

  it.effect("makes keys from patternProperties: matching keys, values of the pattern's schema, within the bounds", () =>
    Effect.gen(function*() {
      const envVar = /^[A-Z_][A-Z0-9_]*$/
      const open = dynamic({
        type: "object",
        patternProperties: { "^[A-Z_][A-Z0-9_]*$": { type: "string" } },
        additionalProperties: false
      })
      const maps = yield* sample(ToolTesting.arbitraryArguments(open))
      assert.strictEqual(maps.length, 200)
      assert.isAbove(maps.filter((value) => Object.keys(value).length > 0).length, 100)
      for (const value of maps) {
        for (const [key, item] of Object.entries(value)) {
          assert.match(key, envVar)
          assert.strictEqual(typeof item, "string")
        }
      }

      // `minProperties: 1` is met by keys made from the pattern, not left to the validator to discard.
      const atLeastOne = set.tools.find((tool) => tool.name === "env_map")!
      const run = yield* Arbitrary.checkEffect(ToolTesting.arbitraryArguments(atLeastOne), () => true, {
        runs: 200,
        seed: 1
      })
      assert.deepStrictEqual(run._tag === "Passed" ? run.discards : run, 0)

      // A declared key keeps its own schema; `maxProperties` and `minProperties` bound the keys made.
      const bounded = yield* sample(new Compiler(jsonSchemas.find(([name]) => name === "pattern_bounds")![1]).root())
      for (const value of bounded) {
        const keys = Object.keys(value as object)
        assert.isTrue(keys.length >= 2 && keys.length <= 3, JSON.stringify(value))
        const abc = (value as Record<string, unknown>).ABC
        const shown = JSON.stringify(value)
        assert.isTrue(abc === undefined || (typeof abc === "string" && Array.from(abc).length <= 1), shown)
      }

      // A pattern no string can be built for makes no keys, and is not refused.
      const lookahead = dynamic({ type: "object", patternProperties: { "^(?=a)a+$": { type: "string" } } })
      assert.isTrue((yield* sample(ToolTesting.arbitraryArguments(lookahead))).every((value) =>
        Object.keys(value).every((key) => !/^(?=a)a+$/.test(key))
      ))
    }))

  it.effect("a typed tool's values are its Schema's, encoded: optional keys come and go, numbers are finite", () =>
    Effect.gen(function*() {
      const profile = yield* sample(ToolTesting.arbitraryArguments(typedTools[1]!))
      assert.isTrue(profile.some((value) => "note" in value) && profile.some((value) => !("note" in value)))
      const numbers = yield* sample(ToolTesting.arbitraryArguments(typedTools[7]!))
      for (const value of numbers) {
        assert.isTrue(Number.isFinite(value.any))
        assert.strictEqual(typeof value.text, "string")
        assert.strictEqual(typeof value.when, "string")
      }
    }))

  it.effect("builds the branches of if/then/else, and arrays without repeats for uniqueItems", () =>
    Effect.gen(function*() {
      // Guessing `kind` and the optional keys apart would see about half the values refused; building `if` and
      // `then` together, few are.
      const conditional = ToolTesting.arbitraryArguments(set.tools.find((tool) => tool.name === "conditional")!)
      const run = yield* Arbitrary.checkEffect(conditional, () => true, { runs: 200, seed: 1 })
      assert.strictEqual(run._tag, "Passed")
      assert.isBelow(run._tag === "Passed" ? run.discards : Infinity, 60)
      const distinct = jsonSchemas.find(([name]) => name === "distinct")![1]
      const built = yield* sample(new Compiler(distinct).root())
      for (const value of built) {
        const letters = (value as { readonly letters: ReadonlyArray<string> }).letters
        assert.strictEqual(new Set(letters).size, letters.length)
      }
    }))

  it.effect("drops what it cannot check: values of a Schema that decodes asynchronously are never given", () =>
    Effect.gen(function*() {
      const Slow = Schema.String.pipe(Schema.decodeTo(Schema.String, {
        decode: SchemaGetter.transformEffect((text: string) => Effect.delay(Effect.succeed(text), "1 millis")),
        encode: SchemaGetter.passthrough()
      }))
      const SlowTool = typed("slow", Schema.Struct({ text: Slow }))
      const exit = yield* Effect.exit(Arbitrary.sampleEffect(ToolTesting.arbitraryArguments(SlowTool), { count: 5 }))
      assert.isTrue(Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail")
      // What it must refuse is still refused.
      const slowSet = ToolSet.make(SlowTool)
      for (const value of yield* sample(ToolTesting.invalidArguments(SlowTool), 50)) {
        const result = yield* ToolSet.execute(slowSet, ToolCall.make({ id: "c", name: "slow", arguments: value }))
        assert.strictEqual(kindOf(result), "invalid_args")
      }
    }))

  it("gives the same arbitrary for the same tool", () => {
    const tool = jsonTools[0]!
    assert.strictEqual(ToolTesting.arbitraryArguments(tool), ToolTesting.arbitraryArguments(tool))
  })

  it("refuses, naming the tool, the reason and where, a schema no arguments can be built for", () => {
    const refusal = (parameters: DynamicTool.JsonSchema) =>
      typeErrorOf(() => ToolTesting.arbitraryArguments(dynamic(parameters, "lookup")))
    const prefix = "ToolTesting.arbitraryArguments: tool `lookup`: "
    assert.deepStrictEqual(
      [
        refusal({ type: "object", properties: { a: { type: "string", pattern: "^(?=x)x+$" } } }),
        refusal({ type: "object", properties: { a: { type: "string", pattern: "(a)\\1" } } }),
        refusal({ type: "object", properties: { a: { type: "string", pattern: "\\bword\\b" } } }),
        refusal({ type: "object", properties: { a: { type: "string", pattern: "^\\p{L}+$" } } }),
        refusal({
          type: "object",
          properties: { a: { $dynamicRef: "#node" } },
          $defs: { n: { $dynamicAnchor: "node" } }
        })
      ],
      [
        `${prefix}no arguments can be built for its JSON Schema: the pattern "^(?=x)x+$" uses a lookaround, which ` +
        "strings are not built for (at /properties/a)",
        `${prefix}no arguments can be built for its JSON Schema: the pattern "(a)\\\\1" uses a backreference, which ` +
        "strings are not built for (at /properties/a)",
        `${prefix}no arguments can be built for its JSON Schema: the pattern "\\\\bword\\\\b" uses a word boundary, ` +
        "which strings are not built for (at /properties/a)",
        `${prefix}no arguments can be built for its JSON Schema: the pattern "^\\\\p{L}+$" uses a Unicode property ` +
        "escape, which strings are not built for (at /properties/a)",
        `${prefix}no arguments can be built for its JSON Schema: $dynamicRef is not followed (at /properties/a)`
      ]
    )
  })

  it("refuses a pattern with an inline modifier, which the JavaScript of some hosts accepts", () => {
    const schema = { type: "object", properties: { a: { type: "string", pattern: "(?i:abc)" } }, required: ["a"] }
    assert.throws(
      () => new Compiler(schema).root(),
      "the pattern \"(?i:abc)\" uses an inline modifier, which strings are not built for (at /properties/a)"
    )
  })

  it("refuses a schema that admits no object it can build, saying why", () => {
    const refusal = (parameters: DynamicTool.JsonSchema) =>
      typeErrorOf(() => ToolTesting.arbitraryArguments(dynamic(parameters, "lookup")))
    const prefix =
      "ToolTesting.arbitraryArguments: tool `lookup`: its JSON Schema admits no arguments that can be built: "
    assert.deepStrictEqual(
      [
        refusal({ type: "object", properties: { n: { type: "integer", minimum: 5, maximum: 1 } }, required: ["n"] }),
        refusal({ type: "object", properties: { no: false }, required: ["no"] }),
        refusal({ type: "object", properties: { s: { type: "string", minLength: 4, maxLength: 2 } }, required: ["s"] }),
        refusal({ type: "object", properties: { e: { enum: [1, 2], minimum: 3 } }, required: ["e"] }),
        refusal({ type: "object", properties: { next: { $ref: "#" } }, required: ["next"] }),
        refusal({ type: "object", additionalProperties: false, required: ["undeclared"] }),
        refusal({ type: "object", properties: { a: { type: "array", items: false, minItems: 1 } }, required: ["a"] })
      ],
      [
        `${prefix}no number lies within its bounds (at /properties/n)`,
        `${prefix}the schema \`false\` admits no value (at /properties/no)`,
        `${prefix}no string length lies within its bounds (at /properties/s)`,
        `${prefix}no value of its \`enum\` or \`const\` matches the rest (at /properties/e)`,
        `${prefix}the schema recurses deeper than the generator unrolls (3 times) (at /properties/next)`,
        `${prefix}the schema \`false\` admits no value (at /additionalProperties)`,
        `${prefix}no array of at least 1 items is admitted (at /properties/a)`
      ]
    )
  })

  it("refuses a schema whose validator does not compile, and a Schema Effect cannot derive values of", () => {
    const dangling = dynamic({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } })
    assert.strictEqual(
      typeErrorOf(() => ToolTesting.arbitraryArguments(dangling)),
      "ToolTesting.arbitraryArguments: tool `t`: its parameters JSON Schema cannot check arguments: the JSON Schema " +
        "cannot be compiled: can't resolve reference #/$defs/missing from id #"
    )
    class Opaque {
      readonly secret = 1
    }
    const OpaqueTool = typed(
      "opaque",
      Schema.Struct({ value: Schema.declare((u): u is Opaque => u instanceof Opaque) })
    )
    assert.strictEqual(
      typeErrorOf(() => ToolTesting.arbitraryArguments(OpaqueTool)),
      "ToolTesting.arbitraryArguments: tool `opaque`: Effect cannot derive values of its parameters Schema: " +
        "Unable to derive an arbitrary for an unsupported Declaration\n  at [\"value\"]"
    )
  })

  it("refuses what is not a tool", () => {
    for (const value of [undefined, null, {}, "add", ToolSet.make()]) {
      assert.strictEqual(
        typeErrorOf(() => ToolTesting.arbitraryArguments(value as never)),
        "ToolTesting.arbitraryArguments: expected a tool"
      )
    }
  })
})

// -------------------------------------------------------------------------------------------------------------
// invalidArguments
// -------------------------------------------------------------------------------------------------------------

describe("ToolTesting.invalidArguments", () => {
  const refusedTools: ReadonlyArray<Tool.Any> = [...typedTools, ...jsonTools, ...catalogueTools.slice(0, 30)]

  it.effect.prop(
    "every value is refused by dispatch with invalid_args, never runs the tool, and is never repeated to the model",
    [Arbitrary.all(refusedTools.map((tool) => ToolTesting.invalidArguments(tool)))],
    ([values]) =>
      Effect.gen(function*() {
        for (let i = 0; i < refusedTools.length; i++) {
          const tool = refusedTools[i]!
          received.delete(tool.name)
          const result = yield* execute(tool.name, values[i])
          const shown = `${tool.name}: ${JSON.stringify(values[i])}\n${describeResult(result)}`
          assert.strictEqual(kindOf(result), "invalid_args", shown)
          assert.notInclude(ToolOutput.render(result.output), marker)
          assert.isUndefined(received.get(tool.name))
        }
      }),
    { timeout: 120_000, arbitrary: { runs: 40 } }
  )

  it.effect("makes near misses of every kind, and values any tool refuses", () =>
    Effect.gen(function*() {
      const values = yield* sample(ToolTesting.invalidArguments(jsonTools[0]!), 400)
      const objects = values.filter((value): value is Record<string, Schema.Json> =>
        typeof value === "object" && value !== null && !Array.isArray(value)
      )
      const texts = values.filter((value): value is string => typeof value === "string")
      const parsedText = texts.flatMap((text) => {
        try {
          return [JSON.parse(text) as unknown]
        } catch {
          return []
        }
      })
      const found = {
        missingRequired: objects.some((value) => !("query" in value) && !("nested" in value)),
        wrongType: objects.some((value) => "query" in value && typeof value.query !== "string"),
        outOfBounds: objects.some((value) =>
          value.query === "" || (typeof value.limit === "number" && value.limit > 20)
        ),
        extraKey: objects.some((value) => "unexpected_key" in value),
        tooDeep: objects.some((value) => "nested" in value),
        nearMissText: parsedText.some((value) => typeof value === "object" && value !== null && !Array.isArray(value)),
        brokenText: texts.length > parsedText.length,
        nonObjectText: parsedText.some((value) => typeof value !== "object" || Array.isArray(value)),
        nonObject: values.some((value) =>
          typeof value === "number" || typeof value === "boolean" || Array.isArray(value)
        )
      }
      assert.deepStrictEqual(found, {
        missingRequired: true,
        wrongType: true,
        outOfBounds: true,
        extraKey: true,
        tooDeep: true,
        nearMissText: true,
        brokenText: true,
        nonObjectText: true,
        nonObject: true
      })
    }))

  it.effect.prop(
    "a tool that accepts any object still gets only values it refuses",
    [
      ToolTesting.invalidArguments(typedTools[6]!),
      ToolTesting.invalidArguments(jsonTools.find((tool) => tool.name === "permissive")!)
    ],
    ([forRecord, forPermissive]) =>
      Effect.gen(function*() {
        assert.strictEqual(kindOf(yield* execute("record", forRecord)), "invalid_args")
        assert.strictEqual(kindOf(yield* execute("permissive", forPermissive)), "invalid_args")
      }),
    { arbitrary: { runs: 100 } }
  )

  const Lookaround = echoing("lookaround", { type: "object", properties: { a: { type: "string", pattern: "^(?=x)" } } })

  it.effect.prop(
    "a tool whose valid arguments cannot be built still gets values it refuses",
    [ToolTesting.invalidArguments(Lookaround)],
    ([value]) =>
      Effect.gen(function*() {
        const call = ToolCall.make({ id: "c", name: "lookaround", arguments: value })
        const result = yield* ToolSet.execute(ToolSet.make(Lookaround), call)
        assert.strictEqual(kindOf(result), "invalid_args")
      }),
    { arbitrary: { runs: 60 } }
  )

  it("refuses what is not a tool", () => {
    assert.strictEqual(
      typeErrorOf(() => ToolTesting.invalidArguments(42 as never)),
      "ToolTesting.invalidArguments: expected a tool"
    )
  })
})

// -------------------------------------------------------------------------------------------------------------
// checkTotal
// -------------------------------------------------------------------------------------------------------------

/** Tools that break their contract every way a JavaScript tool can: dispatch must still answer each call once. */
const misbehaving = [
  Tool.make("returns_proxy", {
    description: "Returns a proxy that throws",
    parameters: Schema.Struct({ n: Schema.optionalKey(Schema.Int) }),
    call: () => Effect.succeed(throwingProxy())
  }),
  Tool.make("dies", { description: "Dies", parameters: Schema.Struct({}), call: () => Effect.die(throwingProxy()) }),
  Tool.make("fails", {
    description: "Fails with a typed error",
    parameters: Schema.Struct({ reason: Schema.String }),
    call: ({ reason }) => Effect.fail(ToolExecutionError.permissionDenied(reason))
  }),
  Tool.make("refuses", {
    description: "Refuses",
    parameters: Schema.Struct({}),
    call: () => Effect.fail(ToolExecutionError.refused("no"))
  }),
  DynamicTool.make("throws", {
    description: "Throws instead of returning an Effect",
    parameters: { type: "object", properties: { a: { type: "integer" } }, additionalProperties: false },
    call: () => {
      throw new Error("thrown")
    }
  })
]

describe("ToolTesting.checkTotal", () => {
  const AnythingSet = ToolSet.make(Tool.make("anything", {
    description: "Takes any arguments",
    parameters: Schema.Any,
    call: () => Effect.succeed("ok")
  }))
  const anythingTotal = ToolTesting.checkTotal(AnythingSet)
  it.effect.prop(
    "holds for a tool whose parameters accept anything: its near misses are never built from a non-object",
    anythingTotal.arbitraries,
    anythingTotal.property,
    { arbitrary: { runs: 60 } }
  )

  const total = ToolTesting.checkTotal(ToolSet.make(...typedTools, ...jsonTools, ...misbehaving))

  it.effect.prop("holds for a set of typed, runtime and misbehaving tools", total.arbitraries, total.property, {
    timeout: 120_000,
    arbitrary: { runs: 150 }
  })

  const empty = ToolTesting.checkTotal(ToolSet.empty)

  it.effect.prop("holds for the empty set: every call is not_found", empty.arbitraries, empty.property, {
    arbitrary: { runs: 50 }
  })

  it.effect("generates every kind of call: valid, invalid, garbage, hostile arguments, unknown names, non-calls", () =>
    Effect.gen(function*() {
      const batches = yield* sample(total.arbitraries.batch, 300)
      const calls = batches.flatMap((batch) => batch.calls)
      const kinds = new Set(calls.map((call) =>
        call._tag === "Malformed" ? "malformed" : call.known ? call.arguments._tag : "unknown name"
      ))
      assert.deepStrictEqual([...kinds].sort(), ["Garbage", "Hostile", "Invalid", "Valid", "malformed", "unknown name"])
      const hostile = new Set(calls.flatMap((call) =>
        call._tag === "Call" && call.arguments._tag === "Hostile" ? [call.arguments.kind] : []
      ))
      assert.isAbove(hostile.size, 10)
      assert.deepStrictEqual([...new Set(batches.map((batch) => batch.concurrency))].sort(), [1, 3, "unbounded"].sort())
      assert.isTrue(batches.every((batch) => batch.calls.length <= 6))
      // Near misses of the set's names are unknown names too.
      assert.isTrue(calls.some((call) => call._tag === "Call" && !call.known && call.name === "add_"))
    }))

  it.effect("with validArguments false, never runs a tool", () =>
    Effect.gen(function*() {
      const Counted = typed("counted", Schema.Struct({ n: Schema.Int }))
      const check = ToolTesting.checkTotal(ToolSet.make(Counted), { validArguments: false, maxCalls: 3 })
      const batches = yield* sample(check.arbitraries.batch, 100)
      received.delete("counted")
      for (const batch of batches) {
        assert.isAtMost(batch.calls.length, 3)
        yield* check.property({ batch })
      }
      assert.isUndefined(received.get("counted"))
      const valid = batches.flatMap((batch) =>
        batch.calls.filter((call) => call._tag === "Call" && call.arguments._tag === "Valid")
      )
      assert.deepStrictEqual(valid, [])
    }))

  /** A copy of a set whose dispatch is changed where it looks a tool up: what the property must catch. */
  const tampered = (base: ToolSet.Any, byName: ReadonlyMap<string, unknown>): ToolSet.Any =>
    Object.assign(Object.create(Object.getPrototypeOf(base)), base, { registry: { ...base.registry, byName } })

  const Echo = typed("echo", Schema.Struct({ text: Schema.String }))
  const echoSet = ToolSet.make(Echo)
  const echoPlan = echoSet.registry.byName.get("echo")!

  const falsified = (check: ToolTesting.TotalCheck<never>, batch: ToolTesting.Batch) =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(check.property({ batch }))
      if (Exit.isSuccess(exit)) return assert.fail("the property held")
      const error = exit.cause.reasons[0]
      assert.isTrue(error?._tag === "Fail" && error.error._tag === "TotalityViolation")
      return (error as { readonly error: ToolTesting.TotalityViolation }).error
    })

  const invalidCall: ToolTesting.GeneratedCall = {
    _tag: "Call",
    id: "c1",
    name: "echo",
    known: true,
    arguments: { _tag: "Invalid", value: { text: marker, extra: 1, n: [marker] } as never }
  }

  it.effect("fails with a TotalityViolation when dispatch dies", () =>
    Effect.gen(function*() {
      const broken = () => {
        throw new Error("broken decoder")
      }
      const dying = tampered(echoSet, new Map([["echo", { ...echoPlan, decode: broken }]]))
      const violation = yield* falsified(ToolTesting.checkTotal(dying), { calls: [invalidCall], concurrency: 1 })
      assert.strictEqual(violation.call, undefined)
      assert.match(violation.message, /^executeAll failed or died: .*broken decoder/s)
    }))

  it.effect("fails when a refusal repeats what was sent, or is not the kind it must be", () =>
    Effect.gen(function*() {
      const echoingDecoder = tampered(echoSet, new Map([["echo", {
        ...echoPlan,
        decode: undefined,
        check: (input: unknown) => ToolExecutionError.invalidArgs(`bad: ${JSON.stringify(input)}`)
      }]]))
      const echoed = yield* falsified(ToolTesting.checkTotal(echoingDecoder), { calls: [invalidCall], concurrency: 1 })
      assert.deepStrictEqual(
        [echoed.call, echoed.message.endsWith("what the model sees repeats a value that was sent")],
        [0, true]
      )
      const accept = (input: unknown) => Exit.succeed(input)
      const accepting = tampered(echoSet, new Map([["echo", { ...echoPlan, decode: accept }]]))
      const accepted = yield* falsified(ToolTesting.checkTotal(accepting), { calls: [invalidCall], concurrency: 1 })
      assert.isTrue(accepted.message.endsWith("it ended success, not with kind invalid_args"), accepted.message)
      const unknown: ToolTesting.GeneratedCall = { ...invalidCall, name: "missing", known: false }
      const routed = tampered(echoSet, new Map([["missing", { ...echoPlan, decode: accept }]]))
      const found = yield* falsified(ToolTesting.checkTotal(routed), { calls: [unknown], concurrency: 1 })
      assert.isTrue(found.message.endsWith("it ended success, not with kind not_found"), found.message)
    }))

  it("refuses what is not a tool set, and a maxCalls that is not a whole number from 1 to 2^32 - 1", () => {
    assert.strictEqual(
      typeErrorOf(() => ToolTesting.checkTotal(Echo as never)),
      "ToolTesting.checkTotal: expected a tool set"
    )
    assert.deepStrictEqual(
      [0, 1.5, -1, Number.NaN, "3", 2 ** 32].map((maxCalls) =>
        typeErrorOf(() => ToolTesting.checkTotal(echoSet, { maxCalls: maxCalls as never }))
      ),
      ["0", "1.5", "-1", "NaN", "3", "4294967296"].map((shown) =>
        `ToolTesting.checkTotal: maxCalls must be a whole number from 1 to 4294967295, not ${shown}`
      )
    )
  })

  it("refuses, with valid arguments, a set holding a tool whose arguments cannot be built", () => {
    const Lookbehind = dynamic(
      { type: "object", properties: { a: { type: "string", pattern: "(?<=x)" } } },
      "lookbehind"
    )
    assert.match(
      typeErrorOf(() => ToolTesting.checkTotal(ToolSet.make(Lookbehind))),
      /^ToolTesting\.arbitraryArguments: tool `lookbehind`: no arguments can be built/
    )
    assert.doesNotThrow(() => ToolTesting.checkTotal(ToolSet.make(Lookbehind), { validArguments: false }))
  })

  it("needs what the set's tools need", () => {
    class Clock extends Context.Service<Clock, { readonly now: number }>()("test/Clock") {}
    const Now = Tool.make("now", {
      description: "The time",
      parameters: Schema.Struct({}),
      call: () =>
        Effect.gen(function*() {
          const clock = yield* Clock
          return clock.now
        })
    })
    const check = ToolTesting.checkTotal(ToolSet.make(Now))
    expectTypeOf(check).toEqualTypeOf<ToolTesting.TotalCheck<Clock>>()
    expectTypeOf(check.property).returns.toEqualTypeOf<Effect.Effect<void, ToolTesting.TotalityViolation, Clock>>()
  })
})

describe("the checks of the totality property", () => {
  const spec: ToolTesting.GeneratedCall = {
    _tag: "Call",
    id: "c1",
    name: "echo",
    known: true,
    arguments: { _tag: "Invalid", value: [] }
  }
  const validSpec: ToolTesting.GeneratedCall = { ...spec, arguments: { _tag: "Valid", value: {}, asText: false } }
  const refusal = ToolExecutionError.invalidArgs("tool arguments must be a JSON object")
  const fields: ToolResult.ToolResultFields = {
    callId: "c1",
    name: "echo",
    arguments: [],
    status: "error",
    output: refusal.modelOutput,
    error: Option.some(refusal),
    metadata: Context.empty(),
    durationMs: 1
  }
  const result = (changes: Partial<ToolResult.ToolResultFields>) => ToolResult.make({ ...fields, ...changes })
  const withError = (changes: Record<string, unknown>) => {
    const error = Object.assign(Object.create(Object.getPrototypeOf(refusal)), refusal, changes)
    return result({ error: Option.some(error), output: error.modelOutput })
  }
  const unreadable = Object.defineProperty(result({}), "status", {
    get() {
      throw new Error("unreadable status")
    }
  })
  const echoed = ToolExecutionError.invalidArgs(`the value ${marker} is wrong`)
  const denial = ToolExecutionError.refused("no")
  const succeeded = result({ status: "success", error: Option.none(), output: ToolOutput.text("ok") })
  const missing = ToolExecutionError.notFound("tool `x` not found")

  it("accepts a result that keeps the contract, and names what breaks it otherwise", () => {
    const cases: ReadonlyArray<readonly [ToolTesting.GeneratedCall, unknown, string | undefined]> = [
      [spec, result({}), undefined],
      [validSpec, succeeded, undefined],
      [validSpec, result({ status: "denied", error: Option.some(denial), output: denial.modelOutput }), undefined],
      [
        { _tag: "Malformed", kind: "null" },
        result({ callId: "", name: "", error: Option.some(missing), output: missing.modelOutput }),
        undefined
      ],
      [spec, { ...fields }, "its result is not a ToolResult"],
      [spec, result({ callId: "c2" }), "its result has the call id \"c2\""],
      [spec, result({ name: "other" }), "its result has the name \"other\""],
      [spec, result({ status: "lost" as never }), "its result has the status \"lost\""],
      [spec, result({ error: Option.none() }), "its result has the status error and no error"],
      [validSpec, result({ status: "success" }), "its result has the status success and an error"],
      [spec, result({ output: { content: [] } as never }), "its result's output is not a ToolOutput with content"],
      [spec, withError({ kind: "lost" }), "its error has the kind \"lost\""],
      [spec, withError({ message: 5 }), "its error's message is not a string"],
      [spec, result({ output: ToolOutput.text("something else") }), "its output is not its error's model output"],
      [spec, result({ durationMs: -1 }), "its result's durationMs is no duration"],
      [spec, withError({ kind: "other" }), "it ended with kind other, not with kind invalid_args"],
      [spec, succeeded, "it ended success, not with kind invalid_args"],
      [{ ...spec, known: false }, result({}), "it ended with kind invalid_args, not with kind not_found"],
      [
        spec,
        result({ error: Option.some(echoed), output: echoed.modelOutput }),
        "what the model sees repeats a value that was sent"
      ],
      [spec, unreadable, "reading its result threw: Error: unreadable status"]
    ]
    assert.deepStrictEqual(
      cases.map(([call, given]) => problemOf(call, given)?.split("\n")[0]),
      cases.map(([, , expected]) => expected)
    )
  })

  it("sends valid arguments parsed or as text, and builds hostile values afresh for each call", () => {
    assert.deepStrictEqual(build(validSpec), { id: "c1", name: "echo", arguments: {} })
    const asText: ToolTesting.GeneratedCall = {
      ...validSpec,
      arguments: { _tag: "Valid", value: { a: 1 }, asText: true }
    }
    assert.deepStrictEqual(build(asText).arguments, "{\"a\":1}")
    const hostile: ToolTesting.GeneratedCall = { ...spec, arguments: { _tag: "Hostile", kind: "cycle" } }
    assert.notStrictEqual(build(hostile).arguments, build(hostile).arguments)
  })
})

describe("ToolTesting.scriptedModel", () => {
  it("is the scripted model of the testing entry", () => {
    assert.strictEqual(ToolTesting.scriptedModel, ScriptedModelModule.scriptedModel)
    assert.strictEqual(ToolTesting.ScriptedModel, ScriptedModelModule.ScriptedModel)
    assert.strictEqual(ToolTesting.isScriptExhausted, ScriptedModelModule.isScriptExhausted)
  })
})
