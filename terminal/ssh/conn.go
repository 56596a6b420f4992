package ssh

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
)

// HostKeyError is a host key the agent refused: unknown (not in
// known_hosts) or changed (known_hosts has another key for the host).
type HostKeyError struct {
	Host        string // host:port as dialed
	Fingerprint string // SHA256:… of the key the server offered
	Changed     bool
	KnownHosts  string // the file checked
	Line        string // the known_hosts line for the offered key
	Known       []string
}

func (e *HostKeyError) Error() string {
	if e.Changed {
		return fmt.Sprintf("WARNING: the host key of %s has CHANGED: the server offered %s, but %s records another key (%s). "+
			"This can be an attack (someone intercepting the connection) or a reinstalled server; the connection is refused. "+
			"If the change is expected, remove the old line from %s and add: %s",
			e.Host, e.Fingerprint, e.KnownHosts, strings.Join(e.Known, ", "), e.KnownHosts, e.Line)
	}
	return fmt.Sprintf("the host key of %s is not known (%s has no entry for it); the connection is refused. "+
		"The server offered the key %s: verify this fingerprint with the server's administrator "+
		"(ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub on the server), then add this line to %s: %s",
		e.Host, e.KnownHosts, e.Fingerprint, e.KnownHosts, e.Line)
}

// hostKeys returns the host key callback for r and the key algorithms
// known_hosts has for the host (so the server is asked for a key we can
// check rather than a different kind that would look changed).
func hostKeys(r *resolved) (gossh.HostKeyCallback, []string, error) {
	addr := r.addr()
	check, err := knownhosts.New(r.knownHosts)
	if errors.Is(err, fs.ErrNotExist) {
		check = func(string, net.Addr, gossh.PublicKey) error { return &knownhosts.KeyError{} }
	} else if err != nil {
		return nil, nil, fmt.Errorf("read known hosts %s: %w", r.knownHosts, err)
	}
	var algos []string
	if probe, err := dummyKey(); err == nil {
		var ke *knownhosts.KeyError
		if errors.As(check(addr, &net.TCPAddr{IP: net.IPv4zero}, probe), &ke) {
			for _, k := range ke.Want {
				algos = append(algos, keyAlgorithms(k.Key.Type())...)
			}
		}
	}
	cb := func(hostname string, remote net.Addr, key gossh.PublicKey) error {
		err := check(hostname, remote, key)
		var ke *knownhosts.KeyError
		if errors.As(err, &ke) {
			he := &HostKeyError{
				Host: addr, Fingerprint: gossh.FingerprintSHA256(key), Changed: len(ke.Want) > 0,
				KnownHosts: r.knownHosts, Line: knownhosts.Line([]string{knownhosts.Normalize(addr)}, key),
			}
			for _, k := range ke.Want {
				he.Known = append(he.Known, fmt.Sprintf("%s %s at line %d", k.Key.Type(), gossh.FingerprintSHA256(k.Key), k.Line))
			}
			return he
		}
		return err
	}
	return cb, algos, nil
}

// keyAlgorithms are the host key algorithms that can present a key of
// type t.
func keyAlgorithms(t string) []string {
	if t == gossh.KeyAlgoRSA {
		return []string{gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256, gossh.KeyAlgoRSA}
	}
	return []string{t}
}

// authMethods returns the identity files' keys, then the agent.
func authMethods(r *resolved) ([]gossh.AuthMethod, func(), error) {
	var signers []gossh.Signer
	var problems []string
	load := func(p string, must bool) error {
		data, err := os.ReadFile(p)
		if err != nil {
			if !must && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("read identity file %s: %w", p, err)
		}
		s, err := gossh.ParsePrivateKey(data)
		var pe *gossh.PassphraseMissingError
		if errors.As(err, &pe) {
			problems = append(problems, fmt.Sprintf("%s is protected by a passphrase (load it into ssh-agent: ssh-add %s)", p, p))
			return nil
		}
		if err != nil {
			return fmt.Errorf("parse identity file %s: %w", p, err)
		}
		signers = append(signers, s)
		return nil
	}
	for _, p := range r.identities {
		if err := load(p, true); err != nil {
			return nil, nil, err
		}
	}
	for _, p := range r.defaults {
		if err := load(p, false); err != nil {
			return nil, nil, err
		}
	}
	var methods []gossh.AuthMethod
	if len(signers) > 0 {
		methods = append(methods, gossh.PublicKeys(signers...))
	}
	closeAgent := func() {}
	if r.agent != "" {
		if c, err := net.Dial("unix", r.agent); err == nil {
			methods = append(methods, gossh.PublicKeysCallback(agent.NewClient(c).Signers))
			closeAgent = func() { c.Close() }
		} else {
			problems = append(problems, fmt.Sprintf("the ssh-agent at %s cannot be reached (%v)", r.agent, err))
		}
	}
	if len(methods) == 0 {
		msg := "no identity file and no ssh-agent to log in with; set terminal.ssh.identity_file or start ssh-agent"
		if len(problems) > 0 {
			msg += ": " + strings.Join(problems, "; ")
		}
		return nil, nil, errors.New(msg)
	}
	return methods, closeAgent, nil
}

// dial opens an authenticated connection to r's host.
func dial(ctx context.Context, r *resolved) (*gossh.Client, error) {
	cb, algos, err := hostKeys(r)
	if err != nil {
		return nil, err
	}
	methods, closeAgent, err := authMethods(r)
	if err != nil {
		return nil, err
	}
	defer closeAgent()
	cfg := &gossh.ClientConfig{
		User: r.user, Auth: methods, HostKeyCallback: cb, HostKeyAlgorithms: algos, Timeout: r.timeout,
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	d := net.Dialer{}
	nc, err := d.DialContext(ctx, "tcp", r.addr())
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", r.addr(), err)
	}
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	defer stop()
	c, chans, reqs, err := gossh.NewClientConn(nc, r.addr(), cfg)
	if err != nil {
		nc.Close()
		var he *HostKeyError
		if errors.As(err, &he) {
			return nil, he
		}
		return nil, fmt.Errorf("ssh %s@%s: %w", r.user, r.addr(), err)
	}
	return gossh.NewClient(c, chans, reqs), nil
}

// dummyKey is a public key no known_hosts has, to learn which keys it
// has for a host.
func dummyKey() (gossh.PublicKey, error) {
	return gossh.NewPublicKey(ed25519.PublicKey(dummyEd25519[:]))
}

var dummyEd25519 = [32]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32}
