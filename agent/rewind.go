package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent/internal/compress"
	"github.com/hermes-acp/hermes-acp/checkpoint"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// The actions of a rewind on one file.
const (
	rewindRestore  = "restore"  // write the recorded content back
	rewindRemove   = "remove"   // the file did not exist before the turn
	rewindRecreate = "recreate" // the file was deleted since
)

// Permission option ids of a rewind.
const (
	optRewind          = "rewind"
	optRewindDrop      = "rewind_drop"
	optRewindOverwrite = "rewind_overwrite"
	optRewindCancel    = "rewind_cancel"
)

// maxDiffBytes: larger files are listed, not shown as diffs.
const maxDiffBytes = 256 << 10

// rewindFile is one file a rewind puts back.
type rewindFile struct {
	repo   *checkpoint.Repo
	p      workspace.Path // zero when the path cannot be resolved in the workspace
	abs    string
	action string
	target checkpoint.File // the recorded file (restore, recreate)
	cur    checkpoint.File // the file now (restore, remove)
	// conflict says why the file is left alone unless the user confirms;
	// blocked why it is never written (outside the workspace).
	conflict, blocked string
	sensitive         bool
	old, new          []byte // the content now and the recorded content
	added, removed    int
	binary            bool
}

// rewindPlan is what putting the files back as they were before a turn
// does.
type rewindPlan struct {
	turn  int
	mark  checkpoint.Mark // of the turn (its prompt and history length)
	repos []*checkpoint.Repo
	files []rewindFile
}

func (p *rewindPlan) conflicts() int {
	n := 0
	for _, f := range p.files {
		if f.conflict != "" {
			n++
		}
	}
	return n
}

// turnSummary is one checkpointed turn for /rewind and _hermes/rewind/list.
type turnSummary struct {
	mark  checkpoint.Mark
	files []acp.RewindFile
}

// errCheckpointsOff: the agent records no checkpoints.
var errCheckpointsOff = errors.New("checkpoints are off (checkpoints.enabled: false, or no HERMES_HOME)")

// rewindTurns lists the session's checkpointed turns, oldest first, with
// the files each changed.
func (s *Session) rewindTurns(ctx context.Context) ([]turnSummary, error) {
	c := s.ckpt
	if c == nil {
		return nil, errCheckpointsOff
	}
	byTurn := map[int]*turnSummary{}
	var order []int
	for _, root := range s.ws.Roots() {
		repo, err := c.m.Repo(root)
		if err != nil {
			continue
		}
		turns, err := repo.Turns(ctx, s.id)
		if err != nil {
			return nil, err
		}
		var current *checkpoint.State
		for _, t := range turns {
			before, err := repo.State(ctx, t.Before)
			if err != nil {
				return nil, err
			}
			var after *checkpoint.State
			if t.After != "" {
				after, err = repo.State(ctx, t.After)
			} else { // the agent stopped during the turn: compare with now
				if current == nil {
					current, err = repo.Current(ctx)
				}
				after = current
			}
			if err != nil {
				return nil, err
			}
			sum := byTurn[t.Turn]
			if sum == nil {
				sum = &turnSummary{mark: t.Mark}
				byTurn[t.Turn] = sum
				order = append(order, t.Turn)
			}
			for _, ch := range checkpoint.Changes(before, after) {
				old, _ := recordedContent(ctx, repo, ch.From)
				new, _ := recordedContent(ctx, repo, ch.To)
				added, removed, binary := checkpoint.LineCounts(old, new)
				sum.files = append(sum.files, acp.RewindFile{Path: filepath.Join(root, filepath.FromSlash(ch.Path)), Change: ch.Kind, Added: added, Removed: removed, Binary: binary})
			}
		}
	}
	slices.Sort(order)
	out := make([]turnSummary, 0, len(order))
	for _, n := range order {
		out = append(out, *byTurn[n])
	}
	return out, nil
}

func recordedContent(ctx context.Context, repo *checkpoint.Repo, f checkpoint.File) ([]byte, error) {
	if f.ID == "" {
		return nil, nil
	}
	return repo.Content(ctx, f)
}

