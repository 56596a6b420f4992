// Package config is hermes-acp's configuration: it reads
// $HERMES_HOME/config.yaml (hermes-agent's file, key by key, so one bad
// value costs only its own setting), $HERMES_HOME/.env and the environment,
// applies the precedence of DESIGN.md (flags, then environment, then the
// file), validates every value into plain-words problems naming the key,
// lists the keys hermes-acp does not use, and writes the file back where
// the agent must (the "allow always" command allowlist, the setup wizard's
// model settings and key).
//
// [Load] returns a [Config], an ordinary value: the composition root
// (cmd/hermes-acp) turns it into the options of the packages it wires.
// Nothing here starts anything. docs/configuration.md documents every key;
// a new key goes into fileConfig (the file's shape), a field of Config (the
// resolved value) and the resolution in Load, with a test beside it.
package config
