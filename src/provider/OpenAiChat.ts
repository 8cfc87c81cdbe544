/**
 * The OpenAI Chat Completions adapter: tool definitions for a request, the model's tool calls out of an assistant
 * message, and the tool messages the next request must carry.
 *
 * The wire types here are minimal structural copies of the `openai` SDK's: values produced here can be passed to the
 * SDK as they are, and the SDK's `ChatCompletionMessage` can be passed to {@link toolCalls} without a cast, but this
 * module does not depend on the SDK.
 *
 * Chat Completions has no error flag: a failed, denied or skipped call is written as text that says so. A tool
 * message carries text only, so images, audio and files follow the {@link MediaPolicy}.
 *
 * @example
 * ```ts
 * import { Effect, Result } from "effect"
 * import { ToolSet } from "effect-llm-tools"
 * import { OpenAiChat } from "effect-llm-tools"
 *
 * declare const set: ToolSet.Any
 * declare const message: OpenAiChat.AssistantMessage // completion.choices[0].message
 *
 * const program = Effect.gen(function*() {
 *   const tools = yield* Effect.fromResult(OpenAiChat.definitions(set, { strict: true })) // request `tools`
 *   const calls = OpenAiChat.toolCalls(message, { tools: set, strict: true })
 *   const results = yield* ToolSet.executeAll(set, calls)
 *   return OpenAiChat.toolResults(results) // append after the assistant message
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Data, Result } from "effect"
import {
  callReader,
  type DefinitionsError,
  offeredTools,
  type ReadOptions,
  type StrictOptions
} from "../internal/openAiStrict.ts"
import {
  blockText,
  dataUrl,
  emptyResultText,
  entries,
  field,
  fileNameOf,
  fileText,
  imageMediaType,
  isImageMediaType,
  readResult,
  type ResultView,
  statusPrefix,
  type Tools,
  unreadable
} from "../internal/providerContent.ts"
import type * as ToolCall from "../ToolCall.ts"
import type * as ToolDefinition from "../ToolDefinition.ts"
import type { ToolResult } from "../ToolResult.ts"
import type * as ToolResultContent from "../ToolResultContent.ts"

// ---------------------------------------------------------------------------
// Wire types
// ---------------------------------------------------------------------------

/**
 * A function tool for the request's `tools` (the SDK's `ChatCompletionFunctionTool`).
 *
 * @category models
 */
export interface FunctionTool {
  readonly type: "function"
  readonly function: {
    readonly name: string
    readonly description: string
    readonly parameters: ToolDefinition.JsonSchema
    /** Present, and `true`, only for strict tools. */
    readonly strict?: boolean
  }
}

/**
 * One entry of an assistant message's `tool_calls`, as the SDK's `ChatCompletionMessageToolCall` has it. Entries of
 * `type: "function"`, or without a type but with `function` (as a stream accumulated by hand may leave them), are
 * calls of function tools; `arguments` may be missing or invalid JSON.
 *
 * @category models
 */
export interface MessageToolCall {
  readonly id: string
  readonly type?: string | null | undefined
  readonly function?: {
    readonly name: string
    readonly arguments?: string | null | undefined
  } | undefined
}

/**
 * What {@link toolCalls} reads: an assistant message (the SDK's `ChatCompletionMessage`, or an assistant message
 * param) with its `tool_calls`.
 *
 * @category models
 */
export interface AssistantMessage {
  readonly tool_calls?: ReadonlyArray<MessageToolCall> | null | undefined
}

/**
 * The result of one call (the SDK's `ChatCompletionToolMessageParam`).
 *
 * @category models
 */
export interface ToolMessage {
  readonly role: "tool"
  readonly tool_call_id: string
  readonly content: string
}

/**
 * A part of the user message that carries media the tool messages cannot (the SDK's `ChatCompletionContentPart`).
 *
 * @category models
 */
export type ContentPart =
  | { readonly type: "text"; readonly text: string }
  | {
    readonly type: "image_url"
    readonly image_url: { readonly url: string; readonly detail?: ToolResultContent.ImageDetail }
  }
  | { readonly type: "file"; readonly file: { readonly file_data: string; readonly filename?: string } }
  | { readonly type: "input_audio"; readonly input_audio: { readonly data: string; readonly format: "wav" | "mp3" } }

