import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { Effect, Exit, type FileSystem, Option, type Path, PlatformError, Schema } from "effect"
import {
  chmodSync,
  linkSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync
} from "node:fs"
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import {
  BuiltinOptionsError,
  defaults,
  filesystem,
  type ReadTools,
  type SearchResult,
  type WriteTools
} from "../../src/builtin/filesystem.ts"
import { DynamicTool, type ToolSet, ToolSet as ToolSets } from "../../src/index.ts"
import {
  build,
  call,
  changedFileSystem,
  denied,
  failed,
  jsonOf,
  namesIn,
  reaches,
  sandbox,
  seen,
  succeeded,
  writeFiles
} from "./filesystem.sandbox.ts"

/** `count` empty files named by `nameOf`. */
const emptyFiles = (count: number, nameOf: (i: number) => string): Record<string, string> =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [nameOf(i), ""]))

const readNames = ["read_file", "list_directory", "search_files", "file_info"] as const
const writeNames = ["write_file", "edit_file"] as const

/** The options error `filesystem` fails with, for options it must refuse. */
const optionsError = (options: Parameters<typeof filesystem>[0]) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(filesystem(options).pipe(Effect.provide(NodeServices.layer)))
    assert.isTrue(Exit.isFailure(exit), "the options were accepted")
    const error = yield* Effect.flip(filesystem(options).pipe(Effect.provide(NodeServices.layer)))
    assert.instanceOf(error, BuiltinOptionsError)
    return { option: error.option, message: error.message }
  })

// ---------------------------------------------------------------------------------------------------------------------
// options
// ---------------------------------------------------------------------------------------------------------------------

describe("options", () => {
  it.effect("a root that does not exist is a BuiltinOptionsError naming the root", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const missing = box.inRoot("missing")
      assert.deepStrictEqual(yield* optionsError({ root: missing }), {
        option: "root",
        message: `root ${JSON.stringify(missing)} does not exist or cannot be resolved`
      })
    }))

  it.effect("a root that is a file is a BuiltinOptionsError", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "file.txt": "x" })
      const file = box.inRoot("file.txt")
      assert.deepStrictEqual(yield* optionsError({ root: file }), {
        option: "root",
        message: `root ${JSON.stringify(file)} is not a folder`
      })
    }))

  it.effect("an empty root, a root with a NUL and a root that is not a string are refused", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* optionsError({ root: "" }), {
        option: "root",
        message: "root must be the path of a folder, not \"\""
      })
      assert.strictEqual((yield* optionsError({ root: "a\u0000b" })).option, "root")
      assert.deepStrictEqual(yield* optionsError({ root: 42 as unknown as string }), {
        option: "root",
        message: "root must be the path of a folder, not 42"
      })
    }))

  it.effect("write must be a boolean", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      assert.deepStrictEqual(yield* optionsError({ root: box.root, write: "yes" as unknown as boolean }), {
        option: "write",
        message: "write must be true or false, not \"yes\""
      })
    }))

  it.effect("options that are not an object are refused", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* optionsError(null as unknown as { root: string }), {
        option: "options",
        message: "the options must be an object"
      })
    }))

  const BadLimit = Schema.Union([
    Schema.Number.check(Schema.makeFilter((n) => !(Number.isSafeInteger(n) && n >= 1))),
    Schema.Int.check(Schema.isLessThan(1))
  ])

  it.effect.prop(
    "a limit that is not a whole number of one or more is a BuiltinOptionsError naming it",
    [Schema.Literals(["maxBytes", "maxEntries", "maxResults", "maxDepth"]), BadLimit],
    ([option, value]) =>
      Effect.gen(function*() {
        const box = yield* sandbox
        const error = yield* optionsError({ root: box.root, [option]: value })
        assert.strictEqual(error.option, option)
        assert.match(error.message, new RegExp(`^${option} must be a whole number from 1 to \\d+, not `))
      }).pipe(Effect.scoped),
    { arbitrary: { runs: 60 } }
  )

  it.effect("NaN, infinities and numbers past 2^53 are refused as limits", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 2 ** 53, 0, -1, 0.5]) {
        assert.strictEqual((yield* optionsError({ root: box.root, maxResults: value })).option, "maxResults")
      }
    }))

  it.effect("maxBytes is at most 1 GiB, and a limit given as a string is refused", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      assert.deepStrictEqual(yield* optionsError({ root: box.root, maxBytes: 2 ** 30 + 1 }), {
        option: "maxBytes",
        message: `maxBytes must be a whole number from 1 to ${2 ** 30}, not ${2 ** 30 + 1}`
      })
      assert.deepStrictEqual(yield* optionsError({ root: box.root, maxEntries: "10" as unknown as number }), {
        option: "maxEntries",
        message: `maxEntries must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}, not "10"`
      })
    }))

  it.effect.prop(
    "any whole number of one or more is accepted as a limit",
    [Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 2 ** 30 }))],
    ([value]) =>
      Effect.gen(function*() {
        const box = yield* sandbox
        const limits = { maxBytes: value, maxEntries: value, maxResults: value, maxDepth: value }
        const set = yield* build({ root: box.root, ...limits })
        assert.deepStrictEqual(ToolSets.names(set), readNames)
      }).pipe(Effect.scoped),
    { arbitrary: { runs: 20 } }
  )

  it.effect("the defaults are 1 MiB, 1000 entries, 200 results and 16 levels", () =>
    Effect.sync(() =>
      assert.deepStrictEqual(defaults, { maxBytes: 1048576, maxEntries: 1000, maxResults: 200, maxDepth: 16 })
    ))

  it.effect("a root reached through a symbolic link works, and its real path is the boundary", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "through the link" })
      symlinkSync(box.root, join(box.base, "root-link"))
      const set = yield* build({ root: join(box.base, "root-link") })
      assert.deepStrictEqual(seen(yield* call(set, "read_file", { path: "a.txt" })), succeeded("through the link"))
      assert.strictEqual(seen(yield* call(set, "read_file", { path: "../outside/secret.txt" })).status, "denied")
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// the set
// ---------------------------------------------------------------------------------------------------------------------

