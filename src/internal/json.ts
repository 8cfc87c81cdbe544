/**
 * JSON at the boundary: tool arguments parsed under limits, and values read into frozen plain JSON copies before they
 * are shown to a model. Every function here is total: it returns a `Result`, never throws, and never recurses on
 * input, so no input can overflow the stack.
 */
import { Result, type Schema } from "effect"

/** Limits on a JSON value: how large its text may be, and how deep it may nest. */
export interface JsonLimits {
  /** The most UTF-8 bytes of JSON text (see {@link copyJson} for how a value's text is counted). */
  readonly maxBytes: number
  /** The deepest nesting of arrays and objects: the outermost one is level 1. */
  readonly maxDepth: number
}

/** The argument limits: 1 MiB of text and 64 levels of nesting. */
export const defaultLimits: JsonLimits = { maxBytes: 1024 * 1024, maxDepth: 64 }

/**
 * The output limits: 8 MiB of JSON text and 128 levels of nesting. V8's `JSON.stringify` and `JSON.parse` recurse,
 * and give up with a RangeError a few thousand levels down: 128 leaves every renderer far from that.
 */
export const defaultOutputLimits: JsonLimits = { maxBytes: 8 * 1024 * 1024, maxDepth: 128 }

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

/** The UTF-8 length of a string, computed only as far as needed to compare with `limit`. */
export const utf8LengthExceeds = (text: string, limit: number): boolean => {
  // Each UTF-16 unit encodes to at most 3 bytes, and to at least 1.
  if (text.length * 3 <= limit) return false
  if (text.length > limit) return true
  return utf8LengthUpTo(text, limit) > limit
}

/**
 * The UTF-8 length of a string, counted only until it exceeds `limit` (then some length above it). A lone surrogate
 * is encoded as U+FFFD, three bytes, as `TextEncoder` writes it.
 */
export const utf8LengthUpTo = (text: string, limit: number): number => {
  let bytes = 0
  for (let i = 0; i < text.length && bytes <= limit; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (isHighSurrogate(code) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4 // a surrogate pair: four bytes for the two units
      i++
    } else bytes += 3
  }
  return bytes
}

/** The nesting depth of JSON text, scanning only as far as needed to compare with `limit`. */
const textDepthExceeds = (text: string, limit: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (inString) {
      if (code === 92 /* \ */) i++
      else if (code === 34 /* " */) inString = false
    } else if (code === 34) inString = true
    else if (code === 123 /* { */ || code === 91 /* [ */) {
      if (++depth > limit) return true
    } else if (code === 125 /* } */ || code === 93 /* ] */) depth--
  }
  return false
}

/** Why arguments were rejected, in words the model can act on. */
export type ArgumentsFailure =
  | { readonly _tag: "ParseError"; readonly reason: string }
  | { readonly _tag: "NotAnObject" }

/** The result of reading a call's arguments: the parsed JSON object, or why not. */
export interface ParsedArguments {
  /** The parsed value (or the raw text when parsing failed), kept for the `ToolResult`. */
  readonly value: unknown
  readonly result: Result.Result<{ readonly [key: string]: unknown }, ArgumentsFailure>
}

const emptyObject = (): ParsedArguments => {
  const value = {}
  return { value, result: Result.succeed(value) }
}

const parseFailure = (value: unknown, reason: string): ParsedArguments => ({
  value,
  result: Result.fail({ _tag: "ParseError", reason })
})

/**
 * Why JSON text did not parse, in words that never quote it. V8 describes the grammar error and its position, but some
 * of its messages also repeat the text around the error (a password the model put in the arguments, say): only the
 * grammar words and the position are kept.
 */
