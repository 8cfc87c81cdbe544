/**
 * JSON Schema validation for tools defined at run time: the cheap checks a schema gets when its tool is made, and
 * a validator compiled on first use, once per schema, whose failures are `- $.path: message` lines, as Schema
 * issues are, that never carry a value that was sent.
 *
 * The validator is ajv: `Ajv` for draft-07 (what MCP servers send through zod-to-json-schema), and for draft-06 with
 * that draft's meta-schema added, `Ajv2019` for 2019-09 and `Ajv2020` for everything else, with all errors, without strict mode (schemas written for other validators carry keywords ajv
 * does not know), with own properties only (`required: ["toString"]` is not met by `{}`), and with the formats of
 * `ajv-formats`. Schemas only ever resolve references inside themselves: a `$ref` to anything else is refused when
 * the tool is made, and ajv is never given a way to fetch one. Where ajv reads a schema otherwise than JSON Schema
 * does, this module reads it as JSON Schema: `const`, `enum` and `uniqueItems` compare JSON values, `multipleOf`
 * compares decimals, and a `nullable` that ajv would refuse to compile is ignored.
 *
 * ajv is loaded on first use, with a synchronous `require`, not imported: loading it and its formats costs tens of
 * milliseconds per dialect, which a program that never makes a runtime tool should not pay, and a tool's schema must
 * be refused synchronously, where the tool is made, which a dynamic `import()` cannot do.
 */
import { Result } from "effect"
import type {
  _ as CodeTag,
  Ajv,
  CodeKeywordDefinition,
  ErrorObject,
  FuncKeywordDefinition,
  KeywordCxt,
  Options,
  SchemaValidateFunction,
  ValidateFunction
} from "ajv"
import type { FormatsPlugin } from "ajv-formats"
import { createRequire } from "node:module"
import { bounded, formatPath } from "./issues.ts"
import { dataKeywords, isRecord, mapSchemasBelow, resolvePointer, schemaMaps } from "./jsonSchema.ts"

/** The JSON Schema dialects a runtime tool's schema may be written in: its `$schema` decides, 2020-12 by default. */
export type JsonSchemaDialect = "draft-06" | "draft-07" | "draft-2019-09" | "draft-2020-12"

/** Which schema of a tool is checked, as the tool's author named it: it says where the problem is. */
export type SchemaField = "parameters" | "outputSchema"

/**
 * A value that does not match its schema: one `- $.path: message` line per failing path, in the order the
 * validator found them, without repeats, and the same lines as one text.
 */
export interface Mismatch {
  readonly _tag: "Mismatch"
  readonly lines: ReadonlyArray<string>
  /** The lines joined with newlines: what a model, or an operator for an output, is shown. */
  readonly message: string
}

/**
 * The schema could not be used: it did not compile (an unresolvable local `$ref`, say), or the validator threw. The
 * reason is for operators; the call fails with `other`.
 */
export interface ValidatorError {
  readonly _tag: "ValidatorError"
  readonly reason: string
  readonly cause: unknown
}

/** Why a value was not accepted. */
export type ValidationFailure = Mismatch | ValidatorError

/** A JSON Schema's validator, compiled on its first `validate`, shared by everything that validates that schema. */
export interface JsonSchemaValidator {
  /** The schema, as it was given. */
  readonly schema: object
  /**
   * Succeeds for a value the schema accepts, with a shared result: nothing is allocated on that path, except the
   * key list ajv's own-properties mode takes of each object it checks for additional properties, and the digits a
   * `multipleOf` compares of a number that is not an integer.
   */
  readonly validate: (value: unknown) => Result.Result<void, ValidationFailure>
}

// -------------------------------------------------------------------------------------------------------------
// ajv, loaded on first use
// -------------------------------------------------------------------------------------------------------------

type AjvConstructor = new(options: Options) => Ajv

/** What this module takes from a dialect's ajv module: its class, and the tag ajv writes validator code with. */
interface AjvModule {
  readonly default: AjvConstructor
  readonly _: typeof CodeTag
}

const requireHere = createRequire(import.meta.url)

const ajvModules: Partial<Record<JsonSchemaDialect, AjvModule>> = {}
let formats: FormatsPlugin | undefined
let draft06MetaSchema: object | undefined

/** The module of the ajv class for each dialect: draft-06 is draft-07's class, with draft-06's meta-schema added. */
const modules: Record<JsonSchemaDialect, string> = {
  "draft-06": "ajv",
  "draft-07": "ajv",
  "draft-2019-09": "ajv/dist/2019",
  "draft-2020-12": "ajv/dist/2020"
}

const ajvModuleOf = (dialect: JsonSchemaDialect): AjvModule => {
  let ajvModule = ajvModules[dialect]
  if (ajvModule === undefined) {
    ajvModule = requireHere(modules[dialect]) as AjvModule
    ajvModules[dialect] = ajvModule
  }
  return ajvModule
}

