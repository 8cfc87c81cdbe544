/**
 * JSON Schema for tool definitions, generated once per tool from its Schemas and normalized into what providers
 * accept: no `$ref` to definitions a provider cannot resolve, no ±2^53 integer bounds, `additionalProperties: false`
 * on objects, and an object with `properties` and `required` at the top of every parameters schema. A schema given
 * as it is (a runtime tool's) gets the same object at its top, by {@link offeredParameters}.
 */
import { Result, Schema, SchemaAST } from "effect"
import { finiteNumbers } from "./codec.ts"
import { canonicalJson, deepFreeze, defineField } from "./json.ts"

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
 * JSON Schemas generated before a definition asked for them (`Tool.make` reads the one of a tool's parameters to
 * check it), each kept for the next {@link toParametersJsonSchema} of its Schema, which takes it: a typed tool's
 * parameters are generated once, and no two definitions share an object.
 */
const spare = new WeakMap<Schema.Top, JsonSchema>()

/** {@link toJsonSchema}, the result kept for the next {@link toParametersJsonSchema} of the same Schema. */
export const toJsonSchemaKept = (schema: Schema.Top): JsonSchema => {
  const out = toJsonSchema(schema)
  spare.set(schema, out)
  return out
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
  const kept = spare.get(schema)
  if (kept !== undefined) spare.delete(schema)
  const out = kept ?? toJsonSchema(schema)
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
export const findRecursive = (definitions: Record<string, JsonSchema>): Set<string> => {
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

// ---------------------------------------------------------------------------
// A given parameters schema, with one object at its top
// ---------------------------------------------------------------------------

/** Whether a value is an object that is not an array: a JSON object, as read from parsed JSON. */
export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** Keywords whose value is data, not schemas: a `$ref` inside one is an example, not a reference. */
export const dataKeywords: ReadonlySet<string> = new Set(["const", "enum", "default", "examples"])

/** Keywords whose value maps names to schemas, not a schema itself. */
export const schemaMaps: ReadonlySet<string> = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
  "dependencies"
])

/** The value a JSON pointer (with its URI fragment escapes) leads to inside `root`, own keys only. */
export const resolvePointer = (root: unknown, pointer: string): unknown => {
  if (pointer === "") return root
  let node = root
  for (const raw of pointer.slice(1).split("/")) {
    const key = decodeSegment(raw)
    if (key === undefined) return undefined
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

/**
 * Every schema object of `root` below it (the root itself excluded), each given to `visit` with the keyword it sits
 * under; data (`const`, `enum`, …) is never taken for schemas. Walks with its own stack.
 */
const eachSchemaBelow = (root: Record<string, unknown>, visit: (node: Record<string, unknown>) => void): void => {
  const stack: Array<unknown> = []
  const pushValues = (node: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(node)) {
      if (dataKeywords.has(key)) continue
      if (schemaMaps.has(key) && isRecord(value)) stack.push(...Object.values(value))
      else if (Array.isArray(value)) stack.push(...value)
      else stack.push(value)
    }
  }
  pushValues(root)
  while (stack.length > 0) {
    const node = stack.pop()
    if (!isRecord(node)) continue
    visit(node)
    pushValues(node)
  }
}

/** The schema node with `replace` applied to every schema object below it: new objects only where it changes. */
export const mapSchemasBelow = (
  node: Record<string, unknown>,
  replace: (node: Record<string, unknown>) => Record<string, unknown>
): Record<string, unknown> => {
  const mapSchema = (value: unknown): unknown => isRecord(value) ? mapSchemasBelow(replace(value), replace) : value
  let out: Record<string, unknown> | undefined
  for (const [key, value] of Object.entries(node)) {
    let next: unknown = value
    if (dataKeywords.has(key)) next = value
    else if (schemaMaps.has(key) && isRecord(value)) {
      let map: Record<string, unknown> | undefined
      for (const [name, inner] of Object.entries(value)) {
        const mapped = mapSchema(inner)
        if (mapped !== inner) map ??= { ...value }
        if (map !== undefined) defineField(map, name, mapped)
      }
      next = map ?? value
    } else if (Array.isArray(value)) {
      const mapped = value.map(mapSchema)
      next = mapped.some((item, i) => item !== value[i]) ? mapped : value
    } else next = mapSchema(value)
    if (next !== value) out ??= { ...node }
    if (out !== undefined) defineField(out, key, next)
  }
  return out ?? node
}

/** JSON text in which equal values are equal strings, whatever the order of their keys. */
const canonical = (value: unknown): string => canonicalJson(value) ?? "undefined"

const pointerOf = (path: string): string => path === "" ? "the root" : path

// When parts of an intersection are merged into one schema:
/** Keywords that only annotate: the first part's is kept. */
const annotationKeywords: ReadonlySet<string> = new Set([
  "title",
  "description",
  "$comment",
  "examples",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly"
])
/** Keywords that only the root may carry: where references resolve, and the dialect. */
const rootKeywords: ReadonlySet<string> = new Set([
  "$schema",
  "$id",
  "$defs",
  "definitions",
  "$anchor",
  "$dynamicAnchor",
  "$recursiveAnchor",
  "$vocabulary"
])
/** Keywords that mean something together, within one schema: merged as one. */
const keywordGroups: ReadonlyArray<ReadonlyArray<string>> = [
  ["if", "then", "else"],
  ["contains", "minContains", "maxContains"],
  ["items", "prefixItems", "additionalItems", "unevaluatedItems"]
]
const groupOf = new Map(keywordGroups.flatMap((group) => group.map((keyword) => [keyword, group] as const)))
/** Keywords the merge handles itself. */
const mergedKeywords: ReadonlySet<string> = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "allOf",
  "$ref"
])

