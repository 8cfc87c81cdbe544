/**
 * The canonical model-visible output of a tool call: an ordered, non-empty list of content blocks. It stays typed
 * until a provider adapter renders it; `render` turns it into a string for logs and telemetry only.
 *
 * This module also converts whatever a tool's `call` returns into a `ToolOutput` ({@link fromReturn}).
 *
 * @since 0.1.0
 */
import { type Array as Arr, Option, Predicate, Result, type Schema } from "effect"
import { toJsonValue } from "./internal/json.ts"
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
 * A one-line-per-block string for logs and telemetry. Binary data is summarized, never printed.
 * Provider adapters do their own rendering; this is not what the model sees.
 *
 * @category accessors
 */
export const render = (output: ToolOutput): string => output.content.map(renderBlock).join("\n")

const renderSource = (source: ToolResultContent.Source): string =>
  source._tag === "Url" ? source.url : `base64, ${source.data.length} chars`

const renderBlock = (block: ToolResultContent.ToolResultContent): string => {
  switch (block._tag) {
    case "Text":
      return block.text
    case "Json":
      return JSON.stringify(block.value)
    case "Image":
      return `[image${block.mediaType ? ` ${block.mediaType}` : ""}: ${renderSource(block.source)}]`
    case "Audio":
      return `[audio ${block.mediaType}: base64, ${block.data.length} chars]`
    case "File":
      return `[file ${block.mediaType}${block.filename ? ` ${block.filename}` : ""}: ${renderSource(block.source)}]`
    case "ResourceLink":
      return `[resource ${block.name}: ${block.uri}]`
  }
}

/**
 * Converts what a tool's `call` returned into its output, in this order:
 *
 * 1. a `ToolOutput` is kept;
 * 2. a content block, or a non-empty array of blocks, becomes content (detected by class, never by shape);
 * 3. a string becomes one Text block (a JSON-shaped string stays text);
 * 4. anything else is encoded by `encode` (the JSON codec of the tool's `success` Schema, which must return JSON)
 *    into one Json block; with no `encode`, the value must already be JSON (`undefined` object fields are dropped,
 *    as JSON does).
 *
 * Fails with the reason, for operators, when the value cannot be encoded: the encoder's failure, or a string
 * naming the path of the first value that is not JSON.
 *
 * @category constructors
 */
export const fromReturn = <E = string>(
  value: unknown,
  encode?: (value: unknown) => Result.Result<Schema.Json, E>
): Result.Result<ToolOutput, E | string> => {
  // A plain object is neither an output nor a block (both are class instances): go straight to step 4.
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) {
    if (isToolOutput(value)) return Result.succeed(value)
    if (typeof value === "string") return Result.succeed(text(value))
    if (ToolResultContent.isToolResultContent(value)) return Result.succeed(one(value))
    if (
      Array.isArray(value) && value.length > 0 && ToolResultContent.isToolResultContent(value[0]) &&
      value.every(ToolResultContent.isToolResultContent)
    ) {
      return Result.succeed(new ToolOutput(value as unknown as Arr.NonEmptyReadonlyArray<ToolResultContent.Json>))
    }
  }
  const encoded: Result.Result<Schema.Json, E | string> = encode === undefined ? toJsonValue(value) : encode(value)
  return Result.map(encoded, json)
}
