// Extracts every ```ts example from the JSDoc in src/ and from README.md into .doc-examples/, one module per
// example, so that `tsc -p tsconfig.docs.json` checks that the documentation's examples compile.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const out = join(root, ".doc-examples")

// Examples import subpaths as users do ("effect-llm-tools/ToolSet"). Each one the package exports is pointed at the
// source the export is built from, so an example that imports a subpath the package does not export fails to
// compile, as it would for a user.
const { name: packageName, exports: packageExports } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
const subpathSources = new Map(
  Object.entries(packageExports).flatMap(([key, target]) => {
    const built = typeof target === "object" && target !== null ? target.default : undefined
    const match = typeof built === "string" ? /^\.\/dist\/(.+)\.js$/.exec(built) : null
    return key.startsWith("./") && match !== null ? [[`${packageName}/${key.slice(2)}`, `../src/${match[1]}.ts`]] : []
  })
)
const withSubpathsResolved = (body) =>
  body.replace(/(from\s+|import\s*\(\s*)"([^"]+)"/g, (whole, lead, specifier) => {
    const source = subpathSources.get(specifier)
    return source === undefined ? whole : `${lead}"${source}"`
  })

const sources = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : []
  })

/** The ```ts blocks of a file; in a source file, with the JSDoc ` * ` prefix taken off each line. */
const examples = (path, text) => {
  const found = []
  const fence = path.endsWith(".md") ? /^```ts\n([\s\S]*?)^```/gm : /^\s*\* ```ts\n([\s\S]*?)^\s*\* ```/gm
  for (const match of text.matchAll(fence)) {
    const body = path.endsWith(".md") ? match[1] : match[1].replace(/^\s*\* ?/gm, "")
    found.push(body)
  }
  return found
}

rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
let count = 0
for (const path of [...sources(join(root, "src")), join(root, "README.md")]) {
  examples(path, readFileSync(path, "utf8")).forEach((body, index) => {
    const name = `${relative(root, path).replace(/[\\/.]/g, "_")}_${index + 1}.ts`
    // `export {}` makes each example a module of its own, so their top-level names never collide.
    writeFileSync(join(out, name), `${withSubpathsResolved(body)}\nexport {}\n`)
    count++
  })
}
console.log(`${count} documentation examples extracted to .doc-examples/`)
