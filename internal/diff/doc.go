// Package diff is the module's one diff package. It serves every caller
// that compares two texts:
//
//   - [Matcher] is a port of Python's difflib.SequenceMatcher (with
//     autojunk): matching blocks, opcodes, grouped opcodes and the ratio
//     that hermes-agent's fuzzy thresholds are defined in. [Profile],
//     [QuickRatio] and [RatioAtLeast] are its cheap upper bounds
//     (difflib's real_quick_ratio and quick_ratio) for callers that compare
//     many pairs against a threshold.
//   - [Unified] renders a unified diff exactly as difflib.unified_diff
//     does, for the patch tool's results.
//   - [LineMap] and [Match] map the lines (or tokens) of one text to the
//     lines of another that an edit left unchanged, with the line mode of
//     github.com/sergi/go-diff, for the delta lint and for line endings.
//   - [CommonPrefix], [CommonSuffix] and [FirstChangedLine] compare raw
//     bytes, for the editor's change locations and the lint's fast path.
//
// The package does no I/O, keeps no state between calls, and imports no
// other package of the module. Values it returns are owned by the caller;
// a [Matcher] or [Profile] is not safe for concurrent use, every function
// is.
package diff
