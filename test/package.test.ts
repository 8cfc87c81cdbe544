import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative, sep } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { vi } from "vitest"

const root = fileURLToPath(new URL("..", import.meta.url))
const src = join(root, "src")

const readJson = (path: string): unknown => JSON.parse(readFileSync(join(root, path), "utf8"))

/** Every module a user may import: each `.ts` file under `src/` but `index.ts` and `src/internal/`, by path. */
const publicModules: ReadonlyArray<string> = (() => {
  const walk = (dir: string): Array<string> =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name)
      return statSync(path).isDirectory() ? walk(path) : path.endsWith(".ts") ? [path] : []
    })
  return walk(src)
    .map((path) => relative(src, path).split(sep).join("/").replace(/\.ts$/, ""))
    .filter((module) => module !== "index" && !module.startsWith("internal/"))
    .sort()
})()

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
      ".": { types: "./dist/index.d.ts", import: "./dist/index.js" },
      "./package.json": "./package.json"
    }
    for (const module of publicModules) {
      expected[`./${module}`] = { types: `./dist/${module}.d.ts`, import: `./dist/${module}.js` }
    }
    // Equal as a whole: no module is left out, and nothing else (src/internal/ above all) is exported.
    assert.deepStrictEqual(packageJson.exports, expected)
  })

  it("lists `types` first in every export, where TypeScript looks for it", () => {
    const conditions = Object.values(packageJson.exports)
      .filter((target) => typeof target === "object")
      .map((target) => Object.keys(target as object))
    assert.deepStrictEqual(conditions, conditions.map(() => ["types", "import"]))
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

  it("loads each public module as an entry of its own, before anything else", async () => {
    for (const module of publicModules) {
      vi.resetModules()
      const loaded = await importModule(module)
      assert.isAbove(Object.keys(loaded).length, 0, module)
    }
  })
})