const formatsPlugin = (): FormatsPlugin => {
  if (formats === undefined) formats = (requireHere("ajv-formats") as { readonly default: FormatsPlugin }).default
  return formats
}

/**
 * How ajv compiles a schema's patterns: each with the `u` flag when it compiles with it, as ajv would, and without it
 * otherwise. `unicodeRegExp: false` would drop the flag from every pattern of the schema, and change what those
 * that need it mean (`\p{L}` would match the text `p{L}`); this decides per pattern.
 */
const patternRegExp = Object.assign(
  (source: string, _flags: string): RegExp => new RegExp(source, compilesWith(source, "u") ? "u" : ""),
  // ajv reads `code` only for standalone code, which this module never generates.
  { code: "patternRegExp" }
)

const makeAjv = (dialect: JsonSchemaDialect, options: Options): Ajv => {
  const ajvModule = ajvModuleOf(dialect)
  const ajv = new ajvModule.default({
    strict: false,
    ownProperties: true,
    // A library writes nothing to the console: an unknown format or keyword is ignored, as the dialects allow.
    logger: false,
    code: { regExp: patternRegExp },
    ...options
  })
  formatsPlugin()(ajv)
  if (dialect === "draft-06") {
    draft06MetaSchema ??= requireHere("ajv/dist/refs/json-schema-draft-06.json") as object
    ajv.addMetaSchema(draft06MetaSchema)
  }
  const code = ajvModule._
  replaceKeyword(ajv, "multipleOf", multipleOfCode(code))
  replaceKeyword(ajv, "const", constCode(code))
  replaceKeyword(ajv, "enum", enumCode(code))
  ajv.removeKeyword("uniqueItems")
  ajv.addKeyword(uniqueItemsKeyword)
  return ajv
}

// One instance per dialect checks schemas against their meta-schema: it compiles only the meta-schema, once.
const metaCheckers: Partial<Record<JsonSchemaDialect, Ajv>> = {}

const metaCheckerOf = (dialect: JsonSchemaDialect): Ajv => {
  let ajv = metaCheckers[dialect]
  if (ajv === undefined) {
    ajv = makeAjv(dialect, {})
    metaCheckers[dialect] = ajv
  }
  return ajv
}

/**
 * Puts `code` where ajv's own code for `keyword` was, with ajv's own definition at hand. The keyword keeps the rest of
 * ajv's definition (its data type, schema type and error), so that its failures read as ajv's do. Added again, it
 * comes last among the keywords of its data type, where `multipleOf` already was among the number keywords.
 */
const replaceKeyword = (
  ajv: Ajv,
  keyword: string,
  code: (cxt: KeywordCxt, own: CodeKeywordDefinition) => void
): void => {
  const own = ajv.getKeyword(keyword) as CodeKeywordDefinition
  ajv.removeKeyword(keyword)
  ajv.addKeyword({ ...own, code: (cxt) => code(cxt, own) })
}

// `multipleOf`: ajv tests whether the value divided by the step is an integer in binary floating point, where 19.99 /
// 0.01 is 1998.9999999999998, so that 19.99 is refused; and reads that integer with `parseInt`, which reads 1e21 as 1.

/** Checks `multipleOf` with {@link isMultipleOf}: one function, shared by every `multipleOf` of the schema. */
const multipleOfCode = (code: typeof CodeTag) => (cxt: KeywordCxt): void => {
  const test = cxt.gen.scopeValue("func", { ref: isMultipleOf })
  cxt.fail(code`!${test}(${cxt.data}, ${cxt.schemaCode})`)
}

/**
 * Whether `value` is a whole multiple of `step`, both read as the decimals JSON writes: 19.99 is 1999 hundredths, a
 * multiple of 0.01. A number is read as the shortest decimal that is that number, which is the text a model writes
 * for it. An integer from 2^53 on stands for many texts (`12345678901234567890` and `2^70`'s digits are each read
 * as a number that prints otherwise): it is a multiple when its shortest decimal is one, or its exact value. A step of
 * 0 or one that is not finite, which no dialect allows, constrains nothing, as in ajv.
 */
const isMultipleOf = (value: number, step: number): boolean => {
  if (step === 0 || !Number.isFinite(step)) return true
  if (!Number.isFinite(value)) return false
  if (Number.isSafeInteger(value) && Number.isSafeInteger(step)) return value % step === 0
  const stepDecimal = decimalOf(step)
  return decimalMultiple(decimalOf(value), stepDecimal) ||
    (Number.isInteger(value) && decimalMultiple([BigInt(value), 0], stepDecimal))
}

/** Whether one decimal (digits × 10^exponent) is a whole multiple of another. */
const decimalMultiple = (
  [valueDigits, valueExponent]: readonly [bigint, number],
  [stepDigits, stepExponent]: readonly [bigint, number]
): boolean => {
  const exponent = Math.min(valueExponent, stepExponent)
  const scaledValue = valueDigits * 10n ** BigInt(valueExponent - exponent)
  const scaledStep = stepDigits * 10n ** BigInt(stepExponent - exponent)
  return scaledValue % scaledStep === 0n
}

