/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance`, server mode) against our MCP server over Streamable
 * HTTP. The server is the fixture `test/fixtures/conformanceServer.ts`, started as a child process on 127.0.0.1; the
 * suite runs from its own bin and talks to nothing but that URL.
 *
 * What we do not implement is listed, with the reason, in `conformance-baseline.json`. Every other scenario must pass,
 * and every listed one must still fail, so that the baseline stays true.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const fixture = fileURLToPath(new URL("../fixtures/conformanceServer.ts", import.meta.url))
const suitePackage = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/conformance/package.json", import.meta.url)
)
const baselineFile = fileURLToPath(new URL("./conformance-baseline.json", import.meta.url))

/** The scenarios that must pass: every one about tools, and the session basics the issue names. */
const required = [
  "server-initialize",
  "ping",
  "dns-rebinding-protection",
  "tools-list",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-with-logging",
  "tools-call-error",
  "tools-call-with-progress",
  "json-schema-2020-12"
]

const Baseline = Schema.Struct({
  suite: Schema.String,
  expectedFailures: Schema.Record(Schema.String, Schema.String)
})

const Checks = Schema.Array(Schema.Struct({
  id: Schema.String,
  status: Schema.String,
  errorMessage: Schema.optionalKey(Schema.String)
}))

/** One scenario's outcome: the checks that failed it, as `id: message` lines; none when it passed. */
interface Outcome {
  readonly scenario: string
  readonly failures: ReadonlyArray<string>
}

/** Runs `node` with `args`, to its end, whatever its exit code; rejects when it cannot start or runs out of time. */
const runNode = (args: ReadonlyArray<string>, timeout: number): Promise<{ stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    execFile(process.execPath, [...args], { timeout, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      // The suite exits with 1 when a scenario fails: that is read from its results, not from the code.
      if (error !== null && typeof error.code !== "number") {
        reject(new Error(`node ${args.join(" ")} did not finish: ${error.message}\n${stdout}\n${stderr}`))
      } else {
        resolve({ stdout, stderr })
      }
    })
  })

/** The port the fixture listens on, from the `LISTENING <port>` line it writes to stderr once it serves. */
const listeningPort = (child: ChildProcess, ms: number): Promise<number> =>
  new Promise((resolve, reject) => {
    let stderr = ""
    const timer = setTimeout(() => fail(`the fixture did not listen within ${ms} ms`), ms)
    const fail = (why: string) => {
      clearTimeout(timer)
      reject(new Error(`${why}; its stderr:\n${stderr}`))
    }
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
      const listening = /^LISTENING (\d+)$/m.exec(stderr)
      if (listening !== null) {
        clearTimeout(timer)
        resolve(Number(listening[1]))
      }
    })
    child.on("exit", (code) => fail(`the fixture exited with ${code}`))
  })

// The suite names each result folder `server-<scenario>-<ISO time, with ':' and '.' as '-'>`.
const resultFolder = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/

/**
 * Every scenario's outcome from the suite's output folder. A scenario fails on a check that is a failure or a
 * warning, as the suite itself judges a baseline.
 */
const readOutcomes = async (folder: string): Promise<ReadonlyArray<Outcome>> => {
  const entries = await readdir(folder)
  return Promise.all(entries.map(async (entry) => {
    const scenario = resultFolder.exec(entry)?.[1]
    if (scenario === undefined) throw new Error(`unexpected entry in the suite's output: ${entry}`)
    const json = JSON.parse(await readFile(join(folder, entry, "checks.json"), "utf8"))
    const checks = Schema.decodeUnknownSync(Checks)(json)
    const failures = checks
      .filter((check) => check.status === "FAILURE" || check.status === "WARNING")
      .map((check) => `${check.id}: ${check.status} ${check.errorMessage ?? ""}`.trim())
    return { scenario, failures }
  }))
}

describe("MCP conformance suite, server mode, against our HTTP server", () => {
  let child: ChildProcess | undefined
  let output: string | undefined
  let bin: string
  let suiteVersion: string
  let listed: ReadonlyArray<string>
  let outcomes: ReadonlyArray<Outcome>
  let baseline: typeof Baseline.Type

  const stop = async () => {
    child?.kill()
    child = undefined
    if (output !== undefined) await rm(output, { recursive: true, force: true })
    output = undefined
  }

  beforeAll(async () => {
    try {
      const pkg = JSON.parse(await readFile(suitePackage, "utf8")) as { version: string; bin: { conformance: string } }
      suiteVersion = pkg.version
      bin = join(suitePackage, "..", pkg.bin.conformance)
      baseline = Schema.decodeUnknownSync(Baseline)(JSON.parse(await readFile(baselineFile, "utf8")))
      child = spawn(process.execPath, ["--import", "tsx", fixture], { stdio: ["ignore", "ignore", "pipe"] })
      const port = await listeningPort(child, 20_000)
      output = await mkdtemp(join(tmpdir(), "mcp-conformance-"))
      // `--suite all` includes the pending scenarios too, json-schema-2020-12 among them.
      await runNode([bin, "server", "--suite", "all", "--url", `http://127.0.0.1:${port}/mcp`, "-o", output], 40_000)
      outcomes = await readOutcomes(output)
      const list = await runNode([bin, "list", "--server"], 10_000)
      listed = [...list.stdout.matchAll(/^\s+- (\S+)$/gm)].map((match) => match[1]!)
    } catch (error) {
      await stop()
      throw error
    }
  }, 60_000)

  afterAll(stop)

  it("the baseline is for the installed suite", () => {
    assert.strictEqual(baseline.suite, `@modelcontextprotocol/conformance@${suiteVersion}`)
  })

  it("runs every scenario the suite has, and the baseline names only those", () => {
    assert.isAbove(listed.length, required.length)
    assert.deepStrictEqual(outcomes.map((outcome) => outcome.scenario).sort(), [...listed].sort())
    assert.deepStrictEqual(Object.keys(baseline.expectedFailures).filter((name) => !listed.includes(name)), [])
  })

  it("the tool scenarios, initialize, ping and DNS-rebinding protection are not excused by the baseline", () => {
    assert.deepStrictEqual(required.filter((name) => name in baseline.expectedFailures), [])
    assert.deepStrictEqual(required.filter((name) => !listed.includes(name)), [])
  })

  it("passes every scenario outside the baseline", () => {
    const unexpected = outcomes.filter((outcome) =>
      outcome.failures.length > 0 && !(outcome.scenario in baseline.expectedFailures)
    )
    assert.deepStrictEqual(unexpected, [])
  })

  it("still fails every scenario of the baseline (a scenario that passes must leave it)", () => {
    const passing = outcomes.filter((outcome) =>
      outcome.failures.length === 0 && outcome.scenario in baseline.expectedFailures
    )
    assert.deepStrictEqual(passing.map((outcome) => outcome.scenario), [])
  })
})
