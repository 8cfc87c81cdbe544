/**
 * The provider-facing definition of a tool: its name, description, and JSON Schemas (draft 2020-12) of its
 * parameters and output. Provider adapters compile it further (OpenAI strict mode, Gemini) from this one shape.
 *
 * @since 0.1.0
 */
import { Predicate } from "effect"
import { type JsonSchema, offeredParameters, toJsonSchema, toParametersJsonSchema } from "./internal/jsonSchema.ts"
import type * as Tool from "./Tool.ts"

/**
 * The brand of a definition: what makes a `ToolDefinition` one, so that a `Tool` (which has a name, a description
 * and parameters too) is never taken for one by the type checker.
 *
 * @category models
 */
export const TypeId = "~effect-llm-tools/ToolDefinition" as const

/**
 * The type of {@link TypeId}.
 *
 * @category models
 */
export type TypeId = typeof TypeId

/**
 * A JSON Schema object.
 *
 * @category models
 */
export type { JsonSchema }

/**
 * What a provider needs to offer a tool to a model. Built by {@link fromTool} (from a tool) or {@link make} (for a
 * tool defined elsewhere, such as a remote one); the brand is not enumerable, so a definition serializes to its
 * fields alone, and a spread copy is a plain object, not a definition.
 *
 * @category models
 */
export interface ToolDefinition {
  readonly [TypeId]: TypeId
  readonly name: string
  readonly description: string
  /**
   * JSON Schema of the arguments: an object schema. Generated from a `Tool.make` tool's Schema, it always has
   * `properties` and `required`; a runtime tool's is the JSON Schema it was made with, with the object at its top
   * that providers and MCP ask for (see {@link make}).
   */
  readonly parameters: JsonSchema
  /** JSON Schema of the output, when the tool has a `success` Schema or was made with an `outputSchema`. */
  readonly outputSchema?: JsonSchema | undefined
  /** The tool's hints for hosts and providers (title, readOnly, strict, …), without its timeout. */
  readonly annotations: Omit<Tool.Annotations, "timeout">
}

/**
 * The fields of a definition, as {@link make} takes them.
 *
 * @category models
 */
export interface Fields {
  readonly name: string
  readonly description: string
  /** JSON Schema of the arguments: an object schema. */
  readonly parameters: JsonSchema
  readonly outputSchema?: JsonSchema | undefined
  /** Defaults to none. */
  readonly annotations?: Omit<Tool.Annotations, "timeout"> | undefined
}

/**
 * True for a definition built by {@link make} or {@link fromTool}; a plain object of the same shape, or a `Tool`,
 * is not one.
 *
 * @category guards
 */
export const isToolDefinition = (u: unknown): u is ToolDefinition => Predicate.hasProperty(u, TypeId)

/**
 * A definition from its fields, for a tool this library does not run itself (a remote tool, a tool of another
 * framework). The adapters check the name against their provider's rule when they render it.
 *
 * Tool arguments are always a JSON object, and every provider, like MCP, asks for an object schema at the top of
 * the parameters, so the parameters get one, accepting the same objects as before: `type: "object"` where the root
 * has no type or lists others beside it (`["object", "null"]`), `properties: {}` where it has none, a root `$ref` into
 * the schema's own definitions or a root `allOf` merged into one object where that is exact, and boolean property
 * schemas in their object form (`{}`, `{"not":{}}`). Parameters of an earlier draft (6, 7 or 2019-09, by their
 * `$schema`) are written in 2020-12, with the same meaning: a tuple's `items: [...]` as `prefixItems`, `dependencies`
 * as `dependentRequired` / `dependentSchemas` (providers read 2020-12, and Anthropic refuses a request whose
 * `input_schema` is not valid in it). Parameters that need none of this are kept as they are.
 *
 * @example
 * ```ts
 * import { ToolDefinition } from "effect-llm-tools"
 *
 * const lookup = ToolDefinition.make({
 *   name: "lookup",
 *   description: "Look a word up",
 *   parameters: { type: "object", properties: { word: { type: "string" } }, required: ["word"] }
 * })
 * ```
 *
 * @category constructors
 */
export const make = (fields: Fields): ToolDefinition => {
  const definition = {
    name: fields.name,
    description: fields.description,
    parameters: offeredParameters(fields.parameters),
    ...(fields.outputSchema !== undefined ? { outputSchema: fields.outputSchema } : {}),
    annotations: fields.annotations ?? {}
  }
  Object.defineProperty(definition, TypeId, { value: TypeId, enumerable: false })
  return definition as ToolDefinition
}

const cache = new WeakMap<Tool.Any, ToolDefinition>()

/**
 * The definition of a tool. The JSON Schemas are generated from the tool's Schemas once, then reused; a tool
 * defined at run time (`DynamicTool`) carries the JSON Schemas it was made with, its parameters with the object at
 * the top and in the draft that {@link make} gives them (its arguments are still validated against the schema as it
 * was given).
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
  const given = tool.jsonSchemas
  const definition = make({
    name: tool.name,
    description: tool.description,
    parameters: given !== undefined ? given.parameters : toParametersJsonSchema(tool.parameters),
    outputSchema: given !== undefined
      ? given.outputSchema
      : tool.success !== undefined
      ? toJsonSchema(tool.success)
      : undefined,
    annotations
  })
  cache.set(tool, definition)
  return definition
}