/**
 * The user message that follows the tool messages under the `"user-message"` policy (the SDK's
 * `ChatCompletionUserMessageParam`).
 *
 * @category models
 */
export interface UserMessage {
  readonly role: "user"
  readonly content: Array<ContentPart>
}

/**
 * A message {@link toolResults} produces.
 *
 * @category models
 */
export type Message = ToolMessage | UserMessage

// ---------------------------------------------------------------------------
// Definitions
// ---------------------------------------------------------------------------

/**
 * What {@link definitions} fails with when a strict tool's schema cannot be compiled (shared by every adapter).
 *
 * @category errors
 */
export { StrictSchemaError } from "../internal/openAiStrict.ts"

/**
 * What {@link definitions} fails with for a tool name OpenAI refuses (it must match `^[a-zA-Z0-9_-]{1,64}$`), for
 * parameters whose type at the top is not an object, and for parameters that are a union no single object can stand
 * for (shared by every adapter).
 *
 * @category errors
 */
export { InvalidToolNameError, NonObjectParametersError, TopLevelUnionError } from "../internal/providerContent.ts"

/**
 * Everything {@link definitions} can fail with.
 *
 * @category errors
 */
export type { DefinitionsError }

/**
 * Options of {@link definitions}: which tools are strict.
 *
 * @category models
 */
export type DefinitionsOptions = StrictOptions

/**
 * The request's `tools`, in order, as `{ type: "function", function: { … } }`, from a tool set or any list of tools
 * and definitions; `strict: true` is stated only on strict tools (Chat Completions defaults it to off). Strict
 * compilation and its failure are described on {@link DefinitionsOptions}.
 *
 * Fails with {@link InvalidToolNameError} for a name OpenAI refuses, and with {@link NonObjectParametersError} for
 * parameters whose `type` at the top is not `"object"` (`{"type": "string"}`): arguments are always a JSON object,
 * so such a tool could never be called with valid ones. Parameters that are a union of objects (which
 * OpenAI refuses at the top of a schema, strict or not) are offered as one object with every branch's properties,
 * only the keys all branches require required, and the branches listed in its description; dispatch still checks
 * the arguments against the tool's own Schema. A union with a branch that is not an object fails with
 * {@link TopLevelUnionError}, and so does an `allOf` at the top that the definition could not merge into one object
 * exactly (see `ToolDefinition.make`, which also gives a runtime tool's parameters the `type: "object"` and
 * `properties` OpenAI asks for at the top). `not`, `enum` and `const` at the top, which OpenAI also refuses there
 * strict or not, are left out of the schema offered: they only narrow which argument objects are valid, and
 * dispatch still checks them.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { OpenAiChat, ToolSet } from "effect-llm-tools"
 *
 * declare const set: ToolSet.Any
 *
 * const tools = OpenAiChat.definitions(set, { strict: true })
 * if (Result.isFailure(tools)) console.error(tools.failure.message)
 * ```
 *
 * @category constructors
 */
export const definitions = (
  tools: Tools,
  options?: DefinitionsOptions
): Result.Result<Array<FunctionTool>, DefinitionsError> =>
  Result.map(offeredTools(tools, options), (offered) =>
    offered.map(({ description, name, parameters, strict }): FunctionTool => ({
      type: "function",
      function: strict ? { name, description, parameters, strict } : { name, description, parameters }
    })))

// ---------------------------------------------------------------------------
// Calls
// ---------------------------------------------------------------------------

/**
 * Options of {@link toolCalls}.
 *
 * @category models
 */
export type ToolCallsOptions = ReadOptions