const syntaxErrorReason = (error: unknown): string => {
  const message = error instanceof SyntaxError ? error.message : ""
  const located = /^([^"]*?) (in|after) JSON at position (\d+)/.exec(message)
  if (located !== null) {
    return `${located[1]}${located[2] === "after" ? " after the JSON value" : ""} at position ${located[3]}`
  }
  if (message.startsWith("Unexpected end of JSON input")) return "Unexpected end of JSON input"
  if (message.startsWith("Unexpected token")) return "Unexpected token"
  return "invalid JSON"
}

/**
 * Reads a tool call's arguments, given as JSON text or as an already-parsed value. Empty text, `undefined` and
 * `null` mean `{}`. Text over `maxBytes`, nesting over `maxDepth`, bad JSON and anything but an object are failures.
 */
export const parseArguments = (input: unknown, limits: JsonLimits): ParsedArguments => {
  let value: unknown
  if (typeof input === "string") {
    if (utf8LengthExceeds(input, limits.maxBytes)) {
      return parseFailure(input, `the arguments are larger than ${limits.maxBytes} bytes`)
    }
    if (input.trim() === "") return emptyObject()
    // Nesting needs one bracket a level, so text no longer than the limit cannot exceed it.
    if (input.length > limits.maxDepth && textDepthExceeds(input, limits.maxDepth)) {
      return parseFailure(input, `the arguments are nested deeper than ${limits.maxDepth} levels`)
    }
    try {
      value = JSON.parse(input)
    } catch (error) {
      return parseFailure(input, syntaxErrorReason(error))
    }
  } else {
    if (input === null || input === undefined) return emptyObject()
    // An already-parsed value is whatever the caller built: it may be cyclic, shared, non-JSON, or have getters and
    // proxy traps that throw or answer differently each time. It is read once, into a frozen plain JSON copy, under
    // the same limits as text; the copy is what the tool and the result see.
    const copied = copyJson(input, limits)
    if (Result.isFailure(copied)) {
      const failure = copied.failure
      switch (failure._tag) {
        case "NotJson":
          // A class instance (a Date, a Map) or a scalar is not a JSON object, whatever its fields.
          return failure.path === "$"
            ? { value: input, result: Result.fail({ _tag: "NotAnObject" }) }
            : parseFailure(input, `the arguments are not JSON: ${failure.path} is ${failure.what}, not JSON`)
        case "TooDeep":
          // A value built in memory may also hold itself, which no JSON text can: it reaches any depth.
          return parseFailure(
            input,
            `the arguments are nested deeper than ${limits.maxDepth} levels, or contain themselves`
          )
        case "TooLarge":
          return parseFailure(input, `the arguments are larger than ${limits.maxBytes} bytes`)
        case "Unreadable":
          return parseFailure(input, "the arguments could not be read")
      }
    }
    value = copied.success
  }
  if (value === null || value === undefined) return emptyObject()
  if (typeof value !== "object" || Array.isArray(value)) {
    return { value, result: Result.fail({ _tag: "NotAnObject" }) }
  }
  return { value, result: Result.succeed(value as { readonly [key: string]: unknown }) }
}


/**
 * Why a value could not be copied as JSON. `path` is where, as `$.key[0]` (`$` for the value itself); `what` names
 * what was there without its contents. A value that exceeds a limit because it is cyclic says where the cycle closes.
 */
export type CopyFailure =
  | { readonly _tag: "NotJson"; readonly path: string; readonly what: string }
  | { readonly _tag: "TooDeep"; readonly cycle: string | undefined }
  | { readonly _tag: "TooLarge"; readonly cycle: string | undefined }
  | { readonly _tag: "Unreadable" }

/**
 * The base of a private stamp: a constructor that returns `target` makes it the instance, so a subclass's private
 * fields are added to `target` itself.
 */
export class Stamp {
  constructor(target: object) {
    return target as Stamp
  }
}

/**
 * Marks the roots of the copies `copyJson` made within the default output limits: they need no second look. A
 * private field, unlike a WeakSet entry per output, costs the garbage collector nothing, and unlike a property it
 * is invisible to keys, JSON and deep equality, and cannot be forged or copied.
 */
class Produced extends Stamp {
  #produced = true
  static stamp(copy: object): void {
    new Produced(copy)
  }
  static has(value: object): boolean {
    return #produced in value
  }
}

const unreadable: Result.Result<never, CopyFailure> = Result.fail({ _tag: "Unreadable" })
const tooLarge: Result.Result<never, CopyFailure> = Result.fail({ _tag: "TooLarge", cycle: undefined })

/**
 * Reads a value once into a plain, deeply frozen JSON copy: plain objects (with `Object.prototype`, whatever the
 * source's was) and arrays of strings, finite numbers, booleans and null. Object fields that are `undefined` are
 * dropped, as `JSON.stringify` does; every other value (NaN, a BigInt, a Date or any class instance, a function, a
 * symbol, `undefined` in an array) fails, naming its path. Each property is read exactly once, so a getter or a proxy
 * that answers differently on each read cannot make the copy differ from what was checked; one that throws makes the
 * copy fail as `Unreadable`.
 *
 * The copy is held to `limits` as it is made, in one walk. Its size is the UTF-8 length of its `JSON.stringify` text:
 * exact for strings and keys (escapes included), brackets, separators and integers below 1e21; any other number is
 * counted as 25 bytes, the longest a double prints, an over-estimate that saves printing it. A sub-value shared
 * between several places is copied, and counted, once per place, as its text would be: the walk is bounded by the
 * byte limit, whatever the sharing. A cycle exceeds the depth limit.
 */
export const copyJson = (value: unknown, limits: JsonLimits): Result.Result<Schema.Json, CopyFailure> => {
  // The common scalar results need no walk; the limit is compared to their text only when it could matter.
  switch (typeof value) {
    case "string":
      return value.length * 6 + 2 <= limits.maxBytes || stringBytes(value) <= limits.maxBytes
        ? Result.succeed(value)
        : tooLarge
    case "number":
      if (!Number.isFinite(value)) return notJson("$", String(value))
      return limits.maxBytes >= 25 || numberBytes(value) <= limits.maxBytes ? Result.succeed(value) : tooLarge
    case "boolean":
      return limits.maxBytes >= 5 || (value ? 4 : 5) <= limits.maxBytes ? Result.succeed(value) : tooLarge
    case "object":
      if (value === null) return limits.maxBytes >= 4 ? Result.succeed(null) : tooLarge
      try {
        return copyTree(value, limits)
      } catch {
        // A getter or a proxy trap threw while the value was read.
        return unreadable
      }
    default:
      return notJson("$", typeof value)
  }
}

/**
 * The value as a frozen plain JSON copy within the default output limits, or why not, in words for operators. A copy
 * this module made within those limits is answered as it is, in O(1): what dispatch put in a result is never walked
 * again. Provider adapters render Json blocks through this.
 */
export const toJsonValue = (value: unknown): Result.Result<Schema.Json, string> => {
  if (typeof value === "object" && value !== null && Produced.has(value)) return Result.succeed(value as Schema.Json)
  const copied = copyJson(value, defaultOutputLimits)
  return Result.isSuccess(copied)
    ? Result.succeed(copied.success)
    : Result.fail(describeOutputFailure(copied.failure, defaultOutputLimits))
}

/** Why an output could not be copied, for operators. */
export const describeOutputFailure = (failure: CopyFailure, limits: JsonLimits): string => {
  switch (failure._tag) {
    case "NotJson":
      return failure.path === "$"
        ? `the output is ${failure.what}, not JSON`
        : `${failure.path} is ${failure.what}, not JSON`
    case "TooDeep":
      return failure.cycle !== undefined
        ? `${failure.cycle} is a cycle, not JSON`
        : `the output is nested deeper than ${limits.maxDepth} levels`
    case "TooLarge":
      return failure.cycle !== undefined
        ? `${failure.cycle} is a cycle, not JSON`
        : `the output is larger than ${limits.maxBytes} bytes of JSON text`
    case "Unreadable":
      return "the value could not be read"
  }
}

const notJson = (path: string, what: string): Result.Result<never, CopyFailure> =>
  Result.fail({ _tag: "NotJson", path, what })

/** What a value that is not JSON is, without its contents. */
const describe = (value: unknown): string => {
  if (value === undefined) return "undefined"
  if (typeof value === "number") return String(value)
  if (typeof value === "object" && value !== null) return value.constructor?.name ?? "an object without prototype"
  return typeof value
}

/** The bytes of a string as JSON text: its UTF-8 length once escaped, with its quotes. */
const stringBytes = (text: string): number => {
  const length = text.length
  // Keys and most values are printable ASCII without quotes or backslashes: a byte each.
  let i = 0
  for (; i < length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x20 || code > 0x7e || code === 34 || code === 92) break
  }
  return i === length ? length + 2 : length + 2 + extraBytes(text, i)
}

/** The bytes beyond one a unit that the units of `text` from `from` on take in JSON text. */
const extraBytes = (text: string, from: number): number => {
  let extra = 0
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0x20 && code < 0x80) {
      if (code === 34 /* " */ || code === 92 /* \ */) extra += 1
    } else if (code < 0x20) {
      // \b \t \n \f \r take two bytes, other control characters six (\u00XX).
      extra += code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 1 : 5
    } else if (code < 0x800) extra += 1
    else if (isHighSurrogate(code) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      extra += 2 // four bytes for the pair's two units
      i++
    } else if (code >= 0xd800 && code <= 0xdfff) extra += 5 // a lone surrogate is escaped: \uD800
    else extra += 2
  }
  return extra
}

