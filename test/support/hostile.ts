/**
 * A proxy that throws on every read: its properties, `in`, its keys and its prototype. What a tool that breaks its
 * contract returns, fails or dies with; dispatch must still answer, and never show the word SECRET its traps throw.
 */
export const throwingProxy = (): object =>
  new Proxy({}, {
    get() {
      throw new Error("SECRET trap")
    },
    has() {
      throw new Error("SECRET trap")
    },
    ownKeys() {
      throw new Error("SECRET trap")
    },
    getPrototypeOf() {
      throw new Error("SECRET trap")
    }
  })
