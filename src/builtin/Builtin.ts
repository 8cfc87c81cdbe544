/**
 * Built-in tools a model can trust without anyone writing them: a scratchpad, exact arithmetic, the time, the files
 * under one folder, and web pages from allowed hosts. Each is a portable tool (or a set of them): it runs in any
 * `ToolSet`, in a `ToolServer`, or behind MCP. {@link toolSet} gathers the ones a configuration asks for; it is what
 * `effect-llm-tools mcp` serves.
 *
 * - {@link think}: a scratchpad; it hands the thought back.
 * - {@link calculator}: one arithmetic expression, with exact decimals and errors that say where.
 * - {@link clock}: the current time, in an IANA time zone when one is given.
 * - {@link filesystem}: `read_file`, `list_directory`, `search_files`, `file_info` (and `write_file`, `edit_file` with
 *   `write: true`), confined to one folder, symbolic links included.
 * - {@link http}: `fetch`, an HTTP GET to allowed hosts that refuses private addresses, after DNS and on every
 *   redirect.
 *
 * @example
 * ```ts
 * import { NodeServices } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import { ToolCall, ToolSet } from "effect-llm-tools"
 * import { Builtin } from "effect-llm-tools/builtin"
 *
 * const program = Effect.gen(function*() {
 *   // think, calculator, clock, the read-only filesystem tools on ./workspace, and fetch for one host
 *   const tools = yield* Builtin.toolSet({ root: "./workspace", allowHosts: ["en.wikipedia.org"] })
 *   return yield* ToolSet.execute(
 *     tools,
 *     ToolCall.make({ id: "call_1", name: "calculator", arguments: { expression: "0.1 + 0.2" } })
 *   )
 * }).pipe(Effect.provide(NodeServices.layer))
 * ```
 *
 * @since 0.1.0
 */
import { Duration, Effect, type FileSystem, Option, type Path } from "effect"
import * as ToolSet from "../ToolSet.ts"
import * as Calculator from "./calculator.ts"
import * as Clock from "./clock.ts"
import * as Filesystem from "./filesystem.ts"
import * as Http from "./http.ts"
import * as Think from "./think.ts"

/**
 * The `think` tool: arguments `{ thought }`; it returns the thought, so that the model's reasoning stays in the
 * conversation. Portable.
 *
 * @category tools
 * @since 0.1.0
 */
export const think: typeof Think.think = Think.think

/**
 * The `calculator` tool: arguments `{ expression }`; it returns `{ result, exact }`, the value as a decimal string.
 * Exact decimal arithmetic (`0.1 + 0.2` is `0.3`), a parser of its own (never `eval`), and `invalid_args` with the
 * position for a mistake or a division by zero. Portable.
 *
 * @category tools
 * @since 0.1.0
 */
export const calculator: typeof Calculator.calculator = Calculator.calculator

/**
 * The `clock` tool: arguments `{ timeZone? }`; it returns the current time in UTC and in that IANA time zone, from
 * Effect's `Clock` (a `TestClock` decides "now" in a test). Portable.
 *
 * @category tools
 * @since 0.1.0
 */
export const clock: typeof Clock.clock = Clock.clock

/**
 * The filesystem tools for one folder: `read_file`, `list_directory`, `search_files` and `file_info`, and with
 * `write: true` also `write_file` and `edit_file` (atomic). Every path resolves inside `root`, symbolic links
 * included; sizes and counts are capped. An Effect that checks the options (a {@link BuiltinOptionsError} otherwise)
 * and needs Effect's `FileSystem` and `Path` (`NodeServices.layer`); the tools it gives are portable.
 *
 * @category constructors
 * @since 0.1.0
 */
export const filesystem: typeof Filesystem.filesystem = Filesystem.filesystem

/**
 * The `fetch` tool for the hosts of `allow`: an HTTP GET answered as readable text. Private, loopback and link-local
 * addresses are refused after DNS resolution and on every redirect, and the connection goes to the address that was
 * checked; size and time are capped. An Effect that checks the options (an {@link HttpOptionsError} otherwise); the
 * tool it gives is portable.
 *
 * @category constructors
 * @since 0.1.0
 */
export const http: typeof Http.http = Http.http

/**
 * What {@link calculator} answers, `{ result, exact }`: its Schema, to read the output back.
 *
 * @category schemas
 * @since 0.1.0
 */
export const CalculatorResult: typeof Calculator.CalculatorResult = Calculator.CalculatorResult

/**
 * The type of {@link CalculatorResult}.
 *
 * @category models
 * @since 0.1.0
 */
export type CalculatorResult = Calculator.CalculatorResult

/**
 * What {@link clock} answers, `{ utc, timeZone, local, offset, weekday }`: its Schema, to read the output back.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ClockResult: typeof Clock.ClockResult = Clock.ClockResult

/**
 * The type of {@link ClockResult}.
 *
 * @category models
 * @since 0.1.0
 */
export type ClockResult = Clock.ClockResult

/**
 * The options of {@link filesystem}.
 *
 * @category models
 * @since 0.1.0
 */
export type FilesystemOptions = Filesystem.FilesystemOptions

/**
 * The options of {@link http}.
 *
 * @category models
 * @since 0.1.0
 */
export type HttpOptions = Http.HttpOptions

/**
 * Options {@link filesystem} (or {@link toolSet}) cannot work with: `option` names the one, `message` says why.
 *
 * @category errors
 * @since 0.1.0
 */
