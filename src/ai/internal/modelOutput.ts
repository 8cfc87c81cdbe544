/**
 * The one mapping between our tool outputs and what effect/ai shows a model: a `ToolOutput`'s blocks as the text and
 * file parts of `toModelOutput` (and its JSON form, the `encodedResult` kept in the transcript), and effect/ai's parts
 * back into blocks, for the effect/ai tools that run through our dispatch. The parts are made as `promptParts.ts`
 * makes them: effect/ai's objects, without the cost of its constructors.
 */
import { Option } from "effect"
import { Prompt } from "effect/ai"
import { Base64 } from "effect/encoding"
import { urlContent } from "../../internal/dataUrl.ts"
import {
  emptyResultText,
  imageMediaType,
  jsonText,
  prefixParts,
  type ResultView,
  statusPrefix
} from "../../internal/providerContent.ts"
import type { ToolResult } from "../../ToolResult.ts"
import * as ToolOutput from "../../ToolOutput.ts"
import * as ToolResultContent from "../../ToolResultContent.ts"
import { filePart, textPart } from "./promptParts.ts"

// ---------------------------------------------------------------------------
// Ours → effect/ai
// ---------------------------------------------------------------------------

/** Bytes inline as base64, with the media type their `data:` URL names (if they came in one); or a broken URL. */
type Inline =
  | { readonly _tag: "Inline"; readonly base64: string; readonly mediaType: string | undefined }
  | { readonly _tag: "Malformed" }

/**
 * Base64 data as it is given. A whole `data:` URL passed as the data is read as the URL it is: its header is not
 * base64, and sending it on as such would garble the bytes.
 */
const inlineOf = (data: string): Inline => {
  const content = urlContent(data)
  return content._tag === "Link" ? { _tag: "Inline", base64: data, mediaType: undefined } : content
}

/** The words every adapter uses for media it cannot send, so that a model reads the same thing on every path. */
const omitted = (kind: string, why: string): Prompt.ToolModelOutputPart => textPart(`[${kind} omitted: ${why}]`)

/** A URL as effect/ai takes one, or `undefined` when `URL` refuses it (a relative path, say). */
const urlOf = (url: string): URL | undefined => {
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}

/**
 * A medium's bytes, by where they are: a link as a URL part of type `linkType`, inline bytes (a `data:` URL
 * included) as base64 of the type `inlineType` settles on from the type a `data:` URL names and the bytes. Bytes of
 * no type anyone can tell are not sent.
 */
const mediaPart = (
  kind: string,
  source: ToolResultContent.Source,
  fileName: string | undefined,
  linkType: string,
  inlineType: (named: string | undefined, base64: string) => string | undefined
): Prompt.ToolModelOutputPart => {
  const inline = source._tag === "Url" ? urlContent(source.url) : inlineOf(source.data)
  switch (inline._tag) {
    case "Malformed":
      return omitted(kind, "malformed data URL")
    case "Link": {
      const url = urlOf(inline.url)
      return url === undefined ? omitted(kind, "not a valid URL") : filePart(linkType, url, fileName)
    }
    case "Inline": {
      const mediaType = inlineType(inline.mediaType, inline.base64)
      return mediaType === undefined
        ? omitted(kind, "unknown media type")
        : filePart(mediaType, inline.base64, fileName)
    }
  }
}

/**
 * One block as the part a model is shown. Text and JSON are text (JSON compact, as every adapter writes it); images,
 * audio and files are file parts, inline as base64 or by URL; a resource link is its name and address, in the words
 * the adapters use.
 */
const partOf = (block: ToolResultContent.ToolResultContent): Prompt.ToolModelOutputPart => {
  switch (block._tag) {
    case "Text":
      return textPart(block.text)
    case "Json":
      return textPart(jsonText(block.value))
    case "Image": {
      const own = block.mediaType
      // A link's type is the provider's to learn when it fetches it: "image/*" still says it is an image. Inline
      // bytes need their exact type: the image's own, the one a `data:` URL names, or the one its first bytes show.
      return mediaPart("image", block.source, undefined, own ?? "image/*", (named, base64) =>
        imageMediaType(own ?? (named?.startsWith("image/") ? named : undefined), base64))
    }
    case "Audio": {
      const inline = inlineOf(block.data)
      if (inline._tag === "Malformed") return omitted("audio", "malformed data URL")
      return filePart(block.mediaType, inline.base64, undefined)
    }
    case "File":
      return mediaPart("file", block.source, block.filename, block.mediaType, () => block.mediaType)
    case "ResourceLink": {
      const content = urlContent(block.uri)
      if (content._tag === "Malformed") return omitted("resource", "malformed data URL")
      if (content._tag === "Inline") {
        // A link that holds its bytes is that content, not a link.
        return filePart(
          block.mediaType ?? content.mediaType ?? "application/octet-stream",
          content.base64,
          block.name === "" ? undefined : block.name
        )
      }
      return textPart(`${block.name}: ${block.uri}${block.description ? ` (${block.description})` : ""}`)
    }
  }
}

/**
 * A text part with nothing to read. Anthropic refuses a tool result's text block without non-whitespace text, and
 * such a part tells a model nothing on any provider: it is left out, as our adapters leave it out.
 */
