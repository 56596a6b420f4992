package queue

import (
	"errors"
	"testing"
)

func granted(t *Ticket) bool {
	select {
	case <-t.Ready():
		return true
	default:
		return false
	}
}

func enqueue(t *testing.T, q *Queue, wantAhead int) *Ticket {
	t.Helper()
	tk, ahead, err := q.Enqueue()
	if err != nil || ahead != wantAhead {
		t.Fatalf("Enqueue = %d ahead, %v; want %d ahead", ahead, err, wantAhead)
	}
	return tk
}

// TestTurnsRunInArrivalOrder: the first prompt runs at once; later ones
// wait, told their place, and run one at a time in the order they came.
func TestTurnsRunInArrivalOrder(t *testing.T) {
	t.Parallel()
	var q Queue
	first := enqueue(t, &q, 0)
	second := enqueue(t, &q, 1)
	third := enqueue(t, &q, 2)
	if !granted(first) || granted(second) || granted(third) || !q.Running() {
		t.Fatal("only the first prompt may run")
	}
	q.Finish()
	if !granted(second) || granted(third) {
		t.Fatal("after the first turn, the second prompt runs and the third waits")
	}
	q.Finish()
	if !granted(third) {
		t.Fatal("the third prompt never ran")
	}
	q.Finish()
	if q.Running() {
		t.Error("the queue still runs a turn after the last finished")
	}
	enqueue(t, &q, 0) // idle again: the next prompt runs at once
}

// TestCancelledPromptLeavesItsPlace: a waiting prompt that is cancelled is
// never run and those behind it move up; a prompt whose turn was already
// granted keeps it.
func TestCancelledPromptLeavesItsPlace(t *testing.T) {
	t.Parallel()
	var q Queue
	first := enqueue(t, &q, 0)
	second := enqueue(t, &q, 1)
	third := enqueue(t, &q, 2)
	if q.Leave(second) {
		t.Fatal("Leave of a waiting prompt reported it granted")
	}
	enqueue(t, &q, 2) // third and this one are waiting
	if !q.Leave(first) {
		t.Fatal("Leave of the running prompt must report it granted (its owner finishes the turn)")
	}
	q.Finish()
	if granted(second) || !granted(third) {
		t.Fatal("the turn went to the cancelled prompt instead of the next one")
	}
}

// TestCloseDropsWaitingAndReportsTheRunningTurn: closing refuses new
// prompts, grants no waiting one, and hands back a channel that closes
// when the running turn finishes.
func TestCloseDropsWaitingAndReportsTheRunningTurn(t *testing.T) {
	t.Parallel()
	var q Queue
	enqueue(t, &q, 0)
	waiting := enqueue(t, &q, 1)
	done, already := q.Close()
	if already || done == nil {
		t.Fatalf("Close = %v, %v; want the running turn's channel", done, already)
	}
	if _, _, err := q.Enqueue(); !errors.Is(err, ErrClosed) {
		t.Errorf("Enqueue after Close: %v, want ErrClosed", err)
	}
	select {
	case <-done:
		t.Fatal("the turn's channel closed before the turn finished")
	default:
	}
	q.Finish()
	<-done
	if granted(waiting) || q.Running() {
		t.Error("a waiting prompt ran after Close")
	}
	if _, already := q.Close(); !already {
		t.Error("a second Close did not report the queue closed")
	}
	var idle Queue
	if done, _ := idle.Close(); done != nil {
		t.Error("Close of an idle queue returned a turn to wait for")
	}
}
