/**
 * The filesystem tools raced: a folder swapped for a link that points out of the root at each moment between the
 * check and the use, deep paths, folders made while their parent is swapped, costly search patterns and long
 * searches, and files with other names (hard links). Each race is made deterministic by a file system that runs the
 * swap at one exact call, and each test states whether that call was reached, so that it cannot pass for nothing.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, type FileSystem, Option, PlatformError, Schema } from "effect"
import {
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  unlinkSync,
  writeFileSync
} from "node:fs"
import { BuiltinOptionsError, filesystem } from "../../src/builtin/filesystem.ts"
import { probeDescriptorPaths } from "../../src/builtin/internal/confinedPath.ts"
import { ToolSet } from "../../src/index.ts"
import {
  assertNoLeak,
  build,
  call,
  changedFileSystem,
  denied,
  descriptorPrefix,
  failed,
  jsonOf,
  namesIn,
  reaches,
  type Sandbox,
  sandbox,
  secret,
  seen,
  writeFiles
} from "./filesystem.sandbox.ts"

// ---------------------------------------------------------------------------------------------------------------------
// racing file systems
// ---------------------------------------------------------------------------------------------------------------------

type Raced = "lstat" | "realPath" | "readDirectoryEntries" | "makeDirectory"

const exactly = (path: string) => (at: string): boolean => at === path

/** Node's file system without `/proc/self/fd`: what the tools see on a system without it (macOS, Windows). */
const withoutDescriptorPaths = (fs: FileSystem.FileSystem): FileSystem.FileSystem => ({
  ...fs,
  readLink: (at) =>
    at.startsWith(descriptorPrefix)
      ? Effect.fail(
        PlatformError.systemError({ _tag: "NotFound", module: "FileSystem", method: "readLink", pathOrDescriptor: at })
      )
      : fs.readLink(at)
})

/**
 * Node's file system (or, with `descriptorPaths: false`, one without `/proc/self/fd`), except that the first call
 * of `method` on a path `when` picks runs `swap`, just `before` the call or just `after` it answered.
 */