// planRewind works out what putting the workspace back as it was before
// turn n does: in each root, the state before the root's first recorded
// turn from n on is compared with the files now. A file someone other than
// the agent changed after one of those turns (between turns, or since the
// last one ended) is a conflict.
func (s *Session) planRewind(ctx context.Context, n int) (*rewindPlan, error) {
	c := s.ckpt
	if c == nil {
		return nil, errCheckpointsOff
	}
	plan := &rewindPlan{turn: n}
	found := false
	for _, root := range s.ws.Roots() {
		repo, err := c.m.Repo(root)
		if err != nil {
			continue
		}
		turns, err := repo.Turns(ctx, s.id)
		if err != nil {
			return nil, err
		}
		first := -1
		for i, t := range turns {
			if t.Turn >= n {
				first = i
				break
			}
		}
		if first < 0 {
			continue
		}
		if !found || turns[first].Turn < plan.mark.Turn {
			plan.mark, found = turns[first].Mark, true
		}
		plan.repos = append(plan.repos, repo)
		target, err := repo.State(ctx, turns[first].Before)
		if err != nil {
			return nil, err
		}
		cur, err := repo.Current(ctx)
		if err != nil {
			return nil, err
		}
		userChanged := map[string]bool{}
		for k := first; k < len(turns); k++ {
			if turns[k].After == "" {
				continue
			}
			after, err := repo.State(ctx, turns[k].After)
			if err != nil {
				return nil, err
			}
			next := cur
			if k+1 < len(turns) {
				if next, err = repo.State(ctx, turns[k+1].Before); err != nil {
					return nil, err
				}
			}
			for _, ch := range checkpoint.Changes(after, next) {
				userChanged[ch.Path] = true
			}
		}
		add := func(rel, action string, target, now checkpoint.File, conflict string) error {
			f := rewindFile{repo: repo, abs: filepath.Join(root, filepath.FromSlash(rel)), action: action, target: target, cur: now, conflict: conflict}
			if f.conflict == "" && userChanged[rel] {
				f.conflict = "changed after the agent's turn (by you or another program)"
			}
			p, err := s.ws.Resolve(f.abs)
			if err != nil {
				f.blocked = err.Error()
			} else {
				f.p, f.sensitive = p, workspace.IsSensitiveForApproval(p)
			}
			if f.old, err = recordedContent(ctx, repo, now); err != nil {
				return err
			}
			if f.new, err = recordedContent(ctx, repo, target); err != nil {
				return err
			}
			f.added, f.removed, f.binary = checkpoint.LineCounts(f.old, f.new)
			plan.files = append(plan.files, f)
			return nil
		}
		for _, ch := range checkpoint.Changes(target, cur) {
			if _, big := cur.Skipped[ch.Path]; big {
				continue // below, as a conflict: it is not missing, only too large to record
			}
			var err error
			switch ch.Kind {
			case checkpoint.Deleted:
				err = add(ch.Path, rewindRecreate, ch.From, checkpoint.File{}, "")
			case checkpoint.Added:
				err = add(ch.Path, rewindRemove, checkpoint.File{}, ch.To, "")
			default:
				err = add(ch.Path, rewindRestore, ch.From, ch.To, "")
			}
			if err != nil {
				return nil, err
			}
		}
		for rel, size := range cur.Skipped {
			if f, ok := target.Files[rel]; ok {
				if err := add(rel, rewindRestore, f, checkpoint.File{}, fmt.Sprintf("now %d bytes, over the checkpoint size limit, so it cannot be compared", size)); err != nil {
					return nil, err
				}
			}
		}
	}
	if !found {
		return nil, fmt.Errorf("no checkpoint for turn %d (/rewind lists them)", n)
	}
	return plan, nil
}

