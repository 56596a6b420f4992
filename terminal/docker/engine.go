package docker

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// engine is the part of the Docker Engine API the terminal uses — ping,
// create, start, list and remove a container, create, start (attached)
// and inspect an exec — spoken over HTTP with the standard library. The
// official client links the whole API (swarm, images, plugins, registry
// references, OpenTelemetry tracing) into every agent process, and its
// packages' initialisers run at every start-up; these calls are all a
// session's container needs. It is safe for concurrent use.
type engine struct {
	base string // scheme and authority of every request URL
	hc   *http.Client
	dial func(ctx context.Context) (net.Conn, error) // a new connection to the daemon (for attaching)
	tls  *tls.Config                                 // non-nil: dial's connections speak TLS

	mu      sync.Mutex
	version string // "v1.41": the API version, once negotiated (or DOCKER_API_VERSION)
}

// maxAPIVersion is the newest API version the requests below are written
// for; a daemon that speaks an older one is spoken to in its own (every
// field used exists since 1.30).
const maxAPIVersion = "1.47"

// envHost, envAPIVersion, envCertPath and envTLSVerify are the Docker CLI's
// environment variables, honoured as its client does.
const (
	envHost       = "DOCKER_HOST"
	envAPIVersion = "DOCKER_API_VERSION"
	envCertPath   = "DOCKER_CERT_PATH"
	envTLSVerify  = "DOCKER_TLS_VERIFY"
)

// newEngine returns the client of the daemon at host: unix:///path,
// tcp://host:port (TLS from DOCKER_CERT_PATH and DOCKER_TLS_VERIFY, as the
// Docker CLI), http:// or https://. With dial set, host only names the
// daemon and every connection is dial's (an ssh:// daemon's socket through
// the ssh connection).
func newEngine(host string, dial func(ctx context.Context) (net.Conn, error)) (*engine, error) {
	c := &engine{base: "http://docker", dial: dial}
	if v := strings.TrimPrefix(strings.TrimSpace(os.Getenv(envAPIVersion)), "v"); v != "" {
		c.version = "v" + v
	}
	if dial == nil {
		u, err := url.Parse(host)
		if err != nil || u.Scheme == "" {
			return nil, fmt.Errorf("docker host %q is not unix://, tcp://, http:// or https://", host)
		}
		var d net.Dialer
		switch u.Scheme {
		case "unix":
			sock := u.Path
			c.dial = func(ctx context.Context) (net.Conn, error) { return d.DialContext(ctx, "unix", sock) }
		case "tcp", "http", "https":
			addr := u.Host
			if u.Port() == "" {
				addr = net.JoinHostPort(u.Hostname(), "2375")
				if u.Scheme == "https" {
					addr = net.JoinHostPort(u.Hostname(), "2376")
				}
			}
			c.dial = func(ctx context.Context) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }
			c.base = "http://" + addr
			if c.tls, err = tlsFromEnv(u.Hostname(), u.Scheme == "https"); err != nil {
				return nil, err
			}
			if c.tls != nil {
				c.base = "https://" + addr
			}
		default:
			return nil, fmt.Errorf("docker host %q: %s:// daemons are not supported here", host, u.Scheme)
		}
	}
	c.hc = &http.Client{Transport: &http.Transport{
		DialContext:     func(ctx context.Context, _, _ string) (net.Conn, error) { return c.dial(ctx) },
		TLSClientConfig: c.tls,
	}}
	return c, nil
}

// tlsFromEnv is the TLS configuration of a tcp:// daemon, as the Docker
// CLI builds it: the client certificate and CA in DOCKER_CERT_PATH (ca.pem,
// cert.pem, key.pem), the server's certificate checked unless
// DOCKER_TLS_VERIFY is empty. Nil without DOCKER_CERT_PATH (plain HTTP),
// unless https says the daemon speaks TLS.
func tlsFromEnv(server string, https bool) (*tls.Config, error) {
	dir := os.Getenv(envCertPath)
	if dir == "" {
		if https {
			return &tls.Config{ServerName: server, MinVersion: tls.VersionTLS12}, nil
		}
		return nil, nil
	}
	cfg := &tls.Config{ServerName: server, MinVersion: tls.VersionTLS12, InsecureSkipVerify: os.Getenv(envTLSVerify) == ""}
	if ca, err := os.ReadFile(filepath.Join(dir, "ca.pem")); err == nil {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ca) {
			return nil, fmt.Errorf("docker TLS: %s holds no certificate", filepath.Join(dir, "ca.pem"))
		}
		cfg.RootCAs = pool
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("docker TLS: %w", err)
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"))
	switch {
	case err == nil:
		cfg.Certificates = []tls.Certificate{cert}
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("docker TLS client certificate: %w", err)
	}
	return cfg, nil
}

