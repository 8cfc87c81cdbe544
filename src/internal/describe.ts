/**
 * Names for failures and values that say what they are without their contents: safe for operator messages that
 * must not carry argument values or error text.
 */
import { Predicate } from "effect"

/**
 * A value's tag or class name, or its type. Total: a value whose properties throw when read (a hostile proxy, a
 * getter) is "an unreadable value".
 */
export const describeError = (error: unknown): string => {
  try {
    if (Predicate.hasProperty(error, "_tag") && typeof error._tag === "string") return error._tag
    if (error instanceof Error) return error.name
    if (error === null) return "null"
    if (typeof error === "object") return error.constructor?.name ?? "an object"
    return `a ${typeof error}`
  } catch {
    return "an unreadable value"
  }
}
