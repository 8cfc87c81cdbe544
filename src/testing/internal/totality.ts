/**
 * The checks of the totality property: what is sent for a generated call, and what is wrong, if anything, with the
 * result dispatch gave for it.
 */
import { Cause, Option } from "effect"
import * as ToolExecutionError from "../../ToolExecutionError.ts"
import * as ToolOutput from "../../ToolOutput.ts"
import * as ToolResult from "../../ToolResult.ts"
import type * as ToolCall from "../../ToolCall.ts"
import type { GeneratedCall } from "../ToolTesting.ts"
import { hostileValue, malformedCall } from "./hostile.ts"
import { marker } from "./invalidArguments.ts"

const statuses: ReadonlyArray<string> = ["success", "error", "denied", "skipped"]

/** At most `length` characters of a text, for a message. */
const clip = (text: string, length: number): string => text.length <= length ? text : `${text.slice(0, length)}…`

/** A cause for a message, whatever it holds: a value that throws when printed is not printed. */
export const describeCause = (cause: unknown): string => {
  try {
    return clip(Cause.isCause(cause) ? Cause.pretty(cause) : String(cause), 2000)
  } catch {
    return "a cause that cannot be printed"
  }
}

/** A generated call for a message: it is plain data. */
export const describeCall = (spec: GeneratedCall): string => {
  try {
    return clip(JSON.stringify(spec), 400)
  } catch {
    return spec._tag
  }
}

/** What dispatch must answer a generated call with, when the call decides it: `undefined` when the tool does. */
const expectedKind = (spec: GeneratedCall): ToolExecutionError.ToolErrorKind | undefined =>
  spec._tag === "Malformed" || !spec.known
    ? "not_found"
    : spec.arguments._tag === "Valid"
    ? undefined
    : "invalid_args"

const shown = (value: unknown): string => JSON.stringify(clip(String(value), 80))

/** What is wrong with a call's result, or `undefined` when it keeps the contract. */
export const problemOf = (spec: GeneratedCall, result: unknown): string | undefined => {
  try {
    if (!ToolResult.isToolResult(result)) return "its result is not a ToolResult"
    const [id, name] = spec._tag === "Call" ? [spec.id, spec.name] : ["", ""]
    if (result.callId !== id) return `its result has the call id ${shown(result.callId)}`
    if (result.name !== name) return `its result has the name ${shown(result.name)}`
    if (!statuses.includes(result.status)) return `its result has the status ${shown(result.status)}`
    const failed = result.status === "error" || result.status === "denied"
    if (failed !== Option.isSome(result.error)) {
      return `its result has the status ${result.status} and ${failed ? "no" : "an"} error`
    }
    if (!ToolOutput.isToolOutput(result.output) || result.output.content.length === 0) {
      return "its result's output is not a ToolOutput with content"
    }
    const rendered = ToolOutput.render(result.output)
    if (Option.isSome(result.error)) {
      const error = result.error.value
      if (!ToolExecutionError.kinds.includes(error.kind)) return `its error has the kind ${shown(error.kind)}`
      if (typeof error.message !== "string") return "its error's message is not a string"
      if (result.output !== error.modelOutput) return "its output is not its error's model output"
    }
    if (!(typeof result.durationMs === "number" && result.durationMs >= 0)) {
      return "its result's durationMs is no duration"
    }
    const expected = expectedKind(spec)
    if (expected === undefined) return undefined
    const kind = result.status === "error" && Option.isSome(result.error) ? result.error.value.kind : undefined
    if (kind !== expected) {
      return `it ended ${kind === undefined ? result.status : `with kind ${kind}`}, not with kind ${expected}`
    }
    if (rendered.includes(marker)) return "what the model sees repeats a value that was sent"
    return undefined
  } catch (cause) {
    return `reading its result threw: ${describeCause(cause)}`
  }
}

/** What is sent for a generated call: built fresh, since hostile values may be read only once. */
export const build = (spec: GeneratedCall): ToolCall.ToolCall => {
  if (spec._tag === "Malformed") return malformedCall(spec.kind) as ToolCall.ToolCall
  const args = spec.arguments
  const sent = args._tag === "Valid"
    ? (args.asText ? JSON.stringify(args.value) : args.value)
    : args._tag === "Invalid"
    ? args.value
    : args._tag === "Garbage"
    ? args.text
    : hostileValue(args.kind)
  return { id: spec.id, name: spec.name, arguments: sent }
}