// wire is the plan's files for the rewind extension.
func (p *rewindPlan) wire() []acp.RewindFile {
	out := make([]acp.RewindFile, 0, len(p.files))
	for _, f := range p.files {
		conflict := f.conflict
		if f.blocked != "" {
			conflict = "cannot be written: " + f.blocked
		}
		out = append(out, acp.RewindFile{Path: f.abs, Change: f.action, Added: f.added, Removed: f.removed, Binary: f.binary, Conflict: conflict, Sensitive: f.sensitive})
	}
	return out
}

// rewindResult is what a rewind did.
type rewindResult struct {
	outcome string // acp.RewindApplyResponse.Outcome
	done    []rewindFile
	left    []rewindFile // conflicts left alone
	failed  []string
	dropped bool
}

// rewind asks the user, with a permission request listing the files, and
// restores the workspace to before turn n; it shows what it did as diffs
// on a tool call and tells the model. It runs in the session's queue (no
// turn is running).
func (s *Session) rewind(ctx context.Context, n int) (*rewindResult, *rewindPlan, error) {
	plan, err := s.planRewind(ctx, n)
	if err != nil {
		return nil, nil, err
	}
	if len(plan.files) == 0 {
		s.dropTurnsFrom(ctx, plan, n)
		return &rewindResult{outcome: "nothing"}, plan, nil
	}
	id := "rewind_" + newMessageID()[:12]
	title := fmt.Sprintf("Rewind: restore %d file%s to before turn %d", len(plan.files), plural(len(plan.files), "", "s"), n)
	content, locations := plan.display(plan.files)
	content = append([]acp.ToolCallContent{acp.TextContentItem(plan.listing())}, content...)
	s.send(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: id, Title: title, Kind: acp.KindEdit, Status: acp.StatusPending, Content: content, Locations: locations}})
	options := []acp.PermissionOption{
		{OptionID: optRewind, Name: "Restore the files", Kind: acp.AllowOnce},
		{OptionID: optRewindDrop, Name: fmt.Sprintf("Restore the files and drop the conversation from turn %d on", n), Kind: acp.AllowOnce},
	}
	if k := plan.conflicts(); k > 0 {
		options = append(options, acp.PermissionOption{OptionID: optRewindOverwrite, Name: fmt.Sprintf("Restore, overwriting the %d file%s changed since", k, plural(k, "", "s")), Kind: acp.AllowOnce})
	}
	options = append(options, acp.PermissionOption{OptionID: optRewindCancel, Name: "Cancel", Kind: acp.RejectOnce})
	pctx, cancel, _ := s.approvalContext(ctx)
	res, err := s.client.RequestPermission(pctx, &acp.RequestPermissionRequest{
		SessionID: s.id,
		ToolCall:  acp.ToolCallUpdate{ToolCallID: id, Title: &title, Kind: acp.KindEdit, Status: acp.StatusPending, Content: content, Locations: locations},
		Options:   options,
	})
	cancel()
	choice := ""
	if err == nil && !res.Outcome.Cancelled {
		choice = res.Outcome.OptionID
	}
	if choice != optRewind && choice != optRewindDrop && choice != optRewindOverwrite {
		why := "Not restored: the rewind was declined."
		if err != nil {
			why = fmt.Sprintf("Not restored: the permission request failed (%v).", err)
		}
		s.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: id, Status: acp.StatusFailed, Content: []acp.ToolCallContent{acp.TextContentItem(why)}}})
		return &rewindResult{outcome: "declined"}, plan, nil
	}
	r := s.applyRewind(ctx, plan, choice == optRewindOverwrite)
	if choice == optRewindDrop {
		r.dropped = s.dropConversation(plan.mark.History)
	}
	s.dropTurnsFrom(ctx, plan, n)
	s.tellModel(plan, r)
	status := acp.StatusCompleted
	if len(r.failed) > 0 {
		status = acp.StatusFailed
	}
	shown, locs := plan.display(r.done)
	shown = append(shown, acp.TextContentItem(r.summary(n)))
	s.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: id, Status: status, Content: shown, Locations: locs}})
	return r, plan, nil
}

