import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative, sep } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { vi } from "vitest"

const root = fileURLToPath(new URL("..", import.meta.url))
const src = join(root, "src")

const readJson = (path: string): unknown => JSON.parse(readFileSync(join(root, path), "utf8"))

/** Every `.ts` file under `src/`, by path without the extension. */
const allModules: ReadonlyArray<string> = (() => {
  const walk = (dir: string): Array<string> =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name)
      return statSync(path).isDirectory() ? walk(path) : path.endsWith(".ts") ? [path] : []
    })
  return walk(src).map((path) => relative(src, path).split(sep).join("/").replace(/\.ts$/, "")).sort()
})()

/**
 * The optional parts, each a folder with an `index.ts` exported at its own subpath (`effect-llm-tools/mcp`) and
 * never loaded by the core, with the namespaces that index gives.
 */
const optionalParts: Readonly<Record<string, ReadonlyArray<string>>> = {
  mcp: ["McpClient", "McpContent", "McpServer"],
  builtin: ["Builtin"],
  ai: ["AiToolkit", "ToolLoop"],
  testing: ["ToolTesting"]
}
const subpaths: ReadonlyArray<string> = Object.keys(optionalParts)

/** Folders under `src/` that are neither core modules nor optional parts: the command-line program. */
const programs: ReadonlyArray<string> = ["bin"]

/**
 * Every core module a user may import: each `.ts` file under `src/` but `index.ts`, `src/internal/` and the
 * optional parts, by path.
 */
const publicModules: ReadonlyArray<string> = allModules.filter((module) =>
  module !== "index" && !module.startsWith("internal/") &&
  ![...subpaths, ...programs].some((folder) => module.startsWith(`${folder}/`))
)

