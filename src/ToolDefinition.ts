/**
 * The provider-facing definition of a tool: its name, description, and JSON Schemas (draft 2020-12) of its
 * parameters and output. Provider adapters compile it further (OpenAI strict mode, Gemini) from this one shape.
 *
 * @since 0.1.0
 */
import { type JsonSchema, toJsonSchema, toParametersJsonSchema } from "./internal/jsonSchema.ts"
import type * as Tool from "./Tool.ts"

/**
 * A JSON Schema object.
 *
 * @category models
 */
export type { JsonSchema }

/**
 * What a provider needs to offer a tool to a model.
 *
 * @category models
 */
export interface ToolDefinition {
  readonly name: string
  readonly description: string
  /** JSON Schema of the arguments, always an object schema with `properties` and `required`. */
  readonly parameters: JsonSchema
  /** JSON Schema of the output, when the tool has a `success` Schema. */
  readonly outputSchema?: JsonSchema | undefined
  /** The tool's hints for hosts and providers (title, readOnly, strict, …), without its timeout. */
  readonly annotations: Omit<Tool.Annotations, "timeout">
}

const cache = new WeakMap<Tool.Any, ToolDefinition>()

/**
 * The definition of a tool. The JSON Schemas are generated from the tool's Schemas once, then reused.
 *
 * Generated schemas are normalized for providers: definitions are inlined (recursive ones stay in a root `$defs`),
 * integers lose the ±2^53 bounds Effect adds, objects get `additionalProperties: false`, and `description`
 * annotations become JSON Schema descriptions.
 *
 * @category constructors
 */
export const fromTool = (tool: Tool.Any): ToolDefinition => {
  const cached = cache.get(tool)
  if (cached !== undefined) return cached
  const { timeout: _, ...annotations } = tool.annotations
  const definition: ToolDefinition = {
    name: tool.name,
    description: tool.description,
    parameters: toParametersJsonSchema(tool.parameters),
    ...(tool.success !== undefined ? { outputSchema: toJsonSchema(tool.success) } : {}),
    annotations
  }
  cache.set(tool, definition)
  return definition
}
