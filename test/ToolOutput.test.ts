import { assert, describe, it } from "@effect/vitest"
import { type Array as Arr, Option, Result, Schema } from "effect"
import { ToolOutput, ToolResultContent } from "../src/index.ts"
import { isFrozenPlainJson } from "./support/frozenJson.ts"

const succeeded = (result: Result.Result<ToolOutput.ToolOutput, string>): ToolOutput.ToolOutput => {
  if (Result.isFailure(result)) assert.fail(`expected a success, got the failure: ${result.failure}`)
  return result.success
}

const failed = (result: Result.Result<ToolOutput.ToolOutput, string>): string => {
  if (Result.isSuccess(result)) assert.fail(`expected a failure, got: ${ToolOutput.render(result.success)}`)
  return result.failure
}

const cyclicValue = (): Schema.Json => {
  const value: Record<string, unknown> = { a: 1 }
  value["self"] = value
  return value as Schema.Json
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

  describe("render is total", () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic["self"] = cyclic
    const throwing = new Proxy({}, {
      get() {
        throw new Error("hunter2secret")
      },
      getPrototypeOf() {
        throw new Error("hunter2secret")
      }
    })
    /** A block of a class, with fields set past its constructor's types, as JavaScript can. */
    const forged = <B extends ToolResultContent.ToolResultContent>(block: B, fields: Record<string, unknown>): B =>
      Object.assign(block, fields)

    it("names what it cannot show in brackets, for any hand-built output, and never throws", () => {
      const deep = JSON.parse("[".repeat(10_000) + "]".repeat(10_000))
      const output = new ToolOutput.ToolOutput([
        ToolResultContent.json(cyclic as Schema.Json),
        ToolResultContent.json(deep),
        ToolResultContent.json({ n: 10n } as unknown as Schema.Json),
        ToolResultContent.json({ n: Number.NaN }),
        forged(ToolResultContent.text("x"), { text: 5 }),
        forged(ToolResultContent.imageUrl("https://example.com/a.png"), { source: null, mediaType: 7 }),
        forged(ToolResultContent.audio("AAAA", "audio/wav"), { data: { length: 3 }, mediaType: 1 }),
        forged(ToolResultContent.fileUrl("https://example.com/a.pdf", "application/pdf"), { source: { _tag: "Url", url: 1 } }),
        forged(ToolResultContent.resourceLink({ uri: "file:///a", name: "a" }), { uri: 1, name: 2 }),
        throwing as ToolResultContent.ToolResultContent,
        { _tag: "Text", text: "looks like a block" } as unknown as ToolResultContent.ToolResultContent
      ])
      assert.deepStrictEqual(ToolOutput.render(output).split("\n"), [
        "[json that cannot be shown: $.self is a cycle, not JSON]",
        "[json that cannot be shown: the output is nested deeper than 128 levels]",
        "[json that cannot be shown: $.n is bigint, not JSON]",
        "[json that cannot be shown: $.n is NaN, not JSON]",
        "[text that is not a string]",
        "[image: [no source]]",
        "[audio ?: [no data]]",
        "[file application/pdf: [not a URL]]",
        "[resource ?: [not a URL]]",
        "[unreadable block]",
        "[not a content block]"
      ])
      assert.strictEqual(String(output), ToolOutput.render(output))
    })

    it("answers an output whose content cannot be read, or is not an array", () => {
      const unreadable = Object.create(ToolOutput.ToolOutput.prototype, {
        content: {
          get() {
            throw new Error("hunter2secret")
          }
        }
      }) as ToolOutput.ToolOutput
      assert.strictEqual(ToolOutput.render(unreadable), "[unreadable output]")
      assert.strictEqual(ToolOutput.render(new ToolOutput.ToolOutput("text" as never)), "[not an output]")
      assert.strictEqual(ToolOutput.render(throwing as ToolOutput.ToolOutput), "[unreadable output]")
    })

    it("summarizes data: URLs in images, files and resource links like base64, never printing their data", () => {
      const output = ToolOutput.content([
        ToolResultContent.imageUrl(`data:image/png;base64,${BASE64}`, "image/png"),
        ToolResultContent.fileUrl(`DATA:application/pdf;base64,${BASE64}`, "application/pdf", "a.pdf"),
        ToolResultContent.resourceLink({ uri: `data:text/plain,${"hunter2secret".repeat(3)}`, name: "note" }),
        ToolResultContent.imageUrl("data:image/png;base64,%%%")
      ])
      const rendered = ToolOutput.render(output)
      assert.notInclude(rendered, BASE64.slice(0, 16))
      assert.notInclude(rendered, "hunter2secret")
      assert.deepStrictEqual(rendered.split("\n"), [
        `[image image/png: base64, ${BASE64.length} chars]`,
        `[file application/pdf a.pdf: base64, ${BASE64.length} chars]`,
        `[resource note: base64, ${btoa("hunter2secret".repeat(3)).length} chars]`,
        "[image: malformed data URL]"
      ])
    })
  })

  describe("fromReturn checks the blocks a tool built", () => {
    const forged = <B extends ToolResultContent.ToolResultContent>(block: B, fields: Record<string, unknown>): B =>
      Object.assign(block, fields)
    const cases: ReadonlyArray<readonly [string, unknown, string]> = [
      [
        "a Text block whose text is a number",
        new ToolResultContent.Text({ text: 5 as never }),
        "content[0]: a Text block's text is not a string"
      ],
      [
        "a Json block holding NaN",
        ToolResultContent.json({ n: Number.NaN }),
        "content[0]: $.n is NaN, not JSON"
      ],
      [
        "an Image with an unknown detail",
        ToolResultContent.imageUrl("https://a", undefined, "max" as never),
        "content[0]: an Image block's detail is not auto, low or high"
      ],
      [
        "an Image without a source",
        forged(ToolResultContent.imageUrl("https://a"), { source: { _tag: "Path", path: "/a" } }),
        "content[0]: an Image block's source is not a Base64 or Url source"
      ],
      [
        "an Image whose mediaType is a number",
        ToolResultContent.imageBase64("AAAA", 3 as never),
        "content[0]: an Image block's mediaType is not a string"
      ],
      [
        "an Audio block without data",
        forged(ToolResultContent.audio("AAAA", "audio/wav"), { data: undefined }),
        "content[0]: an Audio block's data is not a string"
      ],
      [
        "an Audio block without a mediaType",
        forged(ToolResultContent.audio("AAAA", "audio/wav"), { mediaType: null }),
        "content[0]: an Audio block's mediaType is not a string"
      ],
      [
        "a File with base64 that is not a string",
        ToolResultContent.fileBase64(1 as never, "application/pdf"),
        "content[0]: a File block's source is not a Base64 or Url source"
      ],
      [
        "a File without a mediaType",
        ToolResultContent.fileUrl("https://a", undefined as never),
        "content[0]: a File block's mediaType is not a string"
      ],
      [
        "a File whose filename is a number",
        ToolResultContent.fileUrl("https://a", "application/pdf", 1 as never),
        "content[0]: a File block's filename is not a string"
      ],
      [
        "a ResourceLink without a uri",
        ToolResultContent.resourceLink({ name: "a" } as never),
        "content[0]: a ResourceLink block's uri is not a string"
      ],
      [
        "a ResourceLink without a name",
        ToolResultContent.resourceLink({ uri: "a" } as never),
        "content[0]: a ResourceLink block's name is not a string"
      ],
      [
        "a ResourceLink whose mediaType is a number",
        ToolResultContent.resourceLink({ uri: "a", name: "a", mediaType: 1 as never }),
        "content[0]: a ResourceLink block's mediaType is not a string"
      ],
      [
        "a ResourceLink whose description is a number",
        ToolResultContent.resourceLink({ uri: "a", name: "a", description: 1 as never }),
        "content[0]: a ResourceLink block's description is not a string"
      ],
      [
        "an output without content",
        new ToolOutput.ToolOutput([] as never),
        "the output has no content"
      ],
      [
        "an output whose content is not an array",
        new ToolOutput.ToolOutput({ 0: ToolResultContent.text("a") } as never),
        "the output's content is not an array"
      ],
      [
        "an output holding a plain object",
        new ToolOutput.ToolOutput([ToolResultContent.text("a"), { _tag: "Text", text: "b" }] as never),
        "content[1]: not a content block"
      ],
      [
        "blocks, the second holding a cycle",
        [ToolResultContent.text("a"), ToolResultContent.json(cyclicValue())],
        "content[1]: $.self is a cycle, not JSON"
      ]
    ]
    for (const [label, value, reason] of cases) {
      it(`fails on ${label}`, () => {
        assert.strictEqual(failed(ToolOutput.fromReturn(value)), reason)
      })
    }

    it("holds Json blocks to the output limits, and to the limits it is given", () => {
      const deep = JSON.parse("[".repeat(10_000) + "]".repeat(10_000))
      assert.strictEqual(failed(ToolOutput.fromReturn(ToolOutput.json(deep))), "content[0]: the output is nested deeper than 128 levels")
      assert.strictEqual(failed(ToolOutput.fromReturn(deep)), "the output is nested deeper than 128 levels")
      const limits = { maxBytes: 10, maxDepth: 2 }
      assert.strictEqual(failed(ToolOutput.fromReturn([[[1]]], undefined, limits)), "the output is nested deeper than 2 levels")
      assert.strictEqual(
        failed(ToolOutput.fromReturn(ToolResultContent.json("a long string"), undefined, limits)),
        "content[0]: the output is larger than 10 bytes of JSON text"
      )
      assert.deepStrictEqual(succeeded(ToolOutput.fromReturn([[1]], undefined, limits)), ToolOutput.json([[1]]))
    })

    it("makes fresh, frozen blocks: changing what the tool built afterwards changes nothing", () => {
      const value = { list: [1, 2] }
      const text = ToolResultContent.text("caption")
      const image = ToolResultContent.imageBase64(BASE64, "image/png")
      const output = succeeded(ToolOutput.fromReturn([text, ToolResultContent.json(value), image]))
      ;(text as { text: string }).text = "changed"
      value.list.push(3)
      ;(image.source as { data: string }).data = "changed"
      assert.deepStrictEqual(
        output,
        ToolOutput.content([
          ToolResultContent.text("caption"),
          ToolResultContent.json({ list: [1, 2] }),
          ToolResultContent.imageBase64(BASE64, "image/png")
        ])
      )
      assert.isTrue(output.content.every((block) => Object.isFrozen(block)))
      assert.isTrue(Object.isFrozen((output.content[2] as ToolResultContent.Image).source))
      assert.isTrue(isFrozenPlainJson((output.content[1] as ToolResultContent.Json).value))
    })

    it("takes a block's kind from its class, not from a _tag field", () => {
      const block = forged(ToolResultContent.text("a"), { _tag: "Json" })
      assert.deepStrictEqual(succeeded(ToolOutput.fromReturn(block)).content, [ToolResultContent.text("a")])
    })

    it("never throws: a proxy as an output, a block or a value fails as unreadable", () => {
      const trap = {
        get() {
          throw new Error("hunter2secret")
        }
      }
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [new Proxy(ToolOutput.text("x"), trap), "the value could not be read"],
        [new Proxy(ToolResultContent.text("x"), trap), "the value could not be read"],
        [new Proxy([ToolResultContent.text("x")], trap), "the value could not be read"],
        [ToolOutput.json(new Proxy({}, { ownKeys: trap.get }) as Schema.Json), "content[0]: the value could not be read"]
      ]
      for (const [value, reason] of cases) assert.strictEqual(failed(ToolOutput.fromReturn(value)), reason)
    })
  })

  describe("fromReturn", () => {
    it("keeps a ToolOutput as an equal copy of frozen blocks, and one it made as the same object", () => {
      const value = { a: [1] }
      const output = ToolOutput.json(value)
      const kept = succeeded(ToolOutput.fromReturn(output, () => Result.fail("encoder must not run")))
      assert.deepStrictEqual(kept, output)
      assert.notStrictEqual(kept, output)
      assert.isTrue(Object.isFrozen(kept) && Object.isFrozen(kept.content) && kept.content.every(Object.isFrozen))
      value.a.push(2)
      assert.deepStrictEqual(kept, ToolOutput.json({ a: [1] }))
      assert.strictEqual(succeeded(ToolOutput.fromReturn(kept)), kept)
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
