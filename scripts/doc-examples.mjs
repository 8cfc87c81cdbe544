// Extracts every ```ts example from the JSDoc in src/ and from README.md into .doc-examples/, one module per
// example, so that `tsc -p tsconfig.docs.json` checks that the documentation's examples compile.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"

const root = new URL("..", import.meta.url).pathname
const out = join(root, ".doc-examples")

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
    writeFileSync(join(out, name), `${body}\nexport {}\n`)
    count++
  })
}
console.log(`${count} documentation examples extracted to .doc-examples/`)
