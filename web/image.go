package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// imageFetchTimeout bounds the download of an image URL.
const imageFetchTimeout = 30 * time.Second

// FetchImage downloads the image at url (for vision_analyze) with p's
// client: http and https only, private, loopback and metadata addresses
// refused (unless p.AllowPrivate) after DNS and on every redirect; at most
// maxBytes are read, more is an error. It returns the bytes and the
// response's Content-Type.
func (p *Policy) FetchImage(ctx context.Context, url string, maxBytes int64) ([]byte, string, error) {
	if err := p.CheckURL(ctx, url); err != nil {
		return nil, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, "", fmt.Errorf("fetch image: %w", err)
	}
	req.Header.Set("Accept", "image/png,image/jpeg,image/gif,image/webp,image/*;q=0.8")
	res, err := p.Client(imageFetchTimeout).Do(req)
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
