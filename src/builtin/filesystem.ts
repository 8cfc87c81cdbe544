/**
 * Built-in tools for the files under one folder: read, list, search and inspect them, and, only when asked for,
 * write and edit them. Every path the model gives is relative to that root folder and resolved inside it, symbolic
 * links included; sizes and counts are capped. The tools are portable: they run in any `ToolSet`, in a server, or
 * behind MCP.
 *
 * @since 0.1.0
 */
import { Context, Data, Effect, FileSystem, Glob, Option, Path, Result, Schema } from "effect"
import type * as DynamicTool from "../DynamicTool.ts"
import * as Tool from "../Tool.ts"
import * as ToolExecutionError from "../ToolExecutionError.ts"
import * as ToolOutput from "../ToolOutput.ts"
import * as ToolSet from "../ToolSet.ts"
import {
  expectedOf,
  openChecked,
  type OpenedFile,
  readCapped,
  wholeUtf8Length,
  writeAtomically
} from "./internal/confinedFile.ts"
import {
  fromPlatformError,
  maxPathLength,
  probeDescriptorPaths,
  quote,
  resolveExisting,
  resolveForWrite,
  type Resolved,
  type Root,
  shownOf,
  withFolder
} from "./internal/confinedPath.ts"

// ---------------------------------------------------------------------------------------------------------------------
// options
// ---------------------------------------------------------------------------------------------------------------------

/**
 * Options a built-in was given that it cannot work with: a root that does not exist or is not a folder, a limit
 * that is not a whole number of one or more. `option` names the option; `message` says what is wrong, for the
 * person who configured it.
 *
 * @category errors
 */
export class BuiltinOptionsError extends Data.TaggedError("BuiltinOptionsError")<{
  readonly option: string
  readonly message: string
  readonly cause?: unknown
}> {}

/**
 * The options of {@link filesystem}.
 *
 * @category models
 */
export interface FilesystemOptions {
  /** The folder the tools work in. A relative path is taken from the current working directory. */
  readonly root: string
  /** Add `write_file` and `edit_file`. Default `false`: the model can only read. */
  readonly write?: boolean | undefined
  /**
   * The most bytes `read_file` returns per call, and the largest file `write_file` and `edit_file` write. Default
   * 1 MiB; at most 1 GiB.
   */
  readonly maxBytes?: number | undefined
  /** The most entries `list_directory` lists. Default 1000. */
  readonly maxEntries?: number | undefined
  /** The most matches `search_files` returns. Default 200. */
  readonly maxResults?: number | undefined
  /** How many levels of folders `search_files` descends below the folder it starts in. Default 16. */
  readonly maxDepth?: number | undefined
  /**
   * Let `read_file` and `edit_file` open a file that has other names (hard links). Default `false`: such a file is
   * refused (status `denied`). A hard link is the same file under a second name, and nothing in the file says where
   * its other names are: one in the root may be a file outside it (put there by whoever could reach both), which
   * resolving paths cannot see. Allow them only when nobody who can write in the root can reach files you would
   * not show the model.
   */
  readonly allowHardLinks?: boolean | undefined
}

/**
 * The limits {@link filesystem} applies when its options leave them out.
 *
 * @category models
 */
export const defaults = {
  maxBytes: 1024 * 1024,
  maxEntries: 1000,
  maxResults: 200,
  maxDepth: 16
} as const

const maxBytesLimit = 1024 * 1024 * 1024

/** A search stops after looking at this many entries, whatever it found: its time is bounded, not only its output. */
const searchVisitLimit = 100_000

/** Patterns longer than this are refused: a name pattern needs no more. */
const maxPatternLength = 256

/**
 * A glob is matched as every pattern its `{…}` groups expand to, each costing up to its length times a name's
 * length. Eight allows `{src,test}` and `{ts,tsx}` in one pattern, and keeps a search of many entries to a few times
 * the cost of a plain one.
 */
const maxPatternCombinations = 8

/** `*` wildcards a pattern may have: a name pattern needs a few, and each one is a point the matcher returns to. */
const maxPatternStars = 16

/**
 * A long search gives the other fibers (and the server's other calls) a turn after this many entries, or this much
 * of {@link searchMatchBudget} (a few milliseconds), whichever comes first.
 */
const searchTurnEntries = 1000
const searchTurnWork = 1_000_000

/**
 * Matching a glob against a name costs up to (patterns it expands to) × (its length) × (the name's length) steps,
 * whatever its wildcards: a long pattern against many long names would cost over a minute, 100,000 entries or not.
 * A search stops once this bound, summed over the names it matched, is spent: a second or two at worst. A usual
 * pattern (17 characters, 2 alternatives) against paths of 60 characters spends two thirds of it on 100,000 entries.
 */
const searchMatchBudget = 300_000_000

// ---------------------------------------------------------------------------------------------------------------------
// the tools' Schemas
// ---------------------------------------------------------------------------------------------------------------------

const PathArgument = Schema.String.check(Schema.isMaxLength(maxPathLength))

const FileType = Schema.Literals([
  "file",
  "directory",
  "symlink",
  "fifo",
  "socket",
  "block_device",
  "character_device",
  "unknown"
])

/**
 * The type of a file system entry, as the tools report it.
 *
 * @category models
 */
export type FileType = typeof FileType.Type

const ReadFileParameters = Schema.Struct({
  path: PathArgument.annotate({ description: "The file, relative to the root folder, e.g. \"docs/notes.md\"" }),
  offset: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
      description: "The byte to start reading at; 0 (the default) is the start of the file"
    })
  )
})

const ListDirectoryParameters = Schema.Struct({
  path: Schema.optionalKey(
    PathArgument.annotate({ description: "The folder, relative to the root folder; \".\" (the default) is the root" })
  )
})

const DirectoryEntry = Schema.Struct({
  name: Schema.String,
  type: FileType,
  size: Schema.optionalKey(Schema.Int.annotate({ description: "The size in bytes, for a file" }))
})

