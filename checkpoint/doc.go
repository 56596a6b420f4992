// Package checkpoint records the state of a workspace folder in a shadow git
// repository outside it and reads recorded states back, so that the agent
// can put the folder back as it was before a turn (issue 29).
//
// Each folder has its own bare repository, $HERMES_HOME/checkpoints/<the
// first 16 hex digits of the SHA-256 of its real path> (hermes-agent's
// per-folder layout, with a HERMES_WORKDIR file naming the folder), written
// with go-git: no git binary is needed and the user's own .git is never
// read or written. A snapshot walks the folder, skipping .git, the
// .gitignore files' patterns, hermes's checkpoint exclusions (build
// outputs, dependency folders, caches, media, secrets, logs)
// and files over the size limit, and hashes again only the files whose
// size, modification time or mode changed since the last snapshot (a stat
// cache next to the repository). A recorded state is a commit under
// refs/hermes/sessions/<session>/<turn>/<phase>, its message holding the
// turn's [Mark]. Each operation holds an exclusive lock on hermes.lock in
// the repository (flock), so several processes can share it.
//
// The engine knows nothing of tools, sessions or the editor: the agent
// decides when to record and what to restore, and writes the files itself.
package checkpoint
