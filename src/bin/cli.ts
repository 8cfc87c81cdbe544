#!/usr/bin/env node
/**
 * The `effect-llm-tools` command. `effect-llm-tools mcp` serves tools to an MCP host: the built-in tools
 * (`effect-llm-tools/builtin`), or the `ToolSet` a module default-exports (`--tools MODULE`). It speaks MCP on
 * standard input and output, as hosts that start their servers expect, or on Streamable HTTP bound to 127.0.0.1
 * (`--http PORT`). Standard output carries nothing but the protocol; everything else goes to standard error.
 *
 * Exit codes:
 * - `0`: help or version shown, or the host closed the connection (standard input ended).
 * - `1`: the server could not start or failed while serving (the port is taken, say).
 * - `2`: the command line cannot be served as given: an unknown flag, a bad value, flags that do not go together, or a
 *   `--tools` module that cannot be loaded or does not default-export a `ToolSet`.
 * - `130`: stopped by a signal (Ctrl-C, SIGTERM).
 *
 * The command runs on `@effect/platform-node`, an optional peer dependency of the package: without it, the command
 * says how to get it on standard error, and exits with `1`.
 *
 * @since 0.1.0
 */
import type * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Console, Context, Effect, Exit, Layer, Option, References, Runtime } from "effect"
import { CliConfig, CliError, CliOutput, Command, Flag, GlobalFlag } from "effect/cli"
import { readFileSync, realpathSync } from "node:fs"
import { fileURLToPath, pathToFileURL } from "node:url"
import type * as McpServer from "../mcp/McpServer.ts"
import * as ToolSet from "../ToolSet.ts"

const name = "effect-llm-tools"

/** The package's own manifest: the same relative path from src/bin/ and from dist/bin/. */
const manifest: {
  readonly version?: unknown
  readonly peerDependencies?: Record<string, unknown>
} = (() => {
  try {
    const read: unknown = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"))
    return typeof read === "object" && read !== null ? read : {}
  } catch {
    return {}
  }
})()

const version: string = typeof manifest.version === "string" ? manifest.version : "0.0.0"

/** The platform the command runs on: an optional peer dependency, which `npx` does not install on its own. */
const platformPackage = "@effect/platform-node"

/** The versions of the platform the package asks for, from its manifest. */
const platformRange: string = (() => {
  const range = manifest.peerDependencies?.[platformPackage]
  return typeof range === "string" ? range : "~4.1.0"
})()

/** How to run the command without installing it: `npx` with the platform beside the package. */
const npxArgs: ReadonlyArray<string> = ["-y", "-p", name, "-p", `${platformPackage}@${platformRange}`, name]

/** The tools being served, as a dispatch service: what `McpServer` serves. */
class Tools extends Context.Service<Tools, ToolSet.Service<McpServer.RequestMeta>>()("effect-llm-tools/cli/Tools") {}

/** The parsed flags of `mcp`. */
interface McpInput {
  readonly root: Option.Option<string>
  readonly write: boolean
  readonly allowHost: ReadonlyArray<string>
  readonly maxBytes: Option.Option<number>
  readonly http: Option.Option<number>
  readonly tools: Option.Option<string>
}

const usageError = (message: string) => new CliError.ValidationError({ message })

/** The largest `--max-bytes`: the filesystem tools' own bound, for fetch alone too. */
const maxBytesLimit = 1024 * 1024 * 1024

/** Ends the run as a usage error (exit 2): the message on standard error, with a pointer to the help. */
const refuse = (message: string) =>
  Effect.fail(new CliError.ShowHelp({ commandPath: [name, "mcp"], errors: [usageError(message)] }))

// What only serving needs (Effect's MCP server, the HTTP platform, the built-ins and their packages) is loaded when
// serving starts: `--help`, `--version` and a refused command line answer without paying for it.
const loadServing = Effect.promise(() =>
  Promise.all([import("../mcp/McpServer.ts"), import("../builtin/Builtin.ts"), import("effect/http")])
)

