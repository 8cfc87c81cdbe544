/**
 * The `effect-llm-tools` command: its help, flags and exit codes in process; then as the program an MCP host starts,
 * driven by the official SDK client over stdio and Streamable HTTP; then as `npm pack` ships it, installed into a
 * temporary folder and run through the `bin` its package.json declares.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { Cause, Effect, Exit, Layer, Schema } from "effect"
import { CliError } from "effect/cli"
import { TestConsole } from "effect/testing"
import { spawn, spawnSync } from "node:child_process"
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { type AddressInfo, createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { delimiter, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Cli from "../src/bin/cli.ts"

const repository = fileURLToPath(new URL("..", import.meta.url))
const cliSource = join(repository, "src", "bin", "cli.ts")
const fixture = join(repository, "test", "fixtures", "cliTools.ts")
const manifest = JSON.parse(readFileSync(join(repository, "package.json"), "utf8")) as {
  readonly version: string
  readonly bin: Record<string, string>
  readonly dependencies: Record<string, string>
  readonly peerDependencies: Record<string, string>
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>
}

const stripAnsi = (text: string) => text.replace(/\u001B\[[0-9;]*m/g, "")

/** A scratch folder with a file, a module of each bad kind for `--tools`, and a file outside the served root. */
const scratch = mkdtempSync(join(tmpdir(), "effect-llm-tools-cli-"))
const root = join(scratch, "root")
mkdirSync(join(root, "notes"), { recursive: true })
writeFileSync(join(root, "notes", "hello.txt"), "hello from the root\n")
writeFileSync(join(scratch, "secret.txt"), "s3cret, outside the root\n")
const modules = {
  noDefault: join(scratch, "noDefault.mjs"),
  number: join(scratch, "number.mjs"),
  throws: join(scratch, "throws.mjs")
}
writeFileSync(modules.noDefault, "export const tools = []\n")
writeFileSync(modules.number, "export default 42\n")
writeFileSync(modules.throws, "throw new Error(\"the module broke while loading\")\n")
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** Runs the command in this process, its console captured, with the exit code the program would exit with. */
const runInProcess = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(Cli.run(args))
    const stdout = stripAnsi((yield* TestConsole.logLines).join("\n"))
    const stderr = stripAnsi((yield* TestConsole.errorLines).join("\n"))
    return { code: Cli.exitCodeOf(exit), stdout, stderr }
  }).pipe(Effect.provide(Layer.merge(Layer.fresh(TestConsole.layer), NodeServices.layer)))

/** The host configuration the help shows: the JSON object that holds `"mcpServers"`, to the help's last brace. */
const hostConfigOf = (help: string): unknown => {
  const start = help.lastIndexOf("{", help.indexOf("\"mcpServers\""))
  const end = help.lastIndexOf("}")
  return JSON.parse(help.slice(start, end + 1))
}

