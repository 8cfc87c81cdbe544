/**
 * Calls answered without running: the result of a refused call, and the refusal of a call of a tool that needs a
 * human's approval where nothing can ask for it (a loop over a bare `ToolSet`, an MCP server serving one).
 */
import { Context, Option } from "effect"
import type * as ToolCall from "../ToolCall.ts"
import * as ToolExecutionError from "../ToolExecutionError.ts"
import * as ToolOutput from "../ToolOutput.ts"
import { ToolResult } from "../ToolResult.ts"

/** The result of a call refused without running: `error` shows the model why, with the status given. */
export const refusedResult = (
  call: ToolCall.ToolCall,
  status: "error" | "denied",
  error: ToolExecutionError.ToolExecutionError
): ToolResult =>
  new ToolResult({
    callId: call.id,
    name: call.name,
    arguments: call.arguments,
    status,
    output: error.modelOutput,
    error: Option.some(error),
    metadata: Context.empty(),
    durationMs: 0
  })

const noApproverText = "this tool needs a human's approval before it runs, and none can be asked for here: it did not run"

/**
 * The refusal of a call of a tool annotated `needsApproval` where nothing can ask a human: the model reads that it
 * did not run; the operators' message says how it could be asked for (`howToAsk`).
 */
export const noApprover = (howToAsk: string): ToolExecutionError.ToolExecutionError =>
  ToolExecutionError.withModelOutput(
    ToolExecutionError.refused(`this tool needs a human's approval, and nothing here can ask for it: ${howToAsk}`),
    ToolOutput.text(noApproverText)
  )
