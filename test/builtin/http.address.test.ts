/**
 * The address policy and the host allow-list of the `fetch` built-in, on their own: which addresses may be dialled,
 * in every way an address can be written or embedded, and which hosts an allow-list allows. The tables of refused
 * ranges below are this file's own, written from IANA's special-purpose registries, so that they check the
 * library's classification rather than repeat it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { checkAddress, type Verdict } from "../../src/builtin/internal/address.ts"
import { canonicalHostname, isAllowed, parseAllowList } from "../../src/builtin/internal/hostAllowList.ts"

const Octet = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 255 }))
const Segment = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 0xffff }))
/** The four octets of an IPv4 address. */
const Octets = [Octet, Octet, Octet, Octet]
const options = { arbitrary: { runs: 500 } }

/** IPv4 ranges that are not publicly routable unicast: [first octets as a number, prefix length]. */
const refusedIpv4: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.31.196.0", 24],
  ["192.52.193.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["192.175.48.0", 24],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4]
]

const toNumber = (octets: ReadonlyArray<number>): number =>
  octets.reduce((value, octet) => value * 256 + octet, 0)

const inRange = (octets: ReadonlyArray<number>, [base, prefix]: readonly [string, number]): boolean => {
  const size = 2 ** (32 - prefix)
  return Math.floor(toNumber(octets) / size) === Math.floor(toNumber(base.split(".").map(Number)) / size)
}

const isPublicIpv4 = (octets: ReadonlyArray<number>): boolean => !refusedIpv4.some((range) => inRange(octets, range))

const hex = (high: number, low: number): string => ((high << 8) | low).toString(16)

const ipv4 = (octets: ReadonlyArray<number>) => octets.join(".")

const nonPublic = (range: string): Verdict => ({ _tag: "NonPublic", range })

/** The verdict on a public IPv4 address: dialled as it is written. */
const publicIpv4 = (address: string): Verdict => ({ _tag: "Public", address, family: 4 })

/** The verdict on each address beside the one expected, compared at once: a failure shows every row, named. */
const assertVerdicts = (rows: ReadonlyArray<readonly [address: string, verdict: Verdict]>) =>
  assert.deepStrictEqual(rows.map(([address]) => [address, checkAddress(address)] as const), rows)

describe("IPv4", () => {
  it.prop(
    "an address is public exactly when it is outside every special-purpose range; it is dialled as written",
    Octets,
    (octets) => {
      const verdict = checkAddress(ipv4(octets))
      if (isPublicIpv4(octets)) assert.deepStrictEqual(verdict, publicIpv4(ipv4(octets)))
      else assert.strictEqual(verdict._tag, "NonPublic")
    },
    options
  )

  it.prop("an address inside a refused range is refused, wherever in the range it is", [
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: refusedIpv4.length - 1 })),
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2 ** 24 - 1 }))
  ], ([which, offset]) => {
    const [base, prefix] = refusedIpv4[which]!
    const value = toNumber(base.split(".").map(Number)) + (offset % 2 ** (32 - prefix))
    const octets = [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]
    assert.strictEqual(checkAddress(ipv4(octets))._tag, "NonPublic")
  }, options)

  it.prop("a form that is not strict dotted decimal is refused, not guessed at", Octets, (octets) => {
    const [a, b, c, d] = octets
    for (
      const form of [
        `0${a}.${b}.${c}.${d}`,
        `${a}.${b}.${(c! << 8) | d!}`,
        `${toNumber(octets)}`,
        `0x${a!.toString(16)}.${b}.${c}.${d}`,
        ` ${ipv4(octets)}`
      ]
    ) {
      assert.deepStrictEqual(checkAddress(form), nonPublic("not an IP address"), form)
    }
  }, options)

  it("the ranges that matter most, by name", () => {
    assertVerdicts([
      ["127.0.0.1", nonPublic("loopback")],
      ["10.1.2.3", nonPublic("private")],
      ["172.16.0.1", nonPublic("private")],
      ["172.31.255.255", nonPublic("private")],
      ["192.168.0.1", nonPublic("private")],
      ["169.254.169.254", nonPublic("linkLocal")],
      ["100.64.0.1", nonPublic("carrierGradeNat")],
      ["0.0.0.0", nonPublic("unspecified")],
      ["172.15.255.255", publicIpv4("172.15.255.255")],
      ["172.32.0.0", publicIpv4("172.32.0.0")],
      ["100.128.0.0", publicIpv4("100.128.0.0")],
      ["93.184.216.34", publicIpv4("93.184.216.34")]
    ])
  })
})

