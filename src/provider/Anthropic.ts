/**
 * The Anthropic Messages API adapter: tool definitions out, the model's `tool_use` blocks in, and the turn's
 * results back as one user message of `tool_result` blocks.
 *
 * The wire types below are structural: they match `@anthropic-ai/sdk`'s `Tool`, `ToolUseBlock` and
 * `ToolResultBlockParam` without depending on the SDK, so its values pass in and out without casts.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Anthropic, ToolSet } from "effect-llm-tools"
 *
 * declare const set: ToolSet.ToolSet<never>
 * declare const assistant: { readonly role: "assistant"; readonly content: ReadonlyArray<Anthropic.ContentBlock> }
 *
 * const tools = Anthropic.definitions(set) // the request's `tools`: a Result (a refused name, a strict schema)
 * const next = Effect.map(
 *   ToolSet.executeAll(set, Anthropic.toolCalls(assistant.content)),
 *   (results) => [assistant, ...Anthropic.toolResults(results)] // append to `messages`
 * )
 * ```
 *
 * @since 0.1.0
 */
import { Predicate, Result } from "effect"
import { defineField } from "../internal/json.ts"
import {
  escapePointer,
  Refusal,
  refuseKeywords,
  refuseUntyped,
  strictCompiler,
  type StrictSchemaError,
  undeclaredRequired,
  undescribedKeys,
  unsupportedShapeKeywords
} from "../internal/strictSchema.ts"
import {
  type Block,
  blockText,
  emptyResultText,
  entries,
  field,
  fileText,
  imageMediaType,
  type InvalidToolNameError,
  isImageMediaType,
  type NonObjectParametersError,
  offer,
  prefixParts,
  readResult,
  type ResultView,
  statusPrefix,
  type TopLevelUnionError,
  type Tools,
  unreadable,
  withoutTopConstraints
} from "../internal/providerContent.ts"
import type { JsonSchema } from "../internal/jsonSchema.ts"
import type * as ToolCall from "../ToolCall.ts"
import * as ToolDefinition from "../ToolDefinition.ts"
import type { ToolResult } from "../ToolResult.ts"
import type * as ToolResultContent from "../ToolResultContent.ts"

// ---------------------------------------------------------------------------
// Definitions
// ---------------------------------------------------------------------------

/**
 * The JSON Schema of a tool's input: always an object schema.
 *
 * @category models
 */
export interface InputSchema {
  readonly type: "object"
  readonly [key: string]: unknown
}

/**
 * A custom tool in a request's `tools` (the SDK's `Tool`).
 *
 * @category models
 */
export interface Tool {
  readonly name: string
  readonly description: string
  readonly input_schema: InputSchema
  /** From the tool's `strict` annotation, present only when the tool sets it. */
  readonly strict?: boolean
}

/**
 * Options of {@link definitions}.
 *
 * @category models
 */
export interface DefinitionsOptions {
  /**
   * Strict mode (structured tool use) for every tool, as `OpenAiChat.definitions` takes it. Without it, a tool's
   * `strict` annotation decides, and a tool without one is sent without `strict`.
   */
  readonly strict?: boolean | undefined
}

/**
 * What {@link definitions} fails with when a strict tool's schema uses what Anthropic's strict tool use cannot
 * express (shared by every adapter).
 *
 * @category errors
 */
export { StrictSchemaError } from "../internal/strictSchema.ts"

/**
 * What {@link definitions} fails with for a tool name Anthropic refuses (it must match `^[a-zA-Z0-9_-]{1,64}$`),
 * for parameters whose type at the top is not an object, and for parameters that are a union no single object can
 * stand for (shared by every adapter).
 *
 * @category errors
 */
export { InvalidToolNameError, NonObjectParametersError, TopLevelUnionError } from "../internal/providerContent.ts"

/**
 * Everything {@link definitions} can fail with.
 *
 * @category errors
 */
export type DefinitionsError = StrictSchemaError | InvalidToolNameError | NonObjectParametersError | TopLevelUnionError