const DirectoryListing = Schema.Struct({
  path: Schema.String.annotate({ description: "The folder listed, relative to the root folder" }),
  entries: Schema.Array(DirectoryEntry).annotate({ description: "The entries, sorted by name" }),
  total: Schema.Int.annotate({ description: "How many entries the folder has that can be listed" }),
  truncated: Schema.Boolean.annotate({ description: "True when only the first entries are listed" }),
  reason: Schema.optionalKey(
    Schema.String.annotate({ description: "Why some entries of the folder are left out, when some are" })
  )
})

/**
 * What `list_directory` answers.
 *
 * @category models
 */
export interface DirectoryListing extends Schema.Schema.Type<typeof DirectoryListing> {}

const SearchFilesParameters = Schema.Struct({
  pattern: Schema.String.check(Schema.isNonEmpty(), Schema.isMaxLength(maxPatternLength)).annotate({
    description: "Text to find in file names (case-insensitive), or a glob: \"*.md\" matches names, " +
      "\"src/**/*.ts\" matches paths below the search folder"
  }),
  path: Schema.optionalKey(
    PathArgument.annotate({
      description: "The folder to search, relative to the root folder; \".\" (the default) is the root"
    })
  )
})

const SearchResult = Schema.Struct({
  path: Schema.String.annotate({ description: "The folder searched, relative to the root folder" }),
  matches: Schema.Array(Schema.String).annotate({
    description: "The paths found, relative to the root folder; a folder's ends with \"/\""
  }),
  truncated: Schema.Boolean.annotate({ description: "True when the search did not see or list everything" }),
  reason: Schema.optionalKey(Schema.String.annotate({ description: "Why the search is incomplete" }))
})

/**
 * What `search_files` answers.
 *
 * @category models
 */
export interface SearchResult extends Schema.Schema.Type<typeof SearchResult> {}

const FileInfoParameters = Schema.Struct({
  path: PathArgument.annotate({ description: "The file or folder, relative to the root folder" })
})

const FileInfo = Schema.Struct({
  path: Schema.String.annotate({ description: "The entry, relative to the root folder, symbolic links resolved" }),
  type: FileType,
  size: Schema.Int.annotate({ description: "The size in bytes" }),
  modified: Schema.optionalKey(Schema.String.annotate({ description: "When it was last modified (ISO 8601)" })),
  created: Schema.optionalKey(Schema.String.annotate({ description: "When it was created (ISO 8601)" })),
  permissions: Schema.String.annotate({ description: "Its permission bits, in octal, e.g. \"644\"" })
})

/**
 * What `file_info` answers.
 *
 * @category models
 */
export interface FileInfo extends Schema.Schema.Type<typeof FileInfo> {}

const WriteFileParameters = Schema.Struct({
  path: PathArgument.annotate({
    description: "The file, relative to the root folder; missing folders on the way are created"
  }),
  content: Schema.String.annotate({ description: "The whole new content of the file, as text (UTF-8)" })
})

const EditFileParameters = Schema.Struct({
  path: PathArgument.annotate({ description: "The file, relative to the root folder" }),
  old_text: Schema.String.check(Schema.isNonEmpty()).annotate({
    description: "The exact text to replace, whitespace included; it must occur exactly once in the file"
  }),
  new_text: Schema.String.annotate({ description: "The text to put in its place" })
})

const WriteResult = Schema.Struct({
  path: Schema.String.annotate({ description: "The file written, relative to the root folder" }),
  bytes: Schema.Int.annotate({ description: "Its size now, in bytes" }),
  created: Schema.Boolean.annotate({ description: "True when the file did not exist before" })
})

/**
 * What `write_file` and `edit_file` answer.
 *
 * @category models
 */
export interface WriteResult extends Schema.Schema.Type<typeof WriteResult> {}

// ---------------------------------------------------------------------------------------------------------------------
// the tools' types
// ---------------------------------------------------------------------------------------------------------------------

type Failure = ToolExecutionError.ToolExecutionError

/**
 * The tools every filesystem set has: `read_file`, `list_directory`, `search_files` and `file_info`.
 *
 * @category models
 */
export type ReadTools =
  | DynamicTool.PortableTool<"read_file", typeof ReadFileParameters.Type, ToolOutput.ToolOutput, Failure>
  | DynamicTool.PortableTool<"list_directory", typeof ListDirectoryParameters.Type, DirectoryListing, Failure>
  | DynamicTool.PortableTool<"search_files", typeof SearchFilesParameters.Type, SearchResult, Failure>
  | DynamicTool.PortableTool<"file_info", typeof FileInfoParameters.Type, FileInfo, Failure>

/**
 * The tools a filesystem set has only with `write: true`: `write_file` and `edit_file`.
 *
 * @category models
 */
export type WriteTools =
  | DynamicTool.PortableTool<"write_file", typeof WriteFileParameters.Type, WriteResult, Failure>
  | DynamicTool.PortableTool<"edit_file", typeof EditFileParameters.Type, WriteResult, Failure>

// ---------------------------------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------------------------------

interface Limits {
  readonly maxBytes: number
  readonly maxEntries: number
  readonly maxResults: number
  readonly maxDepth: number
}

/**
 * A file with other names may have one outside the root, which no path check can see: unless allowed, it is not
 * opened. Checked on the open handle, so that it is the file read.
 */
const checkLinks = (opened: OpenedFile, shown: string, allowHardLinks: boolean): Effect.Effect<void, Failure> =>
  allowHardLinks || opened.links <= 1n
    ? Effect.void
    : Effect.fail(
      ToolExecutionError.refused(
        `${quote(shown)} is refused: the file has other names (hard links), which may lie outside the root folder`
      )
    )

