/**
 * What all four adapters promise alike: base64 data (inline or in a `data:` URL) never reaches a text field the model
 * reads as text, a denied or skipped result is rendered as such, rendering and reading transcripts never throw, and
 * definitions are refused for what each provider refuses.
 */
import { assert, describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Ajv2020 } from "ajv/dist/2020.js"
import { Arbitrary, Context, Effect, Option, Result, Schema } from "effect"
import * as DynamicTool from "../../src/DynamicTool.ts"
import * as Anthropic from "../../src/provider/Anthropic.ts"
import * as Gemini from "../../src/provider/Gemini.ts"
import * as OpenAiChat from "../../src/provider/OpenAiChat.ts"
import * as OpenAiResponses from "../../src/provider/OpenAiResponses.ts"
import * as Tool from "../../src/Tool.ts"
import * as ToolDefinition from "../../src/ToolDefinition.ts"
import * as ToolExecutionError from "../../src/ToolExecutionError.ts"
import * as ToolOutput from "../../src/ToolOutput.ts"
import type * as ToolResult from "../../src/ToolResult.ts"
import { ToolResult as ToolResultClass } from "../../src/ToolResult.ts"
import * as ToolResultContent from "../../src/ToolResultContent.ts"
import * as ToolSet from "../../src/ToolSet.ts"
import { pixel, resultOf } from "./fixtures.ts"
import { catalogueTools, draft07Schema, draft2020Schema } from "../support/mcpSchemas.ts"
import { throwingProxy } from "../support/hostile.ts"

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
      Anthropic.toolResults([result]).flatMap((message) => message.content).flatMap((block) =>
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
        Gemini.toolResults([result], { media }).flatMap((content) => content.parts).flatMap((part) =>
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
        Anthropic.toolResults([result])[0]!.content[0],
        Gemini.toolResults([result])[0]!.parts[0]
      ]).toStrictEqual([
        { role: "tool", tool_call_id: "call_1", content: words },
        { type: "function_call_output", call_id: "call_1", output: words },
        { type: "tool_result", tool_use_id: "call_1", is_error: true, content: [{ type: "text", text: words }] },
        { functionResponse: { id: "call_1", name: "some_tool", response: { error: "by policy", status } } }
      ])
    }
  )
})

// ---------------------------------------------------------------------------
// Media types and text, as providers read them
// ---------------------------------------------------------------------------

/** Every adapter's rendering of one result, as the values the caller sends on. */
const renderings: ReadonlyArray<readonly [string, (result: ToolResult.ToolResult) => unknown]> = [
  ["OpenAiChat", (result) => OpenAiChat.toolResults([result])],
  ["OpenAiChat (placeholder)", (result) => OpenAiChat.toolResults([result], { media: "placeholder" })],
  ["OpenAiChat (audio)", (result) => OpenAiChat.toolResults([result], { audio: true })],
  ["OpenAiChat (error)", (result) => OpenAiChat.toolResults([result], { media: "error" })],
  ["OpenAiResponses", (result) => OpenAiResponses.toolResults([result])],
  ["Anthropic", (result) => Anthropic.toolResults([result])],
  ["Gemini (nested)", (result) => Gemini.toolResults([result])],
  ["Gemini (separate)", (result) => Gemini.toolResults([result], { media: "separate" })]
]

const jpeg = "/9j/4AAQSkZJRgABAQ=="

describe("media types", () => {
  // Media types are case-insensitive and may carry parameters; `image/jpg` is how many tools and MCP servers label
  // JPEG. Each adapter must send the type its provider knows, not a placeholder.
  const labelled: ReadonlyArray<readonly [string, ToolResultContent.ToolResultContent, string]> = [
    ["image/PNG", ToolResultContent.imageBase64(pixel, "image/PNG"), "image/png"],
    ["image/jpg", ToolResultContent.imageBase64(jpeg, "image/jpg"), "image/jpeg"],
    ["image/png; charset=binary", ToolResultContent.imageBase64(pixel, " image/png; charset=binary"), "image/png"],
    ["application/octet-stream of PNG bytes", ToolResultContent.imageBase64(pixel, "application/octet-stream"), "image/png"],
    ["a data URL of image/JPG", ToolResultContent.imageUrl(`data:image/JPG;base64,${jpeg}`), "image/jpeg"],
    ["Application/PDF", ToolResultContent.fileBase64(btoa("%PDF-1.4"), "Application/PDF", "a.pdf"), "application/pdf"]
  ]
  // Chat's placeholder and error policies never send media, by design.
  const sending = renderings.filter(([adapter]) => !adapter.includes("(placeholder)") && !adapter.includes("(error)"))

  it.each(labelled)("%s is sent as %s by every adapter, never as a placeholder", (_, block, mediaType) => {
    for (const [adapter, render] of sending) {
      const rendered = JSON.stringify(render(resultOf(ToolOutput.content([block]))))
      expect({ adapter, omitted: rendered.includes("omitted") }).toStrictEqual({ adapter, omitted: false })
      expect(rendered, adapter).toContain(mediaType)
    }
  })
})

/** Every string in a rendered value, keys included. */
const stringsOf = (value: unknown): Array<string> => {
  if (typeof value === "string") return [value]
  if (typeof value !== "object" || value === null) return []
  return Object.entries(value).flatMap(([key, inner]) => [key, ...stringsOf(inner)])
}

/** Whether a string is valid Unicode: it survives UTF-8 unchanged. */
const isWellFormed = (text: string): boolean => new TextDecoder().decode(new TextEncoder().encode(text)) === text

/** Strings of any UTF-16 code units, lone surrogates included (as a string cut in the middle of an emoji has). */
const Utf16 = Arbitrary.map(
  Arbitrary.array(Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 0xd7f0, maximum: 0xe010 })))),
  (codes) => String.fromCharCode(...codes)
)

describe("text with lone surrogates", () => {
  const cut = "Meeting moved \u{1F642} see you".slice(0, 15)

  it("is sent with U+FFFD in their place by every adapter: a body that is not valid Unicode is refused", () => {
    const output = ToolOutput.content([
      ToolResultContent.text(cut),
      ToolResultContent.json({ [cut]: [cut, { note: cut }] }),
      ToolResultContent.resourceLink({ uri: "https://example.com/a", name: cut, description: cut })
    ])
    for (const [adapter, render] of renderings) {
      const rendered = render(resultOf(output))
      expect({ adapter, malformed: stringsOf(rendered).filter((text) => !isWellFormed(text)) })
        .toStrictEqual({ adapter, malformed: [] })
      expect(JSON.stringify(rendered), adapter).toContain("Meeting moved \uFFFD")
    }
  })

  it.prop("any text renders as valid Unicode, and text that was valid is sent as it is", [Utf16], ([text]) => {
    const output = ToolOutput.content([ToolResultContent.text(`<${text}>`), ToolResultContent.json({ text })])
    for (const [adapter, render] of renderings) {
      const rendered = render(resultOf(output))
      const strings = stringsOf(rendered)
      expect({ adapter, malformed: strings.filter((each) => !isWellFormed(each)) })
        .toStrictEqual({ adapter, malformed: [] })
      if (isWellFormed(text)) expect(strings.some((each) => each.includes(`<${text}>`)), adapter).toBe(true)
    }
  })
})