/**
 * The function calls of an assistant message, in order, with their ids. Never fails nor throws, whatever the
 * message holds (a stored transcript, a proxy whose reads throw): every `type: "function"` entry is a call, so that
 * it gets its tool message, and so is an entry without a type that holds a `function` object (streamed deltas carry
 * the type in their first chunk only). A missing or unreadable id or name reads as `""` (dispatch reports an unknown
 * tool, and the API refuses the empty id on the next request rather than the call being dropped), an entry without its
 * `function` object as a call of the tool `""`, a missing or unreadable `arguments` as empty (so a tool with
 * required parameters reports them missing), and broken JSON or a non-string `arguments` is passed on as it is:
 * dispatch turns broken JSON, or a value that is not a JSON object, into an `invalid_args` result, and runs an object
 * as parsed arguments. An entry whose type cannot be read is not a call.
 *
 * With `tools` (and `strict`, as given to {@link definitions}), the arguments of each strict tool are parsed and
 * `null` is mapped back to absent for every property that was optional, in nested objects and arrays too. A
 * property that was optional and already nullable reads `null` as absent: strict mode cannot tell them apart.
 *
 * Entries that are not function calls (`type: "custom"`, for custom tools the host declared itself) are not calls
 * of this library's tools and are left to the host, which must answer them itself.
 *
 * @example
 * ```ts
 * import { OpenAiChat, ToolSet } from "effect-llm-tools"
 *
 * declare const set: ToolSet.Any
 *
 * const calls = OpenAiChat.toolCalls({
 *   tool_calls: [{ id: "call_1", type: "function", function: { name: "add", arguments: "{\"left\":1,\"right\":2}" } }]
 * }, { tools: set })
 * // [{ id: "call_1", name: "add", arguments: "{\"left\":1,\"right\":2}" }]
 * ```
 *
 * @category constructors
 */
export const toolCalls = (message: AssistantMessage, options?: ToolCallsOptions): Array<ToolCall.ToolCall> => {
  // The message may come from storage or a proxy: every read is checked, and one that throws reads as `unreadable`.
  const list = entries(field(message, "tool_calls"))
  if (list === undefined || list.length === 0) return []
  const read = callReader(options)
  const calls: Array<ToolCall.ToolCall> = []
  for (const entry of list) {
    // An entry whose type cannot be read is not known to be a call; one that is gets a result, whatever else fails.
    // One without a type is a call when it holds a `function` object: streamed deltas carry `type` in the first
    // chunk only, and hand-written accumulators drop it.
    const type = field(entry, "type")
    const fn = field(entry, "function")
    const isCall = type === "function" ||
      ((type === undefined || type === null) && typeof fn === "object" && fn !== null)
    if (!isCall) continue
    const id = field(entry, "id")
    const name = field(fn, "name")
    const args = field(fn, "arguments")
    calls.push(read(
      typeof id === "string" ? id : "",
      typeof name === "string" ? name : "",
      args === undefined || args === null || args === unreadable ? "" : args
    ))
  }
  return calls
}

// ---------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------

/**
 * What to do with images, audio and files, which a Chat Completions tool message cannot carry.
 *
 * - `"user-message"` (default): the tool message says where the media went, and one user message after all the
 *   tool messages carries them as content parts (PNG, JPEG, GIF and WebP images by data URL or URL, base64 PDFs as
 *   file parts, and WAV and MP3 audio as audio parts only with the `audio` option), each call's parts after a text
 *   part naming the call id. Media OpenAI does not accept (an SVG image, a Word file, inline image data of no
 *   recognizable type, audio without the `audio` option, …) gets the placeholder instead. An image by URL without a
 *   media type is sent by its URL.
 * - `"placeholder"`: a text placeholder such as `[image omitted: image/png]` stands in the tool message (`unknown
 *   media type` when neither the block nor its data tells).
 * - `"error"`: {@link toolResults} fails with {@link UnsupportedContentError}.
 *
 * Files at a URL are written as a link in every policy (Chat Completions takes files only inline), and inline text
 * files (any `text/` type whose bytes are UTF-8) as their text. Base64 data is never put into text.
 *
 * @category models
 */
export type MediaPolicy = "user-message" | "placeholder" | "error"

/**
 * A result carries media a tool message cannot, under the `"error"` media policy.
 *
 * @category errors
 */
export class UnsupportedContentError extends Data.TaggedError("UnsupportedContentError")<{
  /** The call whose result carries the media. */
  readonly callId: string
  readonly toolName: string
  /** The kind of block: `Image`, `Audio` or `File`. */
  readonly block: "Image" | "Audio" | "File"
  /** The block's media type; `undefined` for an image whose type neither the block nor its data tells. */
  readonly mediaType: string | undefined
  readonly message: string
}> {}

/**
 * Options of {@link toolResults}.
 *
 * @category models
 */
