/**
 * The canonical model-visible output of a tool call: an ordered, non-empty list of content blocks. It stays typed
 * until a provider adapter renders it; `render` turns it into a string for logs and telemetry only.
 *
 * This module also converts whatever a tool's `call` returns into a `ToolOutput` ({@link fromReturn}).
 *
 * @since 0.1.0
 */
import { type Array as Arr, Option, Predicate, Result, type Schema, type Types } from "effect"
import { urlContent } from "./internal/dataUrl.ts"
import {
  copyJson,
  type CopyFailure,
  defaultOutputLimits,
  describeOutputFailure,
  type JsonLimits,
  Stamp,
  toJsonValue
} from "./internal/json.ts"
import * as ToolResultContent from "./ToolResultContent.ts"

const TypeId = "~effect-llm-tools/ToolOutput" as const

/**
 * What the model sees from one call.
 *
 * @category models
 */
export class ToolOutput {
  readonly [TypeId] = TypeId
  readonly content: Arr.NonEmptyReadonlyArray<ToolResultContent.ToolResultContent>
  constructor(content: Arr.NonEmptyReadonlyArray<ToolResultContent.ToolResultContent>) {
    this.content = content
  }
  toJSON(): unknown {
    return { _id: "ToolOutput", content: this.content }
  }
  toString(): string {
    return render(this)
  }
}

/**
 * True for a `ToolOutput`.
 *
 * @category guards
 */
export const isToolOutput = (u: unknown): u is ToolOutput => Predicate.hasProperty(u, TypeId)

/**
 * An output of exactly one Text block.
 *
 * @category constructors
 */
export const text = (text: string): ToolOutput => new ToolOutput([ToolResultContent.text(text)])

/**
 * An output of exactly one Json block.
 *
 * @category constructors
 */
export const json = (value: Schema.Json): ToolOutput => new ToolOutput([ToolResultContent.json(value)])

/**
 * An output of one block.
 *
 * @category constructors
 */
export const one = (block: ToolResultContent.ToolResultContent): ToolOutput => new ToolOutput([block])

/**
 * An output of several blocks, in order.
 *
 * @example
 * ```ts
 * import { ToolOutput, ToolResultContent } from "effect-llm-tools"
 *
 * const output = ToolOutput.content([
 *   ToolResultContent.text("Here is the chart"),
 *   ToolResultContent.imageUrl("https://example.com/chart.png", "image/png")
 * ])
 * ```
 *
 * @category constructors
 */
export const content = (blocks: Arr.NonEmptyReadonlyArray<ToolResultContent.ToolResultContent>): ToolOutput =>
  new ToolOutput(blocks)

/**
 * The text of an output made of exactly one Text block.
 *
 * @category accessors
 */
export const asText = (output: ToolOutput): Option.Option<string> =>
  output.content.length === 1 && output.content[0] instanceof ToolResultContent.Text
    ? Option.some(output.content[0].text)
    : Option.none()

/**
 * The value of an output made of exactly one Json block.
 *
 * @category accessors
 */
export const asJson = (output: ToolOutput): Option.Option<Schema.Json> =>
  output.content.length === 1 && output.content[0] instanceof ToolResultContent.Json
    ? Option.some(output.content[0].value)
    : Option.none()

/**
 * A one-line-per-block string for logs and telemetry. Binary data is summarized, never printed: base64 data, and
 * `data:` URLs, which are inline base64 too. Provider adapters do their own rendering; this is not what the model
 * sees.
 *
 * Total, for any output, including one built by hand with values that are not JSON (cycles, BigInts, values too deep
 * for `JSON.stringify`) or fields of the wrong type: what cannot be shown is named in brackets instead.
 *
 * @category accessors
 */
export const render = (output: ToolOutput): string => {
  let content: unknown
  try {
    content = output.content
    if (!Array.isArray(content)) return "[not an output]"
    const lines: Array<string> = []
    for (let i = 0; i < content.length; i++) lines.push(renderBlock(content[i]))
    return lines.join("\n")
  } catch {
    return "[unreadable output]"
  }
}

const stringOr = (value: unknown, fallback: string): string => typeof value === "string" ? value : fallback

/** An optional field, after a space, when it is a non-empty string. */
const optionalPart = (value: unknown): string => typeof value === "string" && value !== "" ? ` ${value}` : ""

const base64Summary = (base64: string): string => `base64, ${base64.length} chars`

