/**
 * Values a JSON Schema accepts, built rather than guessed: a tool's JSON Schema (draft-06, draft-07, 2019-09 or
 * 2020-12) becomes an Effect `Arbitrary` of JSON values.
 *
 * Keywords fall into three groups.
 * - Built: `type` (nullable types included), `enum`, `const`, `properties`, `required`, `additionalProperties`,
 *   `patternProperties` (values of declared keys it governs, and keys made from each pattern a string can be built
 *   for), `dependentRequired` and array `dependencies`, `minProperties`, `maxProperties`, `items` (a schema, or a
 *   draft-07 tuple with `additionalItems`), `prefixItems`, `minItems`, `maxItems`, `uniqueItems` (repeats are
 *   dropped, which may leave too few items for the validator), `contains`, `minLength` and `maxLength` (in code
 *   points), `pattern`, `format` (every format the validator checks), `minimum`, `maximum`, `exclusiveMinimum`,
 *   `exclusiveMaximum`, `multipleOf`, `allOf`, `anyOf`, `oneOf`, `if`/`then`/`else`, and local `$ref`s (JSON pointers
 *   such as `#/$defs/x`, `#/definitions/x`, `#/properties/a`, `#`, and plain-name anchors).
 * - Left to the validator: `not`, `propertyNames`, `dependentSchemas`, `unevaluatedProperties`, `unevaluatedItems`,
 *   and the exact-one rule of `oneOf`. Values are built without them, and the caller filters every value through the
 *   tool's own validator, which discards those these keywords refuse.
 * - Refused, with the reason and where: references that leave the schema or are dynamic (`$dynamicRef`,
 *   `$recursiveRef`), and patterns with lookarounds, word boundaries, backreferences, Unicode property escapes or
 *   inline modifiers, which no string can be built for. Such a pattern in `patternProperties` is not refused: it
 *   makes no keys, and still governs the keys that match it.
 *
 * Recursive schemas are unrolled a few references deep: past that, optional parts are left out and arrays are empty;
 * a recursion with no way out is a schema that admits no value.
 */
import { Arbitrary, Schema, type SchemaAST } from "effect"
import { isRecord } from "../../internal/jsonSchema.ts"
import { formatPattern, numericFormat } from "./formats.ts"

type Json = Schema.Json

type JsonType = "null" | "boolean" | "integer" | "number" | "string" | "array" | "object"

const jsonTypes: ReadonlySet<string> = new Set(["null", "boolean", "integer", "number", "string", "array", "object"])

/** The schema uses something no value can be built for. `pointer` says where, as a JSON pointer into it. */
export class UnsupportedSchema extends Error {
  readonly pointer: string
  constructor(reason: string, pointer: string) {
    super(`${reason} (at ${pointer === "" ? "the root" : pointer})`)
    this.pointer = pointer
  }
}

/** A part of the schema admits no value that can be built: `false`, bounds excluding each other, endless recursion. */
export class NoValue extends Error {
  readonly pointer: string
  constructor(reason: string, pointer: string) {
    super(`${reason} (at ${pointer === "" ? "the root" : pointer})`)
    this.pointer = pointer
  }
}

/** A schema where it was found: `trail` lists the targets of the references followed to reach it. */
interface Located {
  readonly schema: unknown
  readonly pointer: string
  readonly trail: ReadonlyArray<string>
}

/** How many times one reference may be followed on the way to a value: how far a recursive schema is unrolled. */
const maxRecursion = 3

/** How many ways of choosing among `anyOf`, `oneOf` and `if` branches are built for one schema. */
const maxVariants = 24

/** How many more items than the least an open array gets, and how many undeclared keys an open object. */
const extraItems = 4
const extraKeys = 2

// -------------------------------------------------------------------------------------------------------------
// Arbitrary helpers
// -------------------------------------------------------------------------------------------------------------

const indexBelow = (n: number): Arbitrary.Arbitrary<number> =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: n - 1 })))

/** One of the values, the first preferred when shrinking. */
export const pick = <A>(options: ReadonlyArray<A>): Arbitrary.Arbitrary<A> =>
  options.length === 1 ? Arbitrary.Constant(options[0]!) : Arbitrary.map(indexBelow(options.length), (i) => options[i]!)

/** A value of one of the arbitraries, the first preferred when shrinking. */
export const oneOf = <A>(arbitraries: ReadonlyArray<Arbitrary.Arbitrary<A>>): Arbitrary.Arbitrary<A> =>
  arbitraries.length === 1
    ? arbitraries[0]!
    : Arbitrary.flatMap(indexBelow(arbitraries.length), (i) => arbitraries[i]!)

const anyJson: Arbitrary.Arbitrary<Json> = Arbitrary.schema(Schema.Json)

/** Values for the keys an open object gets beside those it declares: what matters there is the key. */
const scalarJson: Arbitrary.Arbitrary<Json> = Arbitrary.schema(
  Schema.Union([Schema.Null, Schema.Boolean, Schema.Finite, Schema.String])
).pipe(Arbitrary.map((value): Json => typeof value === "number" ? value + 0 : value))

// -------------------------------------------------------------------------------------------------------------
// JSON helpers
// -------------------------------------------------------------------------------------------------------------


