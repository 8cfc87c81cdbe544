/**
 * Paths confined to a root folder. Every path a filesystem tool is given is resolved here: first lexically (no
 * absolute paths, no `..` above the root), then through the file system with `realpath`, and the real path is
 * refused unless it is the root or under it. What the model sent is never decoded (no URL decoding, no Unicode
 * normalization): `%2e%2e%2f` and `．．／` are names like any other, which stay inside the root.
 *
 * A check by path holds only until someone renames something: a folder on the way swapped for a link after the
 * check leads the next use of the same path elsewhere. So a folder is used through {@link withFolder}, which opens it
 * and proves that the folder opened is the one resolved, and, where the system allows it, uses it through that open
 * descriptor rather than by its path again.
 */
import { Effect, type FileSystem, Option, type Path, type PlatformError } from "effect"
import { constants as fsConstants } from "node:fs"
import { type FileHandle, open as openHandle, rmdir } from "node:fs/promises"
import * as ToolExecutionError from "../../ToolExecutionError.ts"

/** The root folder of a set of filesystem tools, and the services that reach it. */
export interface Root {
  readonly fs: FileSystem.FileSystem
  readonly path: Path.Path
  /** The root's real path (no symbolic link in it), which every resolved path must be or lie under. */
  readonly real: string
  /**
   * True when `/proc/self/fd/<n>` names the very file descriptor `<n>` has open, and reading that link back gives
   * its path (Linux; see {@link probeDescriptorPaths}). Folders are then used through the descriptor that was
   * checked, never by their path again.
   */
  readonly descriptorPaths: boolean
}

/** A path that resolved inside the root. */
export interface Resolved {
  /** Its real path. */
  readonly real: string
  /** What the model may be shown: the real path relative to the root, `/`-separated, `.` for the root. */
  readonly shown: string
}

/** Longer paths are refused before they reach the file system: no real path needs more. */
export const maxPathLength = 4096

/**
 * Paths with more names than this are refused before they reach the file system: each name costs a lookup, and a
 * write makes the missing folders one by one, so a path of thousands of `a/` would cost thousands of system calls.
 */
export const maxPathNames = 128

/** How much of a path a message repeats. */
const maxShownLength = 256

/**
 * A root-relative path quoted for a message: JSON-quoted, so that control characters and quotes in a name cannot
 * change what the message says, and cut to a bounded length.
 */
export const quote = (shown: string): string => {
  if (shown.length <= maxShownLength) return JSON.stringify(shown)
  const last = shown.charCodeAt(maxShownLength - 1)
  const end = last >= 0xd800 && last <= 0xdbff ? maxShownLength - 1 : maxShownLength
  return `${JSON.stringify(shown.slice(0, end))}…`
}

/** True when `real` is the root or lies under it. */
export const isInside = (root: Root, real: string): boolean => {
  const relative = root.path.relative(root.real, real)
  return relative === "" ||
    !(relative === ".." || relative.startsWith(`..${root.path.sep}`) || root.path.isAbsolute(relative))
}

/** The root-relative, `/`-separated form of a path under the root. */
export const shownOf = (root: Root, absolute: string): string => {
  const relative = root.path.relative(root.real, absolute)
  return relative === "" ? "." : root.path.sep === "/" ? relative : relative.split(root.path.sep).join("/")
}

const outside = () => ToolExecutionError.refused("the path leads outside the root folder; paths stay under it")

const throughLink = (shown: string) =>
  ToolExecutionError.refused(`${quote(shown)} leads outside the root folder through a symbolic link`)

/** How many names a path has: its parts between separators, `.` and `..` included, empty parts not. */
const namesIn = (root: Root, input: string): number => {
  let names = 0
  let inName = false
  for (let i = 0; i < input.length; i++) {
    const char = input[i]
    if (char === "/" || char === root.path.sep) {
      inName = false
    } else if (!inName) {
      inName = true
      names++
    }
  }
  return names
}

/**
 * The absolute path `input` names under the root, checked lexically only: not absolute, no NUL character, not too
 * long, and no `..` that climbs above the root. The model's own spelling is kept otherwise (nothing is decoded).
 */