const builtins = (input: McpInput): Effect.Effect<ToolSet.Any, CliError.ShowHelp, NodeServices.NodeServices> =>
  Effect.flatMap(loadServing, ([, Builtin]) =>
    Builtin.toolSet({
      ...(Option.isSome(input.root) ? { root: input.root.value } : {}),
      write: input.write,
      allowHosts: input.allowHost,
      ...(Option.isSome(input.maxBytes) ? { maxBytes: input.maxBytes.value } : {})
    })).pipe(Effect.catch((error) => refuse(messageOf(error))))

/** Imports `path` (absolute; it exists) and gives the ToolSet it default-exports. */
const loadToolSet = (path: string): Effect.Effect<ToolSet.Any, CliError.ShowHelp> =>
  Effect.tryPromise({
    try: () => import(pathToFileURL(path).href) as Promise<Record<string, unknown>>,
    catch: (error) => error
  }).pipe(
    Effect.matchEffect({
      onFailure: (error) => refuse(`--tools: cannot load ${path}: ${messageOf(error)}${loadHint(path, error)}`),
      onSuccess: (module) =>
        ToolSet.isToolSet(module.default)
          ? Effect.succeed(module.default)
          : refuse(
            `--tools: ${path} ${
              "default" in module ? `default-exports ${kindOf(module.default)}` : "has no default export"
            }, not a ToolSet: end it with \`export default ToolSet.make(...)\``
          )
    })
  )

/**
 * Why Node refuses a TypeScript module: one it does not strip at all (before Node 22.18, or `.tsx`), or one with
 * syntax its type stripping cannot remove (an `enum`, say).
 */
const typeScriptRefusals: ReadonlySet<unknown> = new Set([
  "ERR_UNKNOWN_FILE_EXTENSION",
  "ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX",
  "ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING"
])

/** What to do about a module Node could not load: a TypeScript one needs compiling, or a loader. */
const loadHint = (path: string, error: unknown): string =>
  /\.[mc]?tsx?$/i.test(path) && typeScriptRefusals.has((error as { readonly code?: unknown } | null)?.code)
    ? ". Node runs JavaScript: compile the module (tsc) and pass the .js file, or start the command under a " +
      `TypeScript loader (tsx, installed where you run it): node --import tsx ${fileURLToPath(import.meta.url)} mcp ` +
      `--tools ${path} and your other flags`
    : ""

const kindOf = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
    ? "an array"
    : typeof value === "object"
    ? "an object"
    : `a ${typeof value}`

/** The first non-empty message along an error's causes: a platform error often has its words only in its cause. */
const messageOf = (error: unknown): string => {
  let current = error
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const message = (current as { message?: unknown }).message
    if (typeof message === "string" && message !== "") return message
    current = (current as { cause?: unknown }).cause
  }
  return current === undefined || current === null || typeof current === "object" ? "unknown error" : String(current)
}

/** A failure while serving: reported on standard error, exit 1. */
const serveFailure = (what: string) => (error: unknown) =>
  new CliError.UserError({ cause: error, userMessage: `${what}: ${messageOf(error)}` })

const serve = Effect.fnUntraced(function*(input: McpInput) {
  const set = Option.isSome(input.tools) ? yield* loadToolSet(input.tools.value) : yield* builtins(input)
  const [McpServer, , { HttpServer }] = yield* loadServing
  // A module's tools may need Node's platform services (FileSystem, Path, ...): they are captured here, once.
  const ToolsLive = ToolSet.toLayer(Tools, set) as unknown as Layer.Layer<Tools, never, NodeServices.NodeServices>
  const info = { name, version }
  const names = ToolSet.names(set)
  const summary = `${names.length} tool${names.length === 1 ? "" : "s"} (${names.join(", ")})`
  if (Option.isSome(input.http)) {
    const requested = input.http.value
    const announce = Layer.effectDiscard(Effect.gen(function*() {
      const address = (yield* HttpServer.HttpServer).address
      const port = "port" in address ? address.port : requested
      yield* Console.error(`${name}: serving ${summary} over MCP Streamable HTTP at http://127.0.0.1:${port}/mcp`)
    }))
    const server = McpServer.layerHttp(Tools, { ...info, port: requested, host: "127.0.0.1" })
    return yield* Layer.launch(announce.pipe(Layer.provide(server), Layer.provide(ToolsLive))).pipe(
      Effect.mapError(serveFailure(`cannot serve on 127.0.0.1:${requested}`))
    )
  }
  yield* Console.error(`${name}: serving ${summary} over MCP on standard input and output`)
  // Standard input ending is the host closing the connection: a normal end, not a signal.
  return yield* McpServer.serveUntilInputEnds(McpServer.layerStdio(Tools, info).pipe(Layer.provide(ToolsLive))).pipe(
    Effect.mapError(serveFailure("the stdio server failed"))
  )
})

