/**
 * The one mapping between a tool's output and MCP content (the `content` and `structuredContent` of a
 * `tools/call` result), both ways. Serving a tool over MCP uses {@link toMcp}; importing an MCP server's tool uses
 * {@link fromMcp}.
 *
 * The mapping loses nothing either way:
 * - `fromMcp(toMcp(output))` equals `output`, for every output;
 * - `toMcp(fromMcp(content))` gives back `content` (same blocks, fields and order) for every valid, non-empty MCP
 *   content array that does not use this module's two reserved names, {@link noteKey} and {@link inlineUri}.
 *
 * What MCP content cannot say of our blocks (that a text holds JSON, an image's `detail`, a file's name, a URL image
 * or file that travels as a `resource_link`) travels in the block's `_meta`, under {@link noteKey}, and only when the
 * block needs it: a Text, an image with its media type, audio and a resource link go out exactly as MCP has them.
 *
 * @since 0.1.0
 */
import { Data, Predicate, Result, Schema } from "effect"
import * as McpSchema from "effect/ai/McpSchema"
import * as ToolOutput from "../ToolOutput.ts"
import * as ToolResultContent from "../ToolResultContent.ts"

/**
 * One MCP content block, in its wire form (base64 strings, `_meta`): what `tools/call` results carry.
 *
 * @category models
 * @since 0.1.0
 */
export type McpContent = typeof McpSchema.ContentBlock.Encoded

/**
 * The content of an MCP `tools/call` result, in its wire form.
 *
 * @category models
 * @since 0.1.0
 */
export interface McpToolContent {
  readonly content: ReadonlyArray<McpContent>
  readonly structuredContent?: Schema.JsonObject
}

/**
 * The `_meta` key that carries what MCP content cannot say of one of our blocks (see the module's documentation).
 * A block's own `meta` may use it too: its value is carried along and given back.
 *
 * @category constants
 * @since 0.1.0
 */
export const noteKey = "effect-llm-tools/content"

/**
 * The `uri` of an embedded resource made from a block that has none (a base64 file, say): MCP requires one. It
 * names no place; `fromMcp` leaves it out of the block again.
 *
 * @category constants
 * @since 0.1.0
 */
export const inlineUri = "urn:effect-llm-tools:inline"

/**
 * Why MCP content could not be read into a tool output: it is not an array, a block is of an unknown type, or a
 * field is missing or of the wrong type. The message names the block (`content[2]`) and the field.
 *
 * @category errors
 * @since 0.1.0
 */
export class McpContentError extends Data.TaggedError("McpContentError")<{ readonly message: string }> {}

// ---------------------------------------------------------------------------
// The note: what MCP cannot say of a block
// ---------------------------------------------------------------------------

/**
 * What travels under {@link noteKey}. Every field is there only when the MCP form alone would give back another
 * block: `block` when the default reading of the MCP type names another kind, `mediaType: false` when an image had
 * none (MCP's `image` requires one), `uri` when the block's own uri cannot be told from the MCP form, `meta` for a
 * block's own value under the note key, `emptyMeta` for a block whose own `meta` was there but
 * empty (a `_meta` holding only the note cannot tell).
 */
const Note = Schema.Struct({
  block: Schema.optionalKey(Schema.Literals(["Json", "Image", "Audio", "File"])),
  detail: Schema.optionalKey(Schema.Literals(["auto", "low", "high"])),
  filename: Schema.optionalKey(Schema.String),
  mediaType: Schema.optionalKey(Schema.Literal(false)),
  uri: Schema.optionalKey(Schema.String),
  resourceMeta: Schema.optionalKey(Schema.JsonObject),
  meta: Schema.optionalKey(Schema.Json),
  emptyMeta: Schema.optionalKey(Schema.Literal(true))
})

type Note = { -readonly [K in keyof typeof Note.Type]?: typeof Note.Type[K] }

// An unknown field means the value is not our note: it stays in `meta` as it is.
const decodeNote = Schema.decodeUnknownResult(Note, { onExcessProperty: "error" })

const isNote = (u: unknown): boolean => Result.isSuccess(decodeNote(u))

// ---------------------------------------------------------------------------
// Ours → MCP
// ---------------------------------------------------------------------------

