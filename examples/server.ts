/**
 * The tool server part of the demo: the tools of `tools.ts` (and one flaky upstream) behind a `ToolServer` with
 * hooks. One batch shows a call a guard hook denies, one a hook skips, one deferred for a human's approval and one a
 * retry gets through; then the deferred approval goes to JSON text and back, as it would to a queue or a database,
 * is resumed and runs, and a second resume of it is refused.
 *
 * `npm start` runs it after the dispatch demo; `npx tsx examples/server.ts` runs it alone.
 */
import { Console, Context, Effect, Option, Schedule, Schema } from "effect"
import { pathToFileURL } from "node:url"
import {
  Tool,
  ToolCall,
  ToolContext,
  ToolExecutionError,
  ToolHooks,
  ToolOutput,
  type ToolResult,
  ToolServer,
  ToolSet
} from "../src/index.ts"
import { CurrentUser, tools } from "./tools.ts"

/** How many times the quote service drops a call before it answers. */
const droppedPerCall = 2
const triesByCall = new Map<string, number>()

/**
 * A quote service that drops the first two requests of every call with a `network` error, a kind that is retryable:
 * the server's `retry` schedule gets the call through on its third attempt.
 */
export const GetQuote = Tool.make("get_quote", {
  description: "Get the latest price of a stock",
  parameters: Schema.Struct({ symbol: Schema.String }),
  annotations: { readOnly: true, openWorld: true },
  call: Effect.fn("get_quote")(function*({ symbol }) {
    // Every attempt has a fresh ToolContext, with the same call id.
    const callId = yield* ToolContext.callId
    const tries = (triesByCall.get(callId) ?? 0) + 1
    triesByCall.set(callId, tries)
    if (tries <= droppedPerCall) {
      return yield* ToolExecutionError.network(`the quote service did not answer (try ${tries})`)
    }
    return { symbol, price: 101.25, currency: "USD" }
  })
})

/** A policy no approval overrides: large transfers never run from a chat. */
const guard = ToolHooks.make({
  onCall: (event) =>
    Effect.succeed(
      event.tool.name === "transfer_funds" && (event.arguments as { readonly amount: number }).amount > 10_000
        ? ToolHooks.deny("transfers over 10000 cannot be made from a chat")
        : ToolHooks.run
    )
})

/** This channel shows text only: charts are skipped, and the model is told what to do instead. */
const textOnly = ToolHooks.make({
  onCall: (event) =>
    Effect.succeed(
      event.tool.name === "render_chart"
        ? ToolHooks.skip("charts cannot be shown in this channel; describe the data in words")
        : ToolHooks.run
    )
})

/** Destructive tools (`transfer_funds`) wait for a human: every such call is deferred. */
const approvals = ToolHooks.approval({ decide: () => Effect.succeed(ToolHooks.defer) })

/** The server's service: each call brings the current user. */
class Tools extends Context.Service<Tools, ToolServer.ToolServer<CurrentUser>>()("examples/Tools") {}

const ToolsLive = ToolServer.layer(Tools, {
  tools: ToolSet.add(tools, GetQuote),
  // In order: the guard's refusal is final, so a human is never asked about a transfer that cannot run.
  hooks: [guard, textOnly, approvals],
  concurrency: 8,
  maxQueued: 100,
  timeout: "5 seconds",
  retry: Schedule.max([Schedule.exponential("10 millis"), Schedule.recurs(2)])
})

const calls: ReadonlyArray<ToolCall.ToolCall> = [
  ToolCall.make({ id: "call_weather", name: "get_weather", arguments: `{"city":"Oslo"}` }),
  ToolCall.make({ id: "call_big_transfer", name: "transfer_funds", arguments: `{"to":"bob","amount":25000}` }),
  ToolCall.make({ id: "call_chart", name: "render_chart", arguments: `{"title":"Latency","values":[3,1,4]}` }),
  ToolCall.make({ id: "call_transfer", name: "transfer_funds", arguments: `{"to":"bob","amount":50}` }),
  ToolCall.make({ id: "call_quote", name: "get_quote", arguments: `{"symbol":"ACME"}` })
]

/** A pending approval as JSON text, and back: what a host stores while a human decides. */
const PendingApprovalJson = Schema.fromJsonString(Schema.toCodecJson(ToolHooks.PendingApproval))

const header = ["call id", "tool", "status", "error kind", "attempts", "model sees"] as const

const modelSeesColumn = 5

const row = (result: ToolResult.ToolResult): ReadonlyArray<string> => [
  result.callId,
  result.name,
  result.status,
  Option.match(result.error, { onNone: () => "-", onSome: (error) => error.kind }),
  String(result.attempts),
  ToolOutput.render(result.output).replace(/\s+/g, " ").trim()
]

const table = (results: ReadonlyArray<ToolResult.ToolResult>): string => {
  const widthOf = (rows: ReadonlyArray<ReadonlyArray<string>>, column: number) =>
    Math.max(...[header, ...rows].map((cells) => cells[column]!.length))
  const fullRows = results.map(row)
  // What the model sees gets the room the terminal has left (100 characters when piped), so that rows never wrap.
  const others = header.reduce(
    (sum, _, column) => column === modelSeesColumn ? sum : sum + widthOf(fullRows, column) + 2,
    0
  )
  const maxModelSees = process.stdout.isTTY ? Math.max(40, process.stdout.columns - others - 1) : 100
  const rows = fullRows.map((cells) =>
    cells.map((cell, column) =>
      column === modelSeesColumn && cell.length > maxModelSees ? `${cell.slice(0, maxModelSees - 1)}…` : cell
    )
  )
  const widths = header.map((_, column) => widthOf(rows, column))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd()
  return [line(header), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line)].join("\n")
}

/** The server demo. It needs the current user, which each call brings. */
export const serverDemo: Effect.Effect<void, unknown, CurrentUser> = Effect.gen(function*() {
  const server = yield* Tools
  const results = yield* server.executeAll(calls)
  yield* Console.log(
    `\n${calls.length} calls through a ToolServer with three hooks (a guard, a text-only channel, approval of ` +
      `destructive tools)\nand retries of retryable errors (up to 2, backing off from 10 ms):\n`
  )
  yield* Console.log(table(results))

  const deferred = results.find((result) => result.callId === "call_transfer")!
  const pending = yield* Effect.fromOption(ToolHooks.pendingApproval(deferred))
  const stored = yield* Schema.encodeEffect(PendingApprovalJson)(pending)
  yield* Console.log(`\ncall_transfer waits for a human. Its PendingApproval, stored as JSON text:\n${stored}`)

  // Later, perhaps in another process: read the approval back and resume it with the human's decision.
  const readBack = yield* Schema.decodeUnknownEffect(PendingApprovalJson)(stored)
  const resumed = yield* server.resume(readBack, ToolHooks.approve)
  yield* Console.log(`\nResumed with ToolHooks.approve, the tool runs:\n`)
  yield* Console.log(table([resumed]))

  const again = yield* server.resume(readBack, ToolHooks.deny("the user changed their mind")).pipe(
    Effect.map(() => "it was resolved again (it should not have been)"),
    Effect.catchTag("ApprovalAlreadyResolved", (error) =>
      Effect.succeed(`${error._tag} (approval ${error.approvalId.slice(0, 8)}…, ${error.callId}): nothing ran`))
  )
  yield* Console.log(`\nA second resume of the same approval: ${again}`)
}).pipe(Effect.provide(ToolsLive))

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const user = CurrentUser.of({ id: "user_42", units: "metric", balance: 120 })
  Effect.runPromise(serverDemo.pipe(Effect.provideService(CurrentUser, user)))
}
