/**
 * One assistant turn with OpenAI Chat Completions, without a network: the assistant message is written out as the
 * API returns it, its tool calls are executed, and the next request's messages are printed.
 */
import { Console, Effect, Schema } from "effect"
import { OpenAiChat, Tool, ToolExecutionError, ToolSet } from "../src/index.ts"

const temperatures: Record<string, number> = { paris: 18, oslo: 4 }

const GetWeather = Tool.make("get_weather", {
  description: "Current temperature in a city, in degrees Celsius",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ city: Schema.String, celsius: Schema.Finite }),
  call: ({ city }) => {
    const celsius = temperatures[city.toLowerCase()]
    return celsius === undefined
      ? Effect.fail(ToolExecutionError.notFound("no weather station there; try Paris or Oslo"))
      : Effect.succeed({ city, celsius })
  }
})
const tools = ToolSet.make(GetWeather)

const messages = [{ role: "user", content: "Is it warmer in Paris or in Atlantis?" }]

// `completion.choices[0].message` for the request { model, messages, tools }: two calls in parallel.
const assistant = {
  role: "assistant",
  content: null,
  refusal: null,
  annotations: [],
  tool_calls: [
    { id: "call_Pa1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } },
    { id: "call_At2", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Atlantis\"}" } }
  ]
}

const program = Effect.gen(function*() {
  // The request's `tools`: a Result, because a tool marked strict may have a schema strict mode cannot express.
  const definitions = yield* Effect.fromResult(OpenAiChat.definitions(tools))
  const calls = OpenAiChat.toolCalls(assistant)
  // Never fails: a bad call becomes a result the model can read.
  const results = yield* ToolSet.executeAll(tools, calls)
  const next = {
    model: "gpt-4.1",
    tools: definitions,
    messages: [...messages, assistant, ...OpenAiChat.toolResults(results)]
  }
  yield* Console.log(JSON.stringify(next.messages.slice(2), null, 2))
})

Effect.runPromise(program)