/**
 * A finite number as digits and a power of ten, read from the shortest decimal that is that number (the text a model
 * writes): 19.99 is 1999 × 10^-2, 1.5e-7 is 15 × 10^-8, 1e23 is 1 × 10^23 (not the binary value it stands for,
 * 99999999999999991611392), 12345678901234567890 is 12345678901234567 × 10^3.
 */
const decimalOf = (value: number): readonly [digits: bigint, exponent: number] => {
  if (Number.isSafeInteger(value)) return [BigInt(value), 0]
  // Written with a point, or with an exponent below 1e-6 and from 1e21 on ("1.5e-7", "1e+23"); an integer from 2^53
  // up to 1e21 as its digits, which end in zeros where the shortest decimal does.
  const [significand = "", exponent = "0"] = String(value).split("e")
  const point = significand.indexOf(".")
  return point === -1
    ? [BigInt(significand), Number(exponent)]
    : [
      BigInt(significand.slice(0, point) + significand.slice(point + 1)),
      Number(exponent) - (significand.length - point - 1)
    ]
}

// The keywords that compare values: ajv's own compare objects with fast-deep-equal, which calls the `valueOf` and
// `toString` it finds on them, so that `{"toString": {}}` against an object `const` or `enum` throws instead of
// failing; and its `uniqueItems` indexes strings in a plain object, where `"__proto__"` is no key, so that
// `["__proto__", "__proto__"]` passes. These compare canonical JSON text instead, and call nothing a value holds.
//
// Each is one function for the whole schema, given the keyword's value where the value is checked, with what it
// prepares from that value kept by the value: a function compiled for each keyword would be a value ajv keeps beside
// the validator, and compiling slows far faster than those values grow in number (2,000 `enum`s compiled three times
// as slowly as with ajv's own code, 10,000 exhausted the stack).

/** Whether a `const` or `enum` value is a scalar: a string, a number, a boolean or null. */
const isScalar = (value: unknown): boolean => typeof value !== "object" || value === null

/** `const`: ajv's own code for a scalar, which compares with `===` and calls nothing; {@link isEqualTo} otherwise. */
const constCode = (code: typeof CodeTag) => (cxt: KeywordCxt, own: CodeKeywordDefinition): void => {
  if (isScalar(cxt.schema)) return own.code(cxt)
  const test = cxt.gen.scopeValue("func", { ref: isEqualTo })
  cxt.fail(code`!${test}(${cxt.schemaCode}, ${cxt.data})`)
}

/**
 * `enum`, by {@link isOneOf}. Not ajv's own code even for scalars: that compares the value with each allowed one in
 * turn, on every call (some thirty times as slowly as a lookup for 1,000 values), and refuses to compile an empty
 * list, which the dialects allow and which accepts nothing.
 */
const enumCode = (code: typeof CodeTag) => (cxt: KeywordCxt): void => {
  const test = cxt.gen.scopeValue("func", { ref: isOneOf })
  cxt.fail(code`!${test}(${cxt.schemaCode}, ${cxt.data})`)
}

/** The canonical JSON text of each object or array `const`, made on its first use. */
const canonicalConsts = new WeakMap<object, string>()

/** Whether `value` is the JSON value `expected`, an object or an array, whatever the order of the keys of either. */
const isEqualTo = (expected: object, value: unknown): boolean => {
  let canonical = canonicalConsts.get(expected)
  if (canonical === undefined) {
    canonical = canonicalJson(expected)
    canonicalConsts.set(expected, canonical)
  }
  return !isScalar(value) && canonicalJson(value) === canonical
}

/** The test of each `enum` list, made on its first use. */
const enumTests = new WeakMap<ReadonlyArray<unknown>, (value: unknown) => boolean>()

/** Whether `value` is one of the JSON values `allowed`: scalars by value, objects and arrays by content. */
const isOneOf = (allowed: ReadonlyArray<unknown>, value: unknown): boolean => {
  let test = enumTests.get(allowed)
  if (test === undefined) {
    const scalars = new Set(allowed.filter(isScalar))
    const structures = new Set(allowed.filter((one) => !isScalar(one)).map(canonicalJson))
    test = (candidate) =>
      isScalar(candidate) ? scalars.has(candidate) : structures.size > 0 && structures.has(canonicalJson(candidate))
    enumTests.set(allowed, test)
  }
  return test(value)
}

const uniqueItemsValidate: SchemaValidateFunction = (schema: unknown, data: unknown): boolean => {
  if (schema !== true || !Array.isArray(data) || data.length < 2) return true
  const firstIndex = new Map<string, number>()
  for (let j = 0; j < data.length; j++) {
    const key = canonicalJson(data[j])
    const i = firstIndex.get(key)
    if (i !== undefined) {
      uniqueItemsValidate.errors = [{ keyword: "uniqueItems", params: { i, j } }]
      return false
    }
    firstIndex.set(key, j)
  }
  return true
}