const typeOf = (type: FileSystem.File.Type): FileType => {
  switch (type) {
    case "File":
      return "file"
    case "Directory":
      return "directory"
    case "SymbolicLink":
      return "symlink"
    case "FIFO":
      return "fifo"
    case "Socket":
      return "socket"
    case "BlockDevice":
      return "block_device"
    case "CharacterDevice":
      return "character_device"
    case "Unknown":
      return "unknown"
  }
}

const lstatOf = (root: Root, resolved: Resolved) =>
  root.fs.lstat(resolved.real).pipe(Effect.mapError((error) => fromPlatformError(error, resolved.shown, "read")))

/**
 * A checked file is a regular file: a folder is the model's mistake, and anything else (a FIFO, a socket, a device)
 * is refused, never opened. (A symbolic link cannot be here: the path was resolved with `realpath`.)
 */
const requireFile = (info: FileSystem.File.Info, shown: string): Effect.Effect<void, Failure> =>
  info.type === "File"
    ? Effect.void
    : Effect.fail(
      info.type === "Directory"
        ? ToolExecutionError.invalidArgs(`${quote(shown)} is a folder, not a file: use list_directory`)
        : ToolExecutionError.refused(
          `${quote(shown)} is not a regular file (it is a ${typeOf(info.type)}); it is not opened`
        )
    )

const requireFolder = (info: FileSystem.File.Info, shown: string): Effect.Effect<void, Failure> =>
  info.type === "Directory"
    ? Effect.void
    : Effect.fail(ToolExecutionError.invalidArgs(`${quote(shown)} is not a folder: use read_file or file_info`))

/** What Node puts in a name it reads for bytes that are not UTF-8. */
const replacementCharacter = "\uFFFD"

/**
 * The entries of a folder (reached at `at`) that a tool can be given back by name, and how many are left out. Node
 * reads names as UTF-8 and puts U+FFFD for bytes that are not: such a name leads nowhere, and every tool would say
 * it does not exist. A name with U+FFFD in it (which a name may hold, as UTF-8) is kept only when looking it up
 * finds it, and only once: two names that read alike are one path.
 */
const nameableEntries = (
  root: Root,
  at: string,
  entries: ReadonlyArray<FileSystem.DirectoryEntry>
): Effect.Effect<{ readonly entries: ReadonlyArray<FileSystem.DirectoryEntry>; readonly leftOut: number }> =>
  Effect.gen(function*() {
    if (!entries.some((entry) => entry.name.includes(replacementCharacter))) return { entries, leftOut: 0 }
    // Each such name is looked up once, eight at a time, as a listing looks at its entries.
    const names = [...new Set(entries.filter((entry) => entry.name.includes(replacementCharacter)).map((e) => e.name))]
    const found = yield* Effect.forEach(names, (name) =>
      Effect.map(Effect.result(root.fs.lstat(root.path.join(at, name))), (looked) =>
        // Only "not found" says the name leads nowhere; any other failure (a folder that cannot be searched) is no
        // different for this name than for the others, which are kept.
        Result.isFailure(looked) && looked.failure.reason._tag === "NotFound" ? undefined : name), { concurrency: 8 })
    const nameable = new Set(found.filter((name) => name !== undefined))
    const kept: Array<FileSystem.DirectoryEntry> = []
    let leftOut = 0
    for (const entry of entries) {
      if (!entry.name.includes(replacementCharacter)) kept.push(entry)
      // A name that reads like another is the same path: kept once.
      else if (nameable.delete(entry.name)) kept.push(entry)
      else leftOut++
    }
    return { entries: kept, leftOut }
  })

const unnameable = (count: number): string =>
  count === 1
    ? "1 entry is left out: its name is not valid UTF-8, so no tool can name it"
    : `${count} entries are left out: their names are not valid UTF-8, so no tool can name them`

/** Bytes with a NUL in their first 8000 are binary, as git decides. */
const looksBinary = (bytes: Uint8Array): boolean => bytes.subarray(0, 8000).includes(0)

// `ignoreBOM` keeps a byte order mark as a character, so that an edit writes it back.
const lenientText = new TextDecoder("utf-8", { ignoreBOM: true })
const strictText = new TextDecoder("utf-8", { ignoreBOM: true, fatal: true })
const utf8 = new TextEncoder()

const writable = (root: Root, real: string, shown: string): Effect.Effect<void, Failure> =>
  root.fs.access(real, { writable: true }).pipe(
    Effect.mapError((error) =>
      error.reason._tag === "PermissionDenied"
        ? ToolExecutionError.permissionDenied(`${quote(shown)} is read-only`)
        : fromPlatformError(error, shown, "written")
    )
  )

const checkSize = (bytes: Uint8Array, limits: Limits): Effect.Effect<void, Failure> =>
  bytes.length <= limits.maxBytes
    ? Effect.void
    : Effect.fail(
      ToolExecutionError.invalidArgs(
        `the new content is ${bytes.length} bytes; files are written up to ${limits.maxBytes}`
      )
    )

// ---------------------------------------------------------------------------------------------------------------------
// read_file
// ---------------------------------------------------------------------------------------------------------------------

