// Package v4a parses and applies V4A patches, the multi-file patch format
// OpenAI's codex and cline emit ("*** Begin Patch", "*** Update File: p",
// "@@ hint @@" hunks, "*** Add File:", "*** Delete File:",
// "*** Move File: a -> b"). It is the Go port of hermes-agent's
// tools/patch_parser.py, behind the patch tool's "patch" mode.
//
// [Parse] is a pure function of the patch text; [Paths] lists every path a
// patch names, for approval before parsing. [Apply] validates every
// operation on an in-memory overlay of the files and returns the changes to
// make, or every problem found; it never writes. It reads files only through
// the small [Files] interface its caller implements, with the caller's
// context on every call, and matches hunks with a [Matcher] the caller
// supplies (the patch tool passes its fuzzy matcher).
//
// The package knows nothing of tools, sessions or workspaces. Its failures
// are *[Error] values whose text is meant for the model, verbatim.
package v4a