export const isBlankPart = (part: Prompt.ToolModelOutputPart): boolean =>
  part.type === "text" && part.text.trim() === ""

/** The parts of an output's blocks, in order, blank text left out: possibly none. */
export const visibleParts = (output: ToolOutput.ToolOutput): Array<Prompt.ToolModelOutputPart> => {
  const parts: Array<Prompt.ToolModelOutputPart> = []
  for (const block of output.content) {
    const part = partOf(block)
    if (!isBlankPart(part)) parts.push(part)
  }
  return parts
}

const successView: ResultView = { callId: "", name: "", status: "success", errorKind: "other", content: [] }

/** What a success with nothing to show reads, as our adapters write it: `(empty result)`. */
export const emptySuccessText: string = emptyResultText(successView)

/**
 * What a model is shown of an output: one part per block, in order, blank text left out; an output with nothing
 * left is the one text our adapters send for it (`(empty result)`), never an empty list or an empty text.
 */
export const modelParts = (output: ToolOutput.ToolOutput): Array<Prompt.ToolModelOutputPart> => {
  const parts = visibleParts(output)
  return parts.length === 0 ? [textPart(emptySuccessText)] : parts
}

/**
 * The JSON form of an output, kept as the `result` of the transcript's tool-result part: a lone text is its string, a
 * lone JSON value is that value, and anything richer is the text a provider that takes only text would show (media
 * named, not inlined: the parts carry the bytes).
 */
export const jsonOf = (output: ToolOutput.ToolOutput, parts?: ReadonlyArray<Prompt.ToolModelOutputPart>): unknown => {
  if (output.content.length === 1) {
    const block = output.content[0]
    if (block._tag === "Text") return block.text
    if (block._tag === "Json") return block.value
  }
  return Prompt.toolModelOutputToText(parts ?? modelParts(output))
}

const textOfPart = (part: Prompt.ToolModelOutputPart): string | undefined =>
  part.type === "text" ? part.text : undefined

/**
 * What a model is shown of a result that is not a success, on every path that brings it one (`AiToolkit`'s handlers,
 * the tool loop's transcript): its output's parts (`parts`, when the caller has them already), after the words our
 * adapters put before a failure, a refusal or a skip (`Tool call failed (invalid_args): `, `Tool call denied: `), so
 * that a model reads it as one on every provider, with an error flag or without. A success is its parts alone. The
 * parts leave blank text out (see {@link visibleParts}); none left is the status words alone, or `(empty result)`.
 */
export const failureParts = (
  result: ToolResult,
  parts: ReadonlyArray<Prompt.ToolModelOutputPart> = visibleParts(result.output)
): Array<Prompt.ToolModelOutputPart> => {
  const view: ResultView = {
    callId: result.callId,
    name: result.name,
    status: result.status,
    errorKind: Option.match(result.error, { onNone: () => "other", onSome: (error) => error.kind }),
    content: []
  }
  // Nothing to show reads as our adapters write it: the status words alone (`Tool call denied`), never an empty list.
  if (parts.length === 0) return [textPart(emptyResultText(view))]
  const prefix = statusPrefix(view)
  return prefix === undefined ? parts.slice() : prefixParts(prefix, parts, textOfPart, textPart)
}

// ---------------------------------------------------------------------------
// effect/ai → ours
// ---------------------------------------------------------------------------

/** A file part's bytes as base64, or its URL. */
const sourceOf = (data: string | Uint8Array | URL): ToolResultContent.Source =>
  data instanceof URL
    ? { _tag: "Url", url: data.href }
    : { _tag: "Base64", data: typeof data === "string" ? data : Base64.encode(data) }

/**
 * One of effect/ai's model-output parts as our block: text as Text, a file part by its media type (an image, audio
 * given inline, any other file).
 */
const blockOf = (part: Prompt.ToolModelOutputPart): ToolResultContent.ToolResultContent => {
  if (part.type === "text") return ToolResultContent.text(part.text)
  const source = sourceOf(part.data)
  if (part.mediaType.startsWith("image/")) {
    // "image/*" names no format: an image with no media type of its own is what it stands for.
    const mediaType = part.mediaType === "image/*" ? undefined : part.mediaType
    return source._tag === "Url"
      ? ToolResultContent.imageUrl(source.url, mediaType)
      : ToolResultContent.imageBase64(source.data, mediaType)
  }
  if (part.mediaType.startsWith("audio/") && source._tag === "Base64") {
    return ToolResultContent.audio(source.data, part.mediaType)
  }
  return source._tag === "Url"
    ? ToolResultContent.fileUrl(source.url, part.mediaType, part.fileName)
    : ToolResultContent.fileBase64(source.data, part.mediaType, part.fileName)
}

/** The output that effect/ai's model-output parts stand for; `None` for no parts. */
export const outputOfParts = (
  parts: ReadonlyArray<Prompt.ToolModelOutputPart>
): Option.Option<ToolOutput.ToolOutput> => {
  const blocks = parts.map(blockOf)
  return blocks.length === 0 ? Option.none() : Option.some(ToolOutput.content([blocks[0]!, ...blocks.slice(1)]))
}
