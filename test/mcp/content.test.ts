import { assert, describe, it } from "@effect/vitest"
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js"
import { Result, Schema } from "effect"
import * as McpSchema from "effect/ai/McpSchema"
import { fromMcp, inlineUri, type McpContent, McpContentError, noteKey, toMcp } from "../../src/mcp/content.ts"
import { ToolOutput, ToolResultContent } from "../../src/index.ts"

const encodeBlock = Schema.encodeUnknownSync(ToolResultContent.schema)

/**
 * An output as comparable data: each block's class, and its encoded fields as JSON text makes them (a field set to
 * `undefined` and an absent one are the same block; JSON has no -0).
 */
const comparable = (output: ToolOutput.ToolOutput) =>
  output.content.map((block) => [block.constructor.name, JSON.parse(JSON.stringify(encodeBlock(block)))])

const read = (content: unknown, structuredContent?: unknown): ToolOutput.ToolOutput => {
  const result = fromMcp(content, structuredContent)
  if (Result.isFailure(result)) assert.fail(`fromMcp failed: ${result.failure.message}`)
  return result.success
}

const failure = (content: unknown, structuredContent?: unknown): McpContentError => {
  const result = fromMcp(content, structuredContent)
  if (Result.isSuccess(result)) assert.fail("fromMcp succeeded")
  assert.instanceOf(result.failure, McpContentError)
  return result.failure
}

const sdkAccepts = (content: ReadonlyArray<McpContent>, structuredContent?: unknown): boolean =>
  CallToolResultSchema.safeParse(
    structuredContent === undefined ? { content } : { content, structuredContent }
  ).success

// Base64 of real images' first bytes, so that recognizing a type from the data has something to recognize.
const png = "iVBORw0KGgoAAAANSUhEUg=="
const pdf = "JVBERi0xLjQ="
const wav = "UklGRiQAAABXQVZF"

