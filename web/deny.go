package web

import (
	"fmt"
	"net/netip"
	"strings"
)

// DenySetting is the configuration key of the user's deny list.
const DenySetting = "web.deny"

// DenyList is web.deny: the hosts, domains and address ranges the user
// refuses for every request the agent makes for the model (web tools,
// vision, the browser), on top of the built-in rules. Its zero value
// refuses nothing. It is immutable once parsed and safe for concurrent
// use.
type DenyList struct {
	prefixes []denyPrefix
	names    map[string]string // exact host name → the entry as written
	domains  []denyDomain      // "*.corp.example": the domain and every name under it
}

type denyPrefix struct {
	p     netip.Prefix
	entry string
}

type denyDomain struct {
	suffix string // "corp.example"
	entry  string
}

// ParseDeny parses web.deny's entries: an address range in CIDR notation
// ("10.20.0.0/16", "fd00:1::/32"), one address ("127.0.0.2", "::1"), a
// host name ("wiki.corp.example", matched exactly) or a domain with every
// name under it ("*.corp.example", which also matches corp.example). Names
// are matched case-insensitively and without a trailing dot; addresses
// are matched after DNS, and also when an IPv6 address carries them (see
// [EmbeddedIPv4]). An entry that is none of these is an error naming it.
func ParseDeny(entries []string) (DenyList, error) {
	var d DenyList
	var bad []string
	for _, raw := range entries {
		e := strings.TrimSpace(raw)
		switch {
		case e == "":
			bad = append(bad, fmt.Sprintf("%q (empty)", raw))
		case strings.Contains(e, "/"):
			p, err := netip.ParsePrefix(e)
			if err != nil {
				bad = append(bad, fmt.Sprintf("%q (not an address range such as 10.0.0.0/8)", raw))
				continue
			}
			d.prefixes = append(d.prefixes, denyPrefix{p.Masked(), e})
		case strings.HasPrefix(e, "*."):
			name := normName(e[2:])
			if !validName(name) {
				bad = append(bad, fmt.Sprintf("%q (not a domain such as *.corp.example)", raw))
				continue
			}
			d.domains = append(d.domains, denyDomain{name, e})
		default:
			if a, err := netip.ParseAddr(strings.Trim(e, "[]")); err == nil {
				a = a.Unmap().WithZone("")
				d.prefixes = append(d.prefixes, denyPrefix{netip.PrefixFrom(a, a.BitLen()), e})
				continue
			}
			name := normName(e)
			if !validName(name) {
				bad = append(bad, fmt.Sprintf("%q (not an address, a range, a host name or *.domain)", raw))
				continue
			}
			if d.names == nil {
				d.names = map[string]string{}
			}
			d.names[name] = e
		}
	}
	if len(bad) > 0 {
		return d, fmt.Errorf("%s: %s", DenySetting, strings.Join(bad, ", "))
	}
	return d, nil
}

// MustParseDeny is ParseDeny for lists known to be valid (tests, tables);
// it panics on an error.
func MustParseDeny(entries ...string) DenyList {
	d, err := ParseDeny(entries)
	if err != nil {
		panic(err)
	}
	return d
}

// Len is the number of entries.
func (d DenyList) Len() int { return len(d.prefixes) + len(d.names) + len(d.domains) }

func normName(s string) string { return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), ".") }

// validName reports whether s looks like a host name: dot-separated labels
// of letters, digits, '-' and '_', none empty.
func validName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, l := range strings.Split(s, ".") {
		if l == "" || len(l) > 63 {
			return false
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c > 0x7f) {
				return false
			}
		}
	}
	return true
}

// matchName reports the entry that refuses the host name name (lower
// case, no trailing dot).
func (d DenyList) matchName(name string) (string, bool) {
	if e, ok := d.names[name]; ok {
		return e, true
	}
	for _, dom := range d.domains {
		if name == dom.suffix || strings.HasSuffix(name, "."+dom.suffix) {
			return dom.entry, true
		}
	}
	return "", false
}

// matchAddr reports the entry that refuses the address a (unmapped, no
// zone).
func (d DenyList) matchAddr(a netip.Addr) (string, bool) {
	for _, p := range d.prefixes {
		if p.p.Contains(a) {
			return p.entry, true
		}
	}
	return "", false
}
