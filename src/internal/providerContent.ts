/**
 * What the four provider adapters share: where the offered tools come from and what every provider refuses in them
 * (names, a union at the top of the parameters), reading transcripts and results that may be hostile without
 * throwing, the text renderings (so that every provider says the same thing the same way where it can only take
 * text), and the media helpers (data URLs, image media types recognized from base64). Each adapter keeps only its
 * wire shapes.
 */
import { Data, Predicate, Result, type Schema } from "effect"
import * as Tool from "../Tool.ts"
import * as ToolDefinition from "../ToolDefinition.ts"
import type { Status, ToolResult } from "../ToolResult.ts"
import * as ToolResultContent from "../ToolResultContent.ts"
import * as ToolSet from "../ToolSet.ts"
import { isDataUrl, urlContent } from "./dataUrl.ts"
import { bounded } from "./issues.ts"
import { defineField, toJsonValue } from "./json.ts"
import { type JsonSchema, mergeRoot } from "./jsonSchema.ts"

// ---------------------------------------------------------------------------
// Tools offered
// ---------------------------------------------------------------------------

/** Where the tools of a request come from: a tool set, or tools and definitions, mixed. */
export type Tools = ToolSet.Any | Iterable<Tool.Any | ToolDefinition.ToolDefinition>

/** What a list of tools holds: its definitions, and the entries that are neither a tool nor a definition. */
interface ReadTools {
  readonly definitions: ReadonlyArray<ToolDefinition.ToolDefinition>
  readonly refused: ReadonlyArray<unknown>
}

/** The definition an entry stands for, or `undefined` for anything else (a plain object from JavaScript, say). */
const definitionOfEntry = (entry: unknown): ToolDefinition.ToolDefinition | undefined => {
  // A proxy's traps may throw on the guards' `in`: such an entry is refused, never thrown through.
  try {
    if (Tool.isTool(entry)) return ToolDefinition.fromTool(entry)
    if (ToolDefinition.isToolDefinition(entry)) return entry
  } catch {
    return undefined
  }
  return undefined
}

/**
 * The definitions of `tools`, in order: a tool stands for its definition. In a list, a later tool of a name replaces
 * the earlier one in its position, as `ToolSet` does, so that a list and the set made of it offer the same tools
 * (and a provider never sees a name twice, which it refuses).
 */
const readTools = (tools: Tools): ReadTools => {
  if (ToolSet.isToolSet(tools)) return { definitions: ToolSet.definitions(tools), refused: [] }
  const definitions: Array<ToolDefinition.ToolDefinition> = []
  const refused: Array<unknown> = []
  const positions = new Map<string, number>()
  for (const entry of tools as Iterable<unknown>) {
    const definition = definitionOfEntry(entry)
    if (definition === undefined) {
      refused.push(entry)
      continue
    }
    const position = positions.get(definition.name)
    if (position !== undefined) definitions[position] = definition
    else {
      positions.set(definition.name, definitions.length)
      definitions.push(definition)
    }
  }
  return { definitions, refused }
}

/**
 * The definitions of `tools`, in order, a later tool of a name replacing the earlier one in its position (see
 * {@link readTools}); entries that are neither a tool nor a definition are left out ({@link offer} refuses them).
 */
export const definitionsOf = (tools: Tools): ReadonlyArray<ToolDefinition.ToolDefinition> =>
  readTools(tools).definitions

/** The providers whose rules the adapters check. */
export type Provider = "OpenAI" | "Anthropic" | "Gemini"

/**
 * A tool's name is one its provider refuses: the API would answer the whole request with a 400, so the tool is not
 * offered. It names the tool (at most its first 64 characters), the provider and the provider's rule. The same class
 * in every adapter.
 */
export class InvalidToolNameError extends Data.TaggedError("InvalidToolNameError")<{
  /** The refused name, cut to its first 64 characters (then `…`). */
  readonly toolName: string
  readonly provider: Provider
  /** The provider's rule for names, as a regular expression. */
  readonly rule: string
  readonly message: string
}> {}

/**
 * A tool's parameters are a union at the top (`anyOf` / `oneOf`), which no provider takes there, and the union
 * cannot be offered as one object instead: a branch is not an object, say. The same for an intersection at the top
 * (`allOf`, zod's `.and()`) whose parts cannot be merged into one object exactly: two parts that each close their
 * object over other keys, say. It names the tool and says why. The same class in every adapter.
 */
export class TopLevelUnionError extends Data.TaggedError("TopLevelUnionError")<{
  readonly toolName: string
  readonly provider: Provider
  /** Why the union cannot be offered as one object. */
  readonly reason: string
  readonly message: string
}> {}

