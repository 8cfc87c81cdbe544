import { assert, describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessage,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolMessageParam
} from "openai/resources/chat/completions"
import { CurrentUser, tools } from "../../examples/tools.ts"
import * as OpenAiChat from "../../src/provider/OpenAiChat.ts"
import * as Tool from "../../src/Tool.ts"
import * as ToolDefinition from "../../src/ToolDefinition.ts"
import * as ToolExecutionError from "../../src/ToolExecutionError.ts"
import * as ToolOutput from "../../src/ToolOutput.ts"
import * as ToolResult from "../../src/ToolResult.ts"
import * as ToolResultContent from "../../src/ToolResultContent.ts"
import * as ToolSet from "../../src/ToolSet.ts"
import { pixel, resultOf, Search, strictDefinition, user } from "./fixtures.ts"

describe("OpenAiChat.definitions", () => {
  it("renders every tool as a function tool, in order, with its definition's schema and no strict flag", () => {
    const defs = ToolSet.definitions(tools)
    const out = Result.getOrThrow(OpenAiChat.definitions(tools))
    expect(out).toStrictEqual(defs.map((def) => ({
      type: "function",
      function: { name: def.name, description: def.description, parameters: def.parameters }
    })))
  })

  it("the strict annotation makes one tool strict, with optional properties required and nullable", () => {
    const out = Result.getOrThrow(OpenAiChat.definitions(ToolSet.make(tools.tools[0]!, Search)))
    expect(out).toStrictEqual([
      {
        type: "function",
        function: {
          name: "add",
          description: "Add two integers",
          parameters: ToolDefinition.fromTool(tools.tools[0]!).parameters
        }
      },
      {
        type: "function",
        function: {
          name: "search",
          description: "Search the catalogue",
          parameters: {
            type: "object",
            properties: { query: { type: "string" }, limit: { type: ["integer", "null"] } },
            required: ["query", "limit"],
            additionalProperties: false
          },
          strict: true
        }
      }
    ])
  })

  it("the strict option makes every tool strict", () => {
    const out = Result.getOrThrow(OpenAiChat.definitions(tools, { strict: true }))
    expect(out.map((tool) => tool.function.strict)).toStrictEqual([true, true, true, true])
  })

  it("a schema strict mode cannot express fails with StrictSchemaError at definition time", () => {
    const Tags = Tool.make("tags", {
      description: "Set tags",
      parameters: Schema.Struct({ tags: Schema.Record(Schema.String, Schema.String) }),
      call: () => Effect.succeed("ok")
    })
    const out = OpenAiChat.definitions(ToolSet.make(Tags), { strict: true })
    assert(Result.isFailure(out))
    expect(out.failure).toStrictEqual(new OpenAiChat.StrictSchemaError({
      toolName: "tags",
      path: "/properties/tags",
      keyword: "additionalProperties",
      message:
        "tool `tags` cannot use OpenAI strict mode: objects with arbitrary keys (records, maps) cannot be expressed in strict mode (at /properties/tags)"
    }))
    // Without strict mode the same tool is offered as it is.
    assert(Result.isSuccess(OpenAiChat.definitions(ToolSet.make(Tags))))
  })
})

describe("OpenAiChat.definitions, strict: objects of keys they do not describe", () => {
  const strictOf = (parameters: Record<string, unknown>) => OpenAiChat.definitions([strictDefinition(parameters)])

  it("are refused below the top, where closed they could only be {}; the top without properties takes no arguments", () => {
    const open = strictOf({ type: "object", properties: { meta: { type: "object" } }, required: ["meta"] })
    assert(Result.isFailure(open) && open.failure._tag === "StrictSchemaError")
    expect([open.failure.path, open.failure.keyword]).toStrictEqual(["/properties/meta", "properties"])
    expect(open.failure.message).toContain("an object of keys it does not describe cannot be expressed in strict mode")
    const none = strictOf({ type: "object" })
    assert(Result.isSuccess(none))
    expect(none.success[0]!.function.parameters).toStrictEqual({
      type: "object",
      properties: {},
      required: [],
      additionalProperties: false
    })
    assert(Result.isSuccess(strictOf({
      type: "object",
      properties: { meta: { type: "object", additionalProperties: false } },
      required: ["meta"]
    })))
  })
})