// ---------------------------------------------------------------------------
// data: URLs
// ---------------------------------------------------------------------------

describe("data: URLs", () => {
  const zip = payload("zip in a data URL")
  const png = pixel
  const pdf = payload("pdf in a data URL")
  const blocks = ToolOutput.content([
    ToolResultContent.fileUrl(`data:application/zip;base64,${zip}`, "application/zip", "a.zip"),
    ToolResultContent.imageUrl(`data:image/png;base64,${png}`),
    ToolResultContent.resourceLink({ uri: `data:application/pdf;base64,${pdf}`, name: "report.pdf" })
  ])
  const result = resultOf(blocks)

  it("are inline content in every adapter: their base64 never reaches a text field", () => {
    const leaks = renderers.flatMap(([adapter, textsOf]) =>
      textsOf(result).some((text) => [zip, png, pdf].some((data) => text.includes(data))) ? [adapter] : []
    )
    expect(leaks).toStrictEqual([])
  })

  it("OpenAI Chat attaches a PDF data URL as a file part and an image data URL as an image part", () => {
    expect(OpenAiChat.toolResults([result])).toStrictEqual([
      {
        role: "tool",
        tool_call_id: "call_1",
        content: [
          "[file omitted: application/zip]",
          "[image image/png: attached to the user message after the tool results]",
          "[file application/pdf: attached to the user message after the tool results]"
        ].join("\n")
      },
      {
        role: "user",
        content: [
          { type: "text", text: "Attachments from tool call call_1 (some_tool):" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
          { type: "file", file: { file_data: `data:application/pdf;base64,${pdf}`, filename: "report.pdf" } }
        ]
      }
    ])
  })

  it("Anthropic sends them as base64 image and document blocks", () => {
    expect(Anthropic.toolResults([result])[0]!.content[0]!.content).toStrictEqual([
      { type: "text", text: "[file a.zip omitted: application/zip is not supported]" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdf }, title: "report.pdf" }
    ])
  })

  it("passed whole as base64 data (files, images, audio) are read as the URL: its bytes, the block's type first", () => {
    const wav = payload("wav in a data URL")
    const passedAsBase64 = resultOf(ToolOutput.content([
      ToolResultContent.fileBase64(`data:application/pdf;base64,${pdf}`, "application/pdf", "a.pdf"),
      ToolResultContent.imageBase64(`data:image/png;base64,${png}`),
      ToolResultContent.fileBase64("data:;base64,%%", "application/pdf"),
      ToolResultContent.audio(`data:audio/mpeg;base64,${wav}`, "audio/wav")
    ]))
    expect(Anthropic.toolResults([passedAsBase64])[0]!.content[0]!.content).toStrictEqual([
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdf }, title: "a.pdf" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
      { type: "text", text: "[file omitted: malformed data URL]" },
      { type: "text", text: "[audio omitted: audio/wav is not supported in tool results]" }
    ])
    expect(OpenAiChat.toolResults([passedAsBase64], { audio: true })[1]!.content).toContainEqual(
      { type: "input_audio", input_audio: { data: wav, format: "wav" } }
    )
  })

  it("Gemini sends them as inline data, recognizing an image data URL without a type, never as text", () => {
    const images = resultOf(ToolOutput.content([
      ToolResultContent.imageUrl(`data:;base64,${png}`),
      ToolResultContent.imageUrl(`data:image/x-icon;base64,${zip}`)
    ]))
    expect([Gemini.toolResults([result])[0]!.parts, Gemini.toolResults([images])[0]!.parts]).toStrictEqual([
      [{
        functionResponse: {
          id: "call_1",
          name: "some_tool",
          response: { output: "[file a.zip omitted: application/zip is not supported in a function response]" },
          parts: [
            { inlineData: { mimeType: "image/png", data: png } },
            { inlineData: { mimeType: "application/pdf", data: pdf } }
          ]
        }
      }],
      [{
        functionResponse: {
          id: "call_1",
          name: "some_tool",
          response: { output: "[image omitted: image/x-icon is not supported in a function response]" },
          parts: [{ inlineData: { mimeType: "image/png", data: png } }]
        }
      }]
    ])
  })

  it("a block's own media type wins over the URL's, and a malformed data URL is a placeholder without its data", () => {
    const out = OpenAiResponses.toolResults([resultOf(ToolOutput.content([
      ToolResultContent.fileUrl(`data:text/plain;base64,${pdf}`, "application/pdf"),
      ToolResultContent.imageUrl(`data:image/png;base64,${png}!!`),
      ToolResultContent.resourceLink({ uri: `data:text/plain;base64${zip}`, name: "notes" })
    ]))])
    expect(out).toStrictEqual([{
      type: "function_call_output",
      call_id: "call_1",
      output: [
        { type: "input_file", file_data: `data:application/pdf;base64,${pdf}`, filename: "file.pdf" },
        { type: "input_text", text: "[image omitted: malformed data URL]" },
        { type: "input_text", text: "[resource omitted: malformed data URL]" }
      ]
    }])
  })
})

// ---------------------------------------------------------------------------
// Definitions: what every adapter takes, and what each provider refuses
// ---------------------------------------------------------------------------

const Add = Tool.make("add", {
  description: "Add two integers",
  parameters: Schema.Struct({ left: Schema.Int, right: Schema.Int }),
  call: ({ left, right }) => Effect.succeed(left + right)
})

const lookup = ToolDefinition.make({
  name: "lookup",
  description: "Look a word up",
  parameters: { type: "object", properties: { word: { type: "string" } }, required: ["word"] }
})

/** Every adapter's definitions, as one list of names or the tag of the failure. */
const namesOrFailure = (tools: ReadonlyArray<Tool.Any | ToolDefinition.ToolDefinition>) => {
  const names = <A, E extends { readonly _tag: string }>(result: Result.Result<A, E>, of: (a: A) => Array<string>) =>
    Result.match(result, { onFailure: (error) => error._tag, onSuccess: of })
  return {
    chat: names(OpenAiChat.definitions(tools), (out) => out.map((tool) => tool.function.name)),
    responses: names(OpenAiResponses.definitions(tools), (out) => out.map((tool) => tool.name)),
    anthropic: names(Anthropic.definitions(tools), (out) => out.map((tool) => tool.name)),
    gemini: names(Gemini.definitions(tools), (out) => out.functionDeclarations.map((d) => d.name)),
    geminiOpenApi: names(Gemini.definitions(tools, { schema: "openApi" }), (out) => out.functionDeclarations.map((d) => d.name))
  }
}

