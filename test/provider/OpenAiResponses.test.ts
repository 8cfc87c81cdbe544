import { assert, describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import type {
  FunctionTool,
  Response,
  ResponseFunctionToolCall,
  ResponseInputItem
} from "openai/resources/responses/responses"
import { CurrentUser, tools } from "../../examples/tools.ts"
import * as OpenAiResponses from "../../src/provider/OpenAiResponses.ts"
import * as ToolDefinition from "../../src/ToolDefinition.ts"
import * as ToolExecutionError from "../../src/ToolExecutionError.ts"
import * as ToolOutput from "../../src/ToolOutput.ts"
import * as ToolResultContent from "../../src/ToolResultContent.ts"
import * as ToolSet from "../../src/ToolSet.ts"
import { pixel, resultOf, Search, user } from "./fixtures.ts"

describe("OpenAiResponses.definitions", () => {
  it("renders flat function tools in order, stating strict on every tool", () => {
    const out = Result.getOrThrow(OpenAiResponses.definitions(ToolSet.make(tools.tools[0]!, Search)))
    expect(out).toStrictEqual([
      {
        type: "function",
        name: "add",
        description: "Add two integers",
        parameters: ToolDefinition.fromTool(tools.tools[0]!).parameters,
        strict: false
      },
      {
        type: "function",
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
    ])
  })

  it("accepts definitions as well as a tool set, and the strict option turns every tool strict", () => {
    const out = Result.getOrThrow(OpenAiResponses.definitions(ToolSet.definitions(tools), { strict: true }))
    expect(out.map((tool) => [tool.name, tool.strict])).toStrictEqual([
      ["add", true],
      ["get_weather", true],
      ["render_chart", true],
      ["transfer_funds", true]
    ])
  })
})

describe("OpenAiResponses.toolCalls", () => {
  it("pairs by call_id, not id; falls back to id without call_id; never drops a function_call item", () => {
    const calls = OpenAiResponses.toolCalls({
      output: [
        { type: "reasoning" },
        { type: "function_call", id: "fc_1", call_id: "call_1", name: "add", arguments: "{\"left\":1,\"right\":2}" },
        { type: "function_call", id: "fc_2", name: "add", arguments: "{\"left\":" },
        { type: "function_call", call_id: null, name: "add" },
        { type: "message" }
      ]
    })
    expect(calls).toStrictEqual([
      { id: "call_1", name: "add", arguments: "{\"left\":1,\"right\":2}" },
      { id: "fc_2", name: "add", arguments: "{\"left\":" },
      { id: "", name: "add", arguments: "" }
    ])
  })

  it("strict calls get null mapped back to absent for the properties that were optional", () => {
    const items = [
      { type: "function_call", call_id: "c1", name: "search", arguments: "{\"query\":\"lamp\",\"limit\":null}" }
    ] as const
    expect(OpenAiResponses.toolCalls(items, { tools: ToolSet.make(Search) })).toStrictEqual([
      { id: "c1", name: "search", arguments: { query: "lamp" } }
    ])
  })
})

describe("OpenAiResponses transcript", () => {
  const output: Array<ResponseFunctionToolCall> = [
    { type: "function_call", id: "fc_1", call_id: "call_weather", name: "get_weather", arguments: "{\"city\":\"Oslo\"}" },
    { type: "function_call", id: "fc_2", call_id: "call_transfer", name: "transfer_funds", arguments: "{\"to\":" },
    { type: "function_call", id: "fc_3", call_id: "call_search", name: "search_web", arguments: "{}" },
    {
      type: "function_call",
      id: "fc_4",
      call_id: "call_chart",
      name: "render_chart",
      arguments: "{\"title\":\"Sales\",\"values\":[1,3,2]}"
    },
    { type: "function_call", id: "fc_5", call_id: "call_big", name: "transfer_funds", arguments: "{\"to\":\"eve\",\"amount\":20000}" }
  ]

  it.effect("parallel calls: a good call, broken JSON, an unknown tool, an image and a refusal become the next input", () =>
    Effect.gen(function*() {
      const calls = OpenAiResponses.toolCalls(output, { tools })
      const results = yield* ToolSet.executeAll(tools, calls, { concurrency: "unbounded" })
      const input: Array<ResponseInputItem> = [...output, ...OpenAiResponses.toolResults(results)]
      expect(input).toStrictEqual([
        ...output,
        {
          type: "function_call_output",
          call_id: "call_weather",
          output: "{\"city\":\"Oslo\",\"temperature\":4,\"unit\":\"C\"}"
        },
        {
          type: "function_call_output",
          call_id: "call_transfer",
          output: "Tool call failed (invalid_args): failed to parse tool arguments: Unexpected end of JSON input"
        },
        {
          type: "function_call_output",
          call_id: "call_search",
          output:
            "Tool call failed (not_found): tool `search_web` not found; available tools: `add`, `get_weather`, `render_chart`, `transfer_funds`"
        },
        {
          type: "function_call_output",
          call_id: "call_chart",
          output: [
            { type: "input_text", text: "Sales: 3 points, max 3" },
            { type: "input_image", image_url: `data:image/png;base64,${pixel}` }
          ]
        },
        {
          type: "function_call_output",
          call_id: "call_big",
          output: "Tool call denied: transfers over 10000 need a human's approval"
        }
      ])
    }).pipe(Effect.provideService(CurrentUser, user)))
})

describe("OpenAiResponses.toolResults", () => {
  it("renders images, files and links as parts, and audio as a placeholder", () => {
    const output = ToolOutput.content([
      ToolResultContent.json({ ok: true }),
      ToolResultContent.imageBase64("/9j/4AAQ", undefined, "high"),
      ToolResultContent.fileBase64("JVBERi0=", "application/pdf", "q3.pdf"),
      ToolResultContent.fileUrl("https://example.com/q4.pdf", "application/pdf"),
      ToolResultContent.resourceLink({ uri: "https://example.com/r", name: "report" }),
      ToolResultContent.audio("UklGRg==", "audio/wav")
    ])
    expect(OpenAiResponses.toolResults([resultOf(output, { callId: "c1" })])).toStrictEqual([
      {
        type: "function_call_output",
        call_id: "c1",
        output: [
          { type: "input_text", text: "{\"ok\":true}" },
          { type: "input_image", image_url: "data:image/jpeg;base64,/9j/4AAQ", detail: "high" },
          { type: "input_file", file_data: "data:application/pdf;base64,JVBERi0=", filename: "q3.pdf" },
          { type: "input_file", file_url: "https://example.com/q4.pdf" },
          { type: "input_text", text: "report: https://example.com/r" },
          { type: "input_text", text: "[audio omitted: audio/wav]" }
        ]
      }
    ])
  })

  it("an image of unknown type is never labelled PNG: inline data gets the placeholder, a URL is sent as it is", () => {
    const output = ToolOutput.content([
      ToolResultContent.imageBase64("AAAAAAAA", undefined, "low"),
      ToolResultContent.imageUrl("https://example.com/photo", undefined, "low")
    ])
    expect(OpenAiResponses.toolResults([resultOf(output, { callId: "c1" })])).toStrictEqual([
      {
        type: "function_call_output",
        call_id: "c1",
        output: [
          { type: "input_text", text: "[image omitted: unknown media type]" },
          { type: "input_image", image_url: "https://example.com/photo", detail: "low" }
        ]
      }
    ])
  })

  it("a failed result with media says so in a text part before the media", () => {
    const error = ToolExecutionError.other("chart rendered partially")
    const output = ToolOutput.one(ToolResultContent.imageUrl("https://example.com/c.png"))
    expect(OpenAiResponses.toolResults([resultOf(output, { status: "error", callId: "c1", error })])).toStrictEqual([
      {
        type: "function_call_output",
        call_id: "c1",
        output: [
          { type: "input_text", text: "Tool call failed (other):" },
          { type: "input_image", image_url: "https://example.com/c.png" }
        ]
      }
    ])
  })
})

describe("OpenAiResponses provider rules", () => {
  it("only PNG, JPEG, GIF and WebP images and document files become parts; other media become placeholders", () => {
    const media = ToolOutput.content([
      ToolResultContent.imageBase64("PHN2Zz48L3N2Zz4=", "image/svg+xml"),
      ToolResultContent.imageUrl("https://example.com/a.svg", "image/svg+xml"),
      ToolResultContent.fileBase64("AAAA", "application/zip", "a.zip"),
      ToolResultContent.fileUrl("https://example.com/v.mp4", "video/mp4"),
      ToolResultContent.fileBase64("aGk=", "text/csv", "t.csv"),
      ToolResultContent.fileUrl("https://example.com/d.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
    ])
    expect(OpenAiResponses.toolResults([resultOf(media, { callId: "c1" })])).toStrictEqual([{
      type: "function_call_output",
      call_id: "c1",
      output: [
        { type: "input_text", text: "[image omitted: image/svg+xml]" },
        { type: "input_text", text: "[image omitted: image/svg+xml]" },
        { type: "input_text", text: "[file omitted: application/zip]" },
        { type: "input_text", text: "[file video/mp4: https://example.com/v.mp4]" },
        { type: "input_file", file_data: "data:text/csv;base64,aGk=", filename: "t.csv" },
        {
          type: "input_file",
          file_url: "https://example.com/d.docx"
        }
      ]
    }])
  })

  it("an inline file without a name is sent under one made from its media type: OpenAI needs one", () => {
    const media = ToolOutput.content([
      ToolResultContent.fileBase64("JVBERi0=", "application/pdf"),
      ToolResultContent.fileBase64("aGk=", "text/csv"),
      ToolResultContent.fileBase64("UEs=", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
      ToolResultContent.fileBase64("aGk=", "text/x-unheard-of"),
      ToolResultContent.fileUrl("https://example.com/q3.pdf", "application/pdf")
    ])
    const [output] = OpenAiResponses.toolResults([resultOf(media, { callId: "c1" })])
    assert.deepStrictEqual(
      (output as { readonly output: ReadonlyArray<{ readonly filename?: string }> }).output.map((part) => part.filename),
      ["file.pdf", "file.csv", "file.docx", "file", undefined]
    )
  })

  it("a result with empty output is answered by its status words, not an empty or dangling text", () => {
    const empty = ToolOutput.text("")
    expect(OpenAiResponses.toolResults([
      resultOf(empty, { status: "error", callId: "c1", error: ToolExecutionError.other("") }),
      resultOf(empty, { status: "skipped", callId: "c2" }),
      resultOf(empty, { status: "success", callId: "c3" })
    ])).toStrictEqual([
      { type: "function_call_output", call_id: "c1", output: "Tool call failed (other)" },
      { type: "function_call_output", call_id: "c2", output: "Tool call skipped" },
      { type: "function_call_output", call_id: "c3", output: "(empty result)" }
    ])
  })

  it("toolCalls never throws on malformed input", () => {
    const read = (response: unknown) => OpenAiResponses.toolCalls(response as OpenAiResponses.ResponseOutput)
    expect([
      read(null),
      read(42),
      read({ output: null }),
      read({ output: "x" }),
      read([null, 1, { type: "function_call" }])
    ]).toStrictEqual([[], [], [], [], [{ id: "", name: "", arguments: "" }]])
  })
})

describe("OpenAiResponses types", () => {
  it("produced values are the SDK's types, and the SDK's response is accepted without a cast", () => {
    const defs = Result.getOrThrow(OpenAiResponses.definitions(tools, { strict: true }))
    defs[0]! satisfies FunctionTool
    expectTypeOf(defs).toExtend<Array<FunctionTool>>()
    const item = OpenAiResponses.toolResults([resultOf(ToolOutput.text("x"), { callId: "c1" })])[0]!
    item satisfies ResponseInputItem.FunctionCallOutput
    expectTypeOf(OpenAiResponses.toolResults([])).toExtend<Array<ResponseInputItem>>()
    expectTypeOf<Response>().toExtend<OpenAiResponses.ResponseOutput>()
    expectTypeOf<Response["output"]>().toExtend<OpenAiResponses.ResponseOutput>()
    expectTypeOf<ResponseFunctionToolCall>().toExtend<OpenAiResponses.FunctionCallItem>()
  })
})
