package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"

	"github.com/hermes-acp/hermes-acp/workspace"
)

// browserURLPolicy is the browser tools' navigation rule until the web
// package's URL policy replaces it: http and https only, loopback allowed,
// other private, link-local and unspecified addresses refused unless
// allowPrivate (cloud metadata addresses always), file:// only inside the
// workspace, about:blank always.
func browserURLPolicy(ws *workspace.Workspace, allowPrivate bool) func(ctx context.Context, raw string) error {
	return func(ctx context.Context, raw string) error {
		if raw == "about:blank" {
			return nil
		}
		u, err := url.Parse(raw)
		if err != nil {
			return fmt.Errorf("not a valid URL: %w", err)
		}
		switch strings.ToLower(u.Scheme) {
		case "http", "https":
		case "file":
			if ws == nil {
				return errors.New("file URLs are allowed only inside the workspace")
			}
			p, err := ws.Resolve(raw)
			if err != nil || !ws.InRoots(p) {
				return errors.New("file URLs are allowed only inside the workspace")
			}
			return nil
		default:
			return fmt.Errorf("only http, https and file URLs inside the workspace may be opened, not %s:", u.Scheme)
		}
		host := u.Hostname()
		if host == "" {
			return errors.New("the URL has no host")
		}
		var addrs []netip.Addr
		if a, err := netip.ParseAddr(host); err == nil {
			addrs = []netip.Addr{a}
		} else if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
			return nil
		} else {
			ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
			if err != nil {
				return nil // the browser reports the failed lookup itself
			}
			addrs = ips
		}
		for _, a := range addrs {
			a = a.Unmap()
			switch {
			case a.IsLoopback():
			case a == netip.MustParseAddr("169.254.169.254") || a == netip.MustParseAddr("fd00:ec2::254"):
				return fmt.Errorf("%s is a cloud metadata address", a)
			case allowPrivate:
			case a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsUnspecified() ||
				a.IsMulticast() || a.IsInterfaceLocalMulticast() || cgnat.Contains(a):
				return fmt.Errorf("%s is a private network address (set browser.allow_private_urls to allow it)", a)
			}
		}
		return nil
	}
}

// cgnat is the shared address space of carrier-grade NAT.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")