type Mutable<T> = { -readonly [K in keyof T]: T[K] }
type Wire = Mutable<McpContent> & { _meta?: Record<string, unknown>; annotations?: McpAnnotations }
type McpAnnotations = NonNullable<typeof McpSchema.TextContent.Encoded["annotations"]>
type McpIcon = typeof McpSchema.Icon.Encoded
type ResourceContents = Mutable<typeof McpSchema.EmbeddedResource.Encoded["resource"]>

/** A copy of an object without the keys whose value is `undefined`: MCP's optional fields are absent, never null. */
const defined = <T extends object>(fields: T): { [K in keyof T]: Exclude<T[K], undefined> } => {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(fields)) {
    const value = (fields as Record<string, unknown>)[key]
    if (value !== undefined) out[key] = value
  }
  return out as { [K in keyof T]: Exclude<T[K], undefined> }
}

const annotationsToMcp = (annotations: ToolResultContent.Annotations): McpAnnotations =>
  defined({ audience: annotations.audience, priority: annotations.priority, lastModified: annotations.lastModified })

const iconToMcp = (icon: ToolResultContent.Icon): McpIcon =>
  defined({ src: icon.src, mimeType: icon.mimeType, sizes: icon.sizes, theme: icon.theme })

/** The image media types an image resource is read back as an Image for; absent means unknown, which only an Image can say. */
const readsAsImage = (mimeType: string | undefined): boolean =>
  mimeType === undefined || mimeType.toLowerCase().startsWith("image/")

// Base64 of each format's first bytes: an image built without a media type still goes out as an MCP `image`.
const imageSignatures: ReadonlyArray<readonly [string, string]> = [
  ["iVBORw0KGgo", "image/png"],
  ["/9j/", "image/jpeg"],
  ["R0lGOD", "image/gif"],
  ["UklGR", "image/webp"]
]

const sniffImage = (base64: string): string | undefined =>
  imageSignatures.find(([prefix]) => base64.startsWith(prefix))?.[1]

const embedded = (uri: string | undefined, fields: {
  readonly mimeType: string | undefined
  readonly resourceMeta: ToolResultContent.Meta | undefined
  readonly text?: string
  readonly blob?: string
}, note: Note): Wire => {
  // The placeholder stands for "no uri": a block whose own uri is the placeholder says so in its note.
  if (uri === inlineUri) note.uri = uri
  const resource = defined({
    uri: uri ?? inlineUri,
    mimeType: fields.mimeType,
    _meta: fields.resourceMeta,
    text: fields.text,
    blob: fields.blob
  }) as ResourceContents
  return { type: "resource", resource }
}

const link = (url: string, name: string, mimeType: string | undefined): Wire =>
  defined({ type: "resource_link" as const, uri: url, name, mimeType })

