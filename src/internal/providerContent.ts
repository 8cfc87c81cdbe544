/**
 * What the four provider adapters share: where the offered tools come from, the text renderings (so that every
 * provider says the same thing the same way where it can only take text), and the media helpers (data URLs, image
 * media types recognized from base64). Each adapter keeps only its wire shapes.
 */
import type * as ToolDefinition from "../ToolDefinition.ts"
import type { ToolResult } from "../ToolResult.ts"
import type * as ToolResultContent from "../ToolResultContent.ts"
import * as ToolSet from "../ToolSet.ts"

// ---------------------------------------------------------------------------
// Tools offered
// ---------------------------------------------------------------------------

/** Where the tools of a request come from: a tool set, or definitions. */
export type Tools = ToolSet.Any | ReadonlyArray<ToolDefinition.ToolDefinition>

/** The definitions of `tools`, in order. */
export const definitionsOf = (tools: Tools): ReadonlyArray<ToolDefinition.ToolDefinition> =>
  ToolSet.isToolSet(tools) ? ToolSet.definitions(tools) : tools

// ---------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------

/** A Json block as compact JSON text. */
const jsonText = (value: unknown): string => JSON.stringify(value)

/**
 * The text of a block that has a text form (Text, Json, ResourceLink), or `undefined` for media (Image, Audio, File),
 * which each adapter lowers by its provider's capabilities.
 */
export const blockText = (block: ToolResultContent.ToolResultContent): string | undefined => {
  switch (block._tag) {
    case "Text":
      return block.text
    case "Json":
      return jsonText(block.value)
    case "ResourceLink":
      return resourceLinkText(block)
    default:
      return undefined
  }
}

const resourceLinkText = (block: ToolResultContent.ResourceLink): string =>
  `${block.name}: ${block.uri}${block.description ? ` (${block.description})` : ""}`

/**
 * For providers with no error flag (OpenAI), and for the refusals and skips of those with one (Anthropic): the words
 * put before a failed, denied or skipped result's text, so the model reads it as what it is. `undefined` for
 * success.
 */
export const statusPrefix = (result: ToolResult): string | undefined => {
  switch (result.status) {
    case "success":
      return undefined
    case "denied":
      return "Tool call denied: "
    case "skipped":
      return "Tool call skipped: "
    case "error":
      return `Tool call failed (${result.error._tag === "Some" ? result.error.value.kind : "other"}): `
  }
}

/**
 * The text that stands for a result with no content at all: the status words (without the trailing `": "`), or
 * `(empty result)` for a success. Anthropic refuses a `tool_result` with `is_error` and empty content, and an empty
 * answer tells the model nothing on any provider.
 */
export const emptyResultText = (result: ToolResult): string => statusPrefix(result)?.replace(/: $/, "") ?? "(empty result)"

/**
 * A list of parts with `prefix` put in front: joined to the first part when it is text, or as a text part of its
 * own (without the trailing space) before media.
 */
export const prefixParts = <Part>(
  prefix: string,
  parts: ReadonlyArray<Part>,
  textOf: (part: Part) => string | undefined,
  makeText: (text: string) => Part
): Array<Part> => {
  const first = parts[0]
  const firstText = first === undefined ? undefined : textOf(first)
  return firstText === undefined
    ? [makeText(prefix.trimEnd()), ...parts]
    : [makeText(prefix + firstText), ...parts.slice(1)]
}

// ---------------------------------------------------------------------------
// Media
// ---------------------------------------------------------------------------

/** The image formats recognized by their first bytes: the four that Anthropic accepts, and OpenAI and Gemini too. */
export type ImageMediaType = "image/jpeg" | "image/png" | "image/gif" | "image/webp"

// Base64 of each format's magic bytes: lets an image built without a media type still go out as an image.
const imageSignatures: ReadonlyArray<readonly [string, ImageMediaType]> = [
  ["iVBORw0KGgo", "image/png"],
  ["/9j/", "image/jpeg"],
  ["R0lGOD", "image/gif"],
  ["UklGR", "image/webp"]
]

const imageMediaTypes: ReadonlySet<string> = new Set<ImageMediaType>(["image/jpeg", "image/png", "image/gif", "image/webp"])

/**
 * True for the image media types Anthropic and OpenAI (Chat Completions and Responses) accept as images; any other
 * (SVG, TIFF, BMP, …) is refused by their APIs and must not be sent as an image.
 */
export const isImageMediaType = (mediaType: string): mediaType is ImageMediaType => imageMediaTypes.has(mediaType)

/** The media type of a base64 image recognized by its first bytes, or `undefined` when none matches. */
const sniffImageMediaType = (base64: string): ImageMediaType | undefined =>
  imageSignatures.find(([prefix]) => base64.startsWith(prefix))?.[1]

/**
 * The media type of an image: the block's own, else the one recognized from its base64 data (when it is inline);
 * `undefined` when neither tells.
 */
export const imageMediaType = (mediaType: string | undefined, base64: string | undefined): string | undefined =>
  mediaType ?? (base64 === undefined ? undefined : sniffImageMediaType(base64))

/** A `data:` URL: how OpenAI takes inline images and files. */
export const dataUrl = (mediaType: string, base64: string): string => `data:${mediaType};base64,${base64}`

/** The UTF-8 text of base64 data, or `undefined` when it is not valid base64 of valid UTF-8. */
export const decodeBase64Text = (data: string): string | undefined => {
  try {
    const binary = atob(data)
    const bytes = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
}