describe("effect-llm-tools, in process", () => {
  it.effect("mcp --help explains every flag, with examples and an MCP host configuration, on stdout; exit 0", () =>
    Effect.gen(function*() {
      const { code, stderr, stdout } = yield* runInProcess(["mcp", "--help"])
      assert.deepStrictEqual([code, stderr], [0, ""])
      for (
        const expected of [
          "--root DIR",
          "--write",
          "--allow-host HOST",
          "--max-bytes N",
          "--http PORT",
          "--tools MODULE",
          "--version",
          "think",
          "calculator",
          "clock",
          "127.0.0.1",
          "Exit codes",
          "EXAMPLES",
          "effect-llm-tools mcp --root ./notes --write",
          "MCP HOST CONFIGURATION"
        ]
      ) assert.include(stdout, expected)
      assert.deepStrictEqual(hostConfigOf(stdout), {
        mcpServers: {
          "effect-llm-tools": {
            command: "npx",
            // `npx` installs no optional peer: the platform the command runs on is named beside the package.
            args: [
              "-y",
              "-p",
              "effect-llm-tools",
              "-p",
              `@effect/platform-node@${manifest.peerDependencies["@effect/platform-node"]}`,
              "effect-llm-tools",
              "mcp",
              "--root",
              "/absolute/path/to/folder"
            ]
          }
        }
      })
    }))

  it.effect("--help names the mcp subcommand; exit 0", () =>
    Effect.gen(function*() {
      const { code, stderr, stdout } = yield* runInProcess(["--help"])
      assert.deepStrictEqual([code, stderr], [0, ""])
      assert.match(stdout, /SUBCOMMANDS\n\s+mcp\s+Serve tools to an MCP host/)
      // The host configuration belongs to mcp's help.
      assert.notInclude(stdout, "mcpServers")
    }))

  it.effect("--version prints the package's version; exit 0", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* runInProcess(["--version"]), {
        code: 0,
        stdout: `effect-llm-tools v${manifest.version}`,
        stderr: ""
      })
      const underMcp = yield* runInProcess(["mcp", "--version"])
      assert.deepStrictEqual(underMcp.stdout, `effect-llm-tools v${manifest.version}`)
    }))

  const refused: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
    ["an unknown flag", ["mcp", "--bogus"], "Unrecognized flag: --bogus"],
    ["a port that is not a number", ["mcp", "--http", "abc"], "Invalid value for flag --http: \"abc\""],
    ["a port out of range", ["mcp", "--http", "65536"], "--http takes a port from 0 to 65535, not 65536"],
    ["a flag without its value", ["mcp", "--http"], "Missing value for flag --http"],
    ["a root that does not exist", ["mcp", "--root", join(scratch, "missing")], "does not exist"],
    ["a root that is a file", ["mcp", "--root", join(scratch, "secret.txt")], "is not a folder"],
    // An unset variable (`--root "$NOTES"`): never the current folder.
    ["an empty root", ["mcp", "--root", ""], "--root needs the path of a folder, not \"\""],
    ["a blank root", ["mcp", "--root= ", "--write"], "--root needs the path of a folder, not \" \""],
    ["--write without --root", ["mcp", "--write"], "--write needs --root"],
    ["a size of zero", ["mcp", "--max-bytes", "0"], "--max-bytes must be a positive number of bytes, not 0"],
    [
      "a size over 1 GiB, for fetch alone too",
      ["mcp", "--allow-host", "example.com", "--max-bytes", "2000000000"],
      "--max-bytes can be at most 1073741824 (1 GiB), not 2000000000"
    ],
    [
      "--tools with flags of the built-ins",
      ["mcp", "--tools", fixture, "--allow-host", "example.com", "--max-bytes", "10"],
      "--allow-host, --max-bytes configure the built-in tools, which --tools replaces"
    ],
    ["a --tools module that does not exist", ["mcp", "--tools", join(scratch, "missing.js")], "Path does not exist"],
    ["a --tools module without a default export", ["mcp", "--tools", modules.noDefault], "has no default export"],
    [
      "a --tools module whose default export is not a ToolSet",
      ["mcp", "--tools", modules.number],
      "default-exports a number, not a ToolSet"
    ],
    [
      "a --tools module that throws while loading",
      ["mcp", "--tools", modules.throws],
      "cannot load " + modules.throws + ": the module broke while loading"
    ],
    ["an unknown subcommand", ["serve"], "Unknown subcommand \"serve\""]
  ]

  for (const [what, args, message] of refused) {
    it.effect(`${what} is refused on stderr, with a pointer to the help, and nothing on stdout; exit 2`, () =>
      Effect.gen(function*() {
        const { code, stderr, stdout } = yield* runInProcess(args)
        assert.deepStrictEqual([code, stdout], [2, ""])
        assert.include(stderr, message)
        assert.include(stderr, "--help` for the flags and examples")
      }))
  }

  // `--h` and `--v` are the aliases of --help and --version.
  const known = new Set([
    "h",
    "v",
    "root",
    "write",
    "allow-host",
    "max-bytes",
    "http",
    "tools",
    "help",
    "version",
    "log-level"
  ])
  const FlagName = Schema.String.check(Schema.isPattern(/^[a-z][a-z0-9-]{0,20}$/))

  it.effect.prop("every flag mcp does not know is refused by name; exit 2", [FlagName], ([flag]) =>
    Effect.gen(function*() {
      if (known.has(flag)) return
      const { code, stderr, stdout } = yield* runInProcess(["mcp", `--${flag}`])
      assert.deepStrictEqual([code, stdout], [2, ""])
      assert.include(stderr, `Unrecognized flag: --${flag}`)
    }), { arbitrary: { runs: 40 } })

  it.effect.prop("every port outside 0 to 65535 is refused; exit 2", [Schema.Int], ([port]) =>
    Effect.gen(function*() {
      if (port >= 0 && port <= 65535) return
      const { code, stderr } = yield* runInProcess(["mcp", "--http", String(port)])
      assert.strictEqual(code, 2)
      assert.include(stderr, `--http takes a port from 0 to 65535, not ${port}`)
    }), { arbitrary: { runs: 40 } })

  it.effect("a port already in use ends the run with the reason on stderr; exit 1", () =>
    Effect.acquireUseRelease(
      Effect.callback<Server>((resume) => {
        const taken = createServer()
        taken.listen(0, "127.0.0.1", () => resume(Effect.succeed(taken)))
      }),
      (taken) =>
        Effect.gen(function*() {
          const port = (taken.address() as AddressInfo).port
          const { code, stderr, stdout } = yield* runInProcess(["mcp", "--http", String(port), "--tools", fixture])
          assert.deepStrictEqual([code, stdout], [1, ""])
          assert.include(stderr, `cannot serve on 127.0.0.1:${port}: listen EADDRINUSE`)
        }),
      (taken) => Effect.callback<void>((resume) => void taken.close(() => resume(Effect.void)))
    ))

  it.effect("an unexpected failure is logged on stderr, never on stdout; exit 1", () =>
    Effect.gen(function*() {
      // A default export that passes for a ToolSet but is none: reading its tools throws.
      const fake = join(scratch, "fake.mjs")
      writeFileSync(fake, "export default { \"~effect-llm-tools/ToolSet\": {} }\n")
      const { code, stderr, stdout } = yield* runInProcess(["mcp", "--tools", fake])
      assert.deepStrictEqual([code, stdout], [1, ""])
      assert.include(stderr, "ERROR")
      assert.include(stderr, "TypeError")
    }))

  it("exit codes: 0 success or help, 1 a failure while serving, 2 a refused command line, 130 a signal", () => {
    const showHelp = (errors: ReadonlyArray<CliError.NonShowHelpErrors>) =>
      Exit.fail(new CliError.ShowHelp({ commandPath: ["effect-llm-tools"], errors }))
    assert.deepStrictEqual(
      [
        Cli.exitCodeOf(Exit.void),
        Cli.exitCodeOf(showHelp([])),
        Cli.exitCodeOf(Exit.fail(new CliError.UserError({ cause: "EADDRINUSE", userMessage: "cannot serve" }))),
        Cli.exitCodeOf(Exit.die(new Error("a bug"))),
        Cli.exitCodeOf(showHelp([new CliError.ValidationError({ message: "no" })])),
        Cli.exitCodeOf(Exit.failCause(Cause.interrupt(1)))
      ],
      [0, 0, 1, 1, 2, 130]
    )
  })
})

interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a program to its end, with standard input closed. */
const runProgram = (command: string, args: ReadonlyArray<string>, env?: NodeJS.ProcessEnv): Promise<Finished> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...(env === undefined ? {} : { env }) })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout: stripAnsi(stdout), stderr: stripAnsi(stderr) }))
  })

const tsx = (args: ReadonlyArray<string>) => ["--import", "tsx", cliSource, ...args]

const newClient = () => new Client({ name: "cli-test", version: "1.0.0" }, { capabilities: {} })

/** Connects the SDK client to `command args` over stdio, as an MCP host starts its servers. */
const connectStdio = async (
  command: string,
  args: ReadonlyArray<string>,
  options?: { readonly env?: Record<string, string> }
) => {
  const transport = new StdioClientTransport({
    command,
    args: [...args],
    stderr: "pipe",
    ...(options?.env === undefined ? {} : { env: options.env })
  })
  const client = newClient()
  await client.connect(transport as Transport)
  return client
}

/**
 * The SDK client over the stdio of a child this test spawns itself (the SDK's own framing), so that the test also
 * sees every byte of its stdout and its exit code. Closing the client closes the child's standard input, as a host
 * does when it is done.
 */
const connectOwnChild = async (command: string, args: ReadonlyArray<string>) => {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] })
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
  let stdout = ""
  let stderr = ""
  const buffer = new ReadBuffer()
  const transport: Transport = {
    start: async () => {},
    send: (message) =>
      new Promise((resolve, reject) =>
        child.stdin.write(serializeMessage(message), (error) => error ? reject(error) : resolve())
      ),
    close: async () => {
      child.stdin.end()
    }
  }
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString()
    buffer.append(chunk)
    try {
      for (let message = buffer.readMessage(); message !== null; message = buffer.readMessage()) {
        transport.onmessage?.(message)
      }
    } catch (error) {
      transport.onerror?.(error as Error)
    }
  })
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  child.on("close", () => transport.onclose?.())
  const client = newClient()
  await client.connect(transport)
  return { client, exited, stdout: () => stdout, stderr: () => stderr, kill: () => child.kill() }
}

