/**
 * effect-llm-tools/mcp: MCP both ways. Serve a `ToolSet` or a `ToolServer` to any MCP host, and map content between
 * our blocks and MCP's. It loads Effect's MCP implementation and `@effect/platform-node`: the core never does.
 *
 * @since 0.1.0
 */

/** Serve a ToolSet service or a ToolServer over MCP: stdio and Streamable HTTP. */
export * as McpServer from "./McpServer.ts"

/** The one mapping between our content blocks and MCP content, both ways. */
export * as McpContent from "./content.ts"

/** Import an MCP server's tools (stdio or Streamable HTTP) as portable tools that run through our dispatch. */
export * as McpClient from "./McpClient.ts"