/** Canonical JSON text: equal for values JSON Schema calls equal (key order aside, `1` and `1.0` alike). */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (isRecord(value)) {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

const typeOfJson = (value: unknown): JsonType =>
  value === null
    ? "null"
    : Array.isArray(value)
    ? "array"
    : typeof value === "number"
    ? (Number.isInteger(value) ? "integer" : "number")
    : typeof value as JsonType

const escapePointer = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1")

const unescapePointer = (segment: string): string => decodeURIComponent(segment).replace(/~1/g, "/").replace(/~0/g, "~")

/** A pattern as the validator compiles it: with the `u` flag when it compiles with it, without it otherwise. */
const patternRegExp = (source: string): RegExp => {
  try {
    return new RegExp(source, "u")
  } catch {
    return new RegExp(source)
  }
}

/**
 * What in a pattern no string can be built for: Effect's generator follows characters, classes, groups, alternation
 * and quantifiers, and would only guess at the rest.
 */
const unbuildablePatternFeature = (source: string): string | undefined => {
  let inClass = false
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === "\\") {
      const next = source[i + 1] ?? ""
      if (!inClass && (next === "b" || next === "B")) return "a word boundary"
      if (next === "p" || next === "P") return "a Unicode property escape"
      if (next === "k" || (!inClass && next >= "1" && next <= "9")) return "a backreference"
      i++
    } else if (inClass) {
      if (c === "]") inClass = false
    } else if (c === "[") inClass = true
    else if (c === "(" && source[i + 1] === "?") {
      const kind = source.slice(i + 2, i + 4)
      if (kind.startsWith("=") || kind.startsWith("!") || kind === "<=" || kind === "<!") return "a lookaround"
      if (!kind.startsWith(":") && !kind.startsWith("<")) return "an inline modifier"
    }
  }
  return undefined
}

/** The schema a reference leads to, unless that reference was already followed as often as recursion is unrolled. */
const follow = (schema: unknown, pointer: string, at: Located): Located => {
  if (at.trail.filter((target) => target === pointer).length >= maxRecursion) {
    throw new NoValue(`the schema recurses deeper than the generator unrolls (${maxRecursion} times)`, at.pointer)
  }
  return { schema, pointer, trail: [...at.trail, pointer] }
}

// -------------------------------------------------------------------------------------------------------------
// Shapes: every constraint on a value, gathered from the schemas it must match
// -------------------------------------------------------------------------------------------------------------

/** What one schema of an array says about items: the tuple part, and the schema for the rest. */
interface ArrayPart {
  readonly prefix: ReadonlyArray<Located>
  readonly rest: Located
}

/** A property an object may or must have, and the generator of its value. */
interface Field {
  readonly name: string
  readonly required: boolean
  readonly value: Arbitrary.Arbitrary<Json>
}

/** What one schema of an object says about keys it does not name. */
interface ObjectPart {
  readonly declared: ReadonlySet<string>
  readonly patterns: ReadonlyArray<RegExp>
  readonly additional: Located | undefined
}

/** A key made from a `patternProperties` pattern and its value, or `undefined` for one that cannot be used. */
type PatternEntry = readonly [string, Json] | undefined

/** A choice among branches: `anyOf`, `oneOf`, or `if` with `then` and `else`. */
interface Group {
  readonly key: string
  readonly branches: ReadonlyArray<Located>
}

interface Shape {
  pointer: string
  types: Set<JsonType> | undefined
  values: Array<Json> | undefined
  minimum: number
  exclusiveMinimum: boolean
  maximum: number
  exclusiveMaximum: boolean
  multipleOf: Array<number>
  minLength: number
  maxLength: number
  patterns: Array<string>
  formats: Array<string>
  minItems: number
  maxItems: number
  uniqueItems: boolean
  arrays: Array<ArrayPart>
  contains: Array<Located>
  properties: Map<string, Array<Located>>
  required: Set<string>
  objects: Array<ObjectPart>
  patternProperties: Array<{ readonly source: string; readonly regex: RegExp; readonly schema: Located }>
  dependentRequired: Array<readonly [string, ReadonlyArray<string>]>
  minProperties: number
  maxProperties: number
  groups: Array<Group>
  hints: Set<JsonType>
}

const emptyShape = (pointer: string): Shape => ({
  pointer,
  types: undefined,
  values: undefined,
  minimum: -Infinity,
  exclusiveMinimum: false,
  maximum: Infinity,
  exclusiveMaximum: false,
  multipleOf: [],
  minLength: 0,
  maxLength: Infinity,
  patterns: [],
  formats: [],
  minItems: 0,
  maxItems: Infinity,
  uniqueItems: false,
  arrays: [],
  contains: [],
  properties: new Map(),
  required: new Set(),
  objects: [],
  patternProperties: [],
  dependentRequired: [],
  minProperties: 0,
  maxProperties: Infinity,
  groups: [],
  hints: new Set()
})

/** The types both sets allow: `number` and `integer` together allow `integer`. */
const intersectTypes = (a: ReadonlySet<JsonType>, b: ReadonlySet<JsonType>): Set<JsonType> => {
  const out = new Set<JsonType>()
  for (const type of a) {
    if (b.has(type)) out.add(type)
    else if ((type === "number" && b.has("integer")) || (type === "integer" && b.has("number"))) out.add("integer")
  }
  return out
}