interface Part {
  readonly schema: Record<string, unknown>
  readonly at: string
}

/** Anchors and identifiers that a merge would move, and references it would break: a merge is not tried then. */
const mergeBlocker = (root: Record<string, unknown>): string | undefined => {
  let blocker: string | undefined
  eachSchemaBelow(root, (node) => {
    if (blocker !== undefined) return
    for (const keyword of ["$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor"]) {
      if (typeof node[keyword] === "string") blocker = `it declares \`${keyword}\` below its root`
    }
    const ref = node.$ref
    if (typeof ref === "string" && ref !== "#" && !ref.startsWith("#/$defs/") && !ref.startsWith("#/definitions/")) {
      blocker = `it holds the reference ${JSON.stringify(ref.length > 64 ? `${ref.slice(0, 64)}…` : ref)}, which ` +
        "would no longer lead to the same place"
    }
  })
  return blocker
}

/** The schema a local reference names inside `root`, or `undefined`. */
const resolveLocal = (root: Record<string, unknown>, ref: string): unknown =>
  ref.startsWith("#/") ? resolvePointer(root, ref.slice(1)) : undefined

/** The most parts a merge takes: a schema that names more (however few bytes it is) is not merged. */
const maxParts = 256

/**
 * The parts a schema is the conjunction of: itself without `allOf` and `$ref`, then each member of its `allOf` and
 * what its `$ref` names, flattened the same way. A reference already taken in is not taken again (A and A is A), so
 * a small schema whose references fan out cannot make the work grow with their product. Fails, with the reason, for
 * a part that cannot be merged, or past {@link maxParts} parts.
 */
