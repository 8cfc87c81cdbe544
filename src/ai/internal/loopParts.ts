/**
 * What the tool loop translates between effect/ai and our dispatch: the tools offered to the model, the model's tool
 * calls as our calls, the model's turns and our results as the transcript's messages.
 *
 * The transcript's parts and messages are built here as object literals of the shape effect/ai's constructors give
 * (`Prompt.makePart`, `Prompt.makeMessage`, `Prompt.fromResponseParts`), which the tests hold them to. Those
 * constructors spread their arguments into an object and then add its brand, and V8 takes a slow path for a spread
 * followed by more properties: microseconds per part on Node 20, more than executing a simple call. A turn builds a
 * part per call and per result, so the loop would cost several times the calls it runs.
 */
import { Effect, Option } from "effect"
import { AiError, Prompt, type Response, type Tool as AiTool, type Toolkit } from "effect/ai"
import { prefixParts, statusPrefix } from "../../internal/providerContent.ts"
import * as ToolCall from "../../ToolCall.ts"
import type { ToolOutput } from "../../ToolOutput.ts"
import type { ToolResult } from "../../ToolResult.ts"
import type * as ToolSet from "../../ToolSet.ts"
import * as AiToolkit from "../AiToolkit.ts"
import { jsonOf, modelParts } from "./modelOutput.ts"

// ---------------------------------------------------------------------------
// Tools offered
// ---------------------------------------------------------------------------

/** A toolkit whose tools are only offered: the loop resolves every call itself, through our dispatch. */
export type Offered = Toolkit.WithHandler<Record<string, AiTool.Any>>

/**
 * Never asked for: the loop asks with tool-call resolution off. Should effect/ai ever call it (a prompt carrying
 * effect/ai approval responses makes it run the approved calls), it fails rather than run a tool outside the loop's
 * dispatch, where a tool server's hooks would not see it.
 */
const handle: Offered["handle"] = (name) =>
  Effect.fail(AiError.make({
    module: "ToolLoop",
    method: "handle",
    reason: new AiError.ToolConfigurationError({
      toolName: String(name),
      description: "ToolLoop resolves tool calls through its own dispatch; effect/ai must not run them"
    })
  }))

const offers = new WeakMap<ToolSet.Any, Offered>()

/**
 * The toolkit that offers a set's tools to the model: the declarations of `AiToolkit.fromToolSet` (name,
 * description, JSON Schema, hints), without its handlers. A set is immutable, so each is declared once.
 */
export const offer = (set: ToolSet.Any): Offered => {
  const cached = offers.get(set)
  if (cached !== undefined) return cached
  const offered: Offered = { tools: AiToolkit.fromToolSet(set).tools, handle }
  offers.set(set, offered)
  return offered
}

// ---------------------------------------------------------------------------
// Parts and messages, as effect/ai's constructors make them
// ---------------------------------------------------------------------------

/** The brands of `Prompt.isPart` and `Prompt.isMessage`. */
const PartTypeId = "~effect/ai/Prompt/Part"
const MessageTypeId = "~effect/ai/Prompt/Message"

/** No provider options: one frozen object shared by every part and message the loop makes, not one each. */
const noOptions: Prompt.ProviderOptions = Object.freeze({})

/** `Prompt.textPart({ text, options })`. */
export const textPart = (text: string, options: Prompt.ProviderOptions = noOptions): Prompt.TextPart => ({
  [PartTypeId]: PartTypeId,
  type: "text",
  text,
  options
})

/** `Prompt.makeMessage("user", { content })`. */
export const userMessage = (content: ReadonlyArray<Prompt.UserMessagePart>): Prompt.UserMessage => ({
  [MessageTypeId]: MessageTypeId,
  role: "user",
  content,
  options: noOptions
})

/** `Prompt.makeMessage("tool", { content })`. */
export const toolMessage = (content: ReadonlyArray<Prompt.ToolMessagePart>): Prompt.ToolMessage => ({
  [MessageTypeId]: MessageTypeId,
  role: "tool",
  content,
  options: noOptions
})

/**
 * The messages of a model's turn, as `Prompt.fromResponseParts` makes them: one assistant message, or none when the
 * turn said nothing. Text, reasoning and tool calls are built here; a turn with anything else (files, results of
 * tools the provider ran, approval requests) goes through `Prompt.fromResponseParts` itself.
 */