describe("definitions", () => {
  it("take tools and definitions mixed, in any iterable, and offer a tool with its parameters", () => {
    const iterable = new Set<Tool.Any | ToolDefinition.ToolDefinition>([Add, lookup])
    expect(namesOrFailure([...iterable])).toStrictEqual({
      chat: ["add", "lookup"],
      responses: ["add", "lookup"],
      anthropic: ["add", "lookup"],
      gemini: ["add", "lookup"],
      geminiOpenApi: ["add", "lookup"]
    })
    expect(Result.getOrThrow(OpenAiChat.definitions(iterable))[0]!.function.parameters)
      .toStrictEqual(ToolDefinition.fromTool(Add).parameters)
  })

  it("a later tool of a name in a list replaces the earlier one, in its position, as ToolSet does", () => {
    const lookupAgain = ToolDefinition.make({ ...lookup, description: "Look a word up, again" })
    const out = Result.getOrThrow(Anthropic.definitions([lookup, Add, lookupAgain]))
    expect(out.map((tool) => [tool.name, tool.description])).toStrictEqual([
      ["lookup", "Look a word up, again"],
      ["add", ToolDefinition.fromTool(Add).description]
    ])
    expect(namesOrFailure([lookup, Add, lookupAgain])).toStrictEqual({
      chat: ["lookup", "add"],
      responses: ["lookup", "add"],
      anthropic: ["lookup", "add"],
      gemini: ["lookup", "add"],
      geminiOpenApi: ["lookup", "add"]
    })
  })

  it("refuses an entry that is neither a Tool nor a ToolDefinition with a typed error, never throwing", () => {
    const entries: ReadonlyArray<unknown> = [
      { name: "plain", description: "d", parameters: { type: "object", properties: {} } },
      { name: "bare" },
      null,
      "lookup"
    ]
    for (const entry of entries) {
      const tools = [lookup, entry] as unknown as ReadonlyArray<ToolDefinition.ToolDefinition>
      expect(namesOrFailure(tools)).toStrictEqual({
        chat: "InvalidToolNameError",
        responses: "InvalidToolNameError",
        anthropic: "InvalidToolNameError",
        gemini: "InvalidToolNameError",
        geminiOpenApi: "InvalidToolNameError"
      })
    }
    const refused = Anthropic.definitions([entries[0]] as unknown as ReadonlyArray<ToolDefinition.ToolDefinition>)
    expect(refused).toStrictEqual(Result.fail(
      new Anthropic.InvalidToolNameError({
        toolName: "plain",
        provider: "Anthropic",
        rule: "^[a-zA-Z0-9_-]{1,64}$",
        message:
          "Anthropic cannot offer the tool entry `plain`: it is neither a Tool nor a ToolDefinition (make one with Tool.make or ToolDefinition.make)"
      })
    ))
  })

  it("a Tool is never a ToolDefinition, for the type checker or at run time", () => {
    expectTypeOf<Tool.Any>().not.toExtend<ToolDefinition.ToolDefinition>()
    expectTypeOf<ReadonlyArray<typeof Add>>().toExtend<Parameters<typeof OpenAiChat.definitions>[0]>()
    const plain = { name: "x", description: "d", parameters: {}, annotations: {} }
    // @ts-expect-error a plain object of the same shape is not a definition
    const notDefinition: ToolDefinition.ToolDefinition = plain
    // Nor, at run time, is a spread copy of one: the brand does not travel.
    const copy: unknown = { ...lookup }
    expect([ToolDefinition.isToolDefinition(notDefinition), ToolDefinition.isToolDefinition(copy)]).toStrictEqual([
      false,
      false
    ])
    expect([ToolDefinition.isToolDefinition(Add), ToolDefinition.isToolDefinition(lookup)]).toStrictEqual([false, true])
  })

  it.each([
    ["has a dot", "search.web", { chat: "InvalidToolNameError", anthropic: "InvalidToolNameError", gemini: ["search.web"] }],
    ["has a colon", "ns:lookup", { chat: "InvalidToolNameError", anthropic: "InvalidToolNameError", gemini: ["ns:lookup"] }],
    ["starts with a digit", "1lookup", { chat: ["1lookup"], anthropic: ["1lookup"], gemini: "InvalidToolNameError" }],
    ["has a space", "look up", { chat: "InvalidToolNameError", anthropic: "InvalidToolNameError", gemini: "InvalidToolNameError" }],
    ["is empty", "", { chat: "InvalidToolNameError", anthropic: "InvalidToolNameError", gemini: "InvalidToolNameError" }],
    ["has 65 characters", "a".repeat(65), {
      chat: "InvalidToolNameError",
      anthropic: "InvalidToolNameError",
      gemini: ["a".repeat(65)]
    }],
    ["has 129 characters", "a".repeat(129), {
      chat: "InvalidToolNameError",
      anthropic: "InvalidToolNameError",
      gemini: "InvalidToolNameError"
    }]
  ] as const)("a name that %s is refused by exactly the providers whose rule refuses it", (_, name, expected) => {
    const out = namesOrFailure([ToolDefinition.make({ ...lookup, name })])
    expect(out).toStrictEqual({
      chat: expected.chat,
      responses: expected.chat,
      anthropic: expected.anthropic,
      gemini: expected.gemini,
      geminiOpenApi: expected.gemini
    })
  })

  it("InvalidToolNameError names the provider and its rule, and at most 64 characters of the name", () => {
    const out = Anthropic.definitions([ToolDefinition.make({ ...lookup, name: `${"x".repeat(100)}.y` })])
    assert(Result.isFailure(out))
    expect(out.failure).toStrictEqual(new Anthropic.InvalidToolNameError({
      toolName: `${"x".repeat(64)}…`,
      provider: "Anthropic",
      rule: "^[a-zA-Z0-9_-]{1,64}$",
      message: `Anthropic refuses the tool name \`${"x".repeat(64)}…\`: a name must match ^[a-zA-Z0-9_-]{1,64}$`
    }))
  })
})

