package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
)

// Summary describes a log from its listing, its epoch objects and a read of
// all its segments by a Reader, as every other command reads it: what
// `jobevent ls` shows.
type Summary struct {
	URL      string `json:"log"`
	Prefix   string `json:"prefix"`   // the log's prefix within its bucket
	Job      string `json:"job"`      // from the first event; "" when it cannot be read
	Epochs   int    `json:"epochs"`   // claimed, or holding segments
	Segments int    `json:"segments"` // segment objects, covered ones included
	// Events and LastSeq count the events as read: covered segments,
	// fenced rows and torn tails left out; in a damaged log, those read
	// before the damage.
	Events       int64     `json:"events"`
	LastSeq      int64     `json:"last_seq"`
	Bytes        int64     `json:"bytes"` // of the segments
	LastModified time.Time `json:"last_modified"`
	// Status is job_finished's status (finished, failed, canceled) when
	// the log ends with it, else "unfinished"; "empty" for a
	// log without segments; "damaged" when what was read shows corruption
	// (Problem says what), "torn" when the newest segment is torn. A
	// damaged log is never shown with the status of a healthy one.
	Status   string `json:"status"`
	Finished bool   `json:"finished"`
	// Problem says what could not be read, e.g. a segment without a
	// footer; "" when all was well.
	Problem string `json:"problem,omitempty"`
}

// Summarize returns the Summary of l. A log that does not exist (no
// segment, no epoch object, no job.yaml) is a *NoLogError; a segment that cannot be decoded is not an error but a
// Problem. Safe for concurrent use.
func (l *Log) Summarize(ctx context.Context) (*Summary, error) {
	segs, unknown, err := l.listSegments(ctx)
	if err != nil {
		return nil, err
	}
	epochs, err := l.listEpochObjects(ctx)
	if err != nil {
		return nil, err
	}
	if len(segs) == 0 && len(epochs) == 0 { // epoch objects make a log, even one that lost its events
		ok, err := l.Exists(ctx)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &NoLogError{URL: l.URL()}
		}
	}
	s := &Summary{URL: l.URL(), Prefix: l.Prefix(), Segments: len(segs), Status: "empty"}
	for _, seg := range segs {
		s.Bytes += seg.Size
		s.LastModified = later(s.LastModified, seg.ModTime)
	}
	claimed := make(map[int32]EpochInfo)
	for _, o := range epochs {
		s.LastModified = later(s.LastModified, o.ModTime)
		if e, ok := parseEpochKey(o.Key); ok {
			claimed[e] = EpochInfo{Epoch: e}
		}
	}
	if infos, err := l.Epochs(ctx); err == nil {
		for _, e := range infos {
			claimed[e.Epoch] = e
		}
	} else if !IsCorrupt(err) {
		return nil, err
	} else {
		s.Problem = err.Error()
	}
	plan := buildPlan(segs, unknown, claimed)
	s.Epochs = len(epochOrder(groupByEpoch(segs), claimed))
	if len(plan.items) == 0 {
		if err := missingStart(claimed); err != nil && s.Problem == "" {
			s.Problem = err.Error()
		}
		s.Status = damagedStatus(s.Problem, "empty")
		return s, nil
	}
	if err := checkNames(plan.items); err != nil && s.Problem == "" {
		s.Problem = firstLine(err)
	}
	s.Status = damagedStatus(s.Problem, "unfinished")
	if err := l.readSummary(ctx, s, plan.items[len(plan.items)-1].Key); err != nil {
		return nil, err
	}
	return s, nil
}

// damagedStatus is "damaged" when there is a problem, else status.
func damagedStatus(problem, status string) string {
	if problem != "" {
		return "damaged"
	}
	return status
}

// missingStart reports a log without segments whose epoch objects promise
// events: an epoch that starts past seq 1 means seqs 1 to start-1 were
// written and are gone.
func missingStart(claimed map[int32]EpochInfo) error {
	var worst EpochInfo
	for _, e := range claimed {
		if e.StartSeq > worst.StartSeq {
			worst = e
		}
	}
	if worst.StartSeq > 1 {
		return fmt.Errorf("events/ holds no segment, but epoch %d starts at seq %d: seq 1 to %d missing", worst.Epoch, worst.StartSeq, worst.StartSeq-1)
	}
	return nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// listEpochObjects lists epochs/: claims and heartbeats, with their
// modification times.
func (l *Log) listEpochObjects(ctx context.Context) ([]objectInfo, error) {
	var objs []objectInfo
	err := l.store.list(ctx, EpochsDir, func(o objectInfo) error {
		objs = append(objs, o)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s of %s: %w", EpochsDir, l.URL(), err)
	}
	return objs, nil
}

// readSummary reads the whole log with a Reader and fills in s from what it
// read: the job, the events, the status of the end, and the first problem
// when s has none yet (a torn newest segment, whose key is newest, makes
// the log "torn"). Only an error of ctx is returned.
func (l *Log) readSummary(ctx context.Context, s *Summary, newest string) error {
	r, err := l.NewReader(ctx, ReaderOptions{})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.Problem, s.Status = firstLine(err), "damaged"
		return nil
	}
	defer r.Close()
	var last format.Event
	for {
		batch, err := r.NextBatch()
		if len(batch) > 0 {
			if s.Events == 0 {
				s.Job = batch[0].Job
			}
			s.Events += int64(len(batch))
			last = batch[len(batch)-1]
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s.LastSeq = last.Seq
			if s.Problem == "" {
				s.Problem, s.Status = firstLine(err), "damaged"
			}
			return nil
		}
	}
	s.LastSeq = last.Seq
	for _, n := range r.Notices() {
		if n.Kind == format.NoticeTornTail && n.Key == newest && s.Problem == "" {
			s.Problem, s.Status = firstLine(errors.New(n.String())), "torn"
		}
	}
	if s.Problem == "" && last.Kind == format.KindJobFinished {
		s.Status, s.Finished = last.Status, true
	}
	return nil
}

// Ended reports whether the newest segment of l decodes and ends with
// job_finished. It reads the listing, the epoch objects and that segment
// alone, whatever the length of the log; a log without segments has not
// ended. Safe for concurrent use.
func (l *Log) Ended(ctx context.Context) (bool, error) {
	segs, unknown, err := l.listSegments(ctx)
	if err != nil {
		return false, err
	}
	claimed := make(map[int32]EpochInfo)
	infos, err := l.Epochs(ctx)
	if err != nil {
		return false, err
	}
	for _, e := range infos {
		claimed[e.Epoch] = e
	}
	plan := buildPlan(segs, unknown, claimed)
	if len(plan.items) == 0 {
		return false, nil
	}
	return l.endsFinished(ctx, plan.items[len(plan.items)-1].Key)
}

// lastEvent returns the last event of segment key.
func (l *Log) lastEvent(ctx context.Context, key string) (format.Event, error) {
	sr, err := l.OpenSegment(ctx, key)
	if err != nil {
		return format.Event{}, err
	}
	var last format.Event
	buf := make([]format.Event, readBatch)
	for {
		n, err := sr.Read(buf)
		if n > 0 {
			last = buf[n-1]
		}
		if err == io.EOF || (err == nil && n == 0) {
			if last.Kind == "" {
				return last, &CorruptError{Key: key, Err: errors.New("segment holds no rows")}
			}
			return last, nil
		}
		if err != nil {
			return last, segmentError(key, err)
		}
	}
}
