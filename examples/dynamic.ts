/**
 * A tool defined at run time from a JSON Schema, as an MCP server or a plugin would describe it: its arguments are
 * checked against the schema by a compiled validator, and it runs through the same dispatch as any tool. Good calls,
 * and calls a model gets wrong, in one batch; then the same tool made portable, its spec sent as JSON and read back.
 */
import { Console, Context, Effect, Option, Schema } from "effect"
import { DynamicTool, OpenAiChat, Tool, ToolCall, ToolOutput, ToolSet } from "../src/index.ts"

// The index the tool searches: a service, so the tool's requirement type names it.
class DocsIndex extends Context.Service<DocsIndex, {
  readonly search: (query: string, limit: number) => ReadonlyArray<string>
}>()("app/DocsIndex") {}

const docs = ["Retry policy", "Rate limits", "Retrying idempotent requests", "Webhooks", "Pagination"]

const DocsIndexLive = Context.make(DocsIndex, {
  search: (query, limit) => docs.filter((title) => title.toLowerCase().includes(query.toLowerCase())).slice(0, limit)
})

// What a server sent in its tool list: plain JSON, draft-07 here, as many MCP servers send it.
const listed = JSON.parse(`{
  "name": "search_docs",
  "description": "Search the product docs",
  "inputSchema": {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
      "query": { "type": "string", "minLength": 1 },
      "limit": { "type": "integer", "minimum": 1, "maximum": 20 }
    },
    "required": ["query"],
    "additionalProperties": false
  },
  "outputSchema": {
    "type": "object",
    "properties": { "hits": { "type": "array", "items": { "type": "string" } } },
    "required": ["hits"]
  }
}`) as { name: string; description: string; inputSchema: DynamicTool.JsonSchema; outputSchema: DynamicTool.JsonSchema }

// Tool<string, DynamicTool.Arguments, unknown, never, DocsIndex>
const SearchDocs = DynamicTool.make(listed.name, {
  description: listed.description,
  parameters: listed.inputSchema,
  outputSchema: listed.outputSchema,
  annotations: { readOnly: true, timeout: "5 seconds" },
  // The arguments passed the schema: `query` is a non-empty string, `limit` an integer from 1 to 20 if present.
  call: (args) => Effect.map(DocsIndex, (index) => ({ hits: index.search(args.query as string, (args.limit as number | undefined) ?? 3) }))
})

const tools = ToolSet.make(SearchDocs)

const calls = [
  ToolCall.make({ id: "call_ok", name: "search_docs", arguments: `{"query":"retry","limit":2}` }),
  // What models get wrong: a limit out of range, a missing query, a key the schema does not allow, a string.
  ToolCall.make({ id: "call_limit", name: "search_docs", arguments: `{"query":"retry","limit":50}` }),
  ToolCall.make({ id: "call_missing", name: "search_docs", arguments: `{"limit":2}` }),
  ToolCall.make({ id: "call_extra", name: "search_docs", arguments: `{"query":"rate","sort":"date"}` }),
  ToolCall.make({ id: "call_text", name: "search_docs", arguments: `"retry"` })
]

const program = Effect.gen(function*() {
  // The definition a provider is offered is the schema the server sent, as it was sent.
  const offered = OpenAiChat.definitions(tools)
  yield* Console.log(`offered:  ${JSON.stringify(offered._tag === "Success" ? offered.success[0]?.function.parameters : offered)}\n`)

  const results = yield* ToolSet.executeAll(tools, calls).pipe(Effect.provideContext(DocsIndexLive))
  for (const result of results) {
    const kind = Option.match(result.error, { onNone: () => "", onSome: (error) => ` (${error.kind})` })
    yield* Console.log(`${result.callId}: ${result.status}${kind}\n  model sees: ${ToolOutput.render(result.output)}`)
  }

  // Closed over its index, the tool needs nothing and runs anywhere: it is portable, with a spec to send.
  const Portable = Tool.provide(SearchDocs, DocsIndexLive, { portable: true })
  const codec = Schema.toCodecJson(DynamicTool.Spec)
  const sent = JSON.stringify(Schema.encodeSync(codec)(Portable.spec))
  yield* Console.log(`\nspec sent: ${sent}`)
  const received = Schema.decodeUnknownSync(codec)(JSON.parse(sent))
  // The other side makes a tool from the spec, with a call of its own (here, one that forwards to the original).
  const Remote = DynamicTool.fromSpec(received, (args) => Portable.call(args))
  const [remote] = yield* ToolSet.executeAll(ToolSet.make(Remote), [calls[0]!])
  yield* Console.log(`remote call_ok: ${remote!.status}, model sees ${ToolOutput.render(remote!.output)}`)
})

Effect.runPromise(program)
