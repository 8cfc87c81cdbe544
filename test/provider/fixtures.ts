/**
 * Fixtures the provider adapter tests share: the current user of the example tools, a tiny PNG, a strict tool with
 * an optional key, and a result built directly (without dispatch) for rendering tests.
 */
import { Context, Effect, Option, Schema } from "effect"
import * as Tool from "../../src/Tool.ts"
import * as ToolExecutionError from "../../src/ToolExecutionError.ts"
import * as ToolDefinition from "../../src/ToolDefinition.ts"
import type * as ToolOutput from "../../src/ToolOutput.ts"
import * as ToolResult from "../../src/ToolResult.ts"

/** The current user the example tools read. */
export const user = { id: "u_1", units: "metric" as const, balance: 100 }

/** A 1×1 transparent PNG, as examples/tools.ts renders it. */
export const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

/** A tool with the strict annotation and an optional key: strict mode makes the key required and nullable. */
export const Search = Tool.make("search", {
  description: "Search the catalogue",
  parameters: Schema.Struct({ query: Schema.String, limit: Schema.optionalKey(Schema.Int) }),
  annotations: { strict: true },
  call: ({ query, limit }) => Effect.succeed({ query, limit: limit ?? "none" })
})

/** What {@link resultOf} builds besides the output; each has a default. */
export interface ResultOptions {
  readonly status?: ToolResult.Status
  readonly callId?: string
  readonly name?: string
  /** Defaults to `other("failed")` for error and denied results, to none otherwise. */
  readonly error?: ToolExecutionError.ToolExecutionError
}

/** A result of `output`, as dispatch would build it, for rendering tests. */
export const resultOf = (output: ToolOutput.ToolOutput, options: ResultOptions = {}): ToolResult.ToolResult => {
  const status = options.status ?? "success"
  const error = options.error ??
    (status === "error" || status === "denied" ? ToolExecutionError.other("failed") : undefined)
  return ToolResult.make({
    callId: options.callId ?? "call_1",
    name: options.name ?? "some_tool",
    arguments: {},
    status,
    output,
    error: error === undefined ? Option.none() : Option.some(error),
    metadata: Context.empty(),
    durationMs: 1
  })
}

/** What a test of how a call's arguments were read compares of each result: its id, arguments, status and output. */
export const howRead = (results: ReadonlyArray<ToolResult.ToolResult>) =>
  results.map((result) => ({
    id: result.callId,
    arguments: result.arguments,
    status: result.status,
    kind: Option.isSome(result.error) ? result.error.value.kind : undefined,
    output: result.status === "success" ? result.output.content : undefined
  }))

/** A definition of parameters given as they are, marked strict: for the strict-mode compilers. */
export const strictDefinition = (parameters: Record<string, unknown>): ToolDefinition.ToolDefinition =>
  ToolDefinition.make({
    name: "t",
    description: "T",
    parameters: parameters as ToolDefinition.JsonSchema,
    annotations: { strict: true }
  })