const uniqueItemsKeyword: FuncKeywordDefinition = {
  keyword: "uniqueItems",
  type: "array",
  schemaType: "boolean",
  errors: true,
  validate: uniqueItemsValidate
}

/** JSON text in which equal values, objects with their keys in any order included, are equal strings. */
const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    typeof inner === "object" && inner !== null && !Array.isArray(inner)
      // `Object.fromEntries` defines own properties: a `__proto__` key stays a key.
      ? Object.fromEntries(Object.keys(inner).sort().map((key) => [key, (inner as Record<string, unknown>)[key]]))
      : inner)

// -------------------------------------------------------------------------------------------------------------
// checkSchema: what is refused when a tool is made
// -------------------------------------------------------------------------------------------------------------

const draft06 = "http://json-schema.org/draft-06/schema#"
const draft07 = "http://json-schema.org/draft-07/schema#"
const draft2019 = "https://json-schema.org/draft/2019-09/schema"
const draft2020 = "https://json-schema.org/draft/2020-12/schema"

/** Each dialect's meta-schema, by the URI ajv knows it by. */
const metaSchemas: Record<JsonSchemaDialect, string> = {
  "draft-06": draft06,
  "draft-07": draft07,
  "draft-2019-09": draft2019,
  "draft-2020-12": draft2020
}

/**
 * The `$schema` values a schema may name, with or without the empty fragment, and the dialect each means. The
 * drafts' own URIs are `http`, but generators and hand-written schemas also name them with `https`.
 */
const dialects = new Map<string, JsonSchemaDialect>(
  (
    [
      ["http://json-schema.org/draft-06/schema", "draft-06"],
      ["https://json-schema.org/draft-06/schema", "draft-06"],
      ["http://json-schema.org/draft-07/schema", "draft-07"],
      ["https://json-schema.org/draft-07/schema", "draft-07"],
      [draft2019, "draft-2019-09"],
      [draft2020, "draft-2020-12"]
    ] as const
  ).flatMap(([uri, dialect]) => [[uri, dialect], [`${uri}#`, dialect]])
)

/** A schema's dialect, or why it has none this module knows. */
const dialectOf = (schema: object): Result.Result<JsonSchemaDialect, string> => {
  const uri = (schema as { readonly $schema?: unknown }).$schema
  if (uri === undefined) return Result.succeed("draft-2020-12")
  const dialect = typeof uri === "string" ? dialects.get(uri) : undefined
  return dialect === undefined
    ? Result.fail(
      `its $schema ${typeof uri === "string" ? JSON.stringify(bounded(uri)) : `(a ${typeof uri})`} is not supported: ` +
        `name draft-06 (${draft06}), draft-07 (${draft07}), 2019-09 (${draft2019}) or 2020-12 (${draft2020}), ` +
        "or leave $schema out for 2020-12"
    )
    : Result.succeed(dialect)
}

/**
 * How deep a schema may nest, in objects and arrays. Real tool schemas nest a few dozen levels at most; the bound
 * keeps the meta-schema check and the compiler, which recurse, far from the end of the stack.
 */
const maxSchemaDepth = 256

/**
 * Checks, when a tool is made, that `schema` can be a tool's JSON Schema, and returns its dialect: a JSON object
 * (not an array, a boolean or a string), plain JSON without cycles, nested at most 256 levels, whose `$schema` is
 * draft-06, draft-07, 2019-09 or 2020-12 (or absent: 2020-12), valid against that meta-schema, whose references
 * are all local (`#…`) and never lead back to themselves through references alone, whose patterns compile (with
 * the `u` flag or without it), with no ajv-only `$async`, and no `__proto__` key among the properties it declares
 * (ajv would skip it).
 * `parameters` must also describe an object: a `type`, at the root or where a root `$ref` leads, that includes
 * `"object"`, or none.
 *
 * Nothing is compiled: a problem only the compiler finds (an unresolvable local `$ref`) fails the call instead.
 *
 * @throws TypeError naming the tool, the field and the problem.
 */
