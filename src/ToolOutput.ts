/**
 * The canonical model-visible output of a tool call: an ordered, non-empty list of content blocks. It stays typed
 * until a provider adapter renders it; `render` turns it into a string for logs and telemetry only.
 *
 * This module also converts whatever a tool's `call` returns into a `ToolOutput` ({@link fromReturn}).
 *
 * @since 0.1.0
 */
import { type Array as Arr, Option, Predicate, Result, type Schema } from "effect"
import { urlContent } from "./internal/dataUrl.ts"
import {
  copyJson,
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
 *    content, each block checked: a Json block's value is copied like a JSON value (step 4), every other field must
 *    have its declared type (a string where a string is due, an image `detail` of `auto`, `low` or `high`), and the
 *    output must not be empty;
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
        const first: unknown = value[0]
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
    hasJson ||= block._tag === "Json"
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

/**
 * A fresh block with the checked fields of `block`, or why it is not a valid block. Each field is read once, and the
 * block's kind is its class: a `_tag` field cannot change it.
 */
const checkBlock = (block: unknown, limits: JsonLimits): ToolResultContent.ToolResultContent | string => {
  if (block instanceof ToolResultContent.Text) {
    const text: unknown = block.text
    return typeof text === "string" ? new ToolResultContent.Text({ text }) : "a Text block's text is not a string"
  }
  if (block instanceof ToolResultContent.Json) {
    const copied = copyJson(block.value, limits)
    return Result.isSuccess(copied)
      ? new ToolResultContent.Json({ value: copied.success })
      : describeOutputFailure(copied.failure, limits)
  }
  if (block instanceof ToolResultContent.Image) {
    const source = checkSource(block.source)
    const mediaType: unknown = block.mediaType
    const detail: unknown = block.detail
    if (source === undefined) return "an Image block's source is not a Base64 or Url source"
    if (!isOptionalString(mediaType)) return "an Image block's mediaType is not a string"
    if (detail !== undefined && detail !== "auto" && detail !== "low" && detail !== "high") {
      return "an Image block's detail is not auto, low or high"
    }
    return new ToolResultContent.Image({ source, mediaType, detail })
  }
  if (block instanceof ToolResultContent.Audio) {
    const data: unknown = block.data
    const mediaType: unknown = block.mediaType
    if (typeof data !== "string") return "an Audio block's data is not a string"
    if (typeof mediaType !== "string") return "an Audio block's mediaType is not a string"
    return new ToolResultContent.Audio({ data, mediaType })
  }
  if (block instanceof ToolResultContent.File) {
    const source = checkSource(block.source)
    const mediaType: unknown = block.mediaType
    const filename: unknown = block.filename
    if (source === undefined) return "a File block's source is not a Base64 or Url source"
    if (typeof mediaType !== "string") return "a File block's mediaType is not a string"
    if (!isOptionalString(filename)) return "a File block's filename is not a string"
    return new ToolResultContent.File({ source, mediaType, filename })
  }
  if (block instanceof ToolResultContent.ResourceLink) {
    const uri: unknown = block.uri
    const name: unknown = block.name
    const mediaType: unknown = block.mediaType
    const description: unknown = block.description
    if (typeof uri !== "string") return "a ResourceLink block's uri is not a string"
    if (typeof name !== "string") return "a ResourceLink block's name is not a string"
    if (!isOptionalString(mediaType)) return "a ResourceLink block's mediaType is not a string"
    if (!isOptionalString(description)) return "a ResourceLink block's description is not a string"
    // As `resourceLink` does, the optional fields are there only when they were given.
    return new ToolResultContent.ResourceLink({
      uri,
      name,
      ...(mediaType === undefined ? {} : { mediaType }),
      ...(description === undefined ? {} : { description })
    })
  }
  return "not a content block"
}
