/**
 * Hostile JavaScript for the totality check: arguments that are no JSON (cycles, proxies and getters that throw,
 * bigints, class instances), past the argument limits, and entries of a call list that are no call at all. Each is
 * named by a kind, so that a generated case prints as plain data, and is built fresh when a property runs it: a
 * throwing proxy could not be printed, and a value that was read once must not be read again.
 */
import { defaultLimits } from "../../internal/json.ts"

/** Arguments that are not JSON, or are past the default limits: dispatch refuses every one with `invalid_args`. */
export const hostileKinds = [
  "cycle",
  "throwingProxy",
  "throwingGetter",
  "bigint",
  "nestedBigint",
  "nan",
  "infinity",
  "function",
  "symbol",
  "date",
  "map",
  "classInstance",
  "deepValue",
  "deepText",
  "largeText",
  "largeValue"
] as const

/** A kind of hostile arguments. */
export type HostileKind = typeof hostileKinds[number]

/** Entries of a call list that are no call: dispatch answers each with `not_found`, with an empty id and name. */
export const malformedKinds = ["null", "number", "string", "throwingProxy", "numericFields"] as const

/** A kind of malformed call. */
export type MalformedKind = typeof malformedKinds[number]

const throwing = (): object => {
  const trap = () => {
    throw new Error("hostile trap")
  }
  return new Proxy({}, { get: trap, has: trap, ownKeys: trap, getPrototypeOf: trap, getOwnPropertyDescriptor: trap })
}

const deepArrays = (levels: number): unknown => {
  let value: unknown = []
  for (let i = 1; i < levels; i++) value = [value]
  return value
}

class Point {
  readonly x = 1
  readonly y = 2
}

let large: string | undefined
/** A string one byte past the default argument size, made once. */
const largeString = (): string => (large ??= "x".repeat(defaultLimits.maxBytes + 1))

/** A fresh hostile value of this kind. */
export const hostileValue = (kind: HostileKind): unknown => {
  switch (kind) {
    case "cycle": {
      const value: Record<string, unknown> = { inner: {} }
      ;(value.inner as Record<string, unknown>).outer = value
      return value
    }
    case "throwingProxy":
      return throwing()
    case "throwingGetter":
      return Object.defineProperty({}, "secret", {
        enumerable: true,
        get: () => {
          throw new Error("hostile getter")
        }
      })
    case "bigint":
      return 10n
    case "nestedBigint":
      return { amount: 10n }
    case "nan":
      return { value: Number.NaN }
    case "infinity":
      return { value: Number.POSITIVE_INFINITY }
    case "function":
      return { callback: () => 1 }
    case "symbol":
      return { tag: Symbol("hostile") }
    case "date":
      return new Date(0)
    case "map":
      return new Map([["a", 1]])
    case "classInstance":
      return new Point()
    case "deepValue":
      return { nested: deepArrays(5000) }
    case "deepText":
      return `{"nested":${"[".repeat(5000)}${"]".repeat(5000)}}`
    case "largeText":
      return `{"text":"${largeString()}"}`
    case "largeValue":
      return { text: largeString() }
  }
}

/** A fresh malformed call of this kind. */
export const malformedCall = (kind: MalformedKind): unknown => {
  switch (kind) {
    case "null":
      return null
    case "number":
      return 42
    case "string":
      return "not a call"
    case "throwingProxy":
      return throwing()
    case "numericFields":
      return { id: 1, name: 2, arguments: {} }
  }
}
