// The catalogue's definitions as tools of this library, made as a host makes the tools an MCP server lists: with
// DynamicTool, from the JSON Schemas as the servers sent them, so that the evaluation ranks what users would index.
// No tool is ever called.
import { Effect } from "effect"
import { DynamicTool } from "effect-llm-tools"
import { readFileSync } from "node:fs"

/** The catalogue file: `{ servers: [{ server, package, version, tools: [MCP tool definitions] }] }`. */
export const readCatalogue = () => JSON.parse(readFileSync(new URL("./catalogue.json", import.meta.url), "utf8"))

/** The labelled requests: `[{ split: "dev" | "test", query, tools: [name | [alternative names]] }]`. */
export const readQueries = (file = "./queries.json") => JSON.parse(readFileSync(new URL(file, import.meta.url), "utf8"))

/**
 * Every tool of the catalogue as `{ name, description, inputSchema, tool }`, named `server.tool` as MCP hosts
 * namespace them (two servers both have `create_issue`), made with the built package's `DynamicTool`.
 */
export const catalogueTools = (catalogue = readCatalogue()) =>
  catalogue.servers.flatMap(({ server, tools }) =>
    tools.map((definition) => {
      const name = `${server}.${definition.name}`
      const description = definition.description ?? ""
      return {
        name,
        description,
        inputSchema: definition.inputSchema,
        tool: DynamicTool.make(name, {
          description,
          parameters: definition.inputSchema ?? { type: "object" },
          call: () => Effect.void
        })
      }
    })
  )