const numberOf = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined

const objectKeywords = [
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "minProperties",
  "maxProperties",
  "dependentRequired"
]
const arrayKeywords = ["items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains"]
const stringKeywords = ["minLength", "maxLength", "pattern"]
const numberKeywords = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]

/** Builds the generator of one schema: the root schema of a tool, or any schema inside it. */
export class Compiler {
  readonly #root: unknown
  readonly #memo = new Map<string, Arbitrary.Arbitrary<Json> | NoValue>()

  constructor(root: unknown) {
    this.#root = root
  }

  /** The arguments of a tool: objects the root schema accepts. */
  root(): Arbitrary.Arbitrary<Json> {
    return this.#variants([{ schema: this.#root, pointer: "", trail: [] }], new Set(), true)
  }

  /** Values of any type the root schema accepts: for schemas that describe more than arguments (an output). */
  value(): Arbitrary.Arbitrary<Json> {
    return this.#variants([{ schema: this.#root, pointer: "", trail: [] }], new Set(), false)
  }

  // -------------------------------------------------------------------------------------------------------------
  // References
  // -------------------------------------------------------------------------------------------------------------

  #resolve(ref: string, at: Located): Located {
    if (!ref.startsWith("#")) {
      throw new UnsupportedSchema(`a $ref to another document (${ref}) is never followed`, at.pointer)
    }
    const fragment = ref.slice(1)
    if (fragment === "" || fragment.startsWith("/")) {
      let node: unknown = this.#root
      const segments = fragment === "" ? [] : fragment.slice(1).split("/").map(unescapePointer)
      for (const segment of segments) {
        node = typeof node === "object" && node !== null && Object.hasOwn(node, segment)
          ? (node as Record<string, unknown>)[segment]
          : undefined
      }
      if (node === undefined) throw new UnsupportedSchema(`the $ref ${ref} leads nowhere`, at.pointer)
      return follow(node, fragment, at)
    }
    const found = this.#anchor(decodeURIComponent(fragment))
    if (found === undefined) throw new UnsupportedSchema(`the $ref ${ref} names no anchor of the schema`, at.pointer)
    return follow(found.schema, found.pointer, at)
  }

  /** The subschema with this plain-name anchor: `$anchor` (2019-09 on) or an `$id` of `#name` (draft-07). */
  #anchor(name: string): { readonly schema: unknown; readonly pointer: string } | undefined {
    const stack: Array<{ readonly node: unknown; readonly pointer: string }> = [{ node: this.#root, pointer: "" }]
    while (stack.length > 0) {
      const { node, pointer } = stack.pop()!
      if (typeof node !== "object" || node === null) continue
      if (isRecord(node) && (node["$anchor"] === name || node["$id"] === `#${name}`)) return { schema: node, pointer }
      for (const [key, child] of Object.entries(node)) {
        // Values of these keywords are data, not schemas: an anchor spelled inside one anchors nothing.
        if (key === "enum" || key === "const" || key === "default" || key === "examples") continue
        stack.push({ node: child, pointer: `${pointer}/${escapePointer(key)}` })
      }
    }
    return undefined
  }

  // -------------------------------------------------------------------------------------------------------------
  // Gathering
  // -------------------------------------------------------------------------------------------------------------

  /** Every constraint of the schemas a value must match; the groups in `chosen` are already decided. */
  #gather(list: ReadonlyArray<Located>, chosen: ReadonlySet<string>): Shape {
    const shape = emptyShape(list[0]?.pointer ?? "")
    const queue = [...list]
    while (queue.length > 0) {
      const at = queue.shift()!
      const s = at.schema
      if (s === true) continue
      if (s === false) throw new NoValue("the schema `false` admits no value", at.pointer)
      if (!isRecord(s)) continue
      const p = at.pointer
      const child = (suffix: string, schema: unknown): Located => ({
        schema,
        pointer: `${p}/${suffix}`,
        trail: at.trail
      })
      const occurrence = `@${at.trail.join(",")}`
      if (typeof s.$ref === "string") queue.push(this.#resolve(s.$ref, at))
      for (const keyword of ["$dynamicRef", "$recursiveRef"]) {
        if (keyword in s) throw new UnsupportedSchema(`${keyword} is not followed`, p)
      }
      if (Array.isArray(s.allOf)) s.allOf.forEach((branch, i) => queue.push(child(`allOf/${i}`, branch)))
      for (const keyword of ["anyOf", "oneOf"] as const) {
        const branches = s[keyword]
        const key = `${p}/${keyword}${occurrence}`
        if (Array.isArray(branches) && !chosen.has(key)) {
          shape.groups.push({ key, branches: branches.map((branch, i) => child(`${keyword}/${i}`, branch)) })
        }
      }
      if ("if" in s && ("then" in s || "else" in s) && !chosen.has(`${p}/if${occurrence}`)) {
        // Built as (if and then) or else: a value of `else` that happens to match `if` is left to the validator.
        shape.groups.push({
          key: `${p}/if${occurrence}`,
          branches: [
            { schema: { allOf: [s.if, s.then ?? true] }, pointer: `${p}/if+then`, trail: at.trail },
            child("else", s.else ?? true)
          ]
        })
      }
      this.#gatherValues(shape, s)
      this.#gatherArrays(shape, s, child)
      this.#gatherObjects(shape, s, child, p)
      if (typeof s.format === "string") {
        if (formatPattern(s.format) !== undefined) shape.hints.add("string")
        if (numericFormat(s.format) !== undefined) shape.hints.add("number")
      }
      for (const [keywords, type] of [
        [objectKeywords, "object"],
        [arrayKeywords, "array"],
        [stringKeywords, "string"],
        [numberKeywords, "number"]
      ] as const) {
        if (keywords.some((keyword) => keyword in s)) shape.hints.add(type)
      }
    }
    return shape
  }

  #gatherValues(shape: Shape, s: Record<string, unknown>): void {
    if (s.type !== undefined) {
      const named = new Set((Array.isArray(s.type) ? s.type : [s.type]).filter((t): t is JsonType => jsonTypes.has(t)))
      shape.types = shape.types === undefined ? named : intersectTypes(shape.types, named)
    }
    const values = "const" in s ? [s.const as Json] : Array.isArray(s.enum) ? s.enum as Array<Json> : undefined
    if (values !== undefined) {
      if (shape.values === undefined) shape.values = values
      else {
        const allowed = new Set(values.map(canonical))
        shape.values = shape.values.filter((value) => allowed.has(canonical(value)))
      }
    }
    const minimum = numberOf(s.minimum)
    if (minimum !== undefined && minimum >= shape.minimum) {
      shape.exclusiveMinimum = minimum === shape.minimum && shape.exclusiveMinimum
      shape.minimum = minimum
    }
    const exclusiveMinimum = numberOf(s.exclusiveMinimum)
    if (exclusiveMinimum !== undefined && exclusiveMinimum >= shape.minimum) {
      shape.minimum = exclusiveMinimum
      shape.exclusiveMinimum = true
    }
    const maximum = numberOf(s.maximum)
    if (maximum !== undefined && maximum <= shape.maximum) {
      shape.exclusiveMaximum = maximum === shape.maximum && shape.exclusiveMaximum
      shape.maximum = maximum
    }
    const exclusiveMaximum = numberOf(s.exclusiveMaximum)
    if (exclusiveMaximum !== undefined && exclusiveMaximum <= shape.maximum) {
      shape.maximum = exclusiveMaximum
      shape.exclusiveMaximum = true
    }
    const multipleOf = numberOf(s.multipleOf)
    if (multipleOf !== undefined && multipleOf > 0) shape.multipleOf.push(multipleOf)
    shape.minLength = Math.max(shape.minLength, numberOf(s.minLength) ?? 0)
    shape.maxLength = Math.min(shape.maxLength, numberOf(s.maxLength) ?? Infinity)
    if (typeof s.pattern === "string") shape.patterns.push(s.pattern)
    if (typeof s.format === "string") shape.formats.push(s.format)
  }

  #gatherArrays(shape: Shape, s: Record<string, unknown>, child: (suffix: string, schema: unknown) => Located): void {
    if (Array.isArray(s.items)) {
      // draft-07 and 2019-09: a tuple, then `additionalItems`.
      shape.arrays.push({
        prefix: s.items.map((item, i) => child(`items/${i}`, item)),
        rest: child("additionalItems", s.additionalItems ?? true)
      })
    } else if (Array.isArray(s.prefixItems)) {
      shape.arrays.push({
        prefix: s.prefixItems.map((item, i) => child(`prefixItems/${i}`, item)),
        rest: child("items", s.items ?? true)
      })
    } else if ("items" in s) {
      shape.arrays.push({ prefix: [], rest: child("items", s.items) })
    }
    shape.minItems = Math.max(shape.minItems, numberOf(s.minItems) ?? 0)
    shape.maxItems = Math.min(shape.maxItems, numberOf(s.maxItems) ?? Infinity)
    if (s.uniqueItems === true) shape.uniqueItems = true
    if ("contains" in s && numberOf(s.minContains) !== 0) shape.contains.push(child("contains", s.contains))
  }

  #gatherObjects(
    shape: Shape,
    s: Record<string, unknown>,
    child: (suffix: string, schema: unknown) => Located,
    pointer: string
  ): void {
    const declared = new Set<string>()
    if (isRecord(s.properties)) {
      for (const [name, schema] of Object.entries(s.properties)) {
        declared.add(name)
        const list = shape.properties.get(name) ?? []
        list.push(child(`properties/${escapePointer(name)}`, schema))
        shape.properties.set(name, list)
      }
    }
    const patterns: Array<RegExp> = []
    if (isRecord(s.patternProperties)) {
      for (const [source, schema] of Object.entries(s.patternProperties)) {
        let regex: RegExp
        try {
          regex = patternRegExp(source)
        } catch {
          throw new UnsupportedSchema(
            `the patternProperties key ${JSON.stringify(source)} is no regular expression`,
            pointer
          )
        }
        patterns.push(regex)
        shape.patternProperties.push({
          source,
          regex,
          schema: child(`patternProperties/${escapePointer(source)}`, schema)
        })
      }
    }
    if (Array.isArray(s.required)) for (const name of s.required) if (typeof name === "string") shape.required.add(name)
    const dependencies = isRecord(s.dependentRequired)
      ? s.dependentRequired
      : isRecord(s.dependencies)
      ? s.dependencies
      : {}
    for (const [name, needed] of Object.entries(dependencies)) {
      // The schema form of `dependencies` is left to the validator.
      if (Array.isArray(needed)) shape.dependentRequired.push([name, needed.filter((n) => typeof n === "string")])
    }
    shape.minProperties = Math.max(shape.minProperties, numberOf(s.minProperties) ?? 0)
    shape.maxProperties = Math.min(shape.maxProperties, numberOf(s.maxProperties) ?? Infinity)
    if (declared.size > 0 || patterns.length > 0 || "additionalProperties" in s) {
      shape.objects.push({
        declared,
        patterns,
        additional: "additionalProperties" in s ? child("additionalProperties", s.additionalProperties) : undefined
      })
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // Building
  // -------------------------------------------------------------------------------------------------------------

  /** The generator of a value that matches every schema of the list. */
  #all(list: ReadonlyArray<Located>): Arbitrary.Arbitrary<Json> {
    // A schema reached the same way (same place, through the same references) builds the same generator.
    const key = list.length === 1 ? `${list[0]!.pointer}@${list[0]!.trail.join(",")}` : undefined
    const known = key === undefined ? undefined : this.#memo.get(key)
    if (known instanceof NoValue) throw known
    if (known !== undefined) return known
    try {
      const built = this.#variants(list, new Set(), false)
      if (key !== undefined) this.#memo.set(key, built)
      return built
    } catch (error) {
      if (error instanceof NoValue && key !== undefined) this.#memo.set(key, error)
      throw error
    }
  }

  /**
   * One generator per way of choosing a branch of each group (up to {@link maxVariants}), joined: branches that
   * admit no value are left out, and a list whose every choice admits none admits none.
   */
  #variants(list: ReadonlyArray<Located>, chosen: ReadonlySet<string>, root: boolean): Arbitrary.Arbitrary<Json> {
    const built: Array<Arbitrary.Arbitrary<Json>> = []
    let lastFailure: NoValue | undefined
    const visit = (current: ReadonlyArray<Located>, decided: ReadonlySet<string>): void => {
      if (built.length >= maxVariants) return
      let shape: Shape
      try {
        shape = this.#gather(current, decided)
      } catch (error) {
        if (error instanceof NoValue) {
          lastFailure = error
          return
        }
        throw error
      }
      const group = shape.groups[0]
      if (group === undefined) {
        try {
          built.push(this.#shape(shape, root))
        } catch (error) {
          if (!(error instanceof NoValue)) throw error
          lastFailure = error
        }
        return
      }
      const next = new Set(decided).add(group.key)
      for (const branch of group.branches) visit([...current, branch], next)
    }
    visit(list, chosen)
    if (built.length === 0) throw lastFailure ?? new NoValue("no branch admits a value", list[0]?.pointer ?? "")
    return oneOf(built)
  }

  #shape(shape: Shape, root: boolean): Arbitrary.Arbitrary<Json> {
    let types: Set<JsonType> | undefined = shape.types
    if (shape.values !== undefined) {
      const values = shape.values.filter((value) => admits(shape, value) && (!root || typeOfJson(value) === "object"))
      if (values.length === 0) throw new NoValue("no value of its `enum` or `const` matches the rest", shape.pointer)
      return pick(values)
    }
    if (types === undefined && shape.hints.size > 0) types = new Set(shape.hints)
    if (root) types = new Set([...(types ?? ["object" as const])].filter((t) => t === "object"))
    if (types === undefined) return anyJson
    const built: Array<Arbitrary.Arbitrary<Json>> = []
    let lastFailure: NoValue | undefined
    for (const type of types) {
      if (type === "integer" && types.has("number")) continue
      try {
        built.push(this.#type(type, shape))
      } catch (error) {
        if (!(error instanceof NoValue)) throw error
        lastFailure = error
      }
    }
    if (built.length === 0) {
      const reason = root ? "the arguments must be an object, which it does not admit" : "no type admits a value"
      throw lastFailure ?? new NoValue(reason, shape.pointer)
    }
    return oneOf(built)
  }

  #type(type: JsonType, shape: Shape): Arbitrary.Arbitrary<Json> {
    switch (type) {
      case "null":
        return Arbitrary.Constant(null)
      case "boolean":
        return Arbitrary.schema(Schema.Boolean)
      case "integer":
      case "number":
        return numbers(shape, type === "integer")
      case "string":
        return strings(shape)
      case "array":
        return this.#array(shape)
      case "object":
        return this.#object(shape)
    }
  }

  #array(shape: Shape): Arbitrary.Arbitrary<Json> {
    const parts = shape.arrays.length === 0
      ? [{ prefix: [], rest: { schema: true, pointer: `${shape.pointer}/items`, trail: [] } }]
      : shape.arrays
    const prefixLength = Math.max(...parts.map((part) => part.prefix.length))
    const head: Array<Arbitrary.Arbitrary<Json>> = []
    let closedAt = Infinity
    for (let i = 0; i < prefixLength && i < shape.maxItems; i++) {
      try {
        head.push(this.#all(parts.map((part) => part.prefix[i] ?? part.rest)))
      } catch (error) {
        if (!(error instanceof NoValue)) throw error
        // No item can stand here, so the array ends before it.
        closedAt = i
        break
      }
    }
    let rest: Arbitrary.Arbitrary<Json> | undefined
    if (closedAt === Infinity) {
      try {
        rest = this.#all(parts.map((part) => part.rest))
      } catch (error) {
        if (!(error instanceof NoValue)) throw error
      }
    }
    const longest = Math.min(shape.maxItems, rest === undefined ? head.length : Infinity)
    if (shape.minItems > longest) {
      throw new NoValue(`no array of at least ${shape.minItems} items is admitted`, shape.pointer)
    }
    let contained: Arbitrary.Arbitrary<Json> | undefined
    if (shape.contains.length > 0 && rest !== undefined && head.length < shape.maxItems) {
      try {
        contained = this.#all([...shape.contains, ...parts.map((part) => part.rest)])
      } catch (error) {
        if (!(error instanceof NoValue)) throw error
      }
    }
    const room = Math.min(shape.maxItems, head.length + Math.max(0, shape.minItems - head.length) + extraItems)
    const tailMin = Math.max(0, shape.minItems - head.length - (contained === undefined ? 0 : 1))
    const tailMax = rest === undefined ? 0 : Math.max(tailMin, room - head.length - (contained === undefined ? 0 : 1))
    // With `uniqueItems`, twice as many are made as are needed, so that enough are left once repeats are dropped.
    const tail = rest === undefined || tailMax === 0
      ? Arbitrary.Constant<Array<Json>>([])
      : Arbitrary.array(rest, shape.uniqueItems
        ? { minLength: tailMin * 2, maxLength: Math.max(tailMin * 2, tailMax) }
        : { minLength: tailMin, maxLength: tailMax })
    const extra = contained === undefined
      ? Arbitrary.Constant<Array<Json>>([])
      : Arbitrary.map(contained, (item) => [item])
    return Arbitrary.map(Arbitrary.all([Arbitrary.all(head), tail, extra]), ([items, more, last]): Json => {
      const all = [...items, ...more, ...last]
      if (!shape.uniqueItems) return all
      const seen = new Set<string>()
      // Repeats dropped, then what is over `maxItems`; an array left shorter than `minItems` is discarded by the
      // validator.
      const distinct = all.filter((item) => {
        const text = canonical(item)
        if (seen.has(text)) return false
        seen.add(text)
        return true
      })
      return distinct.length > shape.maxItems ? distinct.slice(0, shape.maxItems) : distinct
    })
  }

  #object(shape: Shape): Arbitrary.Arbitrary<Json> {
    const names = [...new Set([...shape.properties.keys(), ...shape.required])]
    const named: ReadonlySet<string> = new Set(names)
    const fields: Array<Field> = []
    for (const name of names) {
      const list = [...(shape.properties.get(name) ?? [])]
      for (const { regex, schema } of shape.patternProperties) if (regex.test(name)) list.push(schema)
      for (const part of shape.objects) {
        const governed = part.declared.has(name) || part.patterns.some((regex) => regex.test(name))
        if (!governed && part.additional !== undefined) list.push(part.additional)
      }
      const required = shape.required.has(name)
      try {
        fields.push({ name, required, value: list.length === 0 ? anyJson : this.#all(list) })
      } catch (error) {
        if (!(error instanceof NoValue) || required) throw error
        // An optional property no value can be built for is left out.
      }
    }
    // How many undeclared keys it takes to reach `minProperties` when every declared one is present.
    const needed = Math.max(0, Math.min(shape.minProperties, shape.maxProperties) - fields.length)
    const room = shape.maxProperties > shape.required.size
    const byPattern = room ? this.#patternEntry(shape, named) : undefined
    const patterned: Arbitrary.Arbitrary<ReadonlyArray<PatternEntry>> = byPattern === undefined
      ? Arbitrary.Constant([])
      : Arbitrary.array(byPattern, { minLength: needed, maxLength: needed + extraKeys })
    let extras: Arbitrary.Arbitrary<ReadonlyArray<readonly [string, Json]>> = Arbitrary.Constant([])
    const additional = shape.objects.flatMap((part) => part.additional === undefined ? [] : [part.additional])
    if (room) {
      try {
        const value = additional.length === 0 ? scalarJson : this.#all(additional)
        // Keys made from patterns reach `minProperties` when there are any; random ones otherwise.
        const least = byPattern === undefined ? needed : 0
        extras = Arbitrary.array(Arbitrary.all([Arbitrary.schema(Schema.String), value]), {
          minLength: least,
          maxLength: least + extraKeys
        })
      } catch (error) {
        if (!(error instanceof NoValue)) throw error
      }
    }
    const isDeclared = (key: string): boolean =>
      named.has(key) || shape.patternProperties.some(({ regex }) => regex.test(key))
    const present = Arbitrary.all(fields.map((field) =>
      field.required
        ? Arbitrary.map(field.value, (value) => ({ present: true, value }))
        : Arbitrary.map(
          Arbitrary.all([Arbitrary.schema(Schema.Boolean), field.value]),
          ([present, value]) => ({ present, value })
        )
    ))
    return Arbitrary.map(Arbitrary.all([present, patterned, extras]), ([chosen, fromPatterns, more]): Json => {
      const values = new Map<string, Json>()
      const wanted = new Set<string>()
      fields.forEach((field, i) => {
        values.set(field.name, chosen[i]!.value)
        if (chosen[i]!.present) wanted.add(field.name)
      })
      // Optional keys beyond `maxProperties` are dropped.
      for (const field of fields) {
        if (wanted.size <= shape.maxProperties) break
        if (!field.required) wanted.delete(field.name)
      }
      // Keys it does not declare: those made from its patterns first, then those an open object takes.
      const undeclared = new Map<string, Json>()
      for (const entry of fromPatterns) {
        if (entry !== undefined && !undeclared.has(entry[0])) undeclared.set(entry[0], entry[1])
      }
      for (const [key, value] of more) if (!isDeclared(key) && !undeclared.has(key)) undeclared.set(key, value)
      // Too few keys for `minProperties` (a pattern that names few keys): optional declared ones are added.
      for (const field of fields) {
        if (wanted.size + undeclared.size >= shape.minProperties || wanted.size >= shape.maxProperties) break
        wanted.add(field.name)
      }
      // Then the keys that present ones require.
      let grew = true
      while (grew) {
        grew = false
        for (const [name, needed] of shape.dependentRequired) {
          if (!wanted.has(name)) continue
          for (const other of needed) {
            if (!wanted.has(other) && values.has(other)) {
              wanted.add(other)
              grew = true
            }
          }
        }
      }
      const out: Record<string, Json> = {}
      let size = 0
      const define = (key: string, value: Json) => {
        Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
        size++
      }
      for (const field of fields) if (wanted.has(field.name)) define(field.name, values.get(field.name)!)
      for (const [key, value] of undeclared) {
        if (size >= shape.maxProperties) break
        define(key, value)
      }
      return out
    })
  }

  /**
   * A key made from one of the `patternProperties` patterns strings can be built for, with a value that every schema
   * governing that key admits; `undefined` for a key that is declared, or whose schemas admit no value together.
   * `undefined` as a whole when no pattern makes keys.
   */
  #patternEntry(shape: Shape, named: ReadonlySet<string>): Arbitrary.Arbitrary<PatternEntry> | undefined {
    // Keys governed by the same schemas share one generator of values.
    const byGovernors = new Map<string, Arbitrary.Arbitrary<Json> | undefined>()
    const valueOf = (key: string): Arbitrary.Arbitrary<Json> | undefined => {
      const list: Array<Located> = []
      const signature: Array<string> = []
      shape.patternProperties.forEach(({ regex, schema }, i) => {
        if (!regex.test(key)) return
        list.push(schema)
        signature.push(`p${i}`)
      })
      shape.objects.forEach((part, i) => {
        if (part.additional === undefined || part.patterns.some((regex) => regex.test(key))) return
        list.push(part.additional)
        signature.push(`a${i}`)
      })
      const id = signature.join(",")
      if (byGovernors.has(id)) return byGovernors.get(id)
      let value: Arbitrary.Arbitrary<Json> | undefined
      try {
        value = this.#all(list)
      } catch (error) {
        if (!(error instanceof NoValue)) throw error
      }
      byGovernors.set(id, value)
      return value
    }
    const entries: Array<Arbitrary.Arbitrary<PatternEntry>> = []
    for (const { source, schema } of shape.patternProperties) {
      // A pattern no string can be built for makes no keys: the validator still checks those of other sources.
      if (unbuildablePatternFeature(source) !== undefined) continue
      try {
        this.#all([schema])
      } catch (error) {
        if (!(error instanceof NoValue)) throw error
        // No value can stand under this pattern, so no key of it can either.
        continue
      }
      const keyShape = emptyShape(schema.pointer)
      keyShape.patterns.push(source)
      entries.push(Arbitrary.flatMap(strings(keyShape), (key): Arbitrary.Arbitrary<PatternEntry> => {
        const value = typeof key === "string" && !named.has(key) ? valueOf(key) : undefined
        return value === undefined
          ? Arbitrary.Constant(undefined)
          : Arbitrary.map(value, (value): PatternEntry => [key as string, value])
      }))
    }
    return entries.length === 0 ? undefined : oneOf(entries)
  }
}