/** A URL as a link, or a summary of the bytes a `data:` URL carries. */
const renderUrl = (url: unknown): string => {
  if (typeof url !== "string") return "[not a URL]"
  const content = urlContent(url)
  switch (content._tag) {
    case "Link":
      return content.url
    case "Inline":
      return base64Summary(content.base64)
    case "Malformed":
      return "malformed data URL"
  }
}

const renderSource = (source: unknown): string => {
  if (typeof source !== "object" || source === null) return "[no source]"
  const { _tag, data, url } = source as { readonly _tag?: unknown; readonly data?: unknown; readonly url?: unknown }
  if (_tag === "Url") return renderUrl(url)
  if (_tag === "Base64" && typeof data === "string") return base64Summary(data)
  return "[no source]"
}

const renderBlock = (block: unknown): string => {
  try {
    if (block instanceof ToolResultContent.Text) return stringOr(block.text, "[text that is not a string]")
    if (block instanceof ToolResultContent.Json) {
      const value = toJsonValue(block.value)
      return Result.isSuccess(value) ? JSON.stringify(value.success) : `[json that cannot be shown: ${value.failure}]`
    }
    if (block instanceof ToolResultContent.Image) {
      const mediaType = block.mediaType
      return `[image${optionalPart(mediaType)}: ${renderSource(block.source)}]`
    }
    if (block instanceof ToolResultContent.Audio) {
      const data = block.data
      return `[audio ${stringOr(block.mediaType, "?")}: ${typeof data === "string" ? base64Summary(data) : "[no data]"}]`
    }
    if (block instanceof ToolResultContent.File) {
      const filename = block.filename
      return `[file ${stringOr(block.mediaType, "?")}${optionalPart(filename)}: ${renderSource(block.source)}]`
    }
    if (block instanceof ToolResultContent.ResourceLink) {
      return `[resource ${stringOr(block.name, "?")}: ${renderUrl(block.uri)}]`
    }
    return "[not a content block]"
  } catch {
    return "[unreadable block]"
  }
}

/**
 * Converts what a tool's `call` returned into its output, in this order:
 *
 * 1. a `ToolOutput`, a content block, or a non-empty array of blocks (detected by class, never by shape) becomes
 *    content, each block checked: a Json block's value, and any block's `meta` and `resourceMeta` (which must be
 *    objects), are copied like a JSON value (step 4), every other field must have its declared type (a string where
 *    a string is due, an image `detail` of `auto`, `low` or `high`, annotations as `ToolResultContent.Annotations`
 *    describes them, a link's `size` an integer, its `icons` icons), and the output must not be empty. Of the
 *    fields that keep what MCP content says (annotations, `meta`, `uri`, `resourceMeta`, a Text's `mediaType`, a
 *    link's `title`, `size` and `icons`), and of annotations and icons, those that are `undefined` are left out;
 * 2. a string becomes one Text block (a JSON-shaped string stays text);
 * 3. anything else is encoded by `encode` (the JSON codec of the tool's `success` Schema), when there is one;
 * 4. the value (or what `encode` made of it) is read once into one Json block holding a plain, deeply frozen JSON
 *    copy, within `limits` (default: 8 MiB of JSON text, 128 levels of nesting). `undefined` object fields are
 *    dropped, as JSON does.
 *
 * What the result holds is made of fresh blocks and frozen copies: nothing the tool keeps a reference to, or changes
 * later, can change it. An output made of checked blocks (step 1) is frozen whole, and kept as it is when it comes
 * back.
 *
 * Never throws. Fails with the reason, for operators, when the value cannot be converted: the encoder's failure, or
 * a string naming the first value that is not JSON (by its path), the limit exceeded, or the field of the wrong type.
 *
 * @category constructors
 */