describe("a union at the top of the parameters", () => {
  const ShapeParameters = Schema.Union([
    Schema.Struct({ kind: Schema.Literal("circle"), radius: Schema.Finite, label: Schema.optionalKey(Schema.String) }),
    Schema.Struct({ kind: Schema.Literal("box"), width: Schema.Finite, label: Schema.String })
  ])
  const Shape = Tool.make("shape", {
    description: "Draw a shape",
    parameters: ShapeParameters,
    call: () => Effect.succeed("drawn")
  })
  const lowered = {
    type: "object",
    description: "Arguments take one of these forms: (1) kind = \"circle\", with radius; (2) kind = \"box\", with width, label.",
    properties: {
      kind: { anyOf: [{ type: "string", enum: ["circle"] }, { type: "string", enum: ["box"] }] },
      radius: { type: "number" },
      label: { type: "string" },
      width: { type: "number" }
    },
    required: ["kind"],
    additionalProperties: false
  }

  it("is offered as one object by every adapter, which every provider takes at the top", () => {
    expect(ToolDefinition.fromTool(Shape).parameters.anyOf).toBeDefined()
    expect([
      Result.getOrThrow(OpenAiChat.definitions([Shape]))[0]!.function.parameters,
      Result.getOrThrow(OpenAiResponses.definitions([Shape]))[0]!.parameters,
      Result.getOrThrow(Anthropic.definitions([Shape]))[0]!.input_schema,
      Result.getOrThrow(Gemini.definitions([Shape])).functionDeclarations[0]!.parametersJsonSchema
    ]).toStrictEqual([lowered, lowered, lowered, lowered])
  })

  it("lowered, still satisfies each strict compiler and Gemini's Schema subset", () => {
    const strictChat = Result.getOrThrow(OpenAiChat.definitions([Shape], { strict: true }))[0]!.function.parameters
    expect(strictChat).toStrictEqual({
      type: "object",
      description: lowered.description,
      properties: {
        kind: { anyOf: [{ type: "string", enum: ["circle"] }, { type: "string", enum: ["box"] }] },
        radius: { type: ["number", "null"] },
        label: { type: ["string", "null"] },
        width: { type: ["number", "null"] }
      },
      required: ["kind", "radius", "label", "width"],
      additionalProperties: false
    })
    expect(Result.getOrThrow(Anthropic.definitions([Shape], { strict: true }))[0]!.input_schema).toStrictEqual(lowered)
    expect(Result.getOrThrow(Gemini.definitions([Shape], { schema: "openApi" })).functionDeclarations[0]!.parameters)
      .toStrictEqual({
        type: "OBJECT",
        description: lowered.description,
        properties: {
          kind: { anyOf: [{ type: "STRING", enum: ["circle"] }, { type: "STRING", enum: ["box"] }] },
          radius: { type: "NUMBER" },
          label: { type: "STRING" },
          width: { type: "NUMBER" }
        },
        required: ["kind"]
      })
  })

  it.effect("a strict model's arguments for the lowered object reach the tool as the branch they belong to", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const Draw = Tool.make("draw", {
        description: "Draw a shape",
        parameters: ShapeParameters,
        call: (shape) => Effect.sync(() => seen.push(shape)).pipe(Effect.as("drawn"))
      })
      const set = ToolSet.make(Draw)
      const calls = OpenAiChat.toolCalls({
        tool_calls: [
          { kind: "circle", radius: 1, label: null, width: null },
          { kind: "box", radius: null, label: "b", width: 2 }
        ].map((args, i) => ({
          id: `call_${i}`,
          type: "function",
          function: { name: "draw", arguments: JSON.stringify(args) }
        }))
      }, { tools: set, strict: true })
      const results = yield* ToolSet.executeAll(set, calls)
      expect(results.map((result) => result.status)).toStrictEqual(["success", "success"])
      expect(seen).toStrictEqual([{ kind: "circle", radius: 1 }, { kind: "box", width: 2, label: "b" }])
    }))

  it("with a branch that is not an object, fails with TopLevelUnionError in every adapter", () => {
    const mixed = ToolDefinition.make({
      name: "mixed",
      description: "d",
      parameters: { type: "object", anyOf: [{ type: "object", properties: {} }, { type: "string" }] }
    })
    expect(namesOrFailure([mixed])).toStrictEqual({
      chat: "TopLevelUnionError",
      responses: "TopLevelUnionError",
      anthropic: "TopLevelUnionError",
      gemini: "TopLevelUnionError",
      geminiOpenApi: "TopLevelUnionError"
    })
    const out = Gemini.definitions([mixed])
    assert(Result.isFailure(out))
    expect(out.failure).toStrictEqual(new Gemini.TopLevelUnionError({
      toolName: "mixed",
      provider: "Gemini",
      reason: "the branch at /anyOf/1 is not an object schema",
      message:
        "tool `mixed`: its parameters are a union that cannot be offered as one object: the branch at /anyOf/1 is not an object schema"
    }))
  })

  it("with a oneOf branch that is not an object, names the branch under oneOf, the keyword the schema has", () => {
    const mixed = ToolDefinition.make({
      name: "mixed",
      description: "d",
      parameters: {
        type: "object",
        properties: { x: { type: "string" } },
        oneOf: [{ type: "object", properties: { x: { type: "string" } } }, { type: "string" }]
      }
    })
    const out = OpenAiChat.definitions([mixed])
    assert(Result.isFailure(out))
    expect(out.failure).toStrictEqual(new OpenAiChat.TopLevelUnionError({
      toolName: "mixed",
      provider: "OpenAI",
      reason: "the branch at /oneOf/1 is not an object schema",
      message: "tool `mixed`: its parameters are a union that cannot be offered as one object: " +
        "the branch at /oneOf/1 is not an object schema"
    }))
  })
})

