package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// DefaultMaxRedirects is how many redirects a [Policy] client follows when
// Policy.MaxRedirects is zero.
const DefaultMaxRedirects = 10

// DefaultSetting is the configuration key a refusal names as the way to
// allow private addresses, when Policy.Setting is empty.
const DefaultSetting = "web.allow_private_urls"

// Resolver looks up the addresses of a host name. *net.Resolver satisfies
// it; tests pass a stub so that no test resolves or contacts a name beyond
// the loopback addresses.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Policy is the URL safety policy for every URL the agent fetches on the
// model's behalf (web tools, vision image URLs, and every request of the
// browser, which reaches the network only through a [Proxy] applying it).
// The zero value is the strict default: only http and https, and only
// public addresses.
//
// The check runs on the resolved address when the connection is dialled (the
// client dials exactly the address it checked, so DNS rebinding between a
// check and the connection cannot reach a refused address) and again on every
// redirect. Cloud metadata addresses (169.254.169.254, fd00:ec2::254,
// metadata.google.internal, …) and IPv4 link-local addresses are refused
// even when AllowPrivate is set, as hermes does. An IPv6 address that
// carries an IPv4 address (IPv4-mapped, -compatible and -translated, NAT64,
// 6to4, Teredo, ISATAP) is judged by that IPv4 address too, so no
// translation form reaches what the IPv4 address would not. Deny adds the
// user's own refusals (web.deny), which nothing overrides.
//
// A Policy is a value; it is safe for concurrent use once built.
type Policy struct {
	// AllowPrivate allows private (RFC 1918, IPv6 unique-local), loopback,
	// CGNAT, IPv6 link-local and reserved addresses (web.allow_private_urls).
	AllowPrivate bool
	// AllowLoopback allows only the loopback addresses (127.0.0.0/8, ::1):
	// the browser navigates to local development servers by default.
	AllowLoopback bool
	// Resolver resolves host names; nil means net.DefaultResolver.
	Resolver Resolver
	// MaxRedirects bounds the redirects a Client follows; 0 means
	// DefaultMaxRedirects and a negative value follows none.
	MaxRedirects int
	// Setting names the configuration key that allows private addresses, for
	// the refusal message; "" means DefaultSetting.
	Setting string
	// Deny is web.deny: hosts, domains and address ranges refused on top of
	// the built-in rules, whatever AllowPrivate and AllowLoopback say.
	Deny DenyList

	// dial, when set, replaces the network dial (tests count connections).
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// RefusedError is the error of a URL or address the policy refuses. Its
// message names the rule: "refused: 10.0.0.5 is a private address
// (web.allow_private_urls allows it)".
type RefusedError struct {
	// URL is the refused URL, when the refusal is about one ("" at dial time).
	URL string
	// Host is the host name as written, when it is not the address itself.
	Host string
	// Addr is the refused address, when the refusal is about one.
	Addr netip.Addr
	// Carrier is the IPv6 address Addr was found in (a NAT64, 6to4, Teredo
	// … address), and Form names the scheme ("NAT64"); both zero when Addr
	// is the address itself.
	Carrier netip.Addr
	Form    string
	// Rule is what the address or URL is: "a private address", "a cloud
	// metadata address", "not an http or https URL", ….
	Rule string
	// Hint says how to allow it: "web.allow_private_urls allows it" or
	// "always refused"; "" when nothing allows it.
	Hint string
}

func (e *RefusedError) Error() string {
	var b strings.Builder
	b.WriteString("refused: ")
	addr := e.Addr.String()
	if e.Carrier.IsValid() {
		addr = fmt.Sprintf("%s (%s of %s)", e.Carrier, e.Form, e.Addr)
	}
	switch {
	case e.Addr.IsValid() && e.Host != "":
		fmt.Fprintf(&b, "%s resolves to %s, %s", e.Host, addr, e.Rule)
	case e.Addr.IsValid():
		fmt.Fprintf(&b, "%s is %s", addr, e.Rule)
	case e.Host != "":
		fmt.Fprintf(&b, "%s is %s", e.Host, e.Rule)
	default:
		fmt.Fprintf(&b, "%s is %s", e.URL, e.Rule)
	}
	if e.Hint != "" {
		fmt.Fprintf(&b, " (%s)", e.Hint)
	}
	return b.String()
}

// IsRefused reports whether err (or an error it wraps) is a policy refusal.
func IsRefused(err error) bool {
	var r *RefusedError
	return errors.As(err, &r)
}

// metadataHosts are cloud metadata host names, refused before any lookup.
var metadataHosts = map[string]bool{
	"metadata.google.internal":   true,
	"metadata.goog":              true,
	"metadata":                   true,
	"instance-data":              true,
	"instance-data.ec2.internal": true,
}

// metadataAddrs are cloud metadata and credential endpoints, always refused.
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("169.254.169.254"): true, // AWS, GCP, Azure, DigitalOcean, Oracle
	netip.MustParseAddr("169.254.170.2"):   true, // AWS ECS task metadata
	netip.MustParseAddr("169.254.169.253"): true, // Azure wire server
	netip.MustParseAddr("100.100.100.200"): true, // Alibaba Cloud
	netip.MustParseAddr("fd00:ec2::254"):   true, // AWS IMDS over IPv6
}