// -------------------------------------------------------------------------------------------------------------
// Scalars
// -------------------------------------------------------------------------------------------------------------

/** Whether a value of an `enum` or `const` also keeps the scalar constraints beside it. */
/** A Schema with these checks, if any. */
const checked = <S extends Schema.Top>(
  schema: S,
  checks: ReadonlyArray<SchemaAST.Check<S["Type"]>>
): S["Rebuild"] | S => checks.length === 0 ? schema : schema.check(checks[0]!, ...checks.slice(1))

const admits = (shape: Shape, value: Json): boolean => {
  const type = typeOfJson(value)
  if (shape.types !== undefined && !shape.types.has(type) && !(type === "integer" && shape.types.has("number"))) {
    return false
  }
  if (typeof value === "number") {
    if (value < shape.minimum || (shape.exclusiveMinimum && value === shape.minimum)) return false
    if (value > shape.maximum || (shape.exclusiveMaximum && value === shape.maximum)) return false
  }
  if (typeof value === "string") {
    const length = Array.from(value).length
    if (length < shape.minLength || length > shape.maxLength) return false
    if (shape.patterns.some((pattern) => !patternRegExp(pattern).test(value))) return false
  }
  return true
}

/** The number of decimal places of a number: 2 for `0.01`, 7 for `1e-7`. */
const decimalsOf = (n: number): number => {
  const [mantissa, exponent] = String(n).split("e")
  const decimals = (mantissa!.split(".")[1] ?? "").length
  return Math.max(0, decimals - Number(exponent ?? 0))
}

