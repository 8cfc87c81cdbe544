/**
 * The loop part of the demo, first in `npm start`: a short conversation between a model and the tools of `tools.ts`,
 * run by `ToolLoop.run`. The model is scripted (`ToolTesting.scriptedModel`), so no network is needed: its first turn
 * calls two tools at once, its second two more (one of them a transfer, which a hook of the tool server denies), and
 * its third answers. Each call goes through the server's dispatch and hooks, and its result goes back to the model in
 * call order.
 *
 * `npx tsx examples/loop.ts` runs it alone.
 */
import { Console, Context, Effect, Layer, Option } from "effect"
import type { Prompt } from "effect/ai"
import { pathToFileURL } from "node:url"
import { ToolHooks, type ToolResult, ToolServer } from "../src/index.ts"
import { ToolLoop } from "../src/ai/index.ts"
import { ToolTesting } from "../src/testing/index.ts"
import { CurrentUser, tools } from "./tools.ts"

/** Money moves in the banking app, never from a chat: every transfer is denied, and the model is told why. */
const noTransfers = ToolHooks.make({
  onCall: (event) =>
    Effect.succeed(
      event.tool.name === "transfer_funds"
        ? ToolHooks.deny("transfers are made in the banking app, not from a chat")
        : ToolHooks.run
    )
})

class Tools extends Context.Service<Tools, ToolServer.ToolServer<CurrentUser>>()("examples/LoopTools") {}

const ToolsLive = ToolServer.layer(Tools, { tools, hooks: [noTransfers] })

/** What the model says, turn by turn. A real provider's `LanguageModel` layer takes its place in an application. */
const Model = ToolTesting.scriptedModel([
  [
    { type: "text", text: "Let me check the weather and work out the total." },
    { type: "tool-call", name: "get_weather", params: { city: "Paris" } },
    { type: "tool-call", name: "add", params: { left: 19, right: 23 } }
  ],
  [
    { type: "tool-call", name: "render_chart", params: { title: "Spending", values: [19, 23] } },
    { type: "tool-call", name: "transfer_funds", params: { to: "bob", amount: 42 } }
  ],
  "It is mild in Paris, and you spent 42 in total (charted above). I cannot send Bob the 42 from here: transfers " +
  "are made in the banking app."
])

const truncate = (text: string, max: number): string => text.length > max ? `${text.slice(0, max - 1)}…` : text

const oneLine = (value: unknown): string =>
  truncate((typeof value === "string" ? value : JSON.stringify(value) ?? String(value)).replace(/\s+/g, " "), 96)

/** One line per part of the conversation, as the model sees it. */
const lines = (transcript: Prompt.Prompt): ReadonlyArray<string> =>
  transcript.content.flatMap((message) =>
    typeof message.content === "string"
      ? [`${message.role.padEnd(9)} ${oneLine(message.content)}`]
      : message.content.map((part) => {
        switch (part.type) {
          case "text":
            return `${message.role.padEnd(9)} ${oneLine(part.text)}`
          case "tool-call":
            return `${message.role.padEnd(9)} → ${part.name}(${oneLine(part.params)})  [${part.id}]`
          case "tool-result":
            return `${message.role.padEnd(9)} ← ${part.name}${part.isFailure ? " (failure)" : ""}: ${
              oneLine(part.result)
            }  [${part.id}]`
          default:
            return `${message.role.padEnd(9)} (${part.type})`
        }
      })
  )

const statusOf = (result: ToolResult.ToolResult): string =>
  Option.match(result.error, { onNone: () => result.status, onSome: (error) => `${result.status} (${error.kind})` })

/** The loop demo. It needs the current user, which each call brings. */
export const loopDemo: Effect.Effect<void, unknown, CurrentUser> = Effect.gen(function*() {
  const server = yield* Tools
  const { text, toolResults, transcript, turns } = yield* ToolLoop.run({
    tools: server,
    prompt: "What's the weather in Paris? Add up my two purchases (19 and 23), chart them, and send Bob the total.",
    maxTurns: 5
  })
  const requests = yield* (yield* ToolTesting.ScriptedModel).requests
  yield* Console.log(`A conversation run by ToolLoop.run over a scripted model, in ${turns} turns:\n`)
  yield* Console.log(lines(transcript).join("\n"))
  yield* Console.log(
    `\nMessages the model was sent at each turn: ${requests.map((r) => r.prompt.content.length).join(", ")}`
  )
  yield* Console.log(
    `Calls: ${toolResults.map((result) => `${result.name} ${statusOf(result)}`).join("; ")}`
  )
  yield* Console.log(`Final answer: ${text}`)
}).pipe(Effect.provide(Layer.merge(ToolsLive, Model)))

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const user = CurrentUser.of({ id: "user_42", units: "metric", balance: 120 })
  Effect.runPromise(loopDemo.pipe(Effect.provideService(CurrentUser, user)))
}