/** The MCP form of one block, and the note it needs (filled in as a side effect). */
const blockToMcp = (block: ToolResultContent.ToolResultContent, note: Note, structured: boolean): Wire => {
  switch (block._tag) {
    case "Text":
      if (block.uri === undefined && block.mediaType === undefined && block.resourceMeta === undefined) {
        return { type: "text", text: block.text }
      }
      return embedded(block.uri, { mimeType: block.mediaType, resourceMeta: block.resourceMeta, text: block.text }, note)
    case "Json":
      // The one Json block of a structured result is read back from `structuredContent`, which needs no note.
      if (!structured) note.block = "Json"
      return { type: "text", text: JSON.stringify(block.value) }
    case "Image": {
      if (block.detail !== undefined) note.detail = block.detail
      if (block.source._tag === "Url") {
        note.block = "Image"
        if (block.uri !== undefined) note.uri = block.uri
        if (block.resourceMeta !== undefined) note.resourceMeta = block.resourceMeta
        return link(block.source.url, block.source.url, block.mediaType)
      }
      const data = block.source.data
      if (block.uri === undefined && block.resourceMeta === undefined) {
        if (block.mediaType !== undefined) return { type: "image", data, mimeType: block.mediaType }
        const sniffed = sniffImage(data)
        if (sniffed !== undefined) {
          note.mediaType = false
          return { type: "image", data, mimeType: sniffed }
        }
        // Bytes of a type nobody knows: a resource without `mimeType`, which reads back as this Image.
      }
      if (!readsAsImage(block.mediaType)) note.block = "Image"
      return embedded(block.uri, { mimeType: block.mediaType, resourceMeta: block.resourceMeta, blob: data }, note)
    }
    case "Audio":
      if (block.uri === undefined && block.resourceMeta === undefined) {
        return { type: "audio", data: block.data, mimeType: block.mediaType }
      }
      note.block = "Audio"
      return embedded(block.uri, { mimeType: block.mediaType, resourceMeta: block.resourceMeta, blob: block.data }, note)
    case "File":
      if (block.filename !== undefined) note.filename = block.filename
      if (block.source._tag === "Url") {
        note.block = "File"
        if (block.uri !== undefined) note.uri = block.uri
        if (block.resourceMeta !== undefined) note.resourceMeta = block.resourceMeta
        return link(block.source.url, block.filename ?? block.source.url, block.mediaType)
      }
      if (readsAsImage(block.mediaType)) note.block = "File"
      return embedded(
        block.uri,
        { mimeType: block.mediaType, resourceMeta: block.resourceMeta, blob: block.source.data },
        note
      )
    case "ResourceLink":
      return defined({
        type: "resource_link" as const,
        uri: block.uri,
        name: block.name,
        title: block.title,
        description: block.description,
        mimeType: block.mediaType,
        size: block.size,
        icons: block.icons?.map(iconToMcp)
      })
  }
}

const toMcpBlock = (block: ToolResultContent.ToolResultContent, structured: boolean): McpContent => {
  const note: Note = {}
  const wire = blockToMcp(block, note, structured)
  if (block.annotations !== undefined) wire.annotations = annotationsToMcp(block.annotations)
  let meta: Record<string, unknown> | undefined = block.meta === undefined ? undefined : { ...block.meta }
  const own = meta?.[noteKey]
  // A block's own value under the note key is escaped into the note when it would be read as one, or when the block
  // has a note of its own; anything else under the key is left where it is, and read back as it is.
  if (own !== undefined && (isNote(own) || Object.keys(note).length > 0)) {
    note.meta = own as Schema.Json
    delete meta![noteKey]
  }
  if (Object.keys(note).length > 0) {
    if (block.meta !== undefined && Object.keys(block.meta).length === 0) note.emptyMeta = true
    meta = { ...meta, [noteKey]: note }
  }
  if (meta !== undefined) wire._meta = meta
  return wire
}

/**
 * The MCP content of an output, block by block and in order:
 *
 * | Block | MCP content |
 * |---|---|
 * | Text | `text`; with a `uri` or `mediaType`, an embedded text `resource` |
 * | Json | `text` holding its JSON |
 * | Image, base64 | `image`; with a `uri`, an embedded blob `resource` |
 * | Audio | `audio`; with a `uri`, an embedded blob `resource` |
 * | File, base64 | an embedded blob `resource` |
 * | Image or File by URL, ResourceLink | `resource_link` |
 *
 * An embedded resource made from a block without a `uri` gets {@link inlineUri}. With `structured: true` (the tool
 * has an output schema), an output that is exactly one Json block holding a JSON object also gives that object as
 * `structuredContent`. Annotations and `meta` become the block's `annotations` and `_meta`.
 *
 * @example
 * ```ts
 * import { ToolOutput } from "effect-llm-tools"
 * import { McpContent } from "effect-llm-tools/mcp"
 *
 * McpContent.toMcp(ToolOutput.json({ temperature: 21 }), { structured: true })
 * // { content: [{ type: "text", text: '{"temperature":21}' }], structuredContent: { temperature: 21 } }
 * ```
 *
 * @category converters
 * @since 0.1.0
 */
export const toMcp = (
  output: ToolOutput.ToolOutput,
  options?: { readonly structured?: boolean | undefined }
): McpToolContent => {
  const blocks = output.content
  const only = blocks.length === 1 ? blocks[0] : undefined
  if (options?.structured === true && only?._tag === "Json" && Predicate.isObject(only.value)) {
    // A Json block's value is JSON: an object of it is a JSON object.
    return { content: [toMcpBlock(only, true)], structuredContent: only.value as Schema.JsonObject }
  }
  return { content: blocks.map((block) => toMcpBlock(block, false)) }
}

