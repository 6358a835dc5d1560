package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/format"
)

// Defaults of CompactOptions.
const (
	// DefaultCompactTargetSize is the default bound on the bytes of the
	// segments merged into one covering segment.
	DefaultCompactTargetSize = 8 << 20
	// DefaultCompactMaxEvents is the default bound on the events of one
	// covering segment: compaction holds them in memory.
	DefaultCompactMaxEvents = 500_000
)

// CompactOptions configures Compact. The zero value means the defaults.
type CompactOptions struct {
	// TargetSize bounds the total size, in bytes, of the segments merged
	// into one covering segment; segments this large or larger are left
	// alone. 0 means DefaultCompactTargetSize; it is never more than
	// MaxSegmentBytes.
	TargetSize int64
	// MaxEvents bounds the events of one covering segment; 0 means
	// DefaultCompactMaxEvents.
	MaxEvents int64
	// DryRun plans the compaction and changes nothing.
	DryRun bool
}

// CompactResult says what Compact did (or, with DryRun, would do: the
// segments it would leave, and their bytes counting each covering segment
// as the bytes of its parts).
type CompactResult struct {
	URL            string           `json:"log"`
	SegmentsBefore int              `json:"segments_before"`
	SegmentsAfter  int              `json:"segments_after"`
	BytesBefore    int64            `json:"bytes_before"`
	BytesAfter     int64            `json:"bytes_after"`
	Covering       []CoveringInfo   `json:"covering"`
	Leftovers      int              `json:"leftovers_deleted"` // parts of earlier compactions that had not been deleted
	Skipped        []SkippedSegment `json:"skipped"`
	DryRun         bool             `json:"dry_run"`
}

// CoveringInfo describes one covering segment written by Compact.
type CoveringInfo struct {
	Key    string `json:"key"`
	Parts  int    `json:"parts"`
	Events int64  `json:"events"`
	Bytes  int64  `json:"bytes"` // with DryRun: the bytes of its parts
}