// OpenAI: the SDK's `FunctionDefinition.name` ("a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum
// length of 64"), and the API's own error for anything else (`does not match ^[a-zA-Z0-9_-]{1,64}$`). Anthropic's
// API answers a bad name with the same pattern (`tools.N.custom.name: String should match pattern …`). Gemini: the
// `@google/genai` `FunctionDeclaration.name` doc ("Must start with a letter or an underscore. Must be a-z, A-Z, 0-9,
// or contain underscores, dots, colons and dashes, with a maximum length of 128").
const nameRules: Readonly<Record<Provider, RegExp>> = {
  OpenAI: /^[a-zA-Z0-9_-]{1,64}$/,
  Anthropic: /^[a-zA-Z0-9_-]{1,64}$/,
  Gemini: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/
}

/** The refusal of a definition's name by `provider`, or `undefined` when the provider takes it. */
const checkName = (name: unknown, provider: Provider): InvalidToolNameError | undefined => {
  const rule = nameRules[provider]
  if (typeof name === "string" && rule.test(name)) return undefined
  const toolName = typeof name === "string" ? bounded(name) : String(typeof name)
  return new InvalidToolNameError({
    toolName,
    provider,
    rule: rule.source,
    message: `${provider} refuses the tool name \`${toolName}\`: a name must match ${rule.source}`
  })
}

/**
 * The refusal of a list entry that is neither a `Tool` nor a `ToolDefinition` (a plain object from JavaScript, say):
 * its name cannot be trusted to be checked, so it is refused as a name, with a message that says why.
 * `InvalidToolNameError` rather than an error of its own, since it is the one refusal every adapter's `definitions`
 * already declares.
 */
const refuseEntry = (entry: unknown, provider: Provider): InvalidToolNameError => {
  const name = field(entry, "name")
  const toolName = typeof name === "string" ? bounded(name) : ""
  const rule = nameRules[provider].source
  return new InvalidToolNameError({
    toolName,
    provider,
    rule,
    message: `${provider} cannot offer the tool entry${
      toolName === "" ? "" : ` \`${toolName}\``
    }: it is neither a Tool nor a ToolDefinition (make one with Tool.make or ToolDefinition.make)`
  })
}

/**
 * A tool's parameters are not an object schema: their `type` at the top is another (`"string"`, say). Tool arguments
 * are always a JSON object, so no call of such a tool could ever be valid; rather than offer it (OpenAI and Gemini
 * would refuse it, or the model could only call it in vain), every adapter refuses it. It names the tool and the
 * type. The same class in every adapter.
 */
export class NonObjectParametersError extends Data.TaggedError("NonObjectParametersError")<{
  readonly toolName: string
  readonly provider: Provider
  /** The `type` at the top of the parameters, as JSON text (`"string"`, `["string","null"]`), at most 64 characters. */
  readonly type: string
  readonly message: string
}> {}

/** The refusal of a definition whose parameters are not an object at the top, or `undefined` when they are one. */
const checkObjectRoot = (
  definition: ToolDefinition.ToolDefinition,
  provider: Provider
): NonObjectParametersError | undefined => {
  // `ToolDefinition.make` gives `type: "object"` to a root without a type, or whose type lists "object": any other
  // type accepts no JSON object.
  const type = field(definition.parameters, "type")
  if (type === "object") return undefined
  const shownType = bounded(shown(type))
  return new NonObjectParametersError({
    toolName: definition.name,
    provider,
    type: shownType,
    message: `tool \`${definition.name}\`: its parameters are of type ${shownType}, not an object: tool arguments ` +
      "are always a JSON object, so no call of it could be valid"
  })
}

// Keywords at the top of the parameters that OpenAI refuses there, strict or not ("schema must have type 'object'
// and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level"; newer wording adds 'const'), beside the
// unions and intersections that are lowered. At the top they only narrow which argument objects are valid, and
// dispatch validates every call's arguments against the tool's own schema: the schema offered may leave them out.
const topConstraints: ReadonlyArray<string> = ["not", "enum", "const"]

/**
 * The parameters without `not`, `enum` and `const` at the top, for the providers and modes that refuse them there
 * (OpenAI, strict or not; Anthropic's strict tool use; Gemini's Schema subset): a looser object schema, since
 * dispatch still checks the arguments against the tool's own. The parameters themselves when they have none of them.
 */
export const withoutTopConstraints = (parameters: JsonSchema): JsonSchema => {
  if (!topConstraints.some((keyword) => Object.hasOwn(parameters, keyword))) return parameters
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(parameters)) if (!topConstraints.includes(key)) defineField(out, key, value)
  return out
}