const readFile = (root: Root, limits: Limits, allowHardLinks: boolean) =>
  Tool.make("read_file", {
    description: "Read a text file under the root folder. Returns its text (UTF-8). At most " +
      `${limits.maxBytes} bytes come back per call: a note after the text then says where it stopped, and ` +
      "`offset` reads on from there. A binary file is described, not shown." +
      (allowHardLinks ? "" : " A file with other names (hard links) is refused."),
    parameters: ReadFileParameters,
    annotations: { title: "Read a file", readOnly: true, destructive: false, idempotent: true, openWorld: false },
    call: ({ offset = 0, path }) =>
      Effect.scoped(Effect.gen(function*() {
        const resolved = yield* resolveExisting(root, path)
        const shown = resolved.shown
        const info = yield* lstatOf(root, resolved)
        yield* requireFile(info, shown)
        const opened = yield* openChecked(root, resolved.real, shown, info)
        yield* checkLinks(opened, shown, allowHardLinks)
        if (opened.size === 0n) return ToolOutput.text(`${quote(shown)} is empty.`)
        if (BigInt(offset) >= opened.size) {
          return yield* Effect.fail(
            ToolExecutionError.invalidArgs(`offset ${offset} is past the end of ${quote(shown)} (${opened.size} bytes)`)
          )
        }
        const read = yield* readCapped(opened, shown, offset, limits.maxBytes)
        if (looksBinary(read.bytes)) {
          return ToolOutput.text(`${quote(shown)} is a binary file of ${opened.size} bytes; it is not shown as text.`)
        }
        // A page ends on a whole character, so that the next one starts on one (a character longer than the whole
        // page is cut, rather than never read).
        const whole = read.more ? wholeUtf8Length(read.bytes) : read.bytes.length
        const length = whole === 0 ? read.bytes.length : whole
        const text = lenientText.decode(read.bytes.subarray(0, length))
        if (!read.more && offset === 0) return ToolOutput.text(text)
        const end = offset + length
        const note = read.more
          ? `[Bytes ${offset} to ${end} of ${opened.size} of ${quote(shown)}: the rest was cut at the ` +
            `${limits.maxBytes}-byte limit. Call read_file with offset ${end} to read on.]`
          : `[Bytes ${offset} to ${end} of ${opened.size} of ${quote(shown)}: the end of the file.]`
        return ToolOutput.content([ToolOutput.text(text).content[0], ToolOutput.text(note).content[0]])
      }))
  })

// ---------------------------------------------------------------------------------------------------------------------
// list_directory
// ---------------------------------------------------------------------------------------------------------------------

const byCodeUnits = (a: string, b: string): number => a < b ? -1 : a > b ? 1 : 0

const changed = (shown: string) =>
  ToolExecutionError.refused(`${quote(shown)} changed while it was being opened; it was not read`)

const listDirectory = (root: Root, limits: Limits) =>
  Tool.make("list_directory", {
    description: "List a folder under the root folder: each entry's name, type (file, directory, symlink, ...) and, " +
      `for a file, its size in bytes, sorted by name. At most ${limits.maxEntries} entries are listed; \`total\` ` +
      "and `truncated` say when there are more. Symbolic links are listed, not followed; names that are not valid " +
      "UTF-8 are left out, and `reason` says how many.",
    parameters: ListDirectoryParameters,
    success: DirectoryListing,
    annotations: { title: "List a folder", readOnly: true, destructive: false, idempotent: true, openWorld: false },
    call: ({ path = "." }) =>
      Effect.gen(function*() {
        const resolved = yield* resolveExisting(root, path)
        const shown = resolved.shown
        const info = yield* lstatOf(root, resolved)
        yield* requireFolder(info, shown)
        // The folder listed, and each entry looked at, is the folder checked, even if its path is swapped meanwhile.
        return yield* withFolder(root, resolved.real, shown, Option.some(info), changed(shown), (at) =>
          Effect.gen(function*() {
            const read = yield* root.fs.readDirectoryEntries(at).pipe(
              Effect.mapError((error) => fromPlatformError(error, shown, "listed"))
            )
            const { entries: nameable, leftOut } = yield* nameableEntries(root, at, read)
            const names = nameable.map((entry) => entry.name).sort(byCodeUnits)
            const listed = names.slice(0, limits.maxEntries)
            const entries = yield* Effect.forEach(listed, (name) =>
              root.fs.lstat(root.path.join(at, name)).pipe(
                Effect.map((info) => ({
                  name,
                  type: typeOf(info.type),
                  ...(info.type === "File" ? { size: Number(info.size) } : {})
                })),
                // An entry removed since the folder was read is reported as what is known of it: its name.
                Effect.orElseSucceed(() => ({ name, type: "unknown" as const }))
              ), { concurrency: 8 })
            return {
              path: shown,
              entries,
              total: names.length,
              truncated: names.length > listed.length,
              ...(leftOut > 0 ? { reason: unnameable(leftOut) } : {})
            }
          }))
      })
  })

// ---------------------------------------------------------------------------------------------------------------------
// search_files
// ---------------------------------------------------------------------------------------------------------------------

const hasGlobSyntax = (pattern: string): boolean => /[*?[{]/.test(pattern)

/**
 * A glob's cost is bounded before any name is matched: its `{…}` groups, not nested, expand to at most
 * {@link maxPatternCombinations} patterns, and it has at most {@link maxPatternStars} `*`. (A `\` makes the next
 * character literal, as it does in the glob.) The number of patterns it expands to is the answer.
 *
 * The pattern is read as Effect's glob reads it, a character (a code point) at a time: a `[…]` class is skipped
 * whole, so a `{`, `,` or `}` in it is a character, not brace syntax (were it counted, `{[}],b,c}` would close its
 * group early, and pass a glob of thousands of patterns for one); a `[` that opens no class makes the other `[` of its
 * path segment literal. An unclosed group is counted as if it were closed.
 */
const checkPattern = (pattern: string): Effect.Effect<number, Failure> => {
  const chars = Array.from(pattern)
  let depth = 0
  let nested = false
  let combinations = 1
  let alternatives = 1
  let stars = 0
  let classes = true
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]
    if (char === "\\") {
      i++
    } else if (char === "/") {
      classes = true
    } else if (char === "[" && classes) {
      const end = classEnd(chars, i)
      if (end === undefined) classes = false
      else i = end
    } else if (char === "*") {
      stars++
    } else if (char === "{") {
      if (depth > 0) nested = true
      else alternatives = 1
      depth++
    } else if (char === "," && depth === 1) {
      alternatives++
    } else if (char === "}" && depth > 0) {
      depth--
      if (depth === 0) combinations *= alternatives
    }
  }
  if (depth > 0) combinations *= alternatives
  if (nested || combinations > maxPatternCombinations) {
    return Effect.fail(
      ToolExecutionError.invalidArgs(
        `a pattern's {…} groups must not be nested, and may give at most ${maxPatternCombinations} alternatives ` +
          "in all ({a,b}.{c,d} gives 4)"
      )
    )
  }
  return stars <= maxPatternStars
    ? Effect.succeed(combinations)
    : Effect.fail(ToolExecutionError.invalidArgs(`a pattern may have at most ${maxPatternStars} * wildcards`))
}