export const assistantMessages = (
  content: ReadonlyArray<Response.Part<any, any>>
): ReadonlyArray<Prompt.Message> => {
  const parts: Array<Prompt.AssistantMessagePart> = []
  for (const part of content) {
    switch (part.type) {
      case "text":
      case "reasoning":
        parts.push({ [PartTypeId]: PartTypeId, type: part.type, text: part.text, options: part.metadata })
        break
      case "tool-call":
        parts.push({
          [PartTypeId]: PartTypeId,
          type: "tool-call",
          id: part.id,
          name: part.name,
          params: part.params,
          providerExecuted: part.providerExecuted ?? false,
          options: part.metadata
        })
        break
      case "finish":
      case "response-metadata":
      case "source":
        break
      default:
        return Prompt.fromResponseParts(content as ReadonlyArray<Response.AnyPart>).content
    }
  }
  if (parts.length === 0) return []
  return [{ [MessageTypeId]: MessageTypeId, role: "assistant", content: parts, options: noOptions }]
}

// ---------------------------------------------------------------------------
// Calls in
// ---------------------------------------------------------------------------

/**
 * A model's tool call as ours. Parameters that are a string are the JSON text the model emitted, handed over
 * unparsed (a provider that left validation to the caller does so with text it could not parse): dispatch parses it,
 * and answers broken JSON with `invalid_args`. Any other value is the arguments, already parsed.
 */
export const toolCallOf = (part: Response.ToolCallPart<string, unknown>): ToolCall.ToolCall =>
  ToolCall.make({ id: part.id, name: part.name, arguments: part.params })

/** The text of the last user message, the query a tool server selects a turn's tools by; `undefined` for none. */
export const lastUserText = (messages: ReadonlyArray<Prompt.Message>): string | undefined => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!
    if (message.role !== "user") continue
    const texts: Array<string> = []
    for (const part of message.content) if (part.type === "text") texts.push(part.text)
    const text = texts.join("\n")
    return text.trim() === "" ? undefined : text
  }
  return undefined
}

// ---------------------------------------------------------------------------
// Results out
// ---------------------------------------------------------------------------

/** Compact JSON text, as the one mapping (`modelParts`) writes a Json block. */
const jsonText = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? "null"
  } catch {
    return "[JSON omitted: the value is too deep to write]"
  }
}

/**
 * What a model is shown of an output: `modelParts`, the one mapping. An output of text and JSON alone (what most
 * tools return) is mapped here, to the same text parts, built as literals; media go through `modelParts`.
 */
const partsOf = (output: ToolOutput): ReadonlyArray<Prompt.ToolModelOutputPart> => {
  const parts: Array<Prompt.ToolModelOutputPart> = []
  for (const block of output.content) {
    if (block._tag === "Text") parts.push(textPart(block.text))
    else if (block._tag === "Json") parts.push(textPart(jsonText(block.value)))
    else return modelParts(output)
  }
  return parts
}

const textOfPart = (part: Prompt.ToolModelOutputPart): string | undefined =>
  part.type === "text" ? part.text : undefined

const makeText = (text: string): Prompt.ToolModelOutputPart => textPart(text)

/**
 * A result as the transcript's tool-result part, `isFailure` unless it is a success.
 *
 * - A success whose output is one JSON value is that value, as `result`, with no `modelOutput`: the provider renders
 *   it as it renders any structured tool result (effect/ai's own, without `toModelOutput`).
 * - Any other output has `modelOutput`, what the model is shown: its blocks as text and file parts (the one mapping,
 *   `modelParts`), and, before a result that is not a success, the words our adapters put there (`Tool call failed
 *   (timeout): `, `Tool call denied: `, …), so that a model reads a failure as one on every provider, with an error
 *   flag or without. Its `result` is the JSON form kept for providers and readers that take no model output: a lone
 *   text as itself on success, the text of the parts otherwise.
 */
export const toolResultPartOf = (result: ToolResult): Prompt.ToolResultPart => {
  const output = result.output
  if (result.status === "success" && output.content.length === 1 && output.content[0]._tag === "Json") {
    return {
      [PartTypeId]: PartTypeId,
      type: "tool-result",
      id: result.callId,
      name: result.name,
      isFailure: false,
      result: output.content[0].value,
      providerExecuted: false,
      options: noOptions
    }
  }
  const parts = partsOf(output)
  const prefix = result.status === "success" ? undefined : statusPrefix({
    callId: result.callId,
    name: result.name,
    status: result.status,
    errorKind: Option.match(result.error, { onNone: () => "other", onSome: (error) => error.kind }),
    content: []
  })
  const modelOutput = prefix === undefined ? parts : prefixParts(prefix, parts, textOfPart, makeText)
  return {
    [PartTypeId]: PartTypeId,
    type: "tool-result",
    id: result.callId,
    name: result.name,
    isFailure: result.status !== "success",
    result: prefix === undefined ? jsonOf(output, parts) : Prompt.toolModelOutputToText(modelOutput),
    modelOutput,
    providerExecuted: false,
    options: noOptions
  }
}
