import { Effect, Option, Schema } from "effect"
import { Tool, ToolContext } from "../../src/index.ts"
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
