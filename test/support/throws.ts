import { assert } from "@effect/vitest"

/** The message of the TypeError `f` must throw: the test fails here when it throws nothing, or something else. */
export const typeErrorOf = (f: () => unknown): string => {
  try {
    f()
  } catch (error) {
    assert.instanceOf(error, TypeError)
    return (error as TypeError).message
  }
  return assert.fail("nothing was thrown")
}
