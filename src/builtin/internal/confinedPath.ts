/**
 * Paths confined to a root folder. Every path a filesystem tool is given is resolved here: first lexically (no
 * absolute paths, no `..` above the root), then through the file system with `realpath`, and the real path is
 * refused unless it is the root or under it. What the model sent is never decoded (no URL decoding, no Unicode
 * normalization): `%2e%2e%2f` and `．．／` are names like any other, which stay inside the root.
 */
import { Effect, type FileSystem, Option, type Path, type PlatformError } from "effect"
import * as ToolExecutionError from "../../ToolExecutionError.ts"

/** The root folder of a set of filesystem tools, and the services that reach it. */
export interface Root {
  readonly fs: FileSystem.FileSystem
  readonly path: Path.Path
  /** The root's real path (no symbolic link in it), which every resolved path must be or lie under. */
  readonly real: string
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

/**
 * The real path of a folder under the root, made if it is missing: each missing folder is made on its own (never
 * through a link), and each existing one must resolve inside the root and be a folder.
 */
const ensureFolder = (
  root: Root,
  folder: string
): Effect.Effect<string, ToolExecutionError.ToolExecutionError> =>
  Effect.gen(function*() {
    const relative = root.path.relative(root.real, folder)
    let current = root.real
    for (const name of relative === "" ? [] : relative.split(root.path.sep)) {
      const next = root.path.join(current, name)
      const shown = shownOf(root, next)
      const resolved = yield* root.fs.realPath(next).pipe(
        Effect.map(Option.some),
        Effect.catchIf(isMissing, () => Effect.succeedNone),
        Effect.mapError((error) => fromPlatformError(error, shown, "resolved"))
      )
      if (Option.isNone(resolved)) {
        // Not recursive: a link put in its place since (or one pointing to a missing target) makes it fail, and is
        // never followed.
        yield* root.fs.makeDirectory(next).pipe(
          Effect.mapError((error) =>
            error.reason._tag === "AlreadyExists"
              ? ToolExecutionError.refused(`${quote(shown)} is a symbolic link to a missing target; it is not followed`)
              : fromPlatformError(error, shown, "made")
          )
        )
      }
      const real = Option.isSome(resolved)
        ? resolved.value
        : yield* root.fs.realPath(next).pipe(Effect.mapError((error) => fromPlatformError(error, shown, "resolved")))
      if (!isInside(root, real)) return yield* Effect.fail(throughLink(shown))
      const info = yield* root.fs.stat(real).pipe(Effect.mapError((error) => fromPlatformError(error, shown, "read")))
      if (info.type !== "Directory") {
        return yield* Effect.fail(ToolExecutionError.invalidArgs(`${quote(shown)} is a file, not a folder`))
      }
      current = real
    }
    return current
  })

/**
 * Resolves the path of a file to write. An existing file resolves as {@link resolveExisting} does, and must be a
 * regular file; for a new one, its folder (made if missing) must resolve inside the root, and its name must not be
 * taken by a link to a missing target.
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
    const folderInfo = yield* root.fs.lstat(folder).pipe(
      Effect.mapError((error) => fromPlatformError(error, shownOf(root, folder), "read"))
    )
    if (folderInfo.type !== "Directory") {
      return yield* Effect.fail(
        ToolExecutionError.refused(`the folder of ${quote(shown)} changed while it was checked`)
      )
    }
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
        return yield* Effect.fail(
          ToolExecutionError.refused(`${quote(shown)} is a symbolic link to a missing target; it is not followed`)
        )
      }
      if (type !== "File") {
        return yield* Effect.fail(ToolExecutionError.refused(`${quote(shown)} is not a regular file`))
      }
    }
    return { folder, folderInfo, real, shown, existing }
  })
