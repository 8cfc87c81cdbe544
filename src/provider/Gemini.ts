/**
 * The Gemini API adapter (`@google/genai`, Gemini Developer API and Vertex AI): function declarations out, the
 * model's `functionCall` parts in, and the turn's results back as one user `Content` of `functionResponse` parts.
 *
 * The wire types below are structural: they match `@google/genai`'s `FunctionDeclaration`, `FunctionCall`,
 * `FunctionResponse`, `Part` and `Content` without depending on the SDK, so its values pass in and out without casts.
 *
 * Keep the model's `Content` as it came: append the candidate's `content` object itself to the history, then the
 * content {@link toolResults} builds. {@link toolCalls} only reads it, so the `thoughtSignature` that Gemini 3
 * attaches to a `functionCall` part goes back unchanged; rebuilding the model's turn from the calls would lose it,
 * and the API refuses the next request.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Gemini, ToolSet } from "effect-llm-tools"
 *
 * declare const set: ToolSet.ToolSet<never>
 * declare const history: Array<Gemini.Content | Gemini.ModelContent>
 * declare const modelContent: Gemini.ModelContent // response.candidates[0].content, kept as it is
 *
 * const tools = Effect.map(Effect.fromResult(Gemini.definitions(set)), (tool) => [tool]) // the request's `config.tools`
 * const next = Effect.map(
 *   ToolSet.executeAll(set, Gemini.toolCalls(modelContent)),
 *   (results) => [...history, modelContent, ...Gemini.toolResults(results)] // the next request's `contents`
 * )
 * ```
 *
 * @since 0.1.0
 */
import { Data, Result } from "effect"
import { undeclaredRequired } from "../internal/strictSchema.ts"
import type { JsonSchema } from "../internal/jsonSchema.ts"
import {
  type Block,
  blockText,
  emptyResultText,
  entries,
  field,
  fileText,
  imageMediaType,
  InvalidToolNameError,
  NonObjectParametersError,
  offer,
  readResult,
  TopLevelUnionError,
  type Tools,
  unreadable,
  withoutTopConstraints
} from "../internal/providerContent.ts"
import type * as ToolCall from "../ToolCall.ts"
import type { ToolResult } from "../ToolResult.ts"

// ---------------------------------------------------------------------------
// Schema subset
// ---------------------------------------------------------------------------

/**
 * The type names of Gemini's Schema (the values of the SDK's `Type` enum).
 *
 * @category models
 */
export type Type = "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT" | "NULL"

/**
 * Gemini's OpenAPI-subset Schema, for the `parameters` of older models (the SDK's `Schema`).
 *
 * @category models
 */
export interface Schema {
  type?: Type
  format?: string
  title?: string
  description?: string
  nullable?: boolean
  enum?: Array<string>
  items?: Schema
  properties?: { [name: string]: Schema }
  required?: Array<string>
  anyOf?: Array<Schema>
  minimum?: number
  maximum?: number
  /** int64 counts are strings on the wire. */
  minItems?: string
  maxItems?: string
  minLength?: string
  maxLength?: string
  pattern?: string
  default?: unknown
}

/**
 * A JSON Schema that Gemini's Schema subset cannot express: `path` is the JSON Pointer of the offending node in the
 * tool's parameters schema, `reason` says what is missing. Declare such tools with `parametersJsonSchema` (the
 * default) instead.
 *
 * @category errors
 */
export class UnsupportedSchemaError extends Data.TaggedError("UnsupportedSchemaError")<{
  /** The tool whose parameters could not be compiled; empty when compiling a bare schema. */
  readonly toolName: string
  readonly path: string
  readonly reason: string
  readonly message: string
}> {}

const unsupported = (tool: string, path: string, reason: string): UnsupportedSchemaError =>
  new UnsupportedSchemaError({
    toolName: tool,
    path,
    reason,
    message: `${tool === "" ? "" : `tool \`${tool}\`: `}schema at \`${path === "" ? "/" : path}\`: ${reason}`
  })

// Thrown only inside `compile` and caught in `compileSchema`: keeps the recursion readable.
class Unsupported {
  readonly path: string
  readonly reason: string
  constructor(path: string, reason: string) {
    this.path = path
    this.reason = reason
  }
}

