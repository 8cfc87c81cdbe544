import { assert, describe, it } from "@effect/vitest"
import { Cause, Exit, Option, Schema, SchemaIssue } from "effect"
import { SchemaJITCompiler } from "effect/schema"
import * as SchemaParser from "effect/SchemaParser"
import type { AnySchema } from "../../src/Tool.ts"
import { finiteNumbers, jsonCodec } from "../../src/internal/codec.ts"
import { formatIssues } from "../../src/internal/issues.ts"

interface Tree {
  readonly n: number
  readonly kids: ReadonlyArray<Tree>
}
const Tree: Schema.Codec<Tree, unknown> = Schema.Struct({
  n: Schema.Number,
  kids: Schema.Array(Schema.suspend((): Schema.Codec<Tree, unknown> => Tree))
}).annotate({ identifier: "Tree" })

class Point extends Schema.Class<Point>("Point")({ x: Schema.Number, y: Schema.Number }) {}

/** Every place a number can sit in arguments. */
const Everywhere = Schema.Struct({
  plain: Schema.Number,
  optional: Schema.optional(Schema.Number),
  optionalKey: Schema.optionalKey(Schema.Number),
  nullable: Schema.NullOr(Schema.Number),
  list: Schema.Array(Schema.Number),
  map: Schema.Record(Schema.String, Schema.Number),
  pair: Schema.Tuple([Schema.String, Schema.Number]),
  either: Schema.Union([Schema.Number, Schema.Boolean]),
  option: Schema.Option(Schema.Number),
  point: Point,
  tree: Tree,
  checked: Schema.Number.check(Schema.isGreaterThan(0))
})

const valid = {
  plain: 1.5,
  optional: -2,
  optionalKey: 0,
  nullable: null,
  list: [1, 2e300],
  map: { a: 3 },
  pair: ["x", 4],
  either: 5,
  option: { _tag: "Some", value: 6 },
  point: { x: 7, y: 8 },
  tree: { n: 9, kids: [{ n: 10, kids: [] }] },
  checked: 11
}

/** The same arguments with `value` in every number's place. */
const everywhere = (value: unknown) => ({
  plain: value,
  optional: value,
  optionalKey: value,
  nullable: value,
  list: [1, value],
  map: { a: value },
  pair: ["x", value],
  either: value,
  option: { _tag: "Some", value },
  point: { x: value, y: 8 },
  tree: { n: 9, kids: [{ n: value, kids: [] }] },
  checked: value
})

const decoder = (schema: AnySchema, jit: boolean) => {
  const codec = jsonCodec(schema)
  if (jit) SchemaJITCompiler.enable(codec.ast)
  return SchemaParser.decodeUnknownExit(codec, { errors: "all", reportInput: true })
}

const failureOf = (exit: Exit.Exit<unknown, SchemaIssue.Issue>): string => {
  assert.isTrue(Exit.isFailure(exit), "expected a failure")
  const issue = Cause.findErrorOption((exit as Exit.Failure<unknown, SchemaIssue.Issue>).cause)
  return formatIssues(Option.getOrThrow(issue))
}