describe("not, enum and const at the top of the parameters", () => {
  const a = { type: "string" }
  const b = { type: "string" }
  // "At most one of a and b", a common MCP pattern, and the whole object as an enum or a constant.
  const cases: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ["not", { not: { required: ["a", "b"] } }],
    ["enum", { enum: [{ a: "x" }, { a: "y" }] }],
    ["const", { const: { a: "x" } }]
  ]
  const definitionOf = (extra: Record<string, unknown>) =>
    ToolDefinition.make({
      name: "pick",
      description: "d",
      parameters: { type: "object", properties: { a, b }, ...extra }
    })
  const plain = { type: "object", properties: { a, b } }
  const strict = {
    type: "object",
    properties: { a: { type: ["string", "null"] }, b: { type: ["string", "null"] } },
    required: ["a", "b"],
    additionalProperties: false
  }

  it("are left out where the provider refuses them (OpenAI in any mode, strict tool use, Gemini's subset)", () => {
    for (const [keyword, extra] of cases) {
      const definition = definitionOf(extra)
      const strictAnthropic = Result.getOrThrow(Anthropic.definitions([definition], { strict: true }))[0]!.input_schema
      expect({
        chat: Result.getOrThrow(OpenAiChat.definitions([definition]))[0]!.function.parameters,
        chatStrict: Result.getOrThrow(OpenAiChat.definitions([definition], { strict: true }))[0]!.function.parameters,
        responses: Result.getOrThrow(OpenAiResponses.definitions([definition]))[0]!.parameters,
        responsesStrict: Result.getOrThrow(OpenAiResponses.definitions([definition], { strict: true }))[0]!.parameters,
        anthropicStrict: strictAnthropic,
        geminiOpenApi: Result.getOrThrow(Gemini.definitions([definition], { schema: "openApi" }))
          .functionDeclarations[0]!.parameters
      }, keyword).toStrictEqual({
        chat: plain,
        chatStrict: strict,
        responses: plain,
        responsesStrict: strict,
        anthropicStrict: { ...plain, additionalProperties: false },
        geminiOpenApi: { type: "OBJECT", properties: { a: { type: "STRING" }, b: { type: "STRING" } } }
      })
    }
  })

  it("are kept where the provider takes them (Anthropic's input_schema, Gemini's parametersJsonSchema)", () => {
    for (const [keyword, extra] of cases) {
      const definition = definitionOf(extra)
      expect([
        Result.getOrThrow(Anthropic.definitions([definition]))[0]!.input_schema,
        Result.getOrThrow(Gemini.definitions([definition])).functionDeclarations[0]!.parametersJsonSchema
      ], keyword).toStrictEqual([{ ...plain, ...extra }, { ...plain, ...extra }])
    }
  })

  it.effect("left out of the schema offered, are still checked by dispatch against the tool's own", () =>
    Effect.gen(function*() {
      const Pick = DynamicTool.make("pick", {
        description: "d",
        parameters: { type: "object", properties: { a, b }, not: { required: ["a", "b"] } },
        call: () => Effect.succeed("picked")
      })
      const set = ToolSet.make(Pick)
      const offered = Result.getOrThrow(OpenAiChat.definitions(set, { strict: true }))[0]!.function.parameters
      expect(offered).toStrictEqual(strict)
      const calls = OpenAiChat.toolCalls({
        tool_calls: [{ a: "x", b: null }, { a: "x", b: "y" }].map((args, i) => ({
          id: `call_${i}`,
          type: "function",
          function: { name: "pick", arguments: JSON.stringify(args) }
        }))
      }, { tools: set, strict: true })
      const results = yield* ToolSet.executeAll(set, calls)
      expect(results.map((result) => [result.status, result.error._tag === "Some" ? result.error.value.kind : ""]))
        .toStrictEqual([["success", ""], ["error", "invalid_args"]])
    }))
})

describe("parameters whose type at the top is not an object", () => {
  it("fail with NonObjectParametersError naming the tool in every adapter, in every mode", () => {
    for (const type of ["string", ["string", "null"]]) {
      const text = ToolDefinition.make({ name: "text", description: "d", parameters: { type } })
      expect({
        ...namesOrFailure([text]),
        chatStrict: Result.match(OpenAiChat.definitions([text], { strict: true }), {
          onFailure: (error) => error._tag,
          onSuccess: () => "offered"
        }),
        anthropicStrict: Result.match(Anthropic.definitions([text], { strict: true }), {
          onFailure: (error) => error._tag,
          onSuccess: () => "offered"
        })
      }).toStrictEqual({
        chat: "NonObjectParametersError",
        responses: "NonObjectParametersError",
        anthropic: "NonObjectParametersError",
        gemini: "NonObjectParametersError",
        geminiOpenApi: "NonObjectParametersError",
        chatStrict: "NonObjectParametersError",
        anthropicStrict: "NonObjectParametersError"
      })
    }
    const text = ToolDefinition.make({ name: "text", description: "d", parameters: { type: "string" } })
    const out = Gemini.definitions([text])
    assert(Result.isFailure(out))
    expect(out.failure).toStrictEqual(new Gemini.NonObjectParametersError({
      toolName: "text",
      provider: "Gemini",
      type: "\"string\"",
      message: "tool `text`: its parameters are of type \"string\", not an object: tool arguments are always a JSON " +
        "object, so no call of it could be valid"
    }))
    expectTypeOf<Anthropic.DefinitionsError>().toExtend<{ readonly _tag: string }>()
    expectTypeOf<Anthropic.NonObjectParametersError>().toExtend<Anthropic.DefinitionsError>()
    expectTypeOf<OpenAiChat.NonObjectParametersError>().toExtend<OpenAiChat.DefinitionsError>()
    expectTypeOf<OpenAiResponses.NonObjectParametersError>().toExtend<OpenAiResponses.DefinitionsError>()
  })

  it("are refused even beside a union of objects, which alone would be lowered to one", () => {
    const odd = ToolDefinition.make({
      name: "odd",
      description: "d",
      parameters: { type: "string", anyOf: [{ type: "object", properties: { a: { type: "string" } } }] }
    })
    expect(namesOrFailure([odd]).chat).toBe("NonObjectParametersError")
  })
})