/** Lines under a help heading: indented, blank lines left empty. */
const indent = (lines: ReadonlyArray<string>) =>
  lines.map((line) => (line === "" ? "" : `  ${line}`)).join("\n").slice(2)

const mcp = Command.make("mcp", {
  // A string, checked by the built-ins: a path flag reads an empty value ("$NOTES" of an unset variable) as the
  // current folder, and would serve it, writable with --write.
  root: Flag.String("root").pipe(
    Flag.filter(
      (root) => root.trim() !== "",
      (root) => `--root needs the path of a folder, not ${JSON.stringify(root)}`
    ),
    Flag.withMetavar("DIR"),
    Flag.withDescription(
      "Serve the filesystem tools on DIR: read_file, list_directory, search_files, file_info. No path leaves DIR."
    ),
    Flag.optional
  ),
  write: Flag.Boolean("write").pipe(
    Flag.withDescription("With --root: add write_file and edit_file (atomic writes inside DIR)"),
    Flag.withDefault(false)
  ),
  allowHost: Flag.String("allow-host").pipe(
    Flag.withMetavar("HOST"),
    Flag.withDescription("Serve fetch (HTTP GET) for HOST, or *.HOST for its subdomains; repeat for more hosts"),
    Flag.atLeast(0)
  ),
  maxBytes: Flag.Int("max-bytes").pipe(
    Flag.withMetavar("N"),
    Flag.filter((n) => n > 0, (n) => `--max-bytes must be a positive number of bytes, not ${n}`),
    Flag.filter((n) => n <= maxBytesLimit, (n) => `--max-bytes can be at most ${maxBytesLimit} (1 GiB), not ${n}`),
    Flag.withDescription(
      "The most bytes a file read, a file written or a fetched page may have (default 1 MiB, at most 1 GiB)"
    ),
    Flag.optional
  ),
  http: Flag.Int("http").pipe(
    Flag.withMetavar("PORT"),
    Flag.filter((port) => port >= 0 && port <= 65535, (port) => `--http takes a port from 0 to 65535, not ${port}`),
    Flag.withDescription("Serve Streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio (0: a free port)"),
    Flag.optional
  ),
  tools: Flag.File("tools", { mustExist: true }).pipe(
    Flag.withMetavar("MODULE"),
    Flag.withDescription("Serve the ToolSet that MODULE (a .js file; a path from the current folder) default-exports"),
    Flag.optional
  )
}, serve).pipe(
  Command.validate((input) => {
    if (input.write && Option.isNone(input.root)) {
      return Effect.fail(usageError("--write needs --root: it adds the write tools to the filesystem tools of DIR"))
    }
    if (Option.isSome(input.tools)) {
      const builtinFlags = [
        Option.isSome(input.root) ? "--root" : undefined,
        input.write ? "--write" : undefined,
        input.allowHost.length > 0 ? "--allow-host" : undefined,
        Option.isSome(input.maxBytes) ? "--max-bytes" : undefined
      ].filter((flag) => flag !== undefined)
      if (builtinFlags.length > 0) {
        return Effect.fail(
          usageError(
            `${builtinFlags.join(", ")} ${
              builtinFlags.length === 1 ? "configures" : "configure"
            } the built-in tools, which --tools replaces: drop one or the other`
          )
        )
      }
    }
    return Effect.void
  }),
  Command.withShortDescription("Serve tools to an MCP host, on stdio or Streamable HTTP"),
  Command.withDescription(indent([
    "Serve tools to an MCP host (a desktop assistant, an editor, an inspector).",
    "",
    "By default: think (a scratchpad), calculator (exact decimal arithmetic) and clock (the time, in any time zone).",
    "--root DIR adds the filesystem tools on DIR, read-only unless --write. --allow-host HOST adds fetch, which reads",
    "web pages from those hosts only, and never from a private, loopback or link-local address.",
    "--tools MODULE serves the ToolSet that MODULE default-exports instead of the built-ins.",
    "",
    "Speaks MCP on standard input and output (the host starts the command), or with --http PORT on Streamable HTTP",
    "bound to 127.0.0.1. Standard output carries only the protocol; messages and logs go to standard error.",
    "--http asks for no credentials: any program or user of this machine can call the tools (write to --root too,",
    "with --write). Browsers are kept out by the Host and Origin checks. Prefer stdio on a shared machine.",
    "",
    "Exit codes: 0 help, version, or the host closed the connection; 1 the server failed; 2 a bad command line or",
    "--tools module; 130 stopped by a signal."
  ])),
  Command.withExamples([
    { command: `${name} mcp`, description: "think, calculator and clock over stdio" },
    { command: `${name} mcp --root ./notes`, description: "Add read-only access to ./notes" },
    { command: `${name} mcp --root ./notes --write`, description: "... and let the model write there" },
    {
      command: `${name} mcp --allow-host en.wikipedia.org --allow-host docs.python.org`,
      description: "Let the model fetch pages from two hosts"
    },
    { command: `${name} mcp --http 3000`, description: "Serve at http://127.0.0.1:3000/mcp" },
    { command: `${name} mcp --tools ./dist/tools.js`, description: "Serve your own tools" },
    { command: `npx ${npxArgs.join(" ")} mcp --root ~/notes`, description: "Without installing" }
  ])
)

