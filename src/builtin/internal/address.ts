/**
 * Which IP addresses the `fetch` tool may connect to: the address policy, on ipaddr.js's table of special-purpose
 * ranges (IANA's registries), so that no range is written out by hand here.
 *
 * An address is public when it is ordinary unicast: IPv4 outside every special-purpose range, IPv6 in global unicast
 * (`2000::/3`) outside every special-purpose range. Everything else is refused: loopback, private, link-local,
 * unique-local, unspecified, multicast, broadcast, shared address space (CGNAT, `100.64.0.0/10`), reserved,
 * documentation and benchmarking ranges, deprecated site-local, and any address that is not an IPv6 global unicast.
 *
 * IPv4 carried inside IPv6:
 * - IPv4-mapped (`::ffff:a.b.c.d`) is the IPv4 address itself to the kernel: it is checked, and dialled, as that IPv4
 *   address.
 * - NAT64's well-known prefix (`64:ff9b::/96`) is how an IPv6-only network with DNS64 reaches IPv4 hosts: the
 *   embedded IPv4 address is checked, and the IPv6 address is dialled (the translator does the rest).
 * - Every other embedding is refused whatever it embeds: IPv4-compatible (`::a.b.c.d`), SIIT (`::ffff:0:a.b.c.d`),
 *   NAT64 local-use (`64:ff9b:1::/48`, which maps to whatever its network chose), 6to4 (`2002::/16`, routed through
 *   a relay at the embedded address) and Teredo (`2001::/32`).
 *
 * @internal
 */
import ipaddr from "ipaddr.js"
import { isIP } from "node:net"

/**
 * The verdict on one address: `Public` with the address to dial (canonical, IPv4-mapped addresses as IPv4), or
 * `NonPublic` with the range it falls in, for operators.
 */
export type Verdict =
  | { readonly _tag: "Public"; readonly address: string; readonly family: 4 | 6 }
  | { readonly _tag: "NonPublic"; readonly range: string }

const globalUnicast = ipaddr.IPv6.parseCIDR("2000::/3")
const nat64WellKnown = ipaddr.IPv6.parseCIDR("64:ff9b::/96")

const checkIpv4 = (address: ipaddr.IPv4): Verdict => {
  const range = address.range()
  return range === "unicast" ? { _tag: "Public", address: address.toString(), family: 4 } : { _tag: "NonPublic", range }
}

const checkIpv6 = (address: ipaddr.IPv6): Verdict => {
  if (address.isIPv4MappedAddress()) return checkIpv4(address.toIPv4Address())
  if (address.match(nat64WellKnown)) {
    const [high, low] = [address.parts[6]!, address.parts[7]!]
    const embedded = checkIpv4(new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]))
    return embedded._tag === "Public"
      ? { _tag: "Public", address: address.toString(), family: 6 }
      : { _tag: "NonPublic", range: `NAT64 of ${embedded.range}` }
  }
  const range = address.range()
  if (range !== "unicast") return { _tag: "NonPublic", range }
  return address.match(globalUnicast)
    ? { _tag: "Public", address: address.toString(), family: 6 }
    : { _tag: "NonPublic", range: "not global unicast" }
}

/**
 * The address a text names, read strictly, or `undefined`.
 *
 * Only the forms Node's `net.isIP` accepts are read: dotted-decimal IPv4 without leading zeros, and IPv6. ipaddr.js
 * alone would also read `0x7f.1` or `010.0.0.1` (octal), forms that a resolver or a dialler might read differently;
 * a text that is not strict is refused rather than guessed at. IPv6 goes through the WHATWG URL parser first, the one
 * that reads URL hosts: ipaddr.js reads an IPv4-compatible address (`::1.2.3.4`, which is `::102:304`) as the
 * IPv4-mapped `::ffff:1.2.3.4`. A zone index (`fe80::1%eth0`) is refused: it names an interface of this machine.
 */
const parseStrict = (text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined => {
  const family = isIP(text)
  if (family === 0 || text.includes("%")) return undefined
  try {
    if (family === 4) return ipaddr.IPv4.parse(text)
    const host = new URL(`http://[${text}]/`).hostname
    return ipaddr.IPv6.parse(host.slice(1, -1))
  } catch {
    return undefined
  }
}

/** The verdict on an address given as text: a resolver's answer, or a URL's IP literal without brackets. */
export const checkAddress = (text: string): Verdict => {
  const parsed = parseStrict(text)
  if (parsed === undefined) return { _tag: "NonPublic", range: "not an IP address" }
  return parsed.kind() === "ipv4" ? checkIpv4(parsed as ipaddr.IPv4) : checkIpv6(parsed as ipaddr.IPv6)
}

/** The canonical text of an IP literal (as a URL or an allow-list entry writes it, brackets removed), if it is one. */
export const canonicalIp = (text: string): string | undefined => parseStrict(text)?.toString()
