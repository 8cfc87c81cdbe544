/**
 * What all four adapters promise alike: base64 data never reaches a text field the model reads as text, and a
 * denied or skipped result is rendered as such.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import * as Anthropic from "../../src/provider/Anthropic.ts"
import * as Gemini from "../../src/provider/Gemini.ts"
import * as OpenAiChat from "../../src/provider/OpenAiChat.ts"
import * as OpenAiResponses from "../../src/provider/OpenAiResponses.ts"
import * as ToolOutput from "../../src/ToolOutput.ts"
import type * as ToolResult from "../../src/ToolResult.ts"
import * as ToolResultContent from "../../src/ToolResultContent.ts"
import { pixel, resultOf } from "./fixtures.ts"

// Long and distinct, so that finding one in a text field can only mean the data was put there.
const payload = (label: string): string => btoa(`${label}: bytes that must never be read as text `.repeat(3))

/** Every block kind that carries base64 data, with every media type path the adapters take for it. */
const mediaBlocks: ReadonlyArray<readonly [string, ToolResultContent.ToolResultContent, string]> = [
  ["png image", ToolResultContent.imageBase64(pixel, "image/png"), pixel],
  ["png image without a media type", ToolResultContent.imageBase64(pixel), pixel],
  ["unrecognizable image", ToolResultContent.imageBase64(payload("raw")), payload("raw")],
  ["bmp image", ToolResultContent.imageBase64(payload("bmp"), "image/bmp"), payload("bmp")],
  ["wav audio", ToolResultContent.audio(payload("wav"), "audio/wav"), payload("wav")],
  ["ogg audio", ToolResultContent.audio(payload("ogg"), "audio/ogg"), payload("ogg")],
  ["pdf file", ToolResultContent.fileBase64(payload("pdf"), "application/pdf", "a.pdf"), payload("pdf")],
  ["plain text file", ToolResultContent.fileBase64(payload("txt"), "text/plain"), payload("txt")],
  ["zip file", ToolResultContent.fileBase64(payload("zip"), "application/zip"), payload("zip")]
]

const statuses: ReadonlyArray<ToolResult.Status> = ["success", "error", "denied", "skipped"]

const chatTexts = (messages: ReadonlyArray<OpenAiChat.Message>): ReadonlyArray<string> =>
  messages.flatMap((message) =>
    message.role === "tool" ? [message.content] : message.content.flatMap((part) => part.type === "text" ? [part.text] : [])
  )

/** Each adapter (and media option) with the text fields of what it renders: what the model reads as text. */
const renderers: ReadonlyArray<readonly [string, (result: ToolResult.ToolResult) => ReadonlyArray<string>]> = [
  ["OpenAiChat (user-message)", (result) => chatTexts(OpenAiChat.toolResults([result]))],
  ["OpenAiChat (placeholder)", (result) => chatTexts(OpenAiChat.toolResults([result], { media: "placeholder" }))],
  [
    "OpenAiChat (error)",
    (result) => Result.match(OpenAiChat.toolResults([result], { media: "error" }), {
      onFailure: (error) => [error.message],
      onSuccess: (messages) => messages.map((message) => message.content)
    })
  ],
  [
    "OpenAiResponses",
    (result) =>
      OpenAiResponses.toolResults([result]).flatMap(({ output }) =>
        typeof output === "string" ? [output] : output.flatMap((part) => part.type === "input_text" ? [part.text] : [])
      )
  ],
  [
    "Anthropic",
    (result) =>
      Anthropic.toolResults([result]).content.flatMap((block) =>
        block.content.flatMap((part) =>
          part.type === "text" ? [part.text] : part.type === "document" && part.source.type === "text"
            ? [part.source.data]
            : []
        )
      )
  ],
  ...(["nested", "separate"] as const).map((media) =>
    [
      `Gemini (${media})`,
      (result: ToolResult.ToolResult) =>
        Gemini.toolResults([result], { media }).parts.flatMap((part) =>
          "functionResponse" in part ? [JSON.stringify(part.functionResponse.response)] : []
        )
    ] as const
  )
]

describe("every adapter", () => {
  it("never puts base64 data into text, for every block kind and every status", () => {
    const leaks: Array<string> = []
    for (const [adapter, textsOf] of renderers) {
      for (const [kind, block, data] of mediaBlocks) {
        for (const status of statuses) {
          const output = ToolOutput.content([ToolResultContent.text("before"), block, ToolResultContent.text("after")])
          const texts = textsOf(resultOf(output, { status }))
          if (texts.some((text) => text.includes(data))) leaks.push(`${adapter}: ${kind}, ${status}`)
        }
      }
    }
    expect(leaks).toStrictEqual([])
  })

  it.each([["denied", "Tool call denied: by policy"], ["skipped", "Tool call skipped: by policy"]] as const)(
    "says a %s result is one, in the words or fields of each provider",
    (status, words) => {
      const result = resultOf(ToolOutput.text("by policy"), { status })
      expect([
        OpenAiChat.toolResults([result])[0],
        OpenAiResponses.toolResults([result])[0],
        Anthropic.toolResults([result]).content[0],
        Gemini.toolResults([result]).parts[0]
      ]).toStrictEqual([
        { role: "tool", tool_call_id: "call_1", content: words },
        { type: "function_call_output", call_id: "call_1", output: words },
        { type: "tool_result", tool_use_id: "call_1", is_error: true, content: [{ type: "text", text: words }] },
        { functionResponse: { id: "call_1", name: "some_tool", response: { error: "by policy", status } } }
      ])
    }
  )
})