const flattenParts = (
  root: Record<string, unknown>,
  node: unknown,
  at: string,
  depth: number,
  out: Array<Part>,
  taken: Set<string> = new Set()
): string | undefined => {
  if (depth > 16) return `the parts at ${pointerOf(at)} nest too deep`
  if (out.length >= maxParts) return `it has more than ${maxParts} parts`
  if (node === true) return undefined
  if (!isRecord(node)) return `the part at ${pointerOf(at)} accepts no value`
  if (depth > 0) {
    const own = Object.keys(node).find((key) => rootKeywords.has(key))
    if (own !== undefined) return `the part at ${pointerOf(at)} declares \`${own}\`, which only the root may`
  }
  const { allOf, $ref, ...rest } = node
  out.push({ schema: rest, at })
  if ($ref !== undefined) {
    if (typeof $ref !== "string" || $ref === "#") return `the reference at ${pointerOf(at)} cannot be inlined`
    if (!taken.has($ref)) {
      taken.add($ref)
      const target = resolveLocal(root, $ref)
      if (target === undefined) return `the reference ${JSON.stringify($ref)} at ${pointerOf(at)} leads nowhere`
      const problem = flattenParts(root, target, $ref.slice(1), depth + 1, out, taken)
      if (problem !== undefined) return problem
    }
  }
  if (allOf !== undefined) {
    if (!Array.isArray(allOf)) return `the \`allOf\` at ${pointerOf(at)} is not a list`
    for (let i = 0; i < allOf.length; i++) {
      const problem = flattenParts(root, allOf[i], `${at}/allOf/${i}`, depth + 1, out, taken)
      if (problem !== undefined) return problem
    }
  }
  return undefined
}

/** The types both lists allow (an integer is a number), or an empty list. */
const intersectTypes = (a: ReadonlyArray<unknown>, b: ReadonlyArray<unknown>): Array<unknown> => {
  const out: Array<unknown> = []
  for (const type of a) {
    const common = b.includes(type)
      ? type
      : type === "integer" && b.includes("number") || type === "number" && b.includes("integer")
      ? "integer"
      : undefined
    if (common !== undefined && !out.includes(common)) out.push(common)
  }
  return out
}

const keysOf = (properties: unknown): Array<string> => isRecord(properties) ? Object.keys(properties).sort() : []

/**
 * The one schema that accepts exactly what every part accepts, or why there is none this merge can write: keywords
 * that read each other (`additionalProperties` and the `properties` beside it, say) are only merged where their
 * meaning stays the same, and two parts that give one keyword different values are not merged.
 */