/** A definition as an adapter offers it: its own fields, with parameters every provider takes at the top. */
export interface Offered {
  readonly definition: ToolDefinition.ToolDefinition
  /** The definition's parameters, or the one object that stands for its top-level union. */
  readonly parameters: JsonSchema
}

/**
 * The definitions of `tools`, each checked against `provider`'s name rule, refused when its parameters are not an
 * object at the top (see {@link NonObjectParametersError}), and with a top-level union lowered to one object (see
 * {@link lowerParameters}); for OpenAI, without the `not`, `enum` and `const` it refuses at the top (see
 * {@link withoutTopConstraints}). The first refusal fails the whole list: a request with one bad tool is refused
 * whole by every provider.
 */
export const offer = (
  tools: Tools,
  provider: Provider
): Result.Result<Array<Offered>, InvalidToolNameError | NonObjectParametersError | TopLevelUnionError> => {
  const { definitions, refused } = readTools(tools)
  if (refused.length > 0) return Result.fail(refuseEntry(refused[0], provider))
  const out: Array<Offered> = []
  for (const definition of definitions) {
    const refused = checkName(definition.name, provider) ?? checkObjectRoot(definition, provider)
    if (refused !== undefined) return Result.fail(refused)
    const lowered = lowerParameters(definition)
    if (Result.isFailure(lowered)) {
      const { keyword, reason } = lowered.failure
      const what = keyword === "allOf" ? "an intersection (`allOf`)" : "a union"
      return Result.fail(
        new TopLevelUnionError({
          toolName: definition.name,
          provider,
          reason,
          message:
            `tool \`${definition.name}\`: its parameters are ${what} that cannot be offered as one object: ${reason}`
        })
      )
    }
    const { parameters } = lowered.success
    out.push({ definition, parameters: provider === "OpenAI" ? withoutTopConstraints(parameters) : parameters })
  }
  return Result.succeed(out)
}

// ---------------------------------------------------------------------------
// A top-level union, lowered to one object
// ---------------------------------------------------------------------------

/** A definition's parameters as providers take them, and the branches of the union they stand for, if any. */
export interface Lowered {
  readonly parameters: JsonSchema
  /** The union's branches, each an object schema, when `parameters` stands for a top-level union. */
  readonly branches: ReadonlyArray<JsonSchema> | undefined
}

const defsPrefix = "#/$defs/"

/** JSON text for what a description shows of a value; a value JSON cannot write shows as `…`. */
const shown = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? "…"
  } catch {
    return "…"
  }
}

/**
 * The object branches of a union node: references into the root's `$defs` followed, nested unions flattened. Fails
 * with the reason for a branch that is not an object schema.
 */
const objectBranches = (
  node: unknown,
  defs: Readonly<Record<string, unknown>>,
  at: string,
  depth: number
): Result.Result<Array<JsonSchema>, string> => {
  if (depth > 16) return Result.fail(`the union at ${at} nests too deep`)
  if (!Predicate.isObject(node)) return Result.fail(`the branch at ${at} is not an object schema`)
  if (typeof node.$ref === "string") {
    const target = node.$ref.startsWith(defsPrefix) ? defs[node.$ref.slice(defsPrefix.length)] : undefined
    if (!Predicate.isObject(target)) return Result.fail(`the branch at ${at} refers to a schema outside the root's $defs`)
    const { $ref: _, ...siblings } = node
    return objectBranches({ ...target, ...siblings }, defs, at, depth + 1)
  }
  const alternatives = node.anyOf ?? node.oneOf
  if (alternatives !== undefined && node.properties === undefined) {
    if (!Array.isArray(alternatives)) return Result.fail(`the union at ${at} is not a list`)
    const out: Array<JsonSchema> = []
    for (let i = 0; i < alternatives.length; i++) {
      const keyword = node.anyOf !== undefined ? "anyOf" : "oneOf"
      const inner = objectBranches(alternatives[i], defs, `${at}/${keyword}/${i}`, depth + 1)
      if (Result.isFailure(inner)) return inner
      out.push(...inner.success)
    }
    return Result.succeed(out)
  }
  const isObject = node.type === "object" || (node.type === undefined && Predicate.isObject(node.properties))
  if (!isObject || alternatives !== undefined || node.allOf !== undefined) {
    return Result.fail(`the branch at ${at} is not an object schema`)
  }
  return Result.succeed([node])
}

const requiredOf = (node: JsonSchema): ReadonlyArray<string> =>
  Array.isArray(node.required) ? node.required.filter((key): key is string => typeof key === "string") : []

const propertiesOf = (node: JsonSchema): Readonly<Record<string, unknown>> =>
  Predicate.isObject(node.properties) ? node.properties : {}