export const checkSchema = (schema: unknown, toolName: string, field: SchemaField = "parameters"): JsonSchemaDialect => {
  const refuse = (problem: string): never => {
    throw new TypeError(`tool \`${bounded(toolName)}\`: ${field} is not a usable JSON Schema: ${problem}`)
  }
  let isArray: boolean
  try {
    isArray = Array.isArray(schema)
  } catch (cause) {
    // A revoked proxy: even whether it is an array cannot be read.
    return refuse(`it cannot be read: ${describe(cause)}`)
  }
  if (typeof schema !== "object" || schema === null || isArray) {
    return refuse(`a tool's JSON Schema is a JSON object, not ${kindOf(schema)}`)
  }
  const notJson = jsonProblem(schema)
  if (notJson !== undefined) return refuse(notJson)
  const dialect = dialectOf(schema)
  if (Result.isFailure(dialect)) return refuse(dialect.failure)
  const checker = metaCheckerOf(dialect.success)
  let conforms: unknown
  try {
    // By the dialect's own meta-schema URI: ajv's `validateSchema` looks the `$schema` up as it is spelt, and knows
    // no `https` spelling of draft-06 or draft-07.
    conforms = checker.validate(metaSchemas[dialect.success], schema)
  } catch (cause) {
    return refuse(`it could not be checked against the ${dialect.success} meta-schema: ${describe(cause)}`)
  }
  if (conforms !== true) {
    const errors = (checker.errors ?? []).slice(0, 3)
      .map((error) => `${error.instancePath === "" ? "at the root" : `at ${error.instancePath}`} ${error.message}`)
    return refuse(`it is not valid against the ${dialect.success} meta-schema: ${errors.join("; ")}`)
  }
  if (field === "parameters") {
    const type = rootType(schema)
    if (type !== undefined) return refuse(type)
  }
  const structural = structuralProblem(schema, "", { root: schema, done: new Set(), acyclic: new Set() })
  if (structural !== undefined) return refuse(structural)
  return dialect.success
}

/** What a value that is not a JSON object is, in words. */
const kindOf = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`

const isPlainObject = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

const pointerSegment = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1")

const at = (pointer: string): string => pointer === "" ? "at the root" : `at ${bounded(pointer)}`

/**
 * Why `root` is not plain JSON, or `undefined`. A walk with its own stack, so that no nesting can exhaust the call
 * stack here; an object reached twice is walked once, and one reached again below itself is a cycle.
 */
const jsonProblem = (root: object): string | undefined => {
  interface Frame {
    readonly node: object
    readonly pointer: string
    readonly depth: number
    entered: boolean
  }
  const done = new Set<object>()
  const onPath = new Set<object>()
  const stack: Array<Frame> = [{ node: root, pointer: "", depth: 1, entered: false }]
  try {
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!
      if (frame.entered || done.has(frame.node)) {
        stack.pop()
        onPath.delete(frame.node)
        done.add(frame.node)
        continue
      }
      frame.entered = true
      if (frame.depth > maxSchemaDepth) return `it nests deeper than ${maxSchemaDepth} levels ${at(frame.pointer)}`
      onPath.add(frame.node)
      const entries: Array<[string, unknown]> = Array.isArray(frame.node)
        ? Array.from(frame.node, (value, index) => [String(index), value])
        : Object.entries(frame.node)
      for (const [key, value] of entries) {
        const pointer = `${frame.pointer}/${pointerSegment(key)}`
        switch (typeof value) {
          case "string":
          case "boolean":
            continue
          case "number":
            if (!Number.isFinite(value)) return `${value} is not a JSON number, ${at(pointer)}`
            continue
          case "object":
            if (value === null) continue
            if (onPath.has(value)) return `it refers back to itself ${at(pointer)}: JSON has no cycles`
            if (!Array.isArray(value) && !isPlainObject(value)) {
              return `${value.constructor?.name ?? "an object"} is not JSON, ${at(pointer)}`
            }
            if (!done.has(value)) stack.push({ node: value, pointer, depth: frame.depth + 1, entered: false })
            continue
          default:
            return `a ${typeof value} is not JSON, ${at(pointer)}`
        }
      }
    }
  } catch (cause) {
    // A getter or a proxy that throws: the schema cannot be read, so it cannot be checked.
    return `it cannot be read: ${cause instanceof Error ? cause.message : String(cause)}`
  }
  return undefined
}

/**
 * Why `parameters` does not describe an object, or `undefined`: its `type`, at the root or where a chain of local
 * `$ref` JSON pointers from the root leads, must include `"object"` when it is there.
 */
const rootType = (schema: object): string | undefined => {
  let node: unknown = schema
  const seen = new Set<unknown>()
  while (typeof node === "object" && node !== null && !seen.has(node)) {
    seen.add(node)
    const type = (node as { readonly type?: unknown }).type
    if (type !== undefined) {
      const types = Array.isArray(type) ? type : [type]
      return types.includes("object")
        ? undefined
        : `tool arguments are a JSON object, and this schema's type is ${JSON.stringify(type)}`
    }
    const ref = (node as { readonly $ref?: unknown }).$ref
    if (typeof ref !== "string" || !ref.startsWith("#/") && ref !== "#") return undefined
    node = resolvePointer(schema, ref.slice(1))
  }
  return undefined
}

/** Maps whose `__proto__` entry ajv skips: declaring one there would leave that property unchecked. */
const protoSkipping = new Set(["properties", "patternProperties", "dependencies"])

const referenceKeywords = ["$ref", "$dynamicRef", "$recursiveRef"] as const