/** The bytes of a finite number as JSON text: exact for integers below 1e21, 25 (the most) for others. */
const numberBytes = (n: number): number => {
  const magnitude = n < 0 ? -n : n
  const sign = n < 0 ? 1 : 0
  if (magnitude < 1e6 && (magnitude | 0) === magnitude) {
    const digits = magnitude < 10 ? 1 : magnitude < 100 ? 2 : magnitude < 1e3 ? 3 : magnitude < 1e4 ? 4 : magnitude < 1e5 ? 5 : 6
    return sign + digits
  }
  if (!Number.isInteger(n) || magnitude >= 1e21) return 25
  let digits = sign + 1
  for (let power = 10; power <= magnitude; power *= 10) digits++
  return digits
}

/** An array or object being copied, kept on the stack while the walk is below it. */
interface Level {
  readonly source: any
  /** The keys of an object; `undefined` for an array. */
  readonly keys: ReadonlyArray<string> | undefined
  readonly length: number
  /** The next entry to read; the one read last is `index - 1`. */
  readonly index: number
  /** How many entries the copy holds. */
  readonly written: number
  readonly copy: any
}

const tooDeep = (cycle: string | undefined): Result.Result<never, CopyFailure> =>
  Result.fail({ _tag: "TooDeep", cycle })

