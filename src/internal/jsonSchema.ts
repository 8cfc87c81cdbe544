/**
 * JSON Schema for tool definitions, generated once per tool from its Schemas and normalized into what providers
 * accept: no `$ref` to definitions a provider cannot resolve, no ±2^53 integer bounds, `additionalProperties: false`
 * on objects, and an object with `properties` and `required` at the top of every parameters schema.
 */
import { Schema, SchemaAST } from "effect"
import { finiteNumbers } from "./codec.ts"

/** A JSON Schema object. */
export type JsonSchema = { readonly [key: string]: unknown }

const defsPrefix = "#/$defs/"

/**
 * The JSON Schema of a Schema's JSON-encoded side (the side the model writes and dispatch decodes), normalized.
 * Definitions are inlined where they are not recursive; recursive ones stay in a root `$defs`, which any
 * draft 2020-12 resolver finds. It describes the codec dispatch uses (see `codec.ts`), so a number is
 * `{"type":"number"}` and keeps its checks and annotations, where Effect's own codec says "a number, or one of the
 * strings NaN, Infinity, -Infinity" and drops them.
 */
export const toJsonSchema = (schema: Schema.Top): JsonSchema => {
  const document = Schema.toJsonSchemaDocument(finiteNumbers(schema))
  const definitions = document.definitions as Record<string, JsonSchema>
  const recursive = findRecursive(definitions)
  const normalize = (node: unknown, expanding: ReadonlySet<string>): unknown => {
    if (Array.isArray(node)) return node.map((item) => normalize(item, expanding))
    if (typeof node !== "object" || node === null) return node
    const source = node as Record<string, unknown>
    const ref = source.$ref
    if (typeof ref === "string" && ref.startsWith(defsPrefix)) {
      const name = ref.slice(defsPrefix.length)
      const target = definitions[name]
      if (target !== undefined && !recursive.has(name) && !expanding.has(name)) {
        const { $ref: _, ...siblings } = source
        const inlined = normalize(target, new Set([...expanding, name])) as Record<string, unknown>
        return Object.keys(siblings).length === 0 ? inlined : { ...inlined, ...normalizeFields(siblings, expanding) }
      }
      return source
    }
    return normalizeFields(source, expanding)
  }
  const normalizeFields = (source: Record<string, unknown>, expanding: ReadonlySet<string>) => {
    // Built as entries, so that a key named `__proto__` stays a key.
    const out: Record<string, unknown> = Object.fromEntries(Object.entries(source).map(([key, value]) => [
      key,
      key === "properties" && typeof value === "object" && value !== null
        ? Object.fromEntries(Object.entries(value).map(([name, property]) => [name, normalize(property, expanding)]))
        : normalize(value, expanding)
    ]))
    // Effect puts a key's own description (`annotateKey`) into `allOf: [{ description }]`: make it the description.
    if (Array.isArray(out.allOf) && out.allOf.every(isDescriptionOnly)) {
      const [first] = out.allOf as Array<{ readonly description: string }>
      delete out.allOf
      if (first !== undefined && out.description === undefined) out.description = first.description
    }
    // `Schema.optional(Schema.NullOr(X))` says "null" twice: keep each alternative once.
    if (Array.isArray(out.anyOf)) {
      const seen = new Set<string>()
      out.anyOf = out.anyOf.filter((alternative) => {
        const key = JSON.stringify(alternative)
        if (seen.has(key)) return false
        seen.add(key)
        return true
      })
    }
    if (out.type === "integer") {
      if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum
      if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum
    }
    if (out.type === "object" && out.properties !== undefined) {
      if (out.required === undefined) out.required = []
      if (out.additionalProperties === true && out.patternProperties === undefined) out.additionalProperties = false
    }
    return out
  }
  let root = normalize(document.schema, new Set()) as Record<string, unknown>
  // A recursive schema at the top is a bare `$ref`: put its definition there, so the top describes the value itself.
  if (typeof root.$ref === "string" && root.$ref.startsWith(defsPrefix)) {
    const name = root.$ref.slice(defsPrefix.length)
    const target = definitions[name]
    if (target !== undefined) {
      const { $ref: _, ...siblings } = root
      root = { ...(normalize(target, new Set([name])) as Record<string, unknown>), ...siblings }
    }
  }
  liftDescriptions(schema.ast, root)
  if (recursive.size === 0) return root
  const $defs: Record<string, unknown> = {}
  for (const name of recursive) $defs[name] = normalize(definitions[name], new Set([name]))
  return { ...root, $defs }
}

/**
 * The JSON Schema of a tool's parameters: like {@link toJsonSchema}, and always an object with `properties` and
 * `required`, which is what every provider asks for (an empty struct says so explicitly).
 */
export const toParametersJsonSchema = (schema: Schema.Top): JsonSchema => {
  const ast = SchemaAST.toEncoded(schema.ast)
  if (ast._tag === "Objects" && ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) {
    return { type: "object", properties: {}, required: [], additionalProperties: false }
  }
  const out = toJsonSchema(schema)
  // A union of structs (`anyOf` at the top) or a record has no `properties`: say what every provider asks of the top
  // of a parameters schema, which constrains nothing more.
  return { ...out, type: "object", properties: out.properties ?? {}, required: out.required ?? [] }
}

const isDescriptionOnly = (u: unknown): boolean =>
  typeof u === "object" && u !== null && Object.keys(u).length === 1 && typeof (u as any).description === "string"

/**
 * Effect's generator drops the description of a field whose Schema is a class (it describes the class's struct
 * instead): put it back on the property, walking nested structs.
 */
const liftDescriptions = (ast: SchemaAST.AST, json: Record<string, unknown>): void => {
  if (ast._tag !== "Objects" || typeof json.properties !== "object" || json.properties === null) return
  const properties = json.properties as Record<string, Record<string, unknown>>
  for (const signature of ast.propertySignatures) {
    const property = typeof signature.name === "string" ? properties[signature.name] : undefined
    if (property === undefined || typeof property !== "object") continue
    const description = signature.type.annotations?.description
    if (typeof description === "string" && property.description === undefined) property.description = description
    liftDescriptions(signature.type, property)
  }
}

/** The names of the definitions that reach themselves through `$ref`s. */
const findRecursive = (definitions: Record<string, JsonSchema>): Set<string> => {
  const edges = new Map<string, Set<string>>()
  for (const [name, definition] of Object.entries(definitions)) edges.set(name, collectRefs(definition))
  const recursive = new Set<string>()
  for (const name of edges.keys()) {
    // Depth-first from `name`: is `name` reachable again?
    const seen = new Set<string>()
    const stack = [...(edges.get(name) ?? [])]
    while (stack.length > 0) {
      const next = stack.pop()!
      if (next === name) {
        recursive.add(name)
        break
      }
      if (seen.has(next)) continue
      seen.add(next)
      stack.push(...(edges.get(next) ?? []))
    }
  }
  return recursive
}

const collectRefs = (node: unknown): Set<string> => {
  const refs = new Set<string>()
  const stack: Array<unknown> = [node]
  while (stack.length > 0) {
    const current = stack.pop()
    if (Array.isArray(current)) stack.push(...current)
    else if (typeof current === "object" && current !== null) {
      for (const [key, value] of Object.entries(current)) {
        if (key === "$ref" && typeof value === "string" && value.startsWith(defsPrefix)) {
          refs.add(value.slice(defsPrefix.length))
        } else stack.push(value)
      }
    }
  }
  return refs
}
