/**
 * The filesystem tools attacked the ways such tools have been escaped: path text that climbs out or hides a climb,
 * links out of the root, special files, huge files, and files swapped between the check and the use. Every attack
 * runs through `ToolSet.execute`, and every result is checked for what it must never show: the secret outside the
 * root, or any absolute path.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Arbitrary, Effect, Schema } from "effect"
import type { ToolSet } from "../../src/index.ts"
import { execFileSync } from "node:child_process"
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
  writeSync
} from "node:fs"
import { createServer } from "node:net"
import {
  assertNoLeak,
  build,
  call,
  changedFileSystem,
  denied,
  failed,
  jsonOf,
  makeSandbox,
  namesIn,
  removeSandbox,
  type Sandbox,
  sandbox,
  secret,
  type Seen,
  seen,
  succeeded,
  swapAfter,
  writeFiles
} from "./filesystem.sandbox.ts"

const outsideRoot = "the path leads outside the root folder; paths stay under it"
const absoluteRefused = "absolute paths are refused: give a path relative to the root folder, such as \"docs/notes.md\""

/** The folder outside the root is as the sandbox made it: nothing written, created or removed there. */
const assertOutsideUntouched = (box: Sandbox, extra: ReadonlyArray<string> = []) => {
  assert.deepStrictEqual(namesIn(box.outside), ["secret.txt", ...extra].sort())
  assert.strictEqual(readFileSync(box.inOutside("secret.txt"), "utf8"), secret)
}

/** Each tool that takes a path, called with `path`, with what the rest of its arguments need. */
const everyTool = (path: string) => [
  ["read_file", { path }],
  ["file_info", { path }],
  ["list_directory", { path }],
  ["search_files", { path, pattern: "secret" }],
  ["write_file", { path, content: "written by an attack" }],
  ["edit_file", { path, old_text: "TOP SECRET", new_text: "edited by an attack" }]
] as const

/**
 * Calls each tool of `calls`: every one must show the model `expected`, and show nothing of the secret or of the
 * sandbox's absolute paths.
 */
const assertEachAnswers = (
  box: Sandbox,
  set: ToolSet.Any,
  calls: ReadonlyArray<ReturnType<typeof everyTool>[number]>,
  expected: Seen
) =>
  Effect.gen(function*() {
    for (const [name, args] of calls) {
      const result = yield* call(set, name, args)
      assert.deepStrictEqual(seen(result), expected, `${name} ${JSON.stringify(args.path)}`)
      assertNoLeak(result, box)
    }
  })

// ---------------------------------------------------------------------------------------------------------------------
// path text
// ---------------------------------------------------------------------------------------------------------------------

describe("path text that climbs out of the root", () => {
  const climbs = [
    "..",
    "../",
    "../outside/secret.txt",
    "../../../../../../../../etc/passwd",
    "a/../../outside/secret.txt",
    "./../outside/secret.txt",
    "docs/../../outside/secret.txt",
    "docs/./../../outside",
    "../root/../outside/secret.txt"
  ]

  it.effect("a .. that climbs above the root is refused by every tool, and nothing outside changes", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      mkdirSync(box.inRoot("docs"))
      const set = yield* build({ root: box.root, write: true })
      for (const path of climbs) yield* assertEachAnswers(box, set, everyTool(path), denied(outsideRoot))
      assertOutsideUntouched(box)
    }))

  it.effect("an absolute path is refused by every tool, even one that points into the root", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "inside.txt": "inside" })
      const set = yield* build({ root: box.root, write: true })
      for (const path of ["/etc/passwd", box.inOutside("secret.txt"), "//etc/passwd", box.inRoot("inside.txt"), "/"]) {
        yield* assertEachAnswers(box, set, everyTool(path), denied(absoluteRefused))
      }
      assertOutsideUntouched(box)
      assert.strictEqual(readFileSync(box.inRoot("inside.txt"), "utf8"), "inside")
    }))

  it.effect("a path with a NUL character is invalid_args, whatever follows it", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "a" })
      const set = yield* build({ root: box.root, write: true })
      const refusal = failed("invalid_args", "a path must not contain a NUL character")
      for (const path of ["a.txt\u0000.png", "../outside/secret.txt\u0000", "\u0000", "a.txt\u0000/../../outside"]) {
        yield* assertEachAnswers(box, set, everyTool(path), refusal)
      }
      assertOutsideUntouched(box)
    }))
})

