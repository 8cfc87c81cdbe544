/**
 * Per-request tool selection: a catalogue of 200 tools, of which each request sees the 5 it is most about, plus the
 * tools every turn needs. Offline: the default index is BM25 with a stemmer, no key, no network.
 *
 * Run it with `npx tsx examples/selection.ts`.
 */
import { Console, Effect, Schema } from "effect"
import { Tool, ToolCall, ToolEmbedding, ToolIndex, ToolSet, ToolSetBuilder } from "../src/index.ts"

// 20 services × 10 actions: the shape of a catalogue gathered from plugins and MCP servers.
const services = {
  calendar: "events in the team calendar",
  mail: "email messages in the inbox",
  drive: "files in the shared drive",
  tickets: "support tickets from customers",
  invoices: "invoices sent to customers",
  crm: "contacts and deals in the CRM",
  chat: "messages in team chat channels",
  wiki: "pages of the internal wiki",
  repos: "source code repositories",
  builds: "CI builds and their logs",
  alerts: "monitoring alerts from production",
  database: "rows in the analytics database",
  hr: "employee records and time off",
  expenses: "expense reports and receipts",
  inventory: "stock levels in the warehouse",
  shipping: "parcels and their tracking",
  weather: "weather forecasts for cities",
  maps: "places, addresses and directions",
  translation: "text in other languages",
  payments: "card payments and refunds"
} as const

const actions = {
  search: "Search",
  get: "Get one of the",
  list: "List the recent",
  create: "Create one of the",
  update: "Update one of the",
  delete: "Delete one of the",
  export: "Export the",
  share: "Share one of the",
  archive: "Archive old",
  summarize: "Summarize the"
} as const

const Parameters = Schema.Struct({
  query: Schema.String.annotate({ description: "What to look for, or the identifier of the item" })
})

const catalogue = Object.entries(services).flatMap(([service, what]) =>
  Object.entries(actions).map(([action, verb]) =>
    Tool.make(`${service}_${action}`, {
      description: `${verb} ${what}`,
      parameters: Parameters,
      call: ({ query }) => Effect.succeed(`${service}_${action}: done for ${JSON.stringify(query)}`)
    })
  )
)

// Exposed in every turn, whatever the request.
const CurrentTime = Tool.make("current_time", {
  description: "The current date and time",
  parameters: Schema.Struct({}),
  call: () => Effect.sync(() => new Date().toISOString())
})

// A tool can carry the words its users say, beside what its author wrote.
const weatherDocs = ["will it rain", "how cold is it outside", "do I need an umbrella"]

const program = Effect.gen(function*() {
  let builder: ToolSetBuilder.ToolSetBuilder<Tool.Any> = ToolSetBuilder.make().pipe(ToolSetBuilder.addStatic(CurrentTime))
  for (const tool of catalogue) {
    const docs = tool.name.startsWith("weather_") ? [...ToolEmbedding.defaultDocs(tool), ...weatherDocs] : undefined
    builder = ToolSetBuilder.addEmbedding(builder, ToolEmbedding.make(tool, { docs }))
  }
  const { toolSet, index } = yield* ToolSetBuilder.build(builder)
  yield* Console.log(`catalogue: ${ToolSet.names(toolSet).length} tools`)

  const requests = [
    "do I need an umbrella in Oslo tomorrow?",
    "refund the card payment for order 1182",
    "where is my parcel? the tracking number is 1Z999",
    "put a team event in the calendar for Friday afternoon",
    "why did last night's build fail?"
  ]
  for (const request of requests) {
    const turn = yield* ToolIndex.select(index, toolSet, request, { topK: 5 })
    // What the model is offered this turn: 5 retrieved tools, then the always-exposed one.
    yield* Console.log(`\n${request}\n  → ${ToolSet.names(turn).join(", ")}`)
  }

  // A call the model makes to a tool outside its turn is answered not_found, like any unknown tool.
  const turn = yield* ToolIndex.select(index, toolSet, "why did last night's build fail?", { topK: 5 })
  const result = yield* ToolSet.execute(turn, ToolCall.make({ id: "call_1", name: "payments_delete", arguments: { query: "x" } }))
  yield* Console.log(`\npayments_delete outside the turn: ${result.status}, ${result.error._tag === "Some" ? result.error.value.kind : "-"}`)
})

Effect.runPromise(program)