// applyRewind writes the plan's files back: text through the editor when it
// can write (so its open buffers follow), binary files and the rest on
// disk, byte for byte and with the recorded mode; files created since are
// removed. Conflicts are left alone unless overwrite; a file that does not
// resolve inside the workspace is never written.
func (s *Session) applyRewind(ctx context.Context, plan *rewindPlan, overwrite bool) *rewindResult {
	r := &rewindResult{outcome: "restored"}
	for _, f := range plan.files {
		if f.blocked != "" {
			r.failed = append(r.failed, fmt.Sprintf("%s: %s", f.abs, f.blocked))
			continue
		}
		if f.conflict != "" && !overwrite {
			r.left = append(r.left, f)
			continue
		}
		var err error
		switch f.action {
		case rewindRemove:
			err = s.ws.Remove(f.p)
		default:
			_, err = s.env.files.WriteExact(ctx, f.p, f.new, f.target.Mode)
		}
		if err != nil {
			r.failed = append(r.failed, fmt.Sprintf("%s: %v", f.abs, err))
			continue
		}
		r.done = append(r.done, f)
	}
	return r
}

// dropTurnsFrom forgets the session's checkpoints from turn n on: they are
// undone.
func (s *Session) dropTurnsFrom(ctx context.Context, plan *rewindPlan, n int) {
	for _, repo := range plan.repos {
		if err := repo.DropTurns(ctx, s.id, n); err != nil {
			s.log.Warn("drop undone checkpoints", "root", repo.Root(), "error", err)
		}
	}
	c := s.ckpt
	c.mu.Lock()
	c.next = n
	c.mu.Unlock()
}

// dropConversation cuts the history back to its first history messages
// (the conversation before the rewound turn); the stored history is
// rewritten at the next save, as after /reset.
func (s *Session) dropConversation(history int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if history < 0 || history > len(s.history) {
		return false
	}
	s.history = s.history[:history:history]
	s.saved = 0
	s.cleared = true
	s.resets++
	if s.comp.Active() && s.comp.Tail > history {
		s.comp = compress.State{}
	}
	s.ctxTokens, s.ctxAt = 0, 0
	return true
}

// tellModel adds a note to the conversation saying what was undone, so
// that the model does not assume its changes are still there.
func (s *Session) tellModel(plan *rewindPlan, r *rewindResult) {
	var b strings.Builder
	fmt.Fprintf(&b, "[The user rewound the workspace to its state before turn %d", plan.turn)
	if plan.mark.Prompt != "" {
		fmt.Fprintf(&b, " (%q)", plan.mark.Prompt)
	}
	b.WriteString(". ")
	if r.dropped {
		b.WriteString("The conversation from that turn on was dropped. ")
	}
	if len(r.done) > 0 {
		b.WriteString("Restored: ")
		b.WriteString(fileActions(r.done))
		b.WriteString(". ")
	}
	if len(r.left) > 0 {
		b.WriteString("Left as they are (changed after the turn): ")
		b.WriteString(fileActions(r.left))
		b.WriteString(". ")
	}
	b.WriteString("The files now hold that earlier state; read them again before editing.]")
	s.appendHistory(model.Message{Role: model.RoleUser, Content: b.String()})
	s.persist()
}

func fileActions(files []rewindFile) string {
	parts := make([]string, len(files))
	for i, f := range files {
		parts[i] = fmt.Sprintf("%s (%s)", f.abs, f.action)
	}
	return strings.Join(parts, ", ")
}

