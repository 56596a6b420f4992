//go:build unix

package terminal

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
)

// The sandbox's wire: JSON messages, each preceded by its length (4 bytes,
// big endian), over a UNIX stream socket, with file descriptors passed
// along with a message (SCM_RIGHTS). It joins the agent to its session's
// sandbox server (one connection per command) and the editor-terminal
// helper to the agent.

// maxWireMessage bounds a message (an environment of many large variables
// still fits).
const maxWireMessage = 4 << 20

// maxWireFiles is the most descriptors one message carries.
const maxWireFiles = 8

// wireMsg is every message of the wire; Op says which fields matter.
type wireMsg struct {
	Op string `json:"op"`
	// start (agent → server, helper → agent): the command, or the ticket
	// naming one the agent registered; Shown is the helper's last
	// argument (the command as the editor shows it).
	Exec   *wireExec `json:"exec,omitempty"`
	Secret string    `json:"secret,omitempty"`
	Ticket string    `json:"ticket,omitempty"`
	Shown  string    `json:"shown,omitempty"`
	// started (with the command's pidfd and, for a PTY, its master):
	// the process id in the server's namespace; Error when it did not
	// start.
	PID   int    `json:"pid,omitempty"`
	Error string `json:"error,omitempty"`
	// exit
	Code   int    `json:"code,omitempty"`
	Signal string `json:"signal,omitempty"`
	// kill: the time between SIGTERM and SIGKILL, in milliseconds.
	GraceMS int64 `json:"grace_ms,omitempty"`
	// setup (agent → server): the session's view; ready (server →
	// agent): Error when it could not be built, Notes on what was left
	// out.
	Setup *viewSetup `json:"setup,omitempty"`
	Notes []string   `json:"notes,omitempty"`
}

// wireExec is an Exec on the wire (its descriptors travel beside it).
type wireExec struct {
	Argv        []string `json:"argv"`
	Env         []string `json:"env"`
	Dir         string   `json:"dir"`
	PTY         bool     `json:"pty,omitempty"`
	Rows        uint16   `json:"rows,omitempty"`
	Cols        uint16   `json:"cols,omitempty"`
	Network     bool     `json:"network,omitempty"`
	Credentials bool     `json:"credentials,omitempty"`
	// Files says which of stdin, stdout and stderr came with the message
	// (in that order); the others are /dev/null.
	Files [3]bool `json:"files"`
}

// viewSetup is what the server builds its view from (the agent sends it).
type viewSetup struct {
	// Writable are host folders commands may write (roots, caches,
	// configured ones); missing ones are skipped.
	Writable []string `json:"writable"`
	// Tmp is the session's private /tmp ("" keeps the machine's /tmp,
	// writable).
	Tmp string `json:"tmp"`
	// Scratch is the session's scratch folder, visible and writable at the
	// same path inside (RunDir is hidden around it).
	Scratch string `json:"scratch"`
	// Hidden are places no command sees (folders or files).
	Hidden []string `json:"hidden"`
	// Creds are the credential places, hidden unless a command is granted
	// them.
	Creds []string `json:"creds"`
	// Empty is an empty read-only file that covers hidden files.
	Empty string `json:"empty"`
	// HideSockets hides the UNIX sockets of other programs (those listed in
	// /proc/net/unix outside the writable folders).
	HideSockets bool `json:"hide_sockets"`
	// Limits are the commands' resource limits (effective values, 0:
	// unlimited).
	Limits Limits `json:"limits"`
}

// Messages of the wire.
const (
	opStart   = "start"
	opStarted = "started"
	opExit    = "exit"
	opKill    = "kill"
	opConn    = "conn" // agent → server: a new connection for one command
	opSetup   = "setup"
	opReady   = "ready"
)

// wire is one end of a connection. Sends are safe for concurrent use;
// receives are made by one goroutine.
type wire struct {
	c *net.UnixConn

	mu sync.Mutex // serialises sends
}

func newWire(c *net.UnixConn) *wire { return &wire{c: c} }

// wireFromFile makes a wire of a connected socket's descriptor (which it
// owns from then on).
func wireFromFile(f *os.File) (*wire, error) {
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return nil, errors.New("not a UNIX socket")
	}
	return newWire(uc), nil
}

// wirePair returns two connected wires, and the second one's socket as a
// file to pass to another process (the caller closes that file, and the
// second wire, when it has sent it).
func wirePair() (local *wire, remote *os.File, err error) {
	syscall.ForkLock.RLock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	local, err = wireFromFile(os.NewFile(uintptr(fds[0]), "sandbox-wire"))
	if err != nil {
		syscall.Close(fds[1])
		return nil, nil, err
	}
	return local, os.NewFile(uintptr(fds[1]), "sandbox-wire"), nil
}

func (w *wire) Close() error { return w.c.Close() }

// send writes m with files (which stay the caller's to close).
func (w *wire) send(m wireMsg, files ...*os.File) error {
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	buf := make([]byte, 4+len(body))
	binary.BigEndian.PutUint32(buf, uint32(len(body)))
	copy(buf[4:], body)
	var oob []byte
	if len(files) > 0 {
		fds := make([]int, len(files))
		for i, f := range files {
			fds[i] = int(f.Fd())
		}
		oob = syscall.UnixRights(fds...)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	n, _, err := w.c.WriteMsgUnix(buf, oob, nil)
	if err != nil {
		return err
	}
	if n < len(buf) {
		_, err = w.c.Write(buf[n:])
	}
	return err
}

// recv reads the next message and the descriptors that came with it,
// which the caller owns. It returns io.EOF when the other end closed.
func (w *wire) recv() (wireMsg, []*os.File, error) {
	var head [4]byte
	oob := make([]byte, syscall.CmsgSpace(4*maxWireFiles))
	n, oobn, _, _, err := w.c.ReadMsgUnix(head[:], oob)
	if err != nil {
		return wireMsg{}, nil, err
	}
	if n == 0 {
		return wireMsg{}, nil, io.EOF
	}
	files, err := parseRights(oob[:oobn])
	if err != nil {
		return wireMsg{}, nil, err
	}
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	if n < len(head) {
		if _, err := io.ReadFull(w.c, head[n:]); err != nil {
			closeAll()
			return wireMsg{}, nil, fmt.Errorf("sandbox wire: %w", err)
		}
	}
	size := binary.BigEndian.Uint32(head[:])
	if size > maxWireMessage {
		closeAll()
		return wireMsg{}, nil, fmt.Errorf("sandbox wire: a message of %d bytes", size)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(w.c, body); err != nil {
		closeAll()
		return wireMsg{}, nil, fmt.Errorf("sandbox wire: %w", err)
	}
	var m wireMsg
	if err := json.Unmarshal(body, &m); err != nil {
		closeAll()
		return wireMsg{}, nil, fmt.Errorf("sandbox wire: %w", err)
	}
	return m, files, nil
}

// parseRights returns the descriptors of SCM_RIGHTS control messages.
func parseRights(oob []byte) ([]*os.File, error) {
	if len(oob) == 0 {
		return nil, nil
	}
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, fmt.Errorf("sandbox wire: %w", err)
	}
	var files []*os.File
	for _, m := range msgs {
		fds, err := syscall.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			syscall.CloseOnExec(fd)
			files = append(files, os.NewFile(uintptr(fd), "passed"))
		}
	}
	return files, nil
}
