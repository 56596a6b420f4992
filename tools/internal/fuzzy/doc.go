// Package fuzzy is hermes-agent's fuzzy find-and-replace, the engine behind
// the patch tool's replace mode and every V4A hunk: [Replace] tries nine
// matching strategies in hermes's order (exact, line_trimmed,
// whitespace_normalized, indentation_flexible, escape_normalized,
// trimmed_boundary, unicode_normalized, block_anchor, context_aware), guards
// against escape drift, re-indents the replacement to the file's
// indentation, keeps the file's typographic characters, and explains a miss
// with hermes's "Did you mean" sections. Its similarity thresholds are
// difflib ratios, computed by package internal/diff.
//
// The package knows nothing of tools, files or the editor: it takes and
// returns strings, does no I/O, keeps no state and is safe for concurrent
// use. The similarity strategies are bounded in the work they may do, and
// every strategy stops when its context is done. Failures the model can act
// on are *[Error] values whose text is meant for the model verbatim.
//
// [Strip], [LStrip] and [SplitLines] are Python's str methods with the
// whitespace and line breaks hermes's matcher uses; the tools share them.
package fuzzy
