/**
 * The OpenAI Responses adapter: flat function tool definitions for a request, the `function_call` items of a
 * response's output, and the `function_call_output` items the next request must carry.
 *
 * The wire types here are minimal structural copies of the `openai` SDK's: values produced here can be passed to the
 * SDK as they are, and the SDK's `Response` (or its `output`) can be passed to {@link toolCalls} without a cast, but
 * this module does not depend on the SDK.
 *
 * Results are paired with calls by `call_id`, not by the item's `id`. The Responses API has no error flag: a
 * failed, denied or skipped call is written as text that says so. Images and files travel as `input_image` and
 * `input_file` parts; audio, which `function_call_output` cannot carry, is replaced by a text placeholder.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { OpenAiResponses, ToolSet } from "effect-llm-tools"
 *
 * declare const set: ToolSet.Any
 * declare const response: OpenAiResponses.ResponseOutput // await client.responses.create(…)
 *
 * const program = Effect.gen(function*() {
 *   const tools = yield* Effect.fromResult(OpenAiResponses.definitions(set)) // request `tools`
 *   const calls = OpenAiResponses.toolCalls(response, { tools: set })
 *   const results = yield* ToolSet.executeAll(set, calls)
 *   return OpenAiResponses.toolResults(results) // the next request's `input`, after the response's output
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Result } from "effect"
import {
  callReader,
  type DefinitionsError,
  offeredTools,
  type ReadOptions,
  type StrictOptions
} from "../internal/openAiStrict.ts"
import {
  type Block,
  blockText,
  dataUrl,
  emptyResultText,
  entries,
  field,
  fileNameOf,
  imageMediaType,
  isOpenAiFileMediaType,
  isImageMediaType,
  prefixParts,
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
 * A function tool for the request's `tools` (the SDK's `FunctionTool`).
 *
 * @category models
 */
export interface FunctionTool {
  readonly type: "function"
  readonly name: string
  readonly description: string
  readonly parameters: ToolDefinition.JsonSchema
  readonly strict: boolean
}

/**
 * Any item of a response's output. Only `type: "function_call"` items are read; their fields are checked at run
 * time, since a transcript may come from storage or a proxy.
 *
 * @category models
 */
export type OutputItem = FunctionCallItem | { readonly type: string }

/**
 * A `function_call` output item (the SDK's `ResponseFunctionToolCall`).
 *
 * @category models
 */
export interface FunctionCallItem {
  readonly type: "function_call"
  /** The id results are paired by. */
  readonly call_id?: string | null | undefined
  /** The item's own id; not the pairing id. */
  readonly id?: string | null | undefined
  readonly name: string
  /** JSON text, possibly invalid. */
  readonly arguments?: string | null | undefined
}

/**
 * What {@link toolCalls} reads: a response (anything with `output`), or its output items.
 *
 * @category models
 */
export type ResponseOutput = { readonly output: ReadonlyArray<OutputItem> } | ReadonlyArray<OutputItem>

/**
 * A part of a `function_call_output` list (the SDK's `ResponseFunctionCallOutputItem`).
 *
 * @category models
 */
export type OutputContent =
  | { readonly type: "input_text"; readonly text: string }
  | { readonly type: "input_image"; readonly image_url: string; readonly detail?: ToolResultContent.ImageDetail }
  | { readonly type: "input_file"; readonly file_data: string; readonly filename: string }
  | { readonly type: "input_file"; readonly file_url: string; readonly filename?: string }

/**
 * The result of one call, for the next request's `input` (the SDK's `ResponseInputItem.FunctionCallOutput`). The
 * output is a string when the result is text only, a list of parts when it carries images or files.
 *
 * @category models
 */
export interface FunctionCallOutput {
  readonly type: "function_call_output"
  readonly call_id: string
  readonly output: string | Array<OutputContent>
}

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
 * The request's `tools`, in order, in the flat Responses shape, from a tool set or any list of tools and
 * definitions. `strict` is always stated, since the Responses API otherwise defaults it to `true`. Strict
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
 * import { OpenAiResponses, ToolSet } from "effect-llm-tools"
 *
 * declare const set: ToolSet.Any
 *
 * const tools = Result.getOrThrow(OpenAiResponses.definitions(set, { strict: true }))
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
      name,
      description,
      parameters,
      strict
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

const nonEmptyString = (u: unknown): string | undefined => typeof u === "string" && u !== "" ? u : undefined

/**
 * The `function_call` items of a response's output, in order, as calls whose id is the item's `call_id`. Never
 * fails nor throws, whatever the output holds (a stored transcript, a proxy whose reads throw): every
 * `function_call` item is a call, and a field that cannot be read is `""`. An item whose type cannot be read is not
 * a call. A missing `arguments` is read as empty (so a tool with required parameters reports them missing), and
 * broken JSON is passed on as it is, for dispatch to turn into an `invalid_args` result. Other items (messages,
 * reasoning, built-in tool calls) are not calls of this library's tools and are skipped.
 *
 * A stored or proxied transcript may lack `call_id`, though the SDK's types require it, so it is checked here: an item
 * without one falls back to its `id` (the only other handle such a transcript can pair by), and an item with neither
 * gets the id `""`, which the API refuses on the next request — the missing pairing id surfaces as an error, never
 * as a dropped call.
 *
 * With `tools` (and `strict`, as given to {@link definitions}), the arguments of each strict tool are parsed and
 * `null` is mapped back to absent for every property that was optional, in nested objects and arrays too. A
 * property that was optional and already nullable reads `null` as absent: strict mode cannot tell them apart.
 *
 * @example
 * ```ts
 * import { OpenAiResponses } from "effect-llm-tools"
 *
 * const calls = OpenAiResponses.toolCalls([
 *   { type: "function_call", id: "fc_1", call_id: "call_1", name: "add", arguments: "{\"left\":1,\"right\":2}" }
 * ])
 * // [{ id: "call_1", name: "add", arguments: "{\"left\":1,\"right\":2}" }]
 * ```
 *
 * @category constructors
 */
