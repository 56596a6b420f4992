package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/hermes-acp/hermes-acp/web"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// browserURLPolicy is the browser tools' navigation rule: http and https
// under the web tools' URL policy (private, link-local and metadata
// addresses refused after DNS, see web.Policy) except that loopback is
// allowed (local dev servers are the main use in an editor) and
// browser.allow_private_urls widens it; file:// only inside the workspace;
// about:blank always.
func browserURLPolicy(ws *workspace.Workspace, allowPrivate bool) func(ctx context.Context, raw string) error {
	policy := &web.Policy{AllowLoopback: true, AllowPrivate: allowPrivate, Setting: "browser.allow_private_urls"}
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
			return policy.CheckURL(ctx, raw)
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
	}
}
