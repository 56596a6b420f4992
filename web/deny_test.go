package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestParseDeny(t *testing.T) {
	t.Parallel()
	d, err := ParseDeny([]string{"127.0.0.2/32", "10.20.0.0/16", "fd00:1::/32", "192.0.2.7", "[::1]", "Wiki.Corp.Example.", "*.intra.example", " 127.0.0.9 "})
	if err != nil {
		t.Fatalf("ParseDeny = %v", err)
	}
	if d.Len() != 8 {
		t.Errorf("Len = %d, want 8", d.Len())
	}
	_, err = ParseDeny([]string{"10.0.0.0/33", "", "*.", "not a host", "ok.example", "a..b"})
	if err == nil {
		t.Fatal("ParseDeny of bad entries = nil error")
	}
	for _, want := range []string{`web.deny: "10.0.0.0/33" (not an address range`, `"" (empty)`, `"*." (not a domain`, `"not a host" (not an address`, `"a..b"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDeny error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "ok.example") {
		t.Errorf("ParseDeny error %q names a good entry", err)
	}
}

// TestDenyRefuses: web.deny refuses its hosts, domains and ranges before
// any lookup or after it, in every IPv6 form of a denied IPv4 address,
// whatever AllowPrivate and AllowLoopback allow.
func TestDenyRefuses(t *testing.T) {
	t.Parallel()
	deny := MustParseDeny("127.0.0.2/32", "203.0.113.0/24", "wiki.corp.example", "*.intra.example", "2001:db8:7::/48")
	res := newStub(map[string][]string{
		"docs.example":      {"93.184.216.34"},
		"second.loop":       {"127.0.0.2"},
		"first.loop":        {"127.0.0.1"},
		"aaaa.example":      {"64:ff9b::7f00:2"},
		"range.example":     {"203.0.113.77"},
		"v6range.example":   {"2001:db8:7:1::5"},
		"wiki.corp.example": {"93.184.216.35"},
		"a.b.intra.example": {"93.184.216.36"},
		"intra.example":     {"93.184.216.37"},
		"notintra.example":  {"93.184.216.38"},
	})
	for _, p := range []*Policy{
		{Resolver: res, Deny: deny, AllowLoopback: true},
		{Resolver: res, Deny: deny, AllowPrivate: true},
	} {
		for _, tt := range []struct{ url, want string }{
			{"http://docs.example/", ""},
			{"http://first.loop:8080/", ""},
			{"http://notintra.example/", ""},
			{"http://127.0.0.2:8080/", "refused: 127.0.0.2 is in web.deny (127.0.0.2/32)"},
			{"http://[::ffff:127.0.0.2]/", "refused: ::ffff:127.0.0.2 (IPv4-mapped form of 127.0.0.2) is in web.deny (127.0.0.2/32)"},
			{"http://[64:ff9b::127.0.0.2]/", "(NAT64 of 127.0.0.2) is in web.deny (127.0.0.2/32)"},
			{"http://[2002:7f00:2::1]/", "(6to4 of 127.0.0.2) is in web.deny"},
			{"http://second.loop:9/", "refused: second.loop resolves to 127.0.0.2, in web.deny (127.0.0.2/32)"},
			{"http://aaaa.example/", "aaaa.example resolves to 64:ff9b::7f00:2 (NAT64 of 127.0.0.2), in web.deny"},
			{"http://range.example/", "in web.deny (203.0.113.0/24)"},
			{"http://v6range.example/", "in web.deny (2001:db8:7::/48)"},
			{"https://WIKI.corp.example./x", "refused: WIKI.corp.example. is in web.deny (wiki.corp.example)"},
			{"https://a.b.intra.example/", "is in web.deny (*.intra.example)"},
			{"https://intra.example/", "is in web.deny (*.intra.example)"},
		} {
			err := p.CheckURL(context.Background(), tt.url)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckURL(%s) = %v, want allowed", tt.url, err)
			case tt.want != "" && (err == nil || !IsRefused(err) || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("CheckURL(%s) = %v, want a refusal containing %q", tt.url, err, tt.want)
			}
		}
	}
	// A denied name is refused before it is looked up.
	calls := res.calls["wiki.corp.example"]
	if calls != 0 {
		t.Errorf("wiki.corp.example was looked up %d times, want 0 (refused by name)", calls)
	}
	if err := (&Policy{Deny: deny}).CheckAddr(netip.MustParseAddr("127.0.0.2")); err == nil {
		t.Error("CheckAddr(127.0.0.2) = nil with it denied")
	}
}

// TestDenyRedirect: a redirect to a denied host is refused without a
// request to it.
func TestDenyRedirect(t *testing.T) {
	t.Parallel()
	hit := 0
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit++ }))
	defer target.Close()
	src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://denied.example:"+strings.Split(target.Listener.Addr().String(), ":")[1]+"/", http.StatusFound)
	}))
	defer src.Close()
	p := &Policy{Resolver: newStub(map[string][]string{"denied.example": {"127.0.0.1"}}), AllowLoopback: true, Deny: MustParseDeny("denied.example")}
	resp, err := p.Client(0).Get(src.URL)
	if err == nil {
		resp.Body.Close()
		t.Fatal("redirect to a denied host was followed")
	}
	if !IsRefused(err) || !strings.Contains(err.Error(), "denied.example is in web.deny") {
		t.Errorf("redirect error = %v", err)
	}
	if hit != 0 {
		t.Errorf("the denied host got %d requests", hit)
	}
}