/** Whether `source` compiles as a regular expression with `flags`. */
const compilesWith = (source: string, flags: "u" | ""): boolean => {
  try {
    new RegExp(source, flags)
    return true
  } catch {
    return false
  }
}

/**
 * Whether `source` is a regular expression: with the `u` flag, as ajv compiles patterns by default, or without it.
 * JSON Schema's regexes are ECMA-262 without saying which mode, and schemas from pydantic or written by hand escape
 * punctuation (`\-`, `\#`, `\_`) as only the mode without `u` allows. Its meta-schemas say a pattern is a `regex`,
 * but ajv checks no format while checking a schema against them.
 */
const isRegExp = (source: string): boolean => compilesWith(source, "u") || compilesWith(source, "")

/** What `structuralProblem` carries through its walk of one schema. */
interface Walk {
  readonly root: object
  /** The nodes walked, each once. */
  readonly done: Set<object>
  /** The nodes whose chain of references alone was followed to its end, which is no cycle. */
  readonly acyclic: Set<unknown>
}

/** Keywords that validate nothing: a schema with nothing else but a `$ref` is that reference alone. */
const nonValidating = new Set([
  "$ref",
  "$schema",
  "$comment",
  "$defs",
  "definitions",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly"
])

const isReferenceAlone = (node: unknown): node is { readonly $ref: string } =>
  typeof node === "object" && node !== null && !Array.isArray(node) && Object.hasOwn(node, "$ref") &&
  typeof (node as { readonly $ref: unknown }).$ref === "string" && Object.keys(node).every((key) => nonValidating.has(key))

/**
 * A cycle of references alone from `node` (at `pointer`) as a problem, or `undefined`. A schema that leads back to
 * itself without a keyword between that validates, or that descends into the value, recurses with no end: ajv's
 * compiler, which inlines references, exhausts the stack, on every call. A cycle through a value (`items: {$ref:
 * "#"}`) ends with the value, and is what a recursive type is.
 */
const referenceCycle = (node: { readonly $ref?: unknown }, pointer: string, walk: Walk): string | undefined => {
  const label = (at: string): string => at === "" ? "the root" : bounded(at)
  const chain = [label(pointer)]
  const onChain = new Map<unknown, number>([[node, 0]])
  let current: unknown = node
  while (isReferenceAlone(current) && !walk.acyclic.has(current)) {
    const target = current.$ref.slice(1)
    if (!current.$ref.startsWith("#") || target !== "" && !target.startsWith("/")) break
    current = resolvePointer(walk.root, target)
    chain.push(label(target))
    const first = onChain.get(current)
    if (first !== undefined) {
      return `$ref ${at(pointer)} leads to a cycle of references alone (${chain.slice(first).join(" → ")}), which ` +
        "validates nothing and never ends"
    }
    onChain.set(current, chain.length - 1)
  }
  for (const reached of onChain.keys()) walk.acyclic.add(reached)
  return undefined
}

/**
 * The first remote reference, cycle of references alone, ajv-only `$async`, pattern that is no regular expression, or
 * skipped `__proto__` declaration in a schema, as a problem, or `undefined`. Unknown keywords are walked as schemas: a local `$ref` may
 * point into one.
 */
const structuralProblem = (node: unknown, pointer: string, walk: Walk): string | undefined => {
  if (typeof node !== "object" || node === null || walk.done.has(node)) return undefined
  walk.done.add(node)
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const problem = structuralProblem(node[i], `${pointer}/${i}`, walk)
      if (problem !== undefined) return problem
    }
    return undefined
  }
  const schema = node as Record<string, unknown>
  for (const keyword of referenceKeywords) {
    const ref = schema[keyword]
    if (Object.hasOwn(schema, keyword) && typeof ref === "string" && !ref.startsWith("#")) {
      return `${keyword} ${JSON.stringify(bounded(ref))} ${at(pointer)} is not local: only references inside the ` +
        "schema (#…) are allowed, and none is ever fetched"
    }
  }
  const cycle = referenceCycle(schema, pointer, walk)
  if (cycle !== undefined) return cycle
  if (Object.hasOwn(schema, "$async") && schema.$async === true) {
    return `$async ${at(pointer)} is an ajv extension, not JSON Schema: tool schemas are validated synchronously`
  }
  for (const [keyword, value] of Object.entries(schema)) {
    if (dataKeywords.has(keyword)) continue
    const inner = `${pointer}/${pointerSegment(keyword)}`
    if (keyword === "pattern" && typeof value === "string" && !isRegExp(value)) {
      return `pattern ${JSON.stringify(bounded(value))} ${at(inner)} is not a valid regular expression`
    }
    if (schemaMaps.has(keyword) && typeof value === "object" && value !== null && !Array.isArray(value)) {
      if (protoSkipping.has(keyword) && Object.hasOwn(value, "__proto__")) {
        return `${keyword} ${at(pointer)} declares "__proto__", which the validator would not check`
      }
      for (const [name, sub] of Object.entries(value)) {
        if (keyword === "patternProperties" && !isRegExp(name)) {
          return `patternProperties ${at(pointer)} holds ${JSON.stringify(bounded(name))}, which is not a valid ` +
            "regular expression"
        }
        const problem = structuralProblem(sub, `${inner}/${pointerSegment(name)}`, walk)
        if (problem !== undefined) return problem
      }
      continue
    }
    const problem = structuralProblem(value, inner, walk)
    if (problem !== undefined) return problem
  }
  return undefined
}