describe("OpenAiChat.toolCalls", () => {
  it("keeps ids and arguments, reads a missing arguments string as empty, and leaves custom tool calls to the host", () => {
    const calls = OpenAiChat.toolCalls({
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "add", arguments: "{\"left\":1" } },
        { id: "call_2", type: "custom" },
        { id: "call_3", type: "function", function: { name: "add" } },
        { id: "call_4", type: "function", function: { name: "add", arguments: null } }
      ]
    })
    expect(calls).toStrictEqual([
      { id: "call_1", name: "add", arguments: "{\"left\":1" },
      { id: "call_3", name: "add", arguments: "" },
      { id: "call_4", name: "add", arguments: "" }
    ])
  })

  it("reads an entry without a type as a call, as a stream accumulated by hand leaves it, and skips other types", () => {
    const calls = OpenAiChat.toolCalls({
      tool_calls: [
        { id: "call_1", function: { name: "add", arguments: "{}" } },
        { id: "call_2", type: null, function: { name: "add", arguments: "{}" } },
        { id: "call_3", type: "custom", function: { name: "add", arguments: "{}" } }
      ]
    })
    expect(calls).toStrictEqual([
      { id: "call_1", name: "add", arguments: "{}" },
      { id: "call_2", name: "add", arguments: "{}" }
    ])
  })

  it("a message without tool calls has no calls", () => {
    expect(OpenAiChat.toolCalls({ tool_calls: null })).toStrictEqual([])
    expect(OpenAiChat.toolCalls({})).toStrictEqual([])
  })

  it.effect("strict calls get null mapped back to absent before dispatch, so the tool sees the key absent", () =>
    Effect.gen(function*() {
      const set = ToolSet.make(Search)
      const calls = OpenAiChat.toolCalls({
        tool_calls: [
          { id: "c1", type: "function", function: { name: "search", arguments: "{\"query\":\"lamp\",\"limit\":null}" } },
          { id: "c2", type: "function", function: { name: "search", arguments: "{\"query\":\"lamp\",\"limit\":3}" } },
          { id: "c3", type: "function", function: { name: "search", arguments: "{\"query\":" } }
        ]
      }, { tools: set })
      expect(calls).toStrictEqual([
        { id: "c1", name: "search", arguments: { query: "lamp" } },
        { id: "c2", name: "search", arguments: { query: "lamp", limit: 3 } },
        { id: "c3", name: "search", arguments: "{\"query\":" }
      ])
      const results = yield* ToolSet.executeAll(set, calls)
      expect(results.map((result) => [result.status, ToolOutput.render(result.output)])).toStrictEqual([
        ["success", "{\"query\":\"lamp\",\"limit\":\"none\"}"],
        ["success", "{\"query\":\"lamp\",\"limit\":3}"],
        ["error", "failed to parse tool arguments: Unexpected end of JSON input"]
      ])
    }))

  it.effect("without the tools, strict nulls reach the Schema and are reported as invalid_args", () =>
    Effect.gen(function*() {
      const calls = OpenAiChat.toolCalls({
        tool_calls: [{ id: "c1", type: "function", function: { name: "search", arguments: "{\"query\":\"a\",\"limit\":null}" } }]
      })
      const [result] = yield* ToolSet.executeAll(ToolSet.make(Search), calls)
      expect(ToolResult.isErrorKind(result!, "invalid_args")).toBe(true)
    }))
})

