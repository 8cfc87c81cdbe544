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

/** One line per failing path: `- $.left: Expected an integer`. */
export const formatIssues = (issue: SchemaIssue.Issue): string =>
  formatter(issue).issues
    .map(({ message, path }) => `- ${formatPath((path ?? []).map((segment) => typeof segment === "object" ? segment.key : segment))}: ${message}`)
    .join("\n")