const textOf = (result: Record<string, unknown>): string =>
  (result.content as ReadonlyArray<{ readonly type: string; readonly text?: string }>)
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n")

/** The model-visible text of a call and whether it failed; a call the server refuses as a request failed too. */
const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }).then(
    (result) => ({ isError: result.isError === true, text: textOf(result) }),
    (error: Error) => ({ isError: true, text: error.message })
  )

/** `--root` over stdio: the tools of the folder, a file read, and every way out of the folder refused. */
const checkRootSession = async (client: Client) => {
  const { tools } = await client.listTools()
  assert.deepStrictEqual(
    tools.map((tool) => tool.name),
    ["think", "calculator", "clock", "read_file", "list_directory", "search_files", "file_info"]
  )
  const read = await call(client, "read_file", { path: "notes/hello.txt" })
  assert.isFalse(read.isError)
  assert.include(read.text, "hello from the root")
  for (const path of ["../secret.txt", "notes/../../secret.txt", join(scratch, "secret.txt")]) {
    const refused = await call(client, "read_file", { path })
    assert.isTrue(refused.isError, path)
    assert.notInclude(refused.text, "s3cret", path)
  }
  // Read-only without --write: no write tool is served.
  assert.isTrue((await call(client, "write_file", { path: "notes/new.txt", content: "no" })).isError)
  assert.deepStrictEqual(readdirSync(join(root, "notes")), ["hello.txt"])
}

describe("effect-llm-tools, as a program", () => {
  it("a bad flag prints the error on stderr and nothing on stdout; exit 2", async () => {
    const { code, stderr, stdout } = await runProgram(process.execPath, tsx(["mcp", "--http", "abc"]))
    assert.deepStrictEqual([code, stdout], [2, ""])
    assert.include(stderr, "Invalid value for flag --http: \"abc\"")
  }, 30_000)

  it("--root serves the built-ins and the read-only filesystem tools of the folder over stdio", async () => {
    const client = await connectStdio(process.execPath, tsx(["mcp", "--root", root]))
    try {
      await checkRootSession(client)
    } finally {
      await client.close()
    }
  }, 30_000)

  it("--tools: the module's ToolSet over stdio, only protocol on stdout, until stdin closes; exit 0", async () => {
    const session = await connectOwnChild(process.execPath, tsx(["mcp", "--tools", fixture]))
    try {
      const { tools } = await session.client.listTools()
      assert.deepStrictEqual(tools.map((tool) => tool.name), ["greet", "add"])
      assert.strictEqual(tools[0]!.annotations?.readOnlyHint, true)
      const greeted = await call(session.client, "greet", { name: "Ada" })
      assert.deepStrictEqual(greeted, { isError: false, text: "Hello, Ada!" })
      const added = await session.client.callTool({ name: "add", arguments: { a: 2, b: 40 } })
      assert.deepStrictEqual(added.structuredContent, { sum: 42 })
      assert.isTrue((await call(session.client, "add", { a: "two" })).isError)
      await session.client.close()
      assert.strictEqual(await session.exited, 0)
      const lines = session.stdout().split("\n").filter((line) => line !== "")
      assert.isAbove(lines.length, 3)
      for (const line of lines) assert.strictEqual((JSON.parse(line) as { jsonrpc?: unknown }).jsonrpc, "2.0", line)
      assert.include(session.stderr(), "serving 2 tools (greet, add) over MCP on standard input and output")
    } finally {
      session.kill()
    }
  }, 30_000)

  it("--http 0 serves Streamable HTTP on 127.0.0.1 at the URL it prints, the built-ins as the flags ask", async () => {
    const writable = mkdtempSync(join(scratch, "writable-"))
    writeFileSync(join(writable, "long.txt"), "0123456789abcdef")
    const child = spawn(
      process.execPath,
      tsx(["mcp", "--http", "0", "--root", writable, "--write", "--allow-host", "example.com", "--max-bytes", "8"]),
      { stdio: ["ignore", "pipe", "pipe"] }
    )
    let stdout = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let stderr = ""
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString()
          const found = /over MCP Streamable HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(stderr)
          if (found !== null) resolve(found[1]!)
        })
        child.on("close", () => reject(new Error(`the server ended before it listened:\n${stderr}`)))
      })
      const client = newClient()
      await client.connect(new StreamableHTTPClientTransport(new URL(url)) as Transport)
      const { tools } = await client.listTools()
      assert.deepStrictEqual(tools.map((tool) => tool.name), [
        "think",
        "calculator",
        "clock",
        "read_file",
        "list_directory",
        "search_files",
        "file_info",
        "write_file",
        "edit_file",
        "fetch"
      ])
      const read = await call(client, "read_file", { path: "long.txt" })
      assert.include(read.text, "01234567")
      assert.notInclude(read.text, "89abcdef")
      assert.isFalse((await call(client, "write_file", { path: "new.txt", content: "written" })).isError)
      assert.strictEqual(readFileSync(join(writable, "new.txt"), "utf8"), "written")
      assert.isTrue((await call(client, "write_file", { path: "../escaped.txt", content: "no" })).isError)
      // fetch has the allow-list it was given: any other host is refused before a connection is attempted.
      const fetched = await call(client, "fetch", { url: "http://127.0.0.1:9/" })
      assert.isTrue(fetched.isError)
      assert.include(fetched.text, "example.com")
      await client.close()
    } finally {
      child.kill("SIGTERM")
    }
    // Stopped by a signal; standard output stayed empty.
    assert.deepStrictEqual([await exited, stdout], [130, ""])
  }, 30_000)
})