const typeNames: Readonly<Record<string, Type>> = {
  string: "STRING",
  number: "NUMBER",
  integer: "INTEGER",
  boolean: "BOOLEAN",
  array: "ARRAY",
  object: "OBJECT",
  null: "NULL"
}

// Gemini rejects formats it does not know; these are the ones it documents, by type.
const formats: Readonly<Partial<Record<Type, ReadonlySet<string>>>> = {
  STRING: new Set(["date-time", "enum"]),
  NUMBER: new Set(["float", "double"]),
  INTEGER: new Set(["int32", "int64"])
}

// Keywords that change which values are valid in ways the subset cannot state: refused rather than silently widened.
const refusedKeywords: ReadonlyArray<readonly [string, string]> = [
  ["$ref", "references (recursive schemas) are not supported"],
  ["not", "`not` is not supported"],
  ["if", "conditional schemas (`if`/`then`/`else`) are not supported"],
  ["prefixItems", "tuples (`prefixItems`) are not supported"],
  ["patternProperties", "`patternProperties` is not supported"],
  ["dependentSchemas", "`dependentSchemas` is not supported"]
]

type Node = { readonly [key: string]: unknown }

const isNode = (u: unknown): u is Node => typeof u === "object" && u !== null && !Array.isArray(u)

const pointer = (path: string, ...segments: ReadonlyArray<string | number>): string =>
  segments.reduce<string>((acc, s) => `${acc}/${String(s).replaceAll("~", "~0").replaceAll("/", "~1")}`, path)

const isNullSchema = (u: unknown): boolean => isNode(u) && u.type === "null" && u.enum === undefined