/**
 * The request's `tools` for a set (or any list of tools and definitions), in order. The `strict` annotation of a
 * tool (or the `strict` option, for all tools) becomes `strict`. A tool that is not strict gets its parameters JSON
 * Schema as it is.
 *
 * Fails with {@link InvalidToolNameError} for a name Anthropic refuses, and with {@link NonObjectParametersError}
 * for parameters whose `type` at the top is not `"object"` (`{"type": "string"}`): arguments are always a JSON
 * object, so such a tool could never be called with valid ones. Parameters that are a union of objects are
 * offered as one object, since Anthropic refuses `anyOf`, `oneOf` and `allOf` at the top of `input_schema`
 * ("input_schema does not support oneOf, allOf, or anyOf at the top level"): every branch's properties, only the
 * keys all branches require required, `additionalProperties: false` only when every branch says so, and the
 * branches listed in its description; dispatch still checks the arguments against the tool's own Schema. A union
 * with a branch that is not an object fails with {@link TopLevelUnionError}, and so does an `allOf` at the top that
 * the definition could not merge into one object exactly (see `ToolDefinition.make`). `not`, `enum` and `const` at
 * the top, which Anthropic takes there, are kept, except for strict tools (below).
 *
 * A strict tool's schema is compiled into the JSON Schema subset of Anthropic's structured outputs ("JSON Schema
 * limitations" in Anthropic's structured outputs guide): every object gets `additionalProperties: false`; the value
 * constraints it does not support (`minimum`, `maximum`, `multipleOf`, `minLength`, `maxLength`, `maxItems`,
 * `minItems` above 1, unknown `format`s, …) are removed, as Anthropic's own SDKs do, and dispatch still checks them
 * with the tool's Schema. Optional properties stay optional (unlike OpenAI's strict mode). What the subset cannot
 * express fails the whole list with a {@link StrictSchemaError} at definition time, rather than as a 400 from the
 * API: records (`additionalProperties` other than `false`), recursive schemas, references outside the schema, enums
 * of objects or arrays, boolean schemas, nodes without a type (`{}`, from `Schema.Unknown` or `Schema.Json`), a
 * `required` key that `properties` does not declare (every object being closed, it could never be sent), and the
 * keywords that change the shape of the data (tuples as `prefixItems`, `not`, `if`/`then`/`else`,
 * `patternProperties`, `propertyNames`, `dependentSchemas`/`dependentRequired` and draft-07's `dependencies`,
 * `contains`, `unevaluated*`). `oneOf` is sent as `anyOf`. At the top of the parameters, `not`, `enum` and `const`
 * are left out rather than refused, as OpenAI's adapters do: there they only narrow which argument objects are
 * valid, which dispatch checks with the tool's own Schema.
 *
 * @example
 * ```ts
 * import { Effect, Result, Schema } from "effect"
 * import { Anthropic, Tool, ToolSet } from "effect-llm-tools"
 *
 * const Echo = Tool.make("echo", {
 *   description: "Echo the text back",
 *   parameters: Schema.Struct({ text: Schema.String }),
 *   call: ({ text }) => Effect.succeed(text)
 * })
 * const tools = Result.getOrThrow(Anthropic.definitions(ToolSet.make(Echo)))
 * // [{ name: "echo", description: "Echo the text back", input_schema: { type: "object", properties: … } }]
 * ```
 *
 * @category constructors
 */
export const definitions = (
  tools: Tools,
  options?: DefinitionsOptions
): Result.Result<Array<Tool>, DefinitionsError> => {
  const offered = offer(tools, "Anthropic")
  if (Result.isFailure(offered)) return Result.fail(offered.failure)
  const out: Array<Tool> = []
  for (const { definition, parameters } of offered.success) {
    const strict = options?.strict === true ? true : definition.annotations.strict
    const { name, description } = definition
    if (strict !== true) {
      out.push({
        name,
        description,
        input_schema: { ...parameters, type: "object" },
        ...(strict !== undefined ? { strict } : {})
      })
      continue
    }
    const compiled = compileStrict(lowered(definition, parameters))
    if (Result.isFailure(compiled)) return Result.fail(compiled.failure)
    out.push({ name, description, input_schema: compiled.success, strict })
  }
  return Result.succeed(out)
}

// ---------------------------------------------------------------------------
// Strict tool use
// ---------------------------------------------------------------------------

// Value constraints Anthropic's structured outputs do not support: removed, since dispatch checks them anyway.
const droppedConstraints = new Set([
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties"
])