/** The POSIX class names a glob's `[[:name:]]` may use. */
const posixClassNames: ReadonlySet<string> = new Set([
  "alnum",
  "alpha",
  "blank",
  "cntrl",
  "digit",
  "graph",
  "lower",
  "print",
  "punct",
  "space",
  "upper",
  "word",
  "xdigit"
])

/**
 * Where the `[…]` class that `chars[open]` opens ends (its `]`), as Effect's glob reads classes: `!` or `^` first
 * negates, a `]` first is a member, `\` makes the next character one, `a-z` is a range, `[:digit:]` a named class; a
 * `/` before the end, or no end, and the `[` opens no class (`undefined`).
 */
const classEnd = (chars: ReadonlyArray<string>, open: number): number | undefined => {
  let i = open + 1
  if (chars[i] === "!" || chars[i] === "^") i++
  for (let first = true; i < chars.length; i++, first = false) {
    if (chars[i] === "/") return undefined
    if (chars[i] === "]" && !first) return i
    if (chars[i] === "[" && chars[i + 1] === ":") {
      const end = posixClassEnd(chars, i)
      if (end !== undefined) {
        i = end
        continue
      }
    }
    if (chars[i] === "\\" && i + 1 < chars.length) i++
    if (chars[i + 1] === "-" && i + 2 < chars.length && chars[i + 2] !== "]") {
      let next = i + 2
      if (chars[next] === "/") return undefined
      if (chars[next] === "\\" && next + 1 < chars.length) next++
      i = next
    }
  }
  return undefined
}

/** Where a named class `[:name:]` opened at `open` ends (its `]`), or `undefined` when it names no class. */
const posixClassEnd = (chars: ReadonlyArray<string>, open: number): number | undefined => {
  for (let i = open + 2; i < chars.length && i <= open + 8; i++) {
    if (chars[i] === ":" && chars[i + 1] === "]") {
      return posixClassNames.has(chars.slice(open + 2, i).join("")) ? i + 1 : undefined
    }
  }
  return undefined
}

interface Matcher {
  readonly matches: (name: string, relative: string, isFolder: boolean) => boolean
  /** What matching a name costs, counted against {@link searchMatchBudget}. */
  readonly cost: (name: string, relative: string) => number
}

const matcherOf = (pattern: string, combinations: number): Matcher => {
  if (!hasGlobSyntax(pattern)) {
    const needle = pattern.toLowerCase()
    // A substring search is linear in practice: it spends nothing of the budget.
    return { matches: (name) => name.toLowerCase().includes(needle), cost: () => 0 }
  }
  const glob = Glob.make(pattern, { dot: true })
  const perCharacter = combinations * pattern.length
  // A pattern with a `/` is matched against the path below the search folder, one without against the name alone.
  return pattern.includes("/")
    ? {
      matches: (_, relative, isFolder) => Glob.match(glob, isFolder ? `${relative}/` : relative),
      cost: (_, relative) => perCharacter * (relative.length + 1)
    }
    : {
      matches: (name, _, isFolder) => Glob.match(glob, isFolder ? `${name}/` : name),
      cost: (name) => perCharacter * (name.length + 1)
    }
}

interface Pending {
  readonly real: string
  readonly relative: string
  readonly depth: number
}