describe("a runtime tool's parameters, whatever their root", () => {
  const runtime = (parameters: Record<string, unknown>) =>
    DynamicTool.make("list_things", { description: "d", parameters, call: () => Effect.succeed("ok") })
  const q = { type: "string" }
  const args = { type: "object", properties: { q }, required: ["q"], additionalProperties: false }
  // Each as DynamicTool.make accepts it, and as every adapter offers it: OpenAI refuses each of the first with a 400
  // ("object schema missing properties", "schema must be a JSON Schema of 'type: \"object\"'").
  const cases: ReadonlyArray<readonly [string, Record<string, unknown>, Record<string, unknown>]> = [
    ["MCP's Go SDK, without arguments", { type: "object" }, { type: "object", properties: {} }],
    ["closed, without arguments", { type: "object", additionalProperties: false }, {
      type: "object",
      additionalProperties: false,
      properties: {}
    }],
    ["empty", {}, { type: "object", properties: {} }],
    ["properties without a type", { properties: { q }, required: ["q"] }, {
      type: "object",
      properties: { q },
      required: ["q"]
    }],
    ["a nullable root", { type: ["object", "null"], properties: { q } }, { type: "object", properties: { q } }],
    [
      "zod-to-json-schema with a name: a root $ref",
      { $ref: "#/definitions/Args", definitions: { Args: args }, $schema: "http://json-schema.org/draft-07/schema#" },
      // Offered in 2020-12 (see the test below): a draft-07 `$schema` goes.
      { ...args, definitions: { Args: args } }
    ],
    [
      "zod's .and(): a root allOf",
      {
        allOf: [
          { type: "object", properties: { a: q }, required: ["a"] },
          { type: "object", properties: { b: { type: "integer" } } }
        ]
      },
      { type: "object", properties: { a: q, b: { type: "integer" } }, required: ["a"] }
    ]
  ]

  it("is offered by every adapter as one object with properties at the top", () => {
    for (const [label, given, offered] of cases) {
      const set = ToolSet.make(runtime(given))
      expect([
        Result.getOrThrow(OpenAiChat.definitions(set))[0]!.function.parameters,
        Result.getOrThrow(OpenAiResponses.definitions(set))[0]!.parameters,
        Result.getOrThrow(Anthropic.definitions(set))[0]!.input_schema,
        Result.getOrThrow(Gemini.definitions(set)).functionDeclarations[0]!.parametersJsonSchema
      ], label).toStrictEqual([offered, offered, offered, offered])
    }
  })

  it("of an earlier draft, or of any published MCP server, is offered as valid 2020-12, which Anthropic requires", () => {
    // Anthropic answers a whole request with a 400 when one input_schema is not valid against the 2020-12
    // meta-schema ("JSON schema is invalid. It must match JSON Schema draft 2020-12"): a draft-07 tuple is not.
    const metaSchema = new Ajv2020({ strict: false })
    const given = [
      ["draft-07", draft07Schema],
      ["2020-12", draft2020Schema],
      ["2019-09", {
        $schema: "https://json-schema.org/draft/2019-09/schema",
        $recursiveAnchor: true,
        type: "object",
        properties: { pair: { type: "array", items: [{ type: "number" }, { type: "number" }] }, next: { $recursiveRef: "#" } }
      }],
      ...catalogueTools.map((tool) => [tool.name, tool.inputSchema] as const)
    ] as const
    const invalid: Array<string> = []
    for (const [label, parameters] of given) {
      const set = ToolSet.make(runtime(parameters as Record<string, unknown>))
      const offered = [
        Result.getOrThrow(OpenAiChat.definitions(set))[0]!.function.parameters,
        Result.getOrThrow(OpenAiResponses.definitions(set))[0]!.parameters,
        Result.getOrThrow(Anthropic.definitions(set))[0]!.input_schema,
        Result.getOrThrow(Gemini.definitions(set)).functionDeclarations[0]!.parametersJsonSchema
      ]
      for (const schema of offered) if (!metaSchema.validateSchema(schema as object)) invalid.push(label)
    }
    expect(invalid).toStrictEqual([])
    expect(given.length).toBeGreaterThan(90)
  })

  it("an allOf at the top that no single object stands for exactly fails with TopLevelUnionError in every adapter", () => {
    const closed = (key: string) => ({ type: "object", properties: { [key]: q }, additionalProperties: false })
    const Both = runtime({ allOf: [closed("a"), closed("b")] })
    expect(namesOrFailure([Both])).toStrictEqual({
      chat: "TopLevelUnionError",
      responses: "TopLevelUnionError",
      anthropic: "TopLevelUnionError",
      gemini: "TopLevelUnionError",
      geminiOpenApi: "TopLevelUnionError"
    })
    const out = Anthropic.definitions([Both])
    assert(Result.isFailure(out))
    expect(out.failure).toStrictEqual(new Anthropic.TopLevelUnionError({
      toolName: "list_things",
      provider: "Anthropic",
      reason: "its parts cannot be merged exactly: its parts close their objects over different properties",
      message: "tool `list_things`: its parameters are an intersection (`allOf`) that cannot be offered as one object: " +
        "its parts cannot be merged exactly: its parts close their objects over different properties"
    }))
  })
})

describe("toolResults of no results", () => {
  it("is nothing to append, in every adapter: an empty message is refused by the APIs", () => {
    expect([
      OpenAiChat.toolResults([]),
      OpenAiResponses.toolResults([]),
      Anthropic.toolResults([]),
      Gemini.toolResults([]),
      Gemini.toolResults([], { media: "separate" })
    ]).toStrictEqual([[], [], [], [], []])
  })
})

describe("ToolDefinition.make", () => {
  it("builds a definition whose brand is not a field: it serializes to its fields alone", () => {
    const definition = ToolDefinition.make({
      name: "lookup",
      description: "Look a word up",
      parameters: { type: "object", properties: {}, required: [] }
    })
    expect([
      ToolDefinition.isToolDefinition(definition),
      Object.keys(definition),
      JSON.parse(JSON.stringify(definition))
    ]).toStrictEqual([
      true,
      ["name", "description", "parameters", "annotations"],
      { name: "lookup", description: "Look a word up", parameters: { type: "object", properties: {}, required: [] }, annotations: {} }
    ])
  })
})

// ---------------------------------------------------------------------------
// Reading transcripts never throws
// ---------------------------------------------------------------------------

/** What a generated transcript entry is: garbage, something whose reads throw, or a call with hostile fields. */
const EntryKind = Schema.Literals(["null", "number", "string", "array", "throwingProxy", "revokedProxy", "typeThrows", "call"])
const FieldKind = Schema.Literals(["ok", "missing", "throws", "wrongType"])
const EntrySpec = Schema.Struct({
  kind: EntryKind,
  id: FieldKind,
  name: FieldKind,
  args: FieldKind,
  /** Chat's `function` object, and Gemini's `functionCall`. */
  holder: Schema.Literals(["ok", "missing", "throws", "null"])
})
type EntrySpec = typeof EntrySpec.Type
const TranscriptSpec = Schema.Struct({
  entries: Schema.Array(EntrySpec),
  container: Schema.Literals(["ok", "throws", "entryThrows"])
})

const revokedProxy = (): object => {
  const { proxy, revoke } = Proxy.revocable([], {})
  revoke()
  return proxy
}

/** An object with the given fields, each given as it is, left out, made a getter that throws, or given a wrong type. */
const objectOf = (fields: ReadonlyArray<readonly [string, Schema.Schema.Type<typeof FieldKind> | "null", unknown]>) => {
  const out: Record<string, unknown> = {}
  for (const [key, kind, value] of fields) {
    if (kind === "ok") out[key] = value
    else if (kind === "wrongType") out[key] = 42
    else if (kind === "null") out[key] = null
    else if (kind === "throws") {
      Object.defineProperty(out, key, {
        enumerable: true,
        get: () => {
          throw new Error("getter")
        }
      })
    }
  }
  return out
}