/** What an MCP host's configuration looks like for this command: shown with the help of `mcp`. */
const hostConfig = indent([
  "MCP HOST CONFIGURATION",
  "A host that starts its servers (an `mcpServers` entry of a desktop assistant's configuration, say):",
  "",
  "{",
  "  \"mcpServers\": {",
  `    "${name}": {`,
  "      \"command\": \"npx\",",
  `      "args": [${[...npxArgs, "mcp", "--root", "/absolute/path/to/folder"].map((arg) => `"${arg}"`).join(", ")}]`,
  "    }",
  "  }",
  "}",
  "",
  `Use an absolute path for --root: hosts start servers in a folder of their own. With --http, point the host at`,
  "http://127.0.0.1:PORT/mcp instead."
])

/**
 * The `effect-llm-tools` command tree: the root, whose only subcommand is `mcp`.
 *
 * @category commands
 * @since 0.1.0
 */
export const command = Command.make(name).pipe(
  Command.withDescription("Tools for LLMs, on Effect. `effect-llm-tools mcp --help` for the MCP server."),
  Command.withSubcommands([mcp])
)

const isMcpHelp = (commandPath: ReadonlyArray<string> | undefined) =>
  commandPath !== undefined && commandPath.length === 2 && commandPath[1] === "mcp"

/** Help on standard output, with the host configuration under `mcp`; usage errors only on standard error. */
const presenter: CliOutput.Presenter = {
  present: (event) =>
    Effect.gen(function*() {
      const formatter = yield* CliOutput.Formatter
      switch (event._tag) {
        case "Help": {
          const help = formatter.formatHelpDoc(event.helpDoc)
          return yield* Console.log(isMcpHelp(event.commandPath) ? `${help}\n\n${hostConfig}` : help)
        }
        case "InvalidInvocation":
          return yield* Console.error(
            `${formatter.formatErrors(event.errors)}\n\n` +
              `Run \`${event.commandPath.join(" ")} --help\` for the flags and examples.`
          )
        case "Version":
          return yield* Console.log(formatter.formatVersion(event.name, event.version))
      }
    })
}

