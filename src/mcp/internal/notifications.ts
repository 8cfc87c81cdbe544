/**
 * The notifications in an MCP server's standard output, read as it passes to Effect's client (which drops every
 * notification).
 *
 * @internal
 */
import { Predicate } from "effect"
import type { Notification } from "../McpClient.ts"
import { lineReader } from "./lines.ts"

/**
 * A reader of one server's output: given each chunk as it comes, it answers the notifications the lines it completes
 * hold, in order. Lines may be cut anywhere, UTF-8 characters too (see {@link lineReader}); responses (most of the
 * bytes) are skipped, and so is what is not JSON.
 */
export const notificationReader = (): (chunk: Uint8Array) => ReadonlyArray<Notification> => {
  const lines = lineReader()
  return (chunk) => {
    const found: Array<Notification> = []
    for (const line of lines.read(chunk)) {
      const notification = notificationOf(line)
      if (notification !== undefined) found.push(notification)
    }
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
