package mcp

import (
	"context"
	"io"
	"net/http"
)

// headerTransport adds the server's configured headers to every request,
// and bounds the session DELETE sent on close.
type headerTransport struct {
	base    http.RoundTripper
	headers []Var
}

// RoundTrip implements [http.RoundTripper].
func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for _, h := range t.headers {
		if h.Name != "" {
			r.Header.Set(h.Name, h.Value)
		}
	}
	if r.Method != http.MethodDelete {
		return t.base.RoundTrip(r)
	}
	ctx, cancel := context.WithTimeout(r.Context(), stopGrace)
	resp, err := t.base.RoundTrip(r.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelBody releases a request's context when its body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