const searchFiles = (root: Root, limits: Limits) =>
  Tool.make("search_files", {
    description: "Find files and folders by name under a folder of the root folder. `pattern` is text to find in " +
      "names (case-insensitive), or a glob (case-sensitive): `*.md` matches names, `src/**/*.ts` paths below the " +
      `folder; its {…} groups may give at most ${maxPatternCombinations} alternatives in all, and it may have at ` +
      `most ${maxPatternStars} \`*\`. Returns at most ${limits.maxResults} paths relative to the root folder, ` +
      `searching at most ${limits.maxDepth} levels deep; \`truncated\` and \`reason\` say when the search is ` +
      "incomplete. Symbolic links are matched but not followed.",
    parameters: SearchFilesParameters,
    success: SearchResult,
    annotations: { title: "Find files", readOnly: true, destructive: false, idempotent: true, openWorld: false },
    call: ({ path = ".", pattern }) =>
      Effect.gen(function*() {
        const matcher = matcherOf(pattern, yield* checkPattern(pattern))
        const start = yield* resolveExisting(root, path)
        const startInfo = yield* lstatOf(root, start)
        yield* requireFolder(startInfo, start.shown)
        const found: Array<string> = []
        const reasons: Array<string> = []
        const queue: Array<Pending> = [{ real: start.real, relative: "", depth: 0 }]
        let visited = 0
        let spent = 0
        let spentAtTurn = 0
        let deeper = false
        let done = false
        let unreadable = 0
        let leftOut = 0
        for (let next = 0; next < queue.length && !done; next++) {
          const folder = queue[next]
          const shown = shownOf(root, folder.real)
          // What a folder gives is kept only once the folder is known to be the one listed (see `withFolder`).
          const matched: Array<string> = []
          const below: Array<Pending> = []
          let unnamed = 0
          const changedFolder = changed(shown)
          const read = withFolder(
            root,
            folder.real,
            shown,
            folder.depth === 0 ? Option.some(startInfo) : Option.none(),
            changedFolder,
            (at) =>
              Effect.gen(function*() {
                const entries = yield* root.fs.readDirectoryEntries(at).pipe(
                  Effect.mapError((error) => fromPlatformError(error, shown, "listed"))
                )
                const nameable = yield* nameableEntries(root, at, entries)
                unnamed = nameable.leftOut
                const names = nameable.entries.slice().sort((a, b) => byCodeUnits(a.name, b.name))
                for (const entry of names) {
                  if (++visited > searchVisitLimit) {
                    reasons.push(`the search stopped after looking at ${searchVisitLimit} entries`)
                    done = true
                    break
                  }
                  const real = root.path.join(folder.real, entry.name)
                  const relative = folder.relative === "" ? entry.name : `${folder.relative}/${entry.name}`
                  const type = entry.type === "Unknown"
                    ? Option.match(yield* Effect.option(root.fs.lstat(root.path.join(at, entry.name))), {
                      onNone: () => "Unknown" as const,
                      onSome: (info) => info.type
                    })
                    : entry.type
                  const isFolder = type === "Directory"
                  spent += matcher.cost(entry.name, relative)
                  if (spent > searchMatchBudget) {
                    reasons.push(
                      `the pattern is costly to match, and the search stopped after looking at ${visited - 1} entries`
                    )
                    done = true
                    break
                  }
                  // Matching is synchronous: without a turn now and then, a search of many entries would hold the
                  // thread, and could not be interrupted, until it ended.
                  if (visited % searchTurnEntries === 0 || spent - spentAtTurn >= searchTurnWork) {
                    spentAtTurn = spent
                    yield* Effect.yieldNow
                  }
                  if (matcher.matches(entry.name, relative, isFolder)) {
                    if (found.length + matched.length === limits.maxResults) {
                      reasons.push(
                        `more than ${limits.maxResults} paths match; the first ${limits.maxResults} are listed`
                      )
                      done = true
                      break
                    }
                    const shownEntry = shownOf(root, real)
                    matched.push(isFolder ? `${shownEntry}/` : shownEntry)
                  }
                  if (isFolder) {
                    if (folder.depth + 1 < limits.maxDepth) below.push({ real, relative, depth: folder.depth + 1 })
                    else deeper = true
                  }
                }
              })
          )
          // The folder searched must be the one asked for, and readable: it fails as list_directory would. A folder
          // below it that changed (swapped for a link since it was listed, or removed) is skipped, never followed; one
          // that cannot be read (its permissions) is gone on past, as `find` does, and counted: the search is then
          // incomplete, and says so.
          if (folder.depth === 0) {
            yield* read
          } else {
            const outcome = yield* Effect.result(read)
            if (Result.isFailure(outcome)) {
              // `changedFolder` comes back with its cause attached: it is told by its message.
              const skipped = outcome.failure.message === changedFolder.message || outcome.failure.kind === "not_found"
              if (!skipped) unreadable++
              continue
            }
          }
          leftOut += unnamed
          found.push(...matched)
          queue.push(...below)
        }
        if (deeper) reasons.push(`folders more than ${limits.maxDepth} levels deep were not searched`)
        if (unreadable > 0) {
          reasons.push(unreadable === 1 ? "1 folder could not be read" : `${unreadable} folders could not be read`)
        }
        if (leftOut > 0) reasons.push(unnameable(leftOut))
        return {
          path: start.shown,
          matches: found,
          truncated: reasons.length > 0,
          ...(reasons.length > 0 ? { reason: reasons.join("; ") } : {})
        }
      })
  })

// ---------------------------------------------------------------------------------------------------------------------
// file_info
// ---------------------------------------------------------------------------------------------------------------------

const isoOf = (date: Option.Option<Date>): string | undefined =>
  Option.match(Option.filter(date, (d) => Number.isFinite(d.getTime())), {
    onNone: () => undefined,
    onSome: (d) => d.toISOString()
  })

const fileInfo = (root: Root) =>
  Tool.make("file_info", {
    description: "Describe a file or folder under the root folder without opening it: its type, size in bytes, " +
      "modification and creation times, and permissions. Symbolic links are resolved (inside the root folder only).",
    parameters: FileInfoParameters,
    success: FileInfo,
    annotations: { title: "Describe a file", readOnly: true, destructive: false, idempotent: true, openWorld: false },
    call: ({ path }) =>
      Effect.gen(function*() {
        const resolved = yield* resolveExisting(root, path)
        const shown = resolved.shown
        // The entry is looked up by its name in its folder, proven to be the folder resolved (see `withFolder`): a
        // folder on the way swapped for a link since `realpath` is not followed to describe a file outside.
        const folder = root.path.dirname(resolved.real)
        const info = resolved.real === root.real
          ? yield* lstatOf(root, resolved)
          : yield* withFolder(root, folder, shownOf(root, folder), Option.none(), changed(shown), (at) =>
            root.fs.lstat(root.path.join(at, root.path.basename(resolved.real))).pipe(
              Effect.mapError((error) => fromPlatformError(error, shown, "read"))
            ))
        const modified = isoOf(info.mtime)
        const created = isoOf(info.birthtime)
        return {
          path: shown,
          type: typeOf(info.type),
          size: Number(info.size),
          ...(modified !== undefined ? { modified } : {}),
          ...(created !== undefined ? { created } : {}),
          permissions: (info.mode & 0o7777).toString(8)
        }
      })
  })

// ---------------------------------------------------------------------------------------------------------------------
// write_file and edit_file
// ---------------------------------------------------------------------------------------------------------------------