/** A transcript entry in a provider's shape, built from its spec. */
const entryOf = (
  spec: EntrySpec,
  index: number,
  shape: (spec: EntrySpec, fields: { id: string; name: string; args: unknown }) => unknown
): unknown => {
  switch (spec.kind) {
    case "null":
      return null
    case "number":
      return index
    case "string":
      return "tool_use"
    case "array":
      return [spec]
    case "throwingProxy":
      return throwingProxy()
    case "revokedProxy":
      return revokedProxy()
    case "typeThrows":
      return objectOf([["type", "throws", undefined], ["functionCall", "throws", undefined]])
    case "call":
      return shape(spec, { id: `id_${index}`, name: `tool_${index}`, args: { n: index } })
  }
}

const containerOf = (entries: Array<unknown>, container: "ok" | "throws" | "entryThrows"): Array<unknown> => {
  if (container === "ok") return entries
  return new Proxy(entries, {
    get: (target, key, receiver) => {
      if (container === "throws" || (key !== "length" && typeof key === "string" && /^\d+$/.test(key))) {
        throw new Error("container")
      }
      return Reflect.get(target, key, receiver)
    }
  })
}

/** What a call's name must read as: the name it was given, or `""` when it could not be read or was no string. */
const expectedName = (spec: EntrySpec, index: number): string =>
  spec.name === "ok" && spec.holder === "ok" ? `tool_${index}` : ""

const adapters: ReadonlyArray<readonly [string, {
  readonly shape: (spec: EntrySpec, fields: { id: string; name: string; args: unknown }) => unknown
  readonly read: (entries: Array<unknown>, container: "ok" | "throws" | "entryThrows") => ReadonlyArray<unknown>
  readonly nameOf: (spec: EntrySpec, index: number) => string
}]> = [
  ["OpenAiChat", {
    shape: (spec, { args, id, name }) =>
      objectOf([
        ["type", "ok", "function"],
        ["id", spec.id, id],
        ["function", spec.holder, objectOf([["name", spec.name, name], ["arguments", spec.args, JSON.stringify(args)]])]
      ]),
    read: (entries, container) =>
      OpenAiChat.toolCalls(
        objectOf([["tool_calls", container === "throws" ? "throws" : "ok", containerOf(entries, container)]]) as never
      ),
    nameOf: expectedName
  }],
  ["OpenAiResponses", {
    shape: (spec, { args, id, name }) =>
      objectOf([
        ["type", "ok", "function_call"],
        ["call_id", spec.id, id],
        ["name", spec.name, name],
        ["arguments", spec.args, JSON.stringify(args)]
      ]),
    read: (entries, container) => OpenAiResponses.toolCalls(containerOf(entries, container) as never),
    nameOf: (spec, index) => spec.name === "ok" ? `tool_${index}` : ""
  }],
  ["Anthropic", {
    shape: (spec, { args, id, name }) =>
      objectOf([["type", "ok", "tool_use"], ["id", spec.id, id], ["name", spec.name, name], ["input", spec.args, args]]),
    read: (entries, container) => Anthropic.toolCalls(containerOf(entries, container) as never),
    nameOf: (spec, index) => spec.name === "ok" ? `tool_${index}` : ""
  }],
  ["Gemini", {
    shape: (spec, { args, id, name }) =>
      objectOf([["functionCall", spec.holder === "null" ? "null" : spec.holder === "ok" ? "ok" : spec.holder, objectOf([
        ["id", spec.id, id],
        ["name", spec.name, name],
        ["args", spec.args, args]
      ])]]),
    read: (entries, container) =>
      Gemini.toolCalls(objectOf([["parts", container === "throws" ? "throws" : "ok", containerOf(entries, container)]]) as never),
    nameOf: expectedName
  }]
]

/** Whether an entry is known to be a call, in a provider's shape: its type (or Gemini's `functionCall`) reads as one. */
const isCall = (adapter: string, spec: EntrySpec): boolean =>
  spec.kind === "call" && (adapter !== "Gemini" || spec.holder === "ok")

describe("toolCalls of every adapter", () => {
  it.prop(
    "never throws on a hostile transcript: every entry known to be a call is a call, with \"\" for what cannot be read",
    [TranscriptSpec],
    ([{ container, entries: specs }]) => {
      for (const [adapter, { nameOf, read, shape }] of adapters) {
        const entries = specs.map((spec, index) => entryOf(spec, index, shape))
        const calls = read(entries, container) as ReadonlyArray<{ id: string; name: string; arguments: unknown }>
        const expected = container === "ok"
          ? specs.flatMap((spec, index) => isCall(adapter, spec) ? [nameOf(spec, index)] : [])
          : []
        expect({ adapter, names: calls.map((call) => call.name) }).toStrictEqual({ adapter, names: expected })
        const callSpecs = specs.filter((spec) => isCall(adapter, spec))
        calls.forEach((call, i) => {
          const spec = callSpecs[i]!
          expect(typeof call.id).toBe("string")
          if (spec.id === "throws" && (adapter !== "OpenAiChat" || spec.holder !== "throws")) {
            // Responses falls back to the item's `id`, which these entries do not have.
            expect({ adapter, id: call.id }).toStrictEqual({ adapter, id: "" })
          }
          if (spec.args === "throws" || (adapter === "OpenAiChat" && spec.holder !== "ok")) {
            expect({ adapter, arguments: call.arguments }).toStrictEqual({ adapter, arguments: "" })
          }
        })
      }
    }
  )
})

// ---------------------------------------------------------------------------
// Renderers are total
// ---------------------------------------------------------------------------

const BlockKind = Schema.Literals([
  "text",
  "textWrongType",
  "json",
  "jsonDeep",
  "jsonHuge",
  "jsonCycle",
  "jsonBigInt",
  "jsonGetterThrows",
  "imageBase64",
  "imageUrl",
  "imageDataUrl",
  "imageDataUrlNoType",
  "imageMalformed",
  "imageWrongSource",
  "audio",
  "audioWrongType",
  "fileBase64",
  "fileUrl",
  "fileDataUrl",
  "fileMalformed",
  "filePercentDataUrl",
  "link",
  "linkDataUrl",
  "linkMalformed",
  "plainObject",
  "throwingProxy",
  "tagThrows",
  "null"
])
const MediaType = Schema.Union([
  Schema.Literals(["image/png", "image/jpeg", "image/bmp", "application/pdf", "text/plain", "audio/wav", "application/zip"]),
  Schema.String,
  Schema.Undefined
])
const BlockSpec = Schema.Struct({ kind: BlockKind, text: Schema.String, mediaType: MediaType, seed: Schema.String })
const ResultSpec = Schema.Struct({
  blocks: Schema.Array(BlockSpec),
  status: Schema.Union([Schema.Literals(["success", "error", "denied", "skipped"]), Schema.String]),
  callId: Schema.Union([Schema.String, Schema.Finite]),
  output: Schema.Literals(["ok", "throws", "notAnArray"])
})
type BlockSpec = typeof BlockSpec.Type

