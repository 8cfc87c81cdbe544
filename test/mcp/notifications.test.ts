import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import type { McpClient } from "../../src/mcp/index.ts"
import { notificationReader } from "../../src/mcp/internal/notifications.ts"

/** A server's output: notifications, responses (one large), and lines that are not JSON, in UTF-8 of every width. */
const notifications: ReadonlyArray<McpClient.Notification> = [
  { method: "notifications/tools/list_changed" },
  { method: "notifications/message", params: { level: "info", data: "héllo ✓ 🎉" } },
  { method: "notifications/progress", params: { progressToken: 1, progress: 2, total: 3, message: "日本語" } }
]
const lines = [
  JSON.stringify(notifications[0]),
  JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "a \"method\" in a result" }] } }),
  "not JSON, with \"method\" in it",
  JSON.stringify({ jsonrpc: "2.0", ...notifications[1] }),
  JSON.stringify({ jsonrpc: "2.0", id: 2, result: { text: "🎉".repeat(5_000) } }),
  // A request of the server has an id: it is not a notification.
  JSON.stringify({ jsonrpc: "2.0", id: 3, method: "roots/list" }),
  JSON.stringify({ jsonrpc: "2.0", ...notifications[2] })
]
const bytes = new TextEncoder().encode(`${lines.join("\n")}\n${JSON.stringify(notifications[0])}`)

/** The notifications the reader answers for `bytes` cut into chunks of the given sizes (the last size repeats). */
const readIn = (sizes: ReadonlyArray<number>): Array<McpClient.Notification> => {
  const read = notificationReader()
  const found: Array<McpClient.Notification> = []
  let at = 0
  for (let i = 0; at < bytes.length; i++) {
    const size = sizes[Math.min(i, sizes.length - 1)]!
    found.push(...read(bytes.slice(at, at + size)))
    at += size
  }
  return found
}

describe("the notifications of a server's output", () => {
  it("are those lines that are notifications, in order; the last line, unended, not yet", () => {
    assert.deepStrictEqual(readIn([bytes.length]), notifications)
  })

  it.prop(
    "are the same however the output is cut into chunks, lines and characters included",
    [Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 97 }))).check(Schema.isMinLength(1))],
    ([sizes]) => {
      assert.deepStrictEqual(readIn(sizes), notifications)
    },
    { arbitrary: { runs: 100 } }
  )

  it("reads each output with its own decoder: a character cut in one does not mix with another's", () => {
    const one = notificationReader()
    const two = notificationReader()
    const text = new TextEncoder().encode(`${JSON.stringify(notifications[1])}\n`)
    // Both cut inside the same 4-byte character, and read interleaved.
    const cut = new TextEncoder().encode(JSON.stringify(notifications[1]).split("🎉")[0]!).length + 2
    assert.deepStrictEqual(one(text.slice(0, cut)), [])
    assert.deepStrictEqual(two(text.slice(0, cut)), [])
    assert.deepStrictEqual(one(text.slice(cut)), [notifications[1]])
    assert.deepStrictEqual(two(text.slice(cut)), [notifications[1]])
  })
})