const supportedFormats = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "uri",
  "ipv4",
  "ipv6",
  "uuid"
])

const refPrefixes = ["#/$defs/", "#/definitions/"]

// What a node needs to say what its values are: the SDK's own transform refuses a node with none of these.
const typedKeywords = ["type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"]

const mode = "strict tool use"

/** Compiles one node; records every local reference in `refs`; throws a `Refusal` for what cannot be expressed. */
const compileNode = (node: unknown, path: string, refs: Set<string>): Record<string, unknown> => {
  if (!Predicate.isObject(node)) {
    throw new Refusal(path, "schema", "a boolean schema (`true` / `false`) cannot be expressed")
  }
  // Checked before anything is compiled: a tuple is refused for its `prefixItems`, not kept as a looser array.
  refuseKeywords(node, path, unsupportedShapeKeywords, mode)
  if (node.anyOf !== undefined && node.oneOf !== undefined) {
    throw new Refusal(path, "oneOf", "`anyOf` and `oneOf` together cannot be expressed")
  }
  // `{}` (`Schema.Unknown`, `Schema.Json`) accepts any value: the grammar strict tool use builds needs a type.
  refuseUntyped(node, path, typedKeywords, mode)
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (droppedConstraints.has(key)) continue
    switch (key) {
      case "minItems":
        if (value === 0 || value === 1) out.minItems = value
        break
      case "format":
        if (typeof value === "string" && supportedFormats.has(value)) out.format = value
        break
      case "enum":
        if (Array.isArray(value) && value.some((member) => typeof member === "object" && member !== null)) {
          throw new Refusal(path, "enum", "enums of objects or arrays are not supported")
        }
        out.enum = value
        break
      case "$ref": {
        const prefix = typeof value === "string" ? refPrefixes.find((p) => value.startsWith(p)) : undefined
        if (value === "#") throw new Refusal(path, "$ref", "recursive schemas are not supported")
        if (prefix === undefined) {
          throw new Refusal(path, "$ref", "only references into the schema's own `$defs` are supported")
        }
        refs.add(value as string)
        out.$ref = value
        break
      }
      case "properties": {
        if (!Predicate.isObject(value)) throw new Refusal(path, "properties", "`properties` must be an object")
        const properties: Record<string, unknown> = {}
        for (const [name, property] of Object.entries(value)) {
          defineField(properties, name, compileNode(property, `${path}/properties/${escapePointer(name)}`, refs))
        }
        out.properties = properties
        break
      }
      case "items":
        out.items = compileNode(value, `${path}/items`, refs)
        break
      case "anyOf":
      case "allOf":
      case "oneOf":
        if (!Array.isArray(value)) throw new Refusal(path, key, `\`${key}\` must be an array`)
        // `oneOf` is not supported, `anyOf` is: the exclusivity it loses is still checked by dispatch's Schema.
        out[key === "oneOf" ? "anyOf" : key] = value.map((branch, index) =>
          compileNode(branch, `${path}/${key}/${index}`, refs)
        )
        break
      case "$defs":
      case "definitions":
        // Compiled by `compileUncached`, which needs each definition's references to find cycles.
        break
      case "additionalProperties":
        if (value !== false) {
          throw new Refusal(path, key, "objects with arbitrary keys (records, maps) are not supported")
        }
        break
      default:
        defineField(out, key, value)
    }
  }
  const isObjectType = node.type === "object" || (Array.isArray(node.type) && node.type.includes("object"))
  if (isObjectType || node.properties !== undefined) {
    // Closed, an object of keys it does not describe could only ever be `{}`; the parameters themselves without
    // properties are a tool of no arguments, and are closed.
    if (path !== "" && node.properties === undefined && node.additionalProperties === undefined) {
      throw undescribedKeys(path)
    }
    out.additionalProperties = false
    // With no other key allowed, a required key that is not a property could never be sent.
    const undeclared = undeclaredRequired(node.properties, node.required)
    if (undeclared !== undefined) {
      throw new Refusal(path, "required", `${undeclared}: with no other key allowed, it could never be sent`)
    }
  }
  return out
}

// The definition with its lowered parameters, once per definition: the strict compiler caches by definition.
const loweredDefinitions = new WeakMap<ToolDefinition.ToolDefinition, ToolDefinition.ToolDefinition>()