/** The single value a property schema allows (`const`, or a one-value `enum`): a discriminator. */
const literalOf = (schema: unknown): { readonly value: unknown } | undefined => {
  if (!Predicate.isObject(schema)) return undefined
  if ("const" in schema) return { value: schema.const }
  if (Array.isArray(schema.enum) && schema.enum.length === 1) return { value: schema.enum[0] }
  return undefined
}

/** One branch in a few words: its discriminator values and the other keys it requires. */
const describeBranch = (branch: JsonSchema): string => {
  const properties = propertiesOf(branch)
  const literals: Array<string> = []
  const keys: Array<string> = []
  for (const key of requiredOf(branch)) {
    const literal = Object.hasOwn(properties, key) ? literalOf(properties[key]) : undefined
    if (literal !== undefined) literals.push(`${key} = ${shown(literal.value)}`)
    else keys.push(key)
  }
  const parts = [...literals, ...(keys.length > 0 ? [`with ${keys.join(", ")}`] : [])]
  return parts.length === 0 ? "no required keys" : parts.join(", ")
}

/** Why a definition's parameters cannot be offered as one object: the keyword at the top, and the reason. */
export interface LoweringFailure {
  readonly keyword: "anyOf" | "oneOf" | "allOf"
  readonly reason: string
}

const loweredCache = new WeakMap<ToolDefinition.ToolDefinition, Result.Result<Lowered, LoweringFailure>>()

/**
 * The parameters of a definition as every provider takes them at the top: one object schema. Anthropic refuses
 * `anyOf`, `oneOf` and `allOf` at the top of `input_schema` ("input_schema does not support oneOf, allOf, or anyOf at
 * the top level"); OpenAI refuses them in Chat Completions and Responses, strict or not ("schema must have type
 * 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level"; the `enum`, `not` and `const` it
 * also refuses there are left out by {@link offer}); Gemini's `parametersJsonSchema` "must describe an object where
 * the properties are the parameters", and its Schema subset (`parameters`) is a map of named parameters.
 *
 * A union of objects is offered as one looser object, since dispatch validates the arguments against the tool's own
 * Schema anyway: the union of the branches' properties (a property of several branches with different schemas
 * takes `anyOf` of them, each once), `required` the keys every branch requires, `additionalProperties: false` only
 * when every branch says so, and a description that lists the branches ("Arguments take one of these forms: …"),
 * so that the model still knows which keys go together. Parameters that are no union are returned as they are.
 * Fails, with the reason, for a union whose branches are not all objects.
 *
 * An `allOf` at the top is merged into one object where that is exact (definitions do that when they are made, see
 * `ToolDefinition.make`); where it is not, every provider would refuse it, and so it fails too.
 */
export const lowerParameters = (
  definition: ToolDefinition.ToolDefinition
): Result.Result<Lowered, LoweringFailure> => {
  const cached = loweredCache.get(definition)
  if (cached !== undefined) return cached
  const result = lower(definition.parameters)
  loweredCache.set(definition, result)
  return result
}

