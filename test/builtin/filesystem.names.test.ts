/**
 * Names that are not valid UTF-8: Node reads them with U+FFFD for the bytes it cannot decode, and such a name leads
 * nowhere. The tools leave them out, and say how many, so that the model is never given a path it cannot use.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, type FileSystem } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import {
  build,
  call,
  changedFileSystem,
  jsonOf,
  reaches,
  type Sandbox,
  sandbox,
  seen,
  succeeded,
  writeFiles
} from "./filesystem.sandbox.ts"

/** A name's bytes: `text` as UTF-8 with the byte `byte` (never valid UTF-8 on its own) put where `\u0000` is. */
const badName = (text: string, byte: number): Buffer => {
  const [before, after] = text.split("\u0000")
  return Buffer.concat([Buffer.from(before), Buffer.from([byte]), Buffer.from(after)])
}

/** The path under the root of a name that is not UTF-8 (see `badName`). */
const badPath = (box: Sandbox, text: string, byte: number): Buffer =>
  Buffer.concat([Buffer.from(`${box.root}/`), badName(text, byte)])

/**
 * A root with `good\uFFFDname.txt` (U+FFFD is valid UTF-8: a usable name) and `a.txt`, and names that are not
 * UTF-8: a file `bad\xFFname.txt`, a file `good\xFEname.txt` (which Node reads as the good file's name), and a
 * folder `sub\xFD` with `name-in-bad.txt` in it. Where the file system refuses such names, the root's listing gives
 * them as Node would read them, and looking them up finds nothing, as it would. The file system to build with.
 */
const plantNames = (box: Sandbox): Effect.Effect<FileSystem.FileSystem> => {
  writeFiles(box.root, { "good\uFFFDname.txt": "good", "a.txt": "a" })
  try {
    writeFileSync(badPath(box, "bad\u0000name.txt", 0xff), "bad")
    writeFileSync(badPath(box, "good\u0000name.txt", 0xfe), "not reachable")
    mkdirSync(badPath(box, "sub\u0000", 0xfd))
    writeFileSync(Buffer.concat([badPath(box, "sub\u0000", 0xfd), Buffer.from("/name-in-bad.txt")]), "")
    return changedFileSystem((fs) => fs)
  } catch {
    return changedFileSystem((fs) => ({
      ...fs,
      readDirectoryEntries: (at) =>
        reaches(box.root)(at)
          ? Effect.map(fs.readDirectoryEntries(at), (entries) => [
            ...entries,
            { name: "bad\uFFFDname.txt", type: "File" as const },
            { name: "good\uFFFDname.txt", type: "File" as const },
            { name: "sub\uFFFD", type: "Directory" as const }
          ])
          : fs.readDirectoryEntries(at)
    }))
  }
}

describe("names that are not valid UTF-8", () => {
  it.effect("list_directory leaves them out and says how many; a name with U+FFFD in it is listed once", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const set = yield* build({ root: box.root }, plantNames(box))
      assert.deepStrictEqual(jsonOf(yield* call(set, "list_directory", {})), {
        path: ".",
        entries: [
          { name: "a.txt", type: "file", size: 1 },
          { name: "good\uFFFDname.txt", type: "file", size: 4 }
        ],
        total: 2,
        truncated: false,
        reason: "3 entries are left out: their names are not valid UTF-8, so no tool can name them"
      })
      // What is listed can be used.
      assert.deepStrictEqual(seen(yield* call(set, "read_file", { path: "good\uFFFDname.txt" })), succeeded("good"))
    }))

  it.effect("search_files matches none of them, searches no folder named so, and says how many it left out", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const set = yield* build({ root: box.root }, plantNames(box))
      assert.deepStrictEqual(jsonOf(yield* call(set, "search_files", { pattern: "name" })), {
        path: ".",
        matches: ["good\uFFFDname.txt"],
        truncated: true,
        reason: "3 entries are left out: their names are not valid UTF-8, so no tool can name them"
      })
    }))

  it.effect("a folder without such names is listed and searched as before, with no reason", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "a" })
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(jsonOf(yield* call(set, "list_directory", {})), {
        path: ".",
        entries: [{ name: "a.txt", type: "file", size: 1 }],
        total: 1,
        truncated: false
      })
      assert.deepStrictEqual(jsonOf(yield* call(set, "search_files", { pattern: "a" })), {
        path: ".",
        matches: ["a.txt"],
        truncated: false
      })
    }))
})