describe("OpenAiChat transcript", () => {
  const message: ChatCompletionMessage = {
    role: "assistant",
    content: null,
    refusal: null,
    tool_calls: [
      { id: "call_weather", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } },
      { id: "call_transfer", type: "function", function: { name: "transfer_funds", arguments: "{\"to\":\"bob\",\"amount\":" } },
      { id: "call_search", type: "function", function: { name: "search_web", arguments: "{\"query\":\"news\"}" } },
      {
        id: "call_chart",
        type: "function",
        function: { name: "render_chart", arguments: "{\"title\":\"Sales\",\"values\":[1,3,2]}" }
      },
      { id: "call_big", type: "function", function: { name: "transfer_funds", arguments: "{\"to\":\"eve\",\"amount\":20000}" } }
    ]
  }

  it.effect("parallel calls: a good call, broken JSON, an unknown tool, an image and a refusal become the next request", () =>
    Effect.gen(function*() {
      const calls = OpenAiChat.toolCalls(message, { tools })
      const results = yield* ToolSet.executeAll(tools, calls, { concurrency: "unbounded" })
      const next: Array<ChatCompletionMessageParam> = [message, ...OpenAiChat.toolResults(results)]
      expect(next).toStrictEqual([
        message,
        { role: "tool", tool_call_id: "call_weather", content: "{\"city\":\"Paris\",\"temperature\":18,\"unit\":\"C\"}" },
        {
          role: "tool",
          tool_call_id: "call_transfer",
          content: "Tool call failed (invalid_args): failed to parse tool arguments: Unexpected end of JSON input"
        },
        {
          role: "tool",
          tool_call_id: "call_search",
          content:
            "Tool call failed (not_found): tool `search_web` not found; available tools: `add`, `get_weather`, `render_chart`, `transfer_funds`"
        },
        {
          role: "tool",
          tool_call_id: "call_chart",
          content: "Sales: 3 points, max 3\n[image image/png: attached to the user message after the tool results]"
        },
        { role: "tool", tool_call_id: "call_big", content: "Tool call denied: transfers over 10000 need a human's approval" },
        {
          role: "user",
          content: [
            { type: "text", text: "Attachments from tool call call_chart (render_chart):" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${pixel}` } }
          ]
        }
      ])
    }).pipe(Effect.provideService(CurrentUser, user)))

  it.effect("with the placeholder policy the image becomes text and no user message follows", () =>
    Effect.gen(function*() {
      const calls = OpenAiChat.toolCalls(message, { tools })
      const results = yield* ToolSet.executeAll(tools, calls)
      const out = OpenAiChat.toolResults(results, { media: "placeholder" })
      expect(out.map((m) => m.content)).toStrictEqual([
        "{\"city\":\"Paris\",\"temperature\":18,\"unit\":\"C\"}",
        "Tool call failed (invalid_args): failed to parse tool arguments: Unexpected end of JSON input",
        "Tool call failed (not_found): tool `search_web` not found; available tools: `add`, `get_weather`, `render_chart`, `transfer_funds`",
        "Sales: 3 points, max 3\n[image omitted: image/png]",
        "Tool call denied: transfers over 10000 need a human's approval"
      ])
    }).pipe(Effect.provideService(CurrentUser, user)))

  it.effect("with the error policy the image fails the rendering with UnsupportedContentError", () =>
    Effect.gen(function*() {
      const calls = OpenAiChat.toolCalls(message, { tools })
      const results = yield* ToolSet.executeAll(tools, calls)
      const out = OpenAiChat.toolResults(results, { media: "error" })
      assert(Result.isFailure(out))
      expect(out.failure).toStrictEqual(
        new OpenAiChat.UnsupportedContentError({
          callId: "call_chart",
          toolName: "render_chart",
          block: "Image",
          mediaType: "image/png",
          message:
            "the result of tool call call_chart (render_chart) carries image content (image/png), which a Chat Completions tool message cannot carry"
        })
      )
      const textOnly = OpenAiChat.toolResults(results.filter((r) => r.callId !== "call_chart"), { media: "error" })
      assert(Result.isSuccess(textOnly))
      expect(textOnly.success.map((m) => m.tool_call_id)).toStrictEqual([
        "call_weather",
        "call_transfer",
        "call_search",
        "call_big"
      ])
    }).pipe(Effect.provideService(CurrentUser, user)))
})

describe("OpenAiChat.toolResults media", () => {
  const blocks = ToolOutput.content([
    ToolResultContent.json({ a: [1, 2], b: null }),
    ToolResultContent.resourceLink({ uri: "https://example.com/r", name: "report", description: "Q3" }),
    ToolResultContent.imageUrl("https://example.com/c.jpg", "image/jpeg", "low"),
    ToolResultContent.fileBase64("JVBERi0=", "application/pdf", "q3.pdf"),
    ToolResultContent.fileUrl("https://example.com/q4.pdf", "application/pdf"),
    ToolResultContent.audio("UklGRg==", "audio/wav"),
    ToolResultContent.audio("T2dnUw==", "audio/ogg")
  ])

  it("user-message with audio: media go to one user message, files at a URL become links, unsupported audio a placeholder", () => {
    expect(OpenAiChat.toolResults([resultOf(blocks, { callId: "c1", name: "media" }), resultOf(ToolOutput.text("plain"), { callId: "c2", name: "media" })], { audio: true })).toStrictEqual([
      {
        role: "tool",
        tool_call_id: "c1",
        content: [
          "{\"a\":[1,2],\"b\":null}",
          "report: https://example.com/r (Q3)",
          "[image image/jpeg: attached to the user message after the tool results]",
          "[file application/pdf: attached to the user message after the tool results]",
          "[file application/pdf: https://example.com/q4.pdf]",
          "[audio audio/wav: attached to the user message after the tool results]",
          "[audio omitted: audio/ogg]"
        ].join("\n")
      },
      { role: "tool", tool_call_id: "c2", content: "plain" },
      {
        role: "user",
        content: [
          { type: "text", text: "Attachments from tool call c1 (media):" },
          { type: "image_url", image_url: { url: "https://example.com/c.jpg", detail: "low" } },
          { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "q3.pdf" } },
          { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } }
        ]
      }
    ])
  })

  it("an attached PDF without a name is sent as file.pdf: OpenAI refuses file data without a name", () => {
    const out = OpenAiChat.toolResults([
      resultOf(ToolOutput.one(ToolResultContent.fileBase64("JVBERi0=", "application/pdf")), { callId: "c1" })
    ])
    const user = out[1] as { readonly content: ReadonlyArray<{ readonly type: string; readonly file?: unknown }> }
    assert.deepStrictEqual(user.content.filter((part) => part.type === "file").map((part) => part.file), [
      { file_data: "data:application/pdf;base64,JVBERi0=", filename: "file.pdf" }
    ])
  })

  it("user-message without the audio option: audio is a placeholder, images and files are still attached", () => {
    const out = OpenAiChat.toolResults([resultOf(blocks, { callId: "c1", name: "media" })])
    expect(out).toStrictEqual([
      {
        role: "tool",
        tool_call_id: "c1",
        content: [
          "{\"a\":[1,2],\"b\":null}",
          "report: https://example.com/r (Q3)",
          "[image image/jpeg: attached to the user message after the tool results]",
          "[file application/pdf: attached to the user message after the tool results]",
          "[file application/pdf: https://example.com/q4.pdf]",
          "[audio omitted: audio/wav]",
          "[audio omitted: audio/ogg]"
        ].join("\n")
      },
      {
        role: "user",
        content: [
          { type: "text", text: "Attachments from tool call c1 (media):" },
          { type: "image_url", image_url: { url: "https://example.com/c.jpg", detail: "low" } },
          { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "q3.pdf" } }
        ]
      }
    ])
  })

  it("an image of unknown type is never labelled PNG: inline data gets the placeholder, a URL is sent as it is", () => {
    const images = ToolOutput.content([
      ToolResultContent.imageBase64("AAAAAAAA"),
      ToolResultContent.imageUrl("https://example.com/photo")
    ])
    const result = resultOf(images, { callId: "c1", name: "media" })
    expect([
      OpenAiChat.toolResults([result]),
      OpenAiChat.toolResults([result], { media: "placeholder" })
    ]).toStrictEqual([
      [
        {
          role: "tool",
          tool_call_id: "c1",
          content: [
            "[image omitted: unknown media type]",
            "[image: attached to the user message after the tool results]"
          ].join("\n")
        },
        {
          role: "user",
          content: [
            { type: "text", text: "Attachments from tool call c1 (media):" },
            { type: "image_url", image_url: { url: "https://example.com/photo" } }
          ]
        }
      ],
      [{
        role: "tool",
        tool_call_id: "c1",
        content: "[image omitted: unknown media type]\n[image omitted: unknown media type]"
      }]
    ])
    const failed = OpenAiChat.toolResults([result], { media: "error" })
    assert(Result.isFailure(failed))
    expect(failed.failure).toStrictEqual(new OpenAiChat.UnsupportedContentError({
      callId: "c1",
      toolName: "media",
      block: "Image",
      mediaType: undefined,
      message:
        "the result of tool call c1 (media) carries image content (unknown media type), which a Chat Completions tool message cannot carry"
    }))
  })

  it("placeholder: every medium is named, no base64 reaches the text", () => {
    expect(OpenAiChat.toolResults([resultOf(blocks, { callId: "c1", name: "media" })], { media: "placeholder" })).toStrictEqual([
      {
        role: "tool",
        tool_call_id: "c1",
        content: [
          "{\"a\":[1,2],\"b\":null}",
          "report: https://example.com/r (Q3)",
          "[image omitted: image/jpeg]",
          "[file omitted: application/pdf]",
          "[file application/pdf: https://example.com/q4.pdf]",
          "[audio omitted: audio/wav]",
          "[audio omitted: audio/ogg]"
        ].join("\n")
      }
    ])
  })

  it("failed and skipped results say so in front of their output", () => {
    const failed = resultOf(ToolOutput.text("tool execution timed out"), {
      status: "error",
      callId: "c1",
      error: ToolExecutionError.timeout()
    })
    expect(OpenAiChat.toolResults([failed, resultOf(ToolOutput.text("skipped by policy"), { status: "skipped", callId: "c2" })]))
      .toStrictEqual([
        { role: "tool", tool_call_id: "c1", content: "Tool call failed (timeout): tool execution timed out" },
        { role: "tool", tool_call_id: "c2", content: "Tool call skipped: skipped by policy" }
      ])
  })
})

describe("OpenAiChat provider rules", () => {
  it("only PNG, JPEG, GIF and WebP images and PDF files are attached, text files are text; other media get the placeholder", () => {
    const media = ToolOutput.content([
      ToolResultContent.imageBase64("PHN2Zz48L3N2Zz4=", "image/svg+xml"),
      ToolResultContent.imageUrl("https://example.com/a.tiff", "image/tiff"),
      ToolResultContent.imageBase64(pixel),
      ToolResultContent.fileBase64("UEsDBA==", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
      ToolResultContent.fileBase64("aGk=", "text/plain", "hi.txt"),
      ToolResultContent.fileBase64(btoa("a,b\n1,2"), "text/csv; charset=utf-8"),
      // Not UTF-8: no text to show.
      ToolResultContent.fileBase64(btoa("\xff\xfe"), "text/csv")
    ])
    expect(OpenAiChat.toolResults([resultOf(media, { callId: "c1", name: "media" })])).toStrictEqual([
      {
        role: "tool",
        tool_call_id: "c1",
        content: [
          "[image omitted: image/svg+xml]",
          "[image omitted: image/tiff]",
          "[image image/png: attached to the user message after the tool results]",
          "[file omitted: application/vnd.openxmlformats-officedocument.wordprocessingml.document]",
          "[file text/plain hi.txt]",
          "hi",
          "[file text/csv]",
          "a,b",
          "1,2",
          "[file omitted: text/csv]"
        ].join("\n")
      },
      {
        role: "user",
        content: [
          { type: "text", text: "Attachments from tool call c1 (media):" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${pixel}` } }
        ]
      }
    ])
    const failed = OpenAiChat.toolResults([resultOf(ToolOutput.one(ToolResultContent.imageBase64("PHN2Zz48L3N2Zz4=", "image/svg+xml")))], {
      media: "error"
    })
    assert(Result.isFailure(failed))
    expect([failed.failure._tag, failed.failure.block, failed.failure.mediaType]).toStrictEqual([
      "UnsupportedContentError",
      "Image",
      "image/svg+xml"
    ])
  })

  it("a result with empty output is answered by its status words, not an empty or dangling text", () => {
    const empty = ToolOutput.text("")
    expect(OpenAiChat.toolResults([
      resultOf(empty, { status: "error", callId: "c1", error: ToolExecutionError.other("") }),
      resultOf(empty, { status: "denied", callId: "c2" }),
      resultOf(empty, { status: "success", callId: "c3" })
    ])).toStrictEqual([
      { role: "tool", tool_call_id: "c1", content: "Tool call failed (other)" },
      { role: "tool", tool_call_id: "c2", content: "Tool call denied" },
      { role: "tool", tool_call_id: "c3", content: "(empty result)" }
    ])
  })

  it("toolCalls never throws on malformed messages, defaults a missing id or name to an empty string, and keeps a call without its function", () => {
    const read = (message: unknown) => OpenAiChat.toolCalls(message as OpenAiChat.AssistantMessage)
    expect([
      read({ tool_calls: [{ type: "function", function: {} }] }),
      read({ tool_calls: [{ id: 7, type: "function", function: { name: null, arguments: { a: 1 } } }] }),
      read({ tool_calls: [{ id: "c1", type: "function", function: { name: "add", arguments: 42 } }] }),
      read({ tool_calls: [null, 3, "x", { id: "c2", type: "function" }, { id: "c3", type: "function", function: null }] }),
      read({ tool_calls: { 0: { id: "c4", type: "function", function: { name: "add" } }, length: 1 } }),
      read({ tool_calls: "not an array" }),
      read({ tool_calls: 5 }),
      read(null),
      read(42)
    ]).toStrictEqual([
      [{ id: "", name: "", arguments: "" }],
      [{ id: "", name: "", arguments: { a: 1 } }],
      [{ id: "c1", name: "add", arguments: 42 }],
      // Without its `function` object the entry is still a call: its id must get a tool message.
      [{ id: "c2", name: "", arguments: "" }, { id: "c3", name: "", arguments: "" }],
      [],
      [],
      [],
      [],
      []
    ])
  })
})

