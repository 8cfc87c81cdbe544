// The MCP round-trip rows: one `tools/call` of the `add` tool through our MCP client to our MCP server, over an
// in-memory transport, against the official SDK's client calling an SDK server over its in-memory transport.
//   node bench/mcp.js [--quick]      these rows alone (against dist/, after `npm run build`)
// `npm run bench` runs them with the rest.
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { ToolCall, ToolSet } from "effect-llm-tools"
import { McpClient, McpServer } from "effect-llm-tools/mcp"
import { fileURLToPath } from "node:url"
import { argumentTexts, expectedValue, makeOurAdd, makeSdkMcpPair } from "./contenders.js"
import { fmtX, measureRounds, ratioStats, table, versusPeerTable } from "./measure.js"

class BenchTools extends Context.Service()("bench/McpTools") {}

/**
 * Our server on one end of an in-memory connection (`McpServer.memory`: one JSON-RPC text per message, as on
 * stdio, handed over at once), and our client on the other, through the connection's client transport.
 */
const ourPair = Effect.gen(function*() {
  const connection = yield* McpServer.memory
  yield* Layer.build(
    McpServer.layer(BenchTools, { name: "bench", version: "1.0.0" }).pipe(
      Layer.provide(connection.protocol),
      Layer.provide(ToolSet.toLayer(BenchTools, ToolSet.make(makeOurAdd())))
    )
  )
  const client = yield* McpClient.fromTransport(connection.transport)
  return ToolSet.make(...(yield* McpClient.tools(client)))
})

const textAt = (i) => argumentTexts[i & 63]

/** The two contenders: ours (client → server through our dispatch on both ends) and the SDK's. */
export const makeMcpContenders = async () => {
  const scope = await Effect.runPromise(Scope.make())
  const imported = await Effect.runPromise(Scope.provide(ourPair, scope))
  const ours = {
    name: "ours: McpClient → McpServer (in-memory transport), runPromise/call",
    key: "ours",
    async: true,
    one: async (i) => {
      const result = await Effect.runPromise(
        ToolSet.execute(imported, ToolCall.make({ id: `call_${i & 63}`, name: "add", arguments: textAt(i) }))
      )
      if (result.status !== "success") throw new Error(`ours: ${result.status}`)
      return result.output.content[0].value.value
    }
  }
  const pair = await makeSdkMcpPair()
  const sdk = {
    name: "MCP SDK: Client → McpServer (in-memory transport), per call",
    key: "sdk",
    async: true,
    one: async (i) => {
      const result = await pair.client.callTool({ name: "add", arguments: JSON.parse(textAt(i)) })
      return result.structuredContent.value
    }
  }
  const contenders = [ours, sdk].map((c) => ({
    ...c,
    run: async (n) => {
      let last
      for (let i = 0; i < n; i++) last = await c.one(i)
      return last
    }
  }))
  for (const c of contenders) {
    for (const i of [0, 11, 63]) {
      const got = await c.one(i)
      if (got !== expectedValue(i)) throw new Error(`${c.name}: got ${got}, expected ${expectedValue(i)}`)
    }
  }
  return {
    contenders,
    close: async () => {
      await pair.close()
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}

/** Interleaved rounds of both contenders. */
export const measureMcp = async ({ warmupMs, roundMs, rounds }, log = () => {}) => {
  log(`[bench] MCP round trip: ${rounds} interleaved rounds`)
  const { contenders, close } = await makeMcpContenders()
  const { samples } = await measureRounds(contenders, { warmupMs, roundMs, rounds })
  await close()
  return { contenders: contenders.map(({ name, key }) => ({ name, key })), samples }
}

/** The target: ours is not slower than the SDK's round trip (the per-round ratio's median). */
export const mcpTargets = (measured) => {
  const ratio = ratioStats(measured.samples[0], measured.samples[1]).median
  return [[
    "MCP round trip: our client → our server ≤ 1× the SDK's client → SDK server (in-memory transports)",
    fmtX(ratio),
    ratio <= 1
  ]]
}

/** The per-call table of the MCP rows. */
export const mcpTable = (measured) => versusPeerTable(measured, 1, { perCall: "median / call", versus: "SDK" })

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes("--quick")
  const measured = await measureMcp(
    quick ? { warmupMs: 250, roundMs: 20, rounds: 9 } : { warmupMs: 1000, roundMs: 40, rounds: 21 },
    (...args) => console.error(...args)
  )
  console.log(table(["", "target", "measured"], mcpTargets(measured).map(([w, m, p]) => [`**${p ? "PASS" : "FAIL"}**`, w, m])))
  console.log()
  console.log(mcpTable(measured))
  process.exit(0)
}