const compile = (input: unknown, path: string): Schema => {
  if (!isNode(input)) throw new Unsupported(path, "boolean schemas (any value) are not supported")
  let node = input
  for (const [keyword, reason] of refusedKeywords) {
    if (node[keyword] !== undefined) throw new Unsupported(pointer(path, keyword), reason)
  }
  // Draft-07's `dependencies` is `dependentRequired` (a list of keys, dropped like it) and `dependentSchemas` (a
  // schema, refused like it) in one keyword.
  if (isNode(node.dependencies) && Object.values(node.dependencies).some((value) => !Array.isArray(value))) {
    throw new Unsupported(
      pointer(path, "dependencies"),
      "`dependencies` with schemas (`dependentSchemas`) is not supported"
    )
  }
  if (node.allOf !== undefined) {
    if (!Array.isArray(node.allOf) || node.allOf.length !== 1) {
      throw new Unsupported(pointer(path, "allOf"), "`allOf` with more than one schema is not supported")
    }
    const { allOf: _, ...rest } = node
    return compile({ ...(node.allOf[0] as Node), ...rest }, path)
  }
  // `oneOf` becomes `anyOf`: exclusivity is not expressible, and dispatch validates the arguments anyway.
  const alternativesKey = node.anyOf !== undefined ? "anyOf" : node.oneOf !== undefined ? "oneOf" : undefined
  if (alternativesKey !== undefined) {
    const alternatives = node[alternativesKey]
    if (!Array.isArray(alternatives)) throw new Unsupported(pointer(path, alternativesKey), "must be an array")
    const { anyOf: _a, oneOf: _o, ...siblings } = node
    const nullable = alternatives.some(isNullSchema)
    const indexed = alternatives.map((schema, index) => [schema, index] as const).filter(([s]) => !isNullSchema(s))
    if (indexed.length === 0) return annotate({ type: "NULL" }, siblings)
    if (indexed.length === 1) {
      const [only, index] = indexed[0]!
      const compiled = compile({ ...(only as Node), ...siblings }, pointer(path, alternativesKey, index))
      return nullable ? { ...compiled, nullable: true } : compiled
    }
    return annotate(
      {
        anyOf: indexed.map(([schema, index]) => compile(schema, pointer(path, alternativesKey, index))),
        ...(nullable ? { nullable: true } : {})
      },
      siblings
    )
  }
  if (Array.isArray(node.type)) {
    const types = node.type.filter((type) => type !== "null")
    const nullable = types.length < node.type.length
    if (types.length > 1) {
      return {
        anyOf: types.map((type) => compile({ ...node, type }, path)),
        ...(nullable ? { nullable: true } : {})
      }
    }
    node = { ...node, type: types.length === 1 ? types[0] : "null" }
    if (nullable && types.length === 1) return { ...compile(node, path), nullable: true }
  }
  if (node.const !== undefined) {
    const { const: value, ...rest } = node
    node = { ...rest, enum: [value] }
  }
  const type = typeOf(node, path)
  const out: Schema = { type }
  if (node.enum !== undefined) {
    if (!Array.isArray(node.enum) || !node.enum.every((value) => typeof value === "string")) {
      throw new Unsupported(pointer(path, "enum"), "only string enums (and string constants) are supported")
    }
    out.enum = [...node.enum]
  }
  if (type === "ARRAY") {
    // Gemini refuses an ARRAY without items ("items: missing field"); an array of any value has no subset form, as
    // `items: {}` has none.
    if (node.items === undefined) {
      throw new Unsupported(path, "an array without `items` (items of any value) is not supported")
    }
    if (Array.isArray(node.items)) throw new Unsupported(pointer(path, "items"), "tuples are not supported")
    out.items = compile(node.items, pointer(path, "items"))
  }
  if (type === "OBJECT") {
    if (isNode(node.additionalProperties)) {
      throw new Unsupported(
        pointer(path, "additionalProperties"),
        "objects with arbitrary keys (records) are not supported"
      )
    }
    if (isNode(node.properties)) {
      const properties: { [name: string]: Schema } = {}
      for (const [name, property] of Object.entries(node.properties)) {
        properties[name] = compile(property, pointer(path, "properties", name))
      }
      out.properties = properties
    }
    // Gemini refuses an OBJECT without properties ("properties: should be non-empty for OBJECT type"). The root is
    // left to `definitions`, which leaves `parameters` out for a tool that takes no arguments.
    if (path !== "" && Object.keys(out.properties ?? {}).length === 0) {
      throw new Unsupported(path, "an object without properties is not supported")
    }
    if (Array.isArray(node.required)) {
      // Gemini refuses a required key that is not a property ("property is not defined").
      const names = node.required.filter((name): name is string => typeof name === "string")
      const undeclared = undeclaredRequired(out.properties, names)
      if (undeclared !== undefined) throw new Unsupported(pointer(path, "required"), undeclared)
      out.required = names
    }
  }
  if (typeof node.format === "string" && formats[type]?.has(node.format)) out.format = node.format
  if (typeof node.pattern === "string") out.pattern = node.pattern
  // An exclusive bound becomes the inclusive one: a slightly wider hint for the model; dispatch enforces the exact one.
  const minimum = typeof node.minimum === "number" ? node.minimum : node.exclusiveMinimum
  const maximum = typeof node.maximum === "number" ? node.maximum : node.exclusiveMaximum
  if (typeof minimum === "number") out.minimum = minimum
  if (typeof maximum === "number") out.maximum = maximum
  for (const key of ["minItems", "maxItems", "minLength", "maxLength"] as const) {
    const value = node[key]
    if (typeof value === "number" && Number.isInteger(value)) out[key] = String(value)
  }
  if (node.default !== undefined) out.default = node.default
  return annotate(out, node)
}

const annotate = (schema: Schema, node: Node): Schema => {
  const out = { ...schema }
  if (typeof node.title === "string") out.title = node.title
  if (typeof node.description === "string") out.description = node.description
  return out
}

const typeOf = (node: Node, path: string): Type => {
  if (typeof node.type === "string") {
    const type = typeNames[node.type]
    if (type === undefined) throw new Unsupported(pointer(path, "type"), `unknown type \`${node.type}\``)
    return type
  }
  if (node.properties !== undefined) return "OBJECT"
  if (node.items !== undefined) return "ARRAY"
  if (Array.isArray(node.enum) && node.enum.every((value) => typeof value === "string")) return "STRING"
  throw new Unsupported(path, "a schema without a type (any value) is not supported")
}

