// Summarizes a .cpuprofile: self time by function (name, file, line), the top N, as a Markdown table.
//   node bench/profile-summary.js file.cpuprofile [top]
import { readFileSync } from "node:fs"

const profile = JSON.parse(readFileSync(process.argv[2], "utf8"))
const top = Number(process.argv[3] ?? 30)
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const counts = new Map()
for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1)
const total = profile.samples.length
const self = new Map()
for (const [id, count] of counts) {
  const { callFrame: f } = byId.get(id)
  const file = f.url.replace(/^.*node_modules\//, "").replace(/^.*\/dist\//, "dist/").replace(/^file:\/\//, "")
  const key = `${f.functionName || "(anonymous)"} — ${file}:${f.lineNumber + 1}`
  self.set(key, (self.get(key) ?? 0) + count)
}
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, top)
console.log("| self % | function — location |\n| ---: | --- |")
for (const [key, count] of rows) console.log(`| ${(100 * count / total).toFixed(1)} | ${key.replaceAll("|", "\\|")} |`)