const mergeParts = (parts: ReadonlyArray<Part>): Result.Result<Record<string, unknown>, string> => {
  const out: Record<string, unknown> = {}
  // Types: what every part allows.
  let types: Array<unknown> | undefined
  for (const { schema } of parts) {
    if (schema.type === undefined) continue
    const listed = Array.isArray(schema.type) ? schema.type : [schema.type]
    types = types === undefined ? [...listed] : intersectTypes(types, listed)
    if (types.length === 0) return Result.fail("its parts allow no type in common")
  }
  if (types !== undefined) out.type = types.length === 1 ? types[0] : types
  // Properties: each key's schemas, each once; several make an `allOf` of that property alone.
  const byKey = new Map<string, Array<unknown>>()
  const required: Array<string> = []
  for (const { schema } of parts) {
    if (schema.properties !== undefined && !isRecord(schema.properties)) {
      return Result.fail("`properties` is not an object")
    }
    for (const [key, property] of Object.entries(isRecord(schema.properties) ? schema.properties : {})) {
      const list = byKey.get(key) ?? []
      if (!list.some((known) => canonical(known) === canonical(property))) list.push(property)
      byKey.set(key, list)
    }
    if (Array.isArray(schema.required)) {
      for (const key of schema.required) if (typeof key === "string" && !required.includes(key)) required.push(key)
    }
  }
  if (byKey.size > 0 || parts.some(({ schema }) => schema.properties !== undefined)) {
    const properties: Record<string, unknown> = {}
    for (const [key, list] of byKey) defineField(properties, key, list.length === 1 ? list[0] : { allOf: list })
    out.properties = properties
  }
  if (required.length > 0) out.required = required
  // `additionalProperties` covers the keys its own part does not name: kept only when every part names no other key.
  const closers = parts.filter(({ schema }) =>
    schema.additionalProperties !== undefined && schema.additionalProperties !== true
  )
  const patterns = parts.filter(({ schema }) => schema.patternProperties !== undefined)
  if (closers.length > 0) {
    const [first] = closers
    const shape = (schema: Record<string, unknown>) =>
      canonical([schema.additionalProperties, schema.patternProperties ?? null, keysOf(schema.properties)])
    if (closers.some(({ schema }) => shape(schema) !== shape(first!.schema))) {
      return Result.fail("its parts close their objects over different properties")
    }
    const names = new Set(keysOf(first!.schema.properties))
    for (const { at, schema } of parts) {
      const extra = keysOf(schema.properties).find((key) => !names.has(key))
      if (extra !== undefined) {
        return Result.fail(
          `the part at ${pointerOf(at)} names \`${extra}\`, which another part's \`additionalProperties\` covers`
        )
      }
      const patterns = schema.patternProperties
      if (patterns !== undefined && canonical(patterns) !== canonical(first!.schema.patternProperties)) {
        return Result.fail(
          `the \`patternProperties\` at ${pointerOf(at)} would change what \`additionalProperties\` covers`
        )
      }
    }
    out.additionalProperties = first!.schema.additionalProperties
    if (first!.schema.patternProperties !== undefined) out.patternProperties = first!.schema.patternProperties
  } else if (patterns.length > 0) {
    const firstPatterns = canonical(patterns[0]!.schema.patternProperties)
    if (patterns.some(({ schema }) => canonical(schema.patternProperties) !== firstPatterns)) {
      return Result.fail("its parts give `patternProperties` different values")
    }
    out.patternProperties = patterns[0]!.schema.patternProperties
  }
  // Every other keyword: once, or the same in every part that has it.
  const seen = new Map<string, string>()
  for (const [index, { at, schema }] of parts.entries()) {
    for (const key of Object.keys(schema)) {
      if (mergedKeywords.has(key)) continue
      if (annotationKeywords.has(key) || rootKeywords.has(key)) {
        if (!Object.hasOwn(out, key)) defineField(out, key, schema[key])
        continue
      }
      // The outer schema's `unevaluatedProperties` sees what its parts evaluate, as the merged one does; a part's own
      // sees only that part.
      if (key === "unevaluatedProperties" && index > 0 && schema[key] !== true) {
        return Result.fail(`the part at ${pointerOf(at)} has its own \`unevaluatedProperties\``)
      }
      const group = groupOf.get(key)
      const keywords = group ?? [key]
      const name = keywords[0]!
      const value = canonical(keywords.map((keyword) => schema[keyword] ?? null))
      const known = seen.get(name)
      if (known === undefined) {
        seen.set(name, value)
        for (const keyword of keywords) if (schema[keyword] !== undefined) defineField(out, keyword, schema[keyword])
      } else if (known !== value) {
        return Result.fail(`its parts give \`${name}\` different values`)
      }
    }
  }
  return Result.succeed(out)
}

/**
 * A parameters schema whose root is a reference (into its own definitions) or an `allOf` (zod's `.and()`), or
 * both, as the one object schema that accepts exactly the same values: the parts' properties together, a property
 * in several parts as the `allOf` of its schemas, `required` the keys any part requires. The definitions stay where
 * they were, so every reference still leads where it did. Fails, with the reason, where no exact merge exists (two
 * parts that each close their object over other keys, say, or a reference that would move); a schema with neither
 * is returned as it is.
 */
export const mergeRoot = (schema: JsonSchema): Result.Result<JsonSchema, string> => {
  if (!isRecord(schema) || schema.$ref === undefined && schema.allOf === undefined) return Result.succeed(schema)
  const blocker = mergeBlocker(schema)
  if (blocker !== undefined) return Result.fail(blocker)
  const parts: Array<Part> = []
  const problem = flattenParts(schema, schema, "", 0, parts)
  if (problem !== undefined) return Result.fail(problem)
  return mergeParts(parts)
}

/**
 * A schema that holds a `$ref` beside other keywords (`{"$ref": "#/$defs/Address", "description": "…"}`, as
 * pydantic writes a described field), as one schema without the reference that accepts exactly the same values:
 * what it names, merged with the keywords beside it (see {@link mergeRoot}). `$ref: "#"` names the root, without
 * its definitions. Fails, with the reason, where no exact merge exists.
 */