describe("the tool set", () => {
  it.effect("without write: true it has exactly the four read tools, all portable", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(ToolSets.names(set), readNames)
      assert.isTrue(set.tools.every(DynamicTool.isPortable))
    }))

  it.effect("with write: true it also has write_file and edit_file", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const set = yield* build({ root: box.root, write: true })
      assert.deepStrictEqual(ToolSets.names(set), [...readNames, ...writeNames])
      assert.isTrue(set.tools.every(DynamicTool.isPortable))
    }))

  it.effect("calling a write tool without write: true is not_found, and writes nothing", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "before" })
      for (const write of [undefined, false] as const) {
        const set = yield* build({ root: box.root, write })
        const written = yield* call(set, "write_file", { path: "a.txt", content: "after" })
        const edited = yield* call(set, "edit_file", { path: "a.txt", old_text: "before", new_text: "after" })
        const created = yield* call(set, "write_file", { path: "new.txt", content: "x" })
        for (const result of [written, edited, created]) {
          assert.deepStrictEqual([result.status, seen(result).kind], ["error", "not_found"])
        }
      }
      assert.strictEqual(readFileSync(box.inRoot("a.txt"), "utf8"), "before")
      assert.deepStrictEqual(namesIn(box.root), ["a.txt"])
    }))

  it.effect("each tool says whether it reads or changes, and how", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const set = yield* build({ root: box.root, write: true })
      const annotations = Object.fromEntries(set.tools.map((tool) => [tool.name, {
        readOnly: tool.annotations.readOnly,
        destructive: tool.annotations.destructive,
        idempotent: tool.annotations.idempotent,
        openWorld: tool.annotations.openWorld
      }]))
      const reads = { readOnly: true, destructive: false, idempotent: true, openWorld: false }
      assert.deepStrictEqual(annotations, {
        read_file: reads,
        list_directory: reads,
        search_files: reads,
        file_info: reads,
        write_file: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
        edit_file: { readOnly: false, destructive: true, idempotent: false, openWorld: false }
      })
    }))

  it.effect("the descriptions state the limits the set was built with", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const limits = { maxBytes: 4321, maxEntries: 12, maxResults: 34, maxDepth: 5 }
      const set = yield* build({ root: box.root, write: true, ...limits })
      const description = (name: string) => Option.getOrThrow(ToolSets.get(set, name)).description
      assert.include(description("read_file"), "4321 bytes")
      assert.include(description("list_directory"), "12 entries")
      assert.include(description("search_files"), "34 paths")
      assert.include(description("search_files"), "5 levels")
      assert.include(description("write_file"), "4321 bytes")
      assert.include(description("edit_file"), "4321 bytes")
    }))

  it.effect("the definitions name the arguments, and the JSON tools declare their output", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const set = yield* build({ root: box.root, write: true })
      const shapes = Object.fromEntries(ToolSets.definitions(set).map((definition) => {
        const parameters = definition.parameters as { properties: Record<string, unknown>; required?: Array<string> }
        return [definition.name, {
          properties: Object.keys(parameters.properties),
          required: parameters.required ?? [],
          output: definition.outputSchema !== undefined
        }]
      }))
      assert.deepStrictEqual(shapes, {
        read_file: { properties: ["path", "offset"], required: ["path"], output: false },
        list_directory: { properties: ["path"], required: [], output: true },
        search_files: { properties: ["pattern", "path"], required: ["pattern"], output: true },
        file_info: { properties: ["path"], required: ["path"], output: true },
        write_file: { properties: ["path", "content"], required: ["path", "content"], output: true },
        edit_file: {
          properties: ["path", "old_text", "new_text"],
          required: ["path", "old_text", "new_text"],
          output: true
        }
      })
    }))

  it("the set's type has the write tools only when write: true is given", () => {
    const readOnly = () => filesystem({ root: "." })
    const readWrite = () => filesystem({ root: ".", write: true })
    const either = (write: boolean) => filesystem({ root: ".", write })
    type SetOf<T> = T extends Effect.Effect<infer S, infer _E, infer _R> ? S : never
    expectTypeOf<SetOf<ReturnType<typeof readOnly>>>().toEqualTypeOf<ToolSet.ToolSet<ReadTools>>()
    expectTypeOf<SetOf<ReturnType<typeof readWrite>>>().toEqualTypeOf<ToolSet.ToolSet<ReadTools | WriteTools>>()
    expectTypeOf<SetOf<ReturnType<typeof either>>>().toEqualTypeOf<ToolSet.ToolSet<ReadTools | WriteTools>>()
    expectTypeOf<Effect.Services<ReturnType<typeof readOnly>>>().toEqualTypeOf<FileSystem.FileSystem | Path.Path>()
    expectTypeOf<Effect.Error<ReturnType<typeof readOnly>>>().toEqualTypeOf<BuiltinOptionsError>()
  })
})