/** Any string as ASCII (its UTF-16 units in base 36): usable in a URL and in `btoa`, lone surrogates included. */
const ascii = (text: string): string => Array.from({ length: text.length }, (_, i) => text.charCodeAt(i).toString(36)).join(".")

/** The base64 a block carries: distinct per block, long enough that no other generated text holds it by chance. */
const payloadOf = (spec: BlockSpec, index: number): string =>
  btoa(`payload ${index} ${ascii(spec.seed)} that must never be read as text`)

const deep = (depth: number): unknown => {
  let value: unknown = "bottom"
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { next: value }
  return value
}

/** A block as hostile code might build it: through the constructors with fields of any type, or by hand. */
const blockOf = (spec: BlockSpec, index: number): unknown => {
  const data = payloadOf(spec, index)
  const mediaType = spec.mediaType
  // A comma ends a data URL's header: one in the media type would make the payload the URL's plain-text content
  // (`data:,;base64,…`), which adapters rightly show as text. The payload of these URLs is base64.
  const urlType = mediaType?.replaceAll(",", "")
  const make = <A>(Block: new(fields: never) => A, fields: Record<string, unknown>): A => new Block(fields as never)
  switch (spec.kind) {
    case "text":
      return ToolResultContent.text(spec.text)
    case "textWrongType":
      return make(ToolResultContent.Text, { text: { toString: () => data } })
    case "json":
      return ToolResultContent.json({ text: spec.text, list: [1, null, true] })
    case "jsonDeep":
      return make(ToolResultContent.Json, { value: deep(300 + spec.text.length) })
    case "jsonHuge":
      return make(ToolResultContent.Json, { value: Array.from({ length: 20_000 }, (_, i) => ({ i, text: spec.text })) })
    case "jsonCycle": {
      const value: Record<string, unknown> = { text: spec.text }
      value.self = { back: value }
      return make(ToolResultContent.Json, { value })
    }
    case "jsonBigInt":
      return make(ToolResultContent.Json, { value: { big: 10n ** 30n } })
    case "jsonGetterThrows":
      return make(ToolResultContent.Json, {
        value: Object.defineProperty({}, "secret", {
          enumerable: true,
          get: () => {
            throw new Error(data)
          }
        })
      })
    case "imageBase64":
      return ToolResultContent.imageBase64(data, mediaType)
    case "imageUrl":
      return ToolResultContent.imageUrl(`https://example.com/${ascii(spec.text)}`, mediaType)
    case "imageDataUrl":
      return ToolResultContent.imageUrl(`data:${urlType ?? "image/png"};base64,${data}`)
    case "imageDataUrlNoType":
      return ToolResultContent.imageUrl(`data:;base64,${data}`, mediaType)
    case "imageMalformed":
      return ToolResultContent.imageUrl(`data:image/png;base64,${data}%%`)
    case "imageWrongSource":
      return make(ToolResultContent.Image, { source: { _tag: "Base64", data: [data] }, mediaType: 7, detail: "max" })
    case "audio":
      return ToolResultContent.audio(data, mediaType ?? "audio/wav")
    case "audioWrongType":
      return make(ToolResultContent.Audio, { data, mediaType: { type: "audio/wav" } })
    case "fileBase64":
      return ToolResultContent.fileBase64(data, mediaType ?? "application/pdf", spec.text)
    case "fileUrl":
      return ToolResultContent.fileUrl(`https://example.com/${ascii(spec.text)}`, mediaType ?? "application/pdf")
    case "fileDataUrl":
      return ToolResultContent.fileUrl(`data:${urlType ?? "application/zip"};base64,${data}`, mediaType as string)
    case "fileMalformed":
      return ToolResultContent.fileUrl(`data:application/zip;base64${data}`, "application/zip")
    case "filePercentDataUrl":
      return ToolResultContent.fileUrl(`data:text/plain,${ascii(spec.text)}`, "text/plain")
    case "link":
      return ToolResultContent.resourceLink({ uri: `https://example.com/${ascii(spec.text)}`, name: spec.text })
    case "linkDataUrl":
      return ToolResultContent.resourceLink({ uri: `data:${urlType ?? ""};base64,${data}`, name: spec.text })
    case "linkMalformed":
      return ToolResultContent.resourceLink({ uri: `data:application/pdf;base64,${data}=====`, name: spec.text })
    case "plainObject":
      return { _tag: "File", source: { _tag: "Url", url: `data:application/zip;base64,${data}` }, mediaType }
    case "throwingProxy":
      return throwingProxy()
    case "tagThrows":
      return Object.defineProperty({}, "_tag", {
        get: () => {
          throw new Error(data)
        }
      })
    case "null":
      return null
  }
}

const resultFrom = (spec: typeof ResultSpec.Type): ToolResult.ToolResult => {
  const content = spec.blocks.map(blockOf)
  const output = spec.output === "ok"
    ? { content }
    : spec.output === "notAnArray"
    ? { content: { 0: content[0], length: 1 } }
    : Object.defineProperty({}, "content", {
      get: () => {
        throw new Error("output")
      }
    })
  return new ToolResultClass({
    callId: spec.callId as string,
    name: "some_tool",
    arguments: {},
    status: spec.status as ToolResult.Status,
    output: output as ToolOutput.ToolOutput,
    error: Option.some(ToolExecutionError.other("failed")),
    metadata: Context.empty(),
    durationMs: 1
  })
}


describe("toolResults of every adapter", () => {
  it.prop(
    "is total: any result built by hand renders to JSON, without throwing, and no base64 lands in a text field",
    [ResultSpec],
    ([spec]) => {
      const result = resultFrom(spec)
      const payloads = spec.blocks.map(payloadOf)
      for (const [adapter, render] of renderings) {
        const rendered = render(result)
        expect(() => JSON.stringify(rendered), adapter).not.toThrow()
      }
      for (const [adapter, textsOf] of renderers) {
        const leaks = textsOf(result).filter((text) => payloads.some((data) => text.includes(data)))
        expect({ adapter, leaks }).toStrictEqual({ adapter, leaks: [] })
      }
      // Anthropic answers 400 for a block but text in a result with `is_error` ("all content must be type text if
      // is_error is true"), and for a text block without non-whitespace text.
      const refused = Anthropic.toolResults([result]).flatMap((message) => message.content).flatMap((block) =>
        block.content.filter((part) =>
          part.type === "text" ? part.text.trim() === "" : block.is_error
        ).map((part) => ({ is_error: block.is_error, part }))
      )
      expect(refused).toStrictEqual([])
    },
    { arbitrary: { runs: 200 } }
  )
})
