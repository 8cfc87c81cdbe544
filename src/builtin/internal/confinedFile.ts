/**
 * Reading and writing files that were resolved inside the root (see `confinedPath.ts`) without being led out of it
 * between the check and the use: a link or a FIFO swapped in after the check is never followed or waited on, and a
 * file that is not the one checked is refused. Writes are atomic: a temporary file in the same folder, then a rename.
 */
import { Effect, type FileSystem, Option, type PlatformError, type Scope } from "effect"
import { constants as fsConstants } from "node:fs"
import type { FileHandle } from "node:fs/promises"
import * as ToolExecutionError from "../../ToolExecutionError.ts"
import {
  descriptorPath,
  fromPlatformError,
  type Identity,
  identityOf,
  identityOfStats,
  openPath,
  quote,
  type Root,
  sameFile,
  sameIdentity,
  type WriteTarget
} from "./confinedPath.ts"

const unreadable = (shown: string, cause: unknown) =>
  ToolExecutionError.withCause(ToolExecutionError.other(`${quote(shown)} could not be read`), cause)

const changed = (shown: string) =>
  ToolExecutionError.refused(`${quote(shown)} changed while it was being opened; it was not read`)

/**
 * Node's flags for opening a checked file to read. Effect's `FileSystem.open` can refuse a link (`noFollow`), but
 * cannot ask not to block: a FIFO swapped in after the check would hang the open until a writer came. So this one
 * step uses `node:fs`: `O_NOFOLLOW` refuses a link at the last name, `O_NONBLOCK` makes a FIFO open at once (it is
 * refused by its type right after), and `O_NOCTTY` keeps a terminal from becoming the process's own. Platforms
 * without a flag (Windows has none of them) get 0 for it: the identity check after the open still holds there.
 */
const readFlags = fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0) |
  (fsConstants.O_NOCTTY ?? 0)

/** A file opened to read: the handle, and what its `fstat` said when it was opened. */
export interface OpenedFile {
  readonly handle: FileHandle
  readonly size: bigint
  readonly identity: Identity
  readonly mtimeMs: bigint
  /** How many names the file has: more than one means hard links, which may be outside the root. */
  readonly links: bigint
}

/**
 * Opens a regular file that was resolved inside the root and checked (`checked` is its `lstat`), and proves that
 * the file opened is the one checked, and where it was checked: the handle's `fstat` (which Effect's `File.stat`
 * would give too, but this handle is Node's) must be a regular file with the same device and inode, and the file
 * must be at `real`. A link swapped in at the last name fails the open; another file swapped in is refused by its
 * identity; a folder on the way swapped for a link that points out before the `lstat` (so that the `lstat` and the
 * open both went out) is refused by where the file is: with {@link Root.descriptorPaths} the descriptor's own path
 * must read back as `real`; elsewhere `real` must still resolve to itself and be the file opened (what remains
 * there: a folder swapped out and back between the open and that check). The handle is closed when the scope closes.
 */
export const openChecked = (
  root: Root,
  real: string,
  shown: string,
  checked: FileSystem.File.Info
): Effect.Effect<OpenedFile, ToolExecutionError.ToolExecutionError, Scope.Scope> =>
  Effect.gen(function*() {
    const expected = identityOf(checked)
    // Without an inode, the file opened cannot be shown to be the one checked.
    if (Option.isNone(expected)) return yield* Effect.fail(changed(shown))
    const handle = yield* openPath(real, shown, readFlags, changed(shown))
    const stats = yield* Effect.tryPromise({
      try: () => handle.stat({ bigint: true }),
      catch: (cause) => unreadable(shown, cause)
    })
    const identity = identityOfStats(stats)
    if (!stats.isFile() || !sameIdentity(identity, expected.value)) return yield* Effect.fail(changed(shown))
    const inPlace = root.descriptorPaths
      ? Effect.map(Effect.option(root.fs.readLink(descriptorPath(handle))), (where) =>
        Option.isSome(where) && where.value === real)
      : Effect.map(
        Effect.all([Effect.option(root.fs.realPath(real)), Effect.option(root.fs.lstat(real))]),
        ([now, info]) =>
          Option.isSome(now) && now.value === real && Option.isSome(info) && sameFile(info.value, checked)
      )
    if (!(yield* inPlace)) return yield* Effect.fail(changed(shown))
    return { handle, size: stats.size, identity, mtimeMs: stats.mtimeMs, links: stats.nlink }
  })

/** What {@link readCapped} read. */
export interface Read {
  readonly bytes: Uint8Array
  /** True when the file has more bytes after these. */
  readonly more: boolean
}

/** Reads are made in pieces of this size, so that a file is never read whole to find out it is too big. */
const chunkSize = 64 * 1024

/**
 * Reads at most `max` bytes from `offset`, and whether more follow. Reads until the end of the file or the cap,
 * never past it (one byte past, to know whether there is more): a 2 GB file costs `max` bytes.
 */
export const readCapped = (
  opened: OpenedFile,
  shown: string,
  offset: number,
  max: number
): Effect.Effect<Read, ToolExecutionError.ToolExecutionError> =>
  Effect.tryPromise({
    try: async () => {
      const pieces: Array<Uint8Array> = []
      let total = 0
      while (total < max) {
        const piece = new Uint8Array(Math.min(chunkSize, max - total))
        const { bytesRead } = await opened.handle.read(piece, 0, piece.length, offset + total)
        if (bytesRead === 0) break
        pieces.push(bytesRead === piece.length ? piece : piece.subarray(0, bytesRead))
        total += bytesRead
      }
      let more = false
      if (total === max) {
        const probe = new Uint8Array(1)
        more = (await opened.handle.read(probe, 0, 1, offset + total)).bytesRead > 0
      }
      const bytes = new Uint8Array(total)
      let at = 0
      for (const piece of pieces) {
        bytes.set(piece, at)
        at += piece.length
      }
      return { bytes, more }
    },
    catch: (cause) => unreadable(shown, cause)
  })

