/**
 * OpenAI strict mode, shared by the Chat Completions and Responses adapters.
 *
 * Strict mode accepts a subset of JSON Schema: every object lists all its properties in `required` and says
 * `additionalProperties: false`, so a property that was optional becomes required with a `null` alternative. The
 * compiler here turns a tool definition's parameters schema into that subset, and records a plan of which properties
 * were optional. On the way back, the plan maps `null` to "absent" for exactly those properties (in nested objects,
 * arrays of objects, unions and recursive definitions too) before dispatch decodes the arguments with the tool's
 * Schema.
 *
 * Keywords that only constrain values (`minLength`, `uniqueItems`, …) are removed: dispatch still checks them with
 * the tool's Schema, and reports a violation as `invalid_args`. Keywords that change the shape of the data in a way
 * strict mode cannot express (`allOf`, `not`, `if`, `patternProperties`, maps as `additionalProperties: {…}`, tuples
 * as `prefixItems`, …) are refused with a {@link StrictSchemaError}, and so are nodes that accept any value (`{}`,
 * from `Schema.Unknown` or `Schema.Json`) and arrays without `items`.
 */
import { Result } from "effect"
import type * as ToolCall from "../ToolCall.ts"
import * as ToolDefinition from "../ToolDefinition.ts"
import * as ToolSet from "../ToolSet.ts"
import { defaultLimits, type JsonLimits, parseArguments } from "./json.ts"
import type { JsonSchema } from "./jsonSchema.ts"
import { definitionsOf, type Tools } from "./providerContent.ts"
import {
  escapePointer,
  Refusal,
  refuseKeywords,
  refuseUntyped,
  strictCompiler,
  StrictSchemaError,
  unsupportedShapeKeywords
} from "./strictSchema.ts"

export { StrictSchemaError }

/**
 * Options of both OpenAI adapters' `definitions` (and of their `toolCalls`, which must be told the same).
 *
 * A strict tool's parameters are compiled into OpenAI's strict subset: every property required, optional ones with a
 * `null` alternative, `additionalProperties: false`, value-only keywords (`minLength`, `uniqueItems`, …) removed —
 * dispatch still checks them with the tool's Schema. A schema strict mode cannot express (`allOf`, `not`, records,
 * tuples, untyped values such as `Schema.Unknown`, arrays without `items`, …) fails the whole list with a {@link StrictSchemaError}, at definition time rather than as a 400 from the
 * API. `definitions` returns a `Result`: pure, usable without a runtime; `Effect.fromResult` lifts it into an Effect.
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
 */
export interface StrictOptions {
  /**
   * Strict mode for every tool. Without it, a tool is strict when its `strict` annotation says so. Pass the same
   * value to `toolCalls`.
   */
  readonly strict?: boolean | undefined
}

/** Strict mode for one definition: on for all tools by option, or per tool by its `strict` annotation. */
const isStrict = (definition: ToolDefinition.ToolDefinition, strictOption: boolean | undefined): boolean =>
  strictOption === true || definition.annotations.strict === true

/** A tool as both OpenAI APIs offer it, before each adapter gives it its wire shape. */
export interface OfferedTool {
  readonly name: string
  readonly description: string
  /** The strict form for strict tools, the definition's own schema otherwise. */
  readonly parameters: JsonSchema
  readonly strict: boolean
}

/**
 * The tools of a request, in order, with the parameters of strict tools compiled. The first schema strict mode
 * cannot express fails the whole list: a tool is never offered with a schema the API would refuse.
 */
export const offeredTools = (
  tools: Tools,
  options: StrictOptions | undefined
): Result.Result<Array<OfferedTool>, StrictSchemaError> => {
  const out: Array<OfferedTool> = []
  for (const definition of definitionsOf(tools)) {
    const { name, description } = definition
    if (!isStrict(definition, options?.strict)) {
      out.push({ name, description, parameters: definition.parameters, strict: false })
      continue
    }
    const compiled = compile(definition)
    if (Result.isFailure(compiled)) return Result.fail(compiled.failure)
    out.push({ name, description, parameters: compiled.success.parameters, strict: true })
  }
  return Result.succeed(out)
}

// ---------------------------------------------------------------------------
// Plans: which properties were optional
// ---------------------------------------------------------------------------

/** How to walk an argument value to restore absent properties. */
export type Plan = ObjectPlan | ArrayPlan | AnyOfPlan | RefPlan

interface ObjectPlan {
  readonly _tag: "Object"
  /** Each known property: whether it was optional, and the plan of its value. */
  readonly properties: ReadonlyMap<string, { readonly optional: boolean; readonly plan: Plan | undefined }>
  /** Properties with a single allowed value (`const` or a one-value `enum`): discriminators of unions. */
  readonly literals: ReadonlyMap<string, unknown>
}

