/**
 * What `npm start` runs. First, a short conversation between a scripted model and the tools, run by `ToolLoop.run`
 * (`loop.ts`): parallel calls, one denied by a hook, then the final answer. Then a batch of tool calls as a model
 * might send them — good ones, malformed JSON, wrong types, an unknown tool, a typed tool failure, a refusal, a
 * missing key — dispatched in one `executeAll`, and one table of what came back: the status, the error kind, what the
 * model sees, and the host-only metadata it never sees; for a few of the same results, what each provider adapter
 * would put in the next request. Then the same tools behind a `ToolServer` with hooks (`server.ts`): a denied call, a
 * skipped one, an approval deferred and resumed, and a retried flaky call. Last, the built-in tools (`builtins.ts`)
 * on a scratch folder, the unsafe calls refused.
 */
import { Console, Effect, Option } from "effect"
import {
  Anthropic,
  Gemini,
  OpenAiChat,
  OpenAiResponses,
  ToolCall,
  ToolOutput,
  ToolResult,
  ToolSet
} from "../src/index.ts"
import { builtinsDemo } from "./builtins.ts"
import { loopDemo } from "./loop.ts"
import { serverDemo } from "./server.ts"
import { AuditRecord, CurrentUser, tools, WeatherSource } from "./tools.ts"

const calls: ReadonlyArray<ToolCall.ToolCall> = [
  // Arguments arrive as the JSON text the model emitted...
  ToolCall.make({ id: "call_weather", name: "get_weather", arguments: `{"city":"Paris"}` }),
  ToolCall.make({ id: "call_add", name: "add", arguments: `{"left":2,"right":40}` }),
  // ...or as a value a provider SDK already parsed: both take the same path.
  ToolCall.make({ id: "call_chart", name: "render_chart", arguments: { title: "Latency", values: [3, 1, 4, 1, 5] } }),
  ToolCall.make({ id: "call_bad_json", name: "add", arguments: `{"left": 1, "right": ` }),
  ToolCall.make({ id: "call_bad_types", name: "add", arguments: `{"left":"two","right":2.5}` }),
  ToolCall.make({ id: "call_unknown", name: "get_stock_price", arguments: `{"symbol":"ACME"}` }),
  ToolCall.make({ id: "call_no_station", name: "get_weather", arguments: `{"city":"Atlantis"}` }),
  ToolCall.make({ id: "call_overdrawn", name: "transfer_funds", arguments: `{"to":"bob","amount":500}` }),
  ToolCall.make({ id: "call_refused", name: "transfer_funds", arguments: `{"to":"bob","amount":25000}` }),
  ToolCall.make({ id: "call_missing_key", name: "get_weather", arguments: `{}` })
]

const user = CurrentUser.of({ id: "user_42", units: "metric", balance: 120 })

const header = ["call id", "tool", "status", "error kind", "model sees", "host-only metadata", "ms"] as const
const modelSeesColumn = 4
const durationColumn = 6

const truncate = (text: string, max: number): string => text.length > max ? `${text.slice(0, max - 1)}…` : text

const metadataOf = (result: ToolResult.ToolResult): string => {
  const entries = [
    Option.map(ToolResult.metadata(result, WeatherSource), (source) => `WeatherSource=${source}`),
    Option.map(ToolResult.metadata(result, AuditRecord), (audit) => `AuditRecord=${audit}`)
  ].flatMap(Option.toArray)
  return entries.length === 0 ? "-" : entries.join(", ")
}

const row = (result: ToolResult.ToolResult): ReadonlyArray<string> => [
  result.callId,
  result.name,
  result.status,
  Option.match(result.error, { onNone: () => "-", onSome: (error) => error.kind }),
  ToolOutput.render(result.output).replace(/\s+/g, " ").trim(),
  metadataOf(result),
  result.durationMs.toFixed(2)
]