describe("encoded and look-alike climbs are names, never decoded", () => {
  const lookAlikes = [
    "%2e%2e%2foutside%2fsecret.txt",
    "%2e%2e/outside/secret.txt",
    "..%2foutside%2fsecret.txt",
    "%252e%252e%252foutside",
    "..%c0%afoutside%c0%afsecret.txt",
    "．．／outside／secret.txt",
    "．．/outside/secret.txt",
    "\u2024\u2024/outside/secret.txt",
    "..\u2215outside\u2215secret.txt",
    "..\\outside\\secret.txt",
    "..."
  ]

  it.effect("URL-encoded, full-width and other look-alike climbs are not_found: they name nothing in the root", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const set = yield* build({ root: box.root })
      for (const path of lookAlikes) {
        const result = yield* call(set, "read_file", { path })
        assert.deepStrictEqual(seen(result), failed("not_found", `${JSON.stringify(path)} does not exist`))
        assertNoLeak(result, box)
      }
    }))

  it.effect("a file whose name looks like a climb is read as the file it is", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const names = ["%2e%2e%2fsecret.txt", "．．／secret.txt", "..\\secret.txt", "...", "..%2f"]
      writeFiles(box.root, Object.fromEntries(names.map((name) => [name, `the file named ${name}`])))
      const set = yield* build({ root: box.root, write: true })
      for (const name of names) {
        assert.deepStrictEqual(seen(yield* call(set, "read_file", { path: name })).blocks, [`the file named ${name}`])
        assert.deepStrictEqual(
          jsonOf(yield* call(set, "write_file", { path: name, content: "rewritten" })),
          { path: name, bytes: 9, created: false }
        )
      }
      assert.deepStrictEqual(namesIn(box.root), [...names].sort())
      assertOutsideUntouched(box)
    }))

  it.effect("Unicode forms are not normalized: an NFD name is the file the file system says it is", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const nfc = "caf\u00e9.txt"
      const nfd = "cafe\u0301.txt"
      writeFiles(box.root, { [nfc]: "composed" })
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(seen(yield* call(set, "read_file", { path: nfc })).blocks, ["composed"])
      // Linux keeps bytes as they are (two names); macOS file systems treat both forms as one name.
      const expected = existsSync(box.inRoot(nfd))
        ? succeeded("composed")
        : failed("not_found", `${JSON.stringify(nfd)} does not exist`)
      assert.deepStrictEqual(seen(yield* call(set, "read_file", { path: nfd })), expected)
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// symbolic links
// ---------------------------------------------------------------------------------------------------------------------

describe("symbolic links out of the root", () => {
  const throughLink = (shown: string) =>
    denied(`${JSON.stringify(shown)} leads outside the root folder through a symbolic link`)

  it.effect("a link to a file outside is refused by every tool that follows it, and the file is untouched", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      symlinkSync(box.inOutside("secret.txt"), box.inRoot("absolute-link.txt"))
      symlinkSync("../outside/secret.txt", box.inRoot("relative-link.txt"))
      const set = yield* build({ root: box.root, write: true })
      for (const link of ["absolute-link.txt", "relative-link.txt"]) {
        const following = everyTool(link).filter(([name]) => name !== "list_directory" && name !== "search_files")
        yield* assertEachAnswers(box, set, following, throughLink(link))
      }
      assertOutsideUntouched(box)
    }))

  it.effect("a linked parent folder that points outside is refused, and nothing is made there", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      symlinkSync(box.outside, box.inRoot("linkdir"))
      const set = yield* build({ root: box.root, write: true })
      for (const path of ["linkdir/secret.txt", "linkdir/new.txt", "linkdir/deeper/new.txt"]) {
        const expected = path === "linkdir/secret.txt" ? throughLink(path) : throughLink("linkdir")
        yield* assertEachAnswers(box, set, everyTool(path).filter(([name]) => name === "write_file"), expected)
      }
      for (const path of ["linkdir/secret.txt", "linkdir"]) {
        yield* assertEachAnswers(box, set, everyTool(path).filter(([name]) => name !== "write_file"), throughLink(path))
      }
      assertOutsideUntouched(box)
    }))

  it.effect("a chain of links that ends outside, and a link to the root's parent, are refused", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      symlinkSync("b", box.inRoot("a"))
      symlinkSync("c", box.inRoot("b"))
      symlinkSync("../outside", box.inRoot("c"))
      symlinkSync("..", box.inRoot("up"))
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(seen(yield* call(set, "read_file", { path: "a/secret.txt" })), throughLink("a/secret.txt"))
      assert.deepStrictEqual(seen(yield* call(set, "list_directory", { path: "up" })), throughLink("up"))
      assert.deepStrictEqual(
        seen(yield* call(set, "read_file", { path: "up/outside/secret.txt" })),
        throughLink("up/outside/secret.txt")
      )
    }))

  it.effect("a link to a missing target is never written through, nor a linked folder that is missing", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      symlinkSync(box.inOutside("planted.txt"), box.inRoot("dangling.txt"))
      symlinkSync(box.inOutside("planted-folder"), box.inRoot("dangling-folder"))
      const set = yield* build({ root: box.root, write: true })
      const write = (path: string) => call(set, "write_file", { path, content: "x" })
      assert.deepStrictEqual(
        seen(yield* write("dangling.txt")),
        denied("\"dangling.txt\" is a symbolic link to a missing target; it is not followed")
      )
      assert.deepStrictEqual(
        seen(yield* write("dangling-folder/x.txt")),
        denied("\"dangling-folder\" is a symbolic link to a missing target; it is not followed")
      )
      // Reading one finds nothing, and says no more than that.
      assert.deepStrictEqual(
        seen(yield* call(set, "read_file", { path: "dangling.txt" })),
        failed("not_found", "\"dangling.txt\" does not exist")
      )
      assertOutsideUntouched(box)
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// special files
// ---------------------------------------------------------------------------------------------------------------------

describe("special files are never opened", () => {
  it.effect("a FIFO is refused at once (the call does not wait for a writer), and described by file_info", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      execFileSync("mkfifo", [box.inRoot("pipe")])
      const set = yield* build({ root: box.root, write: true })
      const refusal = denied("\"pipe\" is not a regular file (it is a fifo); it is not opened")
      assert.deepStrictEqual(seen(yield* call(set, "read_file", { path: "pipe" })), refusal)
      const edited = yield* call(set, "edit_file", { path: "pipe", old_text: "a", new_text: "b" })
      assert.deepStrictEqual(seen(edited), refusal)
      assert.deepStrictEqual((jsonOf(yield* call(set, "file_info", { path: "pipe" })) as { type: string }).type, "fifo")
    }))

  it.effect("a socket is refused", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      const server = createServer()
      yield* Effect.acquireRelease(
        Effect.callback<void>((resume) => {
          server.listen(box.inRoot("socket"), () => resume(Effect.void))
        }),
        () =>
          Effect.callback<void>((resume) => {
            server.close(() => resume(Effect.void))
          })
      )
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(
        seen(yield* call(set, "read_file", { path: "socket" })),
        denied("\"socket\" is not a regular file (it is a socket); it is not opened")
      )
    }))

  it.effect("devices are refused, and a link to one from inside a root is a link out", () =>
    Effect.gen(function*() {
      const devices = yield* build({ root: "/dev" })
      for (const device of ["null", "zero", "urandom"]) {
        assert.deepStrictEqual(
          seen(yield* call(devices, "read_file", { path: device })),
          denied(`${JSON.stringify(device)} is not a regular file (it is a character_device); it is not opened`)
        )
      }
      const box = yield* sandbox
      symlinkSync("/dev/zero", box.inRoot("zero"))
      const set = yield* build({ root: box.root })
      assert.deepStrictEqual(
        seen(yield* call(set, "read_file", { path: "zero" })),
        denied("\"zero\" leads outside the root folder through a symbolic link")
      )
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// sizes
// ---------------------------------------------------------------------------------------------------------------------

describe("sizes are capped", () => {
  const twoGiB = 2 * 1024 * 1024 * 1024

  it.effect("a 2 GiB sparse file is read only up to the 1 MiB default, and the result says it was cut", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFileSync(box.inRoot("huge.log"), "log line\n".repeat(1000))
      // A sparse file: its size is 2 GiB, its blocks on disk only the few written at its start and its end.
      truncateSync(box.inRoot("huge.log"), twoGiB)
      const fd = openSync(box.inRoot("huge.log"), "r+")
      writeSync(fd, "the end\n", twoGiB - 8)
      closeSync(fd)
      const set = yield* build({ root: box.root })
      const blocks = seen(yield* call(set, "read_file", { path: "huge.log" })).blocks as Array<string>
      assert.deepStrictEqual(
        [blocks.length, blocks[0].length, blocks[0].startsWith("log line\n".repeat(1000)), blocks[1]],
        [
          2,
          1024 * 1024,
          true,
          `[Bytes 0 to 1048576 of ${twoGiB} of "huge.log": the rest was cut at the 1048576-byte limit. ` +
          "Call read_file with offset 1048576 to read on.]"
        ]
      )
      // Far into the file, a page is still one cap's worth.
      const far = seen(yield* call(set, "read_file", { path: "huge.log", offset: twoGiB - 8 })).blocks
      assert.deepStrictEqual(far, [
        "the end\n",
        `[Bytes ${twoGiB - 8} to ${twoGiB} of ${twoGiB} of "huge.log": the end of the file.]`
      ])
    }))

  it.effect("a 2 GiB sparse file of zeros is described as binary, without being read whole", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFileSync(box.inRoot("zeros.bin"), "")
      truncateSync(box.inRoot("zeros.bin"), twoGiB)
      const set = yield* build({ root: box.root, write: true, maxBytes: 4096 })
      assert.deepStrictEqual(seen(yield* call(set, "read_file", { path: "zeros.bin" })).blocks, [
        `"zeros.bin" is a binary file of ${twoGiB} bytes; it is not shown as text.`
      ])
      assert.deepStrictEqual(
        seen(yield* call(set, "edit_file", { path: "zeros.bin", old_text: "a", new_text: "b" })),
        failed("invalid_args", "\"zeros.bin\" is larger than 4096 bytes: too large to edit")
      )
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// swapped between the check and the use
// ---------------------------------------------------------------------------------------------------------------------

describe("a file swapped between the check and the open", () => {
  const changed = (shown: string) =>
    denied(`${JSON.stringify(shown)} changed while it was being opened; it was not read`)

  it.effect("a link to a file outside, swapped in after the check, is not followed by the open", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "harmless" })
      const race = swapAfter("lstat", box.inRoot("a.txt"), () => {
        unlinkSync(box.inRoot("a.txt"))
        symlinkSync(box.inOutside("secret.txt"), box.inRoot("a.txt"))
      })
      const set = yield* build({ root: box.root }, race.fileSystem)
      const result = yield* call(set, "read_file", { path: "a.txt" })
      assert.isTrue(race.swapped())
      assert.deepStrictEqual(seen(result), changed("a.txt"))
      assertNoLeak(result, box)
    }))

  it.effect("a FIFO swapped in after the check does not block the open, and is refused", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "harmless" })
      const race = swapAfter("lstat", box.inRoot("a.txt"), () => {
        unlinkSync(box.inRoot("a.txt"))
        execFileSync("mkfifo", [box.inRoot("a.txt")])
      })
      const set = yield* build({ root: box.root }, race.fileSystem)
      const result = yield* call(set, "read_file", { path: "a.txt" })
      assert.isTrue(race.swapped())
      assert.deepStrictEqual(seen(result), changed("a.txt"))
    }))

  it.effect("a parent folder swapped for a link outside after the check opens nothing outside", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/secret.txt": "harmless" })
      const race = swapAfter("lstat", box.inRoot("docs/secret.txt"), () => {
        renameSync(box.inRoot("docs"), box.inRoot("docs-moved"))
        symlinkSync(box.outside, box.inRoot("docs"))
      })
      const set = yield* build({ root: box.root }, race.fileSystem)
      const result = yield* call(set, "read_file", { path: "docs/secret.txt" })
      assert.isTrue(race.swapped())
      assert.deepStrictEqual(seen(result), changed("docs/secret.txt"))
      assertNoLeak(result, box)
    }))

  it.effect("another regular file swapped in after the check is refused: the open must find the file checked", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "checked", "b.txt": "swapped in" })
      const race = swapAfter("lstat", box.inRoot("a.txt"), () => renameSync(box.inRoot("b.txt"), box.inRoot("a.txt")))
      const set = yield* build({ root: box.root }, race.fileSystem)
      const result = yield* call(set, "read_file", { path: "a.txt" })
      assert.isTrue(race.swapped())
      assert.deepStrictEqual(seen(result), changed("a.txt"))
    }))

  it.effect("edit_file does not follow a link swapped in after the check", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "TOP SECRET: harmless copy" })
      const race = swapAfter("lstat", box.inRoot("a.txt"), () => {
        unlinkSync(box.inRoot("a.txt"))
        symlinkSync(box.inOutside("secret.txt"), box.inRoot("a.txt"))
      })
      const set = yield* build({ root: box.root, write: true }, race.fileSystem)
      const result = yield* call(set, "edit_file", { path: "a.txt", old_text: "TOP SECRET", new_text: "edited" })
      assert.isTrue(race.swapped())
      assert.deepStrictEqual(seen(result), changed("a.txt"))
      assertOutsideUntouched(box)
    }))
})