interface ArrayPlan {
  readonly _tag: "Array"
  readonly items: Plan
}

interface AnyOfPlan {
  readonly _tag: "AnyOf"
  readonly branches: ReadonlyArray<Plan>
}

interface RefPlan {
  readonly _tag: "Ref"
  readonly name: string
}

/** A compiled strict definition: the strict parameters schema, and the plan to read arguments back. */
export interface Compiled {
  readonly parameters: JsonSchema
  readonly plan: Plan
  readonly defs: ReadonlyMap<string, Plan>
}

// Keywords kept as they are: the documented strict subset, plus annotations the model reads.
const kept = new Set([
  "type",
  "description",
  "title",
  "enum",
  "const",
  "pattern",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "minItems",
  "maxItems"
])

// Keywords strict mode cannot express and that change the shape of the data: refused. `allOf` is OpenAI's own.
const refused: ReadonlySet<string> = new Set(["allOf", ...unsupportedShapeKeywords])

// A node needs one of these to say what its values are; `properties` alone means an object.
const typedKeywords = ["type", "anyOf", "oneOf", "$ref", "enum", "const", "properties"]

const mode = "strict mode"

const supportedFormats = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"])

const defsPrefix = "#/$defs/"

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** True when a schema already admits `null`. */
const admitsNull = (schema: Record<string, unknown>): boolean => {
  const type = schema.type
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true
  if (schema.const === null && "const" in schema) return true
  const anyOf = schema.anyOf
  return Array.isArray(anyOf) && anyOf.some((branch) => isObject(branch) && admitsNull(branch))
}

/** The schema with a `null` alternative: `"type": [t, "null"]` where that is exact, `anyOf` otherwise. */
const withNull = (schema: Record<string, unknown>): Record<string, unknown> => {
  if (admitsNull(schema)) return schema
  if (typeof schema.type === "string" && !("enum" in schema) && !("const" in schema) && !("anyOf" in schema)) {
    return { ...schema, type: [schema.type, "null"] }
  }
  if (Array.isArray(schema.anyOf) && Object.keys(schema).every((key) => key === "anyOf" || key === "description")) {
    return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] }
  }
  const { description, ...rest } = schema
  return description === undefined
    ? { anyOf: [rest, { type: "null" }] }
    : { anyOf: [rest, { type: "null" }], description }
}

const literalOf = (schema: unknown): { readonly value: unknown } | undefined => {
  if (!isObject(schema)) return undefined
  if ("const" in schema) return { value: schema.const }
  if (Array.isArray(schema.enum) && schema.enum.length === 1) return { value: schema.enum[0] }
  return undefined
}

/** Compiles one schema node; throws a `Refusal` (caught in `compile`) for what strict mode cannot express. */
const compileNode = (
  node: unknown,
  path: string
): { readonly schema: Record<string, unknown>; readonly plan: Plan | undefined } => {
  if (!isObject(node)) {
    throw new Refusal(path, "schema", "a boolean schema (`true` / `false`) cannot be expressed in strict mode")
  }
  refuseKeywords(node, path, refused, mode)
  // An untyped node (`Schema.Unknown`, `Schema.Json`) accepts any value, which strict mode cannot say.
  refuseUntyped(node, path, typedKeywords, mode)
  const out: Record<string, unknown> = {}
  let plan: Plan | undefined
  for (const [key, value] of Object.entries(node)) {
    if (kept.has(key)) out[key] = value
    else if (key === "format") {
      if (typeof value === "string" && supportedFormats.has(value)) out.format = value
    } else if (key === "$ref") {
      if (typeof value !== "string" || !(value.startsWith(defsPrefix) || value === "#")) {
        throw new Refusal(path, key, "only references into the root `$defs` can be resolved")
      }
      out.$ref = value
      plan = { _tag: "Ref", name: value === "#" ? "" : value.slice(defsPrefix.length) }
    }
    // `properties`, `required`, `additionalProperties`, `items`, `anyOf`, `oneOf` and `$defs` are handled below;
    // every other keyword only constrains values or annotates, and dispatch checks values with the tool's Schema.
  }
  const anyOf = node.anyOf ?? node.oneOf
  if (anyOf !== undefined) {
    const keyword = node.anyOf !== undefined ? "anyOf" : "oneOf"
    if (node.anyOf !== undefined && node.oneOf !== undefined) {
      throw new Refusal(path, "oneOf", "`anyOf` and `oneOf` together cannot be expressed in strict mode")
    }
    if (!Array.isArray(anyOf)) throw new Refusal(path, keyword, `\`${keyword}\` must be an array`)
    // `oneOf` becomes `anyOf`, which strict mode supports: the branches' own checks still run at dispatch.
    const branches = anyOf.map((branch, index) => compileNode(branch, `${path}/${keyword}/${index}`))
    out.anyOf = branches.map((branch) => branch.schema)
    const plans = branches.flatMap((branch) => branch.plan === undefined ? [] : [branch.plan])
    if (plans.length > 0) plan = { _tag: "AnyOf", branches: plans }
  }
  const isObjectType = node.type === "object" || (Array.isArray(node.type) && node.type.includes("object"))
  if (isObjectType || node.properties !== undefined) {
    const additional = node.additionalProperties
    if (additional !== undefined && additional !== false) {
      throw new Refusal(
        path,
        "additionalProperties",
        "objects with arbitrary keys (records, maps) cannot be expressed in strict mode"
      )
    }
    const properties = isObject(node.properties) ? node.properties : {}
    const required = new Set(Array.isArray(node.required) ? node.required : [])
    const outProperties: Record<string, unknown> = {}
    const planProperties = new Map<string, { readonly optional: boolean; readonly plan: Plan | undefined }>()
    const literals = new Map<string, unknown>()
    for (const [name, property] of Object.entries(properties)) {
      const compiled = compileNode(property, `${path}/properties/${escapePointer(name)}`)
      const optional = !required.has(name)
      Object.defineProperty(outProperties, name, {
        value: optional ? withNull(compiled.schema) : compiled.schema,
        enumerable: true,
        writable: true,
        configurable: true
      })
      planProperties.set(name, { optional, plan: compiled.plan })
      const literal = literalOf(property)
      if (literal !== undefined && !optional) literals.set(name, literal.value)
    }
    out.type = node.type ?? "object"
    out.properties = outProperties
    out.required = Object.keys(properties)
    out.additionalProperties = false
    plan = { _tag: "Object", properties: planProperties, literals }
  }
  const isArrayType = node.type === "array" || (Array.isArray(node.type) && node.type.includes("array"))
  if (isArrayType && node.items === undefined) {
    // The openai SDK's own strict transform refuses it too: the API needs to know what the items are.
    throw new Refusal(path, "items", "an array without `items` cannot be expressed in strict mode")
  }
  if (node.items !== undefined) {
    const items = compileNode(node.items, `${path}/items`)
    out.items = items.schema
    if (items.plan !== undefined) plan = { _tag: "Array", items: items.plan }
  }
  return { schema: out, plan }
}

