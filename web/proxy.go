package web

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
	"sync"
	"time"
)

// RefusedHeader is the response header of a request a [Proxy] refused: it
// carries the refusal's text, so that a client that sees the response
// (a browser's page load) can tell a refusal from the site's own 403.
const RefusedHeader = "X-Hermes-Refused"

// Refusal is one request a [Proxy] refused.
type Refusal struct {
	// URL is what was asked for: the URL of a plain HTTP request, or
	// "host:port" of a tunnel (CONNECT: https, wss).
	URL string
	Err error
}

// ProxyOptions configure a [Proxy]. The zero value refuses nothing beyond
// the policy and serves no host itself.
type ProxyOptions struct {
	// OnRefused is called, on the proxy's goroutines, for every request the
	// policy refused. It must not block.
	OnRefused func(Refusal)
	// Hosts are host names (lower case, without a port) the proxy answers
	// itself with their handler instead of reaching the network; a tunnel
	// (CONNECT) to one is refused.
	Hosts map[string]http.Handler
	// Log receives the proxy's own errors (nil: discarded).
	Log *slog.Logger
}

// Proxy is an HTTP forward proxy on a loopback port that applies a
// [Policy] to every request it forwards: plain HTTP requests (absolute
// form) and tunnels (CONNECT, for https and WebSockets). It resolves the
// names itself and connects only to the addresses the policy checked, so
// its client needs no DNS of its own; a refused request gets a 403 with
// [RefusedHeader] and no connection is made. Requests that are not proxy
// requests are refused. It does not follow redirects: each one is a new
// request of the client, checked again.
//
// The browser reaches the network only through one (Chromium is started
// with --proxy-server pointing at it and its own resolver switched off).
// It grants nothing the policy does not, so it needs no authentication:
// any local process can already connect where the policy allows.
//
// NewProxy starts it; the caller calls Close, which closes every
// connection, tunnels included, and waits for them.
type Proxy struct {
	policy    *Policy
	opts      ProxyOptions
	ln        net.Listener
	srv       *http.Server
	transport *http.Transport
	reverse   *httputil.ReverseProxy
	done      chan struct{}

	mu      sync.Mutex // guards tunnels and closed
	tunnels map[net.Conn]struct{}
	closed  bool
	wg      sync.WaitGroup // the tunnels' copy goroutines
}

// tunnelDialTimeout bounds the connection of a tunnel.
const tunnelDialTimeout = 30 * time.Second

// NewProxy starts a proxy for p on 127.0.0.1 (a free port).
func NewProxy(p *Policy, o ProxyOptions) (*Proxy, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start the browser's proxy: %w", err)
	}
	px := &Proxy{policy: p, opts: o, ln: ln, tunnels: map[net.Conn]struct{}{}, done: make(chan struct{})}
	px.transport = p.Transport()
	px.transport.ForceAttemptHTTP2 = false
	px.transport.ResponseHeaderTimeout = 0 // long polls and slow pages are the page's business
	px.reverse = &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.Out.URL = r.In.URL; r.Out.Host = r.In.Host },
		Transport:     px.transport,
		FlushInterval: -1,
		ErrorLog:      slog.NewLogLogger(o.Log.Handler(), slog.LevelDebug),
		ErrorHandler:  px.upstreamError,
	}
	px.srv = &http.Server{
		Handler:           px,
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          slog.NewLogLogger(o.Log.Handler(), slog.LevelDebug),
	}
	go func() {
		defer close(px.done)
		if err := px.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			o.Log.Warn("browser proxy stopped", "error", err)
		}
	}()
	return px, nil
}

// Addr is the proxy's address, "127.0.0.1:PORT".
func (px *Proxy) Addr() string { return px.ln.Addr().String() }

// Close stops the proxy: the listener, every connection and tunnel. It
// waits for them and is idempotent.
func (px *Proxy) Close() error {
	px.mu.Lock()
	already := px.closed
	px.closed = true
	tunnels := make([]net.Conn, 0, len(px.tunnels))
	for c := range px.tunnels {
		tunnels = append(tunnels, c)
	}
	px.mu.Unlock()
	if already {
		return nil
	}
	err := px.srv.Close()
	for _, c := range tunnels {
		_ = c.Close()
	}
	px.wg.Wait()
	<-px.done
	px.transport.CloseIdleConnections()
	return err
}