const lower = (given: JsonSchema): Result.Result<Lowered, LoweringFailure> => {
  let root = given
  if (root.allOf !== undefined) {
    const merged = mergeRoot(root)
    if (Result.isFailure(merged)) {
      return Result.fail({ keyword: "allOf", reason: `its parts cannot be merged exactly: ${merged.failure}` })
    }
    root = merged.success
  }
  if (root.anyOf === undefined && root.oneOf === undefined) {
    return Result.succeed({ parameters: root, branches: undefined })
  }
  const keyword = root.anyOf !== undefined ? "anyOf" : "oneOf"
  const union = (reason: string): Result.Result<Lowered, LoweringFailure> => Result.fail({ keyword, reason })
  if (root.anyOf !== undefined && root.oneOf !== undefined) return union("it has both `anyOf` and `oneOf`")
  const defs = Predicate.isObject(root.$defs) ? root.$defs : {}
  const {
    additionalProperties: _additional,
    anyOf: _anyOf,
    description,
    oneOf: _oneOf,
    properties: ownProperties,
    required: _required,
    type: _type,
    ...rest
  } = root
  // Under the keyword the schema has, so that a failure names the branch where it is (`/oneOf/1`).
  const found = objectBranches({ [keyword]: root[keyword] }, defs, "", 0)
  if (Result.isFailure(found)) return union(found.failure)
  if (found.success.length === 0) return union("the union has no branches")
  // Properties stated beside the union hold in every branch.
  const common = Predicate.isObject(ownProperties) ? ownProperties : {}
  const commonRequired = requiredOf(root)
  const branches: Array<JsonSchema> = []
  for (const branch of found.success) {
    const own = propertiesOf(branch)
    const clash = Object.keys(common).find((key) => Object.hasOwn(own, key))
    if (clash !== undefined) {
      return union(`the property \`${bounded(clash)}\` is stated both beside and inside the union`)
    }
    if (Object.keys(common).length === 0 && commonRequired.length === 0) {
      branches.push(branch)
      continue
    }
    const properties: Record<string, unknown> = {}
    for (const [key, value] of [...Object.entries(common), ...Object.entries(own)]) defineField(properties, key, value)
    branches.push({ ...branch, properties, required: [...new Set([...commonRequired, ...requiredOf(branch)])] })
  }
  const schemasByKey = new Map<string, Array<unknown>>()
  const seenByKey = new Map<string, Set<string>>()
  for (const branch of branches) {
    for (const [key, schema] of Object.entries(propertiesOf(branch))) {
      const seen = seenByKey.get(key) ?? new Set<string>()
      const text = shown(schema)
      if (seen.has(text)) continue
      seen.add(text)
      seenByKey.set(key, seen)
      const list = schemasByKey.get(key) ?? []
      list.push(schema)
      schemasByKey.set(key, list)
    }
  }
  const properties: Record<string, unknown> = {}
  for (const [key, schemas] of schemasByKey) {
    defineField(properties, key, schemas.length === 1 ? schemas[0] : { anyOf: schemas })
  }
  const required = requiredOf(branches[0]!)
    .filter((key) => branches.every((branch) => requiredOf(branch).includes(key)))
  const closed = branches.every((branch) => branch.additionalProperties === false)
  const forms = `Arguments take one of these forms: ${
    branches.map((branch, i) => `(${i + 1}) ${describeBranch(branch)}`).join("; ")
  }.`
  return Result.succeed({
    parameters: {
      ...rest,
      type: "object",
      description: typeof description === "string" && description !== "" ? `${description}\n${forms}` : forms,
      properties,
      required: [...new Set(required)],
      ...(closed ? { additionalProperties: false } : {})
    },
    branches
  })
}

// ---------------------------------------------------------------------------
// Reading what may be hostile
// ---------------------------------------------------------------------------

/** What {@link field} returns for a property whose read threw (a getter, a proxy trap). */
export const unreadable: unique symbol = Symbol("unreadable")

/**
 * The value of `u[key]`: `undefined` when `u` is not an object, {@link unreadable} when reading throws. A transcript
 * may come from storage or a proxy: reading it must never throw.
 */
export const field = (u: unknown, key: string): unknown => {
  if ((typeof u !== "object" && typeof u !== "function") || u === null) return undefined
  try {
    return (u as Record<string, unknown>)[key]
  } catch {
    return unreadable
  }
}

/**
 * The entries of an array, read one at a time: `undefined` when `u` is not an array (or cannot be told to be one),
 * an entry that throws when read as {@link unreadable}.
 */
export const entries = (u: unknown): ReadonlyArray<unknown> | undefined => {
  let length: unknown
  try {
    // `Array.isArray` throws on a revoked proxy.
    if (!Array.isArray(u)) return undefined
    length = u.length
  } catch {
    return undefined
  }
  if (typeof length !== "number" || !Number.isSafeInteger(length) || length < 0) return undefined
  const out: Array<unknown> = []
  for (let i = 0; i < length; i++) out.push(field(u, String(i)))
  return out
}

/** A string field, or `fallback` when the field is missing or not a string; `""` when it could not be read. */
export const stringField = (u: unknown, key: string, fallback: string): string => {
  const value = field(u, key)
  return typeof value === "string" ? value : value === unreadable ? "" : fallback
}

// ---------------------------------------------------------------------------
// Results, read once
// ---------------------------------------------------------------------------

/** A content block whose fields have the types its class declares, and whose sources are never `data:` URLs. */
export type Block = ToolResultContent.ToolResultContent

/** What an adapter renders of a result: its fields read once and checked, its blocks normalized. */
export interface ResultView {
  readonly callId: string
  readonly name: string
  readonly status: Status
  /** The error's kind (`other` when it says none), for the words of a failure. */
  readonly errorKind: string
  readonly content: ReadonlyArray<Block>
}

const statuses: ReadonlySet<unknown> = new Set(["success", "error", "denied", "skipped"])

const placeholder = (text: string): Block => ToolResultContent.text(text)

const unreadableBlock = placeholder("[content omitted: the block could not be read]")

/**
 * A result as the adapters render it. Total: a result built by hand with fields of the wrong types, getters that
 * throw or content that is not a list still renders, as what could be read and placeholders for the rest. A status
 * that is not one of the four reads as `error`, never as a success.
 */
