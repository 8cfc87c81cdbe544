/**
 * JSON at the boundary: tool arguments parsed under limits, and values checked to be JSON before they are shown to
 * a model. Every function here is total: it returns a `Result`, never throws, and never recurses on input, so no
 * input can overflow the stack.
 */
import { Result, type Schema } from "effect"

/** Limits on tool argument JSON. */
export interface JsonLimits {
  /** The most UTF-8 bytes of argument text to parse. */
  readonly maxBytes: number
  /** The deepest nesting of arrays and objects. */
  readonly maxDepth: number
}

/** 1 MiB of text and 64 levels of nesting. */
export const defaultLimits: JsonLimits = { maxBytes: 1024 * 1024, maxDepth: 64 }

/** The UTF-8 length of a string, computed only as far as needed to compare with `limit`. */
const utf8LengthExceeds = (text: string, limit: number): boolean => {
  // Each UTF-16 unit encodes to at most 3 bytes, and to at least 1.
  if (text.length * 3 <= limit) return false
  if (text.length > limit) return true
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4 // a surrogate pair: four bytes for the two units
      i++
    } else bytes += 3
    if (bytes > limit) return true
  }
  return false
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

const isPlainObject = (u: object): boolean => {
  const proto = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

/**
 * The nesting depth of a value exceeds `limit`. Iterative, and it stops at `limit`: a cyclic value counts as too
 * deep, and a shared sub-value is walked once per path only down to the limit.
 */
const valueDepthExceeds = (value: unknown, limit: number): boolean => {
  if (typeof value !== "object" || value === null) return false
  const stack: Array<unknown> = [value]
  const depths: Array<number> = [1]
  const seen = new Map<object, number>()
  while (stack.length > 0) {
    const current = stack.pop() as object
    const depth = depths.pop()!
    if (depth > limit) return true
    // A node reached before at the same depth or deeper has nothing new below it.
    const before = seen.get(current)
    if (before !== undefined && before >= depth) continue
    seen.set(current, depth)
    const children: ReadonlyArray<unknown> = Array.isArray(current) ? current : Object.values(current)
    for (const child of children) {
      if (typeof child === "object" && child !== null) {
        stack.push(child)
        depths.push(depth + 1)
      }
    }
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
    // An already-parsed value is whatever the caller built: it may be cyclic, shared, non-JSON, or have getters and
    // proxy traps that throw. Read it once, into a plain JSON copy, under the same depth limit.
    if (input === null || input === undefined) return emptyObject()
    try {
      // A class instance (a Date, a Map) is not a JSON object, whatever its fields.
      if (typeof input !== "object" || Array.isArray(input) || !isPlainObject(input)) {
        return { value: input, result: Result.fail({ _tag: "NotAnObject" }) }
      }
      if (valueDepthExceeds(input, limits.maxDepth)) {
        return parseFailure(input, `the arguments are nested deeper than ${limits.maxDepth} levels`)
      }
      const copied = toJsonValue(input)
      if (Result.isFailure(copied)) return parseFailure(input, `the arguments are not JSON: ${copied.failure}`)
      value = copied.success
    } catch {
      return parseFailure(input, "the arguments could not be read")
    }
  }
  if (value === null || value === undefined) return emptyObject()
  if (typeof value !== "object" || Array.isArray(value)) {
    return { value, result: Result.fail({ _tag: "NotAnObject" }) }
  }
  return { value, result: Result.succeed(value as { readonly [key: string]: unknown }) }
}

const describe = (value: unknown): string => {
  if (value === undefined) return "undefined"
  if (typeof value === "number") return String(value)
  if (typeof value === "object" && value !== null) return value.constructor?.name ?? "an object without prototype"
  return typeof value
}

/**
 * Checks that a value is JSON: plain objects, arrays, strings, finite numbers, booleans and null. Object fields that
 * are `undefined` are dropped, as `JSON.stringify` does; the value is copied only where that happens. Fails, with a
 * reason for operators that names the path, on anything else (NaN, a BigInt, a Date, a class instance, a function,
 * a cycle).
 */
export const toJsonValue = (value: unknown): Result.Result<Schema.Json, string> => {
  // Fast path for the common scalar results.
  switch (typeof value) {
    case "string":
    case "boolean":
      return Result.succeed(value)
    case "number":
      return Number.isFinite(value) ? Result.succeed(value) : Result.fail(`the output is ${value}, not JSON`)
  }
  if (value === null) return Result.succeed(null)
  try {
    return toJsonTree(value)
  } catch {
    // A getter or a proxy trap threw while the value was read.
    return Result.fail("the value could not be read")
  }
}

type Frame = {
  readonly source: object
  readonly keys: ReadonlyArray<string> | undefined // undefined for arrays
  index: number
  copy: Array<unknown> | Record<string, unknown> | undefined
  readonly parent: Frame | undefined
  readonly parentKey: string | number
}

/** The path of `key` in `frame`, for a failure message: built only when one is needed. */
const pathOf = (frame: Frame, key: string | number): string => {
  const keys: Array<string | number> = [key]
  for (let at: Frame = frame; at.parent !== undefined; at = at.parent) keys.push(at.parentKey)
  let path = "$"
  for (let i = keys.length - 1; i >= 0; i--) {
    const k = keys[i]!
    path += typeof k === "number" ? `[${k}]` : `.${k}`
  }
  return path
}

/**
 * Walks an object tree without recursion, copying a node only where an `undefined` field must be dropped. A node
 * reached twice (a shared sub-value) is walked once; a node reached again below itself is a cycle.
 */
const toJsonTree = (root: unknown): Result.Result<Schema.Json, string> => {
  if (typeof root !== "object" || root === null || !(Array.isArray(root) || isPlainObject(root))) {
    return Result.fail(`the output is ${describe(root)}, not JSON`)
  }
  // Made on the first nested object only: a flat object needs neither.
  let onPath: Set<object> | undefined
  let done: Map<object, unknown> | undefined
  const open = (source: object, parent: Frame | undefined, parentKey: string | number): Frame => ({
    source,
    keys: Array.isArray(source) ? undefined : Object.keys(source),
    index: 0,
    copy: undefined,
    parent,
    parentKey
  })
  /** Puts a finished child's value into its parent, starting a copy if the child was copied. */
  const adopt = (parent: Frame, key: string | number, source: object, result: unknown) => {
    if (result !== source && parent.copy === undefined) parent.copy = copyUpTo(parent, parent.index - 1)
    setChild(parent, key, result)
  }
  let frame: Frame | undefined = open(root, undefined, 0)
  let finished: unknown = root
  while (frame !== undefined) {
    const length: number = frame.keys === undefined ? (frame.source as Array<unknown>).length : frame.keys.length
    if (frame.index < length) {
      const key: string | number = frame.keys === undefined ? frame.index : frame.keys[frame.index]!
      frame.index++
      const child = (frame.source as any)[key]
      if (child === undefined && frame.keys !== undefined) {
        // Dropped, as JSON does: from here on this object is a copy without the key.
        if (frame.copy === undefined) frame.copy = copyUpTo(frame, frame.index - 1)
        continue
      }
      if (typeof child === "object" && child !== null) {
        if (!(Array.isArray(child) || isPlainObject(child))) {
          return Result.fail(`${pathOf(frame, key)} is ${describe(child)}, not JSON`)
        }
        if (onPath === undefined) {
          onPath = new Set()
          for (let at: Frame | undefined = frame; at !== undefined; at = at.parent) onPath.add(at.source)
          done = new Map()
        }
        if (onPath.has(child)) return Result.fail(`${pathOf(frame, key)} is a cycle, not JSON`)
        if (done!.has(child)) {
          adopt(frame, key, child, done!.get(child))
          continue
        }
        onPath.add(child)
        frame = open(child, frame, key)
        continue
      }
      if (
        typeof child === "string" || typeof child === "boolean" || child === null ||
        (typeof child === "number" && Number.isFinite(child))
      ) {
        setChild(frame, key, child)
        continue
      }
      return Result.fail(`${pathOf(frame, key)} is ${describe(child)}, not JSON`)
    }
    // Done with this node: hand its value (the copy, or the source itself) to the parent.
    const result = frame.copy ?? frame.source
    onPath?.delete(frame.source)
    done?.set(frame.source, result)
    const parent: Frame | undefined = frame.parent
    if (parent === undefined) finished = result
    else adopt(parent, frame.parentKey, frame.source, result)
    frame = parent
  }
  return Result.succeed(finished as Schema.Json)
}

/** Starts a copy of a frame's node holding its first `count` entries, kept as they were. */
const copyUpTo = (frame: Frame, count: number): Array<unknown> | Record<string, unknown> => {
  if (frame.keys === undefined) return (frame.source as Array<unknown>).slice(0, count)
  const copy: Record<string, unknown> = {}
  for (let i = 0; i < count; i++) {
    const key = frame.keys[i]!
    const value = (frame.source as Record<string, unknown>)[key]
    if (value !== undefined) defineField(copy, key, value)
  }
  return copy
}

/** Sets a field as an own data property: a `__proto__` key stays a key and never becomes a prototype. */
export const defineField = (target: Record<string, unknown>, key: string, value: unknown) => {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

const setChild = (frame: Frame, key: string | number, value: unknown) => {
  if (frame.copy === undefined) return
  if (Array.isArray(frame.copy)) frame.copy.push(value)
  else defineField(frame.copy, key as string, value)
}