export const BuiltinOptionsError: typeof Filesystem.BuiltinOptionsError = Filesystem.BuiltinOptionsError

/**
 * The type of {@link BuiltinOptionsError}.
 *
 * @category errors
 * @since 0.1.0
 */
export type BuiltinOptionsError = Filesystem.BuiltinOptionsError

/**
 * Options {@link http} (or {@link toolSet} with `allowHosts`) cannot work with.
 *
 * @category errors
 * @since 0.1.0
 */
export const HttpOptionsError: typeof Http.HttpOptionsError = Http.HttpOptionsError

/**
 * The type of {@link HttpOptionsError}.
 *
 * @category errors
 * @since 0.1.0
 */
export type HttpOptionsError = Http.HttpOptionsError

/**
 * The options of {@link toolSet}: which built-ins beyond `think`, `calculator` and `clock`, and their limits.
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolSetOptions {
  /** Add the filesystem tools for this folder (a relative path is taken from the current working directory). */
  readonly root?: string | undefined
  /** With `root`: add `write_file` and `edit_file`. Default `false`; without `root`, `true` is an options error. */
  readonly write?: boolean | undefined
  /** Add `fetch` for these hosts (`example.com`, `*.example.com`, an IP address). None, or an empty list: no fetch. */
  readonly allowHosts?: ReadonlyArray<string> | undefined
  /** The most bytes a file read, a file written, or a fetched body may have. Default: each tool's own (1 MiB). */
  readonly maxBytes?: number | undefined
  /** The longest a fetch may take, redirects and body included. Default: `http`'s (30 seconds). */
  readonly timeout?: Duration.Input | undefined
}

/**
 * Every tool {@link toolSet} may hold: `think`, `calculator`, `clock`, the filesystem tools and `fetch`.
 *
 * @category models
 * @since 0.1.0
 */
export type Tools =
  | typeof think
  | typeof calculator
  | typeof clock
  | Filesystem.ReadTools
  | Filesystem.WriteTools
  | Http.FetchTool

/**
 * One `ToolSet` of the built-ins a configuration asks for: always `think`, `calculator` and `clock`; the filesystem
 * tools on `root` when it is given (with the write tools when `write` is `true`); `fetch` when `allowHosts` names a
 * host. The options are checked first: a `root` that is not a folder, `write` without `root`, a malformed host or a
 * bad limit fails with a {@link BuiltinOptionsError} or an {@link HttpOptionsError}, and nothing is built.
 *
 * Needs Effect's `FileSystem` and `Path` (`NodeServices.layer`) to build the filesystem tools; every tool of the set
 * is portable.
 *
 * @example
 * ```ts
 * import { NodeServices } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import { ToolSet } from "effect-llm-tools"
 * import { Builtin } from "effect-llm-tools/builtin"
 *
 * const names = Builtin.toolSet({ root: ".", write: true, maxBytes: 64 * 1024 }).pipe(
 *   Effect.map(ToolSet.names),
 *   Effect.provide(NodeServices.layer)
 * )
 * // ["think", "calculator", "clock", "read_file", "list_directory", "search_files", "file_info", "write_file",
 * //  "edit_file"]
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const toolSet = (
  options: ToolSetOptions = {}
): Effect.Effect<
  ToolSet.ToolSet<Tools>,
  BuiltinOptionsError | HttpOptionsError,
  FileSystem.FileSystem | Path.Path
> =>
  Effect.gen(function*() {
    if (typeof options !== "object" || options === null) {
      return yield* Effect.fail(
        new BuiltinOptionsError({ option: "options", message: "the options must be an object" })
      )
    }
    const { allowHosts, maxBytes, root, timeout, write } = options
    // Anything but "no" for `write` without a folder to write in is a mistake worth saying, not ignoring.
    if (root === undefined && write !== undefined && write !== false) {
      return yield* Effect.fail(
        new BuiltinOptionsError({
          option: "write",
          message: "write needs a root: it adds the write tools to the filesystem tools of that folder"
        })
      )
    }
    // Limits are checked here too: with neither a root nor a host, no built-in would, and a bad one would pass.
    if (maxBytes !== undefined && !(Number.isSafeInteger(maxBytes) && maxBytes > 0)) {
      return yield* Effect.fail(
        new BuiltinOptionsError({
          option: "maxBytes",
          message: "maxBytes must be a whole number of bytes, one or more"
        })
      )
    }
    if (timeout !== undefined && !isPositiveDuration(timeout)) {
      return yield* Effect.fail(
        new BuiltinOptionsError({ option: "timeout", message: "timeout must be a finite duration longer than zero" })
      )
    }
    const tools: Array<Tools> = [think, calculator, clock]
    if (root !== undefined) {
      const files = yield* filesystem({
        root,
        write: write ?? false,
        ...(maxBytes === undefined ? {} : { maxBytes })
      })
      tools.push(...files.tools)
    }
    if (allowHosts !== undefined && allowHosts.length > 0) {
      tools.push(
        yield* http({
          allow: allowHosts,
          ...(maxBytes === undefined ? {} : { maxBytes }),
          ...(timeout === undefined ? {} : { timeout })
        })
      )
    }
    return ToolSet.make(...tools)
  })

const isPositiveDuration = (input: Duration.Input): boolean => {
  try {
    const duration = Duration.fromInput(input)
    return Option.isSome(duration) && Duration.isFinite(duration.value) && Duration.isPositive(duration.value)
  } catch {
    return false
  }
}