/** How many leading bytes of `bytes` end on a whole UTF-8 character: a cut in the middle of one is moved before it. */
export const wholeUtf8Length = (bytes: Uint8Array): number => {
  const length = bytes.length
  let start = length - 1
  // Continuation bytes are 10xxxxxx; a character is at most 4 bytes.
  while (start >= 0 && start > length - 4 && (bytes[start] & 0xc0) === 0x80) start--
  if (start < 0) return length
  const lead = bytes[start]
  const needed = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
  return length - start < needed ? start : length
}

/** Temporary names are random: nobody can put a link where the next one will be made. */
const randomSuffix = (): string => {
  const bytes = new Uint8Array(8)
  globalThis.crypto.getRandomValues(bytes)
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")
}

/** What a write must still find when it renames: the file it read, for an edit. */
export interface Expected {
  readonly identity: Identity
  readonly size: bigint
  readonly mtimeMs: bigint
}

/** The identity and version of an opened file, for a later write to check against. */
export const expectedOf = (opened: OpenedFile): Expected => ({
  identity: opened.identity,
  size: opened.size,
  mtimeMs: opened.mtimeMs
})

/**
 * Writes `bytes` to a checked target atomically: to a new temporary file in the same folder (created exclusively, so
 * never through a link), synced, then renamed over the target. A rename replaces the name, never follows a link put
 * there, and never writes into the file another name shares. Before the rename, the folder must still be the one
 * checked and the temporary file the one written; for an edit, the target must still be the file that was read.
 * The temporary file is removed on any failure.
 */
export const writeAtomically = (
  root: Root,
  target: WriteTarget,
  bytes: Uint8Array,
  expected: Option.Option<Expected>
): Effect.Effect<void, ToolExecutionError.ToolExecutionError> =>
  Effect.suspend(() => {
    const { fs, path } = root
    const shown = target.shown
    // The name's start keeps a leftover recognizable; the length stays under the usual 255-byte limit of a name.
    const temporary = path.join(target.folder, `.${path.basename(target.real).slice(0, 64)}.${randomSuffix()}.tmp`)
    // The existing file's permissions carry over; a new file gets the usual 0666 less the umask.
    const mode = Option.match(target.existing, { onNone: () => 0o666, onSome: (info) => info.mode & 0o777 })
    const failed = (error: PlatformError.PlatformError) => fromPlatformError(error, shown, "written")
    const folderChanged = () =>
      ToolExecutionError.refused(`the folder of ${quote(shown)} changed while it was written; nothing was written`)
    let created = false
    /**
     * The temporary file is where it was meant to be: the folder is still the one checked, and the name in it is the
     * file this write made. Checked before any content is written (so that a folder swapped for a link before the
     * temporary file was made gets an empty file at most, never the content) and again before the rename.
     */
    const inPlace = (made: FileSystem.File.Info) =>
      Effect.gen(function*() {
        const folderNow = yield* fs.lstat(target.folder).pipe(Effect.mapError(failed))
        const temporaryNow = yield* fs.lstat(temporary).pipe(
          Effect.map(Option.some),
          Effect.catchIf((error) => error.reason._tag === "NotFound", () => Effect.succeedNone),
          Effect.mapError(failed)
        )
        if (
          folderNow.type !== "Directory" || !sameFile(folderNow, target.folderInfo) ||
          Option.isNone(temporaryNow) || !sameFile(temporaryNow.value, made)
        ) {
          return yield* Effect.fail(folderChanged())
        }
      })
    return Effect.gen(function*() {
      const made = yield* Effect.scoped(
        Effect.gen(function*() {
          // "wx" is O_CREAT | O_EXCL: the open fails on any existing name, a link included, and follows none.
          const file = yield* fs.open(temporary, { flag: "wx", mode }).pipe(Effect.mapError(failed))
          created = true
          const made = yield* file.stat.pipe(Effect.mapError(failed))
          yield* inPlace(made)
          yield* file.writeAll(bytes).pipe(Effect.mapError(failed))
          yield* file.sync.pipe(Effect.mapError(failed))
          return made
        })
      )
      yield* inPlace(made)
      if (Option.isSome(expected)) {
        const now = yield* fs.lstat(target.real).pipe(Effect.mapError(failed))
        if (!isUnchanged(now, expected.value)) {
          return yield* Effect.fail(
            ToolExecutionError.invalidArgs(`${quote(shown)} changed while it was being edited; read it again and retry`)
          )
        }
      }
      yield* fs.rename(temporary, target.real).pipe(Effect.mapError(failed))
    }).pipe(
      // No temporary file is left behind, whatever failed; one this write did not make is never removed.
      Effect.onError(() => created ? Effect.ignore(fs.remove(temporary)) : Effect.void)
    )
  })

/** The file at a name is still the one read: the same inode, size and modification time (to the millisecond). */
const isUnchanged = (now: FileSystem.File.Info, expected: Expected): boolean =>
  now.type === "File" &&
  Option.match(identityOf(now), {
    onNone: () => false,
    onSome: (identity) => sameIdentity(identity, expected.identity)
  }) &&
  BigInt(now.size) === expected.size &&
  Option.match(now.mtime, { onNone: () => true, onSome: (mtime) => BigInt(mtime.getTime()) === expected.mtimeMs })