export const fromReturn = <E = string>(
  value: unknown,
  encode?: (value: unknown) => Result.Result<unknown, E>,
  limits?: { readonly maxBytes: number; readonly maxDepth: number }
): Result.Result<ToolOutput, E | string> => {
  const jsonLimits = limits ?? defaultOutputLimits
  try {
    if (typeof value === "string") return Result.succeed(text(value))
    // A plain object is neither an output nor a block (both are class instances): it goes straight to step 3.
    if (typeof value === "object" && value !== null && Object.getPrototypeOf(value) !== Object.prototype) {
      if (isToolOutput(value)) return checkOutput(value, jsonLimits)
      if (ToolResultContent.isToolResultContent(value)) return checkBlocks([value], jsonLimits)
      if (Array.isArray(value) && value.length > 0) {
        // Looked at without calling a getter: a value is read once, by the copy below, or an element that reads
        // differently each time could pass as JSON here and be something else there.
        const slot = Object.getOwnPropertyDescriptor(value, 0)
        const first: unknown = slot !== undefined && "value" in slot ? slot.value : undefined
        if (ToolResultContent.isToolResultContent(first)) {
          const blocks: Array<unknown> = [first]
          for (let i = 1; i < value.length; i++) blocks.push(value[i])
          if (!blocks.every(ToolResultContent.isToolResultContent)) {
            return Result.fail(`$[0] is ${first._tag}, not JSON`)
          }
          return checkBlocks(blocks, jsonLimits)
        }
      }
    }
    let encoded = value
    if (encode !== undefined) {
      const result = encode(value)
      if (Result.isFailure(result)) return Result.fail(result.failure)
      encoded = result.success
    }
    const copied = copyJson(encoded, jsonLimits)
    if (Result.isFailure(copied)) return Result.fail(describeOutputFailure(copied.failure, jsonLimits))
    // The value is the frozen copy; the block and the list around it are fresh, and left unfrozen: freezing costs
    // more than the rest of the conversion, on the path every JSON result takes.
    return Result.succeed(json(copied.success))
  } catch {
    // A getter or a proxy trap threw while the value was read.
    return Result.fail("the value could not be read")
  }
}

/**
 * Marks the outputs `fromReturn` made of checked blocks, with the limits their JSON was held to. They are frozen,
 * and made of frozen blocks holding frozen copies: checking one again would find nothing new. (An error's
 * `modelOutput` is one: dispatch sees it again whenever the error is passed through.)
 */
class Checked extends Stamp {
  readonly #limits: JsonLimits
  constructor(output: ToolOutput, limits: JsonLimits) {
    super(output)
    this.#limits = limits
  }
  static limitsOf(output: ToolOutput): JsonLimits | undefined {
    return #limits in output ? (output as unknown as Checked).#limits : undefined
  }
}

/** Limits any output without JSON meets. */
const noJson: JsonLimits = { maxBytes: 0, maxDepth: 0 }

const checkedOutput = (blocks: Array<ToolResultContent.ToolResultContent>, limits: JsonLimits): ToolOutput => {
  const output = new ToolOutput(
    Object.freeze(blocks) as unknown as Arr.NonEmptyReadonlyArray<ToolResultContent.ToolResultContent>
  )
  new Checked(output, limits)
  return Object.freeze(output)
}

const checkOutput = (output: ToolOutput, limits: JsonLimits): Result.Result<ToolOutput, string> => {
  const checked = Checked.limitsOf(output)
  if (checked !== undefined && checked.maxBytes <= limits.maxBytes && checked.maxDepth <= limits.maxDepth) {
    return Result.succeed(output)
  }
  const content: unknown = output.content
  if (!Array.isArray(content)) return Result.fail("the output's content is not an array")
  const blocks: Array<unknown> = []
  for (let i = 0; i < content.length; i++) blocks.push(content[i])
  return checkBlocks(blocks, limits)
}

const checkBlocks = (blocks: ReadonlyArray<unknown>, limits: JsonLimits): Result.Result<ToolOutput, string> => {
  if (blocks.length === 0) return Result.fail("the output has no content")
  const fresh: Array<ToolResultContent.ToolResultContent> = []
  let hasJson = false
  for (let i = 0; i < blocks.length; i++) {
    const block = checkBlock(blocks[i], limits)
    if (typeof block === "string") return Result.fail(`content[${i}]: ${block}`)
    // A `meta` or `resourceMeta` is JSON held to the limits too: under smaller ones it must be checked again.
    hasJson ||= block._tag === "Json" || block.meta !== undefined ||
      (block as { readonly resourceMeta?: unknown }).resourceMeta !== undefined
    fresh.push(Object.freeze(block))
  }
  return Result.succeed(checkedOutput(fresh, hasJson ? limits : noJson))
}

const isOptionalString = (value: unknown): value is string | undefined =>
  value === undefined || typeof value === "string"

/** A fresh, frozen copy of a block's source, or `undefined` when it is not one. */
const checkSource = (source: unknown): ToolResultContent.Source | undefined => {
  if (typeof source !== "object" || source === null) return undefined
  const tag: unknown = (source as { readonly _tag?: unknown })._tag
  if (tag === "Base64") {
    const data: unknown = (source as { readonly data?: unknown }).data
    return typeof data === "string" ? Object.freeze({ _tag: "Base64", data }) : undefined
  }
  if (tag === "Url") {
    const url: unknown = (source as { readonly url?: unknown }).url
    return typeof url === "string" ? Object.freeze({ _tag: "Url", url }) : undefined
  }
  return undefined
}

