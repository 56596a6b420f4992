package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// stubResolver answers from a table and never touches the network. A name
// with several answers in turn (rebinding) gives the next one on each call.
type stubResolver struct {
	mu      sync.Mutex
	answers map[string][][]string
	calls   map[string]int
}

func newStub(m map[string][]string) *stubResolver {
	r := &stubResolver{answers: map[string][][]string{}, calls: map[string]int{}}
	for k, v := range m {
		r.answers[k] = [][]string{v}
	}
	return r
}

func (r *stubResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seq, ok := r.answers[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	i := min(r.calls[host], len(seq)-1)
	r.calls[host]++
	var out []netip.Addr
	for _, s := range seq[i] {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

// noDial fails the test if the policy ever opens a connection.
func noDial(t *testing.T) func(context.Context, string, string) (net.Conn, error) {
	return func(_ context.Context, _, addr string) (net.Conn, error) {
		t.Errorf("dialled %s; the policy should have refused before connecting", addr)
		return nil, errors.New("test: no dialling")
	}
}

func TestCheckAddr(t *testing.T) {
	t.Parallel()
	strict := &Policy{}
	loop := &Policy{AllowLoopback: true}
	priv := &Policy{AllowPrivate: true}
	tests := []struct {
		addr               string
		strict, loop, priv string // "" allowed, else a substring of the refusal
	}{
		{"93.184.216.34", "", "", ""},
		{"2606:2800:220:1:248:1893:25c8:1946", "", "", ""},
		{"10.0.0.5", "refused: 10.0.0.5 is a private address (web.allow_private_urls allows it)", "private address", ""},
		{"172.16.3.4", "private address", "private address", ""},
		{"172.32.0.1", "", "", ""},
		{"192.168.1.1", "private address", "private address", ""},
		{"fd12:3456::1", "private address", "private address", ""},
		{"127.0.0.1", "refused: 127.0.0.1 is a loopback address", "", ""},
		{"127.8.9.10", "loopback address", "", ""},
		{"::1", "loopback address", "", ""},
		{"::ffff:127.0.0.1", "loopback address", "", ""},
		{"::ffff:10.1.2.3", "private address", "private address", ""},
		{"100.64.0.1", "shared (CGNAT) address", "CGNAT", ""},
		{"0.0.0.0", "unspecified address", "unspecified", ""},
		{"::", "unspecified address", "unspecified", ""},
		{"224.0.0.1", "multicast address", "multicast", ""},
		{"ff02::1", "multicast address", "multicast", ""},
		{"fe80::1", "link-local address", "link-local", ""},
		{"169.254.1.1", "link-local address (always refused)", "link-local", "link-local address (always refused)"},
		{"169.254.169.254", "refused: 169.254.169.254 is a cloud metadata address (always refused)", "cloud metadata", "cloud metadata"},
		{"::ffff:169.254.169.254", "cloud metadata", "cloud metadata", "cloud metadata"},
		{"fd00:ec2::254", "cloud metadata", "cloud metadata", "cloud metadata"},
		{"100.100.100.200", "cloud metadata", "cloud metadata", "cloud metadata"},
		{"198.18.0.1", "reserved address", "reserved", ""},
		{"240.0.0.1", "reserved address", "reserved", ""},
	}
	for _, tt := range tests {
		a := netip.MustParseAddr(tt.addr)
		for _, c := range []struct {
			name string
			p    *Policy
			want string
		}{{"strict", strict, tt.strict}, {"loopback", loop, tt.loop}, {"private", priv, tt.priv}} {
			err := c.p.CheckAddr(a)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%s.CheckAddr(%s) = %v, want allowed", c.name, tt.addr, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("%s.CheckAddr(%s) = %v, want a refusal containing %q", c.name, tt.addr, err, c.want)
			case err != nil && !IsRefused(err):
				t.Errorf("%s.CheckAddr(%s) = %T, want *RefusedError", c.name, tt.addr, err)
			}
		}
	}
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	res := newStub(map[string][]string{
		"docs.example":     {"93.184.216.34"},
		"intranet.example": {"10.0.0.5"},
		"mixed.example":    {"93.184.216.34", "192.168.0.7"},
		"localhost":        {"127.0.0.1", "::1"},
	})
	strict := &Policy{Resolver: res}
	tests := []struct {
		url  string
		p    *Policy
		want string
	}{
		{"https://docs.example/page", strict, ""},
		{"HTTP://docs.example:8080/", strict, ""},
		{"https://intranet.example/wiki", strict, "refused: intranet.example resolves to 10.0.0.5, a private address (web.allow_private_urls allows it)"},
		{"https://intranet.example/wiki", &Policy{Resolver: res, AllowPrivate: true}, ""},
		{"https://mixed.example/", strict, "mixed.example resolves to 192.168.0.7, a private address"},
		{"http://localhost:3000/", strict, "localhost resolves to 127.0.0.1, a loopback address"},
		{"http://localhost:3000/", &Policy{Resolver: res, AllowLoopback: true}, ""},
		{"http://localhost:3000/", &Policy{Resolver: res, Setting: "browser.allow_private_urls"}, "(browser.allow_private_urls allows it)"},
		{"http://[::1]:8080/", strict, "refused: ::1 is a loopback address"},
		{"http://10.0.0.5/", strict, "refused: 10.0.0.5 is a private address"},
		{"http://169.254.169.254/latest/meta-data/", &Policy{Resolver: res, AllowPrivate: true}, "cloud metadata address (always refused)"},
		{"http://metadata.google.internal/computeMetadata/v1/", &Policy{Resolver: res, AllowPrivate: true}, "refused: metadata.google.internal is a cloud metadata host (always refused)"},
		{"http://Metadata.Google.Internal./", strict, "cloud metadata host"},
		{"file:///etc/passwd", strict, "refused: file:///etc/passwd is not an http or https URL"},
		{"ftp://docs.example/x", strict, "not an http or https URL"},
		{"javascript:alert(1)", strict, "not an http or https URL"},
		{"https:///nohost", strict, "without a host"},
		{"https://nxdomain.example/", strict, "resolve nxdomain.example"},
	}
	for _, tt := range tests {
		err := tt.p.CheckURL(context.Background(), tt.url)
		if tt.want == "" {
			if err != nil {
				t.Errorf("CheckURL(%q) = %v, want allowed", tt.url, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CheckURL(%q) = %v, want an error containing %q", tt.url, err, tt.want)
		}
	}
}

// TestClientRefusesBeforeConnecting: a name that resolves to a private
// address is refused by the client's dialler without any connection.
func TestClientRefusesBeforeConnecting(t *testing.T) {
	t.Parallel()
	p := &Policy{Resolver: newStub(map[string][]string{"intranet.example": {"10.0.0.5"}})}
	p.dial = noDial(t)
	_, err := p.Client(0).Get("http://intranet.example/admin")
	if !IsRefused(err) || !strings.Contains(err.Error(), "intranet.example resolves to 10.0.0.5, a private address") {
		t.Fatalf("Get = %v, want the private-address refusal", err)
	}
}

// TestClientDialsTheCheckedAddress: a name that passes a first check and
// then resolves to loopback (DNS rebinding) is refused at dial time, because
// the client resolves, checks and dials in one step.
func TestClientDialsTheCheckedAddress(t *testing.T) {
	t.Parallel()
	res := newStub(nil)
	res.answers["rebind.example"] = [][]string{{"93.184.216.34"}, {"127.0.0.1"}}
	p := &Policy{Resolver: res}
	p.dial = noDial(t)
	if err := p.CheckURL(context.Background(), "http://rebind.example/"); err != nil {
		t.Fatalf("first CheckURL = %v, want allowed", err)
	}
	_, err := p.Client(0).Get("http://rebind.example/")
	if !IsRefused(err) || !strings.Contains(err.Error(), "rebind.example resolves to 127.0.0.1, a loopback address") {
		t.Fatalf("Get after rebinding = %v, want the loopback refusal", err)
	}
}

// publicServer serves h on loopback but lets a strict policy reach it as
// the public address 93.184.216.34 (the test's dial hook connects the
// public address to the loopback listener; nothing leaves loopback).
func publicServer(t *testing.T, h http.Handler) (*Policy, *int32) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	var dials int32
	p := &Policy{Resolver: newStub(map[string][]string{"public.example": {"93.184.216.34"}})}
	p.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		if host != "93.184.216.34" {
			t.Errorf("dialled %s; only the checked public address may be dialled", addr)
			return nil, errors.New("test: refused dial")
		}
		atomic.AddInt32(&dials, 1)
		var d net.Dialer
		return d.DialContext(ctx, network, srv.Listener.Addr().String())
	}
	return p, &dials
}

func TestClientRefusesRedirectToLoopback(t *testing.T) {
	t.Parallel()
	var secret int32
	mux := http.NewServeMux()
	mux.HandleFunc("/go", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:1/secret", http.StatusFound)
	})
	mux.HandleFunc("/secret", func(w http.ResponseWriter, r *http.Request) { atomic.AddInt32(&secret, 1) })
	p, dials := publicServer(t, mux)
	_, err := p.Client(0).Get("http://public.example/go")
	if !IsRefused(err) || !strings.Contains(err.Error(), "redirect to http://127.0.0.1:1/secret: refused: 127.0.0.1 is a loopback address") {
		t.Fatalf("Get = %v, want the redirect refused as loopback", err)
	}
	if *dials != 1 || secret != 0 {
		t.Errorf("dials = %d, secret hits = %d; want 1 and 0", *dials, secret)
	}
}

func TestClientRedirectLimit(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	var hops int32
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		n := atomic.AddInt32(&hops, 1)
		http.Redirect(w, r, fmt.Sprintf("/hop%d", n), http.StatusFound)
	})
	p, _ := publicServer(t, mux)
	p.MaxRedirects = 3
	_, err := p.Client(0).Get("http://public.example/")
	if err == nil || !strings.Contains(err.Error(), "stopped after 3 redirects") {
		t.Fatalf("Get = %v, want stopped after 3 redirects", err)
	}
	if hops != 4 {
		t.Errorf("server saw %d requests, want 4 (the first and 3 redirects)", hops)
	}
}

func TestClientFollowsAllowedRedirect(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/new", http.StatusMovedPermanently) })
	mux.HandleFunc("/new", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "moved here") })
	p, _ := publicServer(t, mux)
	resp, err := p.Client(0).Get("http://public.example/old")
	if err != nil {
		t.Fatalf("Get = %v", err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/new" {
		t.Errorf("final URL %s, want /new", resp.Request.URL)
	}
}

func TestClientAllowsLoopbackWhenAsked(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") }))
	defer srv.Close()
	resp, err := (&Policy{AllowLoopback: true}).Client(0).Get(srv.URL)
	if err != nil {
		t.Fatalf("Get %s with AllowLoopback = %v", srv.URL, err)
	}
	resp.Body.Close()
	_, err = (&Policy{}).Client(0).Get(srv.URL)
	if !IsRefused(err) {
		t.Errorf("Get %s strict = %v, want refused", srv.URL, err)
	}
}
