import { assert, describe, it } from "@effect/vitest"
import { type Array as Arr, Option, Result, Schema } from "effect"
import { ToolOutput, ToolResultContent } from "../src/index.ts"

const succeeded = (result: Result.Result<ToolOutput.ToolOutput, string>): ToolOutput.ToolOutput => {
  if (Result.isFailure(result)) assert.fail(`expected a success, got the failure: ${result.failure}`)
  return result.success
}

const failed = (result: Result.Result<ToolOutput.ToolOutput, string>): string => {
  if (Result.isSuccess(result)) assert.fail(`expected a failure, got: ${ToolOutput.render(result.success)}`)
  return result.failure
}

const BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

describe("ToolOutput", () => {
  describe("constructors", () => {
    it("text is exactly one Text block", () => {
      const output = ToolOutput.text("22°C and sunny")
      assert.deepStrictEqual(output.content, [new ToolResultContent.Text({ text: "22°C and sunny" })])
      assert.isTrue(ToolOutput.isToolOutput(output))
    })

    it("json is exactly one Json block holding the value", () => {
      assert.deepStrictEqual(ToolOutput.json({ temperature: 22, tags: ["sunny"], wind: null }).content, [
        new ToolResultContent.Json({ value: { temperature: 22, tags: ["sunny"], wind: null } })
      ])
    })

    it("one wraps any block, and content keeps blocks in order", () => {
      const image = ToolResultContent.imageUrl("https://example.com/chart.png", "image/png")
      assert.deepStrictEqual(ToolOutput.one(image).content, [image])
      const blocks = [ToolResultContent.text("the chart"), image, ToolResultContent.json([1, 2])] as const
      assert.deepStrictEqual(ToolOutput.content(blocks).content, [...blocks])
    })

    it("isToolOutput is false for a plain object with content", () => {
      assert.isFalse(ToolOutput.isToolOutput({ content: [ToolResultContent.text("x")] }))
    })
  })

  describe("accessors", () => {
    it("asText is Some only for exactly one Text block", () => {
      assert.deepStrictEqual(ToolOutput.asText(ToolOutput.text("hi")), Option.some("hi"))
      assert.deepStrictEqual(ToolOutput.asText(ToolOutput.text("")), Option.some(""))
      assert.deepStrictEqual(ToolOutput.asText(ToolOutput.json("hi")), Option.none())
      assert.deepStrictEqual(
        ToolOutput.asText(ToolOutput.content([ToolResultContent.text("a"), ToolResultContent.text("b")])),
        Option.none()
      )
      assert.deepStrictEqual(ToolOutput.asText(ToolOutput.one(ToolResultContent.audio(BASE64, "audio/wav"))), Option.none())
    })

    it("asJson is Some only for exactly one Json block", () => {
      assert.deepStrictEqual(ToolOutput.asJson(ToolOutput.json({ a: [1, null] })), Option.some({ a: [1, null] }))
      assert.deepStrictEqual(ToolOutput.asJson(ToolOutput.json(null)), Option.some(null))
      assert.deepStrictEqual(ToolOutput.asJson(ToolOutput.text("{\"a\":1}")), Option.none())
      assert.deepStrictEqual(
        ToolOutput.asJson(ToolOutput.content([ToolResultContent.json(1), ToolResultContent.json(2)])),
        Option.none()
      )
    })

    it("render prints text and JSON, one line per block, and summarizes binary data", () => {
      const output = ToolOutput.content([
        ToolResultContent.text("Here is the report"),
        ToolResultContent.json({ pages: 3 }),
        ToolResultContent.imageBase64(BASE64, "image/png", "high"),
        ToolResultContent.imageUrl("https://example.com/a.png"),
        ToolResultContent.audio(BASE64, "audio/wav"),
        ToolResultContent.fileBase64(BASE64, "application/pdf", "report.pdf"),
        ToolResultContent.fileUrl("https://example.com/report.pdf", "application/pdf"),
        ToolResultContent.resourceLink({ uri: "file:///reports/q3.pdf", name: "q3 report" })
      ])
      const rendered = ToolOutput.render(output)
      assert.notInclude(rendered, BASE64)
      assert.notInclude(rendered, BASE64.slice(0, 16))
      assert.deepStrictEqual(rendered.split("\n"), [
        "Here is the report",
        "{\"pages\":3}",
        `[image image/png: base64, ${BASE64.length} chars]`,
        "[image: https://example.com/a.png]",
        `[audio audio/wav: base64, ${BASE64.length} chars]`,
        `[file application/pdf report.pdf: base64, ${BASE64.length} chars]`,
        "[file application/pdf: https://example.com/report.pdf]",
        "[resource q3 report: file:///reports/q3.pdf]"
      ])
      assert.strictEqual(String(output), rendered)
    })
  })

  describe("fromReturn", () => {
    it("keeps a ToolOutput as the same object", () => {
      const output = ToolOutput.json({ a: 1 })
      assert.strictEqual(succeeded(ToolOutput.fromReturn(output)), output)
      assert.strictEqual(succeeded(ToolOutput.fromReturn(output, () => Result.fail("encoder must not run"))), output)
    })

    it("turns a block into one-block content", () => {
      const image = ToolResultContent.imageUrl("https://example.com/a.png")
      assert.deepStrictEqual(succeeded(ToolOutput.fromReturn(image)), ToolOutput.one(image))
    })

    it("turns a non-empty array of blocks into content, in order, even with an encoder", () => {
      const blocks: Arr.NonEmptyReadonlyArray<ToolResultContent.ToolResultContent> = [
        ToolResultContent.text("a"),
        ToolResultContent.json({ b: 1 }),
        ToolResultContent.text("c")
      ]
      assert.deepStrictEqual(succeeded(ToolOutput.fromReturn(blocks)).content, blocks)
      assert.deepStrictEqual(
        succeeded(ToolOutput.fromReturn(blocks, () => Result.fail("encoder must not run"))).content,
        blocks
      )
    })

    it("keeps plain objects shaped like blocks as JSON: blocks are detected by class, not by shape", () => {
      for (const value of [{ _tag: "Text", text: "x" }, { type: "text", text: "x" }, [{ _tag: "Text", text: "x" }]]) {
        assert.deepStrictEqual(succeeded(ToolOutput.fromReturn(value)), ToolOutput.json(value))
      }
    })

    it("keeps an array mixing blocks and other values as JSON only if it is JSON", () => {
      assert.strictEqual(
        failed(ToolOutput.fromReturn([ToolResultContent.text("a"), { b: 1 }])),
        "$[0] is Text, not JSON"
      )
    })

    it("turns a string into one Text block, even when it looks like JSON", () => {
      assert.deepStrictEqual(succeeded(ToolOutput.fromReturn("{\"a\":1}")), ToolOutput.text("{\"a\":1}"))
      assert.deepStrictEqual(succeeded(ToolOutput.fromReturn("[1,2]")), ToolOutput.text("[1,2]"))
      assert.deepStrictEqual(succeeded(ToolOutput.fromReturn("")), ToolOutput.text(""))
    })

    it("turns an empty array into the JSON value []", () => {
      assert.deepStrictEqual(succeeded(ToolOutput.fromReturn([])), ToolOutput.json([]))
    })

    it("turns JSON values into one Json block", () => {
      const values: ReadonlyArray<Schema.Json> = [0, -1.5, true, false, null, { a: { b: [1, "two", null] } }, [[]]]
      for (const value of values) {
        assert.deepStrictEqual(succeeded(ToolOutput.fromReturn(value)), ToolOutput.json(value))
      }
    })

    it("drops undefined object fields without an encoder, as JSON does", () => {
      assert.deepStrictEqual(
        succeeded(ToolOutput.fromReturn({ a: 1, b: undefined, c: { d: undefined, e: [{ f: undefined }] } })),
        ToolOutput.json({ a: 1, c: { e: [{}] } })
      )
    })

    it("fails, naming the path, on values that are not JSON", () => {
      class Celsius {
        readonly degrees = 22
      }
      const cyclic: { name: string; self?: unknown } = { name: "loop" }
      cyclic.self = cyclic
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [{ a: { b: Number.NaN } }, "$.a.b is NaN, not JSON"],
        [{ a: { b: new Date(0) } }, "$.a.b is Date, not JSON"],
        [{ a: [1, Number.POSITIVE_INFINITY] }, "$.a[1] is Infinity, not JSON"],
        [{ a: -Infinity }, "$.a is -Infinity, not JSON"],
        [{ n: 10n }, "$.n is bigint, not JSON"],
        [{ at: new Date(0) }, "$.at is Date, not JSON"],
        [{ temperature: new Celsius() }, "$.temperature is Celsius, not JSON"],
        [{ callback: () => 1 }, "$.callback is function, not JSON"],
        [{ list: [new Map()] }, "$.list[0] is Map, not JSON"],
        [{ ok: [{ x: 1 }], deep: [[{ y: [null, Symbol("s")] }]] }, "$.deep[0][0].y[1] is symbol, not JSON"],
        [cyclic, "$.self is a cycle, not JSON"],
        [[undefined], "$[0] is undefined, not JSON"]
      ]
      assert.deepStrictEqual(
        cases.map(([value]) => failed(ToolOutput.fromReturn(value))),
        cases.map(([, reason]) => reason)
      )
    })

    it("fails without reading further when a getter or proxy trap throws, quoting none of the error", () => {
      const getter = {
        a: {
          get b(): unknown {
            throw new Error("hunter2secret")
          }
        }
      }
      const proxy = new Proxy({}, {
        ownKeys() {
          throw new Error("hunter2secret")
        }
      })
      for (const value of [getter, proxy, { nested: [proxy] }]) {
        assert.strictEqual(failed(ToolOutput.fromReturn(value)), "the value could not be read")
      }
    })

    it("fails on top-level values that are not JSON, saying what the output is", () => {
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [undefined, "undefined"],
        [Number.NaN, "NaN"],
        [Number.POSITIVE_INFINITY, "Infinity"],
        [10n, "bigint"],
        [new Date(0), "Date"],
        [() => 1, "function"],
        [Symbol("s"), "symbol"]
      ]
      assert.deepStrictEqual(
        cases.map(([value]) => failed(ToolOutput.fromReturn(value))),
        cases.map(([, what]) => `the output is ${what}, not JSON`)
      )
    })

    it("uses the encoder's value instead of the returned one", () => {
      const seen: Array<unknown> = []
      const encode = (value: unknown) => {
        seen.push(value)
        return Result.succeed({ encoded: true })
      }
      const returned = { when: new Date(0) }
      assert.deepStrictEqual(succeeded(ToolOutput.fromReturn(returned, encode)), ToolOutput.json({ encoded: true }))
      assert.deepStrictEqual(seen, [returned])
    })

    it("encodes with a Schema JSON codec: a Date becomes its ISO string in a Json block", () => {
      const codec = Schema.toCodecJson(Schema.Struct({ when: Schema.Date, count: Schema.Int }))
      const encode = (value: unknown) => Result.mapError(Schema.encodeUnknownResult(codec)(value), String)
      assert.deepStrictEqual(
        succeeded(ToolOutput.fromReturn({ when: new Date(0), count: 3 }, encode)),
        ToolOutput.json({ when: "1970-01-01T00:00:00.000Z", count: 3 })
      )
    })

    it("passes the encoder's failure through as the reason", () => {
      assert.strictEqual(
        failed(ToolOutput.fromReturn({ a: 1 }, () => Result.fail("Expected number, got string at [\"a\"]"))),
        "Expected number, got string at [\"a\"]"
      )
    })
  })
})
