import { Effect, Option, Schema } from "effect"
import { Tool, ToolContext, ToolHooks } from "../../src/index.ts"
import { McpServer } from "../../src/mcp/index.ts"

/** The typed `add` the tests of the loop and of MCP call: its output is an object, `{ value }`. */
export const Add = Tool.make("add", {
  description: "Add two integers",
  parameters: Schema.Struct({ left: Schema.Int, right: Schema.Int }),
  success: Schema.Struct({ value: Schema.Int }),
  call: ({ left, right }) => Effect.succeed({ value: left + right })
})

/** A tool served over MCP that answers the `_meta` of the request it was called with (`{}` without one). */
export const Meta = Tool.make("meta", {
  description: "The request's _meta, as the tool sees it",
  parameters: Schema.Struct({}),
  call: () => Effect.map(ToolContext.get(McpServer.RequestMeta), Option.getOrElse(() => ({})))
})

/** A hook that denies transfers over 100 (`transfers over 100 need a human`), and lets every other call run. */
export const transferGuard = ToolHooks.make({
  onCall: (event) =>
    Effect.succeed(
      event.tool.name === "transfer" && (event.arguments as { readonly amount: number }).amount > 100
        ? ToolHooks.deny("transfers over 100 need a human")
        : ToolHooks.run
    )
})
