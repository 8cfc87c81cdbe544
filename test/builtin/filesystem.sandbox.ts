/**
 * What the filesystem tests share: a temporary folder with a root inside it and a secret outside it, a way to build
 * the tools over it (with Node's file system, or one a test changed), and what the model sees of a result.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { assert } from "@effect/vitest"
import { Effect, FileSystem, Option, type Scope } from "effect"
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { filesystem, type FilesystemOptions } from "../../src/builtin/filesystem.ts"
import { type ToolExecutionError, type ToolResult, ToolResultContent, ToolSet } from "../../src/index.ts"
import { kindOf } from "../support/results.ts"

/** What the file outside the root holds: no result may ever show it. */
export const secret = "TOP SECRET: this file is outside the root"

/** A temporary folder: `root` (what the tools get) and `outside` (next to it, with `secret.txt`), real paths. */
export interface Sandbox {
  readonly base: string
  readonly root: string
  readonly outside: string
  /** A path under the root. */
  readonly inRoot: (...parts: ReadonlyArray<string>) => string
  /** A path under the folder outside the root. */
  readonly inOutside: (...parts: ReadonlyArray<string>) => string
}

/** A fresh sandbox; `removeSandbox` removes it. */
export const makeSandbox = (): Sandbox => {
  // Real paths: on some systems the temporary folder is itself reached through a link.
  const base = realpathSync(mkdtempSync(join(tmpdir(), "builtin-fs-")))
  const root = join(base, "root")
  const outside = join(base, "outside")
  mkdirSync(root)
  mkdirSync(outside)
  writeFileSync(join(outside, "secret.txt"), secret)
  return {
    base,
    root,
    outside,
    inRoot: (...parts: ReadonlyArray<string>) => join(root, ...parts),
    inOutside: (...parts: ReadonlyArray<string>) => join(outside, ...parts)
  }
}

/** Removes a sandbox made by `makeSandbox`. */
export const removeSandbox = (box: Sandbox): void => rmSync(box.base, { recursive: true, force: true })

/** A fresh sandbox, removed when the test's scope closes. */
export const sandbox: Effect.Effect<Sandbox, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(makeSandbox),
  (box) => Effect.sync(() => removeSandbox(box))
)

/** Writes files under a folder: `{ "docs/a.md": "text" }`, making folders on the way. */
export const writeFiles = (folder: string, files: Readonly<Record<string, string | Uint8Array>>): void => {
  for (const [name, content] of Object.entries(files)) {
    const path = join(folder, name)
    mkdirSync(join(path, ".."), { recursive: true })
    writeFileSync(path, content)
  }
}

/** The names in a folder, sorted. */
export const namesIn = (folder: string): Array<string> => readdirSync(folder).sort()

/** Node's file system, changed by `change`: a test's own service, the way a user would replace it. */
export const changedFileSystem = (
  change: (fs: FileSystem.FileSystem) => FileSystem.FileSystem
): Effect.Effect<FileSystem.FileSystem> =>
  Effect.map(Effect.service(FileSystem.FileSystem), change).pipe(Effect.provide(NodeFileSystem.layer))

export const descriptorPrefix = "/proc/self/fd/"

/**
 * A path picker for the folder `folder`, however it is reached: by its path, or (on Linux) through the
 * `/proc/self/fd/<n>` path of a descriptor that has it open.
 */
export const reaches = (folder: string) => (at: string): boolean => {
  if (at === folder) return true
  if (!at.startsWith(descriptorPrefix)) return false
  try {
    return readlinkSync(at) === folder
  } catch {
    return false
  }
}

/**
 * Node's file system, except that the first `method` call on `path` runs `swap` after it answered: what an attacker
 * racing the tools would do between the check and the use, made deterministic. `swapped()` says whether it ran, so
 * that a test fails, rather than passes for nothing, if the check it aims at moves.
 */
export const swapAfter = (method: "lstat" | "readDirectoryEntries", path: string, swap: () => void) => {
  let swapped = false
  const after = (at: string) =>
    Effect.sync(() => {
      if (swapped || !reaches(path)(at)) return
      swapped = true
      swap()
    })
  const fileSystem = changedFileSystem((fs) =>
    method === "lstat"
      ? { ...fs, lstat: (at) => Effect.tap(fs.lstat(at), () => after(at)) }
      : { ...fs, readDirectoryEntries: (at) => Effect.tap(fs.readDirectoryEntries(at), () => after(at)) }
  )
  return { fileSystem, swapped: () => swapped }
}

/** The tools over a root, with Node's services or with the given file system; bad options fail the test. */
export const build = (options: FilesystemOptions, fileSystem?: Effect.Effect<FileSystem.FileSystem>) =>
  Effect.gen(function*() {
    const fs = yield* (fileSystem ?? changedFileSystem((fs) => fs))
    return yield* filesystem(options).pipe(
      Effect.provideService(FileSystem.FileSystem, fs),
      Effect.provide(NodePath.layer),
      Effect.orDie
    )
  })

/** Executes one call through dispatch, as a model's call would run. */
export const call = (set: ToolSet.Any, name: string, args: unknown) =>
  ToolSet.execute(set, { id: "call_1", name, arguments: args })

/** What the model sees of a result. */
export interface Seen {
  readonly status: string
  readonly kind: string | undefined
  /** Each block: a text, a JSON value, or the tag of another kind of block. */
  readonly blocks: ReadonlyArray<unknown>
}

/** What the model sees of a result: its status, its error's kind, and each block. */
export const seen = (result: ToolResult.ToolResult): Seen => ({
  status: result.status,
  kind: kindOf(result),
  blocks: result.output.content.map((block) =>
    block instanceof ToolResultContent.Text
      ? block.text
      : block instanceof ToolResultContent.Json
      ? block.value
      : block._tag
  )
})

/** What the model sees of a success that shows `blocks`. */
export const succeeded = (...blocks: ReadonlyArray<unknown>): Seen => ({ status: "success", kind: undefined, blocks })

/** What the model sees of an error of `kind` that says `message`. */
export const failed = (kind: ToolExecutionError.ToolErrorKind, message: string): Seen => ({
  status: "error",
  kind,
  blocks: [message]
})

/** What the model sees of a refusal (`denied`, `permission_denied`) that says `message`. */
export const denied = (message: string): Seen => ({ status: "denied", kind: "permission_denied", blocks: [message] })

/** The one JSON value a result shows the model; the test fails when it shows anything else. */
export const jsonOf = (result: ToolResult.ToolResult): unknown => {
  const blocks = seen(result).blocks
  assert.strictEqual(result.status, "success", `expected success, got ${JSON.stringify(seen(result))}`)
  assert.strictEqual(blocks.length, 1)
  return blocks[0]
}

/** The text a result shows the model, all blocks joined. */
export const textOf = (result: ToolResult.ToolResult): string =>
  seen(result).blocks.map((block) => typeof block === "string" ? block : JSON.stringify(block)).join("\n")

/**
 * Nothing the model or an operator sees of the result shows the secret, or any absolute path of the sandbox (the
 * root included).
 */
export const assertNoLeak = (result: ToolResult.ToolResult, box: Sandbox): void => {
  const shown = JSON.stringify({
    output: seen(result),
    message: Option.getOrUndefined(Option.map(result.error, (error) => error.message))
  })
  assert.isFalse(shown.includes(secret), `the secret leaked: ${shown}`)
  assert.isFalse(shown.includes(box.base), `an absolute path leaked: ${shown}`)
}
