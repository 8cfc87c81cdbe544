/**
 * The parts and messages of effect/ai's `Prompt` that the bridge makes: the same objects as effect/ai's constructors
 * (`Prompt.makePart`, `Prompt.textPart`, `Prompt.filePart`, `Prompt.makeMessage`) give, own fields, brand and
 * prototype alike, which the tests hold them to, made at a fraction of the cost.
 *
 * Two behaviours of V8 make the difference, both measured on Node 20:
 *
 * - effect/ai's constructors spread their arguments into an object literal and then add the brand, and V8 takes a
 *   slow path for a spread followed by more properties: about 3 µs a part, more than executing a simple tool call.
 * - V8 tracks where object and array literals are made. Once the objects of one literal are seen to outlive a
 *   collection of the young generation (a transcript kept while the model answers, or kept for good, as any
 *   application keeps its conversations), every object that literal makes from then on is made in the old
 *   generation ("pretenuring"), where those of the transcripts soon dropped cost far more to make and to free. That
 *   alone made a turn of the tool loop cost twice as much.
 *
 * So the parts are made by constructors, whose objects V8 always makes young, and the arrays a transcript keeps by
 * `new Array`, which it does not track either. The tool loop does the same for every object of its own that lives
 * through a request to the model.
 */
import type { Prompt } from "effect/ai"

/** The brands of `Prompt.isPart` and `Prompt.isMessage`. */
const PartTypeId = "~effect/ai/Prompt/Part"
const MessageTypeId = "~effect/ai/Prompt/Message"

/** No provider options: one frozen object shared by every part and message made here, not one each. */
const noOptions: Prompt.ProviderOptions = Object.freeze({})

type Mutable<A> = { -readonly [K in keyof A]: A[K] }

/**
 * A constructor of plain objects: what it makes has `Object.prototype` as its prototype and its own fields in the
 * order `init` sets them, as an object literal would, so that nothing that reads it can tell the difference. For the
 * objects that outlive a model's answer, which V8 would otherwise come to make in the old generation.
 */
export const plain = <Args extends ReadonlyArray<unknown>, A>(
  init: (this: Mutable<A>, ...args: Args) => void
): new(...args: Args) => A => {
  init.prototype = Object.prototype
  return init as unknown as new(...args: Args) => A
}

/** An empty array for a transcript to keep, made without a literal. */
export const emptyArray = <A>(): Array<A> => new Array<A>()

/** An array of one element for a transcript to keep, made without a literal. */
export const arrayOf = <A>(element: A): Array<A> => {
  const array = new Array<A>(1)
  array[0] = element
  return array
}

// ---------------------------------------------------------------------------
// Parts
// ---------------------------------------------------------------------------

const TextPart = plain<
  [type: "text" | "reasoning", text: string, options: Prompt.ProviderOptions],
  Prompt.TextPart | Prompt.ReasoningPart
>(function(type, text, options) {
  this[PartTypeId] = PartTypeId
  this.type = type
  this.text = text
  this.options = options
})

/** `Prompt.textPart({ text, options })`. */
export const textPart = (text: string, options: Prompt.ProviderOptions = noOptions): Prompt.TextPart =>
  new TextPart("text", text, options) as Prompt.TextPart

/** `Prompt.makePart("reasoning", { text, options })`. */
export const reasoningPart = (text: string, options: Prompt.ProviderOptions): Prompt.ReasoningPart =>
  new TextPart("reasoning", text, options) as Prompt.ReasoningPart

const FilePart = plain<[mediaType: string, data: string | URL, fileName: string | undefined], Prompt.FilePart>(
  function(mediaType, data, fileName) {
    this[PartTypeId] = PartTypeId
    this.type = "file"
    this.mediaType = mediaType
    this.data = data
    // As `Prompt.filePart` leaves it: no key at all when there is no name.
    if (fileName !== undefined) this.fileName = fileName
    this.options = noOptions
  }
)

/** `Prompt.filePart({ mediaType, data, fileName })`, without the `fileName` key when it is `undefined`. */
export const filePart = (mediaType: string, data: string | URL, fileName: string | undefined): Prompt.FilePart =>
  new FilePart(mediaType, data, fileName)

const ToolCallPart = plain<
  [id: string, name: string, params: unknown, providerExecuted: boolean, options: Prompt.ProviderOptions],
  Prompt.ToolCallPart
>(function(id, name, params, providerExecuted, options) {
  this[PartTypeId] = PartTypeId
  this.type = "tool-call"
  this.id = id
  this.name = name
  this.params = params
  this.providerExecuted = providerExecuted
  this.options = options
})

/** `Prompt.makePart("tool-call", { id, name, params, providerExecuted, options })`. */
export const toolCallPart = (
  id: string,
  name: string,
  params: unknown,
  providerExecuted: boolean,
  options: Prompt.ProviderOptions
): Prompt.ToolCallPart => new ToolCallPart(id, name, params, providerExecuted, options)

const ResultPart = plain<[id: string, name: string, isFailure: boolean, result: unknown], Prompt.ToolResultPart>(
  function(id, name, isFailure, result) {
    this[PartTypeId] = PartTypeId
    this.type = "tool-result"
    this.id = id
    this.name = name
    this.isFailure = isFailure
    this.result = result
    this.providerExecuted = false
    this.options = noOptions
  }
)

const ShownResultPart = plain<
  [
    id: string,
    name: string,
    isFailure: boolean,
    result: unknown,
    modelOutput: ReadonlyArray<Prompt.ToolModelOutputPart>
  ],
  Prompt.ToolResultPart
>(function(id, name, isFailure, result, modelOutput) {
  this[PartTypeId] = PartTypeId
  this.type = "tool-result"
  this.id = id
  this.name = name
  this.isFailure = isFailure
  this.result = result
  this.modelOutput = modelOutput
  this.providerExecuted = false
  this.options = noOptions
})

/**
 * `Prompt.toolResultPart({ id, name, isFailure, result, modelOutput, providerExecuted: false })`, for a call run by
 * our dispatch; without the `modelOutput` key when there is none, the provider then showing `result`.
 */
export const toolResultPart = (
  id: string,
  name: string,
  isFailure: boolean,
  result: unknown,
  modelOutput: ReadonlyArray<Prompt.ToolModelOutputPart> | undefined
): Prompt.ToolResultPart =>
  modelOutput === undefined
    ? new ResultPart(id, name, isFailure, result)
    : new ShownResultPart(id, name, isFailure, result, modelOutput)

// ---------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------

type AnyMessage = Mutable<Prompt.BaseMessage<Prompt.Message["role"], Prompt.ProviderOptions>> & {
  content: ReadonlyArray<Prompt.Part>
}

const Message = plain<[role: Prompt.Message["role"], content: ReadonlyArray<Prompt.Part>], AnyMessage>(
  function(role, content) {
    this[MessageTypeId] = MessageTypeId
    this.role = role
    this.content = content
    this.options = noOptions
  }
)

/** `Prompt.makeMessage("user", { content })`. */
export const userMessage = (content: ReadonlyArray<Prompt.UserMessagePart>): Prompt.UserMessage =>
  new Message("user", content) as Prompt.UserMessage

/** `Prompt.makeMessage("assistant", { content })`. */
export const assistantMessage = (content: ReadonlyArray<Prompt.AssistantMessagePart>): Prompt.AssistantMessage =>
  new Message("assistant", content) as Prompt.AssistantMessage

/** `Prompt.makeMessage("tool", { content })`. */
export const toolMessage = (content: ReadonlyArray<Prompt.ToolMessagePart>): Prompt.ToolMessage =>
  new Message("tool", content) as Prompt.ToolMessage