// ---------------------------------------------------------------------------
// MCP → ours
// ---------------------------------------------------------------------------

// The wire side of Effect's MCP schema: base64 stays a string, exactly as it came.
const decodeBlock = Schema.decodeUnknownResult(Schema.toEncoded(McpSchema.ContentBlock))
const decodeJsonObject = Schema.decodeUnknownResult(Schema.JsonObject)
const decodeJson = Schema.decodeUnknownResult(Schema.Json)

const blockTypes: ReadonlySet<unknown> = new Set(["text", "image", "audio", "resource", "resource_link"])

const annotationsFromMcp = (annotations: McpAnnotations): ToolResultContent.Annotations =>
  defined({ audience: annotations.audience, priority: annotations.priority, lastModified: annotations.lastModified })

const iconFromMcp = (icon: McpIcon): ToolResultContent.Icon =>
  defined({ src: icon.src, mimeType: icon.mimeType, sizes: icon.sizes, theme: icon.theme })

/** How a block is read: with its note and the placeholder uri understood, or exactly as the MCP fields say. */
interface Reading {
  readonly note: Note
  readonly meta: ToolResultContent.Meta | undefined
  readonly rich: boolean
}

/**
 * The block an MCP block stands for under one reading, or `undefined` when the note asks for what the block cannot
 * give (a Json note on text that is not JSON, a File without a media type).
 */
const readBlock = (wire: McpContent, reading: Reading): ToolResultContent.ToolResultContent | undefined => {
  const { note } = reading
  const common = defined({
    annotations: wire.annotations === undefined ? undefined : annotationsFromMcp(wire.annotations),
    meta: reading.meta
  })
  switch (wire.type) {
    case "text": {
      if (note.block !== "Json") return new ToolResultContent.Text({ text: wire.text, ...common })
      try {
        return new ToolResultContent.Json({ value: JSON.parse(wire.text) as Schema.Json, ...common })
      } catch {
        return undefined
      }
    }
    case "image":
      return new ToolResultContent.Image({
        source: { _tag: "Base64", data: wire.data },
        ...defined({ mediaType: note.mediaType === false ? undefined : wire.mimeType, detail: note.detail }),
        ...common
      })
    case "audio":
      return new ToolResultContent.Audio({ data: wire.data, mediaType: wire.mimeType, ...common })
    case "resource":
      return readResource(wire.resource, reading, common)
    case "resource_link": {
      const fromResource = defined({ uri: note.uri, resourceMeta: note.resourceMeta })
      if (note.block === "Image") {
        return new ToolResultContent.Image({
          source: { _tag: "Url", url: wire.uri },
          ...defined({ mediaType: wire.mimeType, detail: note.detail }),
          ...fromResource,
          ...common
        })
      }
      if (note.block === "File") {
        return wire.mimeType === undefined
          ? undefined
          : new ToolResultContent.File({
            source: { _tag: "Url", url: wire.uri },
            mediaType: wire.mimeType,
            ...defined({ filename: note.filename }),
            ...fromResource,
            ...common
          })
      }
      return new ToolResultContent.ResourceLink({
        uri: wire.uri,
        name: wire.name,
        ...defined({
          title: wire.title,
          mediaType: wire.mimeType,
          description: wire.description,
          size: wire.size,
          icons: wire.icons?.map(iconFromMcp)
        }),
        ...common
      })
    }
  }
}

type Resource = typeof McpSchema.EmbeddedResource.Encoded["resource"]