describe("mcp/content", () => {
  describe("toMcp: ours → MCP, row by row", () => {
    const cases: ReadonlyArray<readonly [string, ToolResultContent.ToolResultContent, McpContent]> = [
      ["Text → text", ToolResultContent.text("hello"), { type: "text", text: "hello" }],
      [
        "Text with a uri → an embedded text resource",
        new ToolResultContent.Text({ text: "# Notes", uri: "file:///notes.md", mediaType: "text/markdown" }),
        { type: "resource", resource: { uri: "file:///notes.md", mimeType: "text/markdown", text: "# Notes" } }
      ],
      [
        "Text with a media type only → an embedded text resource at the inline uri",
        new ToolResultContent.Text({ text: "a,b", mediaType: "text/csv" }),
        { type: "resource", resource: { uri: inlineUri, mimeType: "text/csv", text: "a,b" } }
      ],
      [
        "Json → text holding its JSON, noted as JSON",
        ToolResultContent.json([1, { a: "b" }]),
        { type: "text", text: "[1,{\"a\":\"b\"}]", _meta: { [noteKey]: { block: "Json" } } }
      ],
      [
        "Image base64 → image",
        ToolResultContent.imageBase64(png, "image/png"),
        { type: "image", data: png, mimeType: "image/png" }
      ],
      [
        "Image base64 without a media type → image with the type its bytes show, noted as having none",
        ToolResultContent.imageBase64(png),
        { type: "image", data: png, mimeType: "image/png", _meta: { [noteKey]: { mediaType: false } } }
      ],
      [
        "Image base64 of no known type and no media type → an embedded blob resource without mimeType",
        ToolResultContent.imageBase64("AAAA"),
        { type: "resource", resource: { uri: inlineUri, blob: "AAAA" } }
      ],
      [
        "Image base64 with detail → image, the detail noted",
        ToolResultContent.imageBase64(png, "image/png", "high"),
        { type: "image", data: png, mimeType: "image/png", _meta: { [noteKey]: { detail: "high" } } }
      ],
      [
        "Image base64 with a uri → an embedded blob resource",
        new ToolResultContent.Image({
          source: { _tag: "Base64", data: png },
          mediaType: "image/png",
          uri: "file:///a.png"
        }),
        { type: "resource", resource: { uri: "file:///a.png", mimeType: "image/png", blob: png } }
      ],
      [
        "Image by URL → resource_link named by its URL, noted as an image",
        ToolResultContent.imageUrl("https://example.com/cat.jpg", "image/jpeg", "low"),
        {
          type: "resource_link",
          uri: "https://example.com/cat.jpg",
          name: "https://example.com/cat.jpg",
          mimeType: "image/jpeg",
          _meta: { [noteKey]: { block: "Image", detail: "low" } }
        }
      ],
      ["Audio → audio", ToolResultContent.audio(wav, "audio/wav"), { type: "audio", data: wav, mimeType: "audio/wav" }],
      [
        "Audio with a uri → an embedded blob resource, noted as audio",
        new ToolResultContent.Audio({ data: wav, mediaType: "audio/wav", uri: "file:///a.wav" }),
        {
          type: "resource",
          resource: { uri: "file:///a.wav", mimeType: "audio/wav", blob: wav },
          _meta: { [noteKey]: { block: "Audio" } }
        }
      ],
      [
        "File base64 → an embedded blob resource at the inline uri, its filename noted",
        ToolResultContent.fileBase64(pdf, "application/pdf", "q3.pdf"),
        {
          type: "resource",
          resource: { uri: inlineUri, mimeType: "application/pdf", blob: pdf },
          _meta: { [noteKey]: { filename: "q3.pdf" } }
        }
      ],
      [
        "File base64 with a uri → an embedded blob resource at that uri",
        new ToolResultContent.File({
          source: { _tag: "Base64", data: pdf },
          mediaType: "application/pdf",
          uri: "file:///q3.pdf"
        }),
        { type: "resource", resource: { uri: "file:///q3.pdf", mimeType: "application/pdf", blob: pdf } }
      ],
      [
        "File base64 of an image type → an embedded blob resource, noted as a file",
        ToolResultContent.fileBase64(png, "image/png"),
        {
          type: "resource",
          resource: { uri: inlineUri, mimeType: "image/png", blob: png },
          _meta: { [noteKey]: { block: "File" } }
        }
      ],
      [
        "File by URL → resource_link named by its filename, noted as a file",
        ToolResultContent.fileUrl("https://example.com/q3.pdf", "application/pdf", "q3.pdf"),
        {
          type: "resource_link",
          uri: "https://example.com/q3.pdf",
          name: "q3.pdf",
          mimeType: "application/pdf",
          _meta: { [noteKey]: { block: "File", filename: "q3.pdf" } }
        }
      ],
      [
        "ResourceLink → resource_link with every field",
        ToolResultContent.resourceLink({
          uri: "file:///reports/q3.pdf",
          name: "q3",
          title: "Q3 report",
          mediaType: "application/pdf",
          description: "Quarterly report",
          size: 1024,
          icons: [{ src: "https://example.com/pdf.svg", mimeType: "image/svg+xml", sizes: ["any"], theme: "light" }]
        }),
        {
          type: "resource_link",
          uri: "file:///reports/q3.pdf",
          name: "q3",
          title: "Q3 report",
          mimeType: "application/pdf",
          description: "Quarterly report",
          size: 1024,
          icons: [{ src: "https://example.com/pdf.svg", mimeType: "image/svg+xml", sizes: ["any"], theme: "light" }]
        }
      ],
      [
        "annotations and meta → annotations and _meta",
        new ToolResultContent.Text({
          text: "hi",
          annotations: { audience: ["user"], priority: 0.5, lastModified: "2025-01-01T00:00:00Z" },
          meta: { "example.com/trace": "t1" }
        }),
        {
          type: "text",
          text: "hi",
          annotations: { audience: ["user"], priority: 0.5, lastModified: "2025-01-01T00:00:00Z" },
          _meta: { "example.com/trace": "t1" }
        }
      ],
      [
        "a resource's own meta → the embedded resource's _meta",
        new ToolResultContent.Text({ text: "x", uri: "file:///x", resourceMeta: { etag: "1" } }),
        { type: "resource", resource: { uri: "file:///x", _meta: { etag: "1" }, text: "x" } }
      ]
    ]
    for (const [name, block, wire] of cases) {
      it(name, () => {
        const { content, structuredContent } = toMcp(ToolOutput.one(block))
        assert.deepStrictEqual(content, [wire])
        assert.isUndefined(structuredContent)
        assert.isTrue(sdkAccepts(content), "the official SDK's CallToolResult schema accepts it")
        // And back: the block, exactly.
        assert.deepStrictEqual(comparable(read(content)), comparable(ToolOutput.one(block)))
      })
    }

    it("keeps the order of several blocks", () => {
      const output = ToolOutput.content([
        ToolResultContent.text("chart:"),
        ToolResultContent.imageBase64(png, "image/png"),
        ToolResultContent.text("done")
      ])
      assert.deepStrictEqual(toMcp(output).content, [
        { type: "text", text: "chart:" },
        { type: "image", data: png, mimeType: "image/png" },
        { type: "text", text: "done" }
      ])
    })
  })

  describe("toMcp: structuredContent", () => {
    it("one Json block holding an object gives its JSON as text and the object as structuredContent", () => {
      assert.deepStrictEqual(toMcp(ToolOutput.json({ temperature: 21 }), { structured: true }), {
        content: [{ type: "text", text: "{\"temperature\":21}" }],
        structuredContent: { temperature: 21 }
      })
    })

    it("is left out when not asked for, for a value that is not an object, and for more than one block", () => {
      const outputs = [
        [ToolOutput.json({ a: 1 }), undefined],
        [ToolOutput.json([1, 2]), { structured: true }],
        [ToolOutput.json("x"), { structured: true }],
        [ToolOutput.content([ToolResultContent.json({ a: 1 }), ToolResultContent.text("b")]), { structured: true }]
      ] as const
      assert.deepStrictEqual(
        outputs.map(([output, options]) => "structuredContent" in toMcp(output, options)),
        outputs.map(() => false)
      )
    })
  })

  describe("fromMcp: MCP → ours, row by row", () => {
    const cases: ReadonlyArray<readonly [string, McpContent, ToolResultContent.ToolResultContent]> = [
      ["text → Text", { type: "text", text: "hello" }, ToolResultContent.text("hello")],
      [
        "image → Image",
        { type: "image", data: png, mimeType: "image/png" },
        new ToolResultContent.Image({ source: { _tag: "Base64", data: png }, mediaType: "image/png" })
      ],
      [
        "audio → Audio",
        { type: "audio", data: wav, mimeType: "audio/wav" },
        ToolResultContent.audio(wav, "audio/wav")
      ],
      [
        "resource with text → Text with its uri and mediaType",
        { type: "resource", resource: { uri: "file:///a.md", mimeType: "text/markdown", text: "# A" } },
        new ToolResultContent.Text({ text: "# A", uri: "file:///a.md", mediaType: "text/markdown" })
      ],
      [
        "resource with a blob of an image type → Image with its uri",
        { type: "resource", resource: { uri: "file:///a.png", mimeType: "image/png", blob: png } },
        new ToolResultContent.Image({ source: { _tag: "Base64", data: png }, mediaType: "image/png", uri: "file:///a.png" })
      ],
      [
        "resource with a blob of another type → File with its uri",
        { type: "resource", resource: { uri: "file:///q3.pdf", mimeType: "application/pdf", blob: pdf } },
        new ToolResultContent.File({ source: { _tag: "Base64", data: pdf }, mediaType: "application/pdf", uri: "file:///q3.pdf" })
      ],
      [
        "resource with a blob and no type → Image without a media type (File needs one)",
        { type: "resource", resource: { uri: "file:///blob", blob: "AAAA" } },
        new ToolResultContent.Image({ source: { _tag: "Base64", data: "AAAA" }, uri: "file:///blob" })
      ],
      [
        "resource_link → ResourceLink with every field",
        {
          type: "resource_link",
          uri: "file:///a",
          name: "a",
          title: "A",
          description: "d",
          mimeType: "text/plain",
          size: 3,
          icons: [{ src: "https://example.com/i.png" }]
        },
        ToolResultContent.resourceLink({
          uri: "file:///a",
          name: "a",
          title: "A",
          description: "d",
          mediaType: "text/plain",
          size: 3,
          icons: [{ src: "https://example.com/i.png" }]
        })
      ],
      [
        "annotations and _meta are kept, and a resource's own _meta",
        {
          type: "resource",
          resource: { uri: "file:///a", text: "a", _meta: { etag: "7" } },
          annotations: { audience: ["assistant"], priority: 1 },
          _meta: { "example.com/k": [1, null] }
        },
        new ToolResultContent.Text({
          text: "a",
          uri: "file:///a",
          resourceMeta: { etag: "7" },
          annotations: { audience: ["assistant"], priority: 1 },
          meta: { "example.com/k": [1, null] }
        })
      ]
    ]
    for (const [name, wire, block] of cases) {
      it(name, () => {
        const output = read([wire])
        assert.strictEqual(output.content.length, 1)
        assert.instanceOf(output.content[0], block.constructor as new(...args: never) => unknown)
        // Whole value, absent fields absent: nothing is set to undefined.
        assert.deepStrictEqual({ ...output.content[0] }, { ...block })
        // And back: the very MCP block.
        assert.deepStrictEqual(toMcp(output).content, [wire])
      })
    }

    it("reads empty content as one empty Text block", () => {
      assert.deepStrictEqual(comparable(read([])), comparable(ToolOutput.text("")))
    })

    it("ignores fields MCP does not define", () => {
      assert.deepStrictEqual(comparable(read([{ type: "text", text: "a", extra: 1 }])), comparable(ToolOutput.text("a")))
    })
  })

  describe("fromMcp: structuredContent", () => {
    it("replaces the text block that is exactly its JSON, keeping that block's place, annotations and meta", () => {
      const output = read(
        [
          { type: "text", text: "weather:" },
          { type: "text", text: "{\"t\":21}", annotations: { priority: 1 }, _meta: { k: 1 } }
        ],
        { t: 21 }
      )
      assert.deepStrictEqual(comparable(output), comparable(ToolOutput.content([
        ToolResultContent.text("weather:"),
        new ToolResultContent.Json({ value: { t: 21 }, annotations: { priority: 1 }, meta: { k: 1 } })
      ])))
    })

    it("takes the place of its JSON however written: indented (the reference servers), spaced (Python's json.dumps)", () => {
      const value = { t: 21, tags: ["a", "b"], nested: { ok: true, none: null } }
      for (
        const text of [JSON.stringify(value, null, 2), "{\"t\": 21, \"tags\": [\"a\", \"b\"], \"nested\": {\"ok\": true, \"none\": null}}"]
      ) {
        const output = read([{ type: "text", text: "before" }, { type: "text", text }], value)
        assert.deepStrictEqual(
          comparable(output),
          comparable(ToolOutput.content([ToolResultContent.text("before"), ToolResultContent.json(value)]))
        )
      }
    })

    it("takes the place of its JSON with numbers spelt otherwise (serde_json writes 1e21, JavaScript 1e+21)", () => {
      // Shorter than JavaScript's own spelling.
      const output = read([{ type: "text", text: "{\"v\":1e21}" }], { v: 1e21 })
      assert.deepStrictEqual(comparable(output), comparable(ToolOutput.json({ v: 1e21 })))
    })

    it("keeps a text that is other JSON, or not JSON, and adds the Json block after the content", () => {
      for (const text of ["{ \"t\": 22 }", "{ \"t\": 21, \"u\": 1 }", "[21]", "{ \"t\": 21 ", "t is 21"]) {
        const output = read([{ type: "text", text }], { t: 21 })
        assert.deepStrictEqual(
          comparable(output),
          comparable(ToolOutput.content([ToolResultContent.text(text), ToolResultContent.json({ t: 21 })])),
          text
        )
      }
    })

    it("gives one Json block when the content is empty", () => {
      assert.deepStrictEqual(comparable(read([], { t: 21 })), comparable(ToolOutput.json({ t: 21 })))
    })

    it("round-trips with toMcp's structured form", () => {
      const output = ToolOutput.json({ city: "Paris", temperature: 21.5, tags: ["a"] })
      const { content, structuredContent } = toMcp(output, { structured: true })
      assert.isTrue(sdkAccepts(content, structuredContent))
      assert.deepStrictEqual(comparable(read(content, structuredContent)), comparable(output))
    })
  })

  describe("the note under the reserved _meta key", () => {
    it("a block's own value under the key is carried along and given back", () => {
      const blocks = [
        // A value that could be read as a note is escaped into one.
        new ToolResultContent.Text({ text: "a", meta: { [noteKey]: { block: "Json" } } }),
        // A value that is no note stays where it is.
        new ToolResultContent.Text({ text: "b", meta: { [noteKey]: 5, other: true } }),
        // A block with a note of its own escapes any value.
        new ToolResultContent.Json({ value: 1, meta: { [noteKey]: "mine" } })
      ]
      const { content } = toMcp(ToolOutput.content([blocks[0]!, blocks[1]!, blocks[2]!]))
      assert.deepStrictEqual(content.map((block) => block._meta), [
        { [noteKey]: { meta: { block: "Json" } } },
        { [noteKey]: 5, other: true },
        { [noteKey]: { block: "Json", meta: "mine" } }
      ])
      assert.deepStrictEqual(comparable(read(content)), blocks.map((block) => comparable(ToolOutput.one(block))[0]))
    })

    it("a note that does not fit its block is kept in meta as it came", () => {
      const wires: ReadonlyArray<McpContent> = [
        // Says JSON, is not JSON.
        { type: "text", text: "not json", _meta: { [noteKey]: { block: "Json" } } },
        // Says JSON, is JSON in a form toMcp does not write.
        { type: "text", text: "[1, 2]", _meta: { [noteKey]: { block: "Json" } } },
        // Says File, has no media type.
        { type: "resource_link", uri: "https://example.com/a", name: "a", _meta: { [noteKey]: { block: "File" } } },
        // Not our note: a field we do not write.
        { type: "text", text: "x", _meta: { [noteKey]: { block: "Json", colour: "red" } } }
      ]
      const output = read(wires)
      assert.deepStrictEqual(output.content.map((block) => block._tag), ["Text", "Text", "ResourceLink", "Text"])
      assert.deepStrictEqual(output.content.map((block) => block.meta), wires.map((wire) => wire._meta))
    })

    it("a block whose own uri is the inline uri keeps it", () => {
      const block = new ToolResultContent.File({
        source: { _tag: "Base64", data: pdf },
        mediaType: "application/pdf",
        uri: inlineUri
      })
      const { content } = toMcp(ToolOutput.one(block))
      assert.deepStrictEqual(content, [{
        type: "resource",
        resource: { uri: inlineUri, mimeType: "application/pdf", blob: pdf },
        _meta: { [noteKey]: { uri: inlineUri } }
      }])
      assert.deepStrictEqual(comparable(read(content)), comparable(ToolOutput.one(block)))
    })
  })

  describe("fromMcp: bad input is a typed failure", () => {
    const cases: ReadonlyArray<readonly [string, unknown, unknown, string]> = [
      ["content that is not an array", { type: "text", text: "a" }, undefined, "content is not an array"],
      ["content that is null", null, undefined, "content is not an array"],
      ["a block of an unknown type", [{ type: "text", text: "a" }, { type: "video", url: "x" }], undefined,
        "content[1] has the unknown type \"video\""],
      ["a block with no type", [{ text: "a" }], undefined, "content[0] has no type"],
      ["a block that is not an object", ["a"], undefined, "content[0] has no type"],
      ["text without its text", [{ type: "text" }], undefined, "content[0] (text): Missing key at [\"text\"]"],
      ["image without mimeType", [{ type: "image", data: png }], undefined,
        "content[0] (image): Missing key at [\"mimeType\"]"],
      ["audio with data that is not a string", [{ type: "audio", data: 1, mimeType: "audio/wav" }], undefined,
        "content[0] (audio): Expected string at [\"data\"]"],
      ["a resource without text or blob", [{ type: "resource", resource: { uri: "file:///a" } }], undefined,
        "content[0] (resource):"],
      ["a resource_link without a name", [{ type: "resource_link", uri: "file:///a" }], undefined,
        "content[0] (resource_link): Missing key at [\"name\"]"],
      ["a priority out of range", [{ type: "text", text: "a", annotations: { priority: 2 } }], undefined,
        "content[0] (text): Expected a value between 0 and 1"],
      ["a size that is not an integer", [{ type: "resource_link", uri: "u", name: "n", size: 1.5 }], undefined,
        "content[0] (resource_link): Expected an integer"],
      ["_meta that is not JSON", [{ type: "text", text: "a", _meta: { n: Number.NaN } }], undefined,
        "content[0]._meta is not JSON"],
      ["a resource's _meta that is not JSON", [{ type: "resource", resource: { uri: "u", text: "a", _meta: { d: new Date(0) } } }],
        undefined, "content[0].resource._meta is not JSON"],
      ["structuredContent that is not JSON", [], { n: Number.POSITIVE_INFINITY }, "structuredContent is not JSON"]
    ]
    for (const [name, content, structuredContent, message] of cases) {
      it(name, () => {
        assert.include(failure(content, structuredContent).message, message)
      })
    }

    it("content whose reading throws (a getter, a proxy) fails instead of throwing", () => {
      const hostile = [
        Object.defineProperty({ type: "text" }, "text", {
          enumerable: true,
          get: () => {
            throw new Error("boom")
          }
        })
      ]
      assert.strictEqual(failure(hostile).message, "the content could not be read")
    })
  })

  describe("properties", () => {
    const Output = Schema.Array(Schema.toEncoded(ToolResultContent.schema)).check(Schema.isMinLength(1))
    const decodeOutput = Schema.decodeUnknownSync(Schema.Array(ToolResultContent.schema))
    const toOutput = (blocks: ReadonlyArray<unknown>) => {
      const decoded = decodeOutput(blocks)
      return ToolOutput.content([decoded[0]!, ...decoded.slice(1)])
    }

    // MCP's data and blobs are base64, which both schemas check: the data fields are made base64 of what was drawn.
    const base64 = (text: string) => Buffer.from(text).toString("base64")
    const withBase64Data = (block: typeof ToolResultContent.schema.Encoded): typeof ToolResultContent.schema.Encoded => {
      switch (block._tag) {
        case "Audio":
          return { ...block, data: base64(block.data) }
        case "Image":
        case "File":
          return block.source._tag === "Base64" ? { ...block, source: { _tag: "Base64", data: base64(block.source.data) } } : block
        default:
          return block
      }
    }

    // The SDK also holds `lastModified` to ISO 8601 date-times, which Effect's schema and ours leave to the author.
    const withIsoDates = (block: typeof ToolResultContent.schema.Encoded): typeof ToolResultContent.schema.Encoded =>
      block.annotations?.lastModified === undefined
        ? block
        : { ...block, annotations: { ...block.annotations, lastModified: new Date(0).toISOString() } }

    it.prop("for any output, fromMcp(toMcp(output)) equals it", [Output], ([blocks]) => {
      const output = toOutput(blocks)
      const { content } = toMcp(output)
      assert.deepStrictEqual(comparable(read(content)), comparable(output))
    })

    it.prop("for any output, the structured form round-trips too", [Output], ([blocks]) => {
      const output = toOutput(blocks)
      const { content, structuredContent } = toMcp(output, { structured: true })
      assert.deepStrictEqual(comparable(read(content, structuredContent)), comparable(output))
    })

    it.prop("for any Json object, toMcp's structured form gives it as structuredContent", [Schema.JsonObject], ([value]) => {
      const { content, structuredContent } = toMcp(ToolOutput.json(value), { structured: true })
      assert.deepStrictEqual([content, structuredContent], [[{ type: "text", text: JSON.stringify(value) }], value])
      assert.deepStrictEqual(comparable(read(content, structuredContent)), comparable(ToolOutput.json(value)))
    })

    it.prop(
      "what toMcp gives is valid MCP content, for Effect's schema and the official SDK's",
      [Output],
      ([blocks]) => {
        const { content } = toMcp(toOutput(blocks.map(withBase64Data).map(withIsoDates)))
        assert.isTrue(Result.isSuccess(Schema.decodeUnknownResult(Schema.Array(McpSchema.ContentBlock))(content)))
        assert.isTrue(sdkAccepts(content))
      }
    )

    // MCP content as Effect's schema has it on the wire; `_meta` there is any object, so metas are drawn as JSON
    // objects, and the module's two reserved names are left out (see the module's documentation).
    const Content = Schema.Array(Schema.toEncoded(McpSchema.ContentBlock)).check(Schema.isMinLength(1))
    const Metas = Schema.Array(Schema.JsonObject).check(Schema.isMinLength(1))
    const withJsonMetas = (
      blocks: ReadonlyArray<McpContent>,
      metas: ReadonlyArray<Schema.JsonObject>
    ): ReadonlyArray<McpContent> =>
      blocks.map((block, i) => {
        const meta = (n: number) => {
          const { [noteKey]: _, ...rest } = metas[n % metas.length]!
          return rest
        }
        let out: McpContent = block._meta === undefined ? block : { ...block, _meta: meta(i) }
        if (out.type === "resource") {
          const resource = out.resource
          const uri = resource.uri === inlineUri ? `${inlineUri}:not` : resource.uri
          out = {
            ...out,
            resource: resource._meta === undefined ? { ...resource, uri } : { ...resource, uri, _meta: meta(i + 1) }
          }
        }
        return out
      })

    it.prop("for any valid MCP content, toMcp(fromMcp(content)) gives it back", [Content, Metas], ([blocks, metas]) => {
      const content = withJsonMetas(blocks, metas)
      assert.deepStrictEqual(toMcp(read(content)).content, content)
    })
  })
})