/**
 * The package as `npm pack` makes it (its `prepack` builds dist/), installed without a registry: the tarball is
 * extracted to `node_modules/effect-llm-tools`, its dependencies and peers are linked from this repository's
 * `node_modules`, and its bin is linked into `node_modules/.bin` and made executable, as npm's installer does. An
 * `npm install` of the tarball would fetch the dependencies, or fail offline on a cold cache.
 */
/**
 * Installs a packed tarball into `folder` as npm would: the package, its dependencies and its peers (linked from this
 * repository's), with or without the optional ones, and its bin in `node_modules/.bin`. Gives the bin's path.
 */
const installPacked = (folder: string, tarball: string, peers: "all peers" | "required peers"): string => {
  const packageDir = join(folder, "node_modules", "effect-llm-tools")
  mkdirSync(packageDir, { recursive: true })
  const untar = spawnSync("tar", ["-xzf", tarball, "-C", packageDir, "--strip-components=1"])
  assert.strictEqual(untar.status, 0, String(untar.stderr))
  const installed = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as typeof manifest
  const optional = peers === "all peers" ? [] : Object.keys(installed.peerDependenciesMeta ?? {})
  const linked = [...Object.keys(installed.dependencies), ...Object.keys(installed.peerDependencies)]
  for (const name of linked.filter((name) => !optional.includes(name))) {
    const link = join(folder, "node_modules", name)
    mkdirSync(dirname(link), { recursive: true })
    symlinkSync(join(repository, "node_modules", name), link, "dir")
  }
  const target = installed.bin["effect-llm-tools"]
  assert.isDefined(target, "package.json declares no effect-llm-tools bin")
  mkdirSync(join(folder, "node_modules", ".bin"))
  const bin = join(folder, "node_modules", ".bin", "effect-llm-tools")
  symlinkSync(join("..", "effect-llm-tools", target!), bin)
  // npm's installer makes every bin executable, whatever mode the tarball gave it.
  chmodSync(join(packageDir, target!), 0o755)
  return bin
}