/**
 * Runs the command with `args` (the arguments after the command's name). Help, version and usage errors are
 * rendered on the console, and an unexpected failure is logged on standard error; serving runs until the host closes
 * standard input, or until interrupted. {@link exitCodeOf} gives the exit code of the run.
 *
 * @category running
 * @since 0.1.0
 */
export const run = (args: ReadonlyArray<string>) =>
  Command.runWith(command, { version })(args).pipe(
    Effect.provide(Layer.mergeAll(
      CliOutput.layerPresenter(presenter),
      // --wizard and --completions make no sense for a server that a host starts.
      CliConfig.layer({ builtIns: [GlobalFlag.Help, GlobalFlag.Version, GlobalFlag.LogLevel] })
    )),
    // An unexpected failure (a defect) is reported here rather than by runMain, which would log it on standard output.
    Effect.tapCause((cause) =>
      Cause.hasInterruptsOnly(cause) || !Runtime.getErrorReported(Cause.squash(cause))
        ? Effect.void
        : Effect.logError(cause)
    ),
    // Over stdio, standard output belongs to the protocol: logs (a tool's, Effect's) go to standard error.
    Effect.provideService(References.LogToStderr, true)
  )

/**
 * The exit code of a run (see the module's documentation): Effect's, but `2` for a command line that cannot be
 * served as given.
 *
 * @category running
 * @since 0.1.0
 */
export const exitCodeOf = <A, E>(exit: Exit.Exit<A, E>): number => {
  if (Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause)) {
    const error = Cause.squash(exit.cause)
    if (CliError.isCliError(error) && error._tag === "ShowHelp" && error.errors.length > 0) return 2
  }
  let code = 0
  Runtime.defaultTeardown(exit, (c) => (code = c))
  return code
}

/** True when this file is the program node runs (its bin, through any symlink), not a module imported by another. */
const isMain = (): boolean => {
  const entry = process.argv[1]
  if (entry === undefined) return false
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url))
  } catch {
    return false
  }
}

/**
 * What the command says when `@effect/platform-node` is not installed: which package is missing, and the two ways to
 * get it.
 *
 * @category running
 * @since 0.1.0
 */
export const missingPlatformMessage = [
  `${name}: the command needs ${platformPackage} ${platformRange}, an optional peer dependency, and it is not`,
  "installed. Install it beside the package:",
  "",
  `  npm i ${platformPackage}@${platformRange}`,
  "",
  "or run the command without installing either:",
  "",
  `  npx ${npxArgs.join(" ")} mcp --help`,
  ""
].join("\n")

/** Whether an import failed because `@effect/platform-node` itself cannot be found (not one of its own imports). */
const isMissingPlatform = (error: unknown): boolean => {
  if (typeof error !== "object" || error === null) return false
  const { code, message } = error as { readonly code?: unknown; readonly message?: unknown }
  return (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && typeof message === "string" &&
    message.includes(`'${platformPackage}'`)
}

/** Runs the command as the program node runs, on Node's platform, which is loaded first. */
const main = async (): Promise<void> => {
  let platform: readonly [
    typeof import("@effect/platform-node/NodeRuntime"),
    typeof import("@effect/platform-node/NodeServices")
  ]
  try {
    platform = await Promise.all([
      import("@effect/platform-node/NodeRuntime"),
      import("@effect/platform-node/NodeServices")
    ])
  } catch (error) {
    if (!isMissingPlatform(error)) throw error
    process.stderr.write(missingPlatformMessage)
    process.exitCode = 1
    return
  }
  const [NodeRuntime, NodeServicesLive] = platform
  run(process.argv.slice(2)).pipe(
    Effect.provide(NodeServicesLive.layer),
    NodeRuntime.runMain({ disableErrorReporting: true, teardown: (exit, onExit) => onExit(exitCodeOf(exit)) })
  )
}

if (isMain()) void main()
