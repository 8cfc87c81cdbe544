/**
 * OpenAI strict mode, shared by the Chat Completions and Responses adapters.
 *
 * Strict mode accepts a subset of JSON Schema: every object lists all its properties in `required` and says
 * `additionalProperties: false`, so a property that was optional becomes required with a `null` alternative. The
 * compiler here turns a tool definition's parameters schema into that subset, and records a plan of which properties
 * were optional. On the way back, the plan maps `null` to "absent" for exactly those properties (in nested objects,
 * arrays of objects, unions and recursive definitions too) before dispatch decodes the arguments with the tool's
 * Schema. In a union, that is done in the branch the value satisfies: the first whose offered (strict) schema
 * accepts it, never one picked by its keys alone. A top-level union is offered as one object, each branch kept to
 * read the value back by.
 *
 * Keywords that only constrain values (`minLength`, `uniqueItems`, …) are removed: dispatch still checks them with
 * the tool's Schema, and reports a violation as `invalid_args`. Keywords that change the shape of the data in a way
 * strict mode cannot express (`allOf`, `not`, `if`, `patternProperties`, maps as `additionalProperties: {…}`, tuples
 * as `prefixItems`, `dependencies`, …) are refused with a {@link StrictSchemaError}, and so are nodes that accept any
 * value (`{}`, from `Schema.Unknown` or `Schema.Json`), arrays without `items`, a `required` key that `properties`
 * does not declare, and schemas past OpenAI's documented limits (nesting, properties, enum values, text length). A
 * `$ref` with keywords beside it, which OpenAI refuses, is inlined, merged with them, where that is exact. At the top
 * of the parameters, `not`, `enum` and `const`, which OpenAI refuses there in any mode, are left out instead.
 */
import { Predicate, Result } from "effect"
import type * as ToolCall from "../ToolCall.ts"
import * as ToolDefinition from "../ToolDefinition.ts"
import * as ToolSet from "../ToolSet.ts"
import { bounded } from "./issues.ts"
import { inlineReference, isRecord, type JsonSchema, resolvePointer } from "./jsonSchema.ts"
import { defineField, defaultLimits, type JsonLimits, parseArguments } from "./json.ts"
import {
  definitionsOf,
  type InvalidToolNameError,
  lowerParameters,
  type NonObjectParametersError,
  offer,
  type TopLevelUnionError,
  type Tools,
  withoutTopConstraints
} from "./providerContent.ts"
import {
  escapePointer,
  Refusal,
  refuseKeywords,
  refuseUntyped,
  strictCompiler,
  StrictSchemaError,
  undeclaredRequired,
  undescribedKeys,
  unsupportedShapeKeywords
} from "./strictSchema.ts"

export { StrictSchemaError }
export type { InvalidToolNameError, NonObjectParametersError, TopLevelUnionError }

/**
 * Options of both OpenAI adapters' `definitions` (and of their `toolCalls`, which must be told the same).
 *
 * A strict tool's parameters are compiled into OpenAI's strict subset: every property required, optional ones with a
 * `null` alternative, `additionalProperties: false`, value-only keywords (`minLength`, `uniqueItems`, …) removed —
 * dispatch still checks them with the tool's Schema. A `$ref` with keywords beside it (pydantic's described fields)
 * is inlined, merged with them. A schema strict mode cannot express (`allOf`, `not` below the top, `dependencies`,
 * records, tuples, untyped values such as `Schema.Unknown`, arrays without `items`, a `required` key that
 * `properties` does not declare, more than OpenAI's documented limits of 10 levels of objects, 5,000 properties or
 * 1,000 enum values, …) fails the whole list with a {@link StrictSchemaError}, at definition time rather than as a
 * 400 from the API. At the top, `not`, `enum` and `const`, which OpenAI refuses there strict or not, are left out of
 * the schema offered: they only narrow which argument objects are valid, and dispatch still checks them.
 * `definitions` returns a `Result`: pure, usable without a runtime; `Effect.fromResult` lifts it into an Effect.
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
  /** The strict form for strict tools, the definition's own schema (a top-level union lowered) otherwise. */
  readonly parameters: JsonSchema
  readonly strict: boolean
}

/** What both OpenAI adapters' `definitions` fail with. */
export type DefinitionsError = StrictSchemaError | InvalidToolNameError | NonObjectParametersError | TopLevelUnionError