export const inlineReference = (root: JsonSchema, node: JsonSchema): Result.Result<JsonSchema, string> => {
  const { $ref, ...siblings } = node
  if (typeof $ref !== "string") return Result.succeed(node)
  let target: unknown
  if ($ref === "#") {
    const { $defs: _defs, definitions: _definitions, $schema: _schema, $id: _id, ...body } = root
    target = body
  } else target = resolveLocal(root, $ref)
  if (target === undefined) return Result.fail(`the reference ${JSON.stringify($ref)} leads nowhere`)
  const parts: Array<Part> = []
  const taken = new Set<string>([$ref])
  const problem = flattenParts(root, siblings, "", 0, parts, taken) ??
    flattenParts(root, target, $ref.slice(1), 1, parts, taken)
  return problem !== undefined ? Result.fail(problem) : mergeParts(parts)
}

const offered = new WeakMap<object, JsonSchema>()

/**
 * A tool's parameters schema as it is offered, to providers and to MCP clients, with the one object at its top that
 * every one of them asks for. Tool arguments are always a JSON object (dispatch refuses anything else), so each
 * change keeps what the schema accepts of them:
 *
 * - a root reference into the schema's own definitions, and a root `allOf`, are merged into one object where that is
 *   exact (see {@link mergeRoot}), and kept otherwise (adapters then refuse an `allOf` they cannot offer);
 * - a root without a `type` becomes `"object"`, and a `type` that lists `"object"` among others (`["object",
 *   "null"]`) becomes `"object"`. A `$ref: "#"` below, which named the root as it was, is pointed at a copy of it
 *   in `$defs`;
 * - a root without `properties` gets `properties: {}` (MCP's Go SDK lists `{"type":"object"}` for a tool that takes
 *   no arguments, which OpenAI refuses);
 * - a boolean property schema becomes its object form, `{}` for `true` and `{"not":{}}` for `false` (MCP's
 *   TypeScript SDK refuses a tools/list entry with a boolean there);
 * - a schema of an earlier draft (6, 7 or 2019-09) is written in 2020-12, the draft of every definition, which
 *   providers read (see {@link toDraft2020}).
 *
 * A schema that needs none of this is returned as it is; one that does gets new objects only where it changes,
 * frozen when the schema was. A type that does not allow an object is left as it is.
 */
export const offeredParameters = (schema: JsonSchema): JsonSchema => {
  if (typeof schema !== "object" || schema === null) return schema
  const known = offered.get(schema)
  if (known !== undefined) return known
  let out: JsonSchema = schema
  try {
    out = offerRoot(schema)
  } catch {
    // A schema that cannot be read (a proxy, a getter that throws) is offered as it is: whatever renders it says so.
    out = schema
  }
  if (out !== schema && Object.isFrozen(schema)) deepFreeze(out)
  offered.set(schema, out)
  return out
}

const offerRoot = (given: JsonSchema): JsonSchema => {
  if (!isRecord(given)) return given
  const schema = toDraft2020(given)
  const merged = mergeRoot(schema)
  const source = Result.isSuccess(merged) ? merged.success : schema
  let root: Record<string, unknown> = source
  const type = root.type
  if (type === undefined || Array.isArray(type) && type.includes("object")) {
    const { type: _, ...rest } = root
    root = redirectRootReferences({ type: "object", ...rest }, source)
  }
  return root.properties === undefined ? { ...root, properties: {} } : objectProperties(root)
}

/** The `$schema` of drafts 6, 7 and 2019-09 (`http` or `https`, with or without the empty fragment). */
const earlierDraft = /^https?:\/\/json-schema\.org\/(draft-0[67]|draft\/2019-09)\/schema#?$/

/** The keywords {@link toDraft2020} writes otherwise, besides a tuple's `items`, in drafts 6 and 7 and in 2019-09. */
const renamedBefore2019: ReadonlySet<string> = new Set(["additionalItems", "dependencies", "$id", "$ref", "$schema"])
const renamed2019: ReadonlySet<string> = new Set([
  "additionalItems",
  "$id",
  "$recursiveRef",
  "$recursiveAnchor",
  "$ref",
  "$schema"
])

