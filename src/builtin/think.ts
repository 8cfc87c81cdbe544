/**
 * `think`: a scratchpad for the model. It reasons in writing, in the middle of a task, without fetching or changing
 * anything; the tool hands the thought back, so it stays in the conversation for the next steps.
 *
 * @since 0.1.0
 */
import { Context, Effect, Schema } from "effect"
import type { PortableTool } from "../DynamicTool.ts"
import * as Tool from "../Tool.ts"

const Think = Tool.make("think", {
  description: "Think in writing before you act: a private scratchpad. Use it to work through a problem step by " +
    "step, to plan several tool calls, to check a tool result against the rules you must follow, or to decide " +
    "between options before you answer. It fetches nothing and changes nothing: it only returns your thought, so " +
    "that it stays in front of you for the next steps.",
  parameters: Schema.Struct({
    thought: Schema.String.check(Schema.isMinLength(1)).annotate({
      description: "Your reasoning, written out in full."
    })
  }),
  annotations: { title: "Think", readOnly: true, idempotent: true, openWorld: false },
  onExcessProperty: "error",
  call: ({ thought }) => Effect.succeed(thought)
})

/**
 * The `think` tool: arguments `{ thought }` (a non-empty string); it returns the thought as text. Portable: it needs
 * no services.
 *
 * @example
 * ```ts
 * import { ToolCall, ToolSet } from "effect-llm-tools"
 * import { Builtin } from "effect-llm-tools/builtin"
 *
 * const program = ToolSet.make(Builtin.think).pipe(
 *   ToolSet.execute(ToolCall.make({
 *     id: "call_1",
 *     name: "think",
 *     arguments: JSON.stringify({ thought: "The user wants the total in euros: convert first, then add." })
 *   }))
 * )
 * // Effect<ToolResult>: status "success", its output one text block, the thought
 * ```
 *
 * @category tools
 */
export const think: PortableTool<"think", { readonly thought: string }, string, never> = Tool.provide(
  Think,
  Context.empty(),
  { portable: true }
)
