import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import type { McpClient } from "../../src/mcp/index.ts"
import { type Read, serverOutputReader } from "../../src/mcp/internal/serverOutput.ts"

/** A server's output: notifications, responses (one large), and lines that are not JSON, in UTF-8 of every width. */
const notifications: ReadonlyArray<McpClient.Notification> = [
  { method: "notifications/tools/list_changed" },
  { method: "notifications/message", params: { level: "info", data: "héllo ✓ 🎉" } },
  { method: "notifications/progress", params: { progressToken: 1, progress: 2, total: 3, message: "日本語" } }
]
const messages = [
  JSON.stringify({ jsonrpc: "2.0", ...notifications[0] }),
  JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "a \"method\" in a result" }] } }),
  JSON.stringify({ jsonrpc: "2.0", ...notifications[1] }),
  JSON.stringify({ jsonrpc: "2.0", id: 2, result: { text: "🎉".repeat(5_000) } }),
  // A request of the server has an id: it is not a notification.
  JSON.stringify({ jsonrpc: "2.0", id: 3, method: "roots/list" }),
  JSON.stringify({ jsonrpc: "2.0", ...notifications[2] })
]
const junk = ["Server started on stdio ✓", "{\"level\":\"info\",\"msg\":\"ready\"}", "[1,2]", "not JSON, with \"method\" in it"]
const lines = [junk[0]!, messages[0]!, messages[1]!, junk[1]!, messages[2]!, "", messages[3]!, junk[2]!, messages[4]!, junk[3]!, messages[5]!]
const bytes = new TextEncoder().encode(`${lines.join("\n")}\n${messages[0]}`)

/** What the reader answers for `bytes` cut into chunks of the given sizes (the last size repeats), put together. */
const readIn = (sizes: ReadonlyArray<number>): Read => {
  const read = serverOutputReader()
  const all: Read = { notifications: [], messages: [], dropped: [] }
  let at = 0
  for (let i = 0; at < bytes.length; i++) {
    const size = sizes[Math.min(i, sizes.length - 1)]!
    const one = read(bytes.slice(at, at + size))
    all.notifications.push(...one.notifications)
    all.messages.push(...one.messages)
    all.dropped.push(...one.dropped)
    at += size
  }
  return all
}

/** What one whole line reads as. */
const readLine = (line: string): Read => serverOutputReader()(new TextEncoder().encode(`${line}\n`))

const encode = (text: string) => new TextEncoder().encode(text)