// ---------------------------------------------------------------------------------------------------------------------
// read_file
// ---------------------------------------------------------------------------------------------------------------------

describe("read_file", () => {
  it.effect("returns a file's text, as the only block", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/notes.md": "# Notes\n\nline 2 — ünïcödé\n" })
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(
        seen(yield* call(set, "read_file", { path: "docs/notes.md" })),
        succeeded("# Notes\n\nline 2 — ünïcödé\n")
      )
    }))

  it.effect("paths with . and .. that stay inside the root are fine", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/a.txt": "a", "b.txt": "b" })
      const set = yield* build({ root: box.root })
      for (const [path, text] of [["./docs/../b.txt", "b"], ["docs/./a.txt", "a"], ["docs//a.txt", "a"]]) {
        assert.deepStrictEqual(seen(yield* call(set, "read_file", { path })).blocks, [text])
      }
    }))

  it.effect("a missing file is not_found, naming the path relative to the root", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(
        seen(yield* call(set, "read_file", { path: "docs/missing.txt" })),
        failed("not_found", "\"docs/missing.txt\" does not exist")
      )
    }))

  it.effect("a path through a file is not_found, saying a part of it is a file", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "a" })
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(
        seen(yield* call(set, "read_file", { path: "a.txt/b.txt" })),
        failed("not_found", "\"a.txt/b.txt\" does not exist: a part of its path is a file, not a folder")
      )
    }))

  it.effect("a folder is invalid_args, pointing to list_directory", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      mkdirSync(box.inRoot("docs"))
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(
        seen(yield* call(set, "read_file", { path: "docs" })),
        failed("invalid_args", "\"docs\" is a folder, not a file: use list_directory")
      )
      assert.deepStrictEqual(seen(yield* call(set, "read_file", { path: "." })).blocks, [
        "\".\" is a folder, not a file: use list_directory"
      ])
    }))

  it.effect("an empty file says so", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "empty.txt": "" })
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(seen(yield* call(set, "read_file", { path: "empty.txt" })).blocks, [
        "\"empty.txt\" is empty."
      ])
    }))

  it.effect("a binary file is described, not shown", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "image.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13, 1, 2, 3]) })
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(
        seen(yield* call(set, "read_file", { path: "image.png" })),
        succeeded("\"image.png\" is a binary file of 11 bytes; it is not shown as text.")
      )
    }))

  it.effect("a file over maxBytes comes back cut, with a note saying where to read on", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "long.txt": "0123456789abcdefghijklmnopqrstuvwxyz" })
      const set = yield* build({ root: box.root, maxBytes: 10 })
      assert.deepStrictEqual(seen(yield* call(set, "read_file", { path: "long.txt" })).blocks, [
        "0123456789",
        "[Bytes 0 to 10 of 36 of \"long.txt\": the rest was cut at the 10-byte limit. Call read_file with offset 10 " +
        "to read on.]"
      ])
      assert.deepStrictEqual(seen(yield* call(set, "read_file", { path: "long.txt", offset: 30 })).blocks, [
        "uvwxyz",
        "[Bytes 30 to 36 of 36 of \"long.txt\": the end of the file.]"
      ])
    }))

  it.effect("an offset at or past the end is invalid_args", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "abc" })
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(
        seen(yield* call(set, "read_file", { path: "a.txt", offset: 3 })),
        failed("invalid_args", "offset 3 is past the end of \"a.txt\" (3 bytes)")
      )
    }))

  it.effect("a negative or fractional offset is invalid_args from the parameters", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "abc" })
      const set = yield* build({ root: box.root })
      for (const offset of [-1, 1.5, "1"]) {
        assert.deepStrictEqual(seen(yield* call(set, "read_file", { path: "a.txt", offset })).kind, "invalid_args")
      }
    }))

  /** Reads a file page by page, following the notes' offsets, and joins the pages. */
  const readAll = (set: ToolSet.Any, path: string) =>
    Effect.gen(function*() {
      let text = ""
      let offset = 0
      for (let page = 0; page < 10_000; page++) {
        const result = yield* call(set, "read_file", { path, offset })
        const blocks = seen(result).blocks as Array<string>
        assert.strictEqual(result.status, "success")
        text += blocks[0]
        const next = blocks.length === 2 ? /offset (\d+) to read on/.exec(blocks[1]) : null
        if (next === null) return text
        assert.isTrue(Number(next[1]) > offset, "a page must move forward")
        offset = Number(next[1])
      }
      throw new Error("too many pages")
    })

  it.effect.prop(
    "reading page by page, from each note's offset, gives back the whole text, whatever its characters",
    [
      Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200)),
      Schema.Int.check(Schema.isBetween({ minimum: 4, maximum: 64 }))
    ],
    ([text, maxBytes]) =>
      Effect.gen(function*() {
        // A NUL would make it binary: the property is about text.
        const content = text.replaceAll("\u0000", "0")
        const box = yield* sandbox
        writeFileSync(box.inRoot("t.txt"), content)
        const set = yield* build({ root: box.root, maxBytes })
        // Lone surrogates are written as U+FFFD, as any UTF-8 encoder does.
        assert.strictEqual(yield* readAll(set, "t.txt"), new TextDecoder().decode(new TextEncoder().encode(content)))
      }).pipe(Effect.scoped),
    { arbitrary: { runs: 100 } }
  )

  it.effect("a file is read through a symbolic link that stays inside the root", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/real.txt": "real" })
      symlinkSync("docs/real.txt", box.inRoot("link.txt"))
      symlinkSync(box.inRoot("docs"), box.inRoot("docs-link"))
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(seen(yield* call(set, "read_file", { path: "link.txt" })).blocks, ["real"])
      assert.deepStrictEqual(seen(yield* call(set, "read_file", { path: "docs-link/real.txt" })).blocks, ["real"])
    }))

  it.effect("a loop of symbolic links is invalid_args", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      symlinkSync("b", box.inRoot("a"))
      symlinkSync("a", box.inRoot("b"))
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(
        seen(yield* call(set, "read_file", { path: "a" })),
        failed("invalid_args", "\"a\" cannot be resolved: it leads through a loop of symbolic links")
      )
    }))

  it.effect("a path over 4096 characters is invalid_args", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const set = yield* build({ root: box.root })
      assert.strictEqual(seen(yield* call(set, "read_file", { path: "a/".repeat(2049) })).kind, "invalid_args")
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// list_directory
// ---------------------------------------------------------------------------------------------------------------------

describe("list_directory", () => {
  it.effect("lists a folder's entries sorted by name, with types, and sizes for files", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "b.txt": "12345", "a.md": "", "docs/x.txt": "x" })
      symlinkSync("b.txt", box.inRoot("link"))
      execFileSync("mkfifo", [box.inRoot("pipe")])
      const set = yield* build({ root: box.root })
      const expected = {
        path: ".",
        entries: [
          { name: "a.md", type: "file", size: 0 },
          { name: "b.txt", type: "file", size: 5 },
          { name: "docs", type: "directory" },
          { name: "link", type: "symlink" },
          { name: "pipe", type: "fifo" }
        ],
        total: 5,
        truncated: false
      }
      assert.deepStrictEqual(jsonOf(yield* call(set, "list_directory", {})), expected)
      assert.deepStrictEqual(jsonOf(yield* call(set, "list_directory", { path: "." })), expected)
      assert.deepStrictEqual(jsonOf(yield* call(set, "list_directory", { path: "" })), expected)
      assert.deepStrictEqual(jsonOf(yield* call(set, "list_directory", { path: "docs" })), {
        path: "docs",
        entries: [{ name: "x.txt", type: "file", size: 1 }],
        total: 1,
        truncated: false
      })
    }))

  it.effect("lists at most maxEntries, and says how many there are", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, emptyFiles(30, (i) => `f${String(i).padStart(2, "0")}`))
      const set = yield* build({ root: box.root, maxEntries: 10 })
      const listing = jsonOf(yield* call(set, "list_directory", {})) as { entries: Array<{ name: string }> }
      assert.deepStrictEqual({ ...listing, entries: listing.entries.map((entry) => entry.name) }, {
        path: ".",
        entries: ["f00", "f01", "f02", "f03", "f04", "f05", "f06", "f07", "f08", "f09"],
        total: 30,
        truncated: true
      })
    }))

  it.effect("a file is invalid_args, and a missing folder not_found", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "" })
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(
        seen(yield* call(set, "list_directory", { path: "a.txt" })),
        failed("invalid_args", "\"a.txt\" is not a folder: use read_file or file_info")
      )
      assert.deepStrictEqual(seen(yield* call(set, "list_directory", { path: "nope" })).kind, "not_found")
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// search_files
// ---------------------------------------------------------------------------------------------------------------------

