package agent

import (
	"strings"

	"github.com/hermes-acp/hermes-acp/terminal/danger"
)

// Grant policies (Options.Network, Options.Credentials: terminal.network
// and terminal.credentials).
const (
	GrantAsk = "ask"
	GrantOn  = "on"
	GrantOff = "off"
)

// Permission option of a command approval that asked for sandbox grants:
// run it, but without them.
const optCmdWithout = "allow_without"

// commandGrants decides the sandbox grants of a command that wants
// wanted: granted now (configured on, allowed for the session, or
// approvals off), still to ask the user (pending), and what the model must
// be told of a grant it wanted and cannot have (terminal.* off).
func (s *Session) commandGrants(wanted danger.Needs) (granted, pending danger.Needs, note string) {
	session := s.allowed.grants()
	off := s.a.opts.ApprovalsOff
	var notes []string
	decide := func(policy string, want, inSession bool, key, what string) (grant, ask bool) {
		switch {
		case policy == GrantOn:
			return true, false
		case !want:
			return false, false
		case policy == GrantOff:
			notes = append(notes, what+" "+key+" is off in the configuration, so the command runs without")
			return false, false
		case inSession || off:
			return true, false
		}
		return false, true
	}
	granted.Network, pending.Network = decide(s.a.opts.Network, wanted.Network, session.Network, "(terminal.network: off)", "The network")
	granted.Credentials, pending.Credentials = decide(s.a.opts.Credentials, wanted.Credentials, session.Credentials, "(terminal.credentials: off)", "Access to credentials")
	if len(notes) > 0 {
		note = strings.Join(notes, "; ") + "."
	}
	return granted, pending, note
}

// grantForSession records that the session allows the grants n for the
// rest of its life.
func (s *Session) grantForSession(n danger.Needs) {
	s.allowed.grant(n)
}

// grantWords names the grants n for the user ("the network", "the network
// and your credentials").
func grantWords(n danger.Needs) string {
	var parts []string
	if n.Network {
		parts = append(parts, "the network")
	}
	if n.Credentials {
		parts = append(parts, "your credentials")
	}
	return strings.Join(parts, " and ")
}

// grantText is the permission request's paragraph about the grants n.
func grantText(n danger.Needs) string {
	var b strings.Builder
	b.WriteString("Asks to run with " + grantWords(n) + ":")
	if n.Network {
		b.WriteString("\n- the network: sandboxed commands have none; allowed, this one reaches the internet and this machine's servers")
	}
	if n.Credentials {
		b.WriteString("\n- your credentials: ~/.ssh, ~/.aws, ~/.config/gh, ~/.netrc, ~/.git-credentials and the other credential places, hidden from commands unless allowed")
	}
	return b.String()
}

// grantStatus is /context's words on the sandbox grants: the policies
// that are not "ask" and what the session allowed.
func (s *Session) grantStatus() string {
	var parts []string
	for _, p := range []struct{ key, policy string }{{"terminal.network", s.a.opts.Network}, {"terminal.credentials", s.a.opts.Credentials}} {
		if p.policy == GrantOn || p.policy == GrantOff {
			parts = append(parts, p.key+": "+p.policy)
		}
	}
	g := s.allowed.grants()
	if g.Any() {
		parts = append(parts, "allowed for this session: "+grantWords(g))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
