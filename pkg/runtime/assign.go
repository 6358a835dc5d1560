package runtime

import (
	"encoding/json"
	"fmt"
)

// splitAssigner is the assignment state shared by the built-in split
// enumerators. Split k belongs to subtask k mod parallelism: a subtask
// asks for splits on demand and gets its own, in order, so the records a
// subtask reads do not depend on timing, and a rerun reads what the lost
// attempt read. Its snapshot is the split list and the owner of every
// assigned split.
type splitAssigner struct {
	Splits   []json.RawMessage `json:"splits"`
	Assigned []int             `json:"assigned"` // subtask, or -1 when not handed out
	P        int               `json:"parallelism"`
}

func newSplitAssigner(parallelism int) *splitAssigner {
	return &splitAssigner{P: parallelism}
}

func (a *splitAssigner) setSplits(splits []json.RawMessage) {
	a.Splits = splits
	a.Assigned = make([]int, len(splits))
	for i := range a.Assigned {
		a.Assigned[i] = -1
	}
}

func (a *splitAssigner) next(subtask int) ([]byte, bool) {
	for k := subtask; k < len(a.Splits); k += max(a.P, 1) {
		if a.Assigned[k] == -1 {
			a.Assigned[k] = subtask
			return a.Splits[k], true
		}
	}
	return nil, false
}

func (a *splitAssigner) addBack(subtask int) {
	for k, owner := range a.Assigned {
		if owner == subtask {
			a.Assigned[k] = -1
		}
	}
}

func (a *splitAssigner) snapshot() ([]byte, error) {
	return json.Marshal(a)
}

func (a *splitAssigner) restore(state []byte) error {
	var r splitAssigner
	if err := json.Unmarshal(state, &r); err != nil {
		return fmt.Errorf("restore split assignment: %w", err)
	}
	if len(r.Assigned) != len(r.Splits) || r.P != a.P {
		return fmt.Errorf("restore split assignment: %d splits, %d owners, parallelism %d (want %d)",
			len(r.Splits), len(r.Assigned), r.P, a.P)
	}
	for _, owner := range r.Assigned {
		if owner < -1 || owner >= r.P {
			return fmt.Errorf("restore split assignment: owner %d out of range", owner)
		}
	}
	*a = r
	return nil
}
