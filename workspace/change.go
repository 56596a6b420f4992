package workspace

// ChangeKind says what a [Change] does to its file.
type ChangeKind string

// The kinds of change an edit can make.
const (
	ChangeEdit   ChangeKind = "edit"   // replace the text of an existing file
	ChangeCreate ChangeKind = "create" // create a new file
	ChangeDelete ChangeKind = "delete" // remove the file
	ChangeMove   ChangeKind = "move"   // rename the file (and maybe edit it)
)

// Change describes one proposed change to a workspace file, as shown to the
// user before it is made: the agent turns it into an ACP diff and asks for
// approval. Old is nil for a new file; New is the complete new text (empty
// for a deletion); MoveTo is set for a move.
type Change struct {
	Kind   ChangeKind
	Path   Path
	MoveTo Path
	Old    *string
	New    string
}
