/**
 * Tool parameters as MCP servers send them in `tools/list`: a few written out, of each draft a server may use, and
 * every tool of the published servers in the retrieval catalogue. Shared by the tests of runtime tools and of the
 * test kit, which must both accept them as they are.
 */
import { readFileSync } from "node:fs"
import type { DynamicTool } from "../../src/index.ts"

/** The parameters of `search_docs`: a closed object, one required string, one bounded integer. */
export const searchDocsParameters = {
  type: "object",
  properties: { query: { type: "string", minLength: 1 }, limit: { type: "integer", minimum: 1, maximum: 20 } },
  required: ["query"],
  additionalProperties: false
}

/** The parameters of `create_commit`, in draft-07: `definitions`, tuple `items`, a `$ref` into `properties`. */
export const draft07Schema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: {
    owner: { type: "string", description: "Repository owner" },
    author: { $ref: "#/definitions/person" },
    committer: { $ref: "#/properties/author" },
    position: { type: "array", items: [{ type: "integer" }, { type: "string" }], additionalItems: false },
    labels: { type: "array", items: { type: "string" } }
  },
  required: ["owner", "author"],
  additionalProperties: false,
  definitions: {
    person: {
      type: "object",
      properties: { name: { type: "string" }, email: { type: "string", format: "email" } },
      required: ["name", "email"],
      additionalProperties: false
    }
  }
}

/** The parameters of `route`, in draft 2020-12: `$defs`, `prefixItems`, `items: false`. */
export const draft2020Schema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    from: { $ref: "#/$defs/point" },
    to: { $ref: "#/$defs/point" },
    span: {
      type: "array",
      prefixItems: [{ type: "integer", minimum: -5, maximum: 5 }, { type: "string", maxLength: 3 }],
      items: false
    },
    mode: { enum: ["walk", "ride"] }
  },
  required: ["from", "to", "mode"],
  additionalProperties: false,
  $defs: {
    point: {
      type: "object",
      properties: { x: { type: "number" }, y: { type: "number" } },
      required: ["x", "y"],
      additionalProperties: false
    }
  }
}

/** One tool of the catalogue, named `server.tool` so that names are unique across servers. */
export interface CatalogueTool {
  readonly name: string
  readonly description?: string
  readonly inputSchema: DynamicTool.JsonSchema
}

interface Catalogue {
  readonly servers: ReadonlyArray<{
    readonly server: string
    readonly tools: ReadonlyArray<{
      readonly name: string
      readonly description?: string
      readonly inputSchema: DynamicTool.JsonSchema
    }>
  }>
}

/** The tools of published MCP servers, as their `tools/list` gives them. */
export const catalogueTools: ReadonlyArray<CatalogueTool> = (JSON.parse(
  readFileSync(new URL("../../bench/retrieval/catalogue.json", import.meta.url), "utf8")
) as Catalogue).servers.flatMap(({ server, tools }) =>
  tools.map((tool) => ({ ...tool, name: `${server}.${tool.name}` }))
)

/**
 * Two 2019-09 trees that recurse by `$recursiveAnchor`, new objects on each call: one that takes any object at every
 * level, and one that takes only `n`, a number, and `child`, at every level.
 */
export const recursiveTrees = () => ({
  loose: {
    $schema: "https://json-schema.org/draft/2019-09/schema",
    $recursiveAnchor: true,
    type: "object",
    properties: { child: { $recursiveRef: "#" } }
  },
  strict: {
    $schema: "https://json-schema.org/draft/2019-09/schema",
    $recursiveAnchor: true,
    type: "object",
    properties: { n: { type: "number" }, child: { $recursiveRef: "#" } },
    required: ["n"],
    additionalProperties: false
  }
})

/** A value the loose tree of {@link recursiveTrees} takes and the strict one does not. */
export const nestedTree = { child: { child: {} } }