/**
 * Compiles a JSON Schema into Gemini's OpenAPI-subset Schema: type names, `nullable` (from a `null` alternative or
 * type), string `enum` and `const`, `items`, `properties`, `required`, `anyOf` (and `oneOf`), `description`, `title`,
 * `format` (the ones Gemini documents), `pattern`, bounds and `default`. Keywords that only tighten what dispatch
 * validates anyway (`additionalProperties: false`, `multipleOf`, …) are dropped; anything that changes the shape
 * of valid values and has no equivalent (references, tuples, records, non-string enums, `not`, conditionals,
 * `dependentSchemas` or `dependencies` with schemas, an untyped schema, an array without `items`, a `required` key
 * that `properties` does not declare) fails with {@link UnsupportedSchemaError}.
 *
 * @example
 * ```ts
 * import { Gemini } from "effect-llm-tools"
 *
 * Gemini.compileSchema({ type: "object", properties: { unit: { enum: ["C", "F"] } }, required: ["unit"] })
 * // Result.succeed({ type: "OBJECT", properties: { unit: { type: "STRING", enum: ["C", "F"] } }, required: ["unit"] })
 * ```
 *
 * @category constructors
 */
export const compileSchema = (schema: JsonSchema, tool = ""): Result.Result<Schema, UnsupportedSchemaError> => {
  try {
    return Result.succeed(compile(schema, ""))
  } catch (error) {
    if (error instanceof Unsupported) return Result.fail(unsupported(tool, error.path, error.reason))
    throw error
  }
}

// ---------------------------------------------------------------------------
// Definitions
// ---------------------------------------------------------------------------

/**
 * One function declaration with its parameters as JSON Schema (the SDK's `FunctionDeclaration`).
 *
 * @category models
 */
export interface FunctionDeclaration {
  name: string
  description: string
  parametersJsonSchema: JsonSchema
}

/**
 * One function declaration with its parameters in Gemini's Schema subset. The SDK types `Schema.type` as its `Type`
 * enum, which string literals do not satisfy: with the SDK's types, pass `parameters` as its `Schema`.
 *
 * @category models
 */
export interface OpenApiFunctionDeclaration {
  name: string
  description: string
  /** Absent for a tool without arguments: Gemini refuses an OBJECT schema without properties. */
  parameters?: Schema
}

/**
 * The tool entry of a request's `config.tools` that carries the declarations (the SDK's `Tool`).
 *
 * @category models
 */
export interface Tool<Declaration = FunctionDeclaration> {
  functionDeclarations: Array<Declaration>
}

/**
 * Options of {@link definitions}.
 *
 * @category models
 */
export interface DefinitionsOptions {
  /**
   * `"jsonSchema"` (default): `parametersJsonSchema`, the tool's JSON Schema as it is. `"openApi"`: `parameters`
   * compiled into Gemini's Schema subset ({@link compileSchema}), for models that do not take JSON Schema.
   */
  readonly schema?: "jsonSchema" | "openApi" | undefined
}

/**
 * What {@link definitions} fails with for a tool name Gemini refuses (it must start with a letter or an underscore
 * and hold at most 128 of a-z, A-Z, 0-9, `_`, `.`, `:` and `-`), for parameters whose type at the top is not an
 * object, and for parameters that are a union no single object can stand for (shared by every adapter).
 *
 * @category errors
 */
export { InvalidToolNameError, NonObjectParametersError, TopLevelUnionError }

