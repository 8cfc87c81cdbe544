/**
 * The notifications in an MCP server's standard output, read as it passes to Effect's client (which drops every
 * notification).
 *
 * @internal
 */
import { Predicate } from "effect"
import type { Notification } from "../McpClient.ts"

/**
 * A reader of one server's output: given each chunk as it comes, it answers the notifications the lines it completes
 * hold, in order. Lines may be cut anywhere, UTF-8 characters too; responses (most of the bytes) are skipped, and so is
 * what is not JSON. Each chunk is searched once: a large response that arrives in many chunks costs time in its size,
 * not in its size times its chunks.
 */
export const notificationReader = (): (chunk: Uint8Array) => ReadonlyArray<Notification> => {
  // One decoder per output: it holds the bytes of a character cut at the end of a chunk.
  const decoder = new TextDecoder()
  // The start of the line being read, as it came.
  const pending: Array<string> = []
  return (chunk) => {
    const text = decoder.decode(chunk, { stream: true })
    const found: Array<Notification> = []
    let start = 0
    let end: number
    while ((end = text.indexOf("\n", start)) >= 0) {
      const piece = text.slice(start, end)
      start = end + 1
      const line = pending.length === 0 ? piece : pending.join("") + piece
      pending.length = 0
      const notification = notificationOf(line)
      if (notification !== undefined) found.push(notification)
    }
    if (start < text.length) pending.push(text.slice(start))
    return found
  }
}

/** The notification a line holds: a JSON-RPC message with a method and no id. */
const notificationOf = (line: string): Notification | undefined => {
  if (!line.includes("\"method\"")) return undefined
  let message: unknown
  try {
    message = JSON.parse(line)
  } catch {
    return undefined
  }
  if (!Predicate.isObject(message) || typeof message.method !== "string" || "id" in message) return undefined
  return message.params === undefined ? { method: message.method } : { method: message.method, params: message.params }
}