describe("OpenAiChat types", () => {
  it("produced values are the SDK's types, and the SDK's message is accepted without a cast", () => {
    const defs = Result.getOrThrow(OpenAiChat.definitions(tools, { strict: true }))
    const tool = defs[0]!
    tool satisfies ChatCompletionFunctionTool
    tool satisfies ChatCompletionTool
    expectTypeOf(defs).toExtend<Array<ChatCompletionTool>>()
    const toolMessage = OpenAiChat.toolResults([resultOf(ToolOutput.text("x"), { callId: "c1" })], { media: "placeholder" })[0]!
    toolMessage satisfies ChatCompletionToolMessageParam
    expectTypeOf(OpenAiChat.toolResults([])).toExtend<Array<ChatCompletionMessageParam>>()
    expectTypeOf(OpenAiChat.toolResults([], { media: "error" })).toExtend<
      Result.Result<Array<ChatCompletionToolMessageParam>, OpenAiChat.UnsupportedContentError>
    >()
    const sdkCall: ChatCompletionMessageFunctionToolCall = {
      id: "c1",
      type: "function",
      function: { name: "add", arguments: "{}" }
    }
    const sdkMessage: ChatCompletionMessage = { role: "assistant", content: null, refusal: null, tool_calls: [sdkCall] }
    expect(OpenAiChat.toolCalls(sdkMessage)).toStrictEqual([{ id: "c1", name: "add", arguments: "{}" }])
    expectTypeOf<ChatCompletionMessage>().toExtend<OpenAiChat.AssistantMessage>()
    expectTypeOf<ChatCompletionMessageParam & { role: "assistant" }>().toExtend<OpenAiChat.AssistantMessage>()
  })
})