describe("IPv4 inside IPv6", () => {
  it.prop(
    "an IPv4-mapped address, in either notation, is the IPv4 address: same verdict, dialled as IPv4",
    Octets,
    (octets) => {
      const [a, b, c, d] = octets as [number, number, number, number]
      const expected = isPublicIpv4(octets) ? publicIpv4(ipv4(octets)) : undefined
      const forms = [`::ffff:${ipv4(octets)}`, `::ffff:${hex(a, b)}:${hex(c, d)}`, `0:0:0:0:0:FFFF:${ipv4(octets)}`]
      for (const form of forms) {
        const verdict = checkAddress(form)
        if (expected === undefined) assert.strictEqual(verdict._tag, "NonPublic", form)
        else assert.deepStrictEqual(verdict, expected, form)
      }
    },
    options
  )

  it.prop(
    "a NAT64 address (64:ff9b::/96) is public exactly when the IPv4 address it embeds is; dialled as IPv6",
    Octets,
    (octets) => {
      const [a, b, c, d] = octets as [number, number, number, number]
      const verdict = checkAddress(`64:ff9b::${ipv4(octets)}`)
      if (isPublicIpv4(octets)) {
        assert.deepStrictEqual(verdict, { _tag: "Public", address: `64:ff9b::${hex(a, b)}:${hex(c, d)}`, family: 6 })
      } else {
        assert.strictEqual(verdict._tag, "NonPublic")
      }
    },
    options
  )

  it.prop(
    "every other embedding is refused, whatever it embeds: 6to4, Teredo, IPv4-compatible, SIIT, local NAT64",
    Octets,
    (octets) => {
      const [a, b, c, d] = octets as [number, number, number, number]
      for (
        const form of [
          `2002:${hex(a, b)}:${hex(c, d)}::1`,
          `2001:0:${hex(a, b)}:${hex(c, d)}::1`,
          `::${ipv4(octets)}`,
          `::ffff:0:${ipv4(octets)}`,
          `64:ff9b:1::${ipv4(octets)}`
        ]
      ) {
        assert.strictEqual(checkAddress(form)._tag, "NonPublic", form)
      }
    },
    options
  )
})

describe("IPv6", () => {
  const segments = [Segment, Segment, Segment, Segment, Segment, Segment, Segment]

  it.prop("unique-local (fc00::/7), link-local (fe80::/10), multicast (ff00::/8) and ::/8 are refused", segments, (
    rest
  ) => {
    const tail = rest.map((segment) => segment.toString(16)).join(":")
    const first = rest[0]!
    for (const lead of [0xfc00 | (first & 0x1ff), 0xfe80 | (first & 0x3f), 0xff00 | (first & 0xff), first & 0xff]) {
      const address = `${lead.toString(16)}:${tail}`
      assert.strictEqual(checkAddress(address)._tag, "NonPublic", address)
    }
  }, options)

  it.prop("an address in allocated global unicast (2600::/12) is public, and dialled in its canonical form", segments, (
    rest
  ) => {
    const lead = 0x2600 | (rest[0]! & 0xf)
    const address = [lead, ...rest].map((segment) => segment.toString(16)).join(":")
    const verdict = checkAddress(address)
    assert.strictEqual(verdict._tag, "Public", address)
    if (verdict._tag === "Public") assert.deepStrictEqual([verdict.family, checkAddress(verdict.address)], [6, verdict])
  }, options)

  it("the ranges that matter most, by name; a zone index is refused", () => {
    assertVerdicts([
      ["::1", nonPublic("loopback")],
      ["::", nonPublic("unspecified")],
      ["fc00::1", nonPublic("uniqueLocal")],
      ["fd12:3456::1", nonPublic("uniqueLocal")],
      ["fe80::1", nonPublic("linkLocal")],
      ["ff02::1", nonPublic("multicast")],
      ["2001:db8::1", nonPublic("reserved")],
      ["fe80::1%eth0", nonPublic("not an IP address")],
      ["[::1]", nonPublic("not an IP address")],
      // ipaddr.js alone reads an IPv4-compatible address as IPv4-mapped, and would dial the IPv4 address.
      ["::127.0.0.1", nonPublic("not global unicast")],
      ["::93.184.216.34", nonPublic("not global unicast")],
      [
        "2606:2800:0220:0001:0248:1893:25c8:1946",
        { _tag: "Public", address: "2606:2800:220:1:248:1893:25c8:1946", family: 6 }
      ]
    ])
  })
})

