/**
 * An MCP server's standard output, read on its way to Effect's client: the notifications it holds (which Effect's
 * client drops), and the lines Effect's client can read.
 *
 * MCP's stdio transport allows nothing but JSON-RPC messages on the server's output, and Effect's client fails the
 * whole connection on the first line that is not one. Servers print banners and log records there all the same, and
 * answer with members JSON-RPC does not have, or an error without its message: the official SDK's client skips what
 * it cannot read and goes on. So does this reader: a line that is not a JSON-RPC message is dropped (and said to the
 * host's logs), and a message with extra or broken envelope members reaches Effect's client with the envelope JSON-RPC
 * defines, and what it meant.
 *
 * @internal
 */
import { isRecord } from "../../internal/jsonSchema.ts"
import type { Notification } from "../McpClient.ts"
import { lineReader } from "./lines.ts"

/** What one chunk of the output completes. */
export interface Read {
  /** The notifications among the lines, in order. */
  readonly notifications: Array<Notification>
  /**
   * The lines to pass on, each a JSON-RPC message as Effect's client reads them, in order. A line longer than the
   * limit is passed on as it came, and so is a line still unended once it is longer: Effect's client refuses it with
   * its own error for a message over `maxMessageBytes`.
   */
  readonly messages: Array<string>
  /** Why each line that was dropped was, with the start of the line, for the host's logs. */
  readonly dropped: Array<string>
}

/**
 * A reader of one server's output: given each chunk as it comes, it answers what the lines the chunk completes hold.
 * Lines may be cut anywhere, UTF-8 characters too (see {@link lineReader}). `maxBytes` is the connection's
 * `maxMessageBytes`: a line past it is not read here, but passed on for Effect's client to refuse.
 */
export const serverOutputReader = (maxBytes: number = Number.POSITIVE_INFINITY): (chunk: Uint8Array) => Read => {
  const lines = lineReader()
  return (chunk) => {
    const read: Read = { notifications: [], messages: [], dropped: [] }
    for (const line of lines.read(chunk)) {
      // Each UTF-16 unit is one UTF-8 byte at least.
      if (line.length > maxBytes) read.messages.push(line)
      else readLine(line, read)
    }
    // Held back no longer: a line that never ends would grow here without bound.
    if (lines.pendingLength() > maxBytes) read.messages.push(lines.rest())
    return read
  }
}

const excerpt = (line: string): string => {
  const start = line.length > 80 ? `${line.slice(0, 80)}…` : line
  return JSON.stringify(start)
}

const isRequestId = (id: unknown): id is string | number => typeof id === "string" || typeof id === "number"

/** The members of each kind of message, as Effect's client reads them. */
const requestKeys = new Set(["jsonrpc", "id", "method", "params"])
const notificationKeys = new Set(["jsonrpc", "method", "params"])
const resultKeys = new Set(["jsonrpc", "id", "result"])
const errorKeys = new Set(["jsonrpc", "id", "error"])
const errorMemberKeys = new Set(["code", "message", "data"])

const onlyKeys = (value: Record<string, unknown>, keys: ReadonlySet<string>): boolean => {
  for (const key in value) if (!keys.has(key)) return false
  return true
}

const readLine = (line: string, read: Read): void => {
  if (line.trim() === "") return
  let message: unknown
  try {
    message = JSON.parse(line)
  } catch {
    read.dropped.push(`a line that is not JSON: ${excerpt(line)}`)
    return
  }
  // A batch (JSON-RPC 2.0; MCP 2025-03-26 allows them): its messages, one a line, as Effect's client reads them.
  if (Array.isArray(message) && message.length > 0) {
    for (const one of message) readMessage(one, undefined, line, read)
    return
  }
  readMessage(message, line, line, read)
}

/** One message of a line (`text`: the line, when it is the whole line and can pass on as it came). */
const readMessage = (message: unknown, text: string | undefined, line: string, read: Read): void => {
  if (!isRecord(message) || message.jsonrpc !== "2.0") {
    read.dropped.push(`a line that is not a JSON-RPC message: ${excerpt(line)}`)
    return
  }
  const cleaned = envelopeOf(message)
  if (cleaned === undefined) {
    read.dropped.push(`a JSON-RPC message that is neither a request, a notification nor a response: ${excerpt(line)}`)
    return
  }
  if (typeof cleaned.method === "string" && !("id" in cleaned)) {
    read.notifications.push(
      cleaned.params === undefined ? { method: cleaned.method } : { method: cleaned.method, params: cleaned.params }
    )
  }
  if (cleaned === message && text !== undefined) {
    read.messages.push(text)
    return
  }
  let written: string
  try {
    written = JSON.stringify(cleaned)
  } catch {
    // Nested too deep to write again (V8's JSON.stringify recurses): passed on as it came, for Effect's client to
    // refuse as it would have.
    written = text ?? line
  }
  read.messages.push(written)
}

/**
 * The message with the envelope Effect's client reads: itself when it has it, a copy with what it meant otherwise
 * (extra members left out, `params` that are not an object left out, an error without a code or a message given
 * JSON-RPC's internal error code or a message saying so), or nothing when it is no message at all.
 */
const envelopeOf = (message: Record<string, unknown>): Record<string, unknown> | undefined => {
  // A result or an error makes a response, whatever else it carries: a request never has either.
  if (typeof message.method === "string" && !("result" in message) && !("error" in message)) {
    const params = message.params === undefined || isRecord(message.params) ? message.params : undefined
    const isRequest = "id" in message
    if (isRequest && !isRequestId(message.id)) return undefined
    if (onlyKeys(message, isRequest ? requestKeys : notificationKeys) && params === message.params) return message
    const cleaned: Record<string, unknown> = isRequest
      ? { jsonrpc: "2.0", id: message.id, method: message.method }
      : { jsonrpc: "2.0", method: message.method }
    if (params !== undefined) cleaned.params = params
    return cleaned
  }
  if ("result" in message) {
    if (!isRequestId(message.id)) return undefined
    return onlyKeys(message, resultKeys) ? message : { jsonrpc: "2.0", id: message.id, result: message.result }
  }
  if (!("error" in message) || !(message.id === undefined || message.id === null || isRequestId(message.id))) {
    return undefined
  }
  // An error given as a bare string is its message.
  const error = isRecord(message.error) ? message.error : typeof message.error === "string" ? { message: message.error } : {}
  const code = Number.isSafeInteger(error.code) ? error.code : -32603
  const text = typeof error.message === "string" ? error.message : "the server's error had no message"
  if (
    onlyKeys(message, errorKeys) && code === error.code && text === error.message && onlyKeys(error, errorMemberKeys)
  ) return message
  const cleaned: Record<string, unknown> = { jsonrpc: "2.0" }
  if (message.id !== undefined) cleaned.id = message.id
  cleaned.error = error.data === undefined ? { code, message: text } : { code, message: text, data: error.data }
  return cleaned
}
