import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { defaultLimits, type JsonLimits, parseArguments, toJsonValue } from "../../src/internal/json.ts"

const limits = (overrides: Partial<JsonLimits>): JsonLimits => ({ ...defaultLimits, ...overrides })

const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length

/** Nested arrays, `depth` levels deep, built without recursion. */
const nestedArrays = (depth: number): unknown => {
  let value: unknown = []
  for (let i = 1; i < depth; i++) value = [value]
  return value
}

const parseErrorOf = (input: unknown, jsonLimits: JsonLimits = defaultLimits): string => {
  const parsed = parseArguments(input, jsonLimits)
  if (Result.isSuccess(parsed.result)) assert.fail("expected the arguments to be rejected")
  const failure = parsed.result.failure
  if (failure._tag !== "ParseError") assert.fail(`expected a ParseError, got ${failure._tag}`)
  return failure.reason
}

describe("internal/json", () => {
  describe("parseArguments", () => {
    it("parses a JSON object, keeping the parsed value for the result", () => {
      const parsed = parseArguments("{\"city\":\"Paris\",\"days\":[1,2]}", defaultLimits)
      assert.deepStrictEqual(parsed.value, { city: "Paris", days: [1, 2] })
      assert.deepStrictEqual(parsed.result, Result.succeed({ city: "Paris", days: [1, 2] }))
    })

    it("takes an already-parsed object as it is", () => {
      const input = { city: "Paris" }
      const parsed = parseArguments(input, defaultLimits)
      assert.strictEqual(parsed.value, input)
      assert.isTrue(Result.isSuccess(parsed.result) && parsed.result.success === input)
    })

    it("reads empty text, whitespace, null text, null and undefined as {}", () => {
      for (const input of ["", "   ", " \n\t\r ", "null", " null ", null, undefined]) {
        const parsed = parseArguments(input, defaultLimits)
        assert.deepStrictEqual(parsed.result, Result.succeed({}), `input ${JSON.stringify(input)}`)
      }
    })

    it("rejects JSON that is not an object as NotAnObject, keeping the value", () => {
      const cases: ReadonlyArray<readonly [unknown, unknown]> = [
        ["[1,2]", [1, 2]],
        ["42", 42],
        ["\"text\"", "text"],
        ["true", true],
        ["false", false],
        [[1, 2], [1, 2]],
        [42, 42],
        [true, true]
      ]
      for (const [input, value] of cases) {
        const parsed = parseArguments(input, defaultLimits)
        assert.deepStrictEqual([parsed.value, parsed.result], [value, Result.fail({ _tag: "NotAnObject" })])
      }
    })

    it("rejects bad JSON with V8's grammar words and position as the reason, keeping the raw text", () => {
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["{", "Expected property name or '}' at position 1"],
        ["{'a':1}", "Expected property name or '}' at position 1"],
        ["{\"password\":\"hunter2secret\" \"x\":1}", "Expected ',' or '}' after property value at position 28"],
        ["{\"password\":\"hunter2secret", "Unterminated string at position 26"],
        ["{\"password\":\"hunter2secret\",", "Expected double-quoted property name at position 28"],
        ["{\"password\":", "Unexpected end of JSON input"],
        // V8 quotes the text around these: only the grammar words are kept.
        ["{\"a\":}", "Unexpected token"],
        ["{\"password\":hunter2secret}", "Unexpected token"],
        ["hunter2secret", "Unexpected token"],
        ["undefined", "invalid JSON"]
      ]
      for (const [input, reason] of cases) {
        const parsed = parseArguments(input, defaultLimits)
        assert.strictEqual(parsed.value, input)
        assert.deepStrictEqual(parsed.result, Result.fail({ _tag: "ParseError", reason }), input)
      }
    })

    it("never repeats the argument text in a parse failure's reason", () => {
      const inputs = [
        "{\"password\":hunter2secret}",
        "hunter2secret",
        "\"hunter2secret",
        "{\"password\":\"hunter2secret\"]",
        "{\"password\":\"hunter2\\qsecret\"}",
        "{\"password\":\"hunter2secret\"} hunter2secret",
        "[\"hunter2secret\", tru]",
        `{"password":"${"hunter2secret".repeat(20)}",}`
      ]
      for (const input of inputs) {
        const reason = parseErrorOf(input)
        assert.notInclude(reason, "hunter", `${input} -> ${reason}`)
        assert.notInclude(reason, "secret", `${input} -> ${reason}`)
        assert.notInclude(reason, "password", `${input} -> ${reason}`)
        assert.notInclude(reason, "\"", `${input} -> ${reason}`)
      }
    })

    it("counts UTF-8 bytes, not characters, against maxBytes: multi-byte text right at the limit passes", () => {
      // "é" is 2 bytes, "€" 3, "😀" 4 (two UTF-16 units).
      const cases = ["{\"a\":\"éééé\"}", "{\"a\":\"€€€€€\"}", "{\"a\":\"😀😀😀\"}", "{\"é€😀\":\"😀€é\"}"]
      for (const text of cases) {
        const bytes = utf8Bytes(text)
        assert.isTrue(bytes > text.length)
        assert.isTrue(Result.isSuccess(parseArguments(text, limits({ maxBytes: bytes })).result), `${text} at ${bytes}`)
        const reason = parseErrorOf(text, limits({ maxBytes: bytes - 1 }))
        assert.include(reason, String(bytes - 1))
        assert.include(reason, "bytes")
      }
    })

    it("rejects text over maxBytes even when its character count is under the limit", () => {
      const text = `{"a":"${"€".repeat(100)}"}`
      assert.isTrue(text.length < 200)
      assert.include(parseErrorOf(text, limits({ maxBytes: 200 })), "200 bytes")
    })

    it("rejects text nested deeper than maxDepth, and accepts it at the limit", () => {
      const text = "{\"a\":[[{\"b\":[1]}]]}" // 5 levels
      assert.isTrue(Result.isSuccess(parseArguments(text, limits({ maxDepth: 5 })).result))
      const reason = parseErrorOf(text, limits({ maxDepth: 4 }))
      assert.include(reason, "4 levels")
    })

    it("does not count brackets inside strings, including after escaped quotes, as nesting", () => {
      const text = String.raw`{"a":"[[[{{{","b":"\"[[[[","c":"\\","d":"{{{{"}`
      const parsed = parseArguments(text, limits({ maxDepth: 1 }))
      assert.deepStrictEqual(parsed.result, Result.succeed(JSON.parse(text)))
    })

    it("rejects 100000 levels of nesting with a reason instead of throwing", () => {
      for (
        const text of [
          "[".repeat(100_000),
          "[".repeat(100_000) + "]".repeat(100_000),
          "{\"a\":".repeat(100_000) + "1" + "}".repeat(100_000)
        ]
      ) {
        const reason = parseErrorOf(text)
        assert.include(reason, "64 levels")
      }
    })

    it("never throws on deep nesting, even with a depth limit too high to protect the parser", () => {
      const text = "[".repeat(100_000) + "]".repeat(100_000)
      const parsed = parseArguments(`{"a":${text}}`, limits({ maxDepth: 1_000_000, maxBytes: 10_000_000 }))
      // Either outcome is fine as long as nothing is thrown: V8 may parse it, or fail.
      assert.isTrue(Result.isSuccess(parsed.result) || parsed.result.failure._tag === "ParseError")
    })

    it("holds an already-parsed value to the same depth limit as text", () => {
      const atLimit = { a: nestedArrays(63) } // 64 levels with the outer object
      const overLimit = { a: nestedArrays(64) }
      assert.isTrue(Result.isSuccess(parseArguments(atLimit, defaultLimits).result))
      assert.include(parseErrorOf(overLimit), "64 levels")
      // The same values as text get the same verdicts.
      assert.isTrue(Result.isSuccess(parseArguments(JSON.stringify(atLimit), defaultLimits).result))
      assert.include(parseErrorOf(JSON.stringify(overLimit)), "64 levels")
    })

    it("rejects a very deep already-parsed value without a RangeError", () => {
      assert.include(parseErrorOf({ a: nestedArrays(200_000) }), "64 levels")
    })

    it("rejects a cyclic already-parsed value instead of hanging", () => {
      const cyclic: { name: string; self?: unknown } = { name: "loop" }
      cyclic.self = cyclic
      const parsed = parseArguments(cyclic, defaultLimits)
      assert.strictEqual(parsed.value, cyclic)
      assert.isTrue(Result.isFailure(parsed.result))
      const mutual: { other?: unknown } = {}
      const other = { back: [mutual] }
      mutual.other = other
      assert.isTrue(Result.isFailure(parseArguments(mutual, limits({ maxDepth: 1000 })).result))
    })

    it("accepts a shared, acyclic sub-value reached along many paths", () => {
      // A diamond lattice: 40 levels, each pointing twice at the next. Walking every path would take 2^40 steps.
      let node: Record<string, unknown> = { leaf: true }
      for (let i = 0; i < 40; i++) node = { left: node, right: node }
      assert.isTrue(Result.isSuccess(parseArguments(node, defaultLimits).result))
    })

    it("keeps __proto__ keys as own data keys and never changes a prototype", () => {
      const parsed = parseArguments("{\"__proto__\":{\"polluted\":true},\"constructor\":{\"prototype\":{\"x\":1}}}", defaultLimits)
      assert.isTrue(Result.isSuccess(parsed.result))
      if (Result.isSuccess(parsed.result)) {
        const value = parsed.result.success
        assert.deepStrictEqual(Object.keys(value), ["__proto__", "constructor"])
        assert.isTrue(Object.prototype.hasOwnProperty.call(value, "__proto__"))
        assert.strictEqual(Object.getPrototypeOf(value), Object.prototype)
        assert.deepStrictEqual(Object.getOwnPropertyDescriptor(value, "__proto__")?.value, { polluted: true })
      }
      assert.strictEqual(({} as Record<string, unknown>)["polluted"], undefined)
    })
  })

  describe("toJsonValue", () => {
    it("returns JSON values as they are", () => {
      const values: ReadonlyArray<Schema.Json> = ["", "a", 0, -0.5, 1e300, true, false, null, [], {}, { a: [1, { b: null }] }]
      for (const value of values) assert.deepStrictEqual(toJsonValue(value), Result.succeed(value))
    })

    it("returns the same object when nothing is dropped", () => {
      const value = { a: [1, { b: "c" }] }
      const result = toJsonValue(value)
      assert.isTrue(Result.isSuccess(result) && result.success === value)
    })

    it("drops undefined object fields, as JSON does, without touching the input", () => {
      const input = { a: undefined, b: 1, c: { d: undefined, e: [{ f: undefined, g: 2 }] }, h: undefined }
      assert.deepStrictEqual(toJsonValue(input), Result.succeed({ b: 1, c: { e: [{ g: 2 }] } }))
      assert.deepStrictEqual(Object.keys(input), ["a", "b", "c", "h"])
      assert.deepStrictEqual(Object.keys(input.c), ["d", "e"])
    })

    it("keeps __proto__ keys as own data keys in a copy", () => {
      const input = JSON.parse("{\"a\":1,\"__proto__\":{\"polluted\":true}}") as Record<string, unknown>
      input.z = undefined
      const first = JSON.parse("{\"__proto__\":{\"polluted\":true}}") as Record<string, unknown>
      const dropFirst = { drop: undefined, ...first }
      for (const value of [input, dropFirst]) {
        const result = toJsonValue(value)
        assert.isTrue(Result.isSuccess(result))
        if (Result.isSuccess(result)) {
          const copy = result.success as Record<string, unknown>
          assert.notStrictEqual(copy, value)
          assert.isTrue(Object.prototype.hasOwnProperty.call(copy, "__proto__"))
          assert.strictEqual(Object.getPrototypeOf(copy), Object.prototype)
          assert.deepStrictEqual(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value, { polluted: true })
          assert.notInclude(Object.keys(copy), "drop")
          assert.notInclude(Object.keys(copy), "z")
        }
      }
    })

    it("accepts objects without a prototype", () => {
      const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 })
      assert.isTrue(Result.isSuccess(toJsonValue(bare)))
    })

    it("accepts a shared, acyclic sub-value", () => {
      const shared = { x: 1 }
      assert.deepStrictEqual(toJsonValue({ a: shared, b: [shared, shared] }), Result.succeed({ a: shared, b: [shared, shared] }))
    })

    it("fails with a reason naming the path on anything that is not JSON", () => {
      class Celsius {
        readonly degrees = 22
      }
      const cyclic: { items: Array<unknown> } = { items: [] }
      cyclic.items.push({ parent: cyclic })
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [{ a: Number.NaN }, "$.a"],
        [{ a: { b: [0, Number.NEGATIVE_INFINITY] } }, "$.a.b[1]"],
        [{ big: 1n }, "$.big"],
        [{ at: new Date(0) }, "$.at"],
        [{ t: new Celsius() }, "$.t"],
        [{ f: () => 0 }, "$.f"],
        [{ s: Symbol("s") }, "$.s"],
        [[1, undefined], "$[1]"],
        [cyclic, "$.items[0].parent"]
      ]
      for (const [value, path] of cases) {
        const result = toJsonValue(value)
        assert.isTrue(Result.isFailure(result), path)
        if (Result.isFailure(result)) assert.include(result.failure, path)
      }
    })

    it("fails on top-level values that are not JSON", () => {
      for (const value of [undefined, Number.NaN, Infinity, 1n, new Date(0), () => 0, Symbol("s"), new Map()]) {
        const result = toJsonValue(value)
        assert.isTrue(Result.isFailure(result), String(typeof value))
        if (Result.isFailure(result)) assert.include(result.failure, "the output")
      }
    })

    it("walks very deep values without a RangeError", () => {
      assert.isTrue(Result.isSuccess(toJsonValue(nestedArrays(200_000))))
      const deepWithHole: Record<string, unknown> = { a: undefined }
      let value: unknown = deepWithHole
      for (let i = 0; i < 200_000; i++) value = [value]
      assert.isTrue(Result.isSuccess(toJsonValue(value)))
    })

    it.prop("returns an equal value for any JSON value", [Schema.Json], ([value]) => {
      assert.deepStrictEqual(toJsonValue(value), Result.succeed(value))
    })

    it.prop(
      "drops an undefined field added to any JSON object, leaving the rest equal",
      [Schema.Record(Schema.String, Schema.Json)],
      ([record]) => {
        const withHole = { ...record, ["\u0000undefined-field"]: undefined }
        const result = toJsonValue(withHole)
        assert.isTrue(Result.isSuccess(result))
        if (Result.isSuccess(result)) {
          assert.deepStrictEqual(JSON.stringify(result.success), JSON.stringify(record))
          assert.notInclude(Object.keys(result.success as object), "\u0000undefined-field")
        }
      }
    )
  })
})