export const readResult = (result: ToolResult): ResultView => {
  const status = field(result, "status")
  const error = field(result, "error")
  const kind = field(field(error, "value"), "kind")
  const output = field(result, "output")
  const blocks = entries(field(output, "content"))
  return {
    callId: stringField(result, "callId", ""),
    name: stringField(result, "name", ""),
    status: statuses.has(status) ? status as Status : "error",
    errorKind: field(error, "_tag") === "Some" && typeof kind === "string" ? kind : "other",
    content: blocks === undefined ? [placeholder("[output omitted: it could not be read]")] : blocks.map(normalizeBlock)
  }
}

const optionalString = (u: unknown, key: string): string | undefined => {
  const value = field(u, key)
  return typeof value === "string" ? value : undefined
}

/** A string field the model reads (a name, a description), well-formed (see {@link wellFormed}). */
const textField = (u: unknown, key: string): string | undefined => {
  const value = optionalString(u, key)
  return value === undefined ? undefined : wellFormed(value)
}

/** A block's own media type, normalized (see {@link normalMediaType}); `undefined` when it names none. */
const mediaTypeField = (u: unknown): string | undefined => {
  const value = optionalString(u, "mediaType")
  return value === undefined ? undefined : normalMediaType(value)
}

/**
 * Other names of the image types providers take, as tools and MCP servers label them (`image/jpg` is the most common
 * of them), each with the name the providers know.
 */
const mediaTypeAliases: ReadonlyMap<string, string> = new Map([
  ["image/jpg", "image/jpeg"],
  ["image/pjpeg", "image/jpeg"],
  ["image/x-png", "image/png"]
])

/**
 * A media type as providers compare it: media types are case-insensitive and may carry parameters
 * (`image/PNG`, `text/plain; charset=utf-8`), and the adapters match the essence alone (`image/png`, `text/plain`),
 * with an alias given its usual name (`image/jpg` is `image/jpeg`). `undefined` for an empty one.
 */
const normalMediaType = (mediaType: string): string | undefined => {
  const semicolon = mediaType.indexOf(";")
  const essence = (semicolon === -1 ? mediaType : mediaType.slice(0, semicolon)).trim().toLowerCase()
  return essence === "" ? undefined : mediaTypeAliases.get(essence) ?? essence
}

// Node's strings have both (since Node 20); TypeScript's ES2022 library does not declare them.
const { isWellFormed, toWellFormed } = String.prototype as unknown as {
  readonly isWellFormed: (this: string) => boolean
  readonly toWellFormed: (this: string) => string
}

/**
 * Text with every lone surrogate (a UTF-16 code unit that is no character, as a string cut in the middle of an emoji
 * has) replaced by U+FFFD, as `TextEncoder` writes it. A request body with one is not valid Unicode: Anthropic
 * answers it with a 400 ("no low surrogate in string"), and so do other JSON parsers that read strict UTF-8, so that
 * one result cut in the middle of an emoji would fail every later turn of a conversation.
 */
const wellFormed = (text: string): string => isWellFormed.call(text) ? text : toWellFormed.call(text)

/**
 * A JSON value with its strings (keys included) well-formed (see {@link wellFormed}): the value itself when all are
 * already, as they nearly always are; otherwise a copy. Gemini sends a Json value as it is, not as text. Recurses
 * over values copied under the default output limits (128 levels at most).
 */
const wellFormedJson = (value: Schema.Json): Schema.Json => {
  if (typeof value === "string") return wellFormed(value)
  if (typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) {
    const items = value.map(wellFormedJson)
    return items.some((item, i) => item !== value[i]) ? Object.freeze(items) : value
  }
  let out: Record<string, Schema.Json> | undefined
  const entries = Object.entries(value)
  for (const [key, inner] of entries) {
    const shownKey = wellFormed(key)
    const shown = wellFormedJson(inner)
    if (out === undefined && (shownKey !== key || shown !== inner)) {
      out = {}
      for (const [before, kept] of entries) {
        if (before === key) break
        defineField(out, before, kept)
      }
    }
    if (out !== undefined) defineField(out, shownKey, shown)
  }
  return out === undefined ? value : Object.freeze(out)
}

const details: ReadonlySet<unknown> = new Set(["auto", "low", "high"])

/** Where a block's bytes are, `data:` URLs read as the inline bytes they are. */
type Source =
  | { readonly _tag: "Base64"; readonly data: string; readonly mediaType: string | undefined }
  | { readonly _tag: "Url"; readonly url: string }
  | { readonly _tag: "Malformed" }

