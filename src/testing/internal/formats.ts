/**
 * The string formats the argument validator checks (those of `ajv-formats`), each as a regular expression whose
 * every match is a valid value of the format: Effect's arbitraries build strings from a pattern, so a format becomes
 * a pattern to generate from. The patterns cover a useful part of each format, not all of it (dates stop at the 28th
 * so that every month has them, URIs are `http(s)`, `urn` and `mailto`), and never leave it.
 *
 * The numeric formats are bounds, applied where numbers are generated.
 */

/** Patterns of valid values, by format name. */
const patterns: Readonly<Record<string, string>> = (() => {
  const date = "\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|1\\d|2[0-8])"
  const time = "([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d{1,3})?(Z|[+-]([01]\\d|2[0-3]):[0-5]\\d)"
  const host = "([a-z0-9]{1,10}\\.){1,2}[a-z]{2,6}"
  const octet = "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)"
  const segment = "[A-Za-z0-9._~-]{1,10}"
  const uri = `(https?://${host}(/${segment}){0,3}(\\?[a-z]{1,5}=[a-z0-9]{0,5})?|urn:[a-z]{1,8}:[a-z0-9]{1,12}|` +
    "mailto:[a-z]{1,8}@[a-z]{1,8}\\.com)"
  return {
    date: `^${date}$`,
    time: `^${time}$`,
    "iso-time": `^${time}$`,
    "date-time": `^${date}T${time}$`,
    "iso-date-time": `^${date}T${time}$`,
    duration: "^P(\\d{1,3}Y)?\\d{1,3}D(T\\d{1,2}H(\\d{1,2}M)?)?$|^P\\d{1,2}W$",
    uri: `^${uri}$`,
    "uri-reference": `^${uri}$|^(/${segment}){1,3}$`,
    url: `^https?://${host}(/${segment}){0,3}$`,
    "uri-template": `^https://${host}/[a-z]{1,8}(/\\{[a-z]{1,6}\\})?$`,
    email: "^[a-z0-9_+-]{1,12}(\\.[a-z0-9]{1,8})?@([a-z0-9]{1,10}\\.){1,2}[a-z]{2,6}$",
    hostname: `^${host}$`,
    ipv4: `^${octet}(\\.${octet}){3}$`,
    ipv6: "^[0-9a-f]{1,4}(:[0-9a-f]{1,4}){7}$|^([0-9a-f]{1,4}:){1,6}:[0-9a-f]{1,4}$",
    regex: "^[a-z]{0,6}(\\.\\*|\\d\\+|\\[a-z\\])?[a-z]{0,6}$",
    uuid: "^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$",
    "json-pointer": "^(/([a-z0-9]|~[01]){0,8}){0,4}$",
    "json-pointer-uri-fragment": "^#(/[a-z0-9]{0,8}){0,4}$",
    "relative-json-pointer": "^(0|[1-9]\\d{0,2})(#|(/[a-z0-9]{0,8}){0,4})$",
    byte: "^([A-Za-z0-9+/]{4}){0,6}([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
  }
})()

/**
 * A pattern whose matches are valid values of a string format; `undefined` for a format that constrains nothing
 * (`password`, `binary`) and for one the validator does not know, which it ignores.
 */
export const formatPattern = (format: string): RegExp | undefined => {
  const source = Object.hasOwn(patterns, format) ? patterns[format] : undefined
  return source === undefined ? undefined : new RegExp(source, "u")
}

/** The bounds a numeric format sets, and whether it asks for an integer. */
export interface NumericFormat {
  readonly minimum: number
  readonly maximum: number
  readonly integer: boolean
}

const numericFormats: Readonly<Record<string, NumericFormat>> = {
  int32: { minimum: -(2 ** 31), maximum: 2 ** 31 - 1, integer: true },
  int64: { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, integer: true },
  float: { minimum: -Number.MAX_VALUE, maximum: Number.MAX_VALUE, integer: false },
  double: { minimum: -Number.MAX_VALUE, maximum: Number.MAX_VALUE, integer: false }
}

/** What a numeric format asks of a number; `undefined` for a format that is not numeric. */
export const numericFormat = (format: string): NumericFormat | undefined =>
  Object.hasOwn(numericFormats, format) ? numericFormats[format] : undefined
