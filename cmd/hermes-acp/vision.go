package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/web"
)

// visionDeps are vision_analyze's seams for a session: Vision asks the
// session's model or the auxiliary.vision model (nil when neither can see
// images), and FetchImage downloads image URLs under the web tools'
// network policy (policy).
func visionDeps(env *agent.Env, policy *web.Policy) (vision func(context.Context, []byte, string, string) (string, error), fetch func(context.Context, string, int64) ([]byte, string, error)) {
	if env.CanSee() {
		vision = env.Vision
	}
	return vision, func(ctx context.Context, url string, maxBytes int64) ([]byte, string, error) {
		return fetchImage(ctx, policy, url, maxBytes)
	}
}

// imageFetchTimeout bounds the download of an image URL.
const imageFetchTimeout = 30 * time.Second

// fetchImage downloads url with policy's client: http and https only,
// private, loopback and metadata addresses refused (unless
// web.allow_private_urls) after DNS and on every redirect; at most
// maxBytes are read, more is an error.
func fetchImage(ctx context.Context, policy *web.Policy, url string, maxBytes int64) ([]byte, string, error) {
	if err := policy.CheckURL(ctx, url); err != nil {
		return nil, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, "", fmt.Errorf("fetch image: %w", err)
	}
	req.Header.Set("Accept", "image/png,image/jpeg,image/gif,image/webp,image/*;q=0.8")
	res, err := policy.Client(imageFetchTimeout).Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("fetch image %s: %w", url, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("fetch image %s: the server answered %s", url, res.Status)
	}
	if res.ContentLength > maxBytes {
		return nil, "", fmt.Errorf("fetch image %s: %d bytes, more than the %d allowed", url, res.ContentLength, maxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, maxBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("fetch image %s: %w", url, err)
	}
	if int64(len(data)) > maxBytes {
		return nil, "", fmt.Errorf("fetch image %s: more than the %d bytes allowed", url, maxBytes)
	}
	return data, res.Header.Get("Content-Type"), nil
}

// markVisionUnavailable makes the declared vision_analyze unavailable in
// reg with reason, for `hermes-acp tools` (sessions bind it unavailable
// themselves).
func markVisionUnavailable(reg *registry.Registry, reason string) error {
	e, ok := reg.Snapshot().Lookup("vision_analyze")
	if !ok || reason == "" {
		return nil
	}
	e.Check = registry.Unavailable(reason)
	return reg.Register(e)
}
