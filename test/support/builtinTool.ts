/**
 * What the tests of a built-in tool that answers in JSON read of it: what the model sees of each call, and the parts
 * of its definition the model reads.
 */
import { Effect, Option } from "effect"
import { Tool, ToolOutput, type ToolResult, ToolSet } from "../../src/index.ts"
import { kindOf } from "./results.ts"

/** What the model sees from one call: the JSON of a success, or the kind and text of an error. */
export const answerOf = (result: ToolResult.ToolResult) =>
  result.status === "success"
    ? { status: result.status, output: Option.getOrUndefined(ToolOutput.asJson(result.output)) }
    : { status: result.status, kind: kindOf(result), message: Option.getOrUndefined(ToolOutput.asText(result.output)) }

/** Calls the tool `name` of `set` through dispatch with the arguments given, and gives what the model sees. */
export const executeTool = <T extends Tool.Any>(set: ToolSet.ToolSet<T>, name: string) => (args: unknown) =>
  Effect.map(ToolSet.execute(set, { id: "call_1", name, arguments: args }), answerOf)

/** A tool's name, parameters, annotations, and the keys its output schema requires: what a test pins of it. */
export const definitionOf = (tool: Tool.Any) => {
  const definition = Tool.definition(tool)
  return {
    name: definition.name,
    parameters: definition.parameters,
    outputRequired: (definition.outputSchema as { required?: unknown } | undefined)?.required,
    annotations: definition.annotations
  }
}