export interface ToolResultsOptions<Policy extends MediaPolicy = MediaPolicy> {
  /** What to do with images, audio and files: see {@link MediaPolicy}. */
  readonly media?: Policy | undefined
  /**
   * Under the `"user-message"` policy, send WAV and MP3 audio as `input_audio` parts of that user message. Off by
   * default: only audio-capable chat models (such as `gpt-4o-audio-preview`) take audio input, and the others refuse
   * the whole request, so audio gets a placeholder unless the caller knows the model hears it.
   */
  readonly audio?: boolean | undefined
}

type Media = ToolResultContent.Image | ToolResultContent.Audio | ToolResultContent.File

/**
 * The media type of a block: for an image, its own or the one recognized from its base64 data; `undefined` when
 * neither tells (never a guess: a data URL labelled with the wrong type is refused by the API).
 */
const mediaTypeOf = (block: Media): string | undefined =>
  block._tag === "Image"
    ? imageMediaType(block.mediaType, block.source._tag === "Base64" ? block.source.data : undefined)
    : block.mediaType

const describeMediaType = (mediaType: string | undefined): string => mediaType ?? "unknown media type"

const kindWord = (block: Media): string =>
  block._tag === "Image" ? "image" : block._tag === "Audio" ? "audio" : "file"

const audioFormat = (mediaType: string): "wav" | "mp3" | undefined => {
  switch (mediaType) {
    case "audio/wav":
    case "audio/x-wav":
    case "audio/wave":
      return "wav"
    case "audio/mpeg":
    case "audio/mp3":
      return "mp3"
    default:
      return undefined
  }
}

/**
 * The content part that carries a media block in a user message, or `undefined` when Chat has none for it: images
 * only in the four formats OpenAI accepts (an image by URL without a media type is left for the API to read; inline
 * data of no recognizable type has none to send), `file` parts only for PDFs, the one file type Chat Completions
 * takes, and audio only when the caller opted in.
 */
const attachmentOf = (block: Media, audio: boolean): ContentPart | undefined => {
  switch (block._tag) {
    case "Image": {
      const mediaType = mediaTypeOf(block)
      let url: string
      if (block.source._tag === "Url") {
        if (mediaType !== undefined && !isImageMediaType(mediaType)) return undefined
        url = block.source.url
      } else {
        if (mediaType === undefined || !isImageMediaType(mediaType)) return undefined
        url = dataUrl(mediaType, block.source.data)
      }
      return {
        type: "image_url",
        image_url: block.detail === undefined ? { url } : { url, detail: block.detail }
      }
    }
    case "File":
      if (block.source._tag === "Url" || block.mediaType !== "application/pdf") return undefined
      return {
        type: "file",
        file: {
          file_data: dataUrl(block.mediaType, block.source.data),
          filename: fileNameOf(block.filename, block.mediaType)
        }
      }
    case "Audio": {
      if (!audio) return undefined
      const format = audioFormat(block.mediaType)
      return format === undefined ? undefined : { type: "input_audio", input_audio: { data: block.data, format } }
    }
  }
}

/** How a file is named in a tool message: `file text/plain notes.txt`. */
const fileHeading = (block: ToolResultContent.File): string =>
  `file ${block.mediaType}${block.filename === undefined ? "" : ` ${block.filename}`}`

const fileLink = (block: ToolResultContent.File & { readonly source: { readonly _tag: "Url" } }): string =>
  `[${fileHeading(block)}: ${block.source.url}]`

interface Rendered {
  readonly message: ToolMessage
  readonly attachments: Array<ContentPart>
}