describe("a write raced by a swap", () => {
  it.effect("a link swapped in for the target after the check is replaced, never written through", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "a.txt": "old" })
      const race = swapAfter("lstat", box.inRoot("a.txt"), () => {
        unlinkSync(box.inRoot("a.txt"))
        symlinkSync(box.inOutside("secret.txt"), box.inRoot("a.txt"))
      })
      const set = yield* build({ root: box.root, write: true }, race.fileSystem)
      const result = yield* call(set, "write_file", { path: "a.txt", content: "new" })
      assert.isTrue(race.swapped())
      assert.deepStrictEqual(jsonOf(result), { path: "a.txt", bytes: 3, created: false })
      // The rename replaced the link itself: the file outside is as it was, and the name holds the new text.
      assertOutsideUntouched(box)
      assert.deepStrictEqual([readFileSync(box.inRoot("a.txt"), "utf8"), namesIn(box.root)], ["new", ["a.txt"]])
    }))

  it.effect("a folder swapped for a link outside after the check is refused, and nothing is left outside", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/notes.txt": "old" })
      writeFiles(box.outside, { "notes.txt": "outside notes" })
      const race = swapAfter("lstat", box.inRoot("docs"), () => {
        renameSync(box.inRoot("docs"), box.inRoot("docs-moved"))
        symlinkSync(box.outside, box.inRoot("docs"))
      })
      const set = yield* build({ root: box.root, write: true }, race.fileSystem)
      const result = yield* call(set, "write_file", { path: "docs/notes.txt", content: "new" })
      assert.isTrue(race.swapped())
      assert.deepStrictEqual(
        seen(result),
        denied("the folder of \"docs/notes.txt\" changed while it was written; nothing was written")
      )
      assertOutsideUntouched(box, ["notes.txt"])
      assert.strictEqual(readFileSync(box.inOutside("notes.txt"), "utf8"), "outside notes")
      assert.deepStrictEqual(namesIn(box.inRoot("docs-moved")), ["notes.txt"])
    }))

  it.effect("a folder swapped out and back while a write runs gets no content outside, and the write is refused", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/notes.txt": "old" })
      const folder = box.inRoot("docs")
      let checks = 0
      // The first check of the folder passes, then the folder is swapped for a link outside; it is swapped back
      // just before the next check, so that this check sees the folder it expects.
      const fileSystem = changedFileSystem((fs) => ({
        ...fs,
        lstat: (path) =>
          path !== folder ? fs.lstat(path) : Effect.suspend(() => {
            checks++
            if (checks === 2) {
              unlinkSync(folder)
              renameSync(box.inRoot("docs-real"), folder)
            }
            return Effect.tap(fs.lstat(path), () =>
              Effect.sync(() => {
                if (checks !== 1) return
                renameSync(folder, box.inRoot("docs-real"))
                symlinkSync(box.outside, folder)
              }))
          })
      }))
      const set = yield* build({ root: box.root, write: true }, fileSystem)
      const result = yield* call(set, "write_file", { path: "docs/notes.txt", content: "the model's content" })
      assert.isTrue(checks >= 2)
      assert.deepStrictEqual(
        seen(result),
        denied("the folder of \"docs/notes.txt\" changed while it was written; nothing was written")
      )
      // The temporary file was made through the link, but was found out before anything was written to it.
      const extra = namesIn(box.outside).filter((name) => name !== "secret.txt")
      assert.isTrue(extra.every((name) => name.endsWith(".tmp") && readFileSync(box.inOutside(name), "utf8") === ""))
      assert.strictEqual(readFileSync(box.inOutside("secret.txt"), "utf8"), secret)
      assert.deepStrictEqual(
        [namesIn(folder), readFileSync(box.inRoot("docs/notes.txt"), "utf8")],
        [["notes.txt"], "old"]
      )
    }))

  it.effect("a folder swapped for a link while a search runs is not read", () =>
    Effect.gen(function*() {
      const box = yield* sandbox
      writeFiles(box.root, { "docs/inside-match.txt": "" })
      writeFiles(box.outside, { "outside-match.txt": "" })
      const race = swapAfter("readDirectoryEntries", box.root, () => {
        rmSync(box.inRoot("docs"), { recursive: true })
        symlinkSync(box.outside, box.inRoot("docs"))
      })
      const set = yield* build({ root: box.root }, race.fileSystem)
      const result = yield* call(set, "search_files", { pattern: "match" })
      assert.isTrue(race.swapped())
      assert.deepStrictEqual(jsonOf(result), { path: ".", matches: [], truncated: false })
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// any path at all
// ---------------------------------------------------------------------------------------------------------------------

/** Paths glued from `fragments`, up to 8 of them. */
const pathOf = (fragments: ReadonlyArray<string>): Arbitrary.Arbitrary<string> =>
  Arbitrary.map(
    Arbitrary.array(Arbitrary.schema(Schema.Literals(fragments)), { maxLength: 8 }),
    (parts) => parts.join("")
  )

describe("any path", () => {
  const fragments = [
    "..", ".", "/", "//", "\\", "%2e", "%2f", "%2e%2e%2f", "．．／", "／", "\u2215", "~", "outside", "secret.txt",
    "root", "link", "linkdir", "docs", "a.txt", "", " ", "\u202e", "%00", "\u0000", "..."
  ]

  // One sandbox for all the runs of a property: whatever a run writes inside the root, nothing may appear outside.
  let box: Sandbox
  beforeAll(() => {
    box = makeSandbox()
    writeFiles(box.root, { "a.txt": "inside a", "docs/b.txt": "inside b" })
    symlinkSync(box.inOutside("secret.txt"), box.inRoot("link"))
    symlinkSync(box.outside, box.inRoot("linkdir"))
  })
  afterAll(() => removeSandbox(box))

  let built: ToolSet.Any | undefined
  const check = (path: string) =>
    Effect.gen(function*() {
      const set = built ?? (built = yield* build({ root: box.root, write: true }))
      for (const [name, args] of everyTool(path)) {
        const result = yield* call(set, name, args)
        assertNoLeak(result, box)
        assert.include(["success", "error", "denied"], result.status)
      }
      assertOutsideUntouched(box)
    })

  it.effect.prop(
    "a path made of climbs, separators, look-alikes and names never reaches outside the root",
    [pathOf(fragments)],
    ([path]) => check(path),
    { timeout: 60_000, arbitrary: { runs: 150 } }
  )

  it.effect.prop(
    "any string as a path never reaches outside the root",
    [Schema.String],
    ([path]) => check(path),
    { timeout: 60_000, arbitrary: { runs: 150 } }
  )
})
