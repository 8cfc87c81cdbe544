// Vitest 5's summary reporter calls Map.groupBy (Node 21+) when a test fails; on Node 20 it would crash the
// reporter and hide the failure. This config is loaded in the main process, so the polyfill covers the reporter.
if (typeof (Map as { groupBy?: unknown }).groupBy !== "function") {
  Object.defineProperty(Map, "groupBy", {
    configurable: true,
    writable: true,
    value: <K, T>(items: Iterable<T>, keyOf: (item: T, index: number) => K): Map<K, Array<T>> => {
      const groups = new Map<K, Array<T>>()
      let index = 0
      for (const item of items) {
        const key = keyOf(item, index++)
        const group = groups.get(key)
        if (group === undefined) groups.set(key, [item])
        else group.push(item)
      }
      return groups
    }
  })
}

import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    typecheck: { enabled: false }
  }
})