describe("internal/codec", () => {
  for (const jit of [false, true]) {
    describe(jit ? "with the JIT compiler" : "interpreted", () => {
      it("decodes JSON numbers everywhere as Effect's JSON codec does", () => {
        const exit = decoder(Everywhere, jit)(valid)
        assert.isTrue(Exit.isSuccess(exit))
        const expected = Schema.decodeUnknownSync(Schema.toCodecJson(Everywhere))(valid)
        assert.deepStrictEqual((exit as Exit.Success<unknown>).value, expected)
      })

      for (const text of ["NaN", "Infinity", "-Infinity"]) {
        it(`refuses "${text}" wherever a number is expected, saying a number was expected`, () => {
          assert.strictEqual(
            failureOf(decoder(Everywhere, jit)(everywhere(text))),
            [
              "- $.plain: Expected number",
              "- $.optional: Expected number | null",
              "- $.optionalKey: Expected number",
              "- $.nullable: Expected number | null",
              "- $.list[1]: Expected number",
              "- $.map.a: Expected number",
              "- $.pair[1]: Expected number",
              "- $.either: Expected number | boolean",
              "- $.option.value: Expected number",
              "- $.point.x: Expected number",
              "- $.tree.kids[0].n: Expected number",
              "- $.checked: Expected number"
            ].join("\n")
          )
        })
      }

      it("refuses NaN and the infinities as numbers too, as not finite", () => {
        for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
          const text = failureOf(decoder(Schema.Struct({ n: Schema.Number, l: Schema.Array(Schema.Number) }), jit)({ n: value, l: [value] }))
          assert.strictEqual(text, ["- $.n: Expected a finite number", "- $.l[0]: Expected a finite number"].join("\n"))
        }
      })

      it("leaves a string that happens to say NaN alone where a string is allowed", () => {
        const exit = decoder(Schema.Struct({ v: Schema.Union([Schema.Number, Schema.String]) }), jit)({ v: "NaN" })
        assert.deepStrictEqual(exit, Exit.succeed({ v: "NaN" }))
      })

      it("keeps Schema.Finite and Schema.Int as they were", () => {
        const schema = Schema.Struct({ f: Schema.Finite, i: Schema.Int })
        assert.deepStrictEqual(decoder(schema, jit)({ f: 1.5, i: 2 }), Exit.succeed({ f: 1.5, i: 2 }))
        assert.strictEqual(
          failureOf(decoder(schema, jit)({ f: "NaN", i: 1.5 })),
          ["- $.f: Expected number", "- $.i: Expected an integer"].join("\n")
        )
      })
    })
  }

  it.prop("decodes any finite JSON number exactly as before, wherever it sits", [Schema.Finite], ([n]) => {
    const json = JSON.parse(JSON.stringify({ ...valid, plain: n, list: [n], map: { k: n }, checked: Math.abs(n) + 1 }))
    const ours = decoder(Everywhere, false)(json)
    const effects = SchemaParser.decodeUnknownExit(Schema.toCodecJson(Everywhere) as Schema.Codec<unknown, unknown>)(json)
    assert.deepStrictEqual(ours, effects)
    assert.isTrue(Exit.isSuccess(ours))
  })

  describe("finiteNumbers", () => {
    it("is the Schema itself when no number in it can be NaN", () => {
      for (
        const schema of [
          Schema.Finite,
          Schema.Int,
          Schema.String,
          Schema.Struct({ a: Schema.Int, b: Schema.Array(Schema.Finite), c: Schema.NumberFromString }),
          Schema.Number.check(Schema.isFinite())
        ]
      ) {
        assert.strictEqual(finiteNumbers(schema), schema)
      }
    })

    it("is computed once per Schema", () => {
      const schema = Schema.Struct({ n: Schema.Number })
      assert.strictEqual(finiteNumbers(schema), finiteNumbers(schema))
      assert.notStrictEqual(finiteNumbers(schema), schema)
    })

    it("keeps the checks and annotations of a number, and its Type", () => {
      const schema = Schema.Number.check(Schema.isGreaterThan(0)).annotate({ description: "positive" })
      assert.deepStrictEqual(Schema.toJsonSchemaDocument(finiteNumbers(schema)).schema, {
        type: "number",
        exclusiveMinimum: 0,
        description: "positive"
      })
      assert.strictEqual(failureOf(decoder(Schema.Struct({ n: schema }), false)({ n: -1 })), "- $.n: Expected a value greater than 0")
    })

    it("leaves a transformation to a number as Effect defines it", () => {
      // `NumberFromString` is a string on the wire; what it decodes to is the author's choice.
      assert.strictEqual(finiteNumbers(Schema.NumberFromString), Schema.NumberFromString)
    })
  })

  describe("encoding", () => {
    it("encodes finite numbers as before, and refuses NaN and the infinities as not finite", () => {
      const codec = jsonCodec(Schema.Struct({ value: Schema.Number }))
      const encode = SchemaParser.encodeUnknownExit(codec, { errors: "all" })
      assert.deepStrictEqual(encode({ value: 2.5 }), Exit.succeed({ value: 2.5 }))
      for (const value of [Number.NaN, Number.POSITIVE_INFINITY]) {
        assert.strictEqual(failureOf(encode({ value })), "- $.value: Expected a finite number")
      }
    })
  })
})
