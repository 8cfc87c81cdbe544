/**
 * What a model asked for: one call of one tool, by id and name, with its arguments either as the JSON text the model
 * emitted or as an already-parsed value. Both take the same path through dispatch.
 *
 * @since 0.1.0
 */

/**
 * One tool call from a model.
 *
 * @category models
 */
export interface ToolCall {
  /** The provider's id for the call; results are paired with calls by it. */
  readonly id: string
  /** The name of the tool the model wants. */
  readonly name: string
  /** JSON text as the model emitted it (possibly invalid), or an already-parsed value. */
  readonly arguments: unknown
}

/**
 * A tool call.
 *
 * @example
 * ```ts
 * import { ToolCall } from "effect-llm-tools"
 *
 * const call = ToolCall.make({ id: "call_1", name: "add", arguments: "{\"left\":1,\"right\":2}" })
 * ```
 *
 * @category constructors
 */
export const make = (call: ToolCall): ToolCall => ({ id: call.id, name: call.name, arguments: call.arguments })