// -------------------------------------------------------------------------------------------------------------
// validatorOf: compiled on first use, once per schema
// -------------------------------------------------------------------------------------------------------------

const valid: Result.Result<void, ValidationFailure> = Result.succeed(undefined)

/**
 * The context ajv's validators take as their second argument. Without one, each call builds an empty one, and a
 * 2019-09 or 2020-12 validator an empty map of dynamic anchors too: two objects per call. Every field left `undefined`
 * takes its default (`rootData` is the value); the map is shared, which is only right when no `$dynamicAnchor` or
 * `$recursiveAnchor` writes to it: the first schema to write its anchor there would be where every other schema's
 * `$dynamicRef` or `$recursiveRef` leads.
 */
interface ValidationContext {
  readonly instancePath: string
  readonly rootData: undefined
  readonly dynamicAnchors: Record<string, never>
}

const sharedContext: ValidationContext = { instancePath: "", rootData: undefined, dynamicAnchors: {} }

class CompiledValidator implements JsonSchemaValidator {
  readonly schema: object
  #compiled: ValidateFunction | undefined = undefined
  #context: ValidationContext | undefined = undefined
  #failure: Result.Result<void, ValidationFailure> | undefined = undefined

  constructor(schema: object) {
    this.schema = schema
  }

  readonly validate = (value: unknown): Result.Result<void, ValidationFailure> => {
    const compiled = this.#compiled ?? this.#compile()
    if (compiled === undefined) return this.#failure!
    let accepted: boolean
    try {
      accepted = compiled(value, this.#context as never)
    } catch (cause) {
      return Result.fail({ _tag: "ValidatorError", reason: `the JSON Schema validator threw: ${describe(cause)}`, cause })
    }
    return accepted ? valid : Result.fail(mismatch(compiled.errors ?? [], value))
  }

  #compile(): ValidateFunction | undefined {
    if (this.#failure !== undefined) return undefined
    const dialect = dialectOf(this.schema)
    if (Result.isFailure(dialect)) return this.#fail(`the JSON Schema cannot be compiled: ${dialect.failure}`, undefined)
    try {
      // An instance per schema: an `$id` in one tool's schema can never clash with, or resolve into, another's.
      // So the schema may be added to its own instance, as ajv does by default: without it, `$ref: "#"` (what zod 4
      // writes for a recursive type) has no root to resolve to. It was checked against its meta-schema when its tool
      // was made.
      const ajv = makeAjv(dialect.success, { allErrors: true, validateSchema: false })
      const compiled = ajv.compile(withUsableNullable(this.schema))
      if ((compiled as { readonly $async?: unknown }).$async === true) {
        return this.#fail("the JSON Schema is an ajv $async schema, which validates asynchronously", undefined)
      }
      // A schema with dynamic anchors, or 2019-09's recursive ones, records them in the context as it validates: it
      // gets a fresh one per call.
      this.#context = /"\$(?:dynamic|recursive)Anchor"/.test(JSON.stringify(this.schema)) ? undefined : sharedContext
      this.#compiled = compiled
      return compiled
    } catch (cause) {
      return this.#fail(`the JSON Schema cannot be compiled: ${describe(cause)}`, cause)
    }
  }

  #fail(reason: string, cause: unknown): undefined {
    this.#failure = Result.fail({ _tag: "ValidatorError", reason, cause })
    return undefined
  }
}

/**
 * `schema` without the `nullable`s ajv cannot compile. ajv reads OpenAPI's `nullable: true` beside a `type` as adding
 * `"null"` to it, and refuses any other `nullable` ("nullable" cannot be used without "type", and its like), such as
 * the one OpenAPI generators write beside `allOf: [{$ref}]`. No JSON Schema dialect defines `nullable`, so a validator
 * ignores it: these are left out, with a `nullable: false` beside a `type`, which means nothing to ajv either.
 * Schemas are read as {@link structuralProblem} reads them: data (`const`, `enum`, `default`, `examples`) and the
 * names of properties stay as they are, and so does a `nullable` that holds an object or an array, which a reference
 * may lead into. No node moves, so that every JSON pointer of the schema leads where it did; a schema without such a
 * `nullable` is itself, and new objects are made only on the way to one.
 */