// ServeHTTP routes one request of the client.
func (px *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		px.tunnel(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Host == "" {
		http.Error(w, "hermes-acp: this is the browser's proxy; it answers only proxy requests", http.StatusBadRequest)
		return
	}
	host := strings.ToLower(r.URL.Hostname())
	if h, ok := px.opts.Hosts[host]; ok {
		h.ServeHTTP(w, r)
		return
	}
	if !strings.EqualFold(r.URL.Scheme, "http") {
		px.refuse(w, r.URL.Redacted(), &RefusedError{URL: r.URL.Redacted(), Rule: "not an http URL (https goes through a tunnel)"})
		return
	}
	px.reverse.ServeHTTP(w, r)
}

// upstreamError answers a forwarded request that could not be made: a
// refusal by the policy (at dial time) or a failure of the site.
func (px *Proxy) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	if IsRefused(err) {
		px.refuse(w, r.URL.Redacted(), err)
		return
	}
	if r.Context().Err() != nil {
		return // the client went away
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusBadGateway)
	fmt.Fprintf(w, "hermes-acp: %s: %v\n", r.URL.Redacted(), err)
}

// refuse answers a refused request with 403 and the refusal.
func (px *Proxy) refuse(w http.ResponseWriter, what string, err error) {
	var r *RefusedError
	if !errors.As(err, &r) {
		r = &RefusedError{URL: what, Rule: err.Error()}
	}
	if px.opts.OnRefused != nil {
		px.opts.OnRefused(Refusal{URL: what, Err: r})
	}
	msg := r.Error()
	w.Header().Set(RefusedHeader, strings.NewReplacer("\r", " ", "\n", " ").Replace(msg))
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusForbidden)
	fmt.Fprintf(w, "hermes-acp %s\n", msg)
}

// tunnel answers CONNECT host:port: it dials through the policy and, once
// connected, copies bytes both ways until either side closes.
func (px *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	target := r.Host
	if target == "" {
		target = r.URL.Host
	}
	host, port, err := net.SplitHostPort(target)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n <= 0 || n > 65535 {
		http.Error(w, "hermes-acp: CONNECT needs host:port", http.StatusBadRequest)
		return
	}
	if _, ok := px.opts.Hosts[strings.ToLower(host)]; ok {
		px.refuse(w, target, &RefusedError{Host: host, Rule: "served by the agent over http only"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), tunnelDialTimeout)
	up, err := px.policy.DialContext(ctx, "tcp", target)
	cancel()
	if err != nil {
		if IsRefused(err) {
			px.refuse(w, target, err)
			return
		}
		http.Error(w, fmt.Sprintf("hermes-acp: connect %s: %v", target, err), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "hermes-acp: cannot tunnel on this connection", http.StatusInternalServerError)
		return
	}
	down, rw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if !px.track(up, down) {
		up.Close()
		down.Close()
		return
	}
	if _, err := io.WriteString(down, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		px.untrack(up, down)
		px.wg.Done()
		return
	}
	go func() {
		defer px.wg.Done()
		px.splice(up, down, rw.Reader)
	}()
}

// splice copies between the tunnel's two ends until either ends, then
// closes both; buffered holds what the client sent after its CONNECT
// request.
func (px *Proxy) splice(up, down net.Conn, buffered *bufio.Reader) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(up, buffered) // the client's bytes, buffered ones first
		px.untrack(up, down)
	}()
	_, _ = io.Copy(down, up)
	px.untrack(up, down)
	<-done
}

// track records a tunnel's connections for Close and counts its
// goroutine in wg (the caller calls wg.Done); false when the proxy is
// closed already.
func (px *Proxy) track(cs ...net.Conn) bool {
	px.mu.Lock()
	defer px.mu.Unlock()
	if px.closed {
		return false
	}
	for _, c := range cs {
		px.tunnels[c] = struct{}{}
	}
	px.wg.Add(1)
	return true
}

func (px *Proxy) untrack(cs ...net.Conn) {
	px.mu.Lock()
	for _, c := range cs {
		delete(px.tunnels, c)
	}
	px.mu.Unlock()
	for _, c := range cs {
		_ = c.Close()
	}
}