const gcd = (a: number, b: number): number => b === 0 ? a : gcd(b, a % b)

const numbers = (shape: Shape, integerType: boolean): Arbitrary.Arbitrary<Json> => {
  let minimum = shape.minimum
  let maximum = shape.maximum
  let integer = integerType
  for (const format of shape.formats) {
    const bounds = numericFormat(format)
    if (bounds === undefined) continue
    minimum = Math.max(minimum, bounds.minimum)
    maximum = Math.min(maximum, bounds.maximum)
    integer ||= bounds.integer
  }
  const fail = () => new NoValue("no number lies within its bounds", shape.pointer)
  const integral = shape.multipleOf.filter(Number.isInteger)
  let step: number | undefined
  if (integer) {
    // Several whole divisors: their least common multiple; a fractional one is left to the validator.
    step = integral.reduce((a, b) => a / gcd(a, b) * b, 1)
  } else if (shape.multipleOf.length > 0) step = shape.multipleOf[0]!
  if (step !== undefined) {
    if (!Number.isSafeInteger(step) && Number.isInteger(step)) throw fail()
    const low = minimum / step
    const high = maximum / step
    let kLow = shape.exclusiveMinimum && Number.isInteger(low) ? low + 1 : Math.ceil(low)
    let kHigh = shape.exclusiveMaximum && Number.isInteger(high) ? high - 1 : Math.floor(high)
    const limit = Math.min(Number.MAX_SAFE_INTEGER, Math.floor(Number.MAX_SAFE_INTEGER / step))
    kLow = Math.max(kLow, -limit)
    kHigh = Math.min(kHigh, limit)
    if (!(kLow <= kHigh)) throw fail()
    const decimals = Math.min(100, decimalsOf(step))
    const multiple = (k: number): number => decimals === 0 ? k * step + 0 : Number((k * step).toFixed(decimals)) + 0
    return Arbitrary.map(
      Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: kLow, maximum: kHigh }))),
      (k): Json => {
        // The validator divides: 0.07 / 0.01 is 7.000000000000001, so 0.07 is no multiple of 0.01 to it. The nearest
        // multiple that divides evenly is taken instead; should there be none near, the validator has the last word.
        for (let offset = 0; offset <= 16; offset++) {
          for (const candidate of offset === 0 ? [k] : [k + offset, k - offset]) {
            if (candidate < kLow || candidate > kHigh) continue
            const value = multiple(candidate)
            if (Number.isInteger(value / step)) return value
          }
        }
        return multiple(k)
      }
    )
  }
  if (minimum > maximum || (minimum === maximum && (shape.exclusiveMinimum || shape.exclusiveMaximum))) throw fail()
  const checks = [
    ...(Number.isFinite(minimum)
      ? [shape.exclusiveMinimum ? Schema.isGreaterThan(minimum) : Schema.isGreaterThanOrEqualTo(minimum)]
      : []),
    ...(Number.isFinite(maximum)
      ? [shape.exclusiveMaximum ? Schema.isLessThan(maximum) : Schema.isLessThanOrEqualTo(maximum)]
      : [])
  ]
  // `+ 0` turns -0, which JSON cannot tell from 0, into 0.
  return Arbitrary.map(Arbitrary.schema(checked(Schema.Finite, checks)), (n) => n + 0)
}

