/**
 * Schema issues, written for a model to act on: every failing path and what was expected there, never the values
 * that were sent. Parsers run with `reportInput` off (Effect's default), so built-in issues carry no input to leak.
 */
import * as SchemaIssue from "effect/SchemaIssue"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const formatPath = (path: ReadonlyArray<PropertyKey>): string => {
  let out = "$"
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`
    else if (typeof key === "string" && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) out += `.${key}`
    else out += `[${JSON.stringify(String(key))}]`
  }
  return out
}

// Effect's JSON codec for `Schema.Number` also accepts these three strings, and says so when a value fails. A model
// told `Expected "Infinity" | "-Infinity" | "NaN"` for `"5"` is steered the wrong way: it should send a number.
const nonFinite = `"Infinity" | "-Infinity" | "NaN"`

const forModel = (message: string): string =>
  message.includes(nonFinite) ? message.replace(`number | ${nonFinite}`, "number").replace(nonFinite, "number") : message

/** One line per failing path: `- $.left: Expected an integer`. */
export const formatIssues = (issue: SchemaIssue.Issue): string =>
  formatter(issue).issues
    .map(({ message, path }) =>
      `- ${formatPath((path ?? []).map((segment) => typeof segment === "object" ? segment.key : segment))}: ${
        forModel(message)
      }`
    )
    .join("\n")