// listing is the text of the permission request: every file, what the
// rewind does to it, and the conflicts.
func (p *rewindPlan) listing() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Put the workspace back as it was before turn %d", p.turn)
	if p.mark.Prompt != "" {
		fmt.Fprintf(&b, " (%q)", p.mark.Prompt)
	}
	b.WriteString(":\n")
	for _, f := range p.files {
		fmt.Fprintf(&b, "- %s %s", f.action, f.abs)
		if f.binary {
			b.WriteString(" (binary)")
		} else {
			fmt.Fprintf(&b, " (+%d/-%d)", f.added, f.removed)
		}
		if f.sensitive {
			b.WriteString(" — sensitive file")
		}
		switch {
		case f.blocked != "":
			fmt.Fprintf(&b, " — cannot be written: %s", f.blocked)
		case f.conflict != "":
			fmt.Fprintf(&b, " — CONFLICT: %s; left alone unless you choose to overwrite", f.conflict)
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// display shows files as diffs (from the content now to the recorded
// content); binary and large files as a line of text.
func (p *rewindPlan) display(files []rewindFile) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	var changes []workspace.Change
	var notes []acp.ToolCallContent
	for _, f := range files {
		if f.p.IsZero() {
			continue
		}
		if f.binary || len(f.old) > maxDiffBytes || len(f.new) > maxDiffBytes {
			notes = append(notes, acp.TextContentItem(fmt.Sprintf("%s %s (%d bytes, not shown)", f.action, f.abs, len(f.new))))
			continue
		}
		old := string(f.old)
		switch f.action {
		case rewindRemove:
			changes = append(changes, workspace.Change{Kind: workspace.ChangeDelete, Path: f.p, Old: &old})
		case rewindRecreate:
			changes = append(changes, workspace.Change{Kind: workspace.ChangeCreate, Path: f.p, New: string(f.new)})
		default:
			changes = append(changes, workspace.Change{Kind: workspace.ChangeEdit, Path: f.p, Old: &old, New: string(f.new)})
		}
	}
	content, locs := editContent(changes)
	return append(content, notes...), locs
}

// summary is the agent's message after a rewind.
func (r *rewindResult) summary(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Rewound to before turn %d: ", n)
	if len(r.done) == 0 {
		b.WriteString("no file was changed")
	} else {
		b.WriteString(fileActions(r.done))
	}
	b.WriteString(".")
	if len(r.left) > 0 {
		fmt.Fprintf(&b, " Left alone (changed after the turn, not confirmed): %s.", fileActions(r.left))
	}
	if len(r.failed) > 0 {
		fmt.Fprintf(&b, " Failed: %s.", strings.Join(r.failed, "; "))
	}
	if r.dropped {
		fmt.Fprintf(&b, " The conversation from turn %d on was dropped.", n)
	}
	return b.String()
}

// cmdRewind is /rewind (list the checkpoints) and /rewind N (restore).
func cmdRewind(ctx context.Context, s *Session, arg string) commandResult {
	if arg == "" {
		s.sendText(s.rewindListing(ctx))
		return done()
	}
	n, err := strconv.Atoi(strings.TrimSpace(arg))
	if err != nil || n < 1 {
		s.sendText(fmt.Sprintf("Usage: `/rewind` lists the checkpoints; `/rewind N` restores the files to before turn N (a number, not %q).", arg))
		return done()
	}
	return s.rewindCommand(ctx, n)
}

// cmdUndo is /undo: rewind the last checkpointed turn.
func cmdUndo(ctx context.Context, s *Session, _ string) commandResult {
	turns, err := s.rewindTurns(ctx)
	if err != nil {
		s.sendText(fmt.Sprintf("Cannot undo: %v.", err))
		return done()
	}
	if len(turns) == 0 {
		s.sendText("Nothing to undo: no turn of this session changed files since its last rewind.")
		return done()
	}
	return s.rewindCommand(ctx, turns[len(turns)-1].mark.Turn)
}

func (s *Session) rewindCommand(ctx context.Context, n int) commandResult {
	r, _, err := s.rewind(ctx, n)
	switch {
	case err != nil:
		if ctx.Err() != nil {
			return commandResult{Stop: acp.StopCancelled}
		}
		s.sendText(fmt.Sprintf("Cannot rewind: %v.", err))
	case r.outcome == "nothing":
		s.sendText(fmt.Sprintf("Nothing to restore: the files are as they were before turn %d.", n))
	case r.outcome == "declined":
		s.sendText("Rewind cancelled: no file was changed.")
	default:
		s.sendText(r.summary(n))
	}
	return done()
}

// rewindListing is /rewind's text: the checkpointed turns with the files
// each changed.
func (s *Session) rewindListing(ctx context.Context) string {
	turns, err := s.rewindTurns(ctx)
	if err != nil {
		return fmt.Sprintf("Cannot list the checkpoints: %v.", err)
	}
	if len(turns) == 0 {
		return "No checkpoints yet: a checkpoint is taken before the first change of each turn that changes files."
	}
	var b strings.Builder
	b.WriteString("Checkpoints of this session (oldest first):\n")
	for _, t := range turns {
		added, removed := 0, 0
		names := make([]string, 0, len(t.files))
		for _, f := range t.files {
			added += f.Added
			removed += f.Removed
			names = append(names, fmt.Sprintf("%s %s", f.Change, s.displayPath(f.Path)))
		}
		prompt := t.mark.Prompt
		if prompt == "" {
			prompt = "(no text)"
		}
		fmt.Fprintf(&b, "- **Turn %d** · %s · %q · %d file%s (+%d/-%d): %s\n", t.mark.Turn, t.mark.At.Local().Format(time.DateTime), prompt,
			len(t.files), plural(len(t.files), "", "s"), added, removed, strings.Join(names, ", "))
	}
	b.WriteString("\n`/rewind N` restores the files to before turn N (you are asked first); `/undo` undoes the last turn.")
	return b.String()
}

// displayPath shows a path relative to the session's cwd when it is inside.
func (s *Session) displayPath(abs string) string {
	if rel, err := filepath.Rel(s.ws.Cwd(), abs); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return abs
}

// RewindList serves _hermes/rewind/list.
func (a *Agent) RewindList(ctx context.Context, req *acp.RewindListRequest) (*acp.RewindListResponse, error) {
	s, err := a.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	turns, err := s.rewindTurns(ctx)
	if err != nil {
		return nil, rewindError(err)
	}
	out := &acp.RewindListResponse{Turns: make([]acp.RewindTurn, 0, len(turns))}
	for _, t := range turns {
		files := t.files
		if files == nil {
			files = []acp.RewindFile{}
		}
		out.Turns = append(out.Turns, acp.RewindTurn{Turn: t.mark.Turn, At: t.mark.At.UTC().Format(time.RFC3339), Prompt: t.mark.Prompt, Files: files})
	}
	return out, nil
}

// RewindApply serves _hermes/rewind/apply: a dry run answers at once; a
// restore waits for the session's running turn, then asks the user as
// /rewind N does.
func (a *Agent) RewindApply(ctx context.Context, req *acp.RewindApplyRequest) (*acp.RewindApplyResponse, error) {
	s, err := a.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	if req.Turn < 1 {
		return nil, acp.InvalidParams("turn: %d is not a turn number (see %s)", req.Turn, acp.MethodRewindList)
	}
	if req.DryRun {
		plan, err := s.planRewind(ctx, req.Turn)
		if err != nil {
			return nil, rewindError(err)
		}
		return &acp.RewindApplyResponse{Outcome: "dry_run", Files: plan.wire()}, nil
	}
	t, _, err := s.enqueue()
	if err != nil {
		return nil, err
	}
	acp.Release(ctx) // the permission request is answered while this waits
	select {
	case <-t.Ready():
	case <-ctx.Done():
		if !s.queue.Leave(t) {
			return nil, ctx.Err()
		}
	}
	defer s.finish()
	r, plan, err := s.rewind(ctx, req.Turn)
	if err != nil {
		return nil, rewindError(err)
	}
	res := &acp.RewindApplyResponse{Outcome: r.outcome, Files: plan.wire(), Failed: r.failed, ConversationDropped: r.dropped}
	if r.outcome == "restored" {
		res.Files = (&rewindPlan{files: append(append([]rewindFile{}, r.done...), r.left...)}).wire()
	}
	return res, nil
}

// rewindError maps a rewind failure to its JSON-RPC error: a missing
// checkpoint or checkpoints being off are the caller's to fix.
func rewindError(err error) error {
	if errors.Is(err, errCheckpointsOff) || strings.HasPrefix(err.Error(), "no checkpoint for turn") {
		return acp.InvalidParams("%v", err)
	}
	return err
}
