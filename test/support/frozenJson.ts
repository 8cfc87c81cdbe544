/**
 * Whether a value is plain, frozen JSON all the way down: every array and object is frozen, has the plain prototype
 * of its kind and only enumerable data properties, and every leaf is a string, a finite number, a boolean or null.
 * Iterative, so that a deep value cannot overflow the test's stack.
 */
export const isFrozenPlainJson = (value: unknown): boolean => {
  const stack: Array<unknown> = [value]
  while (stack.length > 0) {
    const current = stack.pop()
    if (current === null || typeof current === "string" || typeof current === "boolean") continue
    if (typeof current === "number") {
      if (!Number.isFinite(current)) return false
      continue
    }
    if (typeof current !== "object" || !Object.isFrozen(current)) return false
    const proto = Object.getPrototypeOf(current)
    if (proto !== (Array.isArray(current) ? Array.prototype : Object.prototype)) return false
    for (const key of Reflect.ownKeys(current)) {
      if (Array.isArray(current) && key === "length") continue
      const descriptor = Object.getOwnPropertyDescriptor(current, key)!
      if (typeof key === "symbol" || !descriptor.enumerable || !("value" in descriptor)) return false
      stack.push(descriptor.value)
    }
  }
  return true
}
