package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// fakeReply is what the fake model answers to every request.
var fakeReply = []string{"Hello", " from the fake model."}

// fakeModel is a [modeltest.Server] answering every chat completion at once
// with fakeReply. Agents reach it through an [endpoint], a timing reverse
// proxy of their own. The creator calls [fakeModel.Close].
type fakeModel struct {
	upstream *modeltest.Server
	target   *url.URL
	errLog   io.Writer
}

// startFakeModel starts the fake model. Requests it cannot answer are
// reported to errLog.
func startFakeModel(errLog io.Writer) (*fakeModel, error) {
	up := modeltest.StartOptions(modeltest.Options{
		Script: []modeltest.Turn{{Text: fakeReply}},
		Loop:   true,
		Errorf: func(format string, args ...any) { fmt.Fprintf(errLog, "fake model: "+format+"\n", args...) },
	})
	target, err := url.Parse(strings.TrimSuffix(up.URL(), "/v1"))
	if err != nil {
		up.Close()
		return nil, fmt.Errorf("parse fake model url: %w", err)
	}
	return &fakeModel{upstream: up, target: target, errLog: errLog}, nil
}

// Close stops the server. Endpoints must be closed first.
func (f *fakeModel) Close() { f.upstream.Close() }

// span is one request an endpoint served.
type span struct {
	start, end time.Time
	chat       bool // a model request: a POST to .../chat/completions or .../responses
}

// endpoint is a loopback reverse proxy in front of the fake model for one
// run of one agent: it records when each request arrived and when its
// response was complete, so that the time the server side spent can be
// subtracted from a prompt turn, and so that nothing another run left
// behind is counted. It is safe for concurrent use; the creator calls
// [endpoint.Close].
type endpoint struct {
	srv    *http.Server
	base   string
	served chan struct{} // closed when srv.Serve returned

	mu     sync.Mutex // guards spans, active, nextID
	spans  []span
	active map[uint64]span // requests being served
	nextID uint64
}

// endpoint starts a new timing proxy.
func (f *fakeModel) endpoint() (*endpoint, error) { return newEndpoint(f.target, f.errLog) }

// newEndpoint starts a timing proxy in front of the server at target (a
// loopback URL without the /v1 suffix).
func newEndpoint(target *url.URL, errLog io.Writer) (*endpoint, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for fake model: %w", err)
	}
	e := &endpoint{base: "http://" + ln.Addr().String() + "/v1", served: make(chan struct{}), active: map[uint64]span{}}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // pass every SSE chunk on at once
	proxy.ErrorLog = log.New(errLog, "fake model proxy: ", 0)
	e.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			chat := r.Method == http.MethodPost && isModelPath(r.URL.Path)
			s := span{start: time.Now(), chat: chat}
			e.mu.Lock()
			id := e.nextID
			e.nextID++
			e.active[id] = s
			e.mu.Unlock()
			proxy.ServeHTTP(w, r)
			s.end = time.Now()
			e.mu.Lock()
			delete(e.active, id)
			e.spans = append(e.spans, s)
			e.mu.Unlock()
		}),
		ErrorLog:          log.New(errLog, "fake model server: ", 0),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		defer close(e.served)
		if err := e.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(errLog, "fake model server: %v\n", err)
		}
	}()
	return e, nil
}

// isModelPath reports whether a POST to path asks the model for a turn: a
// Chat Completions or a Responses API request.
func isModelPath(path string) bool {
	path = strings.TrimSuffix(path, "/")
	return strings.HasSuffix(path, "/chat/completions") || strings.HasSuffix(path, "/responses")
}

// BaseURL is the OpenAI-compatible base URL, ending in /v1.
func (e *endpoint) BaseURL() string { return e.base }

// Close stops the proxy, cutting requests still open after a second.
func (e *endpoint) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := e.srv.Shutdown(ctx); err != nil {
		_ = e.srv.Close()
	}
	<-e.served
}

// idleWait bounds how long serverTime waits for requests still being
// served: the agent can reply to the prompt a moment before the proxy
// goroutine has noted the end of the model stream.
const idleWait = 200 * time.Millisecond

// serverTime returns how long the server was busy serving the requests
// that arrived within [from, to] (overlapping requests counted once, each
// cut at to) and how many of them were chat completions. A request still
// being served after idleWait counts as busy until to.
func (e *endpoint) serverTime(from, to time.Time) (time.Duration, int) {
	deadline := time.Now().Add(idleWait)
	for {
		e.mu.Lock()
		pending := 0
		for _, s := range e.active {
			if inWindow(s.start, from, to) {
				pending++
			}
		}
		if pending == 0 || time.Now().After(deadline) {
			spans := slices.Clone(e.spans)
			for _, s := range e.active {
				s.end = to
				spans = append(spans, s)
			}
			e.mu.Unlock()
			return busyTime(spans, from, to)
		}
		e.mu.Unlock()
		time.Sleep(50 * time.Microsecond)
	}
}

func inWindow(t, from, to time.Time) bool { return !t.Before(from) && !t.After(to) }

// busyTime is the union of the spans starting in [from, to], cut at to, and
// the number of chat spans among them. Requests that started before the
// window (an agent's background traffic) are not the prompt's.
func busyTime(spans []span, from, to time.Time) (time.Duration, int) {
	var in []span
	chats := 0
	for _, s := range spans {
		if !inWindow(s.start, from, to) {
			continue
		}
		if s.chat {
			chats++
		}
		s.end = earlier(s.end, to)
		if s.end.After(s.start) {
			in = append(in, s)
		}
	}
	slices.SortFunc(in, func(x, y span) int { return x.start.Compare(y.start) })
	var total time.Duration
	var cur span
	for i, s := range in {
		switch {
		case i == 0:
			cur = s
		case s.start.After(cur.end):
			total += cur.end.Sub(cur.start)
			cur = s
		case s.end.After(cur.end):
			cur.end = s.end
		}
	}
	if len(in) > 0 {
		total += cur.end.Sub(cur.start)
	}
	return total, chats
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