export const lexical = (root: Root, input: string): Effect.Effect<string, ToolExecutionError.ToolExecutionError> =>
  Effect.suspend(() => {
    // The file system would cut the path at a NUL, or fail with a message that repeats it.
    if (input.includes("\u0000")) {
      return Effect.fail(ToolExecutionError.invalidArgs("a path must not contain a NUL character"))
    }
    if (input.length > maxPathLength) {
      return Effect.fail(ToolExecutionError.invalidArgs(`a path must be at most ${maxPathLength} characters long`))
    }
    if (namesIn(root, input) > maxPathNames) {
      return Effect.fail(
        ToolExecutionError.invalidArgs(`a path must have at most ${maxPathNames} names (the parts between slashes)`)
      )
    }
    // A root of its own: `/etc`, and on Windows `C:\`, `C:x` (relative to a drive's own current folder), `\\host\x`.
    if (root.path.isAbsolute(input) || root.path.parse(input).root !== "") {
      return Effect.fail(
        ToolExecutionError.refused(
          "absolute paths are refused: give a path relative to the root folder, such as \"docs/notes.md\""
        )
      )
    }
    return Option.match(root.path.resolveWithin(root.real, input), {
      onNone: () => Effect.fail(outside()),
      onSome: Effect.succeed
    })
  })

/** The errno code behind a platform error, when Node gave one. */
const codeOf = (error: PlatformError.PlatformError): string | undefined => {
  const cause: unknown = error.reason.cause
  if (typeof cause !== "object" || cause === null) return undefined
  const code: unknown = (cause as { readonly code?: unknown }).code
  return typeof code === "string" ? code : undefined
}

/**
 * A failure of the file system as the model sees it: what went wrong with which root-relative path, never the
 * system's own text (it carries absolute paths). The platform error is kept as the cause, for operators.
 */
export const fromPlatformError = (
  error: PlatformError.PlatformError,
  shown: string,
  doing: string
): ToolExecutionError.ToolExecutionError => {
  const code = codeOf(error)
  const quoted = quote(shown)
  const failure = error.reason._tag === "NotFound" || code === "ENOENT"
    ? ToolExecutionError.notFound(`${quoted} does not exist`)
    : code === "ENOTDIR"
    ? ToolExecutionError.notFound(`${quoted} does not exist: a part of its path is a file, not a folder`)
    : code === "ELOOP"
    ? ToolExecutionError.invalidArgs(`${quoted} cannot be resolved: it leads through a loop of symbolic links`)
    : code === "ENAMETOOLONG"
    ? ToolExecutionError.invalidArgs(`${quoted} cannot be resolved: a name in it is too long`)
    : error.reason._tag === "PermissionDenied"
    ? ToolExecutionError.permissionDenied(`the operating system denied access to ${quoted}`)
    : ToolExecutionError.other(`${quoted} could not be ${doing}`)
  return ToolExecutionError.withCause(failure, error)
}

/**
 * Resolves a path that must exist: its real path, with every symbolic link followed, must be inside the root. A link
 * that points out, or a parent folder that is a link pointing out, is refused; a missing path is `not_found`.
 */
export const resolveExisting = (
  root: Root,
  input: string
): Effect.Effect<Resolved, ToolExecutionError.ToolExecutionError> =>
  Effect.gen(function*() {
    const candidate = yield* lexical(root, input)
    const shown = shownOf(root, candidate)
    const real = yield* root.fs.realPath(candidate).pipe(
      Effect.mapError((error) => fromPlatformError(error, shown, "resolved"))
    )
    if (!isInside(root, real)) return yield* Effect.fail(throughLink(shown))
    return { real, shown: shownOf(root, real) }
  })

// ---------------------------------------------------------------------------------------------------------------------
// identity, and folders used through their descriptor
// ---------------------------------------------------------------------------------------------------------------------

/** The identity of a file: device and inode, as Effect's Node file system reports them (unsigned 64-bit). */
export interface Identity {
  readonly dev: bigint
  readonly ino: bigint
}

