package web

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// v6forms returns every IPv6 form that carries the IPv4 address v4, by
// name: the translation schemes EmbeddedIPv4 knows.
func v6forms(v4 string) map[string]string {
	b := netip.MustParseAddr(v4).As4()
	hx := func(x, y byte) string { return fmt.Sprintf("%02x%02x", x, y) }
	hi, lo := hx(b[0], b[1]), hx(b[2], b[3])
	inv := hx(^b[0], ^b[1]) + ":" + hx(^b[2], ^b[3])
	return map[string]string{
		"IPv4-mapped":         "::ffff:" + v4,
		"IPv4-compatible":     "::" + v4,
		"IPv4-translated":     "::ffff:0:" + v4,
		"NAT64":               "64:ff9b::" + v4,
		"local-use NAT64 /96": "64:ff9b:1::" + v4,
		// /48: the IPv4 address in bits 48–63 and 72–87, around the u octet.
		"local-use NAT64 /48": fmt.Sprintf("64:ff9b:1:%s:00%02x:%02x00::1", hi, b[2], b[3]),
		"6to4":                "2002:" + hi + ":" + lo + "::1",
		// Teredo: server 65.54.227.120 (public), client stored inverted
		// (a247:27dd is 93.184.216.34, public).
		"Teredo client": "2001:0:4136:e378:8000:63bf:" + inv,
		"Teredo server": "2001:0:" + hi + ":" + lo + ":8000:63bf:a247:27dd",
		"ISATAP":        "2a00:1450:4001::5efe:" + v4,
		"ISATAP (u/l)":  "2a00:1450:4001::200:5efe:" + v4,
	}
}

// formNames are the names the refusals give the forms of v6forms.
var formNames = map[string]string{
	"IPv4-mapped": "IPv4-mapped form", "IPv4-compatible": "IPv4-compatible form", "IPv4-translated": "IPv4-translated form",
	"NAT64": "NAT64", "local-use NAT64 /96": "local-use NAT64", "local-use NAT64 /48": "local-use NAT64", "6to4": "6to4",
	"Teredo client": "Teredo", "Teredo server": "Teredo server", "ISATAP": "ISATAP", "ISATAP (u/l)": "ISATAP",
}

// TestEmbeddedIPv4Refused: every translation form of a loopback, private
// or metadata address is refused as that address, by the strict policy, the
// browser's (loopback allowed: a translated loopback is the translator's,
// not this machine's) and, for the metadata address, even with private
// addresses allowed. The message names the form and the address.
func TestEmbeddedIPv4Refused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v4         string
		rule       string
		privateToo bool // refused with AllowPrivate as well
	}{
		{"127.0.0.1", "a loopback address", false},
		{"127.3.2.1", "a loopback address", false},
		{"10.0.0.5", "a private address", false},
		{"172.16.9.9", "a private address", false},
		{"192.168.1.1", "a private address", false},
		{"100.64.0.7", "a shared (CGNAT) address", false},
		{"169.254.169.254", "a cloud metadata address", true},
		{"100.100.100.200", "a cloud metadata address", true},
		{"169.254.1.2", "a link-local address", true},
	}
	strict := &Policy{}
	browser := &Policy{AllowLoopback: true}
	priv := &Policy{AllowPrivate: true}
	for _, tt := range tests {
		for form, s := range v6forms(tt.v4) {
			a := netip.MustParseAddr(s)
			for _, c := range []struct {
				name   string
				p      *Policy
				refuse bool
			}{{"strict", strict, true}, {"browser", browser, form != "IPv4-mapped" || !strings.HasPrefix(tt.v4, "127.")}, {"private", priv, tt.privateToo}} {
				err := c.p.CheckAddr(a)
				if !c.refuse {
					if err != nil {
						t.Errorf("%s.CheckAddr(%s, %s of %s) = %v, want allowed", c.name, s, form, tt.v4, err)
					}
					continue
				}
				if err == nil || !IsRefused(err) {
					t.Errorf("%s.CheckAddr(%s, %s of %s) = %v, want a refusal", c.name, s, form, tt.v4, err)
					continue
				}
				want := fmt.Sprintf("refused: %s (%s of %s) is %s", a, formNames[form], tt.v4, tt.rule)
				if !strings.HasPrefix(err.Error(), want) {
					t.Errorf("%s.CheckAddr(%s, %s) = %q, want %q…", c.name, s, form, err, want)
				}
			}
		}
	}
}

// TestEmbeddedIPv4Public: the translation forms of a public IPv4 address
// are allowed where the form's own block is, and carry that address.
func TestEmbeddedIPv4Public(t *testing.T) {
	t.Parallel()
	p := &Policy{}
	for _, s := range []string{"64:ff9b::93.184.216.34", "2002:5db8:d822::1", "2a00:1450:4001::5efe:93.184.216.34", "::ffff:93.184.216.34"} {
		if err := p.CheckAddr(netip.MustParseAddr(s)); err != nil {
			t.Errorf("CheckAddr(%s) = %v, want allowed", s, err)
		}
	}
	got := EmbeddedIPv4(netip.MustParseAddr("64:ff9b::93.184.216.34"))
	if len(got) != 1 || got[0].Addr != netip.MustParseAddr("93.184.216.34") || got[0].Form != "NAT64" {
		t.Errorf("EmbeddedIPv4(NAT64) = %v", got)
	}
	for _, s := range []string{"::", "::1", "2606:2800:220:1:248:1893:25c8:1946", "fe80::1", "10.0.0.1", "::ffff:10.0.0.1"} {
		if got := EmbeddedIPv4(netip.MustParseAddr(s)); len(got) != 0 {
			t.Errorf("EmbeddedIPv4(%s) = %v, want none", s, got)
		}
	}
}

// TestEmbeddedIPv4AfterDNS: a name whose AAAA answer is a translation
// form of a refused address is refused before any connection (stub
// resolver, no dial).
func TestEmbeddedIPv4AfterDNS(t *testing.T) {
	t.Parallel()
	answers := map[string][]string{}
	for _, v4 := range []string{"127.0.0.1", "10.0.0.5", "169.254.169.254"} {
		for form, s := range v6forms(v4) {
			answers[strings.NewReplacer(" ", "-", "/", "", "(", "", ")", "").Replace(strings.ToLower(form))+"."+strings.ReplaceAll(v4, ".", "-")+".example"] = []string{s}
		}
	}
	p := &Policy{Resolver: newStub(answers), dial: noDial(t)}
	client := p.Client(0)
	for name, addrs := range answers {
		err := p.CheckURL(context.Background(), "http://"+name+"/")
		if err == nil || !IsRefused(err) || !strings.Contains(err.Error(), name+" resolves to "+netip.MustParseAddr(addrs[0]).String()+" (") {
			t.Errorf("CheckURL(%s → %s) = %v, want refused naming the name and the answer", name, addrs[0], err)
		}
		resp, err := client.Get("http://" + name + "/")
		if err == nil {
			resp.Body.Close()
			t.Errorf("GET %s (→ %s) succeeded, want refused", name, addrs[0])
		} else if !IsRefused(err) {
			t.Errorf("GET %s (→ %s) = %v, want a refusal", name, addrs[0], err)
		}
	}
}