// rule is one class of refused addresses.
type rule struct {
	prefixes []netip.Prefix
	what     string
	// class says what allows it: loopback (AllowLoopback or AllowPrivate),
	// private (AllowPrivate) or floor (nothing).
	class int
}

const (
	classPrivate = iota
	classLoopback
	classFloor
)

func prefixes(ss ...string) []netip.Prefix {
	ps := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		ps[i] = netip.MustParsePrefix(s)
	}
	return ps
}

// rules are checked in order; the first that contains the address decides.
var rules = []rule{
	{prefixes("169.254.0.0/16"), "a link-local address", classFloor},
	{prefixes("127.0.0.0/8", "::1/128"), "a loopback address", classLoopback},
	{prefixes("0.0.0.0/32", "::/128"), "an unspecified address", classPrivate},
	{prefixes("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"), "a private address", classPrivate},
	{prefixes("100.64.0.0/10"), "a shared (CGNAT) address", classPrivate},
	{prefixes("fe80::/10"), "a link-local address", classPrivate},
	{prefixes("224.0.0.0/4", "ff00::/8"), "a multicast address", classPrivate},
	// Local-use NAT64 (RFC 8215): translated by the site's own gateway, to
	// IPv4 addresses at a position only the site knows.
	{prefixes("64:ff9b:1::/48"), "a local-use NAT64 address", classPrivate},
	{prefixes(
		"0.0.0.0/8", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4",
		"2001:db8::/32", "100::/64", "2001::/23",
	), "a reserved address", classPrivate},
}

func (p *Policy) setting() string {
	if p.Setting != "" {
		return p.Setting
	}
	return DefaultSetting
}

// CheckAddr reports whether the policy allows connecting to addr, as a
// *RefusedError when it does not. An IPv6 address is judged as itself and
// by every IPv4 address it carries (see [EmbeddedIPv4]); the first refusal
// wins.
func (p *Policy) CheckAddr(addr netip.Addr) error {
	a := addr.Unmap().WithZone("")
	// The carried addresses first: their refusal says more than the
	// carrier's block ("NAT64 of 169.254.169.254, always refused" rather
	// than "reserved, allowed by web.allow_private_urls"). An embedded
	// loopback address is the translator's loopback, not this machine's:
	// AllowLoopback does not cover it.
	inner := *p
	inner.AllowLoopback = false
	for _, e := range EmbeddedIPv4(a) {
		if err := inner.checkOne(e.Addr); err != nil {
			var r *RefusedError
			if errors.As(err, &r) {
				r.Carrier, r.Form = a, e.Form
			}
			return err
		}
	}
	if err := p.checkOne(a); err != nil {
		if a != addr.WithZone("") { // IPv4-mapped: say so
			var r *RefusedError
			if errors.As(err, &r) {
				r.Carrier, r.Form = addr.WithZone(""), "IPv4-mapped form"
			}
		}
		return err
	}
	return nil
}

