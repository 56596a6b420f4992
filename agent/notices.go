package agent

// Notices are problems the user must hear about but that belong to no turn:
// the configuration file's (Options.Notices) and the session database's.
// Each is shown once, as an agent message at the start of the next
// session/prompt of any session, before the turn's output. The first
// prompt rather than session/new: an update cannot precede the session/new
// reply that names the session, and editors show a message that arrives
// outside a turn inconsistently (or not at all); a notice is not part of
// the conversation, so it is neither saved nor sent to the model.

// notice queues text to be shown at the next prompt.
func (a *Agent) notice(text string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.notices = append(a.notices, text)
}

// showNotices sends the queued notices to s. The session database's header
// is checked first (cheaply, once), so that a damaged or newer database is
// reported at the first prompt.
func (s *Session) showNotices() {
	if s.store != nil {
		s.store.Check()
	}
	s.a.mu.Lock()
	notices := s.a.notices
	s.a.notices = nil
	s.a.mu.Unlock()
	for _, n := range notices {
		s.sendText("⚠️ " + n + "\n\n")
	}
}
