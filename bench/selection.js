// Selection speed: building a ToolIndex over 100, 1,000 and 10,000 tools, and `ToolIndex.select` over each.
// `node bench/selection.js [--quick]` (against dist/, after `npm run build`); `npm run bench` runs it too.
// The tools are synthetic but shaped like real ones: names from products, verbs and objects, a sentence of
// description, and parameters with descriptions. The queries are requests in words, most matching many tools.
import { Effect, Schema } from "effect"
import { median } from "./measure.js"

const products = ["github", "gitlab", "slack", "jira", "notion", "drive", "calendar", "stripe", "postgres", "redis",
  "s3", "figma", "linear", "zendesk", "hubspot", "salesforce", "twilio", "sentry", "datadog", "vercel"]
const verbs = ["create", "get", "list", "update", "delete", "search", "archive", "export", "import", "share", "move",
  "copy", "sync", "assign", "close", "open", "merge", "tag", "watch", "restore"]
const objects = ["issue", "file", "message", "channel", "page", "event", "invoice", "customer", "table", "key",
  "bucket", "design", "ticket", "contact", "deal", "alert", "dashboard", "deployment", "comment", "user", "report",
  "folder", "branch", "release", "webhook"]

const Parameters = Schema.Struct({
  id: Schema.String.annotate({ description: "The identifier of the item" }),
  query: Schema.optionalKey(Schema.String.annotate({ description: "Words to match, in any order" })),
  limit: Schema.optionalKey(Schema.Int.annotate({ description: "How many results to return at most" }))
})

/** `n` distinct tools, each with its own name and description. */
export const syntheticTools = (Tool, n) =>
  Array.from({ length: n }, (_, i) => {
    const product = products[i % products.length]
    const verb = verbs[Math.floor(i / products.length) % verbs.length]
    const object = objects[Math.floor(i / (products.length * verbs.length)) % objects.length]
    const round = Math.floor(i / (products.length * verbs.length * objects.length))
    return Tool.make(`${product}_${verb}_${object}${round === 0 ? "" : `_${round}`}`, {
      description: `${verb[0].toUpperCase()}${verb.slice(1)} a ${object} in ${product}, with its owner, labels and history.`,
      parameters: Parameters,
      call: () => Effect.void
    })
  })

export const selectionQueries = [
  "close the jira ticket about the login bug",
  "post a message in the slack channel for the release",
  "what invoices did stripe send this month?",
  "find the figma design for the onboarding page",
  "restore the deleted file from drive",
  "who is assigned to the sentry alert from last night",
  "export the hubspot contacts to a report",
  "merge the github branch once the checks pass",
  "schedule a calendar event with the team on friday",
  "list the datadog dashboards that mention latency"
]

/**
 * Build time (one build per size, after one warm-up build of the smallest) and select time (median over
 * `rounds` passes over the queries, after a warm-up pass) for each size.
 */
export const measureSelection = async ({ Tool, ToolEmbedding, ToolIndex, ToolSet }, { sizes = [100, 1_000, 10_000], rounds = 50 } = {}) => {
  const rows = []
  const warm = syntheticTools(Tool, sizes[0])
  await Effect.runPromise(ToolIndex.make(warm.map((tool) => ToolEmbedding.make(tool))))
  for (const size of sizes) {
    const tools = syntheticTools(Tool, size)
    const embeddings = tools.map((tool) => ToolEmbedding.make(tool))
    const set = ToolSet.make(...tools)
    const t0 = performance.now()
    const index = await Effect.runPromise(ToolIndex.make(embeddings))
    const buildMs = performance.now() - t0
    const select = (query) => Effect.runSync(ToolIndex.select(index, set, query, { topK: 5 }))
    for (const query of selectionQueries) {
      if (ToolSet.names(select(query)).length !== 5) throw new Error(`select over ${size} tools did not give 5 tools`)
    }
    const samples = []
    for (let r = 0; r < rounds; r++) {
      for (const query of selectionQueries) {
        const t = performance.now()
        select(query)
        samples.push(performance.now() - t)
      }
    }
    rows.push({ size, buildMs, selectMedianMs: median(samples), selectMaxMs: Math.max(...samples) })
  }
  return rows
}

/** The measurements as a Markdown table. */
export const selectionTable = (rows) =>
  [
    "| tools | ToolIndex.make | select, median | select, max |",
    "| ---: | ---: | ---: | ---: |",
    ...rows.map((r) =>
      `| ${r.size.toLocaleString("en-US")} | ${r.buildMs.toFixed(0)} ms | ${r.selectMedianMs.toFixed(3)} ms | ${r.selectMaxMs.toFixed(2)} ms |`)
  ].join("\n")

if (import.meta.url === `file://${process.argv[1]}`) {
  const fromSource = process.argv.includes("--src")
  const root = fromSource ? "../src/" : "../dist/"
  const ext = fromSource ? ".ts" : ".js"
  const load = (path) => import(new URL(`${root}${path}${ext}`, import.meta.url).href)
  const lib = { Tool: await load("Tool"), ToolEmbedding: await load("ToolEmbedding"), ToolIndex: await load("ToolIndex"), ToolSet: await load("ToolSet") }
  const rows = await measureSelection(lib, { rounds: process.argv.includes("--quick") ? 10 : 50 })
  console.log(selectionTable(rows))
}