const sourceOf = (u: unknown): Source | undefined => {
  const tag = field(u, "_tag")
  if (tag === "Base64") {
    const data = field(u, "data")
    return typeof data === "string" ? base64Source(data) : undefined
  }
  if (tag !== "Url") return undefined
  const url = field(u, "url")
  return typeof url === "string" ? urlSource(url) : undefined
}

const urlSource = (url: string): Source => {
  const content = urlContent(url)
  switch (content._tag) {
    case "Link":
      return { _tag: "Url", url }
    case "Inline":
      return {
        _tag: "Base64",
        data: content.base64,
        mediaType: content.mediaType === undefined ? undefined : normalMediaType(content.mediaType)
      }
    case "Malformed":
      return content
  }
}

/**
 * Base64 data as a source. A whole `data:` URL passed as the data (`fileBase64("data:application/pdf;base64,…")`) is
 * read as the URL it is: its header is no base64, so sending it on as such would garble the bytes.
 */
const base64Source = (data: string): Source =>
  isDataUrl(data) ? urlSource(data) : { _tag: "Base64", data, mediaType: undefined }

const malformed = (kind: string): Block => placeholder(`[${kind} omitted: malformed data URL]`)

const fallbackMediaType = "application/octet-stream"

/** A media type a data URL names for an image: only an image type, since any other would mislabel the bytes. */
const imageTypeOf = (mediaType: string | undefined): string | undefined =>
  mediaType !== undefined && mediaType.startsWith("image/") ? mediaType : undefined

/**
 * A block with the types its class declares, whatever was built: each field read once, without throwing. A `data:`
 * URL (of an image, a file or a resource link, or passed as base64 data, audio's included) becomes the base64
 * content it holds, with the media type the URL names unless the block names its own; a malformed one a placeholder
 * that shows none of it. A Json value becomes a
 * plain JSON copy, or a placeholder when it is not JSON (a cycle, a BigInt, a getter that throws). What cannot be
 * read becomes a placeholder.
 */
const normalizeBlock = (block: unknown): Block => {
  if (block === unreadable) return unreadableBlock
  switch (field(block, "_tag")) {
    case "Text": {
      const text = field(block, "text")
      if (typeof text !== "string") return unreadableBlock
      const shown = wellFormed(text)
      return block instanceof ToolResultContent.Text && shown === text ? block : ToolResultContent.text(shown)
    }
    case "Json": {
      const value = field(block, "value")
      if (value === unreadable) return unreadableBlock
      const copy = toJsonValue(value)
      return Result.isSuccess(copy)
        ? ToolResultContent.json(wellFormedJson(copy.success))
        : placeholder("[JSON omitted: the value is not JSON]")
    }
    case "Image": {
      const source = sourceOf(field(block, "source"))
      if (source === undefined) return unreadableBlock
      if (source._tag === "Malformed") return malformed("image")
      const own = mediaTypeField(block)
      const detail = field(block, "detail")
      const checkedDetail = details.has(detail) ? detail as ToolResultContent.ImageDetail : undefined
      if (source._tag === "Url") return ToolResultContent.imageUrl(source.url, own, checkedDetail)
      // Inline bytes in one of the image formats providers take are that format, whatever the block was labelled.
      const labelled = own ?? imageTypeOf(source.mediaType)
      const mediaType = labelled !== undefined && isImageMediaType(labelled)
        ? labelled
        : sniffImageMediaType(source.data) ?? labelled
      return ToolResultContent.imageBase64(source.data, mediaType, checkedDetail)
    }
    case "Audio": {
      const data = field(block, "data")
      if (typeof data !== "string") return unreadableBlock
      const source = base64Source(data)
      if (source._tag !== "Base64") return malformed("audio")
      return ToolResultContent.audio(source.data, mediaTypeField(block) ?? source.mediaType ?? fallbackMediaType)
    }
    case "File": {
      const source = sourceOf(field(block, "source"))
      if (source === undefined) return unreadableBlock
      if (source._tag === "Malformed") return malformed("file")
      const own = mediaTypeField(block)
      const filename = textField(block, "filename")
      return source._tag === "Url"
        ? ToolResultContent.fileUrl(source.url, own ?? fallbackMediaType, filename)
        : ToolResultContent.fileBase64(source.data, own ?? source.mediaType ?? fallbackMediaType, filename)
    }
    case "ResourceLink": {
      const uri = field(block, "uri")
      const name = textField(block, "name") ?? ""
      if (typeof uri !== "string") return unreadableBlock
      const own = mediaTypeField(block)
      const source = urlSource(uri)
      if (source._tag === "Malformed") return malformed("resource")
      if (source._tag === "Url") {
        const description = textField(block, "description")
        return ToolResultContent.resourceLink({
          uri: wellFormed(uri),
          name,
          ...(own !== undefined ? { mediaType: own } : {}),
          ...(description !== undefined ? { description } : {})
        })
      }
      // A link that holds its bytes is that content, not a link: shown as the medium its type names.
      const mediaType = own ?? source.mediaType ?? fallbackMediaType
      if (mediaType.startsWith("image/")) return ToolResultContent.imageBase64(source.data, mediaType)
      if (mediaType.startsWith("audio/")) return ToolResultContent.audio(source.data, mediaType)
      return ToolResultContent.fileBase64(source.data, mediaType, name === "" ? undefined : name)
    }
    default:
      return unreadableBlock
  }
}