export const toolCalls = (response: ResponseOutput, options?: ToolCallsOptions): Array<ToolCall.ToolCall> => {
  // A stored or proxied transcript may be anything: every read is checked, and one that throws reads as
  // `unreadable`.
  const items = entries(response) ?? entries(field(response, "output"))
  if (items === undefined) return []
  const read = callReader(options)
  const calls: Array<ToolCall.ToolCall> = []
  for (const item of items) {
    // An item whose type cannot be read is not known to be a call; one that is gets a result, whatever else fails.
    if (field(item, "type") !== "function_call") continue
    const id = nonEmptyString(field(item, "call_id")) ?? nonEmptyString(field(item, "id")) ?? ""
    const name = field(item, "name")
    const args = field(item, "arguments")
    calls.push(read(
      id,
      typeof name === "string" ? name : "",
      args === undefined || args === null || args === unreadable ? "" : args
    ))
  }
  return calls
}

// ---------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------

const partOf = (block: Block): OutputContent => {
  const text = blockText(block)
  if (text !== undefined) return { type: "input_text", text }
  switch (block._tag) {
    case "Image": {
      const mediaType = imageMediaType(block.mediaType, block.source._tag === "Base64" ? block.source.data : undefined)
      let image_url: string
      if (block.source._tag === "Url") {
        // A URL without a media type is left for the API to read; one of a type OpenAI refuses is not sent.
        if (mediaType !== undefined && !isImageMediaType(mediaType)) {
          return { type: "input_text", text: `[image omitted: ${mediaType}]` }
        }
        image_url = block.source.url
      } else {
        // A data URL needs the true media type: a wrong label is refused by the API, so no guess is made.
        if (mediaType === undefined || !isImageMediaType(mediaType)) {
          return { type: "input_text", text: `[image omitted: ${mediaType ?? "unknown media type"}]` }
        }
        image_url = dataUrl(mediaType, block.source.data)
      }
      return block.detail === undefined
        ? { type: "input_image", image_url }
        : { type: "input_image", image_url, detail: block.detail }
    }
    case "File": {
      if (!isOpenAiFileMediaType(block.mediaType)) {
        return {
          type: "input_text",
          text: block.source._tag === "Url"
            ? `[file ${block.mediaType}${block.filename === undefined ? "" : ` ${block.filename}`}: ${block.source.url}]`
            : `[file omitted: ${block.mediaType}]`
        }
      }
      if (block.source._tag === "Url") {
        const filename = block.filename === undefined ? {} : { filename: block.filename }
        return { type: "input_file", file_url: block.source.url, ...filename }
      }
      return {
        type: "input_file",
        file_data: dataUrl(block.mediaType, block.source.data),
        filename: fileNameOf(block.filename, block.mediaType)
      }
    }
    default:
      // Audio: `function_call_output` has no audio part.
      return { type: "input_text", text: `[audio omitted: ${(block as ToolResultContent.Audio).mediaType}]` }
  }
}

const outputOf = (result: ResultView): string | Array<OutputContent> => {
  const prefix = statusPrefix(result)
  const parts = result.content.map(partOf)
  if (parts.every((part) => part.type === "input_text")) {
    const body = parts.map((part) => (part as { readonly text: string }).text).join("\n")
    // An empty answer tells the model nothing, and a failure would read "Tool call failed (other): ".
    return body === "" ? emptyResultText(result) : (prefix ?? "") + body
  }
  if (prefix === undefined) return parts
  return prefixParts(
    prefix,
    parts,
    (part) => part.type === "input_text" ? part.text : undefined,
    (text) => ({ type: "input_text", text })
  )
}

/**
 * The `function_call_output` items that answer the calls, one per result, in order, paired by `call_id`: append
 * them to the next request's `input`. The output is a string when the result is text only (JSON as compact JSON
 * text) and a list of `input_text` / `input_image` / `input_file` parts when it carries images or files (inline
 * data as `data:` URLs, never as text). Failures, refusals and skips are written as text that says so, and an empty
 * output as those words alone (or `(empty result)`). What OpenAI does not accept becomes a text placeholder: audio
 * (`[audio omitted: audio/wav]`), images other than PNG, JPEG, GIF and WebP, inline images whose type neither the
 * block nor their first bytes tell (`[image omitted: unknown media type]`), and files that are not documents (a file
 * at a URL is then written as a link). An image by URL without a media type is sent by its URL.
 *
 * A `data:` URL (of an image, a file or a resource link) is the inline content it holds, with the media type it
 * names unless the block names its own; a malformed one becomes a placeholder that shows none of it. A result built
 * by hand renders whatever it holds, never throwing: placeholders stand for what cannot be read, and a Json value
 * that is not JSON (a cycle, a BigInt) is a placeholder, never its text.
 *
 * @example
 * ```ts
 * import { OpenAiResponses, ToolResult } from "effect-llm-tools"
 *
 * declare const results: ReadonlyArray<ToolResult.ToolResult>
 *
 * const input = OpenAiResponses.toolResults(results)
 * ```
 *
 * @category constructors
 */
export const toolResults = (results: Iterable<ToolResult>): Array<FunctionCallOutput> => {
  const out: Array<FunctionCallOutput> = []
  for (const each of results) {
    const result = readResult(each)
    out.push({ type: "function_call_output", call_id: result.callId, output: outputOf(result) })
  }
  return out
}
