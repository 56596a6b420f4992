package web

import (
	"context"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// FuzzCheckURL: whatever the URL, CheckURL never panics, and a URL it
// allows is http or https with a host whose every address the policy
// allows.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://docs.example/a", "http://10.0.0.5/", "http://[::ffff:127.0.0.1]/", "http://0x7f.1/",
		"http://2130706433/", "file:///etc/passwd", "http://metadata.google.internal./", "HTTP://INTRANET.EXAMPLE",
		"http://[fe80::1%25eth0]/", "https://user:pass@docs.example:443/x?y#z", "//docs.example/", "http://169.254.169.254.nip.io/",
	} {
		f.Add(s)
	}
	res := newStub(map[string][]string{
		"docs.example":                {"93.184.216.34"},
		"intranet.example":            {"10.0.0.5"},
		"169.254.169.254.nip.io":      {"169.254.169.254"},
		"metadata.google.internal":    {"169.254.169.254"},
		"mixed.example":               {"93.184.216.34", "127.0.0.1"},
		"v6.example":                  {"2606:2800:220:1:248:1893:25c8:1946"},
		"mapped.example":              {"::ffff:10.1.2.3"},
		"xn--bcher-kva.example":       {"93.184.216.34"},
		"bücher.example":              {"93.184.216.34"},
		"docs.example.":               {"93.184.216.34"},
		"public-but-cgnat.example":    {"100.64.1.1"},
		"benchmarking-range.example":  {"198.18.0.1"},
		"unspecified-answer.example":  {"0.0.0.0"},
		"multicast-answer.example":    {"224.0.0.1"},
		"linklocal-answer.example":    {"fe80::1"},
		"ula-answer.example":          {"fd12::1"},
		"loopback6-answer.example":    {"::1"},
		"metadata6-answer.example":    {"fd00:ec2::254"},
		"alibaba-metadata.example":    {"100.100.100.200"},
		"ecs-metadata.example":        {"169.254.170.2"},
		"azure-wire.example":          {"169.254.169.253"},
		"documentation-range.example": {"203.0.113.9"},
	})
	p := &Policy{Resolver: res}
	f.Fuzz(func(t *testing.T, raw string) {
		if err := p.CheckURL(context.Background(), raw); err != nil {
			return
		}
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil {
			t.Fatalf("CheckURL(%q) allowed a URL url.Parse rejects: %v", raw, err)
		}
		if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
			t.Fatalf("CheckURL(%q) allowed scheme %q", raw, u.Scheme)
		}
		host := u.Hostname()
		addrs := []netip.Addr{}
		if a, err := netip.ParseAddr(host); err == nil {
			addrs = append(addrs, a)
		} else {
			got, err := res.LookupNetIP(context.Background(), "ip", strings.TrimSuffix(strings.ToLower(host), "."))
			if err != nil {
				t.Fatalf("CheckURL(%q) allowed a host that does not resolve", raw)
			}
			addrs = got
		}
		for _, a := range addrs {
			if err := p.CheckAddr(a); err != nil {
				t.Fatalf("CheckURL(%q) allowed %s: %v", raw, a, err)
			}
		}
	})
}