// ---------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------

/**
 * The text of a block that has a text form (Text, Json, ResourceLink), or `undefined` for media (Image, Audio, File),
 * which each adapter lowers by its provider's capabilities. Takes normalized blocks (see {@link readResult}).
 */
export const blockText = (block: Block): string | undefined => {
  switch (block._tag) {
    case "Text":
      return block.text
    case "Json":
      return jsonText(block.value)
    case "ResourceLink":
      return `${block.name}: ${block.uri}${block.description ? ` (${block.description})` : ""}`
    default:
      return undefined
  }
}

/**
 * A JSON value as compact JSON text, as every adapter and the effect/ai bridge write a Json block; a value too deep
 * for `JSON.stringify` as a placeholder.
 */
export const jsonText = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? "null"
  } catch {
    return "[JSON omitted: the value is too deep to write]"
  }
}

/**
 * For providers with no error flag (OpenAI), and for the refusals and skips of those with one (Anthropic): the words
 * put before a failed, denied or skipped result's text, so the model reads it as what it is. `undefined` for
 * success.
 */
export const statusPrefix = (result: ResultView): string | undefined => {
  switch (result.status) {
    case "success":
      return undefined
    case "denied":
      return "Tool call denied: "
    case "skipped":
      return "Tool call skipped: "
    case "error":
      return `Tool call failed (${result.errorKind}): `
  }
}

/**
 * The text that stands for a result with no content at all: the status words (without the trailing `": "`), or
 * `(empty result)` for a success. Anthropic refuses a `tool_result` with `is_error` and empty content, and an empty
 * answer tells the model nothing on any provider.
 */
export const emptyResultText = (result: ResultView): string => statusPrefix(result)?.replace(/: $/, "") ?? "(empty result)"

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

/**
 * The document types OpenAI's file inputs guide lists (PDF; text and code; Word, RTF and OpenDocument text;
 * PowerPoint; CSV, TSV and Excel), besides any `text/` type, with the extension a file without a name is given.
 * Images, audio and video are not file inputs.
 */
const fileExtensions: ReadonlyMap<string, string> = new Map([
  ["application/pdf", "pdf"],
  ["application/json", "json"],
  ["application/xml", "xml"],
  ["application/rtf", "rtf"],
  ["application/msword", "doc"],
  ["application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"],
  ["application/vnd.oasis.opendocument.text", "odt"],
  ["application/vnd.ms-powerpoint", "ppt"],
  ["application/vnd.openxmlformats-officedocument.presentationml.presentation", "pptx"],
  ["application/vnd.ms-excel", "xls"],
  ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"],
  ["text/plain", "txt"],
  ["text/markdown", "md"],
  ["text/csv", "csv"],
  ["text/html", "html"]
])

/** True for the media types OpenAI reads as input files: any `text/` type, and the documents above. */
export const isOpenAiFileMediaType = (mediaType: string): boolean =>
  mediaType.startsWith("text/") || fileExtensions.has(mediaType)

/**
 * The name an inline file is sent to OpenAI under: the block's own, else `file` with the extension of its media type
 * (`file.pdf`). OpenAI refuses file data without a name ("Missing required parameter"), though its types let it out.
 */
export const fileNameOf = (filename: string | undefined, mediaType: string): string => {
  if (filename !== undefined) return filename
  const extension = fileExtensions.get(mediaType.toLowerCase())
  return extension === undefined ? "file" : `file.${extension}`
}

/**
 * The text of an inline file of a `text/` type (plain text, Markdown, CSV, HTML, …) whose bytes are UTF-8: what an
 * adapter whose provider cannot take the file shows instead of a placeholder. `undefined` for any other file.
 */
export const fileText = (file: ToolResultContent.File): string | undefined =>
  file.source._tag === "Base64" && file.mediaType.startsWith("text/") ? decodeBase64Text(file.source.data) : undefined

/** The UTF-8 text of base64 data, or `undefined` when it is not valid base64 of valid UTF-8. */
const decodeBase64Text = (data: string): string | undefined => {
  try {
    const binary = atob(data)
    const bytes = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
}
