package danger

// The tests read the rule tables directly.
func init() { loadRules() }
