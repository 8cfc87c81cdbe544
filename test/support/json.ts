/**
 * JSON has no negative zero: `JSON.stringify(-0)` is "0", and Schema arbitraries for numbers do generate -0. That is
 * the one change a JSON text round trip may make to a generated value; tests compare against this instead.
 */
export const withoutNegativeZero = (value: unknown): unknown => {
  if (Object.is(value, -0)) return 0
  if (Array.isArray(value)) return value.map(withoutNegativeZero)
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, withoutNegativeZero(field)]))
  }
  return value
}
