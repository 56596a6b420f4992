package web

import "net/netip"

// Embedded is an IPv4 address an IPv6 address carries, and the scheme
// that carries it.
type Embedded struct {
	Addr netip.Addr
	// Form names the scheme: "NAT64", "6to4", "Teredo", …
	Form string
}

// The prefixes of the translation schemes [EmbeddedIPv4] knows.
var (
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96")    // RFC 6052
	nat64Local     = netip.MustParsePrefix("64:ff9b:1::/48")  // RFC 8215
	sixToFour      = netip.MustParsePrefix("2002::/16")       // RFC 3056
	teredo         = netip.MustParsePrefix("2001::/32")       // RFC 4380
	v4Compatible   = netip.MustParsePrefix("::/96")           // RFC 4291 (deprecated)
	v4Translated   = netip.MustParsePrefix("::ffff:0:0:0/96") // RFC 2765 (SIIT)
	thisNetwork    = netip.MustParsePrefix("0.0.0.0/8")
)

// EmbeddedIPv4 returns the IPv4 addresses that a packet sent to the IPv6
// address a can end up at, by the schemes that embed one: IPv4-compatible
// (::a.b.c.d, except :: and ::1), IPv4-translated (::ffff:0:a.b.c.d),
// NAT64 with the well-known prefix (64:ff9b::a.b.c.d) and with the
// local-use prefix 64:ff9b:1::/48 (at each position RFC 6052 allows for
// a prefix of 48, 56, 64 or 96 bits, since only the site knows which it
// uses), 6to4 (2002:AABB:CCDD::), Teredo (the server, and the client
// address stored inverted) and ISATAP (an interface identifier of
// [02]00:5efe:a.b.c.d). IPv4-mapped addresses (::ffff:a.b.c.d) are
// a.Unmap()'s job. They are returned in that order; nil for an IPv4 address
// or an IPv6 address that carries none.
func EmbeddedIPv4(a netip.Addr) []Embedded {
	if !a.Is6() || a.Is4In6() {
		return nil
	}
	a = a.WithZone("")
	b := a.As16()
	v4 := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{b[i], b[i+1], b[i+2], b[i+3]}) }
	var out []Embedded
	switch {
	case v4Compatible.Contains(a):
		if v := v4(12); v.Compare(netip.AddrFrom4([4]byte{0, 0, 0, 1})) > 0 {
			out = append(out, Embedded{v, "IPv4-compatible form"})
		}
	case v4Translated.Contains(a):
		out = append(out, Embedded{v4(12), "IPv4-translated form"})
	case nat64WellKnown.Contains(a):
		out = append(out, Embedded{v4(12), "NAT64"})
	case nat64Local.Contains(a):
		// RFC 6052 section 2.2: bits 64–71 (byte 8) are never used. A
		// position that reads 0.x.x.x ("this network", never a destination)
		// is the zero padding around another position's address.
		for _, idx := range [][4]int{{6, 7, 9, 10}, {7, 9, 10, 11}, {9, 10, 11, 12}, {12, 13, 14, 15}} {
			if v := netip.AddrFrom4([4]byte{b[idx[0]], b[idx[1]], b[idx[2]], b[idx[3]]}); !thisNetwork.Contains(v) {
				out = append(out, Embedded{v, "local-use NAT64"})
			}
		}
	case sixToFour.Contains(a):
		out = append(out, Embedded{v4(2), "6to4"})
	case teredo.Contains(a):
		client := [4]byte{^b[12], ^b[13], ^b[14], ^b[15]}
		out = append(out, Embedded{netip.AddrFrom4(client), "Teredo"}, Embedded{v4(4), "Teredo server"})
	}
	// ISATAP: the interface identifier is [02]00:5efe followed by the IPv4
	// address, whatever the prefix.
	if (b[8]&^0x02) == 0 && b[9] == 0 && b[10] == 0x5e && b[11] == 0xfe {
		out = append(out, Embedded{v4(12), "ISATAP"})
	}
	return out
}