// close closes the idle connections.
func (c *engine) close() { c.hc.CloseIdleConnections() }

// ping checks that the daemon answers and negotiates the API version: the
// daemon's, when older than maxAPIVersion.
func (c *engine) ping(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/_ping", nil)
	if err != nil {
		return err
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode >= 400 {
		return responseError(res)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 4096))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version == "" {
		c.version = "v" + maxAPIVersion
		if v := res.Header.Get("Api-Version"); v != "" && olderVersion(v, maxAPIVersion) {
			c.version = "v" + v
		}
	}
	return nil
}

// olderVersion reports whether API version a ("1.41") is older than b.
func olderVersion(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := range max(len(as), len(bs)) {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// url is the request URL of an API path ("/containers/json") with query,
// under the negotiated version (negotiated first when it is not yet).
func (c *engine) url(ctx context.Context, p string, query url.Values) (string, error) {
	c.mu.Lock()
	v := c.version
	c.mu.Unlock()
	if v == "" {
		if err := c.ping(ctx); err != nil {
			return "", err
		}
		c.mu.Lock()
		v = c.version
		c.mu.Unlock()
	}
	u := c.base + "/" + v + p
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	return u, nil
}

// newRequest builds an API request with body (nil: none) as JSON.
func (c *engine) newRequest(ctx context.Context, method, p string, query url.Values, body any) (*http.Request, error) {
	u, err := c.url(ctx, p, query)
	if err != nil {
		return nil, err
	}
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// do sends an API request and decodes the answer's JSON into out (nil:
// the answer is dropped). An answer of 400 or more is an error with the
// daemon's message.
func (c *engine) do(ctx context.Context, method, p string, query url.Values, body, out any) error {
	req, err := c.newRequest(ctx, method, p, query, body)
	if err != nil {
		return err
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode >= 400 {
		return responseError(res)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20))
		return nil
	}
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		return fmt.Errorf("docker %s %s: decode the answer: %w", method, p, err)
	}
	return nil
}

// responseError is the error of a failed API answer, in the Docker CLI's
// words: "Error response from daemon: <message>".
func responseError(res *http.Response) error {
	data, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	var m struct {
		Message string `json:"message"`
	}
	msg := strings.TrimSpace(string(data))
	if json.Unmarshal(data, &m) == nil && m.Message != "" {
		msg = m.Message
	}
	if msg == "" {
		msg = res.Status
	}
	return &apiError{Status: res.StatusCode, Message: msg}
}

// apiError is a daemon's refusal.
type apiError struct {
	Status  int
	Message string
}

func (e *apiError) Error() string { return "Error response from daemon: " + e.Message }

// createRequest is the body of POST /containers/create: the container's
// config with its host config.
type createRequest struct {
	Image      string            `json:"Image"`
	Entrypoint []string          `json:"Entrypoint"`
	Labels     map[string]string `json:"Labels,omitempty"`
	WorkingDir string            `json:"WorkingDir,omitempty"`
	HostConfig hostConfig        `json:"HostConfig"`
}

type hostConfig struct {
	NetworkMode string  `json:"NetworkMode,omitempty"`
	Init        *bool   `json:"Init,omitempty"`
	NanoCPUs    int64   `json:"NanoCpus,omitempty"`
	Memory      int64   `json:"Memory,omitempty"`
	Mounts      []mount `json:"Mounts,omitempty"`
}

type mount struct {
	Type   string `json:"Type"`
	Source string `json:"Source"`
	Target string `json:"Target"`
}

// containerCreate creates a container and returns its id.
func (c *engine) containerCreate(ctx context.Context, r createRequest) (string, error) {
	var out struct {
		ID string `json:"Id"`
	}
	if err := c.do(ctx, http.MethodPost, "/containers/create", nil, r, &out); err != nil {
		return "", err
	}
	return out.ID, nil
}

// containerStart starts a created container.
func (c *engine) containerStart(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodPost, "/containers/"+url.PathEscape(id)+"/start", nil, nil, nil)
}

