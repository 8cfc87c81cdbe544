/**
 * The built-in tools part of the demo: `Builtin.toolSet` over a scratch folder, and calls a model might make, the
 * unsafe ones included: exact arithmetic, the time in a zone, a file read, a path that climbs out of the folder, a
 * write without `write: true`, and a fetch of a private address (refused before anything is dialled: no network is
 * needed). The same tools are what `npx effect-llm-tools mcp --root DIR` serves to an MCP host.
 *
 * `npx tsx examples/builtins.ts` runs it alone.
 */
import { NodeServices } from "@effect/platform-node"
import { Console, Effect, Option } from "effect"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { ToolCall, ToolOutput, ToolSet } from "../src/index.ts"
import { Builtin } from "../src/builtin/index.ts"

const calls: ReadonlyArray<ToolCall.ToolCall> = [
  ToolCall.make({ id: "call_sum", name: "calculator", arguments: { expression: "0.1 + 0.2" } }),
  ToolCall.make({ id: "call_power", name: "calculator", arguments: { expression: "2 ^ 10 / (3 - 3)" } }),
  ToolCall.make({ id: "call_time", name: "clock", arguments: { timeZone: "Asia/Tokyo" } }),
  ToolCall.make({ id: "call_read", name: "read_file", arguments: { path: "notes/todo.md" } }),
  ToolCall.make({ id: "call_escape", name: "read_file", arguments: { path: "notes/../../etc/passwd" } }),
  ToolCall.make({ id: "call_write", name: "write_file", arguments: { path: "notes/todo.md", content: "" } }),
  ToolCall.make({ id: "call_fetch", name: "fetch", arguments: { url: "http://169.254.169.254/latest/meta-data/" } })
]

const oneLine = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** The built-ins demo, over a scratch folder it makes and removes. */
export const builtinsDemo: Effect.Effect<void, unknown> = Effect.acquireUseRelease(
  Effect.promise(async () => {
    const root = await mkdtemp(join(tmpdir(), "builtins-demo-"))
    await mkdir(join(root, "notes"))
    await writeFile(join(root, "notes", "todo.md"), "- buy milk\n- call Bob\n")
    return root
  }),
  (scratch) =>
    Effect.gen(function*() {
      // Even a host on the allow-list is refused when its address is not public: here, a cloud metadata service.
      const tools = yield* Builtin.toolSet({ root: scratch, allowHosts: ["docs.example.com", "169.254.169.254"] })
      yield* Console.log(`\nThe built-in tools (${ToolSet.names(tools).join(", ")}), on a scratch folder:\n`)
      const results = yield* ToolSet.executeAll(tools, calls)
      for (const result of results) {
        const kind = Option.match(result.error, { onNone: () => "", onSome: (error) => ` (${error.kind})` })
        yield* Console.log(
          `${result.callId.padEnd(12)} ${result.name.padEnd(11)} ${`${result.status}${kind}`.padEnd(31)} ${
            oneLine(ToolOutput.render(result.output), 90)
          }`
        )
      }
    }).pipe(Effect.provide(NodeServices.layer)),
  (scratch) => Effect.promise(() => rm(scratch, { recursive: true, force: true }))
)

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  Effect.runPromise(builtinsDemo)
}