const lowered = (definition: ToolDefinition.ToolDefinition, parameters: JsonSchema): ToolDefinition.ToolDefinition => {
  if (parameters === definition.parameters) return definition
  const cached = loweredDefinitions.get(definition)
  if (cached !== undefined) return cached
  const out = ToolDefinition.make({ ...definition, parameters })
  loweredDefinitions.set(definition, out)
  return out
}

/** A strict definition's `input_schema`, compiled once per definition. */
const compileStrict = strictCompiler("Anthropic strict tool use", (definition): InputSchema => {
  // A `not` (or an enum of objects) at the top would be refused, and dispatch checks what they say anyway.
  const root = withoutTopConstraints(definition.parameters)
  const input_schema: Record<string, unknown> = { ...compileNode(root, "", new Set()), type: "object" }
  // Each definition's references, to refuse recursion: a schema that reaches itself through `$ref`.
  const edges = new Map<string, ReadonlySet<string>>()
  for (const keyword of ["$defs", "definitions"] as const) {
    const defs = root[keyword]
    if (defs === undefined) continue
    if (!Predicate.isObject(defs)) throw new Refusal(`/${keyword}`, keyword, `\`${keyword}\` must be an object`)
    const out: Record<string, unknown> = {}
    for (const [name, schema] of Object.entries(defs)) {
      const refs = new Set<string>()
      defineField(out, name, compileNode(schema, `/${keyword}/${escapePointer(name)}`, refs))
      edges.set(`#/${keyword}/${name}`, refs)
    }
    input_schema[keyword] = out
  }
  const cycle = findCycle(edges)
  if (cycle !== undefined) throw new Refusal(cycle.replace(/^#/, ""), "$ref", "recursive schemas are not supported")
  return input_schema as InputSchema
})

/** A reference that lies on a cycle of references, or `undefined` when there is none. */
const findCycle = (edges: ReadonlyMap<string, ReadonlySet<string>>): string | undefined => {
  const done = new Set<string>()
  const visit = (ref: string, onPath: Set<string>): string | undefined => {
    if (onPath.has(ref)) return ref
    if (done.has(ref)) return undefined
    onPath.add(ref)
    for (const next of edges.get(ref) ?? []) {
      const found = visit(next, onPath)
      if (found !== undefined) return found
    }
    onPath.delete(ref)
    done.add(ref)
    return undefined
  }
  for (const ref of edges.keys()) {
    const found = visit(ref, new Set())
    if (found !== undefined) return found
  }
  return undefined
}

// ---------------------------------------------------------------------------
// Calls in
// ---------------------------------------------------------------------------

/**
 * Any content block of an assistant message, as the API returns it (the SDK's `ContentBlock` fits). Only
 * `tool_use` blocks are read; the rest are skipped.
 *
 * @category models
 */
export interface ContentBlock {
  readonly type: string
  readonly id?: unknown
  readonly name?: unknown
  readonly input?: unknown
}

/**
 * The tool calls in an assistant message's content: one `ToolCall` per `tool_use` block, in order. Never throws,
 * whatever the content holds (a stored transcript, a proxy whose reads throw): a block without a name becomes a call
 * to the tool `""` (dispatch reports `not_found`), a missing `input` becomes `{}` and any other `input` is passed as
 * it is, for dispatch to read as it reads any call's arguments: `null` as `{}`; a string as the arguments' JSON text
 * (what the `input_json_delta`s of a stream join to), so `"{\"a\":1}"` runs the tool with `{ a: 1 }`, empty text is
 * `{}`, and text that is not JSON of an object is `invalid_args`; any other value that is not an object (a number,
 * an array) is `invalid_args`. A block without an id gets `tool_use_<index>` (or the first
 * `tool_use_<index>_<n>` no other block of the turn uses), so every call gets its own result. A field that cannot be
 * read is `""`; a block whose type cannot be read is not a call.
 *
 * @category constructors
 */
export const toolCalls = (content: ReadonlyArray<ContentBlock>): Array<ToolCall.ToolCall> => {
  const blocks = entries(content)
  if (blocks === undefined) return []
  const found: Array<{ readonly index: number; readonly id: unknown; readonly name: unknown; readonly input: unknown }> = []
  blocks.forEach((block, index) => {
    if (field(block, "type") !== "tool_use") return
    found.push({ index, id: field(block, "id"), name: field(block, "name"), input: field(block, "input") })
  })
  const used = new Set<string>()
  for (const call of found) if (typeof call.id === "string") used.add(call.id)
  return found.map(({ id, index, input, name }) => ({
    id: typeof id === "string" ? id : id === unreadable ? "" : freshId(`tool_use_${index}`, used),
    name: typeof name === "string" ? name : "",
    arguments: input === undefined ? {} : input === unreadable ? "" : input
  }))
}

/** `base`, or `base_<n>` for the first n that `used` does not hold; recorded in `used`. */
const freshId = (base: string, used: Set<string>): string => {
  let id = base
  for (let n = 1; used.has(id); n++) id = `${base}_${n}`
  used.add(id)
  return id
}

// ---------------------------------------------------------------------------
// Results out
// ---------------------------------------------------------------------------

/**
 * A text block.
 *
 * @category models
 */
export interface TextBlock {
  readonly type: "text"
  readonly text: string
}

/**
 * The media types the API accepts for images.
 *
 * @category models
 */
export type ImageMediaType = "image/jpeg" | "image/png" | "image/gif" | "image/webp"

/**
 * An image block, inline or by URL (the SDK's `ImageBlockParam`).
 *
 * @category models
 */
export interface ImageBlock {
  readonly type: "image"
  readonly source:
    | { readonly type: "base64"; readonly media_type: ImageMediaType; readonly data: string }
    | { readonly type: "url"; readonly url: string }
}

/**
 * A document block: a PDF inline or by URL, or plain text (the SDK's `DocumentBlockParam`).
 *
 * @category models
 */
export interface DocumentBlock {
  readonly type: "document"
  readonly source:
    | { readonly type: "base64"; readonly media_type: "application/pdf"; readonly data: string }
    | { readonly type: "url"; readonly url: string }
    | { readonly type: "text"; readonly media_type: "text/plain"; readonly data: string }
  readonly title?: string
}

/**
 * A block inside a `tool_result`.
 *
 * @category models
 */
export type ToolResultContentBlock = TextBlock | ImageBlock | DocumentBlock

/**
 * The result of one call (the SDK's `ToolResultBlockParam`). `is_error` is true for every status but `success`.
 *
 * @category models
 */
export interface ToolResultBlock {
  readonly type: "tool_result"
  readonly tool_use_id: string
  readonly is_error: boolean
  readonly content: Array<ToolResultContentBlock>
}

/**
 * The user message that answers a turn's tool calls (a `MessageParam`).
 *
 * @category models
 */
export interface UserMessage {
  readonly role: "user"
  readonly content: Array<ToolResultBlock>
}

/**
 * The messages to append for a turn's results: none for no results (the API refuses a message without content), else
 * the one user message with one `tool_result` block per result, in order, all in this one message, as the API
 * requires. Append further user content after the blocks if needed (the results must come first).
 *
 * Rendering of the blocks: Text as text; Json as compact JSON text; ResourceLink as text naming its URI; images
 * of media types jpeg, png, gif and webp as image blocks (base64 without a media type is recognized by its first
 * bytes), any other image as a text placeholder naming its media type; PDFs (base64 or URL) and base64 plain text
 * as document blocks, other files as a placeholder (or their URL as text); Audio as a placeholder. Empty and
 * whitespace-only text is dropped, since the API refuses it. A result with `is_error` (every status but `success`)
 * carries text blocks only, as the API requires: its images and documents become text placeholders. A denied or
 * skipped result starts with the words that say so;
 * a result with nothing left to show is one text block of its status words (`(empty result)` for a success).
 *
 * A `data:` URL (of an image, a file or a resource link) is the inline content it holds, with the media type it
 * names unless the block names its own; a malformed one becomes a placeholder that shows none of it. A result built
 * by hand renders whatever it holds, never throwing: placeholders stand for what cannot be read, and a Json value
 * that is not JSON (a cycle, a BigInt) is a placeholder, never its text.
 *
 * @example
 * ```ts
 * import { Anthropic, ToolResult } from "effect-llm-tools"
 *
 * declare const results: ReadonlyArray<ToolResult.ToolResult>
 * const messages = Anthropic.toolResults(results)
 * // [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_…", is_error: false, content: […] }, …] }]
 * ```
 *
 * @category constructors
 */
export const toolResults = (results: Iterable<ToolResult>): Array<UserMessage> => {
  const content: Array<ToolResultBlock> = []
  for (const result of results) content.push(toolResult(readResult(result)))
  return content.length === 0 ? [] : [{ role: "user", content }]
}

const toolResult = (result: ResultView): ToolResultBlock => {
  const isError = result.status !== "success"
  const blocks: Array<ToolResultContentBlock> = []
  for (const block of result.content) {
    const rendered = renderBlock(block)
    // The API refuses text blocks without non-whitespace text ("text content blocks must contain non-whitespace
    // text"), and any block but text in a result with `is_error` ("all content must be type text if is_error is
    // true"): denied and skipped results carry `is_error` too.
    if (rendered.type === "text") {
      if (rendered.text.trim() !== "") blocks.push(rendered)
    } else blocks.push(isError ? text(errorPlaceholder(block)) : rendered)
  }
  // `is_error` cannot tell a failure from a refusal or a skip: those two say what they are in words. An empty list
  // is refused with `is_error`, and says nothing without it: the status words stand in for it.
  const content = blocks.length === 0
    ? [text(emptyResultText(result))]
    : result.status === "denied" || result.status === "skipped"
    ? prefixParts(statusPrefix(result)!, blocks, (block) => block.type === "text" ? block.text : undefined, text)
    : blocks
  return { type: "tool_result", tool_use_id: result.callId, is_error: isError, content }
}

/** The text that stands for a medium in a result with `is_error`, where the API takes text blocks only. */
const errorPlaceholder = (block: Block): string => {
  switch (block._tag) {
    case "Image":
      return `[image omitted: ${
        imageMediaType(block.mediaType, block.source._tag === "Base64" ? block.source.data : undefined) ?? "an image"
      } is not supported in an error result]`
    case "File": {
      const name = block.filename !== undefined ? ` ${block.filename}` : ""
      return `[file${name} omitted: ${block.mediaType} is not supported in an error result]`
    }
    case "Audio":
      return `[audio omitted: ${block.mediaType} is not supported in an error result]`
    default:
      return blockText(block) ?? ""
  }
}

const text = (text: string): TextBlock => ({ type: "text", text })

const renderBlock = (block: Block): ToolResultContentBlock => {
  switch (block._tag) {
    case "Image":
      return renderImage(block)
    case "File":
      return renderFile(block)
    case "Audio":
      return text(`[audio omitted: ${block.mediaType} is not supported in tool results]`)
    default:
      return text(blockText(block) ?? "")
  }
}

const renderImage = (image: ToolResultContent.Image): ToolResultContentBlock => {
  if (image.source._tag === "Url") {
    return image.mediaType === undefined || isImageMediaType(image.mediaType)
      ? { type: "image", source: { type: "url", url: image.source.url } }
      : text(`[image omitted: ${image.mediaType} is not supported]`)
  }
  const mediaType = imageMediaType(image.mediaType, image.source.data)
  return mediaType !== undefined && isImageMediaType(mediaType)
    ? { type: "image", source: { type: "base64", media_type: mediaType, data: image.source.data } }
    : text(`[image omitted: ${mediaType ?? "an unknown media type"} is not supported]`)
}

const renderFile = (file: ToolResultContent.File): ToolResultContentBlock => {
  const title = file.filename !== undefined ? { title: file.filename } : {}
  const name = file.filename !== undefined ? ` ${file.filename}` : ""
  if (file.mediaType === "application/pdf") {
    return file.source._tag === "Url"
      ? { type: "document", source: { type: "url", url: file.source.url }, ...title }
      : { type: "document", source: { type: "base64", media_type: "application/pdf", data: file.source.data }, ...title }
  }
  if (file.source._tag === "Url") return text(`[file${name} (${file.mediaType}): ${file.source.url}]`)
  // Text of any `text/` type (Markdown, CSV, …) is plain text to the model.
  const decoded = fileText(file)
  if (decoded !== undefined) {
    return { type: "document", source: { type: "text", media_type: "text/plain", data: decoded }, ...title }
  }
  return text(`[file${name} omitted: ${file.mediaType} is not supported]`)
}