const tooLargeAt = (cycle: string | undefined): Result.Result<never, CopyFailure> =>
  Result.fail({ _tag: "TooLarge", cycle })

const copyTree = (root: object, limits: JsonLimits): Result.Result<Schema.Json, CopyFailure> => {
  const maxBytes = limits.maxBytes
  const maxDepth = limits.maxDepth
  // The array or object being copied lives in these variables (a stack frame is made only to go below it): a flat
  // value, the most common result, is copied without any.
  let source: any = root
  let keys: ReadonlyArray<string> | undefined
  let length: number
  let copy: any
  if (Array.isArray(root)) {
    keys = undefined
    length = root.length
    copy = []
  } else {
    const proto = Object.getPrototypeOf(root)
    if (proto !== Object.prototype && proto !== null) return notJson("$", describe(root))
    keys = Object.keys(root)
    length = keys.length
    copy = {}
  }
  if (maxDepth < 1) return tooDeep(undefined)
  let index = 0
  let written = 0
  let stack: Array<Level> | undefined
  // An array or object counts its opening bracket when it is opened, and each entry the one character that follows
  // it: a comma, or the closing bracket after the last. An empty one counts its closing bracket when it is done.
  let bytes = 1
  for (;;) {
    if (index < length) {
      let key: string | number
      let child: unknown
      if (keys === undefined) {
        key = index++
        child = source[key]
        bytes += 1
      } else {
        key = keys[index++]!
        child = source[key]
        // Dropped, as JSON does.
        if (child === undefined) continue
        bytes += stringBytes(key) + 2 // the key, its colon, and what follows the entry
      }
      switch (typeof child) {
        case "string":
          // Each unit is a byte at least: a string far over the limit is not scanned.
          bytes += child.length + 2 > maxBytes - bytes ? child.length + 2 : stringBytes(child)
          break
        case "number":
          if (!Number.isFinite(child)) return notJson(pathOf(stack, key), String(child))
          bytes += numberBytes(child)
          break
        case "boolean":
          bytes += child ? 4 : 5
          break
        case "object": {
          if (child === null) {
            bytes += 4
            break
          }
          let childKeys: ReadonlyArray<string> | undefined
          if (!Array.isArray(child)) {
            const proto = Object.getPrototypeOf(child)
            if (proto !== Object.prototype && proto !== null) return notJson(pathOf(stack, key), describe(child))
            childKeys = Object.keys(child)
          }
          const depth = stack === undefined ? 1 : stack.length + 1
          if (depth >= maxDepth) return tooDeep(cycleOf(stack, source, key, child))
          ;(stack ??= []).push({ source, keys, length, index, written, copy })
          source = child
          keys = childKeys
          length = childKeys === undefined ? (child as Array<unknown>).length : childKeys.length
          copy = childKeys === undefined ? [] : {}
          index = 0
          written = 0
          bytes += 1
          if (bytes > maxBytes) return tooLargeAt(cycleOf(stack, source, undefined, undefined))
          continue
        }
        default:
          return notJson(pathOf(stack, key), describe(child))
      }
      if (bytes > maxBytes) return tooLargeAt(cycleOf(stack, source, undefined, undefined))
      written++
      if (keys === undefined) copy.push(child)
      // A `__proto__` key stays a key and never becomes a prototype.
      else if (key === "__proto__") defineField(copy, key, child)
      else copy[key] = child
      continue
    }
    // Done with this array or object: freeze it and hand it to its parent.
    if (written === 0 && ++bytes > maxBytes) return tooLarge
    const done = copy
    const parent = stack?.pop()
    if (parent === undefined) {
      if (maxDepth <= defaultOutputLimits.maxDepth && bytes <= defaultOutputLimits.maxBytes) Produced.stamp(done)
      return Result.succeed(Object.freeze(done))
    }
    source = parent.source
    keys = parent.keys
    length = parent.length
    index = parent.index
    written = parent.written + 1
    copy = parent.copy
    if (keys === undefined) copy.push(Object.freeze(done))
    else {
      const key = keys[index - 1]!
      if (key === "__proto__") defineField(copy, key, Object.freeze(done))
      else copy[key] = Object.freeze(done)
    }
  }
}

