package runtime

import (
	"errors"
	"fmt"
	"path/filepath"
)

// Wire rules (part of the protocol, docs/recovery.md "The wire"): every
// name a request carries is checked before anything acts on it, with the
// rule a job spec's names follow (nameRE): job names, vertex ids,
// consumers and worker names are 1 to 128 letters, digits, '_', '.' and
// '-', starting with a letter or a digit, so that none can be empty, "."
// or "..", or hold a path separator. Subtasks and attempts are
// non-negative, epochs positive, key-group ranges within maxKeyGroups. A
// request that breaks a rule is answered 400 with one line saying which,
// and changes nothing.

// errBadRequest marks a request that breaks a wire rule (HTTP 400).
var errBadRequest = errors.New("jobevent/runtime: bad request")

// maxSlots bounds the slots a worker may announce.
const maxSlots = 1 << 16

// wireError is a refusal of a request: its message alone, and its kind
// (errBadRequest, errForbidden) for errors.Is.
type wireError struct {
	kind error
	msg  string
}

func (e *wireError) Error() string { return e.msg }
func (e *wireError) Unwrap() error { return e.kind }

// badRequestf returns an errBadRequest saying what is wrong.
func badRequestf(format string, args ...any) error {
	return &wireError{kind: errBadRequest, msg: fmt.Sprintf(format, args...)}
}

// checkName checks a name on the wire against the spec's rule; what says
// which field it is.
func checkName(what, name string) error {
	if !nameRE.MatchString(name) {
		return badRequestf("%s %q: want 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or a digit", what, name)
	}
	return nil
}

func checkEpoch(epoch int32) error {
	if epoch < 1 {
		return badRequestf("epoch %d: want at least 1", epoch)
	}
	return nil
}

func checkIndex(what string, n int32) error {
	if n < 0 {
		return badRequestf("%s %d: want at least 0", what, n)
	}
	return nil
}

// checkJob checks the job name and the epoch every request to a worker
// carries.
func checkJob(job string, epoch int32) error {
	if err := checkName("job", job); err != nil {
		return err
	}
	return checkEpoch(epoch)
}

func (a attemptRef) check() error {
	return firstErr(checkName("vertex", a.Vertex), checkIndex("subtask", a.Subtask), checkIndex("attempt", a.Attempt))
}

// checkPart checks a partition id.
func checkPart(p partID) error {
	return firstErr(checkName("vertex", p.Vertex), checkIndex("subtask", p.Subtask), checkIndex("attempt", p.Attempt),
		checkName("consumer", p.Consumer))
}

// checkRange checks the key groups [from, to) of a partition slice.
func checkRange(from, to int) error {
	if from < 0 || to < from || to > maxKeyGroups {
		return badRequestf("key groups [%d, %d): want 0 <= from <= to <= %d", from, to, maxKeyGroups)
	}
	return nil
}

func checkCount(what string, n int64) error {
	if n < 0 {
		return badRequestf("%s %d: want at least 0", what, n)
	}
	return nil
}

func (d *deployment) check() error {
	if err := firstErr(checkJob(d.Job, d.Epoch), d.ref().check()); err != nil {
		return err
	}
	if d.Parallelism < 1 || d.Parallelism > maxKeyGroups || d.Subtask >= d.Parallelism {
		return badRequestf("subtask %d of parallelism %d: want 0 <= subtask < parallelism <= %d", d.Subtask, d.Parallelism, maxKeyGroups)
	}
	for _, in := range d.Inputs {
		if err := checkName("input", in.From); err != nil {
			return err
		}
		for _, s := range in.Slices {
			if err := firstErr(checkPart(s.Partition), checkName("worker", s.Worker), checkRange(s.From, s.To)); err != nil {
				return err
			}
			if s.Addr != "" && !dialable(s.Addr) {
				return badRequestf("address %q of worker %s: want HOST:PORT", s.Addr, s.Worker)
			}
		}
	}
	for _, out := range d.Outputs {
		if err := checkName("consumer", out.Consumer); err != nil {
			return err
		}
		if out.Groups < 1 || out.Groups > maxKeyGroups {
			return badRequestf("%d key groups for %s: want 1 to %d", out.Groups, out.Consumer, maxKeyGroups)
		}
	}
	return nil
}

func (c *cancelRequest) check() error { return firstErr(checkJob(c.Job, c.Epoch), c.Ref.check()) }

func (c *cleanupRequest) check() error { return checkJob(c.Job, c.Epoch) }

func (h *heartbeatRequest) check() error {
	return firstErr(checkName("worker", h.Worker), checkEpoch(h.Epoch))
}

func (s *splitRequest) check() error { return firstErr(checkJob(s.Job, s.Epoch), s.attemptRef.check()) }

func (r *taskReport) check() error {
	if err := firstErr(checkJob(r.Job, r.Epoch), checkName("worker", r.Worker), r.attemptRef.check()); err != nil {
		return err
	}
	if r.Missing != nil {
		if err := checkPart(*r.Missing); err != nil {
			return err
		}
	}
	err := firstErr(checkCount("records_in", r.RecordsIn), checkCount("records_out", r.RecordsOut),
		checkCount("bytes_in", r.BytesIn), checkCount("bytes_out", r.BytesOut))
	for _, p := range r.Partitions {
		err = firstErr(err, checkName("consumer", p.Consumer), checkCount("bytes", p.Bytes), checkCount("records", p.Records))
	}
	return err
}

func (r *registration) check() error {
	if err := firstErr(checkName("worker", r.Worker), checkName("job", r.Job)); err != nil {
		return err
	}
	if err := checkKey("session key", r.Session); err != nil {
		return err
	}
	if !dialable(r.Addr) {
		return badRequestf("worker %s gave the address %q: want HOST:PORT", r.Worker, r.Addr)
	}
	if r.Slots < 1 || r.Slots > maxSlots {
		return badRequestf("%d slots: want 1 to %d", r.Slots, maxSlots)
	}
	for _, h := range r.Partitions {
		if err := firstErr(checkPart(h.ID), checkCount("bytes", h.Bytes), checkCount("records", h.Records)); err != nil {
			return err
		}
	}
	return nil
}

// firstErr returns the first error that is not nil: one line, where
// errors.Join would give one per error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// rooted joins parts under root and makes sure that the result stays
// there: each part must be one local path element (no separator, not "."
// or ".."). It is the one way the runtime builds a path from names it was
// given, after checking them (checkName).
func rooted(root string, parts ...string) (string, error) {
	for _, p := range parts {
		if !filepath.IsLocal(p) || filepath.Base(p) != p || p == "." {
			return "", badRequestf("path element %q would leave %s", p, root)
		}
	}
	return filepath.Join(append([]string{root}, parts...)...), nil
}
