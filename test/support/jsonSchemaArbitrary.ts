/**
 * Values a JSON Schema accepts, generated: for properties that must hold for every valid argument of a tool whose
 * parameters are a JSON Schema (the validator accepts them, dispatch runs the tool with them).
 */
import { Arbitrary, Schema } from "effect"

type Json = Schema.Json

/** Keywords that constrain nothing the generator makes: annotations, and limits on keys it never adds. */
const inert = new Set([
  "$schema",
  "$id",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "definitions",
  "$defs",
  "additionalProperties",
  "additionalItems",
  "deprecated",
  "readOnly",
  "writeOnly",
  "id"
])

/** Keywords the generator reads. Any other keyword in a schema fails the test: it would be generated blind. */
const understood = new Set([
  "type",
  "properties",
  "required",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "enum",
  "const",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "anyOf",
  "$ref",
  "format",
  "pattern"
])

/** Valid examples of each format; a `pattern` is only allowed beside a format, and its examples must match it. */
const formatExamples: Record<string, ReadonlyArray<string>> = {
  email: ["ada@example.com", "grace.hopper+navy@sub.example.org"],
  uri: ["https://example.com/a?b=c", "urn:isbn:0451450523", "mailto:ada@example.com"],
  "date-time": ["2024-02-29T12:30:00Z", "1999-12-31T23:59:59.123Z"]
}

const characters = ["a", "Z", "7", " ", "é", "ß", "😀", "\n", "\"", "\\", "/", "~"]

const indexBelow = (n: number): Arbitrary.Arbitrary<number> =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: n - 1 })))

const pick = <A>(options: ReadonlyArray<A>): Arbitrary.Arbitrary<A> =>
  options.length === 1 ? Arbitrary.Constant(options[0]!) : Arbitrary.map(indexBelow(options.length), (i) => options[i]!)

const oneOf = (arbitraries: ReadonlyArray<Arbitrary.Arbitrary<Json>>): Arbitrary.Arbitrary<Json> =>
  arbitraries.length === 1 ? arbitraries[0]! : Arbitrary.flatMap(indexBelow(arbitraries.length), (i) => arbitraries[i]!)

const numberOr = (value: unknown, fallback: number): number => typeof value === "number" ? value : fallback

/** The value a local `$ref` points to. */
const resolveRef = (root: unknown, ref: string): unknown => {
  let node = root
  for (const key of ref.slice(2).split("/").filter((part) => part !== "")) {
    node = (node as Record<string, unknown>)[decodeURIComponent(key).replace(/~1/g, "/").replace(/~0/g, "~")]
  }
  return node
}

/**
 * Values a JSON Schema accepts, for the subset tool schemas use: type, properties, required, items (a schema or,
 * in draft-07, a tuple), prefixItems, min/maxItems, enum, const, minimum/maximum (also exclusive), min/maxLength
 * (in code points, as JSON Schema counts), anyOf, local `$ref`, and three formats. Optional properties come and go;
 * no key the schema does not declare is ever added.
 */
export function arbitraryOf(schema: unknown, root: unknown = schema, depth = 0): Arbitrary.Arbitrary<Json> {
  if (depth > 24) throw new Error("the generator does not follow recursive schemas this deep")
  if (schema === true) return Arbitrary.schema(Schema.Json)
  if (typeof schema !== "object" || schema === null) throw new Error(`not a schema: ${JSON.stringify(schema)}`)
  const s = schema as Record<string, unknown>
  for (const keyword of Object.keys(s)) {
    if (!inert.has(keyword) && !understood.has(keyword)) throw new Error(`the generator does not read ${keyword}`)
  }
  if (typeof s.$ref === "string") return arbitraryOf(resolveRef(root, s.$ref), root, depth + 1)
  if ("const" in s) return Arbitrary.Constant(s.const as Json)
  if (Array.isArray(s.enum)) return pick(s.enum as ReadonlyArray<Json>)
  if (Array.isArray(s.anyOf)) return oneOf(s.anyOf.map((branch) => arbitraryOf(branch, root, depth + 1)))
  const types = s.type === undefined
    ? (s.properties !== undefined ? ["object"] : undefined)
    : Array.isArray(s.type) ? s.type as Array<string> : [s.type as string]
  if (types === undefined) return Arbitrary.schema(Schema.Json)
  return oneOf(types.map((type) => arbitraryOfType(type, s, root, depth)))
}