// SkippedSegment is a segment that Compact left alone for a reason worth
// telling: the newest segment of a job a master may still be writing, a
// torn segment, one that holds only fenced rows.
type SkippedSegment struct {
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

// Compact merges runs of small, consecutive segments of one epoch into
// covering segments, named by FormatSegmentName with the range they cover,
// and then deletes the parts. Readers prefer a covering segment to the
// segments it covers, so a crash at any step — before the covering segment
// is written, after it, after deleting some parts — loses nothing and
// duplicates nothing as read; the next Compact deletes the parts an
// interrupted one left. Covering segments keep the rows of fenced masters
// as they were stored (readers filter them row by row, validate reports
// them); segments that hold only fenced rows, torn segments and the
// newest segment of the newest epoch, while the job has not finished, are
// left alone. See docs/format.md, "Compaction".
//
// Compact holds the log's compaction lock (CompactLockKey) while it runs:
// a concurrent Compact of the same log returns an error wrapping
// ErrCompacting. A log without any segment is refused with ErrNoSegments.
// A log that does not start at seq 1 or has a gap between
// the names of its segments is refused with a *CorruptError before
// anything is written; a segment that cannot be decoded (other than a torn
// newest one) stops it with a *CorruptError; what it compacted before
// stays compacted. It is safe to run while masters write and readers read
// the log.
func Compact(ctx context.Context, l *Log, opts CompactOptions) (*CompactResult, error) {
	if opts.TargetSize <= 0 {
		opts.TargetSize = DefaultCompactTargetSize
	}
	opts.TargetSize = min(opts.TargetSize, MaxSegmentBytes)
	if opts.MaxEvents <= 0 {
		opts.MaxEvents = DefaultCompactMaxEvents
	}
	c := &compactor{log: l, opts: opts, res: &CompactResult{URL: l.URL(), DryRun: opts.DryRun,
		Covering: []CoveringInfo{}, Skipped: []SkippedSegment{}}}
	if !opts.DryRun {
		lock, err := l.lockCompaction(ctx)
		if err != nil {
			return nil, fmt.Errorf("compact %s: %w", l.URL(), err)
		}
		c.lock = lock
		defer lock.release()
	}
	if err := c.run(ctx); err != nil {
		return c.res, fmt.Errorf("compact %s: %w", l.URL(), err)
	}
	if c.lock != nil {
		if err := c.lock.release(); err != nil {
			return c.res, fmt.Errorf("compact %s: done, but %w", l.URL(), err)
		}
	}
	return c.res, nil
}

// compactor is one run of Compact.
type compactor struct {
	log  *Log
	opts CompactOptions
	res  *CompactResult
	lock *compactLock
	buf  bytes.Buffer
}

// epochSegs is what compaction knows of one epoch's segments.
type epochSegs struct {
	epoch   int32
	kept    []coveredSeg // what a reader reads, in seq order
	covered []coverPair  // leftovers of earlier compactions
	fence   *fence       // nil: none
}

func (c *compactor) run(ctx context.Context) error {
	segs, _, err := c.log.listSegments(ctx)
	if err != nil {
		return err
	}
	if len(segs) == 0 {
		return ErrNoSegments
	}
	epochs, err := c.log.Epochs(ctx)
	if err != nil {
		return err
	}
	for _, s := range segs {
		c.res.SegmentsBefore++
		c.res.BytesBefore += s.Size
	}
	c.res.SegmentsAfter, c.res.BytesAfter = c.res.SegmentsBefore, c.res.BytesBefore
	claimed := make(map[int32]EpochInfo, len(epochs))
	for _, e := range epochs {
		claimed[e.Epoch] = e
	}
	if err := checkNames(buildPlan(segs, nil, claimed).items); err != nil {
		return err
	}
	groups := planEpochs(segs, epochs)
	tail, err := c.tail(ctx, groups, epochs)
	if err != nil {
		return err
	}
	for _, g := range groups {
		for _, s := range g.kept {
			if s.err != nil {
				return &CorruptError{Key: s.Key, Err: s.err}
			}
		}
	}
	for _, g := range groups {
		if err := c.deleteLeftovers(ctx, g); err != nil {
			return err
		}
		for _, run := range c.runs(g, tail) {
			if err := c.compactRun(ctx, g, run); err != nil {
				return err
			}
		}
	}
	return nil
}

// planEpochs groups segments by epoch, in epoch order, with the covering
// rule of the reader and each epoch's fence.
func planEpochs(segs []SegmentInfo, epochs []EpochInfo) []*epochSegs {
	byEpoch := groupByEpoch(segs)
	claimed := make(map[int32]EpochInfo, len(epochs))
	for _, e := range epochs {
		claimed[e.Epoch] = e
	}
	fences := fencesOf(epochStarts(byEpoch, claimed))
	var out []*epochSegs
	for _, e := range epochOrder(byEpoch, claimed) {
		if len(byEpoch[e]) == 0 {
			continue
		}
		g := &epochSegs{epoch: e, fence: fences[e]}
		g.kept, g.covered = coverSegments(byEpoch[e])
		out = append(out, g)
	}
	return out
}

// tail returns the key of the newest segment of the newest epoch when a
// master may still be writing after it: the job has not finished and no
// newer epoch has been claimed. It returns "" when every segment may be
// compacted.
func (c *compactor) tail(ctx context.Context, groups []*epochSegs, epochs []EpochInfo) (string, error) {
	if len(groups) == 0 {
		return "", nil
	}
	g := groups[len(groups)-1]
	last := g.kept[len(g.kept)-1]
	if n := len(epochs); n > 0 && epochs[n-1].Epoch > g.epoch {
		return "", nil // fenced by a newer claim: this epoch is sealed
	}
	finished, err := c.log.endsFinished(ctx, last.Key)
	if err != nil || finished {
		return "", err
	}
	c.skip(last.Key, "newest segment of a job that has not finished: a master may still be writing")
	return last.Key, nil
}

// endsFinished reports whether the segment key decodes and ends with
// job_finished. A torn segment is not an error here; a corrupt one is.
func (l *Log) endsFinished(ctx context.Context, key string) (bool, error) {
	e, err := l.lastEvent(ctx, key)
	if errors.Is(err, ErrNotFound) || errors.Is(err, format.ErrNoFooter) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return e.Kind == format.KindJobFinished, nil
}

func (c *compactor) skip(key, reason string) {
	c.res.Skipped = append(c.res.Skipped, SkippedSegment{Key: key, Reason: reason})
}

// runs returns the runs of consecutive segments of g worth merging: at
// least two, together within the target size and event bound.
func (c *compactor) runs(g *epochSegs, tail string) [][]SegmentInfo {
	var runs [][]SegmentInfo
	var cur []SegmentInfo
	var size, rows int64
	flush := func() {
		if len(cur) >= 2 {
			runs = append(runs, cur)
		}
		cur, size, rows = nil, 0, 0
	}
	for _, s := range g.kept {
		switch {
		case s.Key == tail:
			flush()
			continue
		case g.fence.drops(s.First):
			flush()
			c.skip(s.Key, "holds only rows of a fenced master")
			continue
		case s.Size >= c.opts.TargetSize:
			flush()
			continue
		}
		contiguous := len(cur) == 0 || s.First == cur[len(cur)-1].Last+1
		if !contiguous || size+s.Size > c.opts.TargetSize || rows+s.Rows() > c.opts.MaxEvents {
			flush()
		}
		cur = append(cur, s.SegmentInfo)
		size += s.Size
		rows += s.Rows()
	}
	flush()
	return runs
}

// deleteLeftovers deletes the segments of g that a covering segment
// already covers, once the covering segment has been checked to hold every
// row its name promises.
func (c *compactor) deleteLeftovers(ctx context.Context, g *epochSegs) error {
	if len(g.covered) == 0 {
		return nil
	}
	c.res.Leftovers += len(g.covered)
	if c.opts.DryRun {
		for _, pair := range g.covered {
			c.res.SegmentsAfter--
			c.res.BytesAfter -= pair.part.Size
		}
		return nil
	}
	checked := make(map[string]bool)
	parts := make([]SegmentInfo, len(g.covered))
	for i, pair := range g.covered {
		if !checked[pair.cover.Key] {
			if err := c.checkCover(ctx, pair.cover); err != nil {
				return err
			}
			checked[pair.cover.Key] = true
		}
		parts[i] = pair.part
	}
	return c.deleteParts(ctx, parts)
}

// checkCover reads a covering segment whole and checks its rows against
// its name.
func (c *compactor) checkCover(ctx context.Context, s SegmentInfo) error {
	data, err := c.log.store.get(ctx, s.Key)
	if err != nil {
		return err
	}
	_, err = decodePart(s, data, nil)
	return err
}

// decodePart decodes the bytes of segment s, checks every row against its
// name and appends the events to dst.
func decodePart(s SegmentInfo, data []byte, dst []format.Event) ([]format.Event, error) {
	sr, err := format.OpenSegment(data)
	if err != nil {
		return dst, segmentError(s.Key, err)
	}
	if int64(sr.Len()) != s.Rows() {
		return dst, &CorruptError{Key: s.Key, Err: fmt.Errorf("the name says %s, the segment holds %d", human.Count(s.Rows(), "row"), sr.Len())}
	}
	want := s.First
	buf := make([]format.Event, readBatch)
	for {
		n, rerr := sr.Read(buf)
		for _, e := range buf[:n] {
			if e.Seq != want || e.Epoch != s.Epoch {
				return dst, &CorruptError{Key: s.Key, Err: fmt.Errorf("row %d holds epoch %d seq %d, the name says epoch %d seq %d",
					want-s.First, e.Epoch, e.Seq, s.Epoch, want)}
			}
			want++
			dst = append(dst, e)
		}
		if rerr == io.EOF || (rerr == nil && n == 0) {
			return dst, nil
		}
		if rerr != nil {
			return dst, segmentError(s.Key, rerr)
		}
	}
}

// compactWorkers is how many requests compaction has in flight at once.
const compactWorkers = 8

// inParallel calls fn(0) ... fn(n-1), compactWorkers at a time, and
// returns the first error (by index).
func inParallel(n int, fn func(i int) error) error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(compactWorkers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// compactRun merges the parts of one run into a covering segment and
// deletes them. A torn newest segment of the epoch ends the run before it.
// A dry run reads nothing and reports the covering segment by its parts.
func (c *compactor) compactRun(ctx context.Context, g *epochSegs, parts []SegmentInfo) error {
	if c.opts.DryRun {
		info := CoveringInfo{Key: FormatSegmentName(parts[0].Epoch, parts[0].First, parts[len(parts)-1].Last), Parts: len(parts)}
		for _, p := range parts {
			info.Events += p.Rows()
			info.Bytes += p.Size
		}
		c.res.Covering = append(c.res.Covering, info)
		c.res.SegmentsAfter -= len(parts) - 1
		return nil
	}
	data := make([][]byte, len(parts))
	err := inParallel(len(parts), func(i int) (err error) {
		data[i], err = c.log.store.get(ctx, parts[i].Key)
		return err
	})
	if err != nil {
		return err
	}
	newest := g.kept[len(g.kept)-1].Key
	var events []format.Event
	for i, p := range parts {
		var err error
		events, err = decodePart(p, data[i], events)
		data[i] = nil
		if errors.Is(err, format.ErrNoFooter) && p.Key == newest {
			c.skip(p.Key, "torn (no valid footer)")
			parts = parts[:i]
			break
		}
		if err != nil {
			return err
		}
	}
	if len(parts) < 2 {
		return nil
	}
	return c.writeCover(ctx, parts, events)
}

// deleteParts deletes the segments of parts, a few at a time (one that is
// already gone is fine), and takes them out of the result.
func (c *compactor) deleteParts(ctx context.Context, parts []SegmentInfo) error {
	err := inParallel(len(parts), func(i int) error {
		err := c.log.Delete(ctx, parts[i].Key)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("delete compacted %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range parts {
		c.res.SegmentsAfter--
		c.res.BytesAfter -= p.Size
	}
	return nil
}

// writeCover encodes events (the rows of parts) as one covering segment,
// writes it and deletes the parts. When the covering segment would exceed
// MaxSegmentBytes, the parts are split in two halves, each merged on its
// own: a covering segment must never end inside a part.
func (c *compactor) writeCover(ctx context.Context, parts []SegmentInfo, events []format.Event) error {
	c.buf.Reset()
	if err := format.EncodeSegment(&c.buf, events); err != nil {
		return fmt.Errorf("encode covering segment of %s: %w", parts[0].Key, err)
	}
	if c.buf.Len() > maxSegmentBytes {
		mid := len(parts) / 2
		split := int(parts[mid].First - parts[0].First)
		if mid >= 2 {
			if err := c.writeCover(ctx, parts[:mid], events[:split]); err != nil {
				return err
			}
		}
		if len(parts)-mid >= 2 {
			return c.writeCover(ctx, parts[mid:], events[split:])
		}
		return nil
	}
	info := CoveringInfo{Key: FormatSegmentName(parts[0].Epoch, parts[0].First, parts[len(parts)-1].Last),
		Parts: len(parts), Events: int64(len(events)), Bytes: int64(c.buf.Len())}
	if err := c.lock.refresh(ctx); err != nil {
		return err
	}
	if _, err := c.log.putSegment(ctx, events, c.buf.Bytes()); err != nil {
		if !errors.Is(err, ErrExists) {
			return err
		}
		// Another compaction wrote it with other bytes: use it if it holds
		// the rows.
		if err := c.checkCover(ctx, SegmentInfo{Key: info.Key, Epoch: parts[0].Epoch, First: parts[0].First, Last: parts[len(parts)-1].Last}); err != nil {
			return err
		}
	}
	c.res.Covering = append(c.res.Covering, info)
	c.res.SegmentsAfter++
	c.res.BytesAfter += info.Bytes
	return c.deleteParts(ctx, parts)
}