const writeFile = (root: Root, limits: Limits) =>
  Tool.make("write_file", {
    description: "Write a text file under the root folder, replacing it whole if it exists; missing folders on the " +
      `way are created. At most ${limits.maxBytes} bytes (UTF-8). The write is atomic: the file is either the old ` +
      "one or the new one, never a mix. Use edit_file to change part of a file.",
    parameters: WriteFileParameters,
    success: WriteResult,
    annotations: { title: "Write a file", readOnly: false, destructive: true, idempotent: true, openWorld: false },
    call: ({ content, path }) =>
      Effect.gen(function*() {
        const bytes = utf8.encode(content)
        yield* checkSize(bytes, limits)
        const target = yield* resolveForWrite(root, path)
        if (Option.isSome(target.existing)) yield* writable(root, target.real, target.shown)
        yield* writeAtomically(root, target, bytes, Option.none())
        return { path: target.shown, bytes: bytes.length, created: Option.isNone(target.existing) }
      })
  })

const editFile = (root: Root, limits: Limits, allowHardLinks: boolean) =>
  Tool.make("edit_file", {
    description: "Change part of a text file under the root folder: replace `old_text`, which must occur exactly " +
      "once in the file (whitespace included), with `new_text`. Read the file first to copy `old_text` exactly. " +
      `Files up to ${limits.maxBytes} bytes; the write is atomic.` +
      (allowHardLinks ? "" : " A file with other names (hard links) is refused."),
    parameters: EditFileParameters,
    success: WriteResult,
    annotations: { title: "Edit a file", readOnly: false, destructive: true, idempotent: false, openWorld: false },
    call: ({ new_text, old_text, path }) =>
      Effect.gen(function*() {
        const resolved = yield* resolveExisting(root, path)
        const shown = resolved.shown
        const info = yield* lstatOf(root, resolved)
        yield* requireFile(info, shown)
        const { expected, text } = yield* Effect.scoped(Effect.gen(function*() {
          const opened = yield* openChecked(root, resolved.real, shown, info)
          // An edit reads the file too: whether old_text is found would tell the content of a file outside.
          yield* checkLinks(opened, shown, allowHardLinks)
          const read = yield* readCapped(opened, shown, 0, limits.maxBytes)
          if (read.more) {
            return yield* Effect.fail(
              ToolExecutionError.invalidArgs(
                `${quote(shown)} is larger than ${limits.maxBytes} bytes: too large to edit`
              )
            )
          }
          if (looksBinary(read.bytes)) {
            return yield* Effect.fail(
              ToolExecutionError.invalidArgs(`${quote(shown)} is a binary file: it cannot be edited`)
            )
          }
          const text = yield* Effect.try({
            try: () => strictText.decode(read.bytes),
            catch: () => ToolExecutionError.invalidArgs(`${quote(shown)} is not UTF-8 text: it cannot be edited`)
          })
          return { expected: expectedOf(opened), text }
        }))
        const first = text.indexOf(old_text)
        if (first === -1) {
          return yield* Effect.fail(
            ToolExecutionError.invalidArgs(
              `old_text was not found in ${quote(shown)}; it must match the file exactly, whitespace included`
            )
          )
        }
        if (text.indexOf(old_text, first + 1) !== -1) {
          return yield* Effect.fail(
            ToolExecutionError.invalidArgs(
              `old_text occurs more than once in ${quote(shown)}; include more of the text around it so that it ` +
                "matches exactly once"
            )
          )
        }
        const bytes = utf8.encode(text.slice(0, first) + new_text + text.slice(first + old_text.length))
        yield* checkSize(bytes, limits)
        const target = yield* resolveForWrite(root, path)
        if (target.real !== resolved.real) {
          return yield* Effect.fail(
            ToolExecutionError.invalidArgs(`${quote(shown)} changed while it was being edited; read it again and retry`)
          )
        }
        yield* writable(root, target.real, shown)
        yield* writeAtomically(root, target, bytes, Option.some(expected))
        return { path: shown, bytes: bytes.length, created: false }
      })
  })

// ---------------------------------------------------------------------------------------------------------------------
// filesystem
// ---------------------------------------------------------------------------------------------------------------------

const describeValue = (value: unknown): string =>
  typeof value === "string"
    ? JSON.stringify(value.slice(0, 64))
    : typeof value === "number"
    ? String(value)
    : typeof value

const checkLimit = (
  option: keyof Limits,
  value: unknown,
  max: number
): Effect.Effect<number, BuiltinOptionsError> =>
  value === undefined
    ? Effect.succeed(defaults[option])
    : typeof value === "number" && Number.isSafeInteger(value) && value >= 1 && value <= max
    ? Effect.succeed(value)
    : Effect.fail(
      new BuiltinOptionsError({
        option,
        message: `${option} must be a whole number from 1 to ${max}, not ${describeValue(value)}`
      })
    )

const checkBoolean = (option: string, value: unknown): Effect.Effect<boolean, BuiltinOptionsError> =>
  value === undefined || typeof value === "boolean"
    ? Effect.succeed(value ?? false)
    : Effect.fail(
      new BuiltinOptionsError({ option, message: `${option} must be true or false, not ${describeValue(value)}` })
    )

const checkRoot = (
  fs: FileSystem.FileSystem,
  root: unknown
): Effect.Effect<string, BuiltinOptionsError> => {
  if (typeof root !== "string" || root === "" || root.includes("\u0000")) {
    return Effect.fail(
      new BuiltinOptionsError({
        option: "root",
        message: `root must be the path of a folder, not ${describeValue(root)}`
      })
    )
  }
  const failure = (message: string) => (cause: unknown) => new BuiltinOptionsError({ option: "root", message, cause })
  return Effect.gen(function*() {
    const real = yield* fs.realPath(root).pipe(
      Effect.mapError(failure(`root ${JSON.stringify(root)} does not exist or cannot be resolved`))
    )
    const info = yield* fs.stat(real).pipe(Effect.mapError(failure(`root ${JSON.stringify(root)} cannot be read`)))
    if (info.type !== "Directory") {
      return yield* Effect.fail(failure(`root ${JSON.stringify(root)} is not a folder`)(undefined))
    }
    return real
  })
}

