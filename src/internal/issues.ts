/**
 * Schema issues, written for a model to act on: every failing path and what was expected there, never the text of
 * the values that were sent.
 *
 * The text of an issue comes from two places. The Schema's own annotations and structure (`Expected an integer`,
 * `Expected "a" | "b"`, an author's `message`) are fixed when the tool is defined, before any call, so they cannot
 * carry what a call sent. The issues a transformation or a filter builds while decoding (`InvalidValue`,
 * `Forbidden`) carry text made at that moment, often from the value itself: `Invalid SemVer "sk-live-123"`. Such
 * text is kept only when it shares nothing with the value the issue is about (which the parser reports with
 * `reportInput`); otherwise, or when the value is unknown, the line says what was expected there instead. Effect's
 * formatter then runs on issues that carry no value, so its own messages never print one either.
 */
import * as SchemaIssue from "effect/SchemaIssue"
import type * as SchemaAST from "effect/SchemaAST"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** How much of a name or key a message repeats: names and keys may come from what was sent, of any length. */
const maxEchoedLength = 64

/** The first `max` characters of `text`, never cut between a surrogate pair's halves. */
export const cutAt = (text: string, max: number): string => {
  if (text.length <= max) return text
  const last = text.charCodeAt(max - 1)
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max)
}

/** The first 64 characters of `text` (or `max`), then `…` when there were more: {@link cutAt}, marked. */
export const bounded = (text: string, max: number = maxEchoedLength): string =>
  text.length <= max ? text : `${cutAt(text, max)}…`

/** `$.a.b`, `$.items[3]`, `$["weird key"]`: the path of an argument issue, each key bounded as names are. */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string => {
  let out = "$"
  for (const key of path) {
    if (typeof key === "number") {
      out += `[${key}]`
      continue
    }
    const segment = bounded(String(key))
    out += typeof key === "string" && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)
      ? `.${segment}`
      : `[${JSON.stringify(segment)}]`
  }
  return out
}

/** One line per failing path: `- $.left: Expected an integer`. */
export const formatIssues = (issue: SchemaIssue.Issue): string =>
  formatter(sanitize(issue, undefined, fallbackMessage)).issues
    .map(({ message, path }) =>
      `- ${formatPath((path ?? []).map((segment) => typeof segment === "object" ? segment.key : segment))}: ${message}`
    )
    .join("\n")

/** The value an issue is about, when the parser reported it. */
type Reported = { readonly value: unknown } | undefined

const fallbackMessage = "Expected a valid value"

/**
 * The same issue tree, with no reported values, and with the text made while decoding kept only where it does not
 * repeat the value. `fallback` is what the nearest enclosing filter or transformation says was expected, for a
 * message that has to go.
 */
const sanitize = (issue: SchemaIssue.Issue, outer: Reported, fallback: string): SchemaIssue.Issue => {
  const reported: Reported = SchemaIssue.hasInput(issue) ? { value: issue.input } : outer
  switch (issue._tag) {
    case "Filter":
      return new SchemaIssue.Filter(issue.filter, sanitize(issue.issue, reported, expectedOfCheck(issue.filter)))
    case "Encoding":
      return new SchemaIssue.Encoding(issue.ast, sanitize(issue.issue, reported, expectedOfAst(issue.ast)))
    case "Pointer":
      return new SchemaIssue.Pointer(issue.path, sanitize(issue.issue, reported, fallback))
    case "Composite":
      return new SchemaIssue.Composite(
        issue.ast,
        issue.issues.map((inner) => sanitize(inner, reported, fallback)) as [SchemaIssue.Issue, ...Array<SchemaIssue.Issue>]
      )
    case "AnyOf":
      return new SchemaIssue.AnyOf(issue.ast, issue.issues.map((inner) => sanitize(inner, reported, fallback)))
    case "InvalidType":
      return new SchemaIssue.InvalidType(issue.ast)
    case "InvalidValue":
      return new SchemaIssue.InvalidValue(safeAnnotations(issue.annotations, reported, fallback))
    case "Forbidden":
      return new SchemaIssue.Forbidden(safeAnnotations(issue.annotations, reported, fallback))
    case "UnexpectedKey":
      return new SchemaIssue.UnexpectedKey(issue.ast)
    case "OneOf":
      return new SchemaIssue.OneOf(issue.ast, issue.successes)
    case "MissingKey":
      return issue
  }
}

