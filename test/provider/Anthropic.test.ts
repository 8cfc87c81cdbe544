import type {
  ContentBlock as SdkContentBlock,
  ImageBlockParam,
  Message,
  MessageParam,
  Tool as SdkTool,
  ToolResultBlockParam,
  ToolUseBlock
} from "@anthropic-ai/sdk/resources/messages"
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { CurrentUser, tools } from "../../examples/tools.ts"
import * as Anthropic from "../../src/provider/Anthropic.ts"
import * as Tool from "../../src/Tool.ts"
import * as ToolOutput from "../../src/ToolOutput.ts"
import * as ToolResultContent from "../../src/ToolResultContent.ts"
import * as ToolSet from "../../src/ToolSet.ts"
import { pixel, resultOf, user } from "./fixtures.ts"

const contentOf = (...blocks: Parameters<typeof ToolOutput.content>[0]) =>
  Anthropic.toolResults([resultOf(ToolOutput.content(blocks))]).content[0]!.content

describe("Anthropic", () => {
  describe("definitions", () => {
    it("renders each tool as name, description and its parameters schema as input_schema, in order", () => {
      const definitions = Anthropic.definitions(tools)
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
        Anthropic.definitions(ToolSet.make(make(strict)))[0]!
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
      const definitions = Anthropic.definitions(ToolSet.add(tools, Loose), { strict: true })
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
      const message = Anthropic.toolResults([
        resultOf(ToolOutput.text("done"), { status: "success", callId: "t1" }),
        resultOf(ToolOutput.text("it broke"), { status: "error", callId: "t2" }),
        resultOf(ToolOutput.text("not allowed"), { status: "denied", callId: "t3" }),
        resultOf(ToolOutput.one(ToolResultContent.imageBase64(pixel, "image/png")), { status: "skipped", callId: "t4" })
      ])
      const sdk: MessageParam = message
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
              { type: "text", text: "Tool call skipped:" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: pixel } }
            ]
          }
        ]
      })
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
          Anthropic.toolResults(results)
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
})
