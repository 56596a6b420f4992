package web

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// countingServer serves on addr ("127.0.0.2:0") and counts its requests.
func countingServer(t *testing.T, addr string, tlsToo bool) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		fmt.Fprintf(w, "hello from %s%s", r.Host, r.URL.Path)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	if tlsToo {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, &n
}

// proxyClient is a client that sends everything through px.
func proxyClient(px *Proxy) *http.Client {
	u, _ := url.Parse("http://" + px.Addr())
	return &http.Client{Transport: &http.Transport{
		Proxy:           http.ProxyURL(u),
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // the test servers' own certificates
	}}
}

func TestProxyAppliesThePolicy(t *testing.T) {
	t.Parallel()
	allowed, allowedHits := countingServer(t, "127.0.0.1:0", false)
	allowedTLS, allowedTLSHits := countingServer(t, "127.0.0.1:0", true)
	denied, deniedHits := countingServer(t, "127.0.0.2:0", false)
	deniedTLS, deniedTLSHits := countingServer(t, "127.0.0.2:0", true)
	port := func(s *httptest.Server) string { return fmt.Sprint(s.Listener.Addr().(*net.TCPAddr).Port) }

	var mu sync.Mutex
	var refused []Refusal
	res := newStub(map[string][]string{"app.test": {"127.0.0.1"}, "other.test": {"127.0.0.2"}})
	px, err := NewProxy(&Policy{Resolver: res, AllowLoopback: true, Deny: MustParseDeny("127.0.0.2/32")}, ProxyOptions{
		OnRefused: func(r Refusal) { mu.Lock(); refused = append(refused, r); mu.Unlock() },
		Hosts: map[string]http.Handler{"files.localhost": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "served %s", r.URL.Path)
		})},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	c := proxyClient(px)
	get := func(u string) (int, string, http.Header) {
		t.Helper()
		resp, err := c.Get(u)
		if err != nil {
			return 0, err.Error(), nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}

	// Allowed: plain HTTP, a name the proxy resolves (the client has no
	// DNS of its own here: app.test exists only in the stub), a tunnel.
	if code, body, _ := get(allowed.URL + "/a"); code != 200 || !strings.Contains(body, "/a") {
		t.Errorf("GET allowed = %d %q", code, body)
	}
	if code, body, _ := get("http://app.test:" + port(allowed) + "/b"); code != 200 || body != "hello from app.test:"+port(allowed)+"/b" {
		t.Errorf("GET app.test = %d %q", code, body)
	}
	if code, body, _ := get(allowedTLS.URL + "/c"); code != 200 || !strings.Contains(body, "/c") {
		t.Errorf("GET allowed over a tunnel = %d %q", code, body)
	}
	if allowedHits.Load() != 2 || allowedTLSHits.Load() != 1 {
		t.Errorf("allowed servers got %d and %d requests, want 2 and 1", allowedHits.Load(), allowedTLSHits.Load())
	}

	// Refused: the denied address, by address and by name, plain and
	// tunnelled; a 403 carrying the refusal, and no request.
	for _, u := range []string{denied.URL + "/x", "http://other.test:" + port(denied) + "/y"} {
		code, body, h := get(u)
		if code != http.StatusForbidden || !strings.Contains(body, "in web.deny (127.0.0.2/32)") || !strings.Contains(h.Get(RefusedHeader), "web.deny") {
			t.Errorf("GET %s = %d %q (header %q), want 403 naming web.deny", u, code, body, h.Get(RefusedHeader))
		}
	}
	if code, body, _ := get(deniedTLS.URL + "/z"); code != 0 || !strings.Contains(body, "Forbidden") {
		t.Errorf("GET denied over a tunnel = %d %q, want the CONNECT refused", code, body)
	}
	if deniedHits.Load() != 0 || deniedTLSHits.Load() != 0 {
		t.Errorf("the denied servers got %d and %d requests, want none", deniedHits.Load(), deniedTLSHits.Load())
	}
	mu.Lock()
	if len(refused) != 3 || refused[0].URL != denied.URL+"/x" || refused[2].URL != deniedTLS.Listener.Addr().String() || !IsRefused(refused[1].Err) {
		t.Errorf("refusals = %v", refused)
	}
	mu.Unlock()

	// A host the proxy serves itself, and nothing else a proxy would not do.
	if code, body, _ := get("http://files.localhost/ws/a.html"); code != 200 || body != "served /ws/a.html" {
		t.Errorf("GET files.localhost = %d %q", code, body)
	}
	resp, err := http.Get("http://" + px.Addr() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a plain request to the proxy = %d, want 400", resp.StatusCode)
	}
}

// TestProxyCloseEndsTunnels: Close returns with a tunnel open, and the
// tunnel is closed.
func TestProxyCloseEndsTunnels(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			_, _ = io.Copy(io.Discard, c) // holds the tunnel open
			c.Close()
		}
	}()
	px, err := NewProxy(&Policy{AllowLoopback: true}, ProxyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", px.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", ln.Addr(), ln.Addr())
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || !strings.Contains(line, "200") {
		t.Fatalf("CONNECT answer %q, %v", line, err)
	}
	if err := px.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("the tunnel is still open after Close")
	}
}