/**
 * The `config.tools` entry for a set (or any list of tools and definitions), in order, as a `Result`. With
 * `{ schema: "openApi" }` the parameters are compiled into Gemini's Schema subset, which can also fail with
 * {@link UnsupportedSchemaError}; since that subset refuses an object without properties, a tool whose parameters
 * are an empty object is declared without `parameters`, and an empty object nested in the parameters is refused.
 *
 * Fails with {@link InvalidToolNameError} for a name Gemini refuses, and with {@link NonObjectParametersError} for
 * parameters whose `type` at the top is not `"object"` (`{"type": "string"}`): arguments are always a JSON object,
 * so such a tool could never be called with valid ones. Parameters that are a union of objects are
 * offered as one object, in both schema modes: `parametersJsonSchema` "must describe an object where the properties
 * are the parameters to the function", and `parameters` is a map of named parameters. That object has every
 * branch's properties, only the keys all branches require required, and the branches listed in its description;
 * dispatch still checks the arguments against the tool's own Schema. A union with a branch that is not an object
 * fails with {@link TopLevelUnionError}, and so does an `allOf` at the top that the definition could not merge into
 * one object exactly (see `ToolDefinition.make`). `not`, `enum` and `const` at the top are kept in
 * `parametersJsonSchema`, and left out of `parameters`, whose subset cannot state them: there they only narrow which
 * argument objects are valid, which dispatch checks.
 *
 * @example
 * ```ts
 * import { Effect, Result, Schema } from "effect"
 * import { Gemini, Tool, ToolSet } from "effect-llm-tools"
 *
 * const Echo = Tool.make("echo", {
 *   description: "Echo the text back",
 *   parameters: Schema.Struct({ text: Schema.String }),
 *   call: ({ text }) => Effect.succeed(text)
 * })
 * const set = ToolSet.make(Echo)
 *
 * // { functionDeclarations: [{ name: "echo", …, parametersJsonSchema: … }] }
 * const tool = Result.getOrThrow(Gemini.definitions(set))
 * // Result<Gemini.Tool<Gemini.OpenApiFunctionDeclaration>, …>
 * const legacy = Gemini.definitions(set, { schema: "openApi" })
 * ```
 *
 * @category constructors
 */
export const definitions: {
  (
    tools: Tools,
    options?: { readonly schema?: "jsonSchema" | undefined }
  ): Result.Result<Tool, InvalidToolNameError | NonObjectParametersError | TopLevelUnionError>
  (
    tools: Tools,
    options: { readonly schema: "openApi" }
  ): Result.Result<
    Tool<OpenApiFunctionDeclaration>,
    InvalidToolNameError | NonObjectParametersError | TopLevelUnionError | UnsupportedSchemaError
  >
} = ((tools: Tools, options?: DefinitionsOptions) => {
  const offered = offer(tools, "Gemini")
  if (Result.isFailure(offered)) return offered
  if (options?.schema !== "openApi") {
    return Result.succeed({
      functionDeclarations: offered.success.map(({ definition, parameters }) => ({
        name: definition.name,
        description: definition.description,
        parametersJsonSchema: parameters
      }))
    })
  }
  const functionDeclarations: Array<OpenApiFunctionDeclaration> = []
  for (const { definition, parameters } of offered.success) {
    const compiled = compileSchema(withoutTopConstraints(parameters), definition.name)
    if (Result.isFailure(compiled)) return compiled
    const takesNoArguments = compiled.success.type === "OBJECT" &&
      Object.keys(compiled.success.properties ?? {}).length === 0
    functionDeclarations.push({
      name: definition.name,
      description: definition.description,
      ...(takesNoArguments ? {} : { parameters: compiled.success })
    })
  }
  return Result.succeed({ functionDeclarations })
}) as typeof definitions

// ---------------------------------------------------------------------------
// Calls in
// ---------------------------------------------------------------------------

/**
 * A part of the model's content, as the API returns it (the SDK's `Part` fits). Only `functionCall` parts are read.
 *
 * @category models
 */
export interface ModelPart {
  readonly functionCall?: {
    readonly id?: unknown
    readonly name?: unknown
    readonly args?: unknown
  } | undefined
  readonly thoughtSignature?: string | undefined
}

/**
 * The model's content (a candidate's `content`, the SDK's `Content`).
 *
 * @category models
 */
export interface ModelContent {
  readonly role?: string | undefined
  readonly parts?: ReadonlyArray<ModelPart> | undefined
}

/**
 * The prefix of the ids {@link toolCalls} makes up for calls the model sent without one (`gemini_call_<n>`).
 * {@link toolResults} leaves such ids out of the `functionResponse`: Gemini then pairs results with calls by name and
 * order. A model's own id that starts with the prefix is read as `gemini_call_~<its id>`, and answered with its id.
 *
 * @category models
 */
export const generatedIdPrefix = "gemini_call_"

// The result carries only the call's id, which may come from storage or another process: whether an id was made up
// is told by its form alone. Generated ids are the prefix and digits; a model id with the prefix is escaped with
// `~`, so no model id can be read as a generated one, whatever the model sends.
const escapeMark = "~"