/**
 * Builds the filesystem tools for the folder `root`, after checking the options: the root must exist and be a
 * folder (it is resolved once, symbolic links included, and everything stays under that real path), and each limit
 * a whole number of one or more; otherwise it fails with a {@link BuiltinOptionsError}.
 *
 * The set has `read_file`, `list_directory`, `search_files` and `file_info`, and with `write: true` also
 * `write_file` and `edit_file`; without it, those names are unknown (`not_found`). The tools are portable: they
 * closed over the `FileSystem` and `Path` services when they were built (provide `NodeServices.layer`, or your own
 * for tests).
 *
 * What the model gets:
 * - Paths are relative to the root. An absolute path, a `..` that climbs above the root, and a symbolic link (or a
 *   parent folder that is one) pointing outside it are refused (status `denied`). Nothing is decoded: `%2e%2e%2f` or
 *   a full-width `．．／` is a name like any other, which stays inside the root. A NUL character, more than 4096
 *   characters or more than 128 names (the parts between slashes) is `invalid_args`.
 * - A missing file is `not_found`. FIFOs, sockets and devices are refused, never opened; a file is opened without
 *   following a link or waiting on a FIFO, and refused unless it is the very file checked, where it was checked.
 *   A file with other names (hard links) is not read or edited unless `allowHardLinks` says so: one of its names
 *   may be outside the root, which no check of a path can see.
 * - What was checked is what is used, even if someone renames things meanwhile. On Linux, a folder is listed,
 *   searched or looked into through the descriptor that was opened and proven to be the folder resolved, never by
 *   its path again. Elsewhere, a folder is checked again after it was used, and what it gave is dropped if it
 *   changed; a folder swapped for a link and back again within one use is not seen there.
 * - Messages show paths relative to the root, never the root itself or the system's error text.
 * - `read_file` returns at most `maxBytes` per call and says where it stopped; `list_directory`, `search_files`
 *   (its results, its depth, the entries it looks at, and the work its pattern costs) are capped too. A glob's
 *   `{…}` groups may give at most 8 alternatives in all, not nested, and it may have at most 16 `*`. A long search
 *   gives other calls a turn every thousand entries, and can be interrupted.
 * - A name that is not valid UTF-8 is never listed or matched (no tool could be given it back); `list_directory` and
 *   `search_files` say how many they left out. Folders below the start that a search cannot read are gone on past,
 *   and counted: the search then says it is truncated.
 * - Writes go to a temporary file in the same folder, then a rename: atomic, never through a link, never outside the
 *   root, at most `maxBytes`. Missing folders are made one by one, each in the folder checked; one made in a folder
 *   swapped meanwhile is removed again.
 *
 * @example
 * ```ts
 * import { NodeServices } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import { ToolCall, ToolSet } from "effect-llm-tools"
 * import { Builtin } from "effect-llm-tools/builtin"
 *
 * const program = Effect.gen(function*() {
 *   const files = yield* Builtin.filesystem({ root: "./workspace", maxBytes: 256 * 1024 })
 *   return yield* ToolSet.execute(
 *     files,
 *     ToolCall.make({ id: "call_1", name: "read_file", arguments: { path: "notes/todo.md" } })
 *   )
 * }).pipe(Effect.provide(NodeServices.layer))
 * ```
 *
 * @category constructors
 */
export const filesystem: {
  (
    options: FilesystemOptions & { readonly write: true }
  ): Effect.Effect<ToolSet.ToolSet<ReadTools | WriteTools>, BuiltinOptionsError, FileSystem.FileSystem | Path.Path>
  (
    options: FilesystemOptions & { readonly write?: false | undefined }
  ): Effect.Effect<ToolSet.ToolSet<ReadTools>, BuiltinOptionsError, FileSystem.FileSystem | Path.Path>
  (
    options: FilesystemOptions
  ): Effect.Effect<ToolSet.ToolSet<ReadTools | WriteTools>, BuiltinOptionsError, FileSystem.FileSystem | Path.Path>
} = (options: FilesystemOptions): Effect.Effect<
  // The overloads narrow this: without `write: true`, the write tools are not in the set.
  ToolSet.ToolSet<ReadTools>,
  BuiltinOptionsError,
  FileSystem.FileSystem | Path.Path
> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    if (typeof options !== "object" || options === null) {
      return yield* Effect.fail(
        new BuiltinOptionsError({ option: "options", message: "the options must be an object" })
      )
    }
    const write = yield* checkBoolean("write", options.write)
    const allowHardLinks = yield* checkBoolean("allowHardLinks", options.allowHardLinks)
    const limits: Limits = {
      maxBytes: yield* checkLimit("maxBytes", options.maxBytes, maxBytesLimit),
      maxEntries: yield* checkLimit("maxEntries", options.maxEntries, Number.MAX_SAFE_INTEGER),
      maxResults: yield* checkLimit("maxResults", options.maxResults, Number.MAX_SAFE_INTEGER),
      maxDepth: yield* checkLimit("maxDepth", options.maxDepth, Number.MAX_SAFE_INTEGER)
    }
    const real = yield* checkRoot(fs, options.root)
    const root: Root = { fs, path, real, descriptorPaths: yield* probeDescriptorPaths(fs, real) }
    const none = Context.empty()
    const tools: Array<ReadTools | WriteTools> = [
      Tool.provide(readFile(root, limits, allowHardLinks), none, { portable: true }),
      Tool.provide(listDirectory(root, limits), none, { portable: true }),
      Tool.provide(searchFiles(root, limits), none, { portable: true }),
      Tool.provide(fileInfo(root), none, { portable: true })
    ]
    if (write) {
      tools.push(
        Tool.provide(writeFile(root, limits), none, { portable: true }),
        Tool.provide(editFile(root, limits, allowHardLinks), none, { portable: true })
      )
    }
    return ToolSet.make(...tools) as ToolSet.ToolSet<ReadTools>
  })