/** An `$id` that only names a place in its schema (`"#address"`), with a name 2020-12's `$anchor` allows. */
const plainName = /^#[A-Za-z_][-A-Za-z0-9._]*$/

/**
 * A schema of draft 6, 7 or 2019-09 (its `$schema` says so) written in draft 2020-12, which providers read (Anthropic
 * refuses a whole request when one `input_schema` is not valid 2020-12), with the same meaning:
 *
 * - a tuple's `items: [...]` becomes `prefixItems`, and its `additionalItems` the `items` after them (ignored beside a
 *   single `items` schema, it is dropped);
 * - in drafts 6 and 7, `dependencies` becomes `dependentRequired` (lists of keys) and `dependentSchemas`;
 * - an `$id` with a fragment keeps the part before it, and a plain name after it becomes an `$anchor` (`"#address"`,
 *   `"person.json#address"`); 2020-12 allows no other fragment there;
 * - in 2019-09, `$recursiveRef` becomes a `$ref` to the same place (beside a `$ref` of the node's own, in an `allOf`)
 *   and `$recursiveAnchor` goes: the same thing in a schema that embeds no other by `$id`, as tool schemas do not;
 * - a `$ref` whose JSON pointer passes through a keyword written otherwise follows it (`#/items/0` is
 *   `#/prefixItems/0`); references into `definitions` resolve in 2020-12 as they are;
 * - `$schema` goes, from every schema.
 *
 * Any other schema is returned as it is.
 */
export const toDraft2020 = (schema: JsonSchema): JsonSchema => {
  const match = typeof schema.$schema === "string" ? earlierDraft.exec(schema.$schema) : null
  if (match === null) return schema
  const draft2019 = match[1] === "draft/2019-09"
  const renamed = draft2019 ? renamed2019 : renamedBefore2019
  const rewrite = (node: Record<string, unknown>): Record<string, unknown> => {
    const tuple = Array.isArray(node.items)
    if (!tuple && !Object.keys(node).some((key) => renamed.has(key))) return node
    const out: Record<string, unknown> = {}
    const dependentRequired: Record<string, unknown> = {}
    const dependentSchemas: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) {
      if (key === "items" && tuple) defineField(out, "prefixItems", value)
      else if (key === "additionalItems") {
        if (tuple) defineField(out, "items", value)
      } else if (key === "$schema" || (key === "$recursiveAnchor" && draft2019)) continue
      else if (key === "$ref" || (key === "$recursiveRef" && draft2019)) {
        const ref = typeof value === "string" ? pointerIn2020(schema, value, draft2019) : value
        // A node with both: the two are checked alike, as 2020-12 checks an `allOf` of them.
        if (Object.hasOwn(out, "$ref")) defineField(out, "allOf", [...arrayOf(node.allOf), { $ref: ref }])
        else defineField(out, "$ref", ref)
      } else if (key === "$id" && typeof value === "string" && value.includes("#")) {
        // 2020-12 allows no fragment in `$id` but an empty one: the part before it stays the `$id`, and a name after
        // it is an `$anchor` (a fragment 2020-12 could not name is left out).
        const hash = value.indexOf("#")
        if (hash > 0) defineField(out, "$id", value.slice(0, hash))
        if (plainName.test(value.slice(hash))) defineField(out, "$anchor", value.slice(hash + 1))
      } else if (key === "dependencies" && !draft2019 && isRecord(value)) {
        for (const [name, dependency] of Object.entries(value)) {
          defineField(Array.isArray(dependency) ? dependentRequired : dependentSchemas, name, dependency)
        }
      } else if (key !== "allOf" || !Object.hasOwn(out, "allOf")) defineField(out, key, value)
    }
    // Written last, over a `dependentRequired` or `dependentSchemas` of the node's own, which these drafts ignore.
    if (Object.keys(dependentRequired).length > 0) defineField(out, "dependentRequired", dependentRequired)
    if (Object.keys(dependentSchemas).length > 0) defineField(out, "dependentSchemas", dependentSchemas)
    return out
  }
  return mapSchemasBelow(rewrite(schema), rewrite)
}