/** The id a call goes by: the model's own, escaped when it has the form of a generated one. */
const callIdOf = (modelId: string): string =>
  modelId.startsWith(generatedIdPrefix) ? `${generatedIdPrefix}${escapeMark}${modelId}` : modelId

/** The model's id for a call id, or `undefined` for an id {@link toolCalls} made up. */
const modelIdOf = (callId: string): string | undefined => {
  if (!callId.startsWith(generatedIdPrefix)) return callId
  const rest = callId.slice(generatedIdPrefix.length)
  if (rest.startsWith(escapeMark)) return rest.slice(escapeMark.length)
  return /^\d+$/.test(rest) ? undefined : callId
}

/**
 * The function calls of the model's content (or of its parts), in order. Reads only: the content, and the
 * `thoughtSignature` on its parts, stay as they were for the caller to send back.
 *
 * A call without an id gets `gemini_call_<n>`, n its position among the calls: stable for the same content, unique
 * within the turn, and left out again when answering. A model's id that starts with `gemini_call_` becomes
 * `gemini_call_~<id>`, so that it is never taken for a generated one, and is answered with the model's id. Never
 * throws, whatever the content holds (a stored transcript, a proxy whose reads throw): a call without a name becomes
 * a call to the tool `""` (dispatch reports `not_found`), missing `args` become `{}`, and any other `args` are passed
 * as they are, for dispatch to read as it reads any call's arguments: `null` as `{}`; a string as the arguments' JSON
 * text, so `"{\"a\":1}"` runs the tool with `{ a: 1 }`, empty text is `{}`, and text that is not JSON of an object
 * is `invalid_args`; any other value that is not an object (a number, an array) is `invalid_args`. A field that
 * cannot be read is `""`; a part whose `functionCall` cannot be read is not a call.
 *
 * @category constructors
 */
export const toolCalls = (
  content: ModelContent | ReadonlyArray<ModelPart> | undefined
): Array<ToolCall.ToolCall> => {
  const parts = entries(content) ?? entries(field(content, "parts"))
  if (parts === undefined) return []
  const found: Array<{ readonly id: unknown; readonly name: unknown; readonly args: unknown }> = []
  for (const part of parts) {
    const call = field(part, "functionCall")
    // Not `isNode`: `Array.isArray` throws on a revoked proxy.
    if (typeof call !== "object" || call === null) continue
    found.push({ id: field(call, "id"), name: field(call, "name"), args: field(call, "args") })
  }
  // Model ids of the generated form are escaped (see `callIdOf`): a generated id never equals another call's id.
  return found.map(({ args, id, name }, position) => {
    const callId = typeof id === "string" && id !== ""
      ? callIdOf(id)
      : id === unreadable
      ? ""
      : `${generatedIdPrefix}${position}`
    return {
      id: callId,
      name: typeof name === "string" ? name : "",
      arguments: args === undefined ? {} : args === unreadable ? "" : args
    }
  })
}

// ---------------------------------------------------------------------------
// Results out
// ---------------------------------------------------------------------------

/**
 * Inline bytes (the SDK's `Blob` / `FunctionResponseBlob`).
 *
 * @category models
 */
export interface InlineData {
  mimeType: string
  data: string
}

/**
 * Bytes by URI (the SDK's `FileData` / `FunctionResponseFileData`). The Gemini Developer API accepts file URIs of
 * its File API; Vertex AI also Cloud Storage and web URLs. The media type is required: a URL whose type is unknown
 * is given to the model as text instead.
 *
 * @category models
 */
export interface FileData {
  mimeType: string
  fileUri: string
}

/**
 * Media inside a `functionResponse` (the SDK's `FunctionResponsePart`).
 *
 * @category models
 */
export type FunctionResponsePart = { inlineData: InlineData } | { fileData: FileData }

/**
 * The answer to one call (the SDK's `FunctionResponse`). `response` is `{ output }` on success and `{ error }`
 * otherwise; `id` is the call's id, absent when the model sent none.
 *
 * @category models
 */