const strings = (shape: Shape): Arbitrary.Arbitrary<Json> => {
  if (shape.minLength > shape.maxLength) throw new NoValue("no string length lies within its bounds", shape.pointer)
  for (const pattern of shape.patterns) {
    const feature = unbuildablePatternFeature(pattern)
    if (feature !== undefined) {
      throw new UnsupportedSchema(
        `the pattern ${JSON.stringify(pattern)} uses ${feature}, which strings are not built for`,
        shape.pointer
      )
    }
  }
  const lengths = [
    ...(shape.minLength > 0 ? [Schema.isMinCodePoints(shape.minLength)] : []),
    ...(Number.isFinite(shape.maxLength) ? [Schema.isMaxCodePoints(shape.maxLength)] : [])
  ]
  const formats = shape.formats.flatMap((format) => {
    const regex = formatPattern(format)
    return regex === undefined ? [] : [regex]
  })
  const patterns = shape.patterns.map(patternRegExp)
  // A format, when there is one, is what strings are built from; patterns and other formats then filter them.
  const built = formats.length > 0 ? [formats[0]!] : patterns
  const filters = formats.length > 0 ? [...formats.slice(1), ...patterns] : []
  const checks = [...built.map((regex) => Schema.isPattern(regex)), ...lengths]
  const arbitrary = Arbitrary.schema(checked(Schema.String, checks))
  return filters.length === 0
    ? arbitrary
    : Arbitrary.filter(arbitrary, (s: string) => filters.every((regex) => regex.test(s)))
}