/** The identity in an `lstat`; none when the file system gave no inode. */
export const identityOf = (info: FileSystem.File.Info): Option.Option<Identity> =>
  Option.map(info.ino, (ino) => ({ dev: info.dev, ino }))

/** The identity in a Node `fstat` taken with `bigint: true`. */
export const identityOfStats = (stats: { readonly dev: bigint; readonly ino: bigint }): Identity =>
  // Node reads these as signed 64-bit numbers; Effect's file system reports them unsigned.
  ({ dev: BigInt.asUintN(64, stats.dev), ino: BigInt.asUintN(64, stats.ino) })

/** The same device and inode: the same file, whatever its names. */
export const sameIdentity = (a: Identity, b: Identity): boolean => a.dev === b.dev && a.ino === b.ino

/** Two `lstat`s are of the same file; without an inode, that cannot be shown, and they are not. */
export const sameFile = (a: FileSystem.File.Info, b: FileSystem.File.Info): boolean =>
  Option.match(Option.all([identityOf(a), identityOf(b)]), {
    onNone: () => false,
    onSome: ([x, y]) => sameIdentity(x, y)
  })

const isIdentity = (info: FileSystem.File.Info, identity: Identity): boolean =>
  Option.match(identityOf(info), { onNone: () => false, onSome: (own) => sameIdentity(own, identity) })

/** On Linux, this followed by a descriptor's number names the very file the descriptor has open. */
const descriptorPrefix = "/proc/self/fd/"

/** The path that reaches what `handle` has open, when {@link Root.descriptorPaths} holds. */
export const descriptorPath = (handle: FileHandle): string => `${descriptorPrefix}${handle.fd}`

/**
 * Node's flags for opening a folder: `O_DIRECTORY` refuses anything else, `O_NOFOLLOW` a link at the last name;
 * `O_NONBLOCK` and `O_NOCTTY` make sure that whatever is there is never waited on or made the process's terminal.
 * Platforms without a flag get 0 for it.
 */
const folderFlags = fsConstants.O_RDONLY | (fsConstants.O_DIRECTORY ?? 0) | (fsConstants.O_NOFOLLOW ?? 0) |
  (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOCTTY ?? 0)

/** The errno code of a rejection from `node:fs`. */
const errnoOf = (cause: unknown): unknown =>
  typeof cause === "object" && cause !== null ? (cause as { readonly code?: unknown }).code : undefined

/**
 * Opens `real` with Node's `flags`, closed when the scope closes. A missing path, a link at the last name
 * (`ELOOP`; `EMLINK` on FreeBSD) or the wrong type (`ENOTDIR`) means it changed since it was checked.
 */
export const openPath = (real: string, shown: string, flags: number, changed: ToolExecutionError.ToolExecutionError) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => openHandle(real, flags),
      catch: (cause) => {
        const code = errnoOf(cause)
        const error = code === "ELOOP" || code === "EMLINK" || code === "ENOENT" || code === "ENOTDIR"
          ? changed
          : code === "EACCES" || code === "EPERM"
          ? ToolExecutionError.permissionDenied(`the operating system denied access to ${quote(shown)}`)
          : ToolExecutionError.other(`${quote(shown)} could not be opened`)
        return ToolExecutionError.withCause(error, cause)
      }
    }),
    (handle) => Effect.promise(() => handle.close().catch(() => undefined))
  )

/**
 * Whether `/proc/self/fd/<n>` works here: the root, opened, reads back as its own real path. Probed once, when a set
 * of tools is built; anywhere it does not hold (macOS, Windows, a Linux without `/proc`), the tools fall back on
 * checking a folder again after using it by path.
 */
export const probeDescriptorPaths = (fs: FileSystem.FileSystem, real: string): Effect.Effect<boolean> =>
  Effect.scoped(Effect.gen(function*() {
    const handle = yield* openPath(real, ".", folderFlags, outside())
    return (yield* fs.readLink(descriptorPath(handle))) === real
  })).pipe(Effect.orElseSucceed(() => false))