export interface FunctionResponse {
  id?: string
  name: string
  response: { [key: string]: unknown }
  parts?: Array<FunctionResponsePart>
}

/**
 * A part of the user content that answers a turn (the SDK's `Part`).
 *
 * @category models
 */
export type Part = { functionResponse: FunctionResponse } | { inlineData: InlineData } | { fileData: FileData }

/**
 * The user content that answers a turn (the SDK's `Content`).
 *
 * @category models
 */
export interface Content {
  role: "user"
  parts: Array<Part>
}

/**
 * Options of {@link toolResults}.
 *
 * @category models
 */
export interface ToolResultsOptions {
  /**
   * Where images, audio and files go. `"nested"` (default): in the `functionResponse`'s own `parts`, as Gemini 3
   * models take them; only the media types a function response may carry go there (see {@link toolResults}).
   * `"separate"`: as `inlineData` / `fileData` parts after all the `functionResponse` parts of the content (the
   * function responses come first, then every result's media, in the order of the results), for older models that
   * do not read media inside a function response.
   */
  readonly media?: "nested" | "separate" | undefined
}

// What a function response's own `parts` may carry: a conservative set (common images and PDFs), since Gemini's API
// reference does not list the media types a function response accepts. Text goes in the response value instead: the
// FunctionResponseBlob reference says text must not be sent as raw bytes.
const functionResponseMediaTypes: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/webp", "application/pdf"])

// What a content part may carry: the image, audio, video and document types Gemini's documentation lists as
// supported. Anything else (SVG, GIF, Word files) is answered 400 "Unsupported MIME type".
const contentMediaTypes: ReadonlySet<string> = new Set([
  ...functionResponseMediaTypes,
  "image/heic",
  "image/heif",
  "audio/wav",
  "audio/mp3",
  "audio/mpeg",
  "audio/aiff",
  "audio/aac",
  "audio/ogg",
  "audio/flac",
  "video/mp4",
  "video/mpeg",
  "video/mov",
  "video/avi",
  "video/x-flv",
  "video/mpg",
  "video/webm",
  "video/wmv",
  "video/3gpp",
  "text/plain"
])

/**
 * The contents to append for a turn's results: none for no results (the API refuses a content without parts), else
 * the one user content with one `functionResponse` part per result, in order.
 *
 * `response` is `{ output: value }` for a success and `{ error: value }` otherwise, with `status: "denied"` or
 * `status: "skipped"` added for those. The value is built from the output's Text (a string), Json (the value
 * itself, structured), ResourceLink (its text, naming the URI) and base64 plain-text File (its text) blocks: the one
 * value when there is one, an array of them in order when there are several, or none beside media. A result with
 * nothing but empty text answers its status words (`(empty result)` for a success), and so does a failed, denied or
 * skipped result with nothing but media.
 *
 * Images, audio and files become `inlineData` (base64) or `fileData` (URL) media, placed by
 * {@link ToolResultsOptions.media}. Inside a function response (`"nested"`) only PNG, JPEG and WebP images and PDFs
 * are sent: a conservative set, since Gemini's API reference does not list the media types a function response
 * accepts. As separate parts, the image, audio, video and document types Gemini's documentation lists (PNG, JPEG,
 * WebP, HEIC, HEIF; WAV, MP3, AIFF, AAC, OGG, FLAC; MP4, MPEG, MOV, AVI, FLV, MPG, WebM, WMV, 3GPP; PDF, plain text).
 * Anything else is described in the value (by its URL, for media at a URL). A base64 image without a media type is
 * recognized by its first bytes, or else described as text; media at a URL without a media type is given as its URL
 * in text, since Gemini requires the type of file data.
 *
 * A `data:` URL (of an image, a file or a resource link) is the inline content it holds, with the media type it
 * names unless the block names its own; a malformed one becomes a placeholder that shows none of it. A result built
 * by hand renders whatever it holds, never throwing: placeholders stand for what cannot be read, and a Json value
 * that is not JSON (a cycle, a BigInt) is a placeholder, never its text.
 *
 * @example
 * ```ts
 * import { Gemini, ToolResult } from "effect-llm-tools"
 *
 * declare const results: ReadonlyArray<ToolResult.ToolResult>
 * const contents = Gemini.toolResults(results)
 * // [{ role: "user", parts: [{ functionResponse: { id: "…", name: "get_weather", response: { output: {…} } } }] }]
 * ```
 *
 * @category constructors
 */