/** The fields a block's constructor takes, to be filled in one by one. */
type FieldsOf<B extends new(fields: any) => unknown> = Types.Mutable<ConstructorParameters<B>[0]>

/** Why a `meta` or `resourceMeta` could not be copied, in the words `describeOutputFailure` uses for a whole output. */
const describeMetaFailure = (failure: CopyFailure, limits: JsonLimits): string => {
  switch (failure._tag) {
    case "NotJson":
      // A class instance (a Date, a Map) at the top is not a JSON object, whatever its fields.
      return failure.path === "$" ? " is not a JSON object" : `: ${failure.path} is ${failure.what}, not JSON`
    case "TooDeep":
      return failure.cycle !== undefined
        ? `: ${failure.cycle} is a cycle, not JSON`
        : ` is nested deeper than ${limits.maxDepth} levels`
    case "TooLarge":
      return failure.cycle !== undefined
        ? `: ${failure.cycle} is a cycle, not JSON`
        : ` is larger than ${limits.maxBytes} bytes of JSON text`
    case "Unreadable":
      return " could not be read"
  }
}

/**
 * A frozen plain JSON copy of a `meta` or `resourceMeta`, within the output limits, or why not: the rest of the
 * sentence after the field's name.
 */
const checkMeta = (meta: unknown, limits: JsonLimits): ToolResultContent.Meta | string => {
  if (!Predicate.isObject(meta)) return " is not a JSON object"
  const copied = copyJson(meta, limits)
  return Result.isSuccess(copied)
    ? copied.success as ToolResultContent.Meta
    : describeMetaFailure(copied.failure, limits)
}

/**
 * A fresh, frozen copy of a block's annotations, or why they are not valid: the rest of the sentence. Only the fields
 * the block Schemas know are kept, as decoding keeps them.
 */
const checkAnnotations = (annotations: unknown): ToolResultContent.Annotations | string => {
  if (!Predicate.isObject(annotations)) {
    return " are not an object"
  }
  const { audience, priority, lastModified } = annotations as Record<string, unknown>
  const checked: Types.Mutable<ToolResultContent.Annotations> = {}
  if (audience !== undefined) {
    if (!Array.isArray(audience)) return ".audience is not an array of user and assistant"
    const length = audience.length
    const copy: Array<"user" | "assistant"> = []
    for (let i = 0; i < length; i++) {
      const who: unknown = audience[i]
      if (who !== "user" && who !== "assistant") return ".audience is not an array of user and assistant"
      copy.push(who)
    }
    checked.audience = Object.freeze(copy)
  }
  if (priority !== undefined) {
    // `!(… >= 0)` is also true for NaN.
    if (typeof priority !== "number" || !(priority >= 0 && priority <= 1)) {
      return ".priority is not a number from 0 to 1"
    }
    checked.priority = priority
  }
  if (lastModified !== undefined) {
    if (typeof lastModified !== "string") return ".lastModified is not a string"
    checked.lastModified = lastModified
  }
  return Object.freeze(checked)
}

/**
 * A fresh, frozen copy of a resource link's icons, or why they are not valid: the rest of the sentence. Only the
 * fields the block Schemas know are kept, as decoding keeps them.
 */
const checkIcons = (icons: unknown): ReadonlyArray<ToolResultContent.Icon> | string => {
  if (!Array.isArray(icons)) return " are not an array"
  const length = icons.length
  const copy: Array<ToolResultContent.Icon> = []
  for (let i = 0; i < length; i++) {
    const icon: unknown = icons[i]
    if (!Predicate.isObject(icon)) return `[${i}] is not an object`
    const { src, mimeType, sizes, theme } = icon as Record<string, unknown>
    if (typeof src !== "string") return `[${i}].src is not a string`
    const checked: Types.Mutable<ToolResultContent.Icon> = { src }
    if (mimeType !== undefined) {
      if (typeof mimeType !== "string") return `[${i}].mimeType is not a string`
      checked.mimeType = mimeType
    }
    if (sizes !== undefined) {
      if (!Array.isArray(sizes)) return `[${i}].sizes is not an array of strings`
      const sizesLength = sizes.length
      const sizesCopy: Array<string> = []
      for (let j = 0; j < sizesLength; j++) {
        const size: unknown = sizes[j]
        if (typeof size !== "string") return `[${i}].sizes is not an array of strings`
        sizesCopy.push(size)
      }
      checked.sizes = Object.freeze(sizesCopy)
    }
    if (theme !== undefined) {
      if (theme !== "light" && theme !== "dark") return `[${i}].theme is not light or dark`
      checked.theme = theme
    }
    copy.push(Object.freeze(checked))
  }
  return Object.freeze(copy)
}