/** The block an embedded resource stands for under one reading (see {@link readBlock}). */
const readResource = (
  resource: Resource,
  reading: Reading,
  common: Pick<ToolResultContent.Text, "annotations" | "meta">
): ToolResultContent.ToolResultContent | undefined => {
  const { note, rich } = reading
  const uri = note.uri ?? (rich && resource.uri === inlineUri ? undefined : resource.uri)
  const fromResource = defined({ uri, resourceMeta: resource._meta as ToolResultContent.Meta | undefined })
  if ("text" in resource) {
    return new ToolResultContent.Text({
      text: resource.text,
      ...defined({ mediaType: resource.mimeType }),
      ...fromResource,
      ...common
    })
  }
  const data = resource.blob
  switch (note.block ?? (readsAsImage(resource.mimeType) ? "Image" : "File")) {
    case "Image":
      return new ToolResultContent.Image({
        source: { _tag: "Base64", data },
        ...defined({ mediaType: resource.mimeType, detail: note.detail }),
        ...fromResource,
        ...common
      })
    case "Audio":
      return resource.mimeType === undefined
        ? undefined
        : new ToolResultContent.Audio({ data, mediaType: resource.mimeType, ...fromResource, ...common })
    case "File":
      return resource.mimeType === undefined
        ? undefined
        : new ToolResultContent.File({
          source: { _tag: "Base64", data },
          mediaType: resource.mimeType,
          ...defined({ filename: note.filename }),
          ...fromResource,
          ...common
        })
    case "Json":
      return undefined
  }
}

const plain: Note = {}

/**
 * The block an MCP block stands for. Its note (and the placeholder uri) is understood only when our own mapping
 * gives back that very MCP block: a note that does not fit the block (or is not ours) is left in `meta` as it came.
 */
const fromMcpBlock = (wire: McpContent, meta: ToolResultContent.Meta | undefined): ToolResultContent.ToolResultContent => {
  const verbatim: Reading = { note: plain, meta, rich: false }
  const own = meta?.[noteKey]
  const decoded = own === undefined ? undefined : decodeNote(own)
  const usesPlaceholder = wire.type === "resource" && wire.resource.uri === inlineUri
  if (decoded === undefined && !usesPlaceholder) return readBlock(wire, verbatim)!
  let rich: Reading = { note: plain, meta, rich: true }
  if (decoded !== undefined && Result.isSuccess(decoded)) {
    const { emptyMeta, meta: escaped, ...note } = decoded.success
    const rest: Record<string, Schema.Json> = { ...meta }
    delete rest[noteKey]
    if (escaped !== undefined) rest[noteKey] = escaped
    rich = { note, meta: Object.keys(rest).length > 0 || emptyMeta === true ? rest : undefined, rich: true }
  }
  const candidate = readBlock(wire, rich)
  return candidate !== undefined && sameJson(toMcpBlock(candidate, false), wire) ? candidate : readBlock(wire, verbatim)!
}

/**
 * A tool output from MCP content in its wire form, block by block and in order:
 *
 * | MCP content | Block |
 * |---|---|
 * | `text` | Text |
 * | `image` | Image |
 * | `audio` | Audio |
 * | `resource` with `text` | Text, with its `uri` and `mediaType` |
 * | `resource` with `blob` | Image for an image media type (or none), else File, with its `uri` |
 * | `resource_link` | ResourceLink |
 *
 * Annotations and `_meta` are kept (as `annotations` and `meta`; a resource's own `_meta` as `resourceMeta`).
 * `structuredContent` becomes a Json block: it takes the place of the text block whose text is its JSON, however
 * written (compact, indented, with spaces after the separators), and is added after the content when there is none.
 * Checking it against the tool's output schema is the caller's part. Empty content, with no `structuredContent`, reads as one empty Text block: an output
 * always has a block.
 *
 * Never throws: content that is not an array, a block of an unknown type, a missing or mistyped field, a `_meta` or
 * `structuredContent` that is not JSON fails with an {@link McpContentError} naming the block and the field.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { McpContent } from "effect-llm-tools/mcp"
 *
 * const output = McpContent.fromMcp([{ type: "text", text: "hello" }])
 * Result.isSuccess(output) // true: one Text block, "hello"
 * ```
 *
 * @category converters
 * @since 0.1.0
 */
export const fromMcp = (
  content: unknown,
  structuredContent?: unknown
): Result.Result<ToolOutput.ToolOutput, McpContentError> => {
  try {
    return readContent(content, structuredContent)
  } catch {
    // A getter or a proxy trap threw while the content was read: it did not come from JSON.
    return Result.fail(new McpContentError({ message: "the content could not be read" }))
  }
}