const withUsableNullable = (schema: object): object => {
  const usable = (node: Record<string, unknown>): Record<string, unknown> => {
    const nullable = node.nullable
    if (!Object.hasOwn(node, "nullable") || !isScalar(nullable)) return node
    if (nullable === true && Object.hasOwn(node, "type")) return node
    // A rest copy defines its keys as own properties: a `__proto__` key stays a key.
    const { nullable: _, ...rest } = node
    return rest
  }
  return isRecord(schema) ? mapSchemasBelow(usable(schema), usable) : schema
}

const describe = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

const validators = new WeakMap<object, CompiledValidator>()

/**
 * The validator of a JSON Schema, the same for the same schema object: making one compiles nothing, its first
 * `validate` compiles the schema, and every later one reuses that. A schema that does not compile gives every
 * `validate` the same `ValidatorError`. The schema must not change after this is first called for it.
 */
export const validatorOf = (schema: object): JsonSchemaValidator => {
  let validator = validators.get(schema)
  if (validator === undefined) {
    validator = new CompiledValidator(schema)
    validators.set(schema, validator)
  }
  return validator
}

// -------------------------------------------------------------------------------------------------------------
// Mismatch lines
// -------------------------------------------------------------------------------------------------------------

/** How many lines a mismatch lists: enough for any real mistake, and a bound on what an object of 100k keys costs. */
const maxLines = 100

const mismatch = (errors: ReadonlyArray<ErrorObject>, value: unknown): Mismatch => {
  const distinct = new Set<string>()
  for (const error of errors) {
    // ajv follows each error its `propertyNames` schema found in a key with one that only says the key failed:
    // the first already ends its path in the key and says why.
    if (error.keyword !== "propertyNames") distinct.add(lineOf(error, value))
  }
  let lines = Array.from(distinct)
  if (lines.length > maxLines) {
    lines = [...lines.slice(0, maxLines), `- …: ${lines.length - maxLines} more not shown`]
  }
  return { _tag: "Mismatch", lines, message: lines.join("\n") }
}

/**
 * Keywords whose ajv message is built from the schema alone (its limits, formats, patterns, property names, and the
 * indexes of array items), never from the value. Any other keyword gets a message of its name only.
 */
const schemaOnlyMessages = new Set([
  "enum",
  "const",
  "format",
  "pattern",
  "maximum",
  "minimum",
  "exclusiveMaximum",
  "exclusiveMinimum",
  "multipleOf",
  "maxLength",
  "minLength",
  "maxItems",
  "minItems",
  "maxProperties",
  "minProperties",
  "contains",
  "items",
  "additionalItems",
  "unevaluatedItems",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "dependencies",
  "dependentRequired",
  "formatMaximum",
  "formatMinimum",
  "formatExclusiveMaximum",
  "formatExclusiveMinimum"
])

/**
 * One error as a line. The path comes from the error's JSON pointer, read against the value so that an array index
 * reads `[3]` and an object key `"3"` reads `["3"]`. A key named by the error (missing, not allowed, or a name that
 * breaks `propertyNames`) ends the path, and the message says what is wrong with it.
 */
const lineOf = (error: ErrorObject, value: unknown): string => {
  const path = segmentsOf(error.instancePath, value)
  const params = error.params as Record<string, unknown>
  let message: string
  switch (error.keyword) {
    case "required":
      path.push(String(params.missingProperty))
      message = "is required"
      break
    case "additionalProperties":
      path.push(String(params.additionalProperty))
      message = "is not allowed"
      break
    case "unevaluatedProperties":
      path.push(String(params.unevaluatedProperty))
      message = "is not allowed"
      break
    default:
      if (typeof error.propertyName === "string") {
        // An error about a key itself, found by the `propertyNames` schema: the key ends the path.
        path.push(error.propertyName)
        message = `the name ${messageOf(error)}`
      } else {
        message = messageOf(error)
      }
  }
  return `- ${formatPath(path)}: ${message}`
}

const messageOf = (error: ErrorObject): string => {
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case "type":
      return `must be ${(Array.isArray(params.type) ? params.type : [params.type]).join(" or ")}`
    case "false schema":
      return "is not allowed"
    case "uniqueItems":
      return `must NOT have duplicate items (items ${params.i} and ${params.j} are identical)`
    default:
      return schemaOnlyMessages.has(error.keyword) && error.message !== undefined
        ? error.message
        : `must be valid against "${error.keyword}"`
  }
}

/** The keys and indexes of a JSON pointer into `value`: indexes where the value holds an array there. */
const segmentsOf = (pointer: string, value: unknown): Array<string | number> => {
  const segments: Array<string | number> = []
  if (pointer === "") return segments
  let node = value
  const raw = pointer.split("/")
  for (let i = 1; i < raw.length; i++) {
    const key = raw[i]!.replace(/~1/g, "/").replace(/~0/g, "~")
    if (Array.isArray(node)) {
      const index = Number(key)
      segments.push(index)
      node = node[index]
    } else {
      segments.push(key)
      node = typeof node === "object" && node !== null && Object.hasOwn(node, key)
        ? (node as Record<string, unknown>)[key]
        : undefined
    }
  }
  return segments
}

