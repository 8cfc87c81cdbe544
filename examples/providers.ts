import { Console, Effect, Schema } from "effect"
import { Anthropic, Tool, ToolSet } from "../src/index.ts"

const GetWeather = Tool.make("get_weather", {
  description: "Current temperature in a city",
  parameters: Schema.Struct({ city: Schema.String }),
  call: ({ city }) => Effect.succeed({ city, temperature: 18 })
})
const tools = ToolSet.make(GetWeather)

// The assistant message's content, as `client.messages.create(…)` returns it: two parallel calls, one of them bad.
const content = [
  { type: "text", text: "Checking both cities." },
  { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
  { type: "tool_use", id: "toolu_2", name: "get_weather", input: { town: "Oslo" } }
]

const program = Effect.gen(function*() {
  // The request's `tools` (a Result: a name Anthropic refuses, or a strict tool that cannot compile, fails it).
  const definitions = yield* Effect.fromResult(Anthropic.definitions(tools))
  const calls = Anthropic.toolCalls(content)
  const results = yield* ToolSet.executeAll(tools, calls)
  // The messages to append: one user message with a tool_result block per call, in order (none for no calls); the
  // bad call has is_error: true.
  const next = Anthropic.toolResults(results)
  yield* Console.log(JSON.stringify({ tools: definitions, next }, null, 2))
})

Effect.runPromise(program)