const render = (
  result: ResultView,
  policy: MediaPolicy,
  audio: boolean
): Result.Result<Rendered, UnsupportedContentError> => {
  const lines: Array<string> = []
  const attachments: Array<ContentPart> = []
  for (const block of result.content) {
    const text = blockText(block)
    if (text !== undefined) {
      lines.push(text)
      continue
    }
    const media = block as Media
    if (media._tag === "File" && media.source._tag === "Url") {
      lines.push(fileLink(media as ToolResultContent.File & { readonly source: { readonly _tag: "Url" } }))
      continue
    }
    // A text file (plain text, Markdown, CSV, …) is text, which a tool message carries: its heading, then its text.
    const textOfFile = media._tag === "File" ? fileText(media) : undefined
    if (textOfFile !== undefined) {
      lines.push(`[${fileHeading(media as ToolResultContent.File)}]`, textOfFile)
      continue
    }
    const mediaType = mediaTypeOf(media)
    const described = describeMediaType(mediaType)
    if (policy === "error") {
      return Result.fail(
        new UnsupportedContentError({
          callId: result.callId,
          toolName: result.name,
          block: media._tag,
          mediaType,
          message:
            `the result of tool call ${result.callId} (${result.name}) carries ${kindWord(media)} content (${described}), which a Chat Completions tool message cannot carry`
        })
      )
    }
    const attachment = policy === "user-message" ? attachmentOf(media, audio) : undefined
    if (attachment === undefined) {
      lines.push(`[${kindWord(media)} omitted: ${described}]`)
    } else {
      attachments.push(attachment)
      // An image by URL of unknown type goes as it is: the text names no type rather than a guessed one.
      lines.push(
        `[${kindWord(media)}${mediaType === undefined ? "" : ` ${mediaType}`}: attached to the user message after the tool results]`
      )
    }
  }
  const body = lines.join("\n")
  // An empty answer tells the model nothing, and a failure would read "Tool call failed (other): ".
  const content = body === "" ? emptyResultText(result) : (statusPrefix(result) ?? "") + body
  return Result.succeed({
    message: { role: "tool", tool_call_id: result.callId, content },
    attachments
  })
}

/**
 * The messages that answer the calls, to append after the assistant message: one tool message per result, in
 * order, then — under the default `"user-message"` media policy, and only when some result carries media — one user
 * message with the media. Failures, refusals and skips are written as text that says so (OpenAI has no error flag);
 * JSON is compact JSON text.
 *
 * With `media: "error"`, the result is a `Result` that fails with {@link UnsupportedContentError} on the first
 * image, audio or inline file; the other policies cannot fail and return the messages directly.
 *
 * A `data:` URL (of an image, a file or a resource link) is the inline content it holds, with the media type it
 * names unless the block names its own; a malformed one becomes a placeholder that shows none of it. A result built
 * by hand renders whatever it holds, never throwing: placeholders stand for what cannot be read, and a Json value
 * that is not JSON (a cycle, a BigInt) is a placeholder, never its text.
 *
 * @example
 * ```ts
 * import { OpenAiChat, ToolResult } from "effect-llm-tools"
 *
 * declare const results: ReadonlyArray<ToolResult.ToolResult>
 *
 * const messages = OpenAiChat.toolResults(results)
 * const withAudio = OpenAiChat.toolResults(results, { audio: true }) // for audio-capable models
 * const withPlaceholders = OpenAiChat.toolResults(results, { media: "placeholder" })
 * const checked = OpenAiChat.toolResults(results, { media: "error" }) // Result<Array<ToolMessage>, …>
 * ```
 *
 * @category constructors
 */
export function toolResults(
  results: Iterable<ToolResult>,
  options: ToolResultsOptions<"error"> & { readonly media: "error" }
): Result.Result<Array<ToolMessage>, UnsupportedContentError>
export function toolResults(
  results: Iterable<ToolResult>,
  options: ToolResultsOptions<"placeholder"> & { readonly media: "placeholder" }
): Array<ToolMessage>
export function toolResults(
  results: Iterable<ToolResult>,
  options?: ToolResultsOptions<"user-message">
): Array<Message>
export function toolResults(
  results: Iterable<ToolResult>,
  options?: ToolResultsOptions
): Array<Message> | Result.Result<Array<ToolMessage>, UnsupportedContentError>
export function toolResults(
  results: Iterable<ToolResult>,
  options?: ToolResultsOptions
): Array<Message> | Result.Result<Array<ToolMessage>, UnsupportedContentError> {
  const policy = options?.media ?? "user-message"
  const audio = options?.audio === true
  const messages: Array<Message> = []
  const attachments: Array<ContentPart> = []
  for (const each of results) {
    const result = readResult(each)
    const rendered = render(result, policy, audio)
    if (Result.isFailure(rendered)) return Result.fail(rendered.failure)
    messages.push(rendered.success.message)
    if (rendered.success.attachments.length > 0) {
      attachments.push(
        { type: "text", text: `Attachments from tool call ${result.callId} (${result.name}):` },
        ...rendered.success.attachments
      )
    }
  }
  if (policy === "error") return Result.succeed(messages as Array<ToolMessage>)
  if (attachments.length > 0) messages.push({ role: "user", content: attachments })
  return messages
}