const arrayOf = (value: unknown): ReadonlyArray<unknown> => Array.isArray(value) ? value : []

/**
 * A reference of a schema of an earlier draft as {@link toDraft2020} writes the schema: a JSON pointer that passes
 * through a keyword it writes otherwise follows it, read along the schema itself (a property named `items` is no
 * tuple). Anything else is returned as it is.
 */
const pointerIn2020 = (root: JsonSchema, ref: string, draft2019: boolean): string => {
  if (!ref.startsWith("#/")) return ref
  const segments = ref.slice(2).split("/")
  let node: unknown = root
  // What `node` is: a schema, a map of names to schemas, a list of schemas, or data.
  let kind: "schema" | "map" | "list" | "data" = "schema"
  let changed = false
  for (let i = 0; i < segments.length && kind !== "data" && isRecordOrArray(node); i++) {
    const key = decodeSegment(segments[i]!)
    if (key === undefined) return ref
    const value = Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined
    if (kind === "schema") {
      const tuple = Array.isArray((node as Record<string, unknown>).items)
      const written = key === "items" && tuple
        ? "prefixItems"
        : key === "additionalItems" && tuple
        ? "items"
        : key === "dependencies" && !draft2019 && isRecord(value)
        ? Array.isArray(value[decodeSegment(segments[i + 1] ?? "") ?? ""]) ? "dependentRequired" : "dependentSchemas"
        : undefined
      if (written !== undefined) {
        segments[i] = written
        changed = true
      }
      kind = dataKeywords.has(key) ? "data" : schemaMaps.has(key) ? "map" : Array.isArray(value) ? "list" : "schema"
    } else kind = "schema"
    node = value
  }
  return changed ? `#/${segments.join("/")}` : ref
}

const isRecordOrArray = (u: unknown): u is object => typeof u === "object" && u !== null

/** A segment of a JSON pointer in a URI fragment, with its escapes read; `undefined` when they cannot be. */
const decodeSegment = (raw: string): string | undefined => {
  try {
    return decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~")
  } catch {
    return undefined
  }
}

/**
 * A schema whose `properties` holds no boolean schema: `true` becomes `{}` and `false` `{"not":{}}`, which accept the
 * same values (MCP's TypeScript SDK refuses a tools/list entry with a boolean there). The schema itself when it holds
 * none.
 */
export const objectProperties = <S extends JsonSchema>(schema: S): S => {
  const properties = schema.properties
  if (!isRecord(properties) || !Object.values(properties).some((value) => typeof value === "boolean")) return schema
  const listed: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(properties)) {
    defineField(listed, key, value === true ? {} : value === false ? { not: {} } : value)
  }
  return { ...schema, properties: listed }
}

/**
 * `root` with every `$ref: "#"` below it pointed at a copy of `original` (the root as it was) in `$defs`, so that a
 * reference to the root still means what the root meant before its type was narrowed to an object.
 */
const redirectRootReferences = (root: Record<string, unknown>, original: Record<string, unknown>) => {
  let refersToRoot = false
  eachSchemaBelow(root, (node) => {
    if (node.$ref === "#") refersToRoot = true
  })
  if (!refersToRoot) return root
  const defs = isRecord(root.$defs) ? root.$defs : {}
  let name = "root"
  for (let n = 1; Object.hasOwn(defs, name); n++) name = `root_${n}`
  const pointed = (node: Record<string, unknown>) => node.$ref === "#" ? { ...node, $ref: `#/$defs/${name}` } : node
  const { $schema: _schema, $id: _id, $defs: _defs, definitions: _definitions, ...body } = original
  const copy = mapSchemasBelow(pointed(body), pointed)
  const out = mapSchemasBelow(root, pointed)
  const outDefs: Record<string, unknown> = { ...(isRecord(out.$defs) ? out.$defs : {}) }
  defineField(outDefs, name, copy)
  return { ...out, $defs: outDefs }
}