/**
 * Uses the folder `real` (resolved inside the root; `checked` is its `lstat` when the caller has one) through a path
 * that is proven to reach that folder, so that a folder swapped for a link after it was checked is never used:
 *
 * - with {@link Root.descriptorPaths} (Linux), the folder is opened (`O_DIRECTORY | O_NOFOLLOW`), its descriptor's
 *   path must read back as `real` (the system's own answer to "where is what this descriptor has open", which no
 *   later rename can fool), and `use` gets `/proc/self/fd/<n>`: the very folder opened, whatever happens to its
 *   path meanwhile. Names under it (`/proc/self/fd/<n>/name`) are looked up in that folder too.
 * - elsewhere, `use` gets `real`, and afterwards the path must still resolve to itself and be the same folder as
 *   before; if not, what `use` found is dropped and the call fails with `changed`. What remains there: a folder
 *   swapped for a link and back again while `use` runs is not seen.
 */
export const withFolder = <A, E, R>(
  root: Root,
  real: string,
  shown: string,
  checked: Option.Option<FileSystem.File.Info>,
  changed: ToolExecutionError.ToolExecutionError,
  use: (at: string) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | ToolExecutionError.ToolExecutionError, R> => {
  if (root.descriptorPaths) {
    return Effect.scoped(Effect.gen(function*() {
      const handle = yield* openPath(real, shown, folderFlags, changed)
      const stats = yield* Effect.tryPromise({
        try: () => handle.stat({ bigint: true }),
        catch: (cause) =>
          ToolExecutionError.withCause(ToolExecutionError.other(`${quote(shown)} could not be read`), cause)
      })
      const identity = identityOfStats(stats)
      if (!stats.isDirectory() || (Option.isSome(checked) && !isIdentity(checked.value, identity))) {
        return yield* Effect.fail(changed)
      }
      const at = descriptorPath(handle)
      const where = yield* Effect.option(root.fs.readLink(at))
      if (Option.isNone(where) || where.value !== real) return yield* Effect.fail(changed)
      return yield* use(at)
    }))
  }
  return Effect.gen(function*() {
    const read = (error: PlatformError.PlatformError) => fromPlatformError(error, shown, "read")
    const before = Option.isSome(checked) ? checked.value : yield* root.fs.lstat(real).pipe(Effect.mapError(read))
    if (before.type !== "Directory" || Option.isNone(identityOf(before))) return yield* Effect.fail(changed)
    const result = yield* use(real)
    const now = yield* Effect.option(root.fs.realPath(real))
    const after = yield* Effect.option(root.fs.lstat(real))
    if (Option.isNone(now) || now.value !== real || Option.isNone(after) || !sameFile(after.value, before)) {
      return yield* Effect.fail(changed)
    }
    return result
  })
}

// ---------------------------------------------------------------------------------------------------------------------
// writing
// ---------------------------------------------------------------------------------------------------------------------

/** Where a file is to be written: its real folder, checked, and the name in it. */
export interface WriteTarget {
  /** The real path of the folder the file goes in, inside the root. */
  readonly folder: string
  /** The folder as it was checked: a write refuses to go on if it is no longer the same folder. */
  readonly folderInfo: FileSystem.File.Info
  /** The real path of the file: `folder` joined with its name. */
  readonly real: string
  readonly shown: string
  /** The file as it was checked, when it exists already (a regular file). */
  readonly existing: Option.Option<FileSystem.File.Info>
}

/** True for a platform error that says the path is missing. */
const isMissing = (error: PlatformError.PlatformError): boolean =>
  error.reason._tag === "NotFound" || codeOf(error) === "ENOENT"

const linkToMissing = (shown: string) =>
  ToolExecutionError.refused(`${quote(shown)} is a symbolic link to a missing target; it is not followed`)

const notAFolder = (shown: string) => ToolExecutionError.invalidArgs(`${quote(shown)} is a file, not a folder`)

const changedWhileMaking = (shown: string) =>
  ToolExecutionError.refused(`${quote(shown)} changed while a folder was being made in it; nothing was written`)

/**
 * The real path of a folder under the root, made if it is missing, in a number of system calls that grows with the
 * number of names in it, not its square: the deepest folder on the way that exists is found and resolved once
 * (inside the root, a folder, and proven to be the one resolved), then each missing folder is made in the one
 * before it, on its own (never through a link).
 *
 * A folder is made only in the folder checked: its parent is looked at right before and right after the `mkdir`;
 * if the parent was swapped meanwhile, the folder just made (wherever the swap led the `mkdir`) is removed again,
 * if it is still the one made and still empty, and the write is refused.
 */
const ensureFolder = (
  root: Root,
  folder: string
): Effect.Effect<string, ToolExecutionError.ToolExecutionError> =>
  Effect.gen(function*() {
    const relative = root.path.relative(root.real, folder)
    const names = relative === "" ? [] : relative.split(root.path.sep)
    // `stat` follows links: a link inside the root to a folder inside it counts as existing, and is resolved below.
    let existing = names.length
    while (existing > 0) {
      const at = root.path.join(root.real, ...names.slice(0, existing))
      const found = yield* root.fs.stat(at).pipe(
        Effect.as(true),
        Effect.catchIf(isMissing, () => Effect.succeed(false)),
        Effect.mapError((error) => fromPlatformError(error, shownOf(root, at), "resolved"))
      )
      if (found) break
      existing--
    }
    const base = root.path.join(root.real, ...names.slice(0, existing))
    const baseShown = shownOf(root, base)
    let current = yield* root.fs.realPath(base).pipe(
      Effect.mapError((error) => fromPlatformError(error, baseShown, "resolved"))
    )
    if (!isInside(root, current)) return yield* Effect.fail(throughLink(yield* firstLinkOut(root, names, existing)))
    let currentInfo = yield* root.fs.lstat(current).pipe(
      Effect.mapError((error) => fromPlatformError(error, baseShown, "read"))
    )
    if (currentInfo.type !== "Directory") return yield* Effect.fail(notAFolder(baseShown))
    yield* withFolder(root, current, baseShown, Option.some(currentInfo), changedWhileMaking(baseShown), () =>
      Effect.void)
    for (const name of names.slice(existing)) {
      const next = root.path.join(current, name)
      const shown = shownOf(root, next)
      const parentShown = shownOf(root, current)
      const parent = current
      const parentInfo = currentInfo
      const parentUnchanged = root.fs.lstat(parent).pipe(
        Effect.map((now) => now.type === "Directory" && sameFile(now, parentInfo)),
        Effect.orElseSucceed(() => false)
      )
      if (!(yield* parentUnchanged)) return yield* Effect.fail(changedWhileMaking(parentShown))
      // Not recursive: a link put in its place since (or one pointing to a missing target) makes it fail, and is
      // never followed.
      const made = yield* root.fs.makeDirectory(next).pipe(
        Effect.as(true),
        Effect.catchIf((error) => error.reason._tag === "AlreadyExists", () => Effect.succeed(false)),
        Effect.mapError((error) => fromPlatformError(error, shown, "made"))
      )
      const info = yield* root.fs.lstat(next).pipe(Effect.option)
      if (!(yield* parentUnchanged) || Option.isNone(info)) {
        if (made && Option.isSome(info)) yield* removeMadeFolder(root, next, info.value)
        return yield* Effect.fail(changedWhileMaking(parentShown))
      }
      // Something was there already (made since the check): a folder is used, a link is not followed.
      if (info.value.type === "SymbolicLink") return yield* Effect.fail(linkToMissing(shown))
      if (info.value.type !== "Directory") return yield* Effect.fail(notAFolder(shown))
      current = next
      currentInfo = info.value
    }
    return current
  })

/**
 * Which of the first `count` names leads out of the root: the message names the link itself, not the folder below it
 * that was being made. Only a refused write pays for this search, and a path has at most {@link maxPathNames} names.
 */
const firstLinkOut = (root: Root, names: ReadonlyArray<string>, count: number): Effect.Effect<string> =>
  Effect.gen(function*() {
    for (let length = 1; length < count; length++) {
      const at = root.path.join(root.real, ...names.slice(0, length))
      const real = yield* Effect.option(root.fs.realPath(at))
      if (Option.isSome(real) && !isInside(root, real.value)) return shownOf(root, at)
    }
    return shownOf(root, root.path.join(root.real, ...names.slice(0, count)))
  })

/** Removes a folder this write made, if the name still holds it: `rmdir`, which removes only an empty folder. */
const removeMadeFolder = (root: Root, path: string, made: FileSystem.File.Info): Effect.Effect<void> =>
  Effect.gen(function*() {
    const now = yield* Effect.option(root.fs.lstat(path))
    if (Option.isSome(now) && now.value.type === "Directory" && sameFile(now.value, made)) {
      yield* Effect.promise(() => rmdir(path).catch(() => undefined))
    }
  })

/**
 * Resolves the path of a file to write. An existing file resolves as {@link resolveExisting} does, and must be a
 * regular file; for a new one, its folder (made if missing) must resolve inside the root, and its name must not be
 * taken by a link to a missing target. The folder is proven to be the one resolved (see {@link withFolder}).
 */
export const resolveForWrite = (
  root: Root,
  input: string
): Effect.Effect<WriteTarget, ToolExecutionError.ToolExecutionError> =>
  Effect.gen(function*() {
    const candidate = yield* lexical(root, input)
    const shownCandidate = shownOf(root, candidate)
    if (candidate === root.real) {
      return yield* Effect.fail(ToolExecutionError.invalidArgs("the root folder is not a file: give a file's path"))
    }
    // `notes/` (or `notes/.`) names a folder: a file written there under the name `notes` is not what was asked.
    if (/\/\.{0,2}$/.test(input)) {
      return yield* Effect.fail(
        ToolExecutionError.invalidArgs(`${quote(shownCandidate)} is written as a folder's path: give a file's path`)
      )
    }
    const resolved = yield* root.fs.realPath(candidate).pipe(
      Effect.map(Option.some),
      Effect.catchIf(isMissing, () => Effect.succeedNone),
      Effect.mapError((error) => fromPlatformError(error, shownCandidate, "resolved"))
    )
    const real = Option.isSome(resolved)
      ? resolved.value
      : root.path.join(yield* ensureFolder(root, root.path.dirname(candidate)), root.path.basename(candidate))
    if (!isInside(root, real)) return yield* Effect.fail(throughLink(shownCandidate))
    const shown = shownOf(root, real)
    const folder = root.path.dirname(real)
    if (real === root.real) {
      return yield* Effect.fail(ToolExecutionError.invalidArgs("the root folder is not a file: give a file's path"))
    }
    const folderShown = shownOf(root, folder)
    const folderChanged = ToolExecutionError.refused(`the folder of ${quote(shown)} changed while it was checked`)
    // The identity of the folder, taken where it is proven to be the folder resolved (see `withFolder`): an `lstat`
    // by path alone follows any folder on the way that was swapped for a link since `realpath`. The write checks
    // the folder against it before it renames.
    const proven = yield* withFolder(root, folder, folderShown, Option.none(), folderChanged, (at) =>
      root.fs.stat(at).pipe(Effect.mapError((error) => fromPlatformError(error, folderShown, "read"))))
    const folderInfo = yield* root.fs.lstat(folder).pipe(
      Effect.mapError((error) => fromPlatformError(error, folderShown, "read"))
    )
    if (folderInfo.type !== "Directory" || !sameFile(folderInfo, proven)) return yield* Effect.fail(folderChanged)
    const existing = yield* root.fs.lstat(real).pipe(
      Effect.map(Option.some),
      Effect.catchIf(isMissing, () => Effect.succeedNone),
      Effect.mapError((error) => fromPlatformError(error, shown, "read"))
    )
    if (Option.isSome(existing)) {
      const type = existing.value.type
      if (type === "Directory") {
        return yield* Effect.fail(ToolExecutionError.invalidArgs(`${quote(shown)} is a folder, not a file`))
      }
      if (type === "SymbolicLink") {
        // realpath found nothing there, yet something is: a link to a missing target, which a write must not follow.
        return yield* Effect.fail(linkToMissing(shown))
      }
      if (type !== "File") {
        return yield* Effect.fail(ToolExecutionError.refused(`${quote(shown)} is not a regular file`))
      }
    }
    return { folder, folderInfo, real, shown, existing }
  })