describe("search_files", () => {
  const tree = {
    "README.md": "",
    "notes.txt": "",
    "docs/Notes.md": "",
    "docs/guide/intro.md": "",
    "src/main.ts": "",
    "src/lib/util.ts": "",
    "src/lib/util.test.ts": "",
    ".hidden/notes.md": ""
  }

  const search = (set: ToolSet.Any, args: object) =>
    Effect.map(call(set, "search_files", args), (result) => jsonOf(result) as SearchResult)

  it.effect("text without glob syntax matches names case-insensitively, at any depth", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, tree)
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(yield* search(set, { pattern: "NOTES" }), {
        path: ".",
        matches: ["notes.txt", ".hidden/notes.md", "docs/Notes.md"],
        truncated: false
      })
    }))

  it.effect("a glob without / matches names; with / it matches paths; folders end with /", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, tree)
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual((yield* search(set, { pattern: "*.md" })).matches, [
        "README.md",
        ".hidden/notes.md",
        "docs/Notes.md",
        "docs/guide/intro.md"
      ])
      assert.deepStrictEqual((yield* search(set, { pattern: "src/**/*.ts" })).matches, [
        "src/main.ts",
        "src/lib/util.test.ts",
        "src/lib/util.ts"
      ])
      assert.deepStrictEqual((yield* search(set, { pattern: "**/*.test.ts" })).matches, [
        "src/lib/util.test.ts"
      ])
      assert.deepStrictEqual((yield* search(set, { pattern: "lib/*.ts", path: "src" })).matches, [
        "src/lib/util.test.ts",
        "src/lib/util.ts"
      ])
      assert.deepStrictEqual((yield* search(set, { pattern: "gui?e" })).matches, ["docs/guide/"])
    }))

  it.effect("stops at maxResults, and says so", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, emptyFiles(20, (i) => `m${String(i).padStart(2, "0")}.txt`))
      const set = yield* build({ root: box.root, maxResults: 5 })
      assert.deepStrictEqual(yield* search(set, { pattern: "*.txt" }), {
        path: ".",
        matches: ["m00.txt", "m01.txt", "m02.txt", "m03.txt", "m04.txt"],
        truncated: true,
        reason: "more than 5 paths match; the first 5 are listed"
      })
      // Exactly maxResults matches is complete.
      const exact = yield* build({ root: box.root, maxResults: 20 })
      assert.strictEqual((yield* search(exact, { pattern: "*.txt" })).truncated, false)
    }))

  it.effect("descends at most maxDepth levels, and says so", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "x1.txt": "", "a/x2.txt": "", "a/b/x3.txt": "", "a/b/c/x4.txt": "" })
      const set = yield* build({ root: box.root, maxDepth: 2 })
      assert.deepStrictEqual(yield* search(set, { pattern: "x" }), {
        path: ".",
        matches: ["x1.txt", "a/x2.txt"],
        truncated: true,
        reason: "folders more than 2 levels deep were not searched"
      })
    }))

  it.effect("symbolic links are matched but never followed: a loop ends, and a link out shows nothing outside", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/a.txt": "" })
      writeFiles(box.outside, { "outside-match.txt": "" })
      symlinkSync(box.root, box.inRoot("docs/loop"))
      symlinkSync(box.outside, box.inRoot("out"))
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(yield* search(set, { pattern: "*" }), {
        path: ".",
        matches: ["docs/", "out", "docs/a.txt", "docs/loop"],
        truncated: false
      })
      assert.deepStrictEqual((yield* search(set, { pattern: "match" })).matches, [])
    }))

  it.effect("too many {…} groups, an empty or overlong pattern, and a file to search in are invalid_args", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "" })
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(
        seen(yield* call(set, "search_files", { pattern: "{a,b}{a,b}{a,b}{a,b}" })),
        failed(
          "invalid_args",
          "a pattern's {…} groups must not be nested, and may give at most 8 alternatives in all ({a,b}.{c,d} gives 4)"
        )
      )
      const manyAlternatives = `{${"a,".repeat(40)}b}`
      assert.strictEqual(seen(yield* call(set, "search_files", { pattern: manyAlternatives })).kind, "invalid_args")
      assert.strictEqual(seen(yield* call(set, "search_files", { pattern: "" })).kind, "invalid_args")
      assert.strictEqual(seen(yield* call(set, "search_files", { pattern: "a".repeat(257) })).kind, "invalid_args")
      assert.deepStrictEqual(seen(yield* call(set, "search_files", { pattern: "a", path: "a.txt" })).blocks, [
        "\"a.txt\" is not a folder: use read_file or file_info"
      ])
      // Two groups are fine.
      assert.deepStrictEqual(jsonOf(yield* call(set, "search_files", { pattern: "{a,b}.{txt,md}" })), {
        path: ".",
        matches: ["a.txt"],
        truncated: false
      })
    }))
  /**
   * Node's file system, except that listing the folders `locked` picks (however they are reached) is denied, as the
   * operating system denies a folder of another user's; whoever runs the test (root may list all).
   */
  const lockedFolders = (locked: (at: string) => boolean) =>
    changedFileSystem((fs) => ({
      ...fs,
      readDirectoryEntries: (at) =>
        locked(at)
          ? Effect.fail(
            PlatformError.systemError({
              _tag: "PermissionDenied",
              module: "FileSystem",
              method: "readDirectoryEntries",
              pathOrDescriptor: at
            })
          )
          : fs.readDirectoryEntries(at)
    }))

  it.effect("folders below that cannot be read are gone on past, counted, and make the search truncated", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, {
        "a-match.txt": "",
        "docs/match.md": "",
        "docs/locked/match.txt": "",
        "src/locked/deeper/match.ts": "",
        "src/open/match.ts": ""
      })
      const locked = [box.inRoot("docs/locked"), box.inRoot("src/locked")].map(reaches)
      const set = yield* build({ root: box.root }, lockedFolders((at) => locked.some((reached) => reached(at))))
      assert.deepStrictEqual(yield* search(set, { pattern: "match" }), {
        path: ".",
        matches: ["a-match.txt", "docs/match.md", "src/open/match.ts"],
        truncated: true,
        reason: "2 folders could not be read"
      })
      assert.deepStrictEqual(yield* search(set, { pattern: "match", path: "docs" }), {
        path: "docs",
        matches: ["docs/match.md"],
        truncated: true,
        reason: "1 folder could not be read"
      })
    }))

  it.effect("a start folder that cannot be read fails as list_directory fails for it", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/locked/match.txt": "" })
      const set = yield* build({ root: box.root }, lockedFolders(reaches(box.inRoot("docs/locked"))))
      const refusal = failed("permission_denied", "the operating system denied access to \"docs/locked\"")
      assert.deepStrictEqual(seen(yield* call(set, "list_directory", { path: "docs/locked" })), refusal)
      assert.deepStrictEqual(seen(yield* call(set, "search_files", { pattern: "match", path: "docs/locked" })), refusal)
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// file_info
// ---------------------------------------------------------------------------------------------------------------------

describe("file_info", () => {
  it.effect("describes a file and a folder without opening them", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/a.txt": "hello" })
      chmodSync(box.inRoot("docs/a.txt"), 0o640)
      utimesSync(box.inRoot("docs/a.txt"), new Date("2020-01-02T03:04:05.000Z"), new Date("2021-02-03T04:05:06.789Z"))
      const set = yield* build({ root: box.root })
      const file = jsonOf(yield* call(set, "file_info", { path: "docs/a.txt" })) as Record<string, unknown>
      assert.deepStrictEqual(file, {
        path: "docs/a.txt",
        type: "file",
        size: 5,
        modified: "2021-02-03T04:05:06.789Z",
        // Not every file system keeps a creation time.
        ...(file.created !== undefined
          ? { created: statSync(box.inRoot("docs/a.txt"), { bigint: true }).birthtime.toISOString() }
          : {}),
        permissions: "640"
      })
      const folder = jsonOf(yield* call(set, "file_info", { path: "docs" })) as Record<string, unknown>
      assert.deepStrictEqual([folder.path, folder.type], ["docs", "directory"])
    }))

  it.effect("shows the resolved path of a link inside the root", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/a.txt": "hello" })
      symlinkSync("docs/a.txt", box.inRoot("link"))
      const set = yield* build({ root: box.root })
      const info = jsonOf(yield* call(set, "file_info", { path: "link" })) as Record<string, unknown>
      assert.deepStrictEqual([info.path, info.type, info.size], ["docs/a.txt", "file", 5])
    }))

  it.effect("a missing path is not_found", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(
        seen(yield* call(set, "file_info", { path: "gone" })),
        failed("not_found", "\"gone\" does not exist")
      )
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// write_file
// ---------------------------------------------------------------------------------------------------------------------

describe("write_file", () => {
  it.effect("creates a file, and the folders on its way", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const set = yield* build({ root: box.root, write: true })
      assert.deepStrictEqual(jsonOf(yield* call(set, "write_file", { path: "a/b/new.txt", content: "héllo" })), {
        path: "a/b/new.txt",
        bytes: 6,
        created: true
      })
      assert.strictEqual(readFileSync(box.inRoot("a/b/new.txt"), "utf8"), "héllo")
      assert.deepStrictEqual(namesIn(box.inRoot("a/b")), ["new.txt"])
    }))

  it.effect("replaces a file whole, by a rename: a new inode, its permissions kept, no temporary file left", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "old content" })
      chmodSync(box.inRoot("a.txt"), 0o600)
      const before = statSync(box.inRoot("a.txt")).ino
      const set = yield* build({ root: box.root, write: true })
      assert.deepStrictEqual(jsonOf(yield* call(set, "write_file", { path: "a.txt", content: "new" })), {
        path: "a.txt",
        bytes: 3,
        created: false
      })
      const after = statSync(box.inRoot("a.txt"))
      assert.deepStrictEqual(
        [readFileSync(box.inRoot("a.txt"), "utf8"), after.ino === before, after.mode & 0o777, namesIn(box.root)],
        ["new", false, 0o600, ["a.txt"]]
      )
    }))

  it.effect("never writes into a file that another name shares (a hard link outside the root keeps its content)", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.outside, { "shared.txt": "outside content" })
      linkSync(box.inOutside("shared.txt"), box.inRoot("shared.txt"))
      const set = yield* build({ root: box.root, write: true })
      assert.strictEqual((yield* call(set, "write_file", { path: "shared.txt", content: "changed" })).status, "success")
      assert.deepStrictEqual(
        [readFileSync(box.inRoot("shared.txt"), "utf8"), readFileSync(box.inOutside("shared.txt"), "utf8")],
        ["changed", "outside content"]
      )
    }))

  it.effect("content over maxBytes is invalid_args, and nothing is written", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const set = yield* build({ root: box.root, write: true, maxBytes: 4 })
      assert.deepStrictEqual(
        seen(yield* call(set, "write_file", { path: "a.txt", content: "héllo" })),
        failed("invalid_args", "the new content is 6 bytes; files are written up to 4")
      )
      assert.deepStrictEqual(namesIn(box.root), [])
      assert.strictEqual((yield* call(set, "write_file", { path: "a.txt", content: "four" })).status, "success")
    }))

  it.effect("a folder, the root itself and a FIFO are not written", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      mkdirSync(box.inRoot("docs"))
      execFileSync("mkfifo", [box.inRoot("pipe")])
      const set = yield* build({ root: box.root, write: true })
      assert.deepStrictEqual(seen(yield* call(set, "write_file", { path: "docs", content: "x" })).blocks, [
        "\"docs\" is a folder, not a file"
      ])
      for (const path of [".", "", "docs/.."]) {
        assert.deepStrictEqual(seen(yield* call(set, "write_file", { path, content: "x" })).blocks, [
          "the root folder is not a file: give a file's path"
        ])
      }
      assert.deepStrictEqual(
        seen(yield* call(set, "write_file", { path: "pipe", content: "x" })),
        denied("\"pipe\" is not a regular file")
      )
      // A path written as a folder's is refused, whether the folder is there or not: no file takes its name.
      for (const [path, shown] of [["notes/", "notes"], ["notes/.", "notes"], ["docs/", "docs"], ["docs/x/..", "docs"]]) {
        assert.deepStrictEqual(seen(yield* call(set, "write_file", { path, content: "x" })).blocks, [
          `"${shown}" is written as a folder's path: give a file's path`
        ], path)
      }
      assert.deepStrictEqual(namesIn(box.root), ["docs", "pipe"])
    }))

  it.effect("a path through a file is not_found", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "" })
      const set = yield* build({ root: box.root, write: true })
      const result = yield* call(set, "write_file", { path: "a.txt/b.txt", content: "x" })
      assert.deepStrictEqual(seen(result).kind, "not_found")
    }))

  it.effect("a file the operating system will not let be written is permission_denied", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "locked.txt": "kept" })
      // A file system that says what a read-only file gets from `access`, whoever runs the test (root may write all).
      const fileSystem = changedFileSystem((fs) => ({
        ...fs,
        access: (path, options) =>
          path === box.inRoot("locked.txt") && options?.writable === true
            ? Effect.fail(
              PlatformError.systemError({ _tag: "PermissionDenied", module: "FileSystem", method: "access" })
            )
            : fs.access(path, options)
      }))
      const set = yield* build({ root: box.root, write: true }, fileSystem)
      assert.deepStrictEqual(
        seen(yield* call(set, "write_file", { path: "locked.txt", content: "x" })),
        failed("permission_denied", "\"locked.txt\" is read-only")
      )
      assert.strictEqual(readFileSync(box.inRoot("locked.txt"), "utf8"), "kept")
    }))

  it.effect("a failure while writing leaves no temporary file, and the old content", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "old" })
      const fileSystem = changedFileSystem((fs) => ({
        ...fs,
        rename: () =>
          Effect.fail(PlatformError.systemError({ _tag: "Unknown", module: "FileSystem", method: "rename" }))
      }))
      const set = yield* build({ root: box.root, write: true }, fileSystem)
      assert.deepStrictEqual(
        seen(yield* call(set, "write_file", { path: "a.txt", content: "new" })),
        failed("other", "\"a.txt\" could not be written")
      )
      assert.deepStrictEqual([namesIn(box.root), readFileSync(box.inRoot("a.txt"), "utf8")], [["a.txt"], "old"])
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// edit_file
// ---------------------------------------------------------------------------------------------------------------------

