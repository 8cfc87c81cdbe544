import { assert } from "@effect/vitest"
import { Option } from "effect"
import type { ToolExecutionError, ToolResult } from "../../src/index.ts"
import { ToolOutput } from "../../src/index.ts"

/** One field of a result's error, or undefined when the result has no error. */
export const errorField = <K extends keyof ToolExecutionError.ToolExecutionError>(
  result: ToolResult.ToolResult,
  field: K
): ToolExecutionError.ToolExecutionError[K] | undefined =>
  Option.getOrUndefined(Option.map(result.error, (error) => error[field]))

/** The kind of a result's error, or undefined when the result has no error. */
export const kindOf = (result: ToolResult.ToolResult) => errorField(result, "kind")

/**
 * The fields of a result that every test file asserts on as one value. A file spreads it and adds the error fields it
 * also cares about, so that each file's expected values keep exactly the fields they name.
 */
export const summarizeResult = (result: ToolResult.ToolResult) => ({
  callId: result.callId,
  name: result.name,
  arguments: result.arguments,
  status: result.status,
  kind: kindOf(result),
  modelText: Option.getOrUndefined(ToolOutput.asText(result.output))
})

/** The error of a result that must have one: the test fails here, saying the status, when it has none. */
export const errorOf = (result: ToolResult.ToolResult): ToolExecutionError.ToolExecutionError => {
  assert.isTrue(Option.isSome(result.error), `expected an error, got status ${result.status}`)
  return Option.getOrThrow(result.error)
}