/** The key under which a level read its last entry. */
const keyAt = (level: Level): string | number =>
  level.keys === undefined ? level.index - 1 : level.keys[level.index - 1]!

const appendKey = (path: string, key: string | number): string =>
  typeof key === "number" ? `${path}[${key}]` : `${path}.${key}`

/** The path of `key` in the array or object being read, for a failure message: built only when one is needed. */
const pathOf = (stack: ReadonlyArray<Level> | undefined, key: string | number): string => {
  let path = "$"
  if (stack !== undefined) for (const outer of stack) path = appendKey(path, keyAt(outer))
  return appendKey(path, key)
}

/**
 * Where the path being walked first reaches an array or object it is already inside, if it does: the reason a limit
 * was exceeded, for a cyclic value. `source` is the array or object being read, `key` where in it `child` was found.
 * Only a failing walk asks.
 */
const cycleOf = (
  stack: ReadonlyArray<Level> | undefined,
  source: object,
  key: string | number | undefined,
  child: object | undefined
): string | undefined => {
  const seen = new Set<object>()
  let path = "$"
  for (const level of stack ?? []) {
    if (seen.has(level.source)) return path
    seen.add(level.source)
    path = appendKey(path, keyAt(level))
  }
  if (seen.has(source)) return path
  if (child === undefined || key === undefined) return undefined
  seen.add(source)
  path = appendKey(path, key)
  return seen.has(child) ? path : undefined
}

/** Sets a field as an own data property: a `__proto__` key stays a key and never becomes a prototype. */
export const defineField = (target: Record<string, unknown>, key: string, value: unknown) => {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * JSON text in which equal values are equal strings, whatever the order of their objects' keys (sorted); `undefined`
 * for what JSON cannot hold, as `JSON.stringify` gives.
 */
export const canonicalJson = (value: unknown): string | undefined =>
  JSON.stringify(value, (_key, node: unknown) =>
    typeof node === "object" && node !== null && !Array.isArray(node)
      ? Object.fromEntries(Object.keys(node).sort().map((key) => [key, (node as Record<string, unknown>)[key]]))
      : node)

/**
 * Freezes JSON (plain objects and arrays) in place, without recursion: a tool's arguments may be of any depth the
 * host allows. Frozen nodes, as the copies of already-parsed values are, are not walked again; a flat object needs no
 * stack.
 */
export const deepFreeze = (root: unknown): void => {
  let node = root
  let stack: Array<object> | undefined
  for (;;) {
    if (typeof node === "object" && node !== null && !Object.isFrozen(node)) {
      Object.freeze(node)
      if (Array.isArray(node)) {
        for (let i = 0; i < node.length; i++) {
          const child: unknown = node[i]
          if (typeof child === "object" && child !== null) (stack ??= []).push(child)
        }
      } else {
        for (const key in node) {
          const child: unknown = (node as Record<string, unknown>)[key]
          if (typeof child === "object" && child !== null) (stack ??= []).push(child)
        }
      }
    }
    if (stack === undefined || stack.length === 0) return
    node = stack.pop()
  }
}