describe("edit_file", () => {
  it.effect("replaces the one occurrence of old_text", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.md": "# Title\n\nfirst line\nsecond line\n" })
      const set = yield* build({ root: box.root, write: true })
      const result = yield* call(set, "edit_file", { path: "a.md", old_text: "first line", new_text: "1st line" })
      assert.deepStrictEqual(jsonOf(result), { path: "a.md", bytes: 30, created: false })
      assert.strictEqual(readFileSync(box.inRoot("a.md"), "utf8"), "# Title\n\n1st line\nsecond line\n")
      assert.deepStrictEqual(namesIn(box.root), ["a.md"])
    }))

  it.effect("old_text that is missing or occurs twice is invalid_args, and the file is unchanged", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "aaa line\nline\n" })
      const set = yield* build({ root: box.root, write: true })
      assert.deepStrictEqual(
        seen(yield* call(set, "edit_file", { path: "a.txt", old_text: "nope", new_text: "x" })),
        failed(
          "invalid_args",
          "old_text was not found in \"a.txt\"; it must match the file exactly, whitespace included"
        )
      )
      assert.deepStrictEqual(
        seen(yield* call(set, "edit_file", { path: "a.txt", old_text: "line", new_text: "x" })),
        failed(
          "invalid_args",
          "old_text occurs more than once in \"a.txt\"; include more of the text around it so that it matches " +
            "exactly once"
        )
      )
      // Overlapping occurrences count as more than one.
      const edit = (old_text: string) => call(set, "edit_file", { path: "a.txt", old_text, new_text: "x" })
      assert.strictEqual(seen(yield* edit("aa")).kind, "invalid_args")
      assert.strictEqual(seen(yield* edit("")).kind, "invalid_args")
      assert.strictEqual(readFileSync(box.inRoot("a.txt"), "utf8"), "aaa line\nline\n")
    }))

  it.effect("a file over maxBytes, a binary file and a file that is not UTF-8 are not edited", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, {
        "big.txt": "x".repeat(20),
        "bin.dat": new Uint8Array([0x61, 0, 0x62]),
        "latin1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9])
      })
      const set = yield* build({ root: box.root, write: true, maxBytes: 10 })
      const edit = (path: string) => call(set, "edit_file", { path, old_text: "a", new_text: "b" })
      assert.deepStrictEqual(seen(yield* edit("big.txt")).blocks, [
        "\"big.txt\" is larger than 10 bytes: too large to edit"
      ])
      assert.deepStrictEqual(seen(yield* edit("bin.dat")).blocks, ["\"bin.dat\" is a binary file: it cannot be edited"])
      assert.deepStrictEqual(seen(yield* edit("latin1.txt")).blocks, [
        "\"latin1.txt\" is not UTF-8 text: it cannot be edited"
      ])
      assert.deepStrictEqual([...readFileSync(box.inRoot("latin1.txt"))], [0x63, 0x61, 0x66, 0xe9])
    }))

  it.effect("an edit that would grow the file over maxBytes is invalid_args", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "abc" })
      const set = yield* build({ root: box.root, write: true, maxBytes: 5 })
      const result = yield* call(set, "edit_file", { path: "a.txt", old_text: "b", new_text: "bbbbb" })
      assert.deepStrictEqual(seen(result).blocks, [
        "the new content is 7 bytes; files are written up to 5"
      ])
      assert.strictEqual(readFileSync(box.inRoot("a.txt"), "utf8"), "abc")
    }))

  it.effect("a byte order mark is kept", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "bom.txt": "\uFEFFhello" })
      const set = yield* build({ root: box.root, write: true })
      const result = yield* call(set, "edit_file", { path: "bom.txt", old_text: "hello", new_text: "bye" })
      assert.strictEqual(result.status, "success")
      assert.deepStrictEqual([...readFileSync(box.inRoot("bom.txt"))], [0xef, 0xbb, 0xbf, 0x62, 0x79, 0x65])
    }))

  it.effect("a missing file is not_found", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const set = yield* build({ root: box.root, write: true })
      const result = yield* call(set, "edit_file", { path: "a.txt", old_text: "a", new_text: "b" })
      assert.deepStrictEqual(seen(result).kind, "not_found")
      assert.deepStrictEqual(namesIn(box.root), [])
    }))

  it.effect("a file changed by someone else between the read and the write is not overwritten", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "original text" })
      let changed = false
      // Another writer changes the file while the edit is being made: just before the temporary file is renamed.
      const fileSystem = changedFileSystem((fs) => ({
        ...fs,
        lstat: (path) =>
          Effect.suspend(() => {
            if (!changed && path.endsWith(".tmp")) {
              changed = true
              writeFileSync(box.inRoot("a.txt"), "someone else's text, longer")
            }
            return fs.lstat(path)
          })
      }))
      const set = yield* build({ root: box.root, write: true }, fileSystem)
      const result = yield* call(set, "edit_file", { path: "a.txt", old_text: "original", new_text: "edited" })
      assert.isTrue(changed)
      assert.deepStrictEqual(
        seen(result),
        failed("invalid_args", "\"a.txt\" changed while it was being edited; read it again and retry")
      )
      assert.deepStrictEqual(
        [readFileSync(box.inRoot("a.txt"), "utf8"), namesIn(box.root)],
        ["someone else's text, longer", ["a.txt"]]
      )
    }))
})