// checkOne applies the deny list and the rules to a itself.
func (p *Policy) checkOne(a netip.Addr) error {
	if entry, ok := p.Deny.matchAddr(a); ok {
		return &RefusedError{Addr: a, Rule: "in " + DenySetting + " (" + entry + ")"}
	}
	if metadataAddrs[a] {
		return &RefusedError{Addr: a, Rule: "a cloud metadata address", Hint: "always refused"}
	}
	for _, r := range rules {
		if !contains(r.prefixes, a) {
			continue
		}
		switch {
		case r.class == classFloor:
			return &RefusedError{Addr: a, Rule: r.what, Hint: "always refused"}
		case r.class == classLoopback && (p.AllowLoopback || p.AllowPrivate):
			return nil
		case r.class == classPrivate && p.AllowPrivate:
			return nil
		}
		return &RefusedError{Addr: a, Rule: r.what, Hint: p.setting() + " allows it"}
	}
	return nil
}

func contains(ps []netip.Prefix, a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// CheckURL parses raw and reports whether the policy allows fetching it: the
// scheme is http or https, the host is not a metadata name, and every
// address the host resolves to is allowed. It resolves the host with the
// policy's Resolver; a refusal is a *RefusedError. Clients from [Policy.Client]
// check again at dial time, so CheckURL is for a clear early error (and for
// callers such as a browser that fetch through something else).
func (p *Policy) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return fmt.Errorf("parse URL %q: %w", raw, err)
	}
	return p.checkParsed(ctx, u)
}

func (p *Policy) checkParsed(ctx context.Context, u *url.URL) error {
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		return &RefusedError{URL: u.Redacted(), Rule: "not an http or https URL"}
	}
	host := u.Hostname()
	if host == "" {
		return &RefusedError{URL: u.Redacted(), Rule: "a URL without a host"}
	}
	_, err := p.resolve(ctx, host)
	return err
}

// resolve returns the allowed addresses of host (a name or a literal
// address), or a *RefusedError if any of them is refused: a name whose
// answers mix public and private addresses is refused, as hermes does.
func (p *Policy) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if metadataHosts[name] {
		return nil, &RefusedError{Host: host, Rule: "a cloud metadata host", Hint: "always refused"}
	}
	if entry, ok := p.Deny.matchName(name); ok {
		return nil, &RefusedError{Host: host, Rule: "in " + DenySetting + " (" + entry + ")"}
	}
	if a, err := netip.ParseAddr(strings.Trim(name, "[]")); err == nil {
		if err := p.CheckAddr(a); err != nil {
			return nil, err
		}
		return []netip.Addr{a}, nil
	}
	res := p.Resolver
	if res == nil {
		res = net.DefaultResolver
	}
	addrs, err := res.LookupNetIP(ctx, "ip", name)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses", host)
	}
	for _, a := range addrs {
		if err := p.CheckAddr(a); err != nil {
			var r *RefusedError
			if errors.As(err, &r) {
				r.Host = host
			}
			return nil, err
		}
	}
	return addrs, nil
}

// DialContext resolves addr's host with the policy's Resolver, checks every
// answer and dials the first checked address that answers; it never
// connects to an address it has not checked. It has the signature of
// http.Transport.DialContext.
func (p *Policy) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	addrs, err := p.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	dial := p.dial
	if dial == nil {
		d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
		dial = d.DialContext
	}
	var last error
	for _, a := range addrs {
		c, err := dial(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, last
}

// Transport returns a new http.Transport that dials through the policy. It
// uses no proxy: a proxy would resolve names where the policy cannot check
// them.
func (p *Policy) Transport() *http.Transport {
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           p.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// Client returns a new http.Client that dials through the policy and checks
// every redirect: at most MaxRedirects, only to http or https URLs whose
// addresses the policy allows. timeout bounds a whole request (0: none; use
// the request's context).
func (p *Policy) Client(timeout time.Duration) *http.Client {
	return &http.Client{
		Transport:     p.Transport(),
		Timeout:       timeout,
		CheckRedirect: p.checkRedirect,
	}
}

func (p *Policy) checkRedirect(req *http.Request, via []*http.Request) error {
	limit := p.MaxRedirects
	switch {
	case limit == 0:
		limit = DefaultMaxRedirects
	case limit < 0:
		limit = 0
	}
	if len(via) > limit {
		return fmt.Errorf("stopped after %d redirects", limit)
	}
	if err := p.checkParsed(req.Context(), req.URL); err != nil {
		return fmt.Errorf("redirect to %s: %w", req.URL.Redacted(), err)
	}
	return nil
}