describe("a server's output", () => {
  it("passes on its JSON-RPC messages as they came, and the notifications among them; the last line, unended, not yet", () => {
    const read = readIn([bytes.length])
    assert.deepStrictEqual(read.messages, messages)
    assert.deepStrictEqual(read.notifications, notifications)
  })

  it("drops the lines that are not JSON-RPC messages (a banner, a log record), saying which", () => {
    assert.deepStrictEqual(readIn([bytes.length]).dropped, [
      "a line that is not JSON: \"Server started on stdio ✓\"",
      "a line that is not a JSON-RPC message: \"{\\\"level\\\":\\\"info\\\",\\\"msg\\\":\\\"ready\\\"}\"",
      // A batch of two messages that are not JSON-RPC.
      "a line that is not a JSON-RPC message: \"[1,2]\"",
      "a line that is not a JSON-RPC message: \"[1,2]\"",
      "a line that is not JSON: \"not JSON, with \\\"method\\\" in it\""
    ])
    const long = readLine("x".repeat(1000)).dropped[0]!
    assert.isBelow(long.length, 120)
  })

  it.prop(
    "reads the same however the output is cut into chunks, lines and characters included",
    [Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 97 }))).check(Schema.isMinLength(1))],
    ([sizes]) => {
      assert.deepStrictEqual(readIn(sizes), readIn([bytes.length]))
    },
    { arbitrary: { runs: 100 } }
  )

  it("reads each output with its own decoder: a character cut in one does not mix with another's", () => {
    const one = serverOutputReader()
    const two = serverOutputReader()
    const text = new TextEncoder().encode(`${messages[2]}\n`)
    // Both cut inside the same 4-byte character, and read interleaved.
    const cut = new TextEncoder().encode(messages[2]!.split("🎉")[0]!).length + 2
    assert.deepStrictEqual(one(text.slice(0, cut)).notifications, [])
    assert.deepStrictEqual(two(text.slice(0, cut)).notifications, [])
    assert.deepStrictEqual(one(text.slice(cut)).notifications, [notifications[1]])
    assert.deepStrictEqual(two(text.slice(cut)).notifications, [notifications[1]])
  })

  it("mends an envelope Effect's client would refuse, keeping what it meant", () => {
    const cases: ReadonlyArray<readonly [unknown, unknown]> = [
      // Members JSON-RPC does not have are left out.
      [{ jsonrpc: "2.0", id: 1, result: { a: 1 }, extra: true }, { jsonrpc: "2.0", id: 1, result: { a: 1 } }],
      [{ jsonrpc: "2.0", id: "r", method: "ping", meta: 1 }, { jsonrpc: "2.0", id: "r", method: "ping" }],
      [{ jsonrpc: "2.0", method: "notifications/x", params: [1], at: 2 }, { jsonrpc: "2.0", method: "notifications/x" }],
      // An error without its message, or with a code that is not an integer.
      [
        { jsonrpc: "2.0", id: 2, error: { code: -32000 } },
        { jsonrpc: "2.0", id: 2, error: { code: -32000, message: "the server's error had no message" } }
      ],
      [
        { jsonrpc: "2.0", id: 3, error: { code: "E1", message: "no", data: { d: 1 }, stack: "…" } },
        { jsonrpc: "2.0", id: 3, error: { code: -32603, message: "no", data: { d: 1 } } }
      ],
      [{ jsonrpc: "2.0", id: 4, error: 12 }, { jsonrpc: "2.0", id: 4, error: { code: -32603, message: "the server's error had no message" } }]
    ]
    for (const [sent, read] of cases) {
      const { dropped, messages } = readLine(JSON.stringify(sent))
      assert.deepStrictEqual(dropped, [])
      assert.deepStrictEqual(messages.map((message) => JSON.parse(message)), [read])
    }
    // A notification with extra members is still published, with what it meant.
    assert.deepStrictEqual(readLine(JSON.stringify({ jsonrpc: "2.0", method: "n", params: { a: 1 }, x: 1 })).notifications, [
      { method: "n", params: { a: 1 } }
    ])
  })

  it("reads what an error given as a string, or a response that also names a method, meant", () => {
    assert.deepStrictEqual(readLine(JSON.stringify({ jsonrpc: "2.0", id: 3, error: "Tool not found: foo" })).messages, [
      JSON.stringify({ jsonrpc: "2.0", id: 3, error: { code: -32603, message: "Tool not found: foo" } })
    ])
    const answer = { jsonrpc: "2.0", id: 1, method: "tools/call", result: { content: [] } }
    assert.deepStrictEqual(readLine(JSON.stringify(answer)).messages, [
      JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [] } })
    ])
  })

  it("reads a batch as its messages, one a line", () => {
    const batch = [{ jsonrpc: "2.0", id: 1, result: {} }, { jsonrpc: "2.0", method: "notifications/x" }, { no: 1 }]
    const read = readLine(JSON.stringify(batch))
    assert.deepStrictEqual(read.messages, [JSON.stringify(batch[0]), JSON.stringify(batch[1])])
    assert.deepStrictEqual(read.notifications, [{ method: "notifications/x" }])
    assert.lengthOf(read.dropped, 1)
  })

  it("passes on a message nested too deep to write again as it came, rather than fail", () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`
    const line = `{"jsonrpc":"2.0","id":1,"result":{"content":[],"x":${deep}},"extra":1}`
    assert.deepStrictEqual(readLine(line).messages, [line])
  })

  it("passes on a line past maxMessageBytes as it came, and one still unended once past it, for Effect to refuse", () => {
    const read = serverOutputReader(100)
    const junk = "x".repeat(150)
    assert.deepStrictEqual(read(encode(`${junk}\n`)).messages, [junk])
    assert.deepStrictEqual(read(encode("y".repeat(60))).messages, [])
    assert.deepStrictEqual(read(encode("y".repeat(60))).messages, ["y".repeat(120)])
    // What comes next starts a line of its own.
    assert.deepStrictEqual(read(encode(`${messages[0]}\n`)).messages, [messages[0]])
  })

  it("drops JSON-RPC messages that are no request, notification or response", () => {
    for (
      const sent of [
        { jsonrpc: "2.0", id: 1 },
        { jsonrpc: "2.0", id: null, result: {} },
        { jsonrpc: "2.0", id: { a: 1 }, method: "ping" },
        { jsonrpc: "1.0", id: 1, result: {} },
        { id: 1, result: {} }
      ]
    ) {
      const read = readLine(JSON.stringify(sent))
      assert.deepStrictEqual(read.messages, [], JSON.stringify(sent))
      assert.lengthOf(read.dropped, 1)
    }
  })
})
