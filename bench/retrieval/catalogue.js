// Regenerates catalogue.json: the tool definitions of published MCP servers, exactly as each server lists them.
// `node bench/retrieval/catalogue.js`. Each server runs over stdio with harmless local arguments (a temporary
// directory, a memory file inside it, a database URL on loopback, placeholder keys) and is only asked for
// `tools/list`: no tool is ever called, so nothing is sent to the services the keys would unlock.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import os from "node:os"
import { join } from "node:path"

const require = createRequire(import.meta.url)
const scratch = mkdtempSync(join(os.tmpdir(), "mcp-catalogue-"))

// Placeholder credentials: the servers refuse to start without them, and only use them when a tool is called.
const servers = [
  { server: "filesystem", args: [scratch] },
  { server: "memory", env: { MEMORY_FILE_PATH: join(scratch, "memory.jsonl") } },
  { server: "everything", args: ["stdio"] },
  { server: "github", env: {} },
  { server: "gitlab", env: { GITLAB_PERSONAL_ACCESS_TOKEN: "placeholder", GITLAB_API_URL: "http://127.0.0.1:9/api/v4" } },
  { server: "slack", env: { SLACK_BOT_TOKEN: "placeholder", SLACK_TEAM_ID: "placeholder" } },
  { server: "google-maps", env: { GOOGLE_MAPS_API_KEY: "placeholder" } },
  { server: "brave-search", env: { BRAVE_API_KEY: "placeholder" } },
  { server: "postgres", args: ["postgresql://127.0.0.1:9/placeholder"] },
  { server: "sequential-thinking" }
]

const listTools = async ({ server, args = [], env = {} }) => {
  const packageName = `@modelcontextprotocol/server-${server}`
  const manifest = JSON.parse(readFileSync(require.resolve(`${packageName}/package.json`), "utf8"))
  const bin = typeof manifest.bin === "string" ? manifest.bin : Object.values(manifest.bin)[0]
  const entry = join(require.resolve(`${packageName}/package.json`), "..", bin)
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry, ...args],
    env: { ...getDefaultEnvironment(), ...env },
    stderr: "ignore",
    cwd: scratch
  })
  const client = new Client({ name: "effect-llm-tools-catalogue", version: "0.1.0" })
  await client.connect(transport)
  try {
    const tools = []
    let cursor
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor })
      tools.push(...page.tools)
      cursor = page.nextCursor
    } while (cursor !== undefined)
    return { server, package: packageName, version: manifest.version, tools }
  } finally {
    await client.close()
  }
}

try {
  const catalogue = []
  for (const spec of servers) {
    const entry = await listTools(spec)
    console.error(`${entry.package}@${entry.version}: ${entry.tools.length} tools`)
    catalogue.push(entry)
  }
  const out = new URL("./catalogue.json", import.meta.url)
  writeFileSync(out, JSON.stringify({ servers: catalogue }, null, 2) + "\n")
  console.error(`${catalogue.reduce((n, s) => n + s.tools.length, 0)} tools written to catalogue.json`)
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
