/**
 * What the tool loop translates between effect/ai and our dispatch: the tools offered to the model, the model's tool
 * calls as our calls, the model's turns and our results as the transcript's messages (made as `promptParts.ts`
 * makes them: effect/ai's objects, at a fraction of the cost of its constructors).
 */
import { Effect } from "effect"
import { AiError, Prompt, type Response, type Tool as AiTool, type Toolkit } from "effect/ai"
import { jsonText } from "../../internal/providerContent.ts"
import * as ToolCall from "../../ToolCall.ts"
import type { ToolOutput } from "../../ToolOutput.ts"
import type { ToolResult } from "../../ToolResult.ts"
import type * as ToolSet from "../../ToolSet.ts"
import * as AiToolkit from "../AiToolkit.ts"
import { emptySuccessText, failureParts, jsonOf, visibleParts } from "./modelOutput.ts"
import {
  arrayOf,
  assistantMessage,
  emptyArray,
  reasoningPart,
  textPart,
  toolCallPart,
  toolResultPart
} from "./promptParts.ts"

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
// The model's turns, and their calls
// ---------------------------------------------------------------------------

/**
 * A model's tool call as ours. Parameters that are a string are the JSON text the model emitted, handed over
 * unparsed (a provider that left validation to the caller does so with text it could not parse): dispatch parses it,
 * and answers broken JSON with `invalid_args`. Any other value is the arguments, already parsed.
 */
export const toolCallOf = (part: Response.ToolCallPart<string, unknown>): ToolCall.ToolCall =>
  ToolCall.make({ id: part.id, name: part.name, arguments: part.params })

/** The calls of a turn that our dispatch runs: all but those the provider ran itself, which came with results. */
const callsOf = (content: ReadonlyArray<Response.Part<any, any>>): Array<ToolCall.ToolCall> => {
  const calls: Array<ToolCall.ToolCall> = []
  for (const part of content) {
    if (part.type === "tool-call" && part.providerExecuted !== true) calls.push(toolCallOf(part))
  }
  return calls
}

/**
 * Appends a model's turn to the transcript, as `Prompt.fromResponseParts` makes its messages: one assistant message,
 * or none when the turn said nothing. Returns the calls our dispatch runs (see `callsOf`). Text, reasoning and tool
 * calls are read here, in one pass; a turn with anything else (files, results of tools the provider ran, approval
 * requests) goes through `Prompt.fromResponseParts` itself.
 */
export const appendTurn = (
  messages: Array<Prompt.Message>,
  content: ReadonlyArray<Response.Part<any, any>>
): Array<ToolCall.ToolCall> => {
  const parts = emptyArray<Prompt.AssistantMessagePart>()
  const calls: Array<ToolCall.ToolCall> = []
  for (const part of content) {
    switch (part.type) {
      case "text":
        parts.push(textPart(part.text, part.metadata))
        break
      case "reasoning":
        parts.push(reasoningPart(part.text, part.metadata))
        break
      case "tool-call": {
        // Each field read once: a turn's parts come in as many shapes as the providers that made them.
        const { id, name, params } = part
        const providerExecuted = part.providerExecuted ?? false
        parts.push(toolCallPart(id, name, params, providerExecuted, part.metadata))
        if (providerExecuted !== true) calls.push({ id, name, arguments: params })
        break
      }
      case "finish":
      case "response-metadata":
      case "source":
        break
      default:
        for (const message of Prompt.fromResponseParts(content as ReadonlyArray<Response.AnyPart>).content) {
          messages.push(message)
        }
        return callsOf(content)
    }
  }
  if (parts.length > 0) messages.push(assistantMessage(parts))
  return calls
}

/** The messages of a model's turn, as `Prompt.fromResponseParts` makes them (see {@link appendTurn}). */
export const assistantMessages = (content: ReadonlyArray<Response.Part<any, any>>): ReadonlyArray<Prompt.Message> => {
  const messages: Array<Prompt.Message> = []
  appendTurn(messages, content)
  return messages
}

// ---------------------------------------------------------------------------
// effect/ai's approval flow, in a prompt
// ---------------------------------------------------------------------------

/** A call of the prompt that effect/ai's approval flow decided, and that no tool result answers yet. */
export interface DecidedCall {
  readonly call: ToolCall.ToolCall
  readonly approved: boolean
  readonly reason: string | undefined
}

/**
 * The calls of a prompt that effect/ai's own approval flow decided (an approval request, then its response) and that
 * no tool result answers, found as `LanguageModel.generateText` finds them, in the order of the responses. Left
 * there, effect/ai would run the approved ones through the toolkit's handlers, which the loop does not give it, and
 * answer the others after the prompt's last message, however far from their call.
 */
export const decidedCalls = (messages: ReadonlyArray<Prompt.Message>): Array<DecidedCall> => {
  const responses: Array<Prompt.ToolApprovalResponsePart> = []
  for (const message of messages) {
    if (message.role !== "tool") continue
    for (const part of message.content) if (part.type === "tool-approval-response") responses.push(part)
  }
  // The common prompt has none: one look at its tool messages, no more.
  if (responses.length === 0) return []
  const requests = new Map<string, string>()
  const calls = new Map<string, Prompt.ToolCallPart>()
  const answered = new Set<string>()
  for (const message of messages) {
    if (message.role === "assistant") {
      for (const part of message.content) {
        if (part.type === "tool-approval-request") requests.set(part.approvalId, part.toolCallId)
        else if (part.type === "tool-call") calls.set(part.id, part)
      }
    } else if (message.role === "tool") {
      for (const part of message.content) if (part.type === "tool-result") answered.add(part.id)
    }
  }
  const decided: Array<DecidedCall> = []
  for (const response of responses) {
    const callId = requests.get(response.approvalId)
    const call = callId === undefined ? undefined : calls.get(callId)
    // A response without its request, or a request without its call, is not one effect/ai acts on either.
    if (call === undefined || answered.has(call.id)) continue
    answered.add(call.id)
    decided.push({
      call: { id: call.id, name: call.name, arguments: call.params },
      approved: response.approved,
      reason: response.reason
    })
  }
  return decided
}

