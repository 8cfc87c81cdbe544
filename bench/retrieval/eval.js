// Retrieval evaluation: how often the tools a request needs are among the first k a retriever ranks.
// `node bench/retrieval/eval.js` (against dist/, after `npm run build`); `npm run bench` runs it too.
//
// The requests in queries.json alternate between a dev half and a test half, fixed before any tuning. Every choice
// of the default retriever (features, field weights) was made looking at the dev half only; the test half is
// reported as the estimate of how it does on requests it was not tuned on.
import { Effect } from "effect"
import MiniSearch from "minisearch"
import { catalogueTools, readQueries } from "./tools.js"

const ks = [1, 5, 10]

/** True when every label is in the first k names; a label that lists alternatives needs one of them. */
const hit = (ranking, labels, k) => {
  const top = new Set(ranking.slice(0, k))
  return labels.every((label) => (Array.isArray(label) ? label : [label]).some((name) => top.has(name)))
}

const recall = (rankings, queries, split) => {
  const rows = queries.map((q, i) => [q, rankings[i]]).filter(([q]) => split === "all" || q.split === split)
  return ks.map((k) => rows.filter(([q, ranking]) => hit(ranking, q.tools, k)).length / rows.length)
}

/** Plain BM25: minisearch as it comes, over name and description, a name kept as one token, no stemming. */
const plainBm25 = (tools) => {
  const index = new MiniSearch({
    fields: ["name", "description"],
    storeFields: ["name"],
    tokenize: (text, field) => field === "name" ? [text] : MiniSearch.getDefault("tokenize")(text)
  })
  index.addAll(tools.map(({ name, description }, id) => ({ id, name, description })))
  return (query) => index.search(query).map((hit) => tools[hit.id].name)
}

/**
 * `lib` holds the modules under test: `ToolEmbedding`, `ToolIndex`, `ToolSet` and the internal `lexicalIndex`
 * and `parameterText` modules (for the rows that turn one feature off).
 */
export const evaluateRetrieval = async (lib, { queriesFile } = {}) => {
  const { ToolEmbedding, ToolIndex, ToolSet, lexicalIndex, parameterText } = lib
  const tools = catalogueTools()
  const queries = readQueries(queriesFile)
  const depth = Math.max(...ks)

  const embeddings = tools.map(({ tool }) => ToolEmbedding.make(tool))
  const set = ToolSet.make(...tools.map(({ tool }) => tool))
  const index = await Effect.runPromise(ToolIndex.make(embeddings))
  const viaSelect = async (query) =>
    ToolSet.names(await Effect.runPromise(ToolIndex.select(index, set, query, { topK: depth })))

  // The rows that turn one feature off read the servers' own JSON Schemas, as a dynamic tool's index would.
  const documents = tools.map(({ name, description, inputSchema }, i) => {
    const parameters = parameterText.fromJsonSchema(inputSchema)
    return { name, description, docs: embeddings[i].docs, parameterNames: parameters.names, parameterText: parameters.text }
  })
  const lexicalWith = async (options) => {
    const built = await Effect.runPromise(lexicalIndex.buildLexicalIndex(documents, options))
    return (query) => built.search(query, depth).map((id) => tools[id].name)
  }
  const base = lexicalIndex.defaultLexicalOptions
  const without = (change) => lexicalWith({ ...base, ...change })

  const retrievers = [
    ["plain BM25 (minisearch defaults, name one token, no stemming)", plainBm25(tools)],
    ["default retriever: ToolIndex.select", viaSelect],
    ["  lexical index alone, parameters read from the servers' JSON Schemas (the base of the rows below)", await without({})],
    ["  without stemming", await without({ stem: false })],
    ["  without name splitting", await without({ splitNames: false })],
    ["  without parameter names and descriptions", await without({ parameters: false })],
    ["  without stop words", await without({ stopWords: false })],
    ["  without prefix matching", await without({ prefix: false })],
    ["  without the thesaurus", await without({ thesaurus: false })],
    ["  without reading file names and paths as \"file\"", await without({ fileNames: false })],
    ["  with every field weighted 1", await without({ boost: { name: 1, description: 1, docs: 1, parameterNames: 1, parameterText: 1 } })],
    ["stemming and name splitting only", await without({ parameters: false, stopWords: false, prefix: false, thesaurus: false, fileNames: false, boost: { name: 1, description: 1, docs: 1, parameterNames: 1, parameterText: 1 } })]
  ]
  const rows = []
  for (const [name, rank] of retrievers) {
    const rankings = []
    for (const q of queries) rankings.push(await rank(q.query))
    rows.push({ name, dev: recall(rankings, queries, "dev"), test: recall(rankings, queries, "test"), all: recall(rankings, queries, "all") })
  }
  return {
    tools: tools.length,
    servers: new Set(tools.map(({ name }) => name.slice(0, name.indexOf(".")))).size,
    queries: queries.length,
    dev: queries.filter((q) => q.split === "dev").length,
    rows
  }
}

const pct = (x) => `${(x * 100).toFixed(1)}`

/** The evaluation as a Markdown table. */
export const retrievalTable = (result) => {
  const header = ["retriever", ...["dev", "test", "all"].flatMap((s) => ks.map((k) => `${s} R@${k}`))]
  const lines = [header, header.map(() => "---"), ...result.rows.map((row) =>
    [row.name.replace(/^ {2}/, "— "), ...["dev", "test", "all"].flatMap((s) => row[s].map(pct))])]
  return lines.map((cells) => `| ${cells.join(" | ")} |`).join("\n")
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const fromSource = process.argv.includes("--src")
  const root = fromSource ? "../../src/" : "../../dist/"
  const ext = fromSource ? ".ts" : ".js"
  const load = (path) => import(new URL(`${root}${path}${ext}`, import.meta.url).href)
  const lib = {
    ToolEmbedding: await load("ToolEmbedding"),
    ToolIndex: await load("ToolIndex"),
    ToolSet: await load("ToolSet"),
    lexicalIndex: await load("internal/lexicalIndex"),
    parameterText: await load("internal/parameterText")
  }
  const queriesFile = process.argv.find((arg) => arg.startsWith("--queries="))?.slice("--queries=".length)
  const result = await evaluateRetrieval(lib, queriesFile === undefined ? {} : { queriesFile })
  console.log(`${result.tools} tools from ${result.servers} servers; ${result.queries} requests (${result.dev} dev)\n`)
  console.log(retrievalTable(result))
}