/** Adds a block's checked `annotations` and `meta` to its fields, or says why they are not valid. */
const addCommon = (
  fields: { annotations?: ToolResultContent.Annotations | undefined; meta?: ToolResultContent.Meta | undefined },
  owner: string,
  annotations: unknown,
  meta: unknown,
  limits: JsonLimits
): string | undefined => {
  if (annotations !== undefined) {
    const checked = checkAnnotations(annotations)
    if (typeof checked === "string") return `${owner}'s annotations${checked}`
    fields.annotations = checked
  }
  if (meta !== undefined) {
    const checked = checkMeta(meta, limits)
    if (typeof checked === "string") return `${owner}'s meta${checked}`
    fields.meta = checked
  }
  return undefined
}

/** Adds the checked `uri` and `resourceMeta` of a block that stands for a resource's contents to its fields. */
const addFromResource = (
  fields: { uri?: string | undefined; resourceMeta?: ToolResultContent.Meta | undefined },
  owner: string,
  uri: unknown,
  resourceMeta: unknown,
  limits: JsonLimits
): string | undefined => {
  if (uri !== undefined) {
    if (typeof uri !== "string") return `${owner}'s uri is not a string`
    fields.uri = uri
  }
  if (resourceMeta !== undefined) {
    const checked = checkMeta(resourceMeta, limits)
    if (typeof checked === "string") return `${owner}'s resourceMeta${checked}`
    fields.resourceMeta = checked
  }
  return undefined
}

/**
 * A fresh block with the checked fields of `block`, or why it is not a valid block. Each field is read once, and the
 * block's kind is its class: a `_tag` field cannot change it.
 *
 * Most blocks carry none of the fields that keep what MCP content says (annotations, `meta`, a resource's `uri` and
 * `resourceMeta`, a link's `title`, `size` and `icons`): those take the first return of each kind, which costs them
 * only the reads that find the fields `undefined`.
 */
