/**
 * The host allow-list of the `fetch` tool: exact hosts, and `*.example.com` for the subdomains of a domain.
 *
 * Entries and URLs go through the same normalization (the WHATWG URL parser's: lower case, IDNA to punycode, IPv4
 * in dotted decimal, IPv6 compressed; then one trailing dot removed), so that `Example.COM`, `example.com.` and
 * `example.com` are one host, and `0x7f.1` is `127.0.0.1`.
 *
 * @internal
 */
import { Result } from "effect"
import { isIP } from "node:net"
import { canonicalIp } from "./address.ts"

/** A checked allow-list. */
export interface AllowList {
  /** Hosts allowed as they are: domain names and IP addresses, canonical. */
  readonly exact: ReadonlySet<string>
  /** For each `*.example.com`, `.example.com`: any host that ends with it is allowed, the domain itself is not. */
  readonly suffixes: ReadonlyArray<string>
  /** The entries as normalized, in order, for the tool's description. */
  readonly entries: ReadonlyArray<string>
}

/**
 * The canonical form of a URL's `hostname`: an IPv6 literal without its brackets, an IP address in its canonical
 * text, a domain name without its trailing dot.
 */
export const canonicalHostname = (hostname: string): string => {
  if (hostname.startsWith("[") && hostname.endsWith("]")) {
    const inner = hostname.slice(1, -1)
    return canonicalIp(inner) ?? inner
  }
  const name = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname
  return canonicalIp(name) ?? name
}

/** True when `host` is an IP literal (canonical, without brackets). */
export const isIpLiteral = (host: string): boolean => isIP(host) !== 0

// A host name as an operator writes it: no scheme, port, path, user, query, fragment, whitespace or wildcard.
const forbidden = /[\s/?#@\\:*[\]%]/

const entryError = (entry: string, why: string): string =>
  `the allow-list entry ${JSON.stringify(entry.slice(0, 200))} ${why}`

const parseEntry = (entry: string): Result.Result<{ readonly host: string; readonly wildcard: boolean }, string> => {
  const wildcard = entry.startsWith("*.")
  const rest = wildcard ? entry.slice(2) : entry
  const bare = rest.startsWith("[") && rest.endsWith("]") ? rest.slice(1, -1) : rest
  const ip = canonicalIp(bare)
  if (ip !== undefined) {
    return wildcard
      ? Result.fail(entryError(entry, "puts a wildcard before an IP address; a wildcard is for domain names"))
      : Result.succeed({ host: ip, wildcard: false })
  }
  if (rest === "" || forbidden.test(rest)) {
    return Result.fail(entryError(
      entry,
      "is not a host: write a host name (example.com), `*.` and a domain name (*.example.com), or an IP address, " +
        "without scheme, port or path"
    ))
  }
  let hostname: string
  try {
    hostname = new URL(`http://${rest}/`).hostname
  } catch {
    return Result.fail(entryError(entry, "is not a valid host name"))
  }
  const host = canonicalHostname(hostname)
  if (wildcard && isIpLiteral(host)) {
    return Result.fail(entryError(entry, "puts a wildcard before an IP address; a wildcard is for domain names"))
  }
  if (wildcard && !host.includes(".")) {
    return Result.fail(entryError(entry, "would allow a whole top-level domain; name a domain under it"))
  }
  return Result.succeed({ host, wildcard })
}

/** Checks and normalizes the entries of an allow-list; the error says which entry is wrong, and why. */
export const parseAllowList = (entries: ReadonlyArray<unknown>): Result.Result<AllowList, string> => {
  const exact = new Set<string>()
  const suffixes: Array<string> = []
  const normalized: Array<string> = []
  const seen = new Set<string>()
  for (const entry of entries) {
    if (typeof entry !== "string") return Result.fail("every allow-list entry must be a string")
    const parsed = parseEntry(entry)
    if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
    const { host, wildcard } = parsed.success
    const shown = wildcard ? `*.${host}` : host
    if (seen.has(shown)) continue
    seen.add(shown)
    normalized.push(shown)
    if (wildcard) suffixes.push(`.${host}`)
    else exact.add(host)
  }
  if (normalized.length === 0) return Result.fail("the allow-list is empty: name at least one host")
  return Result.succeed({ exact, suffixes, entries: normalized })
}

/** True when the allow-list allows `host` (a canonical hostname, see {@link canonicalHostname}). */
export const isAllowed = (list: AllowList, host: string): boolean =>
  list.exact.has(host) ||
  (!isIpLiteral(host) && list.suffixes.some((suffix) => host.length > suffix.length && host.endsWith(suffix)))