/** The annotations of an issue made while decoding, without the text that repeats the value. */
const safeAnnotations = (
  annotations: SchemaIssue.InvalidValue["annotations"],
  reported: Reported,
  fallback: string
): SchemaIssue.InvalidValue["annotations"] => {
  if (annotations === undefined) return { message: fallback }
  const message = typeof annotations.message === "string" && !repeats(annotations.message, reported)
    ? annotations.message
    : undefined
  const expected = typeof annotations.expected === "string" && !repeats(annotations.expected, reported)
    ? annotations.expected
    : undefined
  if (message !== undefined) return expected === undefined ? { message } : { message, expected }
  return expected !== undefined ? { expected } : { message: fallback }
}

/** What a check expects, from its own annotations: the fixed text a filter's failure falls back to. */
const expectedOfCheck = (check: SchemaAST.Filter<any>): string => {
  const annotations = check.annotations
  if (typeof annotations?.message === "string") return annotations.message
  const expected = [annotations?.expected, annotations?.title, annotations?.description]
    .find((text) => typeof text === "string")
  return expected === undefined ? fallbackMessage : `Expected ${expected}`
}

/**
 * What a Schema expects, from its own annotations: fixed text of the Schema. Its bare type is no help here: the
 * value had that type (a string, say) and still failed the transformation.
 */
const expectedOfAst = (ast: SchemaAST.AST): string => {
  const annotations = ast.annotations
  if (typeof annotations?.message === "string") return annotations.message
  const named = [annotations?.expected, annotations?.title, annotations?.identifier, annotations?.description]
    .find((text) => typeof text === "string")
  return named === undefined ? fallbackMessage : `Expected ${named}`
}

// Values shorter than this are ordinary words and characters that any text contains ("a", "to", "1"): they cannot
// be told apart from the message's own text, and repeating one reveals nothing.
const minimumLength = 3
// A message repeats a longer value when it holds any run of this many of its characters: a message that quotes a
// part of the value (a prefix, the piece that failed to parse, a few characters of it) gives that part away too.
// Three is the shortest run that is not an ordinary word or character of any text; a constant message that shares
// one with the value only loses its wording, for what the check expected.
const runLength = minimumLength

/**
 * Whether `text` repeats the reported value: any string or key inside it, or its JSON or `String` form, compared
 * without regard to case. An issue whose value was not reported may repeat anything, so it is treated as if it did.
 */
const repeats = (text: string, reported: Reported): boolean => {
  if (reported === undefined) return true
  const haystack = text.toLowerCase()
  let runs: Set<string> | undefined
  for (const needle of textsOf(reported.value)) {
    const lower = needle.toLowerCase()
    if (lower.length < minimumLength) continue
    if (lower.length <= runLength) {
      if (haystack.includes(lower)) return true
      continue
    }
    if (haystack.length < runLength) continue
    if (runs === undefined) {
      runs = new Set()
      for (let i = 0; i + runLength <= haystack.length; i++) runs.add(haystack.slice(i, i + runLength))
    }
    for (let i = 0; i + runLength <= lower.length; i++) {
      if (runs.has(lower.slice(i, i + runLength))) return true
    }
  }
  return false
}

/** Every text a value holds or shows as: its strings and keys (also as JSON escapes them), and its printed forms. */
const textsOf = (value: unknown): Array<string> => {
  const texts: Array<string> = []
  const seen = new Set<object>()
  const addString = (s: string) => {
    texts.push(s)
    const escaped = JSON.stringify(s).slice(1, -1)
    if (escaped !== s) texts.push(escaped)
  }
  const visit = (u: unknown): void => {
    switch (typeof u) {
      case "string":
        return addString(u)
      case "number":
      case "bigint":
      case "boolean":
        return void texts.push(String(u))
      case "symbol":
        return addString(u.description ?? "")
      case "object": {
        if (u === null || seen.has(u)) return
        seen.add(u)
        const shown = printed(u)
        if (shown !== undefined) addString(shown)
        if (Array.isArray(u)) {
          // Indexes are the array's, not text that was sent.
          for (const inner of u) visit(inner)
          return
        }
        for (const [key, inner] of Object.entries(u)) {
          addString(key)
          visit(inner)
        }
        return
      }
      default:
        return
    }
  }
  visit(value)
  return texts
}

/** The JSON form of a plain object or array, the `String` form of anything else (a URL, a Date): what a message may print. */
const printed = (u: object): string | undefined => {
  try {
    const proto = Object.getPrototypeOf(u)
    return Array.isArray(u) || proto === Object.prototype || proto === null ? JSON.stringify(u) : String(u)
  } catch {
    // A value that cannot be printed (a cycle, a BigInt inside) cannot be printed into a message either.
    return undefined
  }
}