// containerRemove removes a container, killing it first if it runs.
func (c *engine) containerRemove(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, "/containers/"+url.PathEscape(id), url.Values{"force": {"1"}}, nil, nil)
}

// containerSummary is an entry of GET /containers/json.
type containerSummary struct {
	ID     string            `json:"Id"`
	Labels map[string]string `json:"Labels"`
}

// containerList lists every container (running or not) carrying the label.
func (c *engine) containerList(ctx context.Context, label string) ([]containerSummary, error) {
	filters, err := json.Marshal(map[string]map[string]bool{"label": {label: true}})
	if err != nil {
		return nil, err
	}
	var out []containerSummary
	err = c.do(ctx, http.MethodGet, "/containers/json", url.Values{"all": {"1"}, "filters": {string(filters)}}, nil, &out)
	return out, err
}

// execConfig is the body of POST /containers/{id}/exec.
type execConfig struct {
	User         string   `json:"User,omitempty"`
	Tty          bool     `json:"Tty"`
	AttachStdin  bool     `json:"AttachStdin"`
	AttachStdout bool     `json:"AttachStdout"`
	AttachStderr bool     `json:"AttachStderr"`
	Env          []string `json:"Env,omitempty"`
	WorkingDir   string   `json:"WorkingDir,omitempty"`
	Cmd          []string `json:"Cmd"`
}

// execCreate creates an exec in a running container and returns its id.
func (c *engine) execCreate(ctx context.Context, container string, cfg execConfig) (string, error) {
	var out struct {
		ID string `json:"Id"`
	}
	if err := c.do(ctx, http.MethodPost, "/containers/"+url.PathEscape(container)+"/exec", nil, cfg, &out); err != nil {
		return "", err
	}
	return out.ID, nil
}

// execState is the part of GET /exec/{id}/json the terminal reads.
type execState struct {
	Running  bool `json:"Running"`
	ExitCode int  `json:"ExitCode"`
}

// execInspect returns an exec's state.
func (c *engine) execInspect(ctx context.Context, execID string) (execState, error) {
	var out execState
	err := c.do(ctx, http.MethodGet, "/exec/"+url.PathEscape(execID)+"/json", nil, nil, &out)
	return out, err
}

// hijacked is an attached exec's connection: the daemon writes the
// command's output on it (multiplexed, see stdcopy, unless it has a TTY)
// and reads its standard input from it. Close ends it.
type hijacked struct {
	Conn   net.Conn
	Reader *bufio.Reader
}

// Close closes the connection.
func (h *hijacked) Close() { h.Conn.Close() }

// CloseWrite half-closes the connection: the command's standard input
// ends.
func (h *hijacked) CloseWrite() error {
	if cw, ok := h.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// execAttach starts an exec attached on a connection of its own: the
// request upgrades the connection to a raw stream, as the Docker CLI's
// does. ctx bounds only the start; the stream lives until Close.
func (c *engine) execAttach(ctx context.Context, execID string, tty bool) (*hijacked, error) {
	req, err := c.newRequest(ctx, http.MethodPost, "/exec/"+url.PathEscape(execID)+"/start", nil,
		map[string]bool{"Detach": false, "Tty": tty})
	if err != nil {
		return nil, err
	}
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "tcp")
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	if c.tls != nil {
		tc := tls.Client(conn, c.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, err
		}
		conn = tc
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	br := bufio.NewReader(conn)
	res, err := func() (*http.Response, error) {
		if err := req.Write(conn); err != nil {
			return nil, err
		}
		return http.ReadResponse(br, req)
	}()
	if !stop() {
		err = errors.Join(ctx.Err(), err)
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	if res.StatusCode != http.StatusSwitchingProtocols && res.StatusCode != http.StatusOK {
		defer conn.Close()
		return nil, responseError(res)
	}
	return &hijacked{Conn: conn, Reader: br}, nil
}