export const toolResults = (results: Iterable<ToolResult>, options?: ToolResultsOptions): Array<Content> => {
  const separate = options?.media === "separate"
  const parts: Array<Part> = []
  // Under "separate", every result's media, after all the function responses.
  const trailing: Array<Part> = []
  for (const each of results) {
    const result = readResult(each)
    const values: Array<unknown> = []
    const media: Array<FunctionResponsePart> = []
    for (const block of result.content) renderBlock(block, values, media, separate)
    // Nothing to read would answer `{ error: [] }` or `{ output: "" }`: the status words say what happened instead.
    // A success with media alone keeps its empty value: the media are the answer.
    const noText = values.every((value) => value === "")
    const value = noText && (media.length === 0 || result.status !== "success")
      ? emptyResultText(result)
      : values.length === 1
      ? values[0]
      : values
    const response = result.status === "success"
      ? { output: value }
      : result.status === "error"
      ? { error: value }
      : { error: value, status: result.status }
    const modelId = modelIdOf(result.callId)
    const functionResponse: FunctionResponse = {
      ...(modelId === undefined ? {} : { id: modelId }),
      name: result.name,
      response
    }
    if (media.length > 0 && !separate) functionResponse.parts = media
    parts.push({ functionResponse })
    if (separate) trailing.push(...media)
  }
  parts.push(...trailing)
  // The API refuses a content without parts.
  return parts.length === 0 ? [] : [{ role: "user", parts }]
}

const omitted = (kind: string, mediaType: string): string =>
  `[${kind} omitted: ${mediaType} is not supported in a function response]`

const linked = (kind: string, mediaType: string | undefined, url: string, filename?: string): string =>
  `[${kind}${filename === undefined ? "" : ` ${filename}`}${mediaType === undefined ? "" : ` (${mediaType})`}: ${url}]`

const renderBlock = (
  block: Block,
  values: Array<unknown>,
  media: Array<FunctionResponsePart>,
  separate: boolean
): void => {
  // Separate parts are ordinary content parts, which take the media types Gemini reads; nested ones only a few.
  const accepts = (mediaType: string): boolean =>
    (separate ? contentMediaTypes : functionResponseMediaTypes).has(mediaType)
  switch (block._tag) {
    case "Text":
      values.push(block.text)
      return
    case "Json":
      values.push(block.value)
      return
    case "ResourceLink":
      values.push(blockText(block))
      return
    case "Audio":
      if (accepts(block.mediaType)) media.push({ inlineData: { mimeType: block.mediaType, data: block.data } })
      else values.push(omitted("audio", block.mediaType))
      return
    case "Image": {
      if (block.source._tag === "Url") {
        const mimeType = block.mediaType
        if (mimeType !== undefined && accepts(mimeType)) media.push({ fileData: { mimeType, fileUri: block.source.url } })
        else values.push(linked("image", mimeType, block.source.url))
        return
      }
      const data = block.source.data
      const mimeType = imageMediaType(block.mediaType, data)
      if (mimeType === undefined) values.push("[image omitted: its media type is unknown]")
      else if (accepts(mimeType)) media.push({ inlineData: { mimeType, data } })
      else values.push(omitted("image", mimeType))
      return
    }
    case "File": {
      const mimeType = block.mediaType
      if (block.source._tag === "Url") {
        if (accepts(mimeType)) media.push({ fileData: { mimeType, fileUri: block.source.url } })
        else values.push(linked("file", mimeType, block.source.url, block.filename))
        return
      }
      // Plain text goes in the response value; so does text of a type Gemini does not take as a part.
      const text = mimeType === "text/plain" || !accepts(mimeType) ? fileText(block) : undefined
      if (text !== undefined) {
        values.push(text)
        return
      }
      if (accepts(mimeType)) media.push({ inlineData: { mimeType, data: block.source.data } })
      else values.push(omitted(block.filename === undefined ? "file" : `file ${block.filename}`, mimeType))
      return
    }
  }
}
