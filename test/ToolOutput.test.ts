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

    it("reads a returned array's first element once: a getter that changes its answer is copied as first read", () => {
      let reads = 0
      const value: Array<unknown> = []
      Object.defineProperty(value, 0, { enumerable: true, configurable: true, get: () => ++reads === 1 ? 1 : 10n })
      assert.deepStrictEqual(succeeded(ToolOutput.fromReturn(value)), ToolOutput.json([1]))
      assert.strictEqual(reads, 1)
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

  describe("fromReturn keeps the fields that carry what MCP content says", () => {
    const deepObject = (levels: number): Schema.JsonObject => {
      let value: Schema.JsonObject = {}
      for (let i = 1; i < levels; i++) value = { a: value }
      return value
    }

    /** One block of each kind with every optional field set, fresh on each call so that a test may change it. */
    const annotated = () => {
      const annotations = () => ({
        audience: ["user", "assistant"] as Array<"user" | "assistant">,
        priority: 0.5,
        lastModified: "2025-01-01T00:00:00Z"
      })
      const meta = () => ({ "example.com/trace": { id: "t1", hops: [1, null] } })
      const resourceMeta = () => ({ etag: "1", tags: ["a"] })
      return [
        new ToolResultContent.Text({
          text: "# Notes",
          mediaType: "text/markdown",
          uri: "file:///notes.md",
          resourceMeta: resourceMeta(),
          annotations: annotations(),
          meta: meta()
        }),
        new ToolResultContent.Json({ value: { a: [1] }, annotations: annotations(), meta: meta() }),
        new ToolResultContent.Image({
          source: { _tag: "Base64", data: BASE64 },
          mediaType: "image/png",
          detail: "low",
          uri: "file:///chart.png",
          resourceMeta: resourceMeta(),
          annotations: annotations(),
          meta: meta()
        }),
        new ToolResultContent.Audio({
          data: BASE64,
          mediaType: "audio/wav",
          uri: "file:///a.wav",
          resourceMeta: resourceMeta(),
          annotations: annotations(),
          meta: meta()
        }),
        new ToolResultContent.File({
          source: { _tag: "Url", url: "https://example.com/q3.pdf" },
          mediaType: "application/pdf",
          filename: "q3.pdf",
          uri: "file:///q3.pdf",
          resourceMeta: resourceMeta(),
          annotations: annotations(),
          meta: meta()
        }),
        ToolResultContent.resourceLink({
          uri: "file:///q3.pdf",
          name: "q3",
          title: "Q3 report",
          mediaType: "application/pdf",
          description: "Quarterly report",
          size: 42,
          icons: [{ src: "https://example.com/a.svg", mimeType: "image/svg+xml", sizes: ["any"], theme: "dark" }],
          annotations: annotations(),
          meta: meta()
        })
      ] as const
    }

    for (const block of annotated()) {
      it(`keeps every field of a ${block._tag} block, in a fresh block of its class`, () => {
        const output = succeeded(ToolOutput.fromReturn(block))
        assert.deepStrictEqual(output.content, [block])
        assert.instanceOf(output.content[0], block.constructor as new(...args: never) => unknown)
        assert.notStrictEqual(output.content[0], block)
      })
    }

    it("copies them: changing what the tool built afterwards changes nothing, and every copy is frozen", () => {
      const blocks = annotated()
      const output = succeeded(ToolOutput.fromReturn(blocks))
      for (const block of blocks) {
        const fields = block as unknown as {
          readonly annotations: { audience: Array<string>; priority: number }
          readonly meta: { [key: string]: { id: string } }
          readonly resourceMeta?: { etag: string }
        }
        fields.annotations.audience.push("user")
        fields.annotations.priority = 1
        fields.meta["example.com/trace"]!.id = "changed"
        if (fields.resourceMeta !== undefined) fields.resourceMeta.etag = "changed"
      }
      const icons = blocks[5].icons as Array<{ src: string; sizes: Array<string> }>
      icons[0]!.src = "changed"
      icons[0]!.sizes.push("16x16")
      icons.push({ src: "added", sizes: [] })
      assert.deepStrictEqual(output.content, [...annotated()])
      for (const block of output.content) {
        const fields = block as Partial<ToolResultContent.Text>
        assert.isTrue(Object.isFrozen(fields.annotations) && Object.isFrozen(fields.annotations!.audience), block._tag)
        assert.isTrue(isFrozenPlainJson(fields.meta), block._tag)
        if (block._tag !== "Json" && block._tag !== "ResourceLink") {
          assert.isTrue(isFrozenPlainJson(fields.resourceMeta), block._tag)
        }
      }
      const link = output.content[5] as ToolResultContent.ResourceLink
      assert.isTrue(Object.isFrozen(link.icons) && Object.isFrozen(link.icons![0]))
      assert.isTrue(Object.isFrozen(link.icons![0]!.sizes))
    })

    it("adds no field to a block without them, and leaves out the ones that are undefined", () => {
      const plain = [
        ToolResultContent.text("a"),
        ToolResultContent.json({ a: 1 }),
        ToolResultContent.imageUrl("https://example.com/a.png"),
        ToolResultContent.audio(BASE64, "audio/wav"),
        ToolResultContent.fileUrl("https://example.com/a.pdf", "application/pdf"),
        ToolResultContent.resourceLink({ uri: "file:///a", name: "a" })
      ]
      const output = succeeded(ToolOutput.fromReturn(plain))
      assert.deepStrictEqual(
        output.content.map((block) => Object.keys(block)),
        plain.map((block) => Object.keys(block))
      )
      const undefinedFields = { annotations: undefined, meta: undefined }
      const undefinedResource = { uri: undefined, resourceMeta: undefined }
      const cases: ReadonlyArray<readonly [ToolResultContent.ToolResultContent, unknown]> = [
        [
          new ToolResultContent.Text({ text: "a", mediaType: undefined, ...undefinedResource, ...undefinedFields }),
          { _tag: "Text", text: "a" }
        ],
        [new ToolResultContent.Json({ value: 1, ...undefinedFields }), { _tag: "Json", value: 1 }],
        [
          new ToolResultContent.Audio({ data: "AA==", mediaType: "audio/wav", uri: undefined, meta: undefined }),
          { _tag: "Audio", data: "AA==", mediaType: "audio/wav" }
        ],
        [
          ToolResultContent.resourceLink({ uri: "u", name: "n", title: undefined, size: undefined, icons: undefined }),
          { _tag: "ResourceLink", uri: "u", name: "n" }
        ],
        [
          new ToolResultContent.Text({
            text: "a",
            uri: "file:///a",
            annotations: { priority: undefined, audience: ["user"] }
          }),
          { _tag: "Text", text: "a", uri: "file:///a", annotations: { audience: ["user"] } }
        ],
        [
          ToolResultContent.resourceLink({
            uri: "u",
            name: "n",
            icons: [{ src: "s", mimeType: undefined, theme: "light" }]
          }),
          { _tag: "ResourceLink", uri: "u", name: "n", icons: [{ src: "s", theme: "light" }] }
        ]
      ]
      for (const [block, fields] of cases) {
        assert.deepStrictEqual({ ...succeeded(ToolOutput.fromReturn(block)).content[0] }, fields)
      }
    })

    it("keeps only the annotation and icon fields it knows, as the block Schemas do", () => {
      const block = ToolResultContent.resourceLink({
        uri: "u",
        name: "n",
        icons: [{ src: "s", color: "red" } as ToolResultContent.Icon],
        annotations: { priority: 1, source: "x" } as ToolResultContent.Annotations
      })
      const expected = ToolResultContent.resourceLink({
        uri: "u",
        name: "n",
        icons: [{ src: "s" }],
        annotations: { priority: 1 }
      })
      assert.deepStrictEqual(succeeded(ToolOutput.fromReturn(block)), ToolOutput.one(expected))
      assert.deepStrictEqual(
        Schema.decodeUnknownSync(ToolResultContent.schema)(Schema.encodeUnknownSync(ToolResultContent.schema)(block)),
        expected
      )
    })

    const text = (fields: Record<string, unknown>) => new ToolResultContent.Text({ text: "a", ...fields })
    const link = (fields: Record<string, unknown>) =>
      ToolResultContent.resourceLink({ uri: "u", name: "n", ...fields } as never)
    const cyclic = cyclicValue()
    const throwing = {
      get secret(): unknown {
        throw new Error("hunter2secret")
      }
    }
    const badPriority = "a Text block's annotations.priority is not a number from 0 to 1"
    const icons = "a ResourceLink block's icons"
    const cases: ReadonlyArray<readonly [string, unknown, string]> = [
      ["a Text whose mediaType is a number", text({ mediaType: 1 }), "a Text block's mediaType is not a string"],
      ["a Text whose uri is a number", text({ uri: 1 }), "a Text block's uri is not a string"],
      [
        "an Image whose uri is an object",
        new ToolResultContent.Image({ source: { _tag: "Url", url: "https://a" }, uri: {} as never }),
        "an Image block's uri is not a string"
      ],
      [
        "an Audio whose uri is null",
        new ToolResultContent.Audio({ data: "AA==", mediaType: "audio/wav", uri: null as never }),
        "an Audio block's uri is not a string"
      ],
      [
        "a File whose uri is a number",
        new ToolResultContent.File({
          source: { _tag: "Url", url: "https://a" },
          mediaType: "application/pdf",
          uri: 1 as never
        }),
        "a File block's uri is not a string"
      ],
      ["annotations that are a string", text({ annotations: "high" }), "a Text block's annotations are not an object"],
      ["annotations that are an array", text({ annotations: [] }), "a Text block's annotations are not an object"],
      ["annotations that are null", text({ annotations: null }), "a Text block's annotations are not an object"],
      [
        "an audience of someone else",
        new ToolResultContent.Json({ value: 1, annotations: { audience: ["user", "bot" as never] } }),
        "a Json block's annotations.audience is not an array of user and assistant"
      ],
      [
        "an audience that is a string",
        text({ annotations: { audience: "user" } }),
        "a Text block's annotations.audience is not an array of user and assistant"
      ],
      ["a priority above 1", text({ annotations: { priority: 2 } }), badPriority],
      ["a priority below 0", text({ annotations: { priority: -0.1 } }), badPriority],
      ["a priority of NaN", text({ annotations: { priority: Number.NaN } }), badPriority],
      ["a priority of Infinity", text({ annotations: { priority: Number.POSITIVE_INFINITY } }), badPriority],
      ["a priority that is a string", text({ annotations: { priority: "1" } }), badPriority],
      [
        "a lastModified that is a number",
        link({ annotations: { lastModified: 0 } }),
        "a ResourceLink block's annotations.lastModified is not a string"
      ],
      ["a meta that is an array", text({ meta: [] }), "a Text block's meta is not a JSON object"],
      ["a meta that is a string", text({ meta: "m" }), "a Text block's meta is not a JSON object"],
      ["a meta that is null", text({ meta: null }), "a Text block's meta is not a JSON object"],
      ["a meta that is a Date", text({ meta: new Date(0) }), "a Text block's meta is not a JSON object"],
      [
        "a meta holding NaN",
        new ToolResultContent.Json({ value: 1, meta: { n: Number.NaN } }),
        "a Json block's meta: $.n is NaN, not JSON"
      ],
      [
        "a meta holding a cycle",
        new ToolResultContent.Audio({ data: "AA==", mediaType: "audio/wav", meta: cyclic as Schema.JsonObject }),
        "an Audio block's meta: $.self is a cycle, not JSON"
      ],
      ["a meta whose getter throws", text({ meta: throwing }), "a Text block's meta could not be read"],
      [
        "a resourceMeta that is a string",
        new ToolResultContent.Image({ source: { _tag: "Url", url: "https://a" }, resourceMeta: "m" as never }),
        "an Image block's resourceMeta is not a JSON object"
      ],
      [
        "a resourceMeta holding a Date",
        new ToolResultContent.File({
          source: { _tag: "Url", url: "https://a" },
          mediaType: "application/pdf",
          resourceMeta: { at: new Date(0) } as never
        }),
        "a File block's resourceMeta: $.at is Date, not JSON"
      ],
      ["a title that is a number", link({ title: 1 }), "a ResourceLink block's title is not a string"],
      ["a size that is a fraction", link({ size: 1.5 }), "a ResourceLink block's size is not an integer"],
      ["a size that is a string", link({ size: "42" }), "a ResourceLink block's size is not an integer"],
      ["a size past the safe integers", link({ size: 2 ** 53 }), "a ResourceLink block's size is not an integer"],
      ["a size of Infinity", link({ size: Number.POSITIVE_INFINITY }), "a ResourceLink block's size is not an integer"],
      ["icons that are not an array", link({ icons: { src: "s" } }), "a ResourceLink block's icons are not an array"],
      ["an icon that is null", link({ icons: [{ src: "s" }, null] }), `${icons}[1] is not an object`],
      ["an icon without a src", link({ icons: [{ mimeType: "image/png" }] }), `${icons}[0].src is not a string`],
      [
        "an icon whose mimeType is a number",
        link({ icons: [{ src: "s", mimeType: 1 }] }),
        `${icons}[0].mimeType is not a string`
      ],
      [
        "an icon whose sizes is a string",
        link({ icons: [{ src: "s", sizes: "any" }] }),
        `${icons}[0].sizes is not an array of strings`
      ],
      [
        "an icon whose sizes hold a number",
        link({ icons: [{ src: "s", sizes: ["any", 16] }] }),
        `${icons}[0].sizes is not an array of strings`
      ],
      [
        "an icon of another theme",
        link({ icons: [{ src: "s", theme: "blue" }] }),
        `${icons}[0].theme is not light or dark`
      ]
    ]
    for (const [label, block, reason] of cases) {
      it(`fails on ${label}`, () => {
        assert.strictEqual(
          failed(ToolOutput.fromReturn([ToolResultContent.text("first"), block])),
          `content[1]: ${reason}`
        )
      })
    }

    it("holds meta and resourceMeta to the output limits, and to the limits it is given, like a Json block", () => {
      assert.strictEqual(
        failed(ToolOutput.fromReturn(text({ meta: deepObject(200) }))),
        "content[0]: a Text block's meta is nested deeper than 128 levels"
      )
      assert.deepStrictEqual(
        succeeded(ToolOutput.fromReturn(text({ meta: deepObject(128) }))),
        ToolOutput.one(text({ meta: deepObject(128) }))
      )
      const limits = { maxBytes: 20, maxDepth: 2 }
      const image = (resourceMeta: Schema.JsonObject) =>
        new ToolResultContent.Image({
          source: { _tag: "Url", url: "https://a" },
          mediaType: "image/png",
          detail: "auto",
          resourceMeta
        })
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [text({ meta: { a: "a string too long to fit" } }), "a Text block's meta is larger than 20 bytes of JSON text"],
        [text({ meta: { a: { b: {} } } }), "a Text block's meta is nested deeper than 2 levels"],
        [
          image({ a: "a string too long to fit" }),
          "an Image block's resourceMeta is larger than 20 bytes of JSON text"
        ],
        [image({ a: { b: {} } }), "an Image block's resourceMeta is nested deeper than 2 levels"]
      ]
      for (const [block, reason] of cases) {
        assert.strictEqual(failed(ToolOutput.fromReturn(block, undefined, limits)), `content[0]: ${reason}`)
      }
      const fits = [text({ meta: { a: [1] } }), image({ a: [1] })] as const
      assert.deepStrictEqual(succeeded(ToolOutput.fromReturn(fits, undefined, limits)), ToolOutput.content(fits))
    })

    it("checks an output with meta again under smaller limits, and one without JSON never again", () => {
      const small = { maxBytes: 20, maxDepth: 2 }
      const withMeta = succeeded(ToolOutput.fromReturn(text({ meta: { a: "a string too long to fit" } })))
      assert.strictEqual(succeeded(ToolOutput.fromReturn(withMeta)), withMeta)
      assert.strictEqual(
        failed(ToolOutput.fromReturn(withMeta, undefined, small)),
        "content[0]: a Text block's meta is larger than 20 bytes of JSON text"
      )
      const withResourceMeta = succeeded(ToolOutput.fromReturn(
        new ToolResultContent.Audio({ data: "AA==", mediaType: "audio/wav", resourceMeta: { a: { b: {} } } })
      ))
      assert.strictEqual(
        failed(ToolOutput.fromReturn(withResourceMeta, undefined, small)),
        "content[0]: an Audio block's resourceMeta is nested deeper than 2 levels"
      )
      const withoutJson = succeeded(ToolOutput.fromReturn(
        text({ uri: "file:///a", annotations: { audience: ["user"], priority: 1 } })
      ))
      assert.strictEqual(
        succeeded(ToolOutput.fromReturn(withoutJson, undefined, { maxBytes: 0, maxDepth: 0 })),
        withoutJson
      )
    })

    describe("properties", () => {
      const Blocks = Schema.Array(Schema.toEncoded(ToolResultContent.schema)).check(Schema.isMinLength(1))
      const decodeBlocks = Schema.decodeUnknownSync(Schema.Array(ToolResultContent.schema))
      const encodeBlock = Schema.encodeUnknownSync(ToolResultContent.schema)
      /**
       * Blocks as comparable data: each block's class, and its encoded fields as JSON text makes them (an absent field
       * and one set to `undefined` are the same block).
       */
      const comparable = (blocks: ReadonlyArray<ToolResultContent.ToolResultContent>) =>
        blocks.map((block) => [block.constructor.name, JSON.parse(JSON.stringify(encodeBlock(block)))])

      it.prop("any blocks the block Schemas decode keep every field, in frozen copies", [Blocks], ([encoded]) => {
        const blocks = decodeBlocks(encoded)
        const output = succeeded(ToolOutput.fromReturn(blocks))
        assert.deepStrictEqual(comparable(output.content), comparable(blocks))
        for (const block of output.content) {
          const fields = block as Partial<ToolResultContent.Text>
          assert.isTrue(Object.isFrozen(block))
          if (fields.annotations !== undefined) assert.isTrue(Object.isFrozen(fields.annotations))
          if (fields.meta !== undefined) assert.isTrue(isFrozenPlainJson(fields.meta))
          if (fields.resourceMeta !== undefined) assert.isTrue(isFrozenPlainJson(fields.resourceMeta))
        }
      })
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
