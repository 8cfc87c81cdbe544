/**
 * Arguments a tool must refuse. Most are near misses: valid arguments with one thing wrong (a required key gone, a
 * value of the wrong type or out of bounds, a key the schema does not allow), each kept only when the tool's own
 * check refuses it. The rest are refused by any tool: broken JSON text, JSON that is not an object, nesting deeper than
 * the argument limit.
 */
import { Arbitrary, Schema } from "effect"
import type * as Tool from "../../Tool.ts"
import { defaultLimits } from "../../internal/json.ts"
import { oneOf, pick } from "./jsonSchemaArbitrary.ts"
import { verdictOf } from "./verdict.ts"

type Json = Schema.Json

/**
 * A string that generated wrong values carry, and that no result may show the model: what dispatch answers about
 * arguments never repeats a value that was sent.
 */
export const marker = "sent-value-9Qz"

const upTo = (maximum: number): Arbitrary.Arbitrary<number> =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum })))

/** Which change to make, and where: `at` and `pick` choose among the places and the values. */
interface Mutation {
  readonly kind: number
  readonly at: number
  readonly pick: number
}

const mutationKinds = 5

const mutation: Arbitrary.Arbitrary<Mutation> = Arbitrary.all({
  kind: upTo(mutationKinds - 1),
  at: upTo(1_000_000),
  pick: upTo(1_000_000)
})

const typeOf = (value: unknown): string => value === null ? "null" : Array.isArray(value) ? "array" : typeof value

const isContainer = (value: unknown): value is Record<string, Json> | Array<Json> =>
  typeof value === "object" && value !== null

/** Values of every JSON type, one of which is wrong wherever it is put. */
const wrongValues: ReadonlyArray<Json> = [marker, 0.5, true, null, [], {}, -1]

/** Values at or past the bounds schemas set for a value of this type. */
const outOfBounds = (value: Json): ReadonlyArray<Json> => {
  if (typeof value === "number") return [value + 0.5, -1e15, 1e15, value === 0 ? -1 : -value]
  if (typeof value === "string") return ["", marker.repeat(40), marker]
  if (typeof value === "boolean") return [!value]
  if (value === null) return [0]
  if (Array.isArray(value)) return [[], [...value, ...value, ...value, marker]]
  return [{}]
}

/** The value with one change; the value itself is never changed. */
const mutate = (value: Schema.JsonObject, change: Mutation): Json => {
  const root = JSON.parse(JSON.stringify(value)) as Record<string, Json>
  // Every place below the root that holds a value, and every container, found without recursion.
  const places: Array<{ readonly holder: Record<string, Json> | Array<Json>; readonly key: string | number }> = []
  const containers: Array<Record<string, Json> | Array<Json>> = [root]
  const stack: Array<Json> = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (!isContainer(node)) continue
    const keys: ReadonlyArray<string | number> = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node)
    for (const key of keys) {
      const child = (node as Record<string, Json>)[key]!
      places.push({ holder: node, key })
      if (isContainer(child)) {
        containers.push(child)
        stack.push(child)
      }
    }
  }
  const set = (holder: Record<string, Json> | Array<Json>, key: string | number, next: Json) =>
    Object.defineProperty(holder, key, { value: next, enumerable: true, writable: true, configurable: true })
  const place = places.length === 0 ? undefined : places[change.at % places.length]!
  switch (change.kind) {
    case 0: {
      // A key of the arguments themselves: the likeliest to be required.
      const keys = Object.keys(root)
      if (keys.length > 0) delete root[keys[change.at % keys.length]!]
      break
    }
    case 1: {
      if (place === undefined) break
      if (Array.isArray(place.holder)) place.holder.splice(place.key as number, 1)
      else delete place.holder[place.key]
      break
    }
    case 2: {
      if (place === undefined) {
        // Nothing to change inside: the arguments themselves become something that is no object.
        const scalars = wrongValues.filter((wrong) => wrong !== null && typeOf(wrong) !== "object")
        return scalars[change.pick % scalars.length]!
      }
      const current = (place.holder as Record<string, Json>)[place.key]!
      const wrong = wrongValues.filter((candidate) => typeOf(candidate) !== typeOf(current))
      set(place.holder, place.key, wrong[change.pick % wrong.length]!)
      break
    }
    case 3: {
      const objects = containers.filter((container) => !Array.isArray(container))
      const target = objects[change.at % objects.length]!
      set(target, Object.hasOwn(target, "unexpected_key") ? `unexpected_key_${change.pick}` : "unexpected_key", marker)
      break
    }
    default: {
      if (place === undefined) break
      const options = outOfBounds((place.holder as Record<string, Json>)[place.key]!)
      set(place.holder, place.key, options[change.pick % options.length]!)
    }
  }
  return root
}

const nonObject: Arbitrary.Arbitrary<Json> = Arbitrary.schema(
  Schema.Union([Schema.Finite, Schema.Boolean, Schema.Array(Schema.Json)])
).pipe(Arbitrary.map((value): Json => typeof value === "number" ? value + 0 : value))

const nonObjectText: Arbitrary.Arbitrary<Json> = Arbitrary.map(
  Arbitrary.schema(Schema.Union([Schema.Finite, Schema.Boolean, Schema.String, Schema.Array(Schema.Json)])),
  (value) => JSON.stringify(value)
)

const junk: ReadonlyArray<string> = ["x", "}", ",", " 1", "]", `"${marker}"`]

/** Refused by every tool under the default limits: deeper than the argument depth limit. */
const tooDeep = (levels: number): Json => {
  let value: Json = []
  for (let i = 1; i < levels; i++) value = [value]
  return { nested: value }
}

/** Arguments the tool must refuse: see the module's description. */
export const invalidArgumentsOf = (
  tool: Tool.Any,
  valid: Arbitrary.Arbitrary<Schema.JsonObject>
): Arbitrary.Arbitrary<Json> => {
  const verdict = verdictOf(tool)
  const nearMiss = Arbitrary.map(
    Arbitrary.all([valid, Arbitrary.array(mutation, { minLength: 3, maxLength: 3 }), nonObject]),
    ([value, changes, fallback]): Json => {
      for (const change of changes) {
        const changed = mutate(value, change)
        if (verdict(changed) === "refused") return changed
      }
      // Nothing tried was refused (the tool accepts any object, say): a value that is no object is.
      return fallback
    }
  )
  const nearMissText = Arbitrary.map(nearMiss, (value): Json => {
    const text = JSON.stringify(value)
    return verdict(text) === "refused" ? text : "{"
  })
  const broken = Arbitrary.map(Arbitrary.all([valid, upTo(1_000_000), pick(junk), Arbitrary.schema(Schema.Boolean)]), ([
    value,
    at,
    extra,
    truncate
  ]): Json => {
    // A proper, non-empty prefix of an object's text is never JSON, and nor is anything after a whole one.
    const text = JSON.stringify(value)
    return truncate ? text.slice(0, 1 + at % (text.length - 1)) : text + extra
  })
  const deep = Arbitrary.map(upTo(15), (extra) => tooDeep(defaultLimits.maxDepth + 1 + extra))
  // Near misses most often: they are what tells a tool's checks apart.
  return oneOf([
    nearMiss,
    nearMiss,
    nearMiss,
    nearMissText,
    nearMissText,
    broken,
    broken,
    nonObjectText,
    nonObject,
    deep
  ])
}