/**
 * The tools of a request, in order, with names checked, a top-level union lowered to one object, and the parameters
 * of strict tools compiled. The first refusal fails the whole list: a tool is never offered with a name or a schema
 * the API would refuse.
 */
export const offeredTools = (
  tools: Tools,
  options: StrictOptions | undefined
): Result.Result<Array<OfferedTool>, DefinitionsError> => {
  const offered = offer(tools, "OpenAI")
  if (Result.isFailure(offered)) return Result.fail(offered.failure)
  const out: Array<OfferedTool> = []
  for (const { definition, parameters } of offered.success) {
    const { name, description } = definition
    if (!isStrict(definition, options?.strict)) {
      out.push({ name, description, parameters, strict: false })
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
export type Plan = ObjectPlan | ArrayPlan | AnyOfPlan | RefPlan | LoweredPlan

interface ObjectPlan {
  readonly _tag: "Object"
  /** Each known property: whether it was optional, and the plan of its value. */
  readonly properties: ReadonlyMap<string, { readonly optional: boolean; readonly plan: Plan | undefined }>
}

/** A union branch: its strict schema, which tells whether a value belongs to it, and its plan. */
interface Branch {
  readonly schema: Readonly<Record<string, unknown>>
  readonly plan: Plan | undefined
}

interface ArrayPlan {
  readonly _tag: "Array"
  readonly items: Plan
}

interface AnyOfPlan {
  readonly _tag: "AnyOf"
  readonly branches: ReadonlyArray<Branch>
}

/**
 * A top-level union offered as one object: the model sends every key of every branch, `null` for those it leaves
 * out. The branches, in order, as if each had been offered alone; `merged` when the value belongs to none.
 */
interface LoweredPlan {
  readonly _tag: "Lowered"
  readonly branches: ReadonlyArray<Branch & { readonly keys: ReadonlySet<string> }>
  readonly merged: Plan
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

/** True when a schema already admits `null`. */
const admitsNull = (schema: Record<string, unknown>): boolean => {
  const type = schema.type
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true
  if (schema.const === null && "const" in schema) return true
  const anyOf = schema.anyOf
  return Array.isArray(anyOf) && anyOf.some((branch) => Predicate.isObject(branch) && admitsNull(branch))
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

/** Whether the root `$defs` holds the definition a `#/$defs/…` reference names first. */
const definesName = (root: JsonSchema, ref: string): boolean =>
  resolvePointer(root, `/$defs/${ref.slice(defsPrefix.length).split("/")[0]}`) !== undefined

/** What the compilation of one definition's nodes shares. */
interface Context {
  /** The parameters schema, with its `$defs`: what references resolve against. */
  readonly root: JsonSchema
  /** The references being inlined on the way to this node: one met again would be inlined forever. */
  readonly inlining: ReadonlySet<string>
}

/** Compiles one schema node; throws a `Refusal` (caught in `compile`) for what strict mode cannot express. */
const compileNode = (
  node: unknown,
  path: string,
  context: Context
): { readonly schema: Record<string, unknown>; readonly plan: Plan | undefined } => {
  if (!Predicate.isObject(node)) {
    throw new Refusal(path, "schema", "a boolean schema (`true` / `false`) cannot be expressed in strict mode")
  }
  refuseKeywords(node, path, refused, mode)
  if (typeof node.$ref === "string" && Object.keys(node).length > 1) {
    return compileInlined(node, node.$ref, path, context)
  }
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
      if (value !== "#" && !definesName(context.root, value)) {
        throw new Refusal(path, key, `the reference ${JSON.stringify(bounded(value))} leads to no definition`)
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
    const branches = anyOf.map((branch, index) => compileNode(branch, `${path}/${keyword}/${index}`, context))
    out.anyOf = branches.map((branch) => branch.schema)
    if (branches.some((branch) => branch.plan !== undefined)) plan = { _tag: "AnyOf", branches }
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
    // Closed, an object of keys it does not describe could only ever be `{}`: what its tool would be sent is lost.
    // The parameters themselves without properties are a tool of no arguments, and are closed.
    if (path !== "" && node.properties === undefined && additional === undefined) throw undescribedKeys(path)
    const properties = Predicate.isObject(node.properties) ? node.properties : {}
    const required = new Set(Array.isArray(node.required) ? node.required : [])
    // Every key is offered, and no other: a required key that is not described could never be sent.
    const undeclared = undeclaredRequired(properties, node.required)
    if (undeclared !== undefined) {
      throw new Refusal(path, "required", `${undeclared}: strict mode offers only the keys it describes, so that key ` +
        "could never be sent")
    }
    const outProperties: Record<string, unknown> = {}
    const planProperties = new Map<string, { readonly optional: boolean; readonly plan: Plan | undefined }>()
    for (const [name, property] of Object.entries(properties)) {
      const compiled = compileNode(property, `${path}/properties/${escapePointer(name)}`, context)
      const optional = !required.has(name)
      Object.defineProperty(outProperties, name, {
        value: optional ? withNull(compiled.schema) : compiled.schema,
        enumerable: true,
        writable: true,
        configurable: true
      })
      planProperties.set(name, { optional, plan: compiled.plan })
    }
    out.type = node.type ?? "object"
    out.properties = outProperties
    out.required = Object.keys(properties)
    out.additionalProperties = false
    plan = { _tag: "Object", properties: planProperties }
  }
  const isArrayType = node.type === "array" || (Array.isArray(node.type) && node.type.includes("array"))
  if (isArrayType && node.items === undefined) {
    // The openai SDK's own strict transform refuses it too: the API needs to know what the items are.
    throw new Refusal(path, "items", "an array without `items` cannot be expressed in strict mode")
  }
  if (node.items !== undefined) {
    const items = compileNode(node.items, `${path}/items`, context)
    out.items = items.schema
    if (items.plan !== undefined) plan = { _tag: "Array", items: items.plan }
  }
  return { schema: out, plan }
}

/**
 * A `$ref` with keywords beside it (pydantic's `{"$ref": "#/$defs/Address", "description": "…"}`), which OpenAI
 * refuses ("$ref cannot have keywords"): compiled as what it names merged with those keywords, as the openai SDK's
 * own strict transform does, where that merge is exact. A definition met again on the way in (one that holds the same
 * reference with keywords beside it) cannot be inlined, and is refused.
 */
const compileInlined = (
  node: Readonly<Record<string, unknown>>,
  ref: string,
  path: string,
  context: Context
): { readonly schema: Record<string, unknown>; readonly plan: Plan | undefined } => {
  if (!(ref.startsWith(defsPrefix) || ref === "#")) {
    throw new Refusal(path, "$ref", "only references into the root `$defs` can be resolved")
  }
  const beside = Object.keys(node).filter((key) => key !== "$ref").map((key) => `\`${key}\``).join(", ")
  if (context.inlining.has(ref)) {
    throw new Refusal(
      path,
      "$ref",
      `a reference with keywords beside it (${beside}) cannot be expressed in strict mode, and this one leads ` +
        "back to itself, so it cannot be inlined"
    )
  }
  const inlined = inlineReference(context.root, node)
  if (Result.isFailure(inlined)) {
    throw new Refusal(
      path,
      "$ref",
      `a reference with keywords beside it (${beside}) cannot be expressed in strict mode, nor inlined exactly: ` +
        inlined.failure
    )
  }
  return compileNode(inlined.success, path, { root: context.root, inlining: new Set([...context.inlining, ref]) })
}

/**
 * The strict form of a definition's parameters, with its plan. Compiled once per definition. A top-level union is
 * compiled in its lowered form (one object, see `lowerParameters`), and each of its branches as if it had been
 * offered alone, for the read-back to tell which one a value belongs to. The `not`, `enum` and `const` OpenAI
 * refuses at the top are left out (see `withoutTopConstraints`): dispatch still checks them.
 */
export const compile = strictCompiler("OpenAI strict mode", (definition): Compiled => {
  const lowered = lowerParameters(definition)
  if (Result.isFailure(lowered)) throw new Refusal("", lowered.failure.keyword, lowered.failure.reason)
  const root = withoutTopConstraints(lowered.success.parameters)
  if (root.type !== "object") throw new Refusal("", "type", "the parameters schema must be an object")
  const { $defs, ...rest } = root
  const context: Context = { root, inlining: new Set() }
  const compiled = compileNode(rest, "", context)
  const defs = new Map<string, Plan>()
  let parameters = compiled.schema
  if (Predicate.isObject($defs)) {
    const outDefs: Record<string, unknown> = {}
    for (const [name, schema] of Object.entries($defs)) {
      const def = compileNode(schema, `/$defs/${escapePointer(name)}`, context)
      defineField(outDefs, name, def.schema)
      if (def.plan !== undefined) defs.set(name, def.plan)
    }
    parameters = { ...parameters, $defs: outDefs }
  }
  checkLimits(parameters)
  let plan = compiled.plan!
  const branches = lowered.success.branches
  if (branches !== undefined) {
    plan = {
      _tag: "Lowered",
      merged: plan,
      branches: branches.map((branch, index) => {
        const { schema, plan } = compileNode(branch, `/anyOf/${index}`, context)
        return { schema, plan, keys: new Set(Object.keys(Predicate.isObject(branch.properties) ? branch.properties : {})) }
      })
    }
  }
  // A `$ref: "#"` points back at the root.
  defs.set("", plan)
  return { parameters, plan, defs }
})

// OpenAI's documented limits of a strict schema ("Supported schemas" in its Structured Outputs guide): objects nested
// at most 10 levels deep, at most 5,000 properties in all, at most 1,000 enum values in all, at most 120,000
// characters of property names, definition names, enum values and constants in all, and a string enum of more than
// 250 values at most 15,000 characters long. The API refuses more with a 400; they are refused here instead.
const maxNesting = 10
const maxProperties = 5_000
const maxEnumValues = 1_000
const maxTextLength = 120_000
const largeEnumValues = 250
const maxLargeEnumLength = 15_000

/**
 * Throws a `Refusal` for a compiled strict schema past one of OpenAI's limits. Nesting counts the objects on the way
 * from the root (level 1) to the deepest one, each definition counted from its own top.
 */
const checkLimits = (parameters: JsonSchema): void => {
  let properties = 0
  let enumValues = 0
  let textLength = 0
  const limit = (path: string, keyword: string, reason: string) =>
    new Refusal(path, keyword, `${reason}, beyond what OpenAI strict mode allows`)
  const addText = (length: number, path: string, keyword: string) => {
    textLength += length
    if (textLength > maxTextLength) {
      throw limit(
        path,
        keyword,
        `its property names, definition names, enum values and constants are more than ${maxTextLength} characters long`
      )
    }
  }
  const visit = (node: unknown, path: string, depth: number): void => {
    if (!Predicate.isObject(node)) return
    let level = depth
    if (Predicate.isObject(node.properties)) {
      level = depth + 1
      if (level > maxNesting) {
        throw limit(path, "properties", `objects nest ${level} levels deep (at most ${maxNesting})`)
      }
      for (const [name, property] of Object.entries(node.properties)) {
        properties += 1
        if (properties > maxProperties) {
          throw limit(path, "properties", `the schema has more than ${maxProperties} properties in all`)
        }
        addText(name.length, path, "properties")
        visit(property, `${path}/properties/${escapePointer(name)}`, level)
      }
    }
    if (Array.isArray(node.enum)) {
      enumValues += node.enum.length
      if (enumValues > maxEnumValues) {
        throw limit(path, "enum", `the schema has more than ${maxEnumValues} enum values in all`)
      }
      let length = 0
      for (const value of node.enum) if (typeof value === "string") length += value.length
      if (node.enum.length > largeEnumValues && node.enum.every((value) => typeof value === "string")) {
        if (length > maxLargeEnumLength) {
          throw limit(
            path,
            "enum",
            `an enum of more than ${largeEnumValues} strings is ${length} characters long ` +
              `(at most ${maxLargeEnumLength})`
          )
        }
      }
      addText(length, path, "enum")
    }
    if (typeof node.const === "string") addText(node.const.length, path, "const")
    if (node.items !== undefined) visit(node.items, `${path}/items`, level)
    if (Array.isArray(node.anyOf)) node.anyOf.forEach((branch, index) => visit(branch, `${path}/anyOf/${index}`, level))
  }
  visit(parameters, "", 0)
  if (Predicate.isObject(parameters.$defs)) {
    for (const [name, definition] of Object.entries(parameters.$defs)) {
      addText(name.length, "", "$defs")
      visit(definition, `/$defs/${escapePointer(name)}`, 0)
    }
  }
}

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

// References can chain without reaching a value; a cycle of bare references describes none.
const maxHops = 32

const walk = (compiled: Compiled, plan: Plan | undefined, value: unknown, hops = 0): unknown => {
  if (plan === undefined || value === null || typeof value !== "object") return value
  switch (plan._tag) {
    case "Ref":
      return hops >= maxHops ? value : walk(compiled, compiled.defs.get(plan.name), value, hops + 1)
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
      // The first branch whose offered (strict) schema the value satisfies is the one the model wrote: `null` is
      // absent only where that branch had the key optional.
      const branch = plan.branches.find((branch) => matches(compiled.parameters, branch.schema, value, hops + 1))
      return branch === undefined ? value : walk(compiled, branch.plan, value, hops + 1)
    }
    case "Lowered": {
      if (Array.isArray(value)) return value
      const source = value as Record<string, unknown>
      for (const branch of plan.branches) {
        // The keys of the other branches came as `null`: without them, is this the branch the value belongs to?
        let candidate: Record<string, unknown> | undefined = {}
        for (const key of Object.keys(source)) {
          if (branch.keys.has(key)) setField(candidate, key, source[key])
          else if (source[key] !== null) {
            candidate = undefined
            break
          }
        }
        if (candidate !== undefined && matches(compiled.parameters, branch.schema, candidate, 0)) {
          return walk(compiled, branch.plan, candidate)
        }
      }
      // Inside the one object, a key offers the form every top-level branch gives it: a nested value may be written
      // in another branch's form, with `null` for keys its own form lacks and without keys its own form leaves
      // optional. Read so, the first branch it stands for.
      for (const branch of plan.branches) {
        if (Object.keys(source).some((key) => !branch.keys.has(key) && source[key] !== null)) continue
        const read = readAs(compiled, branch.schema, branch.plan, source, 0)
        if (read !== undefined) return read.value
      }
      return walk(compiled, plan.merged, value, hops + 1)
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

// ---------------------------------------------------------------------------
// Does a value satisfy a strict schema?
// ---------------------------------------------------------------------------

const patterns = new Map<string, RegExp | undefined>()

const patternOf = (source: string): RegExp | undefined => {
  if (patterns.has(source)) return patterns.get(source)
  let pattern: RegExp | undefined
  try {
    pattern = new RegExp(source, "u")
  } catch {
    // A pattern this engine cannot read constrains nothing here; dispatch's Schema checks the value anyway.
    pattern = undefined
  }
  if (patterns.size < 256) patterns.set(source, pattern)
  return pattern
}

const typeMatches = (type: unknown, value: unknown): boolean => {
  switch (type) {
    case "string":
      return typeof value === "string"
    case "number":
      return typeof value === "number"
    case "integer":
      return Number.isInteger(value)
    case "boolean":
      return typeof value === "boolean"
    case "null":
      return value === null
    case "array":
      return Array.isArray(value)
    case "object":
      return Predicate.isObject(value)
    default:
      return false
  }
}

const jsonEqual = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  return keysA.length === keysB.length &&
    keysA.every((key) => Object.hasOwn(b, key) && jsonEqual((a as any)[key], (b as any)[key]))
}

const resolveRef = (root: JsonSchema, ref: string): unknown => {
  const defs = Predicate.isObject(root.$defs) ? root.$defs : {}
  return ref === "#" ? root : ref.startsWith(defsPrefix) ? defs[ref.slice(defsPrefix.length)] : undefined
}

/**
 * The data a value written in any branch's form stands for in the form `schema` (compiled with `plan`), or
 * `undefined` when it stands for none. Of an object's keys, one the schema lacks must be `null`; one it has is absent
 * where it was optional and the value sends `null` or leaves it out, and is read in its own form otherwise.
 */
const readAs = (
  compiled: Compiled,
  schema: unknown,
  plan: Plan | undefined,
  value: unknown,
  hops: number
): { readonly value: unknown } | undefined => {
  const root = compiled.parameters
  if (!Predicate.isObject(schema) || hops >= maxHops) return matches(root, schema, value, hops) ? { value } : undefined
  if (typeof schema.$ref === "string") {
    const target = plan?._tag === "Ref" ? compiled.defs.get(plan.name) : undefined
    return readAs(compiled, resolveRef(root, schema.$ref), target, value, hops + 1)
  }
  if (Array.isArray(schema.anyOf)) {
    // A union's own plan has a plan per branch; a property made nullable (`anyOf: [its schema, null]`) keeps the plan
    // of its schema, which reads the branch that is not null.
    const branches = plan?._tag === "AnyOf" ? plan.branches : undefined
    for (let i = 0; i < schema.anyOf.length; i++) {
      const read = readAs(compiled, schema.anyOf[i], branches === undefined ? plan : branches[i]?.plan, value, hops + 1)
      if (read !== undefined) return read
    }
    return undefined
  }
  if (plan?._tag === "Array" && Array.isArray(value)) {
    if (!matches(root, { ...schema, items: undefined }, value, hops)) return undefined
    const out: Array<unknown> = []
    for (const item of value) {
      const read = readAs(compiled, schema.items, plan.items, item, 0)
      if (read === undefined) return undefined
      out.push(read.value)
    }
    return { value: out }
  }
  if (plan?._tag === "Object" && isRecord(value)) {
    const properties = Predicate.isObject(schema.properties) ? schema.properties : {}
    if (Object.keys(value).some((key) => !Object.hasOwn(properties, key) && value[key] !== null)) return undefined
    const out: Record<string, unknown> = {}
    for (const [key, property] of Object.entries(properties)) {
      const { optional = false, plan: inner = undefined } = plan.properties.get(key) ?? {}
      const field = Object.hasOwn(value, key) ? value[key] : undefined
      if (optional && (field === undefined || field === null)) continue
      const read = field === undefined ? undefined : readAs(compiled, property, inner, field, 0)
      if (read === undefined) return undefined
      setField(out, key, read.value)
    }
    return { value: out }
  }
  return matches(root, schema, value, hops) ? { value } : undefined
}

/**
 * Whether a JSON value satisfies a schema of the strict subset this module compiles to: `type`, `enum`, `const`,
 * `properties` / `required` / `additionalProperties: false`, `items`, `anyOf` and `$ref` into the root `$defs`, and
 * the value bounds strict mode keeps (`minimum`, `maximum`, their exclusive forms, `pattern`, `minItems`,
 * `maxItems`). Other keywords (formats, `multipleOf`) are not checked: dispatch's Schema checks them.
 */
const matches = (root: JsonSchema, schema: unknown, value: unknown, hops: number): boolean => {
  if (!Predicate.isObject(schema)) return schema !== false
  if (typeof schema.$ref === "string") {
    const target = hops >= maxHops ? undefined : resolveRef(root, schema.$ref)
    if (target === undefined || !matches(root, target, value, hops + 1)) return false
  }
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((branch) => matches(root, branch, value, hops + 1))) {
    return false
  }
  if ("const" in schema && !jsonEqual(schema.const, value)) return false
  if (Array.isArray(schema.enum) && !schema.enum.some((member) => jsonEqual(member, value))) return false
  if (schema.type !== undefined) {
    const types: ReadonlyArray<unknown> = Array.isArray(schema.type) ? schema.type : [schema.type]
    if (!types.some((type) => typeMatches(type, value))) return false
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) return false
    if (typeof schema.maximum === "number" && value > schema.maximum) return false
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) return false
    if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum) return false
  } else if (typeof value === "string") {
    const pattern = typeof schema.pattern === "string" ? patternOf(schema.pattern) : undefined
    if (pattern !== undefined && !pattern.test(value)) return false
  } else if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) return false
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) return false
    if (schema.items !== undefined && !value.every((item) => matches(root, schema.items, item, 0))) {
      return false
    }
  } else if (Predicate.isObject(value)) {
    const properties = Predicate.isObject(schema.properties) ? schema.properties : undefined
    if (properties !== undefined) {
      for (const key of Object.keys(value)) {
        if (!Object.hasOwn(properties, key)) {
          if (schema.additionalProperties === false) return false
          continue
        }
        if (!matches(root, properties[key], value[key], 0)) return false
      }
    }
    if (Array.isArray(schema.required) && !schema.required.every((key) => Object.hasOwn(value, key))) return false
  }
  return true
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
      for (const definition of definitionsOf(tools)) byName.set(definition.name, definition)
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
