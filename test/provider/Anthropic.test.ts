import type {
  ContentBlock as SdkContentBlock,
  ImageBlockParam,
  Message,
  MessageParam,
  Tool as SdkTool,
  ToolResultBlockParam,
  ToolUseBlock
} from "@anthropic-ai/sdk/resources/messages"
import { transformJSONSchema } from "@anthropic-ai/sdk/lib/transform-json-schema"
import { assert, describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import { CurrentUser, tools } from "../../examples/tools.ts"
import * as Anthropic from "../../src/provider/Anthropic.ts"
import * as Tool from "../../src/Tool.ts"
import * as ToolDefinition from "../../src/ToolDefinition.ts"
import * as ToolExecutionError from "../../src/ToolExecutionError.ts"
import * as ToolOutput from "../../src/ToolOutput.ts"
import * as ToolResultContent from "../../src/ToolResultContent.ts"
import * as ToolSet from "../../src/ToolSet.ts"
import { Add } from "../support/tools.ts"
import { howRead, pixel, resultOf, strictDefinition, user } from "./fixtures.ts"

const contentOf = (...blocks: Parameters<typeof ToolOutput.content>[0]) =>
  Anthropic.toolResults([resultOf(ToolOutput.content(blocks))])[0]!.content[0]!.content

describe("Anthropic", () => {
  describe("definitions", () => {
    it("renders each tool as name, description and its parameters schema as input_schema, in order", () => {
      const definitions = Result.getOrThrow(Anthropic.definitions(tools))
      const sdk: Array<SdkTool> = definitions
      expect(sdk.map((tool) => tool.name)).toStrictEqual(["add", "get_weather", "render_chart", "transfer_funds"])
      expect(definitions[1]).toStrictEqual({
        name: "get_weather",
        description: "Get the current temperature in a city",
        input_schema: {
          type: "object",
          properties: { city: { type: "string", description: "City name, e.g. Paris" } },
          required: ["city"],
          additionalProperties: false
        }
      })
    })

    it("carries the strict annotation as strict, and leaves it out when the tool does not set it", () => {
      const make = (strict: boolean | undefined) =>
        Tool.make("echo", {
          description: "Echo",
          parameters: Schema.Struct({}),
          annotations: strict === undefined ? {} : { strict },
          call: () => Effect.succeed("ok")
        })
      const strictness = [true, false, undefined].map((strict) =>
        Result.getOrThrow(Anthropic.definitions(ToolSet.make(make(strict))))[0]!
      )
      expect(strictness.map((tool) => tool.strict)).toStrictEqual([true, false, undefined])
      expect("strict" in strictness[2]!).toBe(false)
      expect(strictness[0]).toStrictEqual({
        name: "echo",
        description: "Echo",
        input_schema: { type: "object", properties: {}, required: [], additionalProperties: false },
        strict: true
      })
    })

    it("the strict option makes every tool strict, whatever its annotation", () => {
      const Loose = Tool.make("loose", {
        description: "Loose",
        parameters: Schema.Struct({}),
        annotations: { strict: false },
        call: () => Effect.succeed("ok")
      })
      const definitions = Result.getOrThrow(Anthropic.definitions(ToolSet.add(tools, Loose), { strict: true }))
      expect(definitions.map((tool) => [tool.name, tool.strict])).toStrictEqual([
        ["add", true],
        ["get_weather", true],
        ["render_chart", true],
        ["transfer_funds", true],
        ["loose", true]
      ])
    })

    it("accepts a list of definitions as well as a set", () => {
      expect(Anthropic.definitions(ToolSet.definitions(tools))).toStrictEqual(Anthropic.definitions(tools))
    })
  })

  describe("toolCalls", () => {
    it("reads the tool_use blocks of an SDK message's content, in order, skipping other blocks", () => {
      const content: Array<SdkContentBlock> = [
        { type: "text", text: "Let me check.", citations: null },
        { type: "tool_use", id: "toolu_a", name: "add", input: { left: 1, right: 2 }, caller: { type: "direct" } },
        { type: "tool_use", id: "toolu_b", name: "get_weather", input: { city: "Oslo" }, caller: { type: "direct" } }
      ]
      expect(Anthropic.toolCalls(content)).toStrictEqual([
        { id: "toolu_a", name: "add", arguments: { left: 1, right: 2 } },
        { id: "toolu_b", name: "get_weather", arguments: { city: "Oslo" } }
      ])
    })

    it.effect("passes a string input on as the arguments' JSON text, and any other non-object for invalid_args", () =>
      Effect.gen(function*() {
        const set = ToolSet.make(Add)
        // A stream's `input_json_delta`s join to JSON text: read as the arguments' text, not refused.
        const content = [
          { type: "tool_use", id: "toolu_text", name: "add", input: "{\"left\":1,\"right\":2}" },
          { type: "tool_use", id: "toolu_empty", name: "add", input: "" },
          { type: "tool_use", id: "toolu_bad", name: "add", input: "1 + 2" },
          { type: "tool_use", id: "toolu_number", name: "add", input: 42 }
        ] as unknown as ReadonlyArray<Anthropic.ContentBlock>
        const calls = Anthropic.toolCalls(content)
        expect(calls.map((call) => call.arguments)).toStrictEqual(["{\"left\":1,\"right\":2}", "", "1 + 2", 42])
        const results = yield* ToolSet.executeAll(set, calls)
        // Read as dispatch reads any call's arguments: the text parsed, empty text as `{}`, a number refused.
        expect(howRead(results)).toStrictEqual([
          {
            id: "toolu_text",
            arguments: { left: 1, right: 2 },
            status: "success",
            kind: undefined,
            output: [ToolResultContent.json({ value: 3 })]
          },
          { id: "toolu_empty", arguments: {}, status: "error", kind: "invalid_args", output: undefined },
          { id: "toolu_bad", arguments: "1 + 2", status: "error", kind: "invalid_args", output: undefined },
          { id: "toolu_number", arguments: 42, status: "error", kind: "invalid_args", output: undefined }
        ])
      }))

    it("turns malformed blocks into calls that dispatch reports, and never throws", () => {
      const content = [
        { type: "tool_use", id: "toolu_1", input: { city: "Paris" } },
        { type: "tool_use", id: "toolu_2", name: "get_weather" },
        { type: "tool_use", name: "add", input: "not an object" },
        null,
        { type: "tool_use", id: 7, name: 8, input: [1] }
      ] as unknown as ReadonlyArray<Anthropic.ContentBlock>
      expect(Anthropic.toolCalls(content)).toStrictEqual([
        { id: "toolu_1", name: "", arguments: { city: "Paris" } },
        { id: "toolu_2", name: "get_weather", arguments: {} },
        { id: "tool_use_2", name: "add", arguments: "not an object" },
        { id: "tool_use_4", name: "", arguments: [1] }
      ])
      expect(Anthropic.toolCalls(undefined as unknown as ReadonlyArray<Anthropic.ContentBlock>)).toStrictEqual([])
    })

    it("never gives a block without an id one that another block of the turn already has", () => {
      const content: ReadonlyArray<Anthropic.ContentBlock> = [
        { type: "tool_use", name: "add", input: {} },
        { type: "tool_use", id: "tool_use_0", name: "add", input: {} },
        { type: "tool_use", id: "tool_use_0_1", name: "add", input: {} }
      ]
      expect(Anthropic.toolCalls(content).map((call) => call.id)).toStrictEqual(["tool_use_0_2", "tool_use_0", "tool_use_0_1"])
    })
  })

  describe("toolResults", () => {
    it("renders Text as text and Json as compact JSON text", () => {
      expect(contentOf(ToolResultContent.text("hello"), ToolResultContent.json({ a: [1, { b: null }] })))
        .toStrictEqual([{ type: "text", text: "hello" }, { type: "text", text: "{\"a\":[1,{\"b\":null}]}" }])
    })

    it("renders images of accepted media types as image blocks, base64 or URL", () => {
      const content = contentOf(
        ToolResultContent.imageBase64("R0lGODlhAQABAAAAACw=", "image/gif"),
        ToolResultContent.imageUrl("https://example.com/a.webp", "image/webp"),
        ToolResultContent.imageUrl("https://example.com/b")
      )
      const images: Array<ImageBlockParam> = content as Array<Anthropic.ImageBlock>
      expect(images).toStrictEqual([
        { type: "image", source: { type: "base64", media_type: "image/gif", data: "R0lGODlhAQABAAAAACw=" } },
        { type: "image", source: { type: "url", url: "https://example.com/a.webp" } },
        { type: "image", source: { type: "url", url: "https://example.com/b" } }
      ])
    })

    it("recognizes a base64 image without a media type by its first bytes", () => {
      expect(contentOf(ToolResultContent.imageBase64(pixel))).toStrictEqual([
        { type: "image", source: { type: "base64", media_type: "image/png", data: pixel } }
      ])
    })

    it("replaces images of other media types with a text placeholder naming the media type, never base64 text", () => {
      expect(contentOf(
        ToolResultContent.imageBase64("Qk0eAAAAAAAAABoAAAAMAAAAAQABAAEAGAAAAP8A", "image/bmp"),
        ToolResultContent.imageUrl("https://example.com/c.svg", "image/svg+xml"),
        ToolResultContent.imageBase64("AAAA")
      )).toStrictEqual([
        { type: "text", text: "[image omitted: image/bmp is not supported]" },
        { type: "text", text: "[image omitted: image/svg+xml is not supported]" },
        { type: "text", text: "[image omitted: an unknown media type is not supported]" }
      ])
    })

    it("renders PDFs and base64 plain text as document blocks, other files as placeholders or their URL", () => {
      expect(contentOf(
        ToolResultContent.fileBase64("JVBERi0xLjQK", "application/pdf", "report.pdf"),
        ToolResultContent.fileUrl("https://example.com/r.pdf", "application/pdf"),
        ToolResultContent.fileBase64(btoa("line one\nline two"), "text/plain", "notes.txt"),
        ToolResultContent.fileBase64("UEsDBA==", "application/zip", "bundle.zip"),
        ToolResultContent.fileUrl("https://example.com/data.csv", "text/csv")
      )).toStrictEqual([
        {
          type: "document",
          source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQK" },
          title: "report.pdf"
        },
        { type: "document", source: { type: "url", url: "https://example.com/r.pdf" } },
        {
          type: "document",
          source: { type: "text", media_type: "text/plain", data: "line one\nline two" },
          title: "notes.txt"
        },
        { type: "text", text: "[file bundle.zip omitted: application/zip is not supported]" },
        { type: "text", text: "[file (text/csv): https://example.com/data.csv]" }
      ])
    })

    it("renders audio as a placeholder naming its media type and a resource link as text with its URI", () => {
      expect(contentOf(
        ToolResultContent.audio("UklGRiQAAABXQVZF", "audio/wav"),
        ToolResultContent.resourceLink({ uri: "file:///notes.md", name: "notes", description: "meeting notes" })
      )).toStrictEqual([
        { type: "text", text: "[audio omitted: audio/wav is not supported in tool results]" },
        { type: "text", text: "notes: file:///notes.md (meeting notes)" }
      ])
    })

    it("drops empty text blocks, which the API refuses", () => {
      expect(contentOf(ToolResultContent.text(""), ToolResultContent.text("kept"))).toStrictEqual([
        { type: "text", text: "kept" }
      ])
    })

    it("flags every status but success with is_error, and says denied or skipped in the text", () => {
      const [message] = Anthropic.toolResults([
        resultOf(ToolOutput.text("done"), { status: "success", callId: "t1" }),
        resultOf(ToolOutput.text("it broke"), { status: "error", callId: "t2" }),
        resultOf(ToolOutput.text("not allowed"), { status: "denied", callId: "t3" }),
        resultOf(ToolOutput.one(ToolResultContent.imageBase64(pixel, "image/png")), { status: "skipped", callId: "t4" })
      ])
      const sdk: MessageParam = message!
      expect(sdk).toStrictEqual({
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", is_error: false, content: [{ type: "text", text: "done" }] },
          { type: "tool_result", tool_use_id: "t2", is_error: true, content: [{ type: "text", text: "it broke" }] },
          {
            type: "tool_result",
            tool_use_id: "t3",
            is_error: true,
            content: [{ type: "text", text: "Tool call denied: not allowed" }]
          },
          {
            type: "tool_result",
            tool_use_id: "t4",
            is_error: true,
            content: [
              { type: "text", text: "Tool call skipped: [image omitted: image/png is not supported in an error result]" }
            ]
          }
        ]
      })
    })

    it("sends only text blocks with is_error: the media of a failed result become placeholders", () => {
      const [message] = Anthropic.toolResults([
        resultOf(
          ToolOutput.content([
            ToolResultContent.text("chart failed"),
            ToolResultContent.imageBase64(pixel),
            ToolResultContent.fileBase64(btoa("%PDF-1.4"), "application/pdf", "a.pdf"),
            ToolResultContent.fileBase64(btoa("notes"), "text/plain")
          ]),
          { status: "error", callId: "t1" }
        )
      ])
      expect(message!.content).toStrictEqual([{
        type: "tool_result",
        tool_use_id: "t1",
        is_error: true,
        content: [
          { type: "text", text: "chart failed" },
          { type: "text", text: "[image omitted: image/png is not supported in an error result]" },
          { type: "text", text: "[file a.pdf omitted: application/pdf is not supported in an error result]" },
          { type: "text", text: "[file omitted: text/plain is not supported in an error result]" }
        ]
      }])
    })

    it("drops whitespace-only text blocks, which the API refuses, and falls back to the status words", () => {
      expect(contentOf(ToolResultContent.text(" \n\t"), ToolResultContent.text("kept"))).toStrictEqual([
        { type: "text", text: "kept" }
      ])
      const [message] = Anthropic.toolResults([
        resultOf(ToolOutput.text("  "), { status: "error", callId: "t1" }),
        resultOf(ToolOutput.text("\n"), { status: "success", callId: "t2" })
      ])
      expect(message!.content.map((block) => block.content)).toStrictEqual([
        [{ type: "text", text: "Tool call failed (other)" }],
        [{ type: "text", text: "(empty result)" }]
      ])
    })
  })

  describe("wire types", () => {
    it("produces values the SDK types accept, and takes the SDK's output types without casts", () => {
      expectTypeOf<Anthropic.Tool>().toExtend<SdkTool>()
      expectTypeOf<Anthropic.ToolResultBlock>().toExtend<ToolResultBlockParam>()
      expectTypeOf<Anthropic.ImageBlock>().toExtend<ImageBlockParam>()
      expectTypeOf<Anthropic.UserMessage>().toExtend<MessageParam>()
      expectTypeOf<Message["content"]>().toExtend<Parameters<typeof Anthropic.toolCalls>[0]>()
      expectTypeOf<Array<ToolUseBlock>>().toExtend<Parameters<typeof Anthropic.toolCalls>[0]>()
    })
  })

  describe("transcript", () => {
    it.effect("answers a turn of parallel calls with one user message of tool_result blocks", () =>
      Effect.gen(function*() {
        const request: Array<MessageParam> = [{ role: "user", content: "Weather in Paris, pay Bob, and chart 1,3,2." }]
        // What the API returns for a turn of parallel calls: text, then the tool_use blocks.
        const response: Message = {
          id: "msg_01",
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-5",
          container: null,
          stop_reason: "tool_use",
          stop_sequence: null,
          stop_details: null,
          diagnostics: null,
          usage: null as unknown as Message["usage"],
          content: [
            { type: "text", text: "I'll do all of these at once.", citations: null },
            { type: "tool_use", id: "toolu_w", name: "get_weather", input: { city: "Paris" }, caller: { type: "direct" } },
            {
              type: "tool_use",
              id: "toolu_t",
              name: "transfer_funds",
              input: { to: "Bob", amount: "lots" },
              caller: { type: "direct" }
            },
            { type: "tool_use", id: "toolu_s", name: "get_stock_price", input: { symbol: "ACME" }, caller: { type: "direct" } },
            {
              type: "tool_use",
              id: "toolu_c",
              name: "render_chart",
              input: { title: "Series", values: [1, 3, 2] },
              caller: { type: "direct" }
            },
            {
              type: "tool_use",
              id: "toolu_r",
              name: "transfer_funds",
              input: { to: "Eve", amount: 50000 },
              caller: { type: "direct" }
            }
          ]
        }

        const calls = Anthropic.toolCalls(response.content)
        const results = yield* ToolSet.executeAll(tools, calls).pipe(Effect.provideService(CurrentUser, user))
        const next: Array<MessageParam> = [
          ...request,
          { role: "assistant", content: response.content },
          ...Anthropic.toolResults(results)
        ]

        expect(next[2]).toStrictEqual({
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_w",
              is_error: false,
              content: [{ type: "text", text: "{\"city\":\"Paris\",\"temperature\":18,\"unit\":\"C\"}" }]
            },
            {
              type: "tool_result",
              tool_use_id: "toolu_t",
              is_error: true,
              content: [{ type: "text", text: "tool arguments did not match the schema:\n- $.amount: Expected number" }]
            },
            {
              type: "tool_result",
              tool_use_id: "toolu_s",
              is_error: true,
              content: [{
                type: "text",
                text:
                  "tool `get_stock_price` not found; available tools: `add`, `get_weather`, `render_chart`, `transfer_funds`"
              }]
            },
            {
              type: "tool_result",
              tool_use_id: "toolu_c",
              is_error: false,
              content: [
                { type: "text", text: "Series: 3 points, max 3" },
                { type: "image", source: { type: "base64", media_type: "image/png", data: pixel } }
              ]
            },
            {
              type: "tool_result",
              tool_use_id: "toolu_r",
              is_error: true,
              content: [{ type: "text", text: "Tool call denied: transfers over 10000 need a human's approval" }]
            }
          ]
        })
        expect(next[1]).toStrictEqual({ role: "assistant", content: response.content })
      }))
  })

  describe("strict tool use", () => {
    const definitionOf = strictDefinition

    it("compiles a strict schema into Anthropic's subset: closed objects, unsupported constraints removed", () => {
      const out = Anthropic.definitions([definitionOf({
        type: "object",
        properties: {
          name: { type: "string", minLength: 1, maxLength: 10, format: "regex", pattern: "^a" },
          count: { type: "integer", minimum: 0, maximum: 9, multipleOf: 1 },
          tags: { type: "array", items: { type: "string" }, minItems: 2, maxItems: 5, uniqueItems: true },
          one: { type: "array", items: { type: "object", properties: { at: { type: "string", format: "date" } } }, minItems: 1 },
          choice: { anyOf: [{ type: "object", properties: {} }, { type: "null" }] },
          node: { $ref: "#/$defs/Leaf" }
        },
        required: ["name"],
        $defs: { Leaf: { type: "object", properties: { v: { type: "number", exclusiveMinimum: 0 } }, required: ["v"] } }
      })])
      assert(Result.isSuccess(out))
      expect(out.success).toStrictEqual([{
        name: "t",
        description: "T",
        strict: true,
        input_schema: {
          type: "object",
          properties: {
            name: { type: "string", pattern: "^a" },
            count: { type: "integer" },
            tags: { type: "array", items: { type: "string" } },
            one: {
              type: "array",
              items: { type: "object", properties: { at: { type: "string", format: "date" } }, additionalProperties: false },
              minItems: 1
            },
            choice: { anyOf: [{ type: "object", properties: {}, additionalProperties: false }, { type: "null" }] },
            node: { $ref: "#/$defs/Leaf" }
          },
          // Optional properties stay optional: Anthropic does not require every property, unlike OpenAI.
          required: ["name"],
          additionalProperties: false,
          $defs: {
            Leaf: { type: "object", properties: { v: { type: "number" } }, required: ["v"], additionalProperties: false }
          }
        }
      }])
    })

    it("refuses draft-07 `dependencies`, offered as 2020-12's `dependentRequired`, as it refuses that", () => {
      const card = { card: { type: "string" }, cvv: { type: "string" } }
      const refusalOf = (parameters: Record<string, unknown>) => {
        const out = Anthropic.definitions([definitionOf(parameters)])
        assert(Result.isFailure(out) && out.failure._tag === "StrictSchemaError")
        return [out.failure.path, out.failure.keyword]
      }
      expect([
        refusalOf({
          $schema: "http://json-schema.org/draft-07/schema#",
          type: "object",
          properties: card,
          dependencies: { card: ["cvv"] }
        }),
        refusalOf({ type: "object", properties: card, dependentRequired: { card: ["cvv"] } })
      ]).toStrictEqual([["/", "dependentRequired"], ["/", "dependentRequired"]])
    })

    it("refuses a required key that properties does not declare: with every object closed, it could never be sent", () => {
      const out = Anthropic.definitions([definitionOf({
        type: "object",
        properties: { a: { type: "string" } },
        required: ["a", "b"]
      })])
      assert(Result.isFailure(out) && out.failure._tag === "StrictSchemaError")
      expect([out.failure.path, out.failure.keyword]).toStrictEqual(["/", "required"])
      assert.include(out.failure.message, "`required` names `b`, which `properties` does not declare")
    })

    it("refuses an object of keys it does not describe below the top, which closed could only be {}", () => {
      const open = Anthropic.definitions([definitionOf({ type: "object", properties: { meta: { type: "object" } } })])
      assert(Result.isFailure(open) && open.failure._tag === "StrictSchemaError")
      expect([open.failure.path, open.failure.keyword]).toStrictEqual(["/properties/meta", "properties"])
      expect(open.failure.message).toContain("an object of keys it does not describe cannot be expressed")
      // The parameters without properties are a tool of no arguments; an empty object said closed is one.
      for (const parameters of [
        { type: "object" },
        { type: "object", properties: { meta: { type: "object", additionalProperties: false } } },
        { type: "object", properties: { meta: { type: "object", properties: {} } } }
      ]) {
        assert(Result.isSuccess(Anthropic.definitions([definitionOf(parameters)])), JSON.stringify(parameters))
      }
    })

    it("refuses records, recursion, outside references and enums of objects with StrictSchemaError", () => {
      const failureOf = (parameters: Record<string, unknown>) => {
        const out = Anthropic.definitions([definitionOf(parameters)])
        assert(Result.isFailure(out) && out.failure._tag === "StrictSchemaError")
        return [out.failure.path, out.failure.keyword, out.failure.message]
      }
      expect([
        failureOf({ type: "object", properties: { m: { type: "object", additionalProperties: { type: "string" } } } }),
        failureOf({
          type: "object",
          properties: { tree: { $ref: "#/$defs/Tree" } },
          $defs: { Tree: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Tree" } } } } }
        }),
        failureOf({ type: "object", properties: { self: { $ref: "#" } } }),
        failureOf({ type: "object", properties: { x: { $ref: "https://example.com/x.json" } } }),
        failureOf({ type: "object", properties: { e: { enum: [{ a: 1 }] } } })
      ]).toStrictEqual([
        [
          "/properties/m",
          "additionalProperties",
          "tool `t` cannot use Anthropic strict tool use: objects with arbitrary keys (records, maps) are not supported (at /properties/m)"
        ],
        ["/$defs/Tree", "$ref", "tool `t` cannot use Anthropic strict tool use: recursive schemas are not supported (at /$defs/Tree)"],
        [
          "/properties/self",
          "$ref",
          "tool `t` cannot use Anthropic strict tool use: recursive schemas are not supported (at /properties/self)"
        ],
        [
          "/properties/x",
          "$ref",
          "tool `t` cannot use Anthropic strict tool use: only references into the schema's own `$defs` are supported (at /properties/x)"
        ],
        [
          "/properties/e",
          "enum",
          "tool `t` cannot use Anthropic strict tool use: enums of objects or arrays are not supported (at /properties/e)"
        ]
      ])
    })

    it("refuses tuples and the other keywords that change the shape of the data, as OpenAI's strict mode does", () => {
      const Pair = Tool.make("pair", {
        description: "Takes a pair",
        parameters: Schema.Struct({ pair: Schema.Tuple([Schema.String, Schema.Int]) }),
        annotations: { strict: true },
        call: () => Effect.succeed("ok")
      })
      expect(Anthropic.definitions(ToolSet.make(Pair))).toStrictEqual(Result.fail(new Anthropic.StrictSchemaError({
        toolName: "pair",
        path: "/properties/pair",
        keyword: "prefixItems",
        message:
          "tool `pair` cannot use Anthropic strict tool use: `prefixItems` is not supported in strict tool use (at /properties/pair)"
      })))
      const keywordRefused = (node: Record<string, unknown>) => {
        const out = Anthropic.definitions([definitionOf({ type: "object", properties: { x: node } })])
        assert(Result.isFailure(out) && out.failure._tag === "StrictSchemaError")
        return [out.failure.path, out.failure.keyword]
      }
      expect([
        keywordRefused({ type: "string", not: { const: "a" } }),
        keywordRefused({ type: "string", if: { const: "a" }, then: { minLength: 2 } }),
        keywordRefused({ type: "object", patternProperties: { "^a": { type: "string" } } }),
        keywordRefused({ type: "object", propertyNames: { pattern: "^a" } }),
        keywordRefused({ type: "object", properties: { a: { type: "string" } }, dependentRequired: { a: ["b"] } }),
        keywordRefused({ type: "object", dependentSchemas: { a: { required: ["b"] } } }),
        keywordRefused({ type: "array", items: { type: "string" }, contains: { const: "a" } }),
        keywordRefused({ type: "object", unevaluatedProperties: false }),
        keywordRefused({ type: "array", unevaluatedItems: false })
      ]).toStrictEqual([
        ["/properties/x", "not"],
        ["/properties/x", "if"],
        ["/properties/x", "patternProperties"],
        ["/properties/x", "propertyNames"],
        ["/properties/x", "dependentRequired"],
        ["/properties/x", "dependentSchemas"],
        ["/properties/x", "contains"],
        ["/properties/x", "unevaluatedProperties"],
        ["/properties/x", "unevaluatedItems"]
      ])
    })

    it("refuses nodes without a type, as the SDK's own transform does (Schema.Unknown, Schema.Json)", () => {
      const Any = Tool.make("any", {
        description: "d",
        parameters: Schema.Struct({ value: Schema.Unknown, json: Schema.Json }),
        annotations: { strict: true },
        call: () => Effect.succeed("ok")
      })
      expect(() => transformJSONSchema({ type: "object", properties: { value: {} } })).toThrow(/must have a type/)
      expect(Anthropic.definitions(ToolSet.make(Any))).toStrictEqual(Result.fail(new Anthropic.StrictSchemaError({
        toolName: "any",
        path: "/properties/value",
        keyword: "type",
        message:
          "tool `any` cannot use Anthropic strict tool use: a schema without a type (any JSON value) cannot be expressed in strict tool use (at /properties/value)"
      })))
    })

    it("sends oneOf as anyOf, as the SDK's own transform does", () => {
      const parameters = {
        type: "object",
        properties: { o: { oneOf: [{ type: "string" }, { type: "integer" }] } },
        required: ["o"]
      }
      const out = Anthropic.definitions([definitionOf(parameters)])
      assert(Result.isSuccess(out))
      expect(out.success[0]!.input_schema).toStrictEqual(transformJSONSchema(parameters))
      expect(out.success[0]!.input_schema).toStrictEqual({
        type: "object",
        properties: { o: { anyOf: [{ type: "string" }, { type: "integer" }] } },
        required: ["o"],
        additionalProperties: false
      })
    })

    it("leaves a tool that is not strict as it is, records included", () => {
      const parameters = { type: "object", properties: { m: { type: "object", additionalProperties: { type: "string" } } } }
      expect(Anthropic.definitions([ToolDefinition.make({ ...definitionOf(parameters), annotations: {} })])).toStrictEqual(
        Result.succeed([{ name: "t", description: "T", input_schema: parameters }])
      )
    })
  })

  describe("empty output", () => {
    it("a result with nothing to show carries its status words, never an empty content list", () => {
      const empty = ToolOutput.text("")
      const [message] = Anthropic.toolResults([
        resultOf(empty, { status: "error", callId: "t1", error: ToolExecutionError.other("") }),
        resultOf(empty, { status: "denied", callId: "t2" }),
        resultOf(empty, { status: "skipped", callId: "t3" }),
        resultOf(empty, { status: "success", callId: "t4" })
      ])
      expect(message!.content.map((block) => [block.tool_use_id, block.is_error, block.content])).toStrictEqual([
        ["t1", true, [{ type: "text", text: "Tool call failed (other)" }]],
        ["t2", true, [{ type: "text", text: "Tool call denied" }]],
        ["t3", true, [{ type: "text", text: "Tool call skipped" }]],
        ["t4", false, [{ type: "text", text: "(empty result)" }]]
      ])
    })
  })

  it("refuses SVG and other image types the API does not take, by URL or inline", () => {
    expect(contentOf(
      ToolResultContent.imageBase64("PHN2Zz48L3N2Zz4=", "image/svg+xml"),
      ToolResultContent.imageUrl("https://example.com/a.svg", "image/svg+xml")
    )).toStrictEqual([
      { type: "text", text: "[image omitted: image/svg+xml is not supported]" },
      { type: "text", text: "[image omitted: image/svg+xml is not supported]" }
    ])
  })
})