/**
 * Puts answers to calls of earlier turns where a provider expects them: in the tool message right after the
 * assistant message that made the call (the last one with the call's id, as effect/ai matches them), among its
 * results in call order, or in a tool message of their own there when it has none. effect/ai then finds the
 * approvals answered, and leaves their request and response out of what it sends.
 */
export const placeAnswers = (messages: Array<Prompt.Message>, answers: ReadonlyArray<Prompt.ToolResultPart>): void => {
  for (const answer of answers) {
    let at = messages.length - 1
    let order: Array<string> | undefined
    for (; at >= 0; at--) {
      const message = messages[at]!
      if (message.role !== "assistant") continue
      const ids = message.content.flatMap((part) => part.type === "tool-call" ? [part.id] : [])
      if (ids.includes(answer.id)) {
        order = ids
        break
      }
    }
    // Each answer is to a call of the prompt (see `decidedCalls`).
    if (order === undefined) continue
    const next = messages[at + 1]
    if (next === undefined || next.role !== "tool") {
      messages.splice(at + 1, 0, Prompt.makeMessage("tool", { content: [answer] }))
      continue
    }
    const position = order.indexOf(answer.id)
    const content = next.content.slice()
    const before = content.findIndex((part) => part.type === "tool-result" && order.indexOf(part.id) > position)
    content.splice(before === -1 ? content.length : before, 0, answer)
    messages[at + 1] = Prompt.makeMessage("tool", { content, options: next.options })
  }
}

/**
 * A call whose arguments are a copy of the model's: a tool server's hooks see the call, and one that changed its
 * arguments in place would change the transcript, which records what the model sent. Arguments that cannot be
 * copied are handed over as they are.
 */
export const detached = (call: ToolCall.ToolCall): ToolCall.ToolCall => {
  const args = call.arguments
  if (typeof args !== "object" || args === null) return call
  try {
    return { id: call.id, name: call.name, arguments: structuredClone(args) }
  } catch {
    return call
  }
}

// ---------------------------------------------------------------------------
// A tool server's turns
// ---------------------------------------------------------------------------

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

/**
 * What a model is shown of an output, before a placeholder for nothing: `visibleParts`, the one mapping, blank text
 * left out (possibly none). An output of text and JSON alone (what most tools return) is mapped here to the same text
 * parts, without its per-block dispatch; media go through `visibleParts`.
 */
const partsOf = (output: ToolOutput): Array<Prompt.ToolModelOutputPart> => {
  const content = output.content
  // The transcript keeps this array: made by `new Array`, not a literal (see promptParts.ts).
  const parts = new Array<Prompt.ToolModelOutputPart>(content.length)
  let kept = 0
  for (let i = 0; i < content.length; i++) {
    const block = content[i]!
    if (block._tag === "Text") {
      if (block.text.trim() !== "") parts[kept++] = textPart(block.text)
    } else if (block._tag === "Json") parts[kept++] = textPart(jsonText(block.value))
    else return visibleParts(output)
  }
  if (kept < parts.length) parts.length = kept
  return parts
}

/**
 * A result as the transcript's tool-result part, `isFailure` unless it is a success.
 *
 * - A success whose output is one JSON value is that value, as `result`, with no `modelOutput`: the provider renders
 *   it as it renders any structured tool result (effect/ai's own, without `toModelOutput`).
 * - Any other success has `modelOutput`, its blocks as text and file parts (the one mapping, `modelParts`), and its
 *   JSON form as `result`, for providers and readers that take no model output. Blank text is left out; an output
 *   with nothing left (an empty string, say) is `(empty result)` in both, as our adapters send it.
 * - A result that is not a success is shown as `AiToolkit` shows it (`failureParts`): the words our adapters put
 *   there (`Tool call failed (timeout): `, `Tool call denied: `, …) before its parts, so that a model reads a
 *   failure as one on every provider, with an error flag or without; its `result` is the text of those parts.
 */
export const toolResultPartOf = (result: ToolResult): Prompt.ToolResultPart => {
  const output = result.output
  if (result.status === "success") {
    if (output.content.length === 1 && output.content[0]._tag === "Json") {
      return toolResultPart(result.callId, result.name, false, output.content[0].value, undefined)
    }
    const parts = partsOf(output)
    // Nothing to show is shown as our adapters show it, in the parts and in the `result` alike.
    if (parts.length === 0) {
      return toolResultPart(result.callId, result.name, false, emptySuccessText, arrayOf(textPart(emptySuccessText)))
    }
    return toolResultPart(result.callId, result.name, false, jsonOf(output, parts), parts)
  }
  const shown = failureParts(result, partsOf(output))
  return toolResultPart(result.callId, result.name, true, Prompt.toolModelOutputToText(shown), shown)
}