const readContent = (
  content: unknown,
  structuredContent: unknown
): Result.Result<ToolOutput.ToolOutput, McpContentError> => {
  if (!Array.isArray(content)) return Result.fail(new McpContentError({ message: "content is not an array" }))
  const blocks: Array<ToolResultContent.ToolResultContent> = []
  for (let i = 0; i < content.length; i++) {
    const item: unknown = content[i]
    const type: unknown = typeof item === "object" && item !== null ? (item as { readonly type?: unknown }).type : undefined
    if (!blockTypes.has(type)) {
      const what = type === undefined ? "has no type" : `has the unknown type ${JSON.stringify(type) ?? String(type)}`
      return Result.fail(new McpContentError({ message: `content[${i}] ${what}` }))
    }
    const decoded = decodeBlock(item)
    if (Result.isFailure(decoded)) {
      return Result.fail(new McpContentError({ message: `content[${i}] (${String(type)}): ${issueText(decoded.failure)}` }))
    }
    const wire = decoded.success
    let meta: ToolResultContent.Meta | undefined
    if (wire._meta !== undefined) {
      const checked = decodeJsonObject(wire._meta)
      if (Result.isFailure(checked)) {
        return Result.fail(new McpContentError({ message: `content[${i}]._meta is not JSON: ${issueText(checked.failure)}` }))
      }
      meta = checked.success
    }
    if (wire.type === "resource" && wire.resource._meta !== undefined) {
      const checked = decodeJsonObject(wire.resource._meta)
      if (Result.isFailure(checked)) {
        return Result.fail(
          new McpContentError({ message: `content[${i}].resource._meta is not JSON: ${issueText(checked.failure)}` })
        )
      }
    }
    blocks.push(fromMcpBlock(wire, meta))
  }
  if (structuredContent !== undefined) {
    const checked = decodeJson(structuredContent)
    if (Result.isFailure(checked)) {
      return Result.fail(new McpContentError({ message: `structuredContent is not JSON: ${issueText(checked.failure)}` }))
    }
    const value = checked.success
    const compact = JSON.stringify(value)
    const at = blocks.findIndex((block) =>
      block._tag === "Text" && block.uri === undefined && block.mediaType === undefined &&
      block.resourceMeta === undefined && isJsonOf(block.text, value, compact)
    )
    if (at < 0) blocks.push(new ToolResultContent.Json({ value }))
    else {
      const text = blocks[at]!
      blocks[at] = new ToolResultContent.Json({
        value,
        ...defined({ annotations: text.annotations, meta: text.meta })
      })
    }
  }
  const [first, ...rest] = blocks
  return Result.succeed(ToolOutput.content(first === undefined ? [ToolResultContent.text("")] : [first, ...rest]))
}

/**
 * Whether `text` is the JSON of `value` (`compact`: its `JSON.stringify`), however it was written: compact, indented
 * (as the reference servers write it, `JSON.stringify(value, null, 2)`), with spaces after the separators (Python's
 * `json.dumps`), with numbers spelt otherwise (`1e21` for `1e+21`).
 */
const isJsonOf = (text: string, value: Schema.Json, compact: string): boolean => {
  if (text === compact) return true
  // Only text that could be the same kind of value is parsed (each block's text once, whatever the value's size).
  const start = text.trimStart()[0]
  const kind = compact[0]
  if (start !== kind || (kind !== "{" && kind !== "[" && kind !== "\"")) return false
  try {
    return sameJson(JSON.parse(text), value)
  } catch {
    return false
  }
}

/**
 * Whether two JSON values are equal (a block's wire form, a structured result): the same scalars, arrays of equal
 * items, objects of the same keys and values. Iterative: text parsed from a server may nest deep.
 */
const sameJson = (left: unknown, right: unknown): boolean => {
  const pending: Array<readonly [unknown, unknown]> = [[left, right]]
  while (pending.length > 0) {
    const [a, b] = pending.pop()!
    if (a === b) continue
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
    if (Array.isArray(a) !== Array.isArray(b)) return false
    const keys = Object.keys(a)
    if (keys.length !== Object.keys(b).length) return false
    for (const key of keys) {
      if (!Object.hasOwn(b, key)) return false
      pending.push([(a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]])
    }
  }
  return true
}

/** A schema issue as one line. */
const issueText = (error: Schema.SchemaError): string => error.message.replace(/\s*\n\s*/g, " ")