const raceAt = (
  method: Raced,
  when: (at: string) => boolean,
  moment: "before" | "after",
  swap: () => void,
  options: { readonly descriptorPaths?: boolean } = {}
) => {
  let swapped = false
  const around = <A, E>(at: string, run: () => Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.suspend(() => {
      if (swapped || !when(at)) return run()
      swapped = true
      if (moment === "before") {
        swap()
        return run()
      }
      return Effect.tap(run(), () => Effect.sync(swap))
    })
  const fileSystem = changedFileSystem((node) => {
    const fs = options.descriptorPaths === false ? withoutDescriptorPaths(node) : node
    switch (method) {
      case "lstat":
        return { ...fs, lstat: (at) => around(at, () => fs.lstat(at)) }
      case "realPath":
        return { ...fs, realPath: (at) => around(at, () => fs.realPath(at)) }
      case "readDirectoryEntries":
        return { ...fs, readDirectoryEntries: (at) => around(at, () => fs.readDirectoryEntries(at)) }
      case "makeDirectory":
        return { ...fs, makeDirectory: (at, opts) => around(at, () => fs.makeDirectory(at, opts)) }
    }
  })
  return { fileSystem, swapped: () => swapped }
}

/** Calls a tool of the filesystem tools made with `options` over `race`'s file system, and checks the race was run. */
const callRaced = (
  race: ReturnType<typeof raceAt>,
  options: Parameters<typeof build>[0],
  tool: string,
  args: unknown
) =>
  Effect.gen(function*() {
    const result = yield* call(yield* build(options, race.fileSystem), tool, args)
    assert.isTrue(race.swapped())
    return result
  })

/** Moves the folder `name` of the root aside (to `<name>-moved`) and puts a link to `target` in its place. */
const swapForLink = (box: Sandbox, name: string, target: string) => () => {
  renameSync(box.inRoot(name), box.inRoot(`${name}-moved`))
  symlinkSync(target, box.inRoot(name))
}

/** Whether the tools on this system read folders through their descriptor (Linux), as they decide it. */
const descriptorPathsHere = (box: Sandbox) =>
  Effect.gen(function*() {
    const fs = yield* changedFileSystem((fs) => fs)
    return yield* probeDescriptorPaths(fs, box.root)
  })

const changed = (shown: string) =>
  denied(`${JSON.stringify(shown)} changed while it was being opened; it was not read`)

/** The folder outside the root holds only what the sandbox put there (and `extra` names), the secret unchanged. */
const assertOutsideUntouched = (box: Sandbox, extra: ReadonlyArray<string> = []) => {
  assert.deepStrictEqual(namesIn(box.outside), ["secret.txt", ...extra].sort())
  assert.strictEqual(readFileSync(box.inOutside("secret.txt"), "utf8"), secret)
}

// ---------------------------------------------------------------------------------------------------------------------
// folders swapped between the check and the use
// ---------------------------------------------------------------------------------------------------------------------

describe("a folder swapped for a link outside between the check and the use", () => {
  it.effect("list_directory does not list a folder swapped after its lstat", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/inside.txt": "x" })
      writeFiles(box.outside, { "outside-name.txt": "" })
      const race = raceAt("lstat", exactly(box.inRoot("docs")), "after", swapForLink(box, "docs", box.outside))
      const result = yield* callRaced(race, { root: box.root }, "list_directory", { path: "docs" })
      assert.deepStrictEqual(seen(result), changed("docs"))
      assertNoLeak(result, box)
    }))

  it.effect("list_directory, with the folder swapped just before it is read, lists the folder checked", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/inside.txt": "x" })
      writeFiles(box.outside, { "outside-name.txt": "" })
      const race = raceAt(
        "readDirectoryEntries",
        reaches(box.inRoot("docs")),
        "before",
        swapForLink(box, "docs", box.outside)
      )
      const result = yield* callRaced(race, { root: box.root }, "list_directory", { path: "docs" })
      // On Linux the folder is read through its descriptor: the folder checked, wherever it was moved. Elsewhere
      // the check after the read finds the swap, and the listing is dropped.
      const listing = {
        path: "docs",
        entries: [{ name: "inside.txt", type: "file", size: 1 }],
        total: 1,
        truncated: false
      }
      assert.deepStrictEqual(
        seen(result),
        (yield* descriptorPathsHere(box)) ? { status: "success", kind: undefined, blocks: [listing] } : changed("docs")
      )
      assertNoLeak(result, box)
    }))

  it.effect("list_directory does not list a folder whose parent was swapped after realpath", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/sub/inside.txt": "" })
      writeFiles(box.outside, { "sub/outside-name.txt": "" })
      // The lstat and the open that follow both go through the link, to the same folder outside: only where the
      // folder opened is tells it apart.
      const race = raceAt("realPath", exactly(box.inRoot("docs/sub")), "after", swapForLink(box, "docs", box.outside))
      const result = yield* callRaced(race, { root: box.root }, "list_directory", { path: "docs/sub" })
      assert.deepStrictEqual(seen(result), changed("docs/sub"))
      assertNoLeak(result, box)
    }))

  it.effect("search_files does not search a start folder swapped after its lstat", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/inside-match.txt": "" })
      writeFiles(box.outside, { "outside-match.txt": "" })
      const race = raceAt("lstat", exactly(box.inRoot("docs")), "after", swapForLink(box, "docs", box.outside))
      const result = yield* callRaced(race, { root: box.root }, "search_files", { path: "docs", pattern: "match" })
      assert.deepStrictEqual(seen(result), changed("docs"))
      assertNoLeak(result, box)
    }))

  it.effect("search_files, with a folder below swapped just before it is read, finds nothing outside", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/inside-match.txt": "" })
      writeFiles(box.outside, { "outside-match.txt": "" })
      const race = raceAt(
        "readDirectoryEntries",
        reaches(box.inRoot("docs")),
        "before",
        swapForLink(box, "docs", box.outside)
      )
      const result = yield* callRaced(race, { root: box.root }, "search_files", { pattern: "match" })
      // On Linux, the folder read is the one listed (now moved aside); elsewhere it is dropped, as changed.
      assert.deepStrictEqual(jsonOf(result), {
        path: ".",
        matches: (yield* descriptorPathsHere(box)) ? ["docs/inside-match.txt"] : [],
        truncated: false
      })
    }))

  it.effect("search_files skips a folder below whose parent was swapped after it was listed", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/sub/inside-match.txt": "" })
      writeFiles(box.outside, { "sub/outside-match.txt": "" })
      const race = raceAt(
        "readDirectoryEntries",
        reaches(box.inRoot("docs")),
        "after",
        swapForLink(box, "docs", box.outside)
      )
      const result = yield* callRaced(race, { root: box.root }, "search_files", { pattern: "match" })
      assert.deepStrictEqual(jsonOf(result), { path: ".", matches: [], truncated: false })
    }))

  it.effect("file_info does not describe a file outside through a parent swapped after realpath", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/secret.txt": "short" })
      const race = raceAt(
        "realPath",
        exactly(box.inRoot("docs/secret.txt")),
        "after",
        swapForLink(box, "docs", box.outside)
      )
      const result = yield* callRaced(race, { root: box.root }, "file_info", { path: "docs/secret.txt" })
      assert.deepStrictEqual(seen(result), changed("docs/secret.txt"))
    }))

  it.effect("read_file opens nothing outside through a parent swapped after realpath", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/secret.txt": "harmless" })
      const race = raceAt(
        "realPath",
        exactly(box.inRoot("docs/secret.txt")),
        "after",
        swapForLink(box, "docs", box.outside)
      )
      const result = yield* callRaced(race, { root: box.root }, "read_file", { path: "docs/secret.txt" })
      assert.deepStrictEqual(seen(result), changed("docs/secret.txt"))
      assertNoLeak(result, box)
    }))

  it.effect("edit_file neither reads nor writes a file outside through a parent swapped after realpath", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/secret.txt": "TOP SECRET: a harmless copy" })
      const race = raceAt(
        "realPath",
        exactly(box.inRoot("docs/secret.txt")),
        "after",
        swapForLink(box, "docs", box.outside)
      )
      const result = yield* callRaced(race, { root: box.root, write: true }, "edit_file", { path: "docs/secret.txt", old_text: "TOP", new_text: "EDITED" })
      assert.deepStrictEqual(seen(result), changed("docs/secret.txt"))
      assertOutsideUntouched(box)
    }))

  it.effect("write_file writes nothing outside through a parent swapped after realpath", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/sub/notes.txt": "inside" })
      writeFiles(box.outside, { "sub/notes.txt": "outside notes" })
      const race = raceAt(
        "realPath",
        exactly(box.inRoot("docs/sub/notes.txt")),
        "after",
        swapForLink(box, "docs", box.outside)
      )
      const result = yield* callRaced(race, { root: box.root, write: true }, "write_file", { path: "docs/sub/notes.txt", content: "written" })
      assert.deepStrictEqual(
        seen(result),
        denied("the folder of \"docs/sub/notes.txt\" changed while it was checked")
      )
      assertOutsideUntouched(box, ["sub"])
      assert.deepStrictEqual(
        [readdirSync(box.inOutside("sub")), readFileSync(box.inOutside("sub/notes.txt"), "utf8")],
        [["notes.txt"], "outside notes"]
      )
      assert.strictEqual(readFileSync(box.inRoot("docs-moved/sub/notes.txt"), "utf8"), "inside")
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// without /proc/self/fd
// ---------------------------------------------------------------------------------------------------------------------

describe("without /proc/self/fd, a folder is checked again after it is used", () => {
  const fallback = { descriptorPaths: false } as const

  it.effect("the tools work as usual when nothing is swapped", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/a.txt": "hello", "docs/sub/b.txt": "" })
      const race = raceAt("lstat", () => false, "after", () => undefined, fallback)
      const set = yield* build({ root: box.root, write: true }, race.fileSystem)
      assert.deepStrictEqual(jsonOf(yield* call(set, "list_directory", { path: "docs" })), {
        path: "docs",
        entries: [{ name: "a.txt", type: "file", size: 5 }, { name: "sub", type: "directory" }],
        total: 2,
        truncated: false
      })
      assert.deepStrictEqual(jsonOf(yield* call(set, "search_files", { pattern: "*.txt" })), {
        path: ".",
        matches: ["docs/a.txt", "docs/sub/b.txt"],
        truncated: false
      })
      const info = jsonOf(yield* call(set, "file_info", { path: "docs/a.txt" })) as Record<string, unknown>
      assert.deepStrictEqual([info.path, info.type, info.size], ["docs/a.txt", "file", 5])
      assert.deepStrictEqual(seen(yield* call(set, "read_file", { path: "docs/a.txt" })).blocks, ["hello"])
      assert.deepStrictEqual(
        jsonOf(yield* call(set, "write_file", { path: "docs/new/c.txt", content: "made" })),
        { path: "docs/new/c.txt", bytes: 4, created: true }
      )
      assert.strictEqual(readFileSync(box.inRoot("docs/new/c.txt"), "utf8"), "made")
    }))

  it.effect("a listing read from a folder swapped just before the read is dropped", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/inside.txt": "" })
      writeFiles(box.outside, { "outside-name.txt": "" })
      const race = raceAt(
        "readDirectoryEntries",
        exactly(box.inRoot("docs")),
        "before",
        swapForLink(box, "docs", box.outside),
        fallback
      )
      const result = yield* callRaced(race, { root: box.root }, "list_directory", { path: "docs" })
      assert.deepStrictEqual(seen(result), changed("docs"))
      assertNoLeak(result, box)
    }))

  it.effect("a folder below, swapped just before the search reads it, is skipped", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/inside-match.txt": "" })
      writeFiles(box.outside, { "outside-match.txt": "" })
      const race = raceAt(
        "readDirectoryEntries",
        exactly(box.inRoot("docs")),
        "before",
        swapForLink(box, "docs", box.outside),
        fallback
      )
      const result = yield* callRaced(race, { root: box.root }, "search_files", { pattern: "match" })
      assert.deepStrictEqual(jsonOf(result), { path: ".", matches: [], truncated: false })
    }))

  it.effect("read_file, file_info and write_file refuse a parent swapped after realpath", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const cases = [
        ["read_file", { path: "docs/secret.txt" }, changed("docs/secret.txt")],
        ["file_info", { path: "docs/secret.txt" }, changed("docs/secret.txt")],
        [
          "write_file",
          { path: "docs/secret.txt", content: "written" },
          denied("the folder of \"docs/secret.txt\" changed while it was checked")
        ]
      ] as const
      for (const [name, args, expected] of cases) {
        writeFiles(box.root, { "docs/secret.txt": "harmless" })
        const race = raceAt(
          "realPath",
          exactly(box.inRoot("docs/secret.txt")),
          "after",
          swapForLink(box, "docs", box.outside),
          fallback
        )
        const set = yield* build({ root: box.root, write: true }, race.fileSystem)
        const result = yield* call(set, name, args)
        assert.isTrue(race.swapped(), name)
        assert.deepStrictEqual(seen(result), expected, name)
        assertNoLeak(result, box)
        assertOutsideUntouched(box)
        // The root as it was, for the next tool.
        unlinkSync(box.inRoot("docs"))
        renameSync(box.inRoot("docs-moved"), box.inRoot("docs"))
      }
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// deep paths
// ---------------------------------------------------------------------------------------------------------------------

describe("paths with many names", () => {
  const tooMany = failed("invalid_args", "a path must have at most 128 names (the parts between slashes)")

  /** `names` names `a`, joined by `separator`. */
  const deep = (names: number, separator = "/") => Array.from({ length: names }, () => "a").join(separator)

  it.effect("a path of 1000 names is refused at once by every tool, and nothing is made", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const set = yield* build({ root: box.root, write: true })
      const path = deep(1000)
      const calls = [
        ["read_file", { path }],
        ["list_directory", { path }],
        ["search_files", { path, pattern: "a" }],
        ["file_info", { path }],
        ["write_file", { path, content: "x" }],
        ["edit_file", { path, old_text: "a", new_text: "b" }]
      ] as const
      for (const [name, args] of calls) assert.deepStrictEqual(seen(yield* call(set, name, args)), tooMany, name)
      assert.deepStrictEqual(namesIn(box.root), [])
    }))

  it.effect.prop(
    "a path of more than 128 names is refused, and one of 128 or fewer is looked up; `.` counts, empty parts do not",
    [Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 400 })), Schema.Literals(["/", "//", "/./"])],
    ([count, separator]) =>
      Effect.scoped(Effect.gen(function*() {
        const box = yield* sandbox
        const set = yield* build({ root: box.root })
        const names = separator === "/./" ? 2 * count - 1 : count
        assert.deepStrictEqual(
          seen(yield* call(set, "read_file", { path: deep(count, separator) })),
          names > 128 ? tooMany : failed("not_found", `${JSON.stringify(deep(count))} does not exist`)
        )
      })),
    { timeout: 60_000, arbitrary: { runs: 100 } }
  )

  it.effect("a write 100 folders deep makes each folder and the file", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const set = yield* build({ root: box.root, write: true })
      const path = `${deep(100)}/notes.txt`
      assert.deepStrictEqual(jsonOf(yield* call(set, "write_file", { path, content: "deep" })), {
        path,
        bytes: 4,
        created: true
      })
      assert.strictEqual(readFileSync(box.inRoot(path), "utf8"), "deep")
    }))

  it.effect("making the missing folders of a path resolves it the same number of times, however deep", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      let resolved = 0
      const fileSystem = changedFileSystem((fs) => ({
        ...fs,
        realPath: (at) => Effect.suspend(() => (resolved++, fs.realPath(at)))
      }))
      const set = yield* build({ root: box.root, write: true }, fileSystem)
      const resolvingToWrite = (path: string) =>
        Effect.gen(function*() {
          resolved = 0
          assert.strictEqual(seen(yield* call(set, "write_file", { path, content: "x" })).status, "success")
          return resolved
        })
      // Each `realpath` costs a lookup per name: one per folder made would cost the square of the depth.
      const shallow = yield* resolvingToWrite(`b/${deep(10)}/f.txt`)
      assert.strictEqual(yield* resolvingToWrite(`c/${deep(100)}/f.txt`), shallow)
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// folders made while their parent is swapped
// ---------------------------------------------------------------------------------------------------------------------

describe("a folder made while its parent is swapped", () => {
  it.effect("a folder made through a parent swapped for a link outside is removed again, and nothing is written", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/keep.txt": "" })
      const race = raceAt(
        "makeDirectory",
        exactly(box.inRoot("docs/new")),
        "before",
        swapForLink(box, "docs", box.outside)
      )
      const result = yield* callRaced(race, { root: box.root, write: true }, "write_file", { path: "docs/new/notes.txt", content: "written" })
      assert.deepStrictEqual(
        seen(result),
        denied("\"docs\" changed while a folder was being made in it; nothing was written")
      )
      assertOutsideUntouched(box)
      assert.deepStrictEqual(namesIn(box.inRoot("docs-moved")), ["keep.txt"])
    }))

  it.effect("a folder someone else made meanwhile is used; a file put there is not a folder", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/keep.txt": "" })
      const madeMeanwhile = raceAt("makeDirectory", exactly(box.inRoot("docs/new")), "before", () =>
        mkdirSync(box.inRoot("docs/new")))
      const set = yield* build({ root: box.root, write: true }, madeMeanwhile.fileSystem)
      assert.deepStrictEqual(
        jsonOf(yield* call(set, "write_file", { path: "docs/new/notes.txt", content: "written" })),
        { path: "docs/new/notes.txt", bytes: 7, created: true }
      )
      assert.isTrue(madeMeanwhile.swapped())
      assert.strictEqual(readFileSync(box.inRoot("docs/new/notes.txt"), "utf8"), "written")
      const fileMeanwhile = raceAt("makeDirectory", exactly(box.inRoot("docs/other")), "before", () =>
        writeFileSync(box.inRoot("docs/other"), "a file"))
      const other = yield* build({ root: box.root, write: true }, fileMeanwhile.fileSystem)
      assert.deepStrictEqual(
        seen(yield* call(other, "write_file", { path: "docs/other/notes.txt", content: "written" })),
        failed("invalid_args", "\"docs/other\" is a file, not a folder")
      )
      assert.isTrue(fileMeanwhile.swapped())
      assert.strictEqual(readFileSync(box.inRoot("docs/other"), "utf8"), "a file")
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// search patterns and long searches
// ---------------------------------------------------------------------------------------------------------------------

describe("what a search may cost", () => {
  const bracesRefused = failed(
    "invalid_args",
    "a pattern's {…} groups must not be nested, and may give at most 8 alternatives in all ({a,b}.{c,d} gives 4)"
  )
  const starsRefused = failed("invalid_args", "a pattern may have at most 16 * wildcards")

  /** A file system whose root folder (however it is reached) lists `entries`, and nothing else changed. */
  const rootListing = (box: Sandbox, entries: ReadonlyArray<FileSystem.DirectoryEntry>) =>
    changedFileSystem((fs) => ({
      ...fs,
      readDirectoryEntries: (at) => reaches(box.root)(at) ? Effect.succeed(entries) : fs.readDirectoryEntries(at)
    }))

  it.effect("{…} groups may give at most 8 alternatives in all, and may not be nested", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "", "h.txt": "", "i.txt": "", "b.md": "" })
      const set = yield* build({ root: box.root })
      const search = (pattern: string) => call(set, "search_files", { pattern })
      const matches = (...found: Array<string>) => ({ path: ".", matches: found, truncated: false })
      assert.deepStrictEqual(jsonOf(yield* search("{a,b,c,d,e,f,g,h}.txt")), matches("a.txt", "h.txt"))
      assert.deepStrictEqual(jsonOf(yield* search("{a,b}.{txt,md}")), matches("a.txt", "b.md"))
      assert.deepStrictEqual(jsonOf(yield* search("{a,b}{,x}.{txt,md}")), matches("a.txt", "b.md"))
      // Escaped braces are literal: no group, however many commas.
      assert.deepStrictEqual(jsonOf(yield* search("\\{a,b,c,d,e,f,g,h,i\\}")), matches())
      for (const pattern of ["{a,b,c,d,e,f,g,h,i}.txt", "{a,b,c}.{d,e,f}", "{a,{b,c}}.txt", "{a,b,c,d,e,f,g,h,i"]) {
        assert.deepStrictEqual(seen(yield* search(pattern)), bracesRefused, pattern)
      }
    }))

  it.effect("a {, , or } inside a […] class is a character, as the glob reads it: it is not counted as a group", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, {
        "a.txt": "",
        "b.md": "",
        "{x}.txt": "",
        "c}": "",
        "Readme.md": "",
        "changelog.md": "",
        "src/d.jsx": "",
        "src/e.ts": ""
      })
      const set = yield* build({ root: box.root })
      const search = (pattern: string) => call(set, "search_files", { pattern })
      // Were the `}` of `[}]` taken to close its group, this would count as 1 pattern; the glob expands it to 9^4.
      const group = "{[}],b,c,d,e,f,g,h,i}"
      for (const pattern of [group.repeat(4), group, "{[,],a,b,c,d,e,f,g,h}"]) {
        assert.deepStrictEqual(seen(yield* search(pattern)), bracesRefused, pattern)
      }
      const matches = (...found: Array<string>) => ({ path: ".", matches: found, truncated: false })
      assert.deepStrictEqual(jsonOf(yield* search("[{]x}.txt")), matches("{x}.txt"))
      assert.deepStrictEqual(jsonOf(yield* search("[\\{]x[\\}].txt")), matches("{x}.txt"))
      assert.deepStrictEqual(jsonOf(yield* search("c[}]")), matches("c}"))
      assert.deepStrictEqual(jsonOf(yield* search("{[}],b}")), matches())
      // Classes and groups side by side, as models write them.
      assert.deepStrictEqual(jsonOf(yield* search("[ab].{txt,md}")), matches("a.txt", "b.md"))
      assert.deepStrictEqual(jsonOf(yield* search("{[Rr]eadme,[Cc]hangelog}.md")), matches("Readme.md", "changelog.md"))
      assert.deepStrictEqual(jsonOf(yield* search("**/*.{[jt]s,[jt]sx}")), matches("src/d.jsx", "src/e.ts"))
    }))

  it.effect.prop(
    "a pattern with at most 16 * is searched, and one with more is refused",
    [Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 40 }))],
    ([stars]) =>
      Effect.scoped(Effect.gen(function*() {
        const box = yield* sandbox
        writeFiles(box.root, { "x.txt": "" })
        const set = yield* build({ root: box.root })
        const result = yield* call(set, "search_files", { pattern: `x${"*".repeat(stars)}` })
        assert.deepStrictEqual(
          seen(result),
          stars > 16
            ? starsRefused
            : { status: "success", kind: undefined, blocks: [{ path: ".", matches: ["x.txt"], truncated: false }] }
        )
      })),
    { timeout: 60_000, arbitrary: { runs: 60 } }
  )

  it.effect("a costly pattern stops the search once its matching work is spent, and says so", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      // 5000 names of 255 characters against a glob of 139 characters that expands to 8: each name may cost
      // 8 × 139 × 256 steps, so the budget of 300,000,000 is spent after 1053 of them. (This glob fails at its first
      // character: what counts is what a name may cost, so that the bound holds whatever the names.)
      const entries = Array.from({ length: 5000 }, (_, i) => ({
        name: `${"a".repeat(250)}${String(i).padStart(5, "0")}`,
        type: "File" as const
      }))
      const set = yield* build({ root: box.root }, rootListing(box, entries))
      const pattern = `z${"a".repeat(120)}*{b,c,d,e,f,g,h,i}`
      assert.deepStrictEqual(jsonOf(yield* call(set, "search_files", { pattern })), {
        path: ".",
        matches: [],
        truncated: true,
        reason: "the pattern is costly to match, and the search stopped after looking at 1053 entries"
      })
    }))

  it.effect("a search stops after looking at 100000 entries, however many a folder has", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const entries = Array.from({ length: 150_000 }, (_, i) => ({ name: `f${i}`, type: "File" as const }))
      const set = yield* build({ root: box.root, maxResults: 1_000_000 }, rootListing(box, entries))
      const result = jsonOf(yield* call(set, "search_files", { pattern: "f" })) as {
        matches: Array<string>
        truncated: boolean
        reason: string
      }
      assert.deepStrictEqual([result.matches.length, result.truncated, result.reason], [
        100_000,
        true,
        "the search stopped after looking at 100000 entries"
      ])
    }), 60_000)

  it.effect("a long search gives other fibers a turn, and can be interrupted midway", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const listed = yield* Deferred.make<void>()
      let reachedTheEnd = false
      // 50,000 names, then one of unknown type, which the search looks up: only if it got that far.
      const entries = [
        ...Array.from({ length: 50_000 }, (_, i) => ({ name: `f${i}`, type: "File" as const })),
        { name: "zz-last", type: "Unknown" as const }
      ]
      const fileSystem = changedFileSystem((fs) => ({
        ...fs,
        readDirectoryEntries: (at) =>
          reaches(box.root)(at) ? Effect.as(Deferred.succeed(listed, undefined), entries) : fs.readDirectoryEntries(at),
        lstat: (at) =>
          Effect.suspend(() => {
            if (at.endsWith("/zz-last")) reachedTheEnd = true
            return fs.lstat(at)
          })
      }))
      const set = yield* build({ root: box.root }, fileSystem)
      // A pattern that matches nothing, so that only the end of the entries (or an interruption) ends the search.
      const search = yield* Effect.forkChild(call(set, "search_files", { pattern: "no-such-name" }))
      yield* Deferred.await(listed)
      // The search goes on from its listing, and this fiber gets a turn only when the search gives one.
      yield* Effect.yieldNow
      yield* Fiber.interrupt(search)
      const exit = yield* Fiber.await(search)
      assert.deepStrictEqual([Exit.hasInterrupts(exit), reachedTheEnd], [true, false])
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// hard links
// ---------------------------------------------------------------------------------------------------------------------

describe("files with other names (hard links)", () => {
  const descriptionOf = (set: ToolSet.Any, name: string) => Option.getOrThrow(ToolSet.get(set, name)).description

  const hardLinked = (shown: string) =>
    denied(
      `${JSON.stringify(shown)} is refused: the file has other names (hard links), which may lie outside the root ` +
        "folder"
    )

  it.effect("read_file and edit_file refuse a file with other names, which no path check can place", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      linkSync(box.inOutside("secret.txt"), box.inRoot("hard.txt"))
      // Two names inside the root are refused as well: nothing in the file says where its other names are.
      writeFiles(box.root, { "inside.txt": "inside" })
      linkSync(box.inRoot("inside.txt"), box.inRoot("inside-too.txt"))
      const set = yield* build({ root: box.root, write: true })
      for (const path of ["hard.txt", "inside.txt"]) {
        const read = yield* call(set, "read_file", { path })
        assert.deepStrictEqual(seen(read), hardLinked(path))
        assertNoLeak(read, box)
        const edit = yield* call(set, "edit_file", { path, old_text: "TOP SECRET", new_text: "edited" })
        assert.deepStrictEqual(seen(edit), hardLinked(path))
      }
      assertOutsideUntouched(box)
      assert.include(descriptionOf(set, "read_file"), "A file with other names (hard links) is refused.")
    }))

  it.effect("with allowHardLinks: true, such a file is read like any other", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "inside.txt": "inside" })
      linkSync(box.inRoot("inside.txt"), box.inRoot("inside-too.txt"))
      const set = yield* build({ root: box.root, allowHardLinks: true })
      assert.deepStrictEqual(seen(yield* call(set, "read_file", { path: "inside-too.txt" })).blocks, ["inside"])
      assert.notInclude(descriptionOf(set, "read_file"), "hard links")
    }))

  it.effect("allowHardLinks must be true or false", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const error = yield* Effect.flip(
        filesystem({ root: box.root, allowHardLinks: "yes" as unknown as boolean }).pipe(
          Effect.provide(NodeServices.layer)
        )
      )
      assert.instanceOf(error, BuiltinOptionsError)
      assert.deepStrictEqual({ option: error.option, message: error.message }, {
        option: "allowHardLinks",
        message: "allowHardLinks must be true or false, not \"yes\""
      })
    }))
})