/**
 * The strict form of a definition's parameters, with its plan. Compiled once per definition.
 */
export const compile = strictCompiler("OpenAI strict mode", (definition): Compiled => {
  const root = definition.parameters
  if (root.type !== "object" || root.anyOf !== undefined) {
    throw new Refusal("", "type", "the parameters schema must be an object, and not `anyOf`")
  }
  const { $defs, ...rest } = root
  const compiled = compileNode(rest, "")
  const defs = new Map<string, Plan>()
  let parameters = compiled.schema
  if (isObject($defs)) {
    const outDefs: Record<string, unknown> = {}
    for (const [name, schema] of Object.entries($defs)) {
      const def = compileNode(schema, `/$defs/${escapePointer(name)}`)
      outDefs[name] = def.schema
      if (def.plan !== undefined) defs.set(name, def.plan)
    }
    parameters = { ...parameters, $defs: outDefs }
  }
  // A `$ref: "#"` points back at the root.
  defs.set("", compiled.plan!)
  return { parameters, plan: compiled.plan!, defs }
})

// ---------------------------------------------------------------------------
// null → absent
// ---------------------------------------------------------------------------

const setField = (target: Record<string, unknown>, key: string, value: unknown) => {
  // `__proto__` must stay an own data property, never a prototype.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * The value with `null` removed from every property that was optional before compilation, following the plan.
 * Builds fresh objects and arrays only where something changes; the input is never mutated.
 */
export const restoreAbsent = (compiled: Compiled, value: unknown): unknown => walk(compiled, compiled.plan, value)

const walk = (compiled: Compiled, plan: Plan | undefined, value: unknown): unknown => {
  if (plan === undefined || value === null || typeof value !== "object") return value
  switch (plan._tag) {
    case "Ref":
      return walk(compiled, compiled.defs.get(plan.name), value)
    case "Array": {
      if (!Array.isArray(value)) return value
      let out: Array<unknown> | undefined
      for (let i = 0; i < value.length; i++) {
        const next = walk(compiled, plan.items, value[i])
        if (next !== value[i]) {
          out ??= value.slice()
          out[i] = next
        }
      }
      return out ?? value
    }
    case "AnyOf": {
      const branch = chooseBranch(compiled, plan.branches, value)
      return branch === undefined ? value : walk(compiled, branch, value)
    }
    case "Object": {
      if (Array.isArray(value)) return value
      const source = value as Record<string, unknown>
      let out: Record<string, unknown> | undefined
      for (const key of Object.keys(source)) {
        const property = plan.properties.get(key)
        if (property === undefined) continue
        const field = source[key]
        let next: unknown = field
        if (field === null && property.optional) next = undefined
        else next = walk(compiled, property.plan, field)
        if (next !== field) {
          if (out === undefined) {
            out = {}
            for (const k of Object.keys(source)) setField(out, k, source[k])
          }
          if (next === undefined) delete out[key]
          else setField(out, key, next)
        }
      }
      return out ?? value
    }
  }
}

const resolve = (compiled: Compiled, plan: Plan): Plan | undefined => {
  let current: Plan | undefined = plan
  // References can chain; a cycle of bare references describes no value.
  for (let hops = 0; current !== undefined && current._tag === "Ref" && hops < 32; hops++) {
    current = compiled.defs.get(current.name)
  }
  return current?._tag === "Ref" ? undefined : current
}

/**
 * The branch of a union a value belongs to. Strict mode makes the model send every property, so an object value
 * belongs to the object branch with exactly its keys (and matching single-value discriminators); an array to the
 * first array branch.
 */
const chooseBranch = (compiled: Compiled, branches: ReadonlyArray<Plan>, value: object): Plan | undefined => {
  for (const branch of branches) {
    const plan = resolve(compiled, branch)
    if (plan === undefined) continue
    if (Array.isArray(value)) {
      if (plan._tag === "Array") return plan
      continue
    }
    if (plan._tag === "AnyOf") {
      const nested = chooseBranch(compiled, plan.branches, value)
      if (nested !== undefined) return nested
      continue
    }
    if (plan._tag !== "Object") continue
    const keys = Object.keys(value)
    if (keys.length !== plan.properties.size || !keys.every((key) => plan.properties.has(key))) continue
    let literalsMatch = true
    for (const [key, literal] of plan.literals) {
      if ((value as Record<string, unknown>)[key] !== literal) literalsMatch = false
    }
    if (literalsMatch) return plan
  }
  return undefined
}

/** Options of both OpenAI adapters' `toolCalls`: the tools offered, and the argument limits of dispatch. */
export interface ReadOptions extends StrictOptions {
  /**
   * The tools the request offered. With it, the arguments of strict tools are read back: `null` becomes absent for
   * the properties that were optional, so the tool's Schema decodes them as absent.
   */
  readonly tools?: Tools | undefined
  /** Argument limits, as given to `ToolSet.execute`: text beyond them is left for dispatch to report. */
  readonly maxArgumentBytes?: number | undefined
  readonly maxArgumentDepth?: number | undefined
}

/**
 * A resolver from tool name to its compiled strict form, for the tools that are strict. Tools that are not strict,
 * unknown, or whose schema was refused resolve to `undefined`: their arguments pass through untouched.
 */
const strictResolver = (options: ReadOptions | undefined): ((name: string) => Compiled | undefined) => {
  if (options?.tools === undefined) return () => undefined
  const tools = options.tools
  const strictOption = options.strict
  let byName: Map<string, ToolDefinition.ToolDefinition> | undefined
  const lookup = (name: string): ToolDefinition.ToolDefinition | undefined => {
    if (ToolSet.isToolSet(tools)) {
      const tool = ToolSet.get(tools, name)
      return tool._tag === "Some" ? ToolDefinition.fromTool(tool.value) : undefined
    }
    if (byName === undefined) {
      byName = new Map()
      for (const definition of tools) byName.set(definition.name, definition)
    }
    return byName.get(name)
  }
  return (name) => {
    const definition = lookup(name)
    if (definition === undefined || !isStrict(definition, strictOption)) return undefined
    const compiled = compile(definition)
    return Result.isSuccess(compiled) ? compiled.success : undefined
  }
}

/**
 * The arguments of one call as dispatch should see them: for a strict tool, parsed (under the same limits as
 * dispatch) with `null` mapped back to absent; otherwise, and whenever parsing fails, exactly as the model sent them,
 * so that dispatch reports the failure.
 */
const readArguments = (
  args: unknown,
  compiled: Compiled | undefined,
  options: ReadOptions | undefined
): unknown => {
  if (compiled === undefined) return args
  const limits: JsonLimits = {
    maxBytes: options?.maxArgumentBytes ?? defaultLimits.maxBytes,
    maxDepth: options?.maxArgumentDepth ?? defaultLimits.maxDepth
  }
  const parsed = parseArguments(args, limits)
  if (Result.isFailure(parsed.result)) return args
  return restoreAbsent(compiled, parsed.result.success)
}

/**
 * A reader of calls for both OpenAI adapters: each call keeps its id and name, and a strict tool's arguments are
 * read back as dispatch should see them.
 */
export const callReader = (
  options: ReadOptions | undefined
): ((id: string, name: string, args: unknown) => ToolCall.ToolCall) => {
  const resolve = strictResolver(options)
  return (id, name, args) => ({ id, name, arguments: readArguments(args, resolve(name), options) })
}