const table = (fullRows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widthOf = (rows: ReadonlyArray<ReadonlyArray<string>>, column: number) =>
    Math.max(...[header, ...rows].map((cells) => cells[column]!.length))
  // What the model sees gets the room the terminal has left (100 characters when piped), so that rows never wrap.
  const others = header.reduce(
    (sum, _, column) => column === modelSeesColumn ? sum : sum + widthOf(fullRows, column) + 2,
    0
  )
  const maxModelSees = process.stdout.isTTY ? Math.max(40, process.stdout.columns - others - 1) : 100
  const rows = fullRows.map((cells) =>
    cells.map((cell, column) => column === modelSeesColumn ? truncate(cell, maxModelSees) : cell)
  )
  const widths = header.map((_, column) => widthOf(rows, column))
  // Durations are numbers: right-aligned, so their decimal points line up.
  const line = (cells: ReadonlyArray<string>) =>
    cells
      .map((cell, column) => column === durationColumn ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))
      .join("  ")
      .trimEnd()
  const rule = widths.map((width) => "-".repeat(width)).join("  ")
  return [line(header), rule, ...rows.map(line)].join("\n")
}

// One call of each kind worth seeing on the wire: structured JSON, an image, a failure and a refusal.
const representative = ["call_weather", "call_chart", "call_bad_types", "call_refused"] as const

const base64 = /^[A-Za-z0-9+/]{40,}={0,2}$/
const dataUrl = /^(data:[^;,]+;base64,)(.+)$/s

// Only for printing: the adapters always send the data whole.
const shorten = (data: string): string => `${data.slice(0, 8)}…(${data.length} chars)`

const shortenBase64 = (_key: string, field: unknown): unknown => {
  if (typeof field !== "string") return field
  const url = dataUrl.exec(field)
  if (url !== null && base64.test(url[2]!)) return url[1]! + shorten(url[2]!)
  return base64.test(field) ? shorten(field) : field
}

// Pretty-printed JSON that keeps any object or array fitting in the line on one line, so the wire shape stays visible.
const pretty = (value: unknown, indent: string, lead: number): string => {
  const flat = JSON.stringify(value)
  if (value === null || typeof value !== "object" || lead + flat.length <= 118) return flat
  const inner = `${indent}  `
  const lines = Array.isArray(value)
    ? value.map((item) => inner + pretty(item, inner, inner.length))
    : Object.entries(value).map(([key, item]) => {
      const head = `${inner}${JSON.stringify(key)}: `
      return head + pretty(item, inner, head.length)
    })
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"]
  return `${open}\n${lines.join(",\n")}\n${indent}${close}`
}

const wireJson = (value: unknown): string => pretty(JSON.parse(JSON.stringify(value, shortenBase64)), "", 0)

const providers = (results: ReadonlyArray<ToolResult.ToolResult>): string => {
  const sections: ReadonlyArray<readonly [string, string, unknown]> = [
    ["OpenAI Chat Completions", "tool messages, then one user message with the media", OpenAiChat.toolResults(results)],
    ["OpenAI Responses", "function_call_output items for `input`", OpenAiResponses.toolResults(results)],
    ["Anthropic Messages", "messages to append: one user message of tool_result blocks", Anthropic.toolResults(results)],
    ["Gemini", "contents to append: one user Content of functionResponse parts", Gemini.toolResults(results)]
  ]
  return sections.map(([provider, what, rendered]) => `== ${provider}: ${what}\n${wireJson(rendered)}`).join("\n\n")
}

const program = Effect.gen(function*() {
  const results = yield* ToolSet.executeAll(tools, calls, { concurrency: 4 })
  yield* Console.log(
    `\n${calls.length} tool calls for ${user.id} (balance ${user.balance}), dispatched with concurrency 4; ` +
      `results in call order.\n`
  )
  yield* Console.log(table(results.map(row)))
  const shown = representative.map((id) => results.find((result) => result.callId === id)!)
  yield* Console.log(
    `\nWhat each provider would be sent next, for ${shown.length} of the ${results.length} results ` +
      `(${representative.join(", ")}; base64 data shortened here only):\n`
  )
  yield* Console.log(providers(shown))
})

Effect.runPromise(
  loopDemo.pipe(
    Effect.andThen(program),
    Effect.andThen(serverDemo),
    Effect.andThen(builtinsDemo),
    Effect.provideService(CurrentUser, user)
  )
)
