import { assert, describe, it } from "@effect/vitest"
import { Equal, Exit, Hash, Schema } from "effect"
import { ToolResultContent } from "../src/index.ts"

const encode = Schema.encodeUnknownSync(ToolResultContent.schema)
const decode = Schema.decodeUnknownExit(ToolResultContent.schema)

describe("ToolResultContent", () => {
  describe("constructors", () => {
    it("text and json build Text and Json blocks", () => {
      const text = ToolResultContent.text("hello")
      assert.instanceOf(text, ToolResultContent.Text)
      assert.deepStrictEqual({ ...text }, { _tag: "Text", text: "hello" })
      const json = ToolResultContent.json({ a: [1, null, "x"] })
      assert.instanceOf(json, ToolResultContent.Json)
      assert.deepStrictEqual({ ...json }, { _tag: "Json", value: { a: [1, null, "x"] } })
    })

    it("text and json make the very blocks their classes' constructors make", () => {
      const pairs = [
        [ToolResultContent.text("hello"), new ToolResultContent.Text({ text: "hello" })],
        [ToolResultContent.json({ a: [1] }), new ToolResultContent.Json({ value: { a: [1] } })]
      ] as const
      for (const [made, constructed] of pairs) {
        assert.strictEqual(Object.getPrototypeOf(made), Object.getPrototypeOf(constructed))
        assert.deepStrictEqual(Reflect.ownKeys(made), Reflect.ownKeys(constructed))
        for (const key of Reflect.ownKeys(made)) {
          assert.deepStrictEqual(
            Object.getOwnPropertyDescriptor(made, key),
            Object.getOwnPropertyDescriptor(constructed, key)
          )
        }
        assert.isTrue(Equal.equals(made, constructed))
        assert.strictEqual(Hash.hash(made), Hash.hash(constructed))
      }
    })

    it("imageBase64 and imageUrl build Image blocks with their source, media type and detail", () => {
      const inline = ToolResultContent.imageBase64("AAAA", "image/png", "low")
      assert.instanceOf(inline, ToolResultContent.Image)
      assert.deepStrictEqual(
        [inline.source, inline.mediaType, inline.detail],
        [{ _tag: "Base64", data: "AAAA" }, "image/png", "low"]
      )
      const linked = ToolResultContent.imageUrl("https://example.com/cat.jpg")
      assert.instanceOf(linked, ToolResultContent.Image)
      assert.deepStrictEqual(
        [linked.source, linked.mediaType, linked.detail],
        [{ _tag: "Url", url: "https://example.com/cat.jpg" }, undefined, undefined]
      )
    })

    it("audio builds an Audio block", () => {
      const audio = ToolResultContent.audio("UklGRg==", "audio/wav")
      assert.instanceOf(audio, ToolResultContent.Audio)
      assert.deepStrictEqual({ ...audio }, { _tag: "Audio", data: "UklGRg==", mediaType: "audio/wav" })
    })

    it("fileBase64 and fileUrl build File blocks with their source, media type and filename", () => {
      const inline = ToolResultContent.fileBase64("JVBERi0=", "application/pdf", "q3.pdf")
      assert.instanceOf(inline, ToolResultContent.File)
      assert.deepStrictEqual(
        [inline.source, inline.mediaType, inline.filename],
        [{ _tag: "Base64", data: "JVBERi0=" }, "application/pdf", "q3.pdf"]
      )
      const linked = ToolResultContent.fileUrl("https://example.com/q3.pdf", "application/pdf")
      assert.instanceOf(linked, ToolResultContent.File)
      assert.deepStrictEqual(
        [linked.source, linked.mediaType, linked.filename],
        [{ _tag: "Url", url: "https://example.com/q3.pdf" }, "application/pdf", undefined]
      )
    })

    it("resourceLink builds a ResourceLink block", () => {
      const link = ToolResultContent.resourceLink({
        uri: "file:///reports/q3.pdf",
        name: "q3 report",
        mediaType: "application/pdf",
        description: "Quarterly report"
      })
      assert.instanceOf(link, ToolResultContent.ResourceLink)
      assert.deepStrictEqual(
        [link._tag, link.uri, link.name, link.mediaType, link.description],
        ["ResourceLink", "file:///reports/q3.pdf", "q3 report", "application/pdf", "Quarterly report"]
      )
    })
  })

  describe("isToolResultContent", () => {
    it("is true for every block kind", () => {
      const blocks = [
        ToolResultContent.text("a"),
        ToolResultContent.json(1),
        ToolResultContent.imageUrl("https://example.com/a.png"),
        ToolResultContent.audio("AA==", "audio/mp3"),
        ToolResultContent.fileUrl("https://example.com/a.pdf", "application/pdf"),
        ToolResultContent.resourceLink({ uri: "file:///a", name: "a" })
      ]
      assert.deepStrictEqual(blocks.map(ToolResultContent.isToolResultContent), [true, true, true, true, true, true])
    })

    it("is false for plain objects shaped like blocks and for non-objects", () => {
      const lookAlikes: ReadonlyArray<unknown> = [
        { _tag: "Text", text: "a" },
        { type: "text", text: "a" },
        { _tag: "Json", value: 1 },
        { _tag: "Image", source: { _tag: "Url", url: "https://example.com/a.png" } },
        { ...ToolResultContent.text("spread loses the class") },
        JSON.parse(JSON.stringify(ToolResultContent.text("a"))),
        "text",
        null,
        undefined,
        [ToolResultContent.text("an array is not a block")]
      ]
      assert.deepStrictEqual(lookAlikes.map(ToolResultContent.isToolResultContent), lookAlikes.map(() => false))
    })
  })

  describe("schema", () => {
    const blocks: ReadonlyArray<readonly [ToolResultContent.ToolResultContent, unknown]> = [
      [ToolResultContent.text("hello"), { _tag: "Text", text: "hello" }],
      [ToolResultContent.json({ a: [1, null, { b: "c" }] }), { _tag: "Json", value: { a: [1, null, { b: "c" }] } }],
      [
        ToolResultContent.imageBase64("AAAA", "image/png", "high"),
        { _tag: "Image", source: { _tag: "Base64", data: "AAAA" }, mediaType: "image/png", detail: "high" }
      ],
      [
        ToolResultContent.imageUrl("https://example.com/cat.jpg"),
        { _tag: "Image", source: { _tag: "Url", url: "https://example.com/cat.jpg" } }
      ],
      [ToolResultContent.audio("UklGRg==", "audio/wav"), { _tag: "Audio", data: "UklGRg==", mediaType: "audio/wav" }],
      [
        ToolResultContent.fileBase64("JVBERi0=", "application/pdf", "q3.pdf"),
        { _tag: "File", source: { _tag: "Base64", data: "JVBERi0=" }, mediaType: "application/pdf", filename: "q3.pdf" }
      ],
      [
        ToolResultContent.fileUrl("https://example.com/q3.pdf", "application/pdf"),
        { _tag: "File", source: { _tag: "Url", url: "https://example.com/q3.pdf" }, mediaType: "application/pdf" }
      ],
      [
        ToolResultContent.resourceLink({ uri: "file:///a", name: "a", mediaType: "text/plain", description: "d" }),
        { _tag: "ResourceLink", uri: "file:///a", name: "a", mediaType: "text/plain", description: "d" }
      ]
    ]

    for (const [block, wire] of blocks) {
      it(`round-trips a ${block._tag} block through its encoded form`, () => {
        const encoded = encode(block)
        assert.isFalse(ToolResultContent.isToolResultContent(encoded))
        // Absent optional fields may encode as absent or as undefined; JSON text cannot tell them apart.
        assert.deepStrictEqual(JSON.parse(JSON.stringify(encoded)), wire)
        const decoded = decode(encoded)
        assert.isTrue(Exit.isSuccess(decoded))
        if (Exit.isSuccess(decoded)) {
          assert.instanceOf(decoded.value, block.constructor as new(...args: never) => unknown)
          assert.deepStrictEqual(decoded.value, block)
        }
        // The JSON text form decodes too: what a host stores and reads back.
        const fromText = decode(JSON.parse(JSON.stringify(encoded)))
        assert.isTrue(Exit.isSuccess(fromText))
        if (Exit.isSuccess(fromText)) assert.deepStrictEqual(JSON.stringify(encode(fromText.value)), JSON.stringify(encoded))
      })
    }

    describe("the fields that keep what MCP content carries", () => {
      const annotations: ToolResultContent.Annotations = {
        audience: ["user", "assistant"],
        priority: 0.25,
        lastModified: "2025-01-01T00:00:00Z"
      }
      const meta = { "example.com/trace": { id: "t1", n: [1, null] } }
      const extended: ReadonlyArray<readonly [ToolResultContent.ToolResultContent, unknown]> = [
        [
          new ToolResultContent.Text({
            text: "# A",
            uri: "file:///a.md",
            mediaType: "text/markdown",
            resourceMeta: { etag: "1" },
            annotations: { priority: 1 },
            meta
          }),
          {
            _tag: "Text",
            text: "# A",
            mediaType: "text/markdown",
            uri: "file:///a.md",
            resourceMeta: { etag: "1" },
            annotations: { priority: 1 },
            meta
          }
        ],
        [
          new ToolResultContent.Json({ value: [1], annotations, meta }),
          { _tag: "Json", value: [1], annotations, meta }
        ],
        [
          new ToolResultContent.Image({ source: { _tag: "Base64", data: "AAAA" }, uri: "file:///a.png", meta }),
          { _tag: "Image", source: { _tag: "Base64", data: "AAAA" }, uri: "file:///a.png", meta }
        ],
        [
          new ToolResultContent.Audio({ data: "UklGRg==", mediaType: "audio/wav", uri: "file:///a.wav", annotations }),
          { _tag: "Audio", data: "UklGRg==", mediaType: "audio/wav", uri: "file:///a.wav", annotations }
        ],
        [
          new ToolResultContent.File({
            source: { _tag: "Base64", data: "JVBERi0=" },
            mediaType: "application/pdf",
            uri: "file:///q3.pdf",
            resourceMeta: {}
          }),
          {
            _tag: "File",
            source: { _tag: "Base64", data: "JVBERi0=" },
            mediaType: "application/pdf",
            uri: "file:///q3.pdf",
            resourceMeta: {}
          }
        ],
        [
          ToolResultContent.resourceLink({
            uri: "file:///a",
            name: "a",
            title: "The A",
            size: 42,
            icons: [{ src: "https://example.com/a.svg", mimeType: "image/svg+xml", sizes: ["any"], theme: "dark" }],
            annotations: { audience: ["user"] },
            meta: {}
          }),
          {
            _tag: "ResourceLink",
            uri: "file:///a",
            name: "a",
            title: "The A",
            size: 42,
            icons: [{ src: "https://example.com/a.svg", mimeType: "image/svg+xml", sizes: ["any"], theme: "dark" }],
            annotations: { audience: ["user"] },
            meta: {}
          }
        ]
      ]
      for (const [block, wire] of extended) {
        it(`a ${block._tag} block with them encodes them and decodes them back`, () => {
          const encoded = encode(block)
          assert.deepStrictEqual(JSON.parse(JSON.stringify(encoded)), wire)
          const decoded = decode(JSON.parse(JSON.stringify(encoded)))
          assert.isTrue(Exit.isSuccess(decoded))
          if (Exit.isSuccess(decoded)) {
            assert.instanceOf(decoded.value, block.constructor as new(...args: never) => unknown)
            assert.deepStrictEqual(decoded.value, block)
          }
        })
      }

      it("rejects them when malformed", () => {
        const malformed: ReadonlyArray<unknown> = [
          { _tag: "Text", text: "a", annotations: { priority: 2 } },
          { _tag: "Text", text: "a", annotations: { audience: ["bot"] } },
          { _tag: "Text", text: "a", annotations: { lastModified: 0 } },
          { _tag: "Text", text: "a", meta: [] },
          { _tag: "Text", text: "a", meta: { n: Number.NaN } },
          { _tag: "Text", text: "a", uri: 1 },
          { _tag: "Image", source: { _tag: "Base64", data: "AA==" }, resourceMeta: "m" },
          { _tag: "ResourceLink", uri: "u", name: "n", size: 1.5 },
          { _tag: "ResourceLink", uri: "u", name: "n", icons: [{ mimeType: "image/png" }] },
          { _tag: "ResourceLink", uri: "u", name: "n", icons: [{ src: "s", theme: "blue" }] }
        ]
        assert.deepStrictEqual(
          malformed.map((value) => Exit.isFailure(decode(value))),
          malformed.map(() => true)
        )
      })

      it("are absent from the blocks the constructors build", () => {
        assert.deepStrictEqual({ ...ToolResultContent.text("a") }, { _tag: "Text", text: "a" })
        assert.deepStrictEqual(
          { ...ToolResultContent.resourceLink({ uri: "u", name: "n" }) },
          { _tag: "ResourceLink", uri: "u", name: "n" }
        )
      })
    })

    it("rejects malformed objects", () => {
      const malformed: ReadonlyArray<unknown> = [
        { _tag: "Text" },
        { _tag: "Text", text: 1 },
        { _tag: "Image", source: { _tag: "Ftp", path: "/a.png" } },
        { _tag: "Image", source: { _tag: "Url", url: "https://example.com/a.png" }, detail: "ultra" },
        { _tag: "Audio", data: "AA==" },
        { _tag: "File", source: { _tag: "Base64", data: "AA==" } },
        { _tag: "ResourceLink", uri: "file:///a" },
        { _tag: "Video", url: "https://example.com/a.mp4" },
        { type: "text", text: "a" },
        "a",
        null
      ]
      assert.deepStrictEqual(
        malformed.map((value) => Exit.isFailure(decode(value))),
        malformed.map(() => true)
      )
    })

    it("each block Schema round-trips its own block and rejects every other kind", () => {
      const samples = {
        Text: ToolResultContent.text("hello"),
        Json: ToolResultContent.json({ a: 1 }),
        Image: ToolResultContent.imageUrl("https://example.com/cat.jpg", "image/jpeg"),
        Audio: ToolResultContent.audio("UklGRg==", "audio/wav"),
        File: ToolResultContent.fileBase64("JVBERi0=", "application/pdf"),
        ResourceLink: ToolResultContent.resourceLink({ uri: "file:///a", name: "a" })
      } as const
      const schemas = {
        Text: ToolResultContent.TextBlockSchema,
        Json: ToolResultContent.JsonBlockSchema,
        Image: ToolResultContent.ImageBlockSchema,
        Audio: ToolResultContent.AudioBlockSchema,
        File: ToolResultContent.FileBlockSchema,
        ResourceLink: ToolResultContent.ResourceLinkBlockSchema
      } as const
      const tags = Object.keys(samples) as ReadonlyArray<keyof typeof samples>
      for (const tag of tags) {
        const blockSchema: Schema.Codec<unknown, unknown> = schemas[tag]
        const decodeBlock = Schema.decodeUnknownExit(blockSchema)
        const encoded = Schema.encodeUnknownSync(blockSchema)(samples[tag])
        assert.deepStrictEqual(JSON.stringify(encoded), JSON.stringify(encode(samples[tag])), tag)
        const decoded = decodeBlock(encoded)
        assert.isTrue(Exit.isSuccess(decoded), tag)
        if (Exit.isSuccess(decoded)) {
          assert.instanceOf(decoded.value, samples[tag].constructor as new(...args: never) => unknown, tag)
          assert.deepStrictEqual(decoded.value, samples[tag], tag)
        }
        assert.deepStrictEqual(
          tags.filter((other) => other !== tag).map((other) => Exit.isFailure(decodeBlock(encode(samples[other])))),
          tags.filter((other) => other !== tag).map(() => true),
          tag
        )
      }
    })

    it.prop(
      "every block round-trips through its block Schema and JSON text, whatever its fields hold",
      [Schema.String, Schema.String, Schema.Json],
      ([first, second, value]) => {
        const cases: ReadonlyArray<readonly [ToolResultContent.ToolResultContent, Schema.Codec<unknown, unknown>]> = [
          [ToolResultContent.text(first), ToolResultContent.TextBlockSchema],
          [ToolResultContent.json(value), ToolResultContent.JsonBlockSchema],
          [ToolResultContent.imageBase64(first, second, "low"), ToolResultContent.ImageBlockSchema],
          [ToolResultContent.imageUrl(first), ToolResultContent.ImageBlockSchema],
          [ToolResultContent.audio(first, second), ToolResultContent.AudioBlockSchema],
          [ToolResultContent.fileBase64(first, second, first), ToolResultContent.FileBlockSchema],
          [ToolResultContent.fileUrl(first, second), ToolResultContent.FileBlockSchema],
          [
            ToolResultContent.resourceLink({ uri: first, name: second, description: first }),
            ToolResultContent.ResourceLinkBlockSchema
          ]
        ]
        for (const [block, blockSchema] of cases) {
          const text = JSON.stringify(Schema.encodeUnknownSync(blockSchema)(block))
          const decoded = Schema.decodeUnknownSync(blockSchema)(JSON.parse(text))
          assert.instanceOf(decoded, block.constructor as new(...args: never) => unknown)
          // Compared as JSON text: a Json block's -0 comes back as 0, as JSON has it.
          assert.strictEqual(JSON.stringify(Schema.encodeUnknownSync(blockSchema)(decoded)), text)
        }
      }
    )

    it("no block Schema is named JsonSchema, the name of ToolDefinition's JSON Schema type", () => {
      // @ts-expect-error the Json block's Schema is JsonBlockSchema
      assert.isUndefined(ToolResultContent.JsonSchema)
      assert.deepStrictEqual(
        Object.keys(ToolResultContent).filter((name) => name.endsWith("Schema")).sort(),
        [
          "AudioBlockSchema",
          "FileBlockSchema",
          "ImageBlockSchema",
          "JsonBlockSchema",
          "ResourceLinkBlockSchema",
          "TextBlockSchema"
        ]
      )
    })

    it("rejects a Json block whose value is not JSON", () => {
      assert.isTrue(Exit.isFailure(decode({ _tag: "Json", value: new Date(0) })))
      assert.isTrue(Exit.isFailure(decode({ _tag: "Json", value: { n: Number.NaN } })))
    })
  })
})