describe("URL hosts", () => {
  it.prop("every way a URL can write an IPv4 address comes to its dotted-decimal form", Octets, (octets) => {
    const [a, b, c, d] = octets
    const forms = [ipv4(octets), `${toNumber(octets)}`, `0x${a!.toString(16)}.${b}.${c}.${d}`, `${ipv4(octets)}.`]
    for (const form of forms) {
      assert.strictEqual(canonicalHostname(new URL(`http://${form}/`).hostname), ipv4(octets), form)
    }
  }, options)

  it("an IPv6 literal loses its brackets; a name its case and trailing dot; an IDN becomes punycode", () => {
    assert.deepStrictEqual(
      ["http://[::FFFF:127.0.0.1]/", "http://[0:0::1]/", "http://Docs.Example.COM./", "http://bücher.example/"].map((
        url
      ) => canonicalHostname(new URL(url).hostname)),
      ["::ffff:7f00:1", "::1", "docs.example.com", "xn--bcher-kva.example"]
    )
  })
})

describe("the allow-list", () => {
  const list = (entries: ReadonlyArray<unknown>) => {
    const parsed = parseAllowList(entries)
    assert.isTrue(Result.isSuccess(parsed), Result.isFailure(parsed) ? parsed.failure : "")
    return Result.getOrThrow(parsed)
  }

  it("entries are normalized as URL hosts are, and listed once each", () => {
    assert.deepStrictEqual(
      list(["Docs.Example.COM.", "docs.example.com", "*.Wiki.ORG", "[::1]", "::1", "0x7f.1", "bücher.example"])
        .entries,
      ["docs.example.com", "*.wiki.org", "::1", "127.0.0.1", "xn--bcher-kva.example"]
    )
  })

  it("an exact entry allows that host only", () => {
    const allow = list(["docs.example.com"])
    assert.deepStrictEqual(
      ["docs.example.com", "example.com", "api.docs.example.com", "docs.example.com.evil.test"].map((host) =>
        isAllowed(allow, host)
      ),
      [true, false, false, false]
    )
  })

  const Label = Schema.String.check(Schema.isPattern(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/))

  it.prop("a wildcard allows every subdomain, at any depth, and neither the domain nor a look-alike", [Label, Label], (
    [first, second]
  ) => {
    const allow = list(["*.example.com"])
    assert.deepStrictEqual(
      [
        `${first}.example.com`,
        `${first}.${second}.example.com`,
        "example.com",
        `${first}example.com`,
        `${first}.example.com.evil.test`
      ].map((host) => isAllowed(allow, host)),
      [true, true, false, false, false]
    )
  }, options)

  it("a wildcard over what a URL reads as an IPv4 address is refused, as a wildcard over an address", () => {
    assert.deepStrictEqual(
      parseAllowList(["*.0.1"]),
      Result.fail(
        "the allow-list entry \"*.0.1\" puts a wildcard before an IP address; a wildcard is for domain names"
      )
    )
  })
})
