import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import {
  copyJson,
  defaultLimits,
  defaultOutputLimits,
  type JsonLimits,
  parseArguments,
  toJsonValue,
  utf8LengthExceeds
} from "../../src/internal/json.ts"
import { isFrozenPlainJson } from "../support/frozenJson.ts"

const limits = (overrides: Partial<JsonLimits>): JsonLimits => ({ ...defaultLimits, ...overrides })

/** UTF-16 code units, often the ones where byte counts go wrong: surrogates, escapes, the edges of each UTF-8 length. */
const CodeUnits = Schema.Array(
  Schema.Union([
    Schema.Literals([0x0, 0x1f, 0x22, 0x5c, 0x41, 0x7f, 0x80, 0x7ff, 0x800, 0x4e00, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xffff]),
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 0xffff }))
  ])
)

/** Whether every number in a JSON value is an integer, the numbers whose text `copyJson` counts exactly. */
const integersOnly = (value: unknown): boolean =>
  typeof value === "number"
    ? Number.isInteger(value) && Math.abs(value) < 1e21
    : typeof value === "object" && value !== null
    ? Object.values(value).every(integersOnly)
    : true

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

    it("reads an already-parsed object into a frozen copy, which is both the value and the result", () => {
      const input = { city: "Paris", days: [1, { n: 2 }] }
      const parsed = parseArguments(input, defaultLimits)
      assert.deepStrictEqual(parsed.value, input)
      assert.notStrictEqual(parsed.value, input)
      assert.isTrue(Result.isSuccess(parsed.result) && parsed.result.success === parsed.value)
      assert.isTrue(isFrozenPlainJson(parsed.value))
      input.days.push(3)
      assert.deepStrictEqual(parsed.value, { city: "Paris", days: [1, { n: 2 }] })
    })

    it("reads each field of an already-parsed value once: a getter cannot pass the check and change after it", () => {
      let reads = 0
      const input = {
        get shape(): unknown {
          reads++
          // Shallow on the first read, 5000 levels deep on every later one.
          return reads === 1 ? 1 : nestedArrays(5000)
        }
      }
      const parsed = parseArguments(input, defaultLimits)
      assert.strictEqual(reads, 1)
      assert.deepStrictEqual(parsed.result, Result.succeed({ shape: 1 }))
      const deepFirst = {
        get shape(): unknown {
          return nestedArrays(5000)
        }
      }
      assert.include(parseErrorOf(deepFirst), "64 levels")
    })

    it("holds an already-parsed value to the byte limit, as its JSON text would be", () => {
      const input = { s: "é".repeat(10) } // {"s":"éééééééééé"}: 28 bytes
      assert.strictEqual(utf8Bytes(JSON.stringify(input)), 28)
      assert.isTrue(Result.isSuccess(parseArguments(input, limits({ maxBytes: 28 })).result))
      assert.include(parseErrorOf(input, limits({ maxBytes: 27 })), "larger than 27 bytes")
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

    it("counts a lone surrogate as the three bytes of U+FFFD, and a pair only when a low surrogate follows", () => {
      // "\ud800\u4e00" encodes as EF BF BD E4 B8 80: 6 bytes, not the 4 of a pair.
      for (const [text, bytes] of [["\ud800\u4e00", 6], ["\ud800", 3], ["\udc00\ud800", 6], ["😀", 4], ["\ud800😀", 7]] as const) {
        assert.strictEqual(utf8Bytes(text), bytes, text)
        assert.isFalse(utf8LengthExceeds(text, bytes), text)
        assert.isTrue(utf8LengthExceeds(text, bytes - 1), text)
      }
      assert.include(parseErrorOf("{\"a\":\"\ud800\u4e00\"}", limits({ maxBytes: 13 })), "larger than 13 bytes")
    })

    it.prop(
      "decides the byte limit as UTF-8 encoding would, for any string, lone surrogates included",
      [CodeUnits, Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 64 }))],
      ([units, limit]) => {
        const text = String.fromCharCode(...units)
        assert.strictEqual(utf8LengthExceeds(text, limit), utf8Bytes(text) > limit)
      }
    )

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

    it("counts a shared sub-value once per place it appears, as its text would, and stops at the byte limit", () => {
      // A diamond lattice: each level points twice at the next. 40 levels are 2^40 paths, and terabytes of text:
      // the walk stops at the byte limit, long before it has seen every path.
      const lattice = (levels: number) => {
        let node: Record<string, unknown> = { leaf: true }
        for (let i = 0; i < levels; i++) node = { left: node, right: node }
        return node
      }
      assert.include(parseErrorOf(lattice(40)), "larger than 1048576 bytes")
      const small = lattice(6)
      const parsed = parseArguments(small, defaultLimits)
      assert.deepStrictEqual(parsed.result, Result.succeed(JSON.parse(JSON.stringify(small))))
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

    it("returns an equal, deeply frozen copy, and a copy it made as the same object", () => {
      const value = { a: [1, { b: "c" }] }
      const result = toJsonValue(value)
      if (Result.isFailure(result)) assert.fail(result.failure)
      assert.deepStrictEqual(result.success, value)
      assert.notStrictEqual(result.success, value)
      assert.isTrue(isFrozenPlainJson(result.success))
      const again = toJsonValue(result.success)
      assert.isTrue(Result.isSuccess(again) && again.success === result.success)
    })

    it("gives a copy made under raised limits a second look", () => {
      const deep = nestedArrays(200)
      const copied = copyJson(deep, { maxBytes: defaultOutputLimits.maxBytes, maxDepth: 1000 })
      if (Result.isFailure(copied)) assert.fail(copied.failure._tag)
      assert.deepStrictEqual(toJsonValue(copied.success), Result.fail("the output is nested deeper than 128 levels"))
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

    it("accepts 128 levels and rejects deeper values, even 200000 levels, without a RangeError", () => {
      assert.isTrue(Result.isSuccess(toJsonValue(nestedArrays(128))))
      for (const depth of [129, 200_000]) {
        assert.deepStrictEqual(toJsonValue(nestedArrays(depth)), Result.fail("the output is nested deeper than 128 levels"))
      }
      // What V8's own JSON.stringify cannot do.
      assert.throws(() => JSON.stringify(JSON.parse("[".repeat(10_000) + "]".repeat(10_000))), RangeError)
    })

    it("rejects values over 8 MiB of JSON text, counting escapes and UTF-8 bytes", () => {
      const limit = defaultOutputLimits.maxBytes
      // ["…"]: 4 bytes around the string.
      assert.isTrue(Result.isSuccess(toJsonValue(["a".repeat(limit - 4)])))
      assert.deepStrictEqual(
        toJsonValue(["a".repeat(limit - 3)]),
        Result.fail(`the output is larger than ${limit} bytes of JSON text`)
      )
      // Each "\n" is two bytes of text, each "€" three.
      assert.isTrue(Result.isSuccess(toJsonValue(["\n".repeat((limit - 4) / 2)])))
      assert.isTrue(Result.isFailure(toJsonValue(["\n".repeat((limit - 4) / 2 + 1)])))
      assert.isTrue(Result.isFailure(toJsonValue(["€".repeat(Math.ceil((limit - 3) / 3))])))
      // A string on its own is held to the limit too.
      assert.isTrue(Result.isFailure(toJsonValue("\u0001".repeat(limit / 6 + 1))))
    })

    it.prop("returns an equal value for any JSON value", [Schema.Json], ([value]) => {
      assert.deepStrictEqual(toJsonValue(value), Result.succeed(value))
    })

    it.prop(
      "never counts fewer bytes than JSON.stringify writes, and counts exactly where every number is an integer",
      [Schema.Json],
      ([value]) => {
        const bytes = utf8Bytes(JSON.stringify(value))
        const within = { maxBytes: bytes, maxDepth: 1000 }
        const under = { maxBytes: bytes - 1, maxDepth: 1000 }
        assert.deepStrictEqual(copyJson(value, under), Result.fail({ _tag: "TooLarge", cycle: undefined }))
        if (integersOnly(value)) assert.isTrue(Result.isSuccess(copyJson(value, within)))
      }
    )

    it.prop("counts the text of any string exactly, escapes and lone surrogates included", [CodeUnits], ([units]) => {
      const value = [String.fromCharCode(...units)]
      const bytes = utf8Bytes(JSON.stringify(value))
      assert.isTrue(Result.isSuccess(copyJson(value, { maxBytes: bytes, maxDepth: 1 })))
      assert.isTrue(Result.isFailure(copyJson(value, { maxBytes: bytes - 1, maxDepth: 1 })))
      assert.isTrue(Result.isSuccess(copyJson(value[0], { maxBytes: bytes - 2, maxDepth: 0 })))
      assert.isTrue(Result.isFailure(copyJson(value[0], { maxBytes: bytes - 3, maxDepth: 0 })))
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