/** The modules `entry` loads, following its relative imports, and the packages it imports by name. */
const importGraph = (entry: string): { readonly modules: Set<string>; readonly packages: Set<string> } => {
  const modules = new Set<string>()
  const packages = new Set<string>()
  const visit = (module: string) => {
    if (modules.has(module)) return
    modules.add(module)
    const text = readFileSync(join(src, `${module}.ts`), "utf8")
    // Type-only imports load nothing at run time.
    for (const [, typeOnly, specifier] of text.matchAll(/^(?:import|export)\s+(type\s+)?[^"']*?from\s+"([^"]+)"/gm)) {
      if (typeOnly !== undefined) continue
      if (specifier!.startsWith(".")) {
        visit(join(module, "..", specifier!).split(sep).join("/").replace(/\.ts$/, ""))
      } else packages.add(specifier!)
    }
  }
  visit(entry)
  return { modules, packages }
}

const baseName = (module: string): string => module.slice(module.lastIndexOf("/") + 1)

const importModule = (module: string): Promise<Record<string, unknown>> =>
  import(/* @vite-ignore */ pathToFileURL(join(src, `${module}.ts`)).href)

const packageJson = readJson("package.json") as {
  readonly name: string
  readonly files: ReadonlyArray<string>
  readonly exports: Record<string, unknown>
}

describe("package", () => {
  it("finds the public modules, provider adapters included", () => {
    // A walk that found nothing would make every check below vacuous.
    assert.includeMembers([...publicModules], ["Tool", "ToolSet", "provider/OpenAiChat", "provider/Anthropic"])
  })

  it("exports the root and every public module at its own path, each pointing at the file the build writes", () => {
    const expected: Record<string, unknown> = {
      ".": { types: "./dist/index.d.ts", default: "./dist/index.js" },
      "./package.json": "./package.json"
    }
    for (const module of publicModules) {
      expected[`./${module}`] = { types: `./dist/${module}.d.ts`, default: `./dist/${module}.js` }
    }
    for (const sub of subpaths) {
      expected[`./${sub}`] = { types: `./dist/${sub}/index.d.ts`, default: `./dist/${sub}/index.js` }
    }
    // Equal as a whole: no module is left out, and nothing else (src/internal/ above all) is exported.
    assert.deepStrictEqual(packageJson.exports, expected)
  })

  // `default`, not `import`: Node 20.19 and later `require()` an ES module, so a CommonJS program loads the package too
  // (it has no top-level await), as TypeScript's `types` condition already told it could.
  it("lists `types` first in every export, where TypeScript looks for it, then `default`", () => {
    const conditions = Object.values(packageJson.exports)
      .filter((target) => typeof target === "object")
      .map((target) => Object.keys(target as object))
    assert.deepStrictEqual(conditions, conditions.map(() => ["types", "default"]))
  })

  it("builds each src/ file to the same path under dist/, which the package ships", () => {
    const build = readJson("tsconfig.build.json") as {
      readonly compilerOptions: { readonly rootDir: string; readonly outDir: string; readonly declaration: boolean }
      readonly include: ReadonlyArray<string>
    }
    assert.deepStrictEqual(
      [build.compilerOptions.rootDir, build.compilerOptions.outDir, build.compilerOptions.declaration, build.include],
      ["src", "dist", true, ["src"]]
    )
    assert.includeMembers([...packageJson.files], ["dist"])
  })

  it("re-exports every public module from index.ts as a namespace named after its file", async () => {
    const index = readFileSync(join(src, "index.ts"), "utf8")
    const reexports = [...index.matchAll(/^export \* as (\w+) from "\.\/(.+)\.ts"$/gm)]
      .map(([, name, path]) => `${name} from ${path}`)
      .sort()
    assert.deepStrictEqual(reexports, publicModules.map((module) => `${baseName(module)} from ${module}`).sort())
    // The namespace is the module itself, not a copy.
    const Index: Record<string, unknown> = await import("../src/index.ts")
    for (const module of publicModules) {
      assert.strictEqual(Index[baseName(module)], await importModule(module), module)
    }
  })

  it("the core loads nothing of an optional part, nor the packages only those need", () => {
    const core = importGraph("index")
    assert.includeMembers([...core.modules], ["index", "ToolSet", "internal/dispatch"])
    for (const folder of [...subpaths, ...programs]) {
      assert.deepStrictEqual([...core.modules].filter((module) => module.startsWith(`${folder}/`)), [], folder)
    }
    for (const sub of subpaths) assert.include([...importGraph(`${sub}/index`).modules].join(" "), `${sub}/`)
    // The packages only optional parts need: effect/ai and Effect's platform layers, the built-ins' address and HTML
    // helpers, and Effect's CLI.
    const onlyOptional = (name: string) =>
      name.startsWith("effect/ai") || name.startsWith("effect/cli") || name.startsWith("@effect/platform") ||
      name === "ipaddr.js" || name === "entities" || name.startsWith("entities/")
    assert.deepStrictEqual([...core.packages].filter(onlyOptional), [])
    assert.includeMembers([...importGraph("mcp/index").packages], ["effect/ai", "@effect/platform-node/NodeStdio"])
    assert.includeMembers([...importGraph("builtin/index").packages], ["ipaddr.js", "entities/decode"])
    assert.includeMembers([...importGraph("ai/index").packages], ["effect/ai"])
  })

  it("gives the namespaces of each optional part from its index.ts, and nothing else", async () => {
    for (const sub of subpaths) {
      const index = readFileSync(join(src, sub, "index.ts"), "utf8")
      const reexported = [...index.matchAll(/^export \* as (\w+) from "\.\/(.+)\.ts"$/gm)].map(([, name]) => name!)
      assert.deepStrictEqual(reexported.sort(), [...optionalParts[sub]!], sub)
      const loaded = await importModule(`${sub}/index`)
      assert.deepStrictEqual(Object.keys(loaded).sort(), [...optionalParts[sub]!], sub)
    }
  })

  it("reaches every module of an optional part from its index.ts, its internals included", () => {
    for (const sub of subpaths) {
      const reached = importGraph(`${sub}/index`).modules
      const modules = allModules.filter((module) => module.startsWith(`${sub}/`))
      assert.deepStrictEqual(modules.filter((module) => !reached.has(module)), [], sub)
    }
  })

  it("loads each public module as an entry of its own, before anything else", async () => {
    for (const module of publicModules) {
      vi.resetModules()
      const loaded = await importModule(module)
      assert.isAbove(Object.keys(loaded).length, 0, module)
    }
  })
})