const checkBlock = (block: unknown, limits: JsonLimits): ToolResultContent.ToolResultContent | string => {
  if (block instanceof ToolResultContent.Text) {
    const text: unknown = block.text
    const mediaType: unknown = block.mediaType
    const uri: unknown = block.uri
    const resourceMeta: unknown = block.resourceMeta
    const annotations: unknown = block.annotations
    const meta: unknown = block.meta
    if (typeof text !== "string") return "a Text block's text is not a string"
    if (
      mediaType === undefined && uri === undefined && resourceMeta === undefined && annotations === undefined &&
      meta === undefined
    ) return new ToolResultContent.Text({ text })
    if (!isOptionalString(mediaType)) return "a Text block's mediaType is not a string"
    const fields: FieldsOf<typeof ToolResultContent.Text> = { text }
    if (mediaType !== undefined) fields.mediaType = mediaType
    return addFromResource(fields, "a Text block", uri, resourceMeta, limits) ??
      addCommon(fields, "a Text block", annotations, meta, limits) ??
      new ToolResultContent.Text(fields)
  }
  if (block instanceof ToolResultContent.Json) {
    const value: unknown = block.value
    const annotations: unknown = block.annotations
    const meta: unknown = block.meta
    const copied = copyJson(value, limits)
    if (Result.isFailure(copied)) return describeOutputFailure(copied.failure, limits)
    if (annotations === undefined && meta === undefined) return new ToolResultContent.Json({ value: copied.success })
    const fields: FieldsOf<typeof ToolResultContent.Json> = { value: copied.success }
    return addCommon(fields, "a Json block", annotations, meta, limits) ?? new ToolResultContent.Json(fields)
  }
  if (block instanceof ToolResultContent.Image) {
    const source = checkSource(block.source)
    const mediaType: unknown = block.mediaType
    const detail: unknown = block.detail
    const uri: unknown = block.uri
    const resourceMeta: unknown = block.resourceMeta
    const annotations: unknown = block.annotations
    const meta: unknown = block.meta
    if (source === undefined) return "an Image block's source is not a Base64 or Url source"
    if (!isOptionalString(mediaType)) return "an Image block's mediaType is not a string"
    if (detail !== undefined && detail !== "auto" && detail !== "low" && detail !== "high") {
      return "an Image block's detail is not auto, low or high"
    }
    const fields: FieldsOf<typeof ToolResultContent.Image> = { source, mediaType, detail }
    if (uri === undefined && resourceMeta === undefined && annotations === undefined && meta === undefined) {
      return new ToolResultContent.Image(fields)
    }
    return addFromResource(fields, "an Image block", uri, resourceMeta, limits) ??
      addCommon(fields, "an Image block", annotations, meta, limits) ??
      new ToolResultContent.Image(fields)
  }
  if (block instanceof ToolResultContent.Audio) {
    const data: unknown = block.data
    const mediaType: unknown = block.mediaType
    const uri: unknown = block.uri
    const resourceMeta: unknown = block.resourceMeta
    const annotations: unknown = block.annotations
    const meta: unknown = block.meta
    if (typeof data !== "string") return "an Audio block's data is not a string"
    if (typeof mediaType !== "string") return "an Audio block's mediaType is not a string"
    const fields: FieldsOf<typeof ToolResultContent.Audio> = { data, mediaType }
    if (uri === undefined && resourceMeta === undefined && annotations === undefined && meta === undefined) {
      return new ToolResultContent.Audio(fields)
    }
    return addFromResource(fields, "an Audio block", uri, resourceMeta, limits) ??
      addCommon(fields, "an Audio block", annotations, meta, limits) ??
      new ToolResultContent.Audio(fields)
  }
  if (block instanceof ToolResultContent.File) {
    const source = checkSource(block.source)
    const mediaType: unknown = block.mediaType
    const filename: unknown = block.filename
    const uri: unknown = block.uri
    const resourceMeta: unknown = block.resourceMeta
    const annotations: unknown = block.annotations
    const meta: unknown = block.meta
    if (source === undefined) return "a File block's source is not a Base64 or Url source"
    if (typeof mediaType !== "string") return "a File block's mediaType is not a string"
    if (!isOptionalString(filename)) return "a File block's filename is not a string"
    const fields: FieldsOf<typeof ToolResultContent.File> = { source, mediaType, filename }
    if (uri === undefined && resourceMeta === undefined && annotations === undefined && meta === undefined) {
      return new ToolResultContent.File(fields)
    }
    return addFromResource(fields, "a File block", uri, resourceMeta, limits) ??
      addCommon(fields, "a File block", annotations, meta, limits) ??
      new ToolResultContent.File(fields)
  }
  if (block instanceof ToolResultContent.ResourceLink) {
    const uri: unknown = block.uri
    const name: unknown = block.name
    const title: unknown = block.title
    const mediaType: unknown = block.mediaType
    const description: unknown = block.description
    const size: unknown = block.size
    const icons: unknown = block.icons
    const annotations: unknown = block.annotations
    const meta: unknown = block.meta
    if (typeof uri !== "string") return "a ResourceLink block's uri is not a string"
    if (typeof name !== "string") return "a ResourceLink block's name is not a string"
    if (!isOptionalString(mediaType)) return "a ResourceLink block's mediaType is not a string"
    if (!isOptionalString(description)) return "a ResourceLink block's description is not a string"
    // As `resourceLink` does, the optional fields are there only when they were given.
    const fields: FieldsOf<typeof ToolResultContent.ResourceLink> = { uri, name }
    if (mediaType !== undefined) fields.mediaType = mediaType
    if (description !== undefined) fields.description = description
    if (
      title === undefined && size === undefined && icons === undefined && annotations === undefined &&
      meta === undefined
    ) return new ToolResultContent.ResourceLink(fields)
    if (title !== undefined) {
      if (typeof title !== "string") return "a ResourceLink block's title is not a string"
      fields.title = title
    }
    if (size !== undefined) {
      // The rule of the block's Schema (and of MCP's): a safe integer.
      if (!Number.isSafeInteger(size)) return "a ResourceLink block's size is not an integer"
      fields.size = size as number
    }
    if (icons !== undefined) {
      const checked = checkIcons(icons)
      if (typeof checked === "string") return `a ResourceLink block's icons${checked}`
      fields.icons = checked
    }
    return addCommon(fields, "a ResourceLink block", annotations, meta, limits) ??
      new ToolResultContent.ResourceLink(fields)
  }
  return "not a content block"
}