describe("effect-llm-tools, from npm pack", () => {
  const install = join(scratch, "install")
  const installWithoutPlatform = join(scratch, "install-without-platform")
  let bin = ""
  let binWithoutPlatform = ""
  let env: Record<string, string> = {}

  beforeAll(async () => {
    const packed = join(scratch, "packed")
    mkdirSync(packed)
    const pack = await runProgram("npm", ["pack", "--pack-destination", packed], {
      ...process.env,
      npm_config_offline: "true",
      npm_config_update_notifier: "false",
      npm_config_fund: "false",
      npm_config_audit: "false"
    })
    assert.strictEqual(pack.code, 0, `npm pack failed:\n${pack.stdout}\n${pack.stderr}`)
    const tarball = readdirSync(packed).find((file) => file.endsWith(".tgz"))
    assert.isDefined(tarball, `npm pack wrote no tarball:\n${pack.stdout}`)

    bin = installPacked(install, join(packed, tarball!), "all peers")
    binWithoutPlatform = installPacked(installWithoutPlatform, join(packed, tarball!), "required peers")
    // The bin runs through its shebang (`env node`): the node running these tests comes first on the PATH.
    const path = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`
    env = { ...process.env as Record<string, string>, PATH: path }
  }, 180_000)

  it("ships the bin with its shebang, and dist/ without the tests", () => {
    const packageDir = join(install, "node_modules", "effect-llm-tools")
    assert.match(readFileSync(join(packageDir, "dist", "bin", "cli.js"), "utf8"), /^#!\/usr\/bin\/env node\n/)
    assert.includeMembers(readdirSync(join(packageDir, "dist", "builtin")), ["index.js", "Builtin.js"])
    assert.notInclude(readdirSync(packageDir), "test")
  })

  it("the bin prints its help; exit 0", async () => {
    const { code, stderr, stdout } = await runProgram(bin, ["mcp", "--help"], env)
    assert.deepStrictEqual([code, stderr], [0, ""])
    assert.include(stdout, "MCP HOST CONFIGURATION")
  }, 30_000)

  it("without the optional peer @effect/platform-node (as npx installs it), the bin says how to get it; exit 1", async () => {
    const range = manifest.peerDependencies["@effect/platform-node"]
    assert.strictEqual(manifest.peerDependenciesMeta?.["@effect/platform-node"]?.optional, true)
    for (const args of [["mcp", "--help"], ["mcp", "--root", root]]) {
      const { code, stderr, stdout } = await runProgram(binWithoutPlatform, args, env)
      assert.deepStrictEqual([code, stdout], [1, ""])
      assert.include(stderr, `needs @effect/platform-node ${range}`)
      assert.include(stderr, `npm i @effect/platform-node@${range}`)
      assert.include(stderr, `npx -y -p effect-llm-tools -p @effect/platform-node@${range} effect-llm-tools mcp`)
      assert.notInclude(stderr, "ERR_MODULE_NOT_FOUND")
    }
  }, 30_000)

  it("a TypeScript --tools module that Node cannot load is refused with what to do about it; exit 2", async () => {
    // JSX: no version of Node loads a .tsx module itself (from 22.18 it strips the types of .ts ones).
    const module = join(scratch, "tools.tsx")
    writeFileSync(module, "export default <div />\n")
    const { code, stderr, stdout } = await runProgram(bin, ["mcp", "--tools", module], env)
    assert.deepStrictEqual([code, stdout], [2, ""])
    assert.include(stderr, `--tools: cannot load ${module}`)
    assert.include(stderr, "compile the module (tsc) and pass the .js file")
    assert.include(stderr, "node --import tsx")
  }, 30_000)

  it("the bin serves the built-ins under --root to the SDK client over stdio", async () => {
    const client = await connectStdio(bin, ["mcp", "--root", root], { env })
    try {
      await checkRootSession(client)
    } finally {
      await client.close()
    }
  }, 30_000)

  it("the bin serves a .js --tools module that imports the installed package by name", async () => {
    const module = join(install, "tools.js")
    writeFileSync(join(install, "package.json"), JSON.stringify({ type: "module", private: true }))
    writeFileSync(
      module,
      [
        "import { Effect, Schema } from \"effect\"",
        "import { Tool, ToolSet } from \"effect-llm-tools\"",
        "import { Builtin } from \"effect-llm-tools/builtin\"",
        "const Shout = Tool.make(\"shout\", {",
        "  description: \"The text in capitals\",",
        "  parameters: Schema.Struct({ text: Schema.String }),",
        "  call: ({ text }) => Effect.succeed(text.toUpperCase())",
        "})",
        "export default ToolSet.make(Shout, Builtin.calculator)",
        ""
      ].join("\n")
    )
    const client = await connectStdio(bin, ["mcp", "--tools", module], { env })
    try {
      const { tools } = await client.listTools()
      assert.deepStrictEqual(tools.map((tool) => tool.name), ["shout", "calculator"])
      assert.deepStrictEqual(await call(client, "shout", { text: "quiet" }), { isError: false, text: "QUIET" })
    } finally {
      await client.close()
    }
  }, 30_000)
})