function arbitraryOfType(type: string, s: Record<string, unknown>, root: unknown, depth: number): Arbitrary.Arbitrary<Json> {
  switch (type) {
    case "null":
      return Arbitrary.Constant(null)
    case "boolean":
      return Arbitrary.schema(Schema.Boolean)
    case "integer": {
      const minimum = typeof s.exclusiveMinimum === "number"
        ? Math.floor(s.exclusiveMinimum) + 1
        : Math.ceil(numberOr(s.minimum, -1e6))
      const maximum = typeof s.exclusiveMaximum === "number"
        ? Math.ceil(s.exclusiveMaximum) - 1
        : Math.floor(numberOr(s.maximum, 1e6))
      return Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: Math.max(minimum, -1e6), maximum: Math.min(maximum, 1e6) })))
    }
    case "number":
      return Arbitrary.schema(Schema.Finite.check(Schema.isBetween({
        minimum: numberOr(s.exclusiveMinimum, numberOr(s.minimum, -1e6)),
        maximum: numberOr(s.exclusiveMaximum, numberOr(s.maximum, 1e6)),
        exclusiveMinimum: typeof s.exclusiveMinimum === "number",
        exclusiveMaximum: typeof s.exclusiveMaximum === "number"
      })))
    case "string": {
      const minLength = numberOr(s.minLength, 0)
      const maxLength = numberOr(s.maxLength, minLength + 12)
      if (typeof s.format === "string") {
        const examples = (formatExamples[s.format] ?? []).filter((example) => {
          const length = Array.from(example).length
          return length >= minLength && length <= numberOr(s.maxLength, Infinity) &&
            (typeof s.pattern !== "string" || new RegExp(s.pattern, "u").test(example))
        })
        if (examples.length === 0) throw new Error(`the generator has no example of format ${s.format} that fits`)
        return pick(examples)
      }
      if (s.pattern !== undefined) throw new Error("the generator does not make strings for a pattern")
      return Arbitrary.map(Arbitrary.array(pick(characters), { minLength, maxLength }), (chars) => chars.join(""))
    }
    case "array": {
      const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : []
      const rest = Array.isArray(s.items) ? s.additionalItems : Array.isArray(s.prefixItems) ? s.items : s.items ?? true
      const minItems = numberOr(s.minItems, 0)
      const maxItems = numberOr(s.maxItems, Math.max(minItems, tuple.length) + 3)
      const head = Arbitrary.all(tuple.map((item) => arbitraryOf(item, root, depth + 1)))
      if (rest === false || rest === undefined && Array.isArray(s.items)) return Arbitrary.map(head, (items) => items)
      const tail = Arbitrary.array(arbitraryOf(rest, root, depth + 1), {
        minLength: Math.max(0, minItems - tuple.length),
        maxLength: Math.max(0, maxItems - tuple.length)
      })
      return Arbitrary.map(Arbitrary.all([head, tail]), ([items, more]) => [...items, ...more])
    }
    case "object": {
      const properties = (s.properties ?? {}) as Record<string, unknown>
      const required = new Set((s.required ?? []) as ReadonlyArray<string>)
      const entries = Object.entries(properties).map(([name, sub]) => {
        const value = arbitraryOf(sub, root, depth + 1)
        return required.has(name)
          ? Arbitrary.map(value, (v): ReadonlyArray<[string, Json]> => [[name, v]])
          : Arbitrary.map(
            Arbitrary.all([Arbitrary.schema(Schema.Boolean), value]),
            ([present, v]): ReadonlyArray<[string, Json]> => present ? [[name, v]] : []
          )
      })
      for (const name of required) {
        if (!Object.hasOwn(properties, name)) entries.push(Arbitrary.map(Arbitrary.schema(Schema.Json), (v) => [[name, v]]))
      }
      return Arbitrary.map(Arbitrary.all(entries), (lists) => Object.fromEntries(lists.flat()))
    }
    default:
      throw new Error(`the generator does not make values of type ${type}`)
  }
}

