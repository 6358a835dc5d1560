package blob

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/format"
)

// SegmentInfo describes one segment object.
type SegmentInfo struct {
	Key     string // e.g. events/00000001-0000000000000001-0000000000000400.parquet
	Epoch   int32
	First   int64 // first seq, from the name
	Last    int64 // last seq, from the name
	Size    int64 // bytes
	ModTime time.Time
}

// Rows returns the number of events the name says the segment holds.
func (s SegmentInfo) Rows() int64 { return s.Last - s.First + 1 }

// Segments lists the log's segments in name order, which is log order,
// paging through any number of them. Objects under events/ whose names are
// not segment names are left out (NewReader reports them as notices).
func (l *Log) Segments(ctx context.Context) ([]SegmentInfo, error) {
	segs, _, err := l.listSegments(ctx)
	return segs, err
}

// listSegments lists events/ and returns the segments in name order and the
// keys of the other objects there. Temporary files of writes in progress
// are skipped silently.
func (l *Log) listSegments(ctx context.Context) (segs []SegmentInfo, unknown []string, err error) {
	err = l.store.list(ctx, EventsDir, func(o objectInfo) error {
		epoch, first, last, ok := ParseSegmentName(o.Key)
		switch {
		case ok:
			segs = append(segs, SegmentInfo{Key: o.Key, Epoch: epoch, First: first, Last: last, Size: o.Size, ModTime: o.ModTime})
		case strings.HasSuffix(o.Key, tmpExt):
		default:
			unknown = append(unknown, o.Key)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list %s of %s: %w", EventsDir, l.URL(), err)
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].Key < segs[j].Key })
	return segs, unknown, nil
}

// Delete removes one object of the log, e.g. a segment that a compacted one
// covers. A missing object returns an error wrapping ErrNotFound.
func (l *Log) Delete(ctx context.Context, key string) error {
	return l.store.delete(ctx, key)
}

// OpenSegment reads the segment object key whole and opens it. A segment
// that does not decode, or is larger than MaxSegmentBytes, is a
// *CorruptError (format.ErrNoFooter, checksum mismatch, ...); an unknown schema version an error wrapping a
// *format.VersionError.
func (l *Log) OpenSegment(ctx context.Context, key string) (*format.SegmentReader, error) {
	data, err := l.store.get(ctx, key)
	if errors.Is(err, errTooLarge) {
		return nil, &CorruptError{Key: key, Err: err}
	}
	if err != nil {
		return nil, err
	}
	sr, err := format.OpenSegment(data)
	if err != nil {
		return nil, segmentError(key, err)
	}
	return sr, nil
}

// segmentError classifies an error of format.OpenSegment or Read.
func segmentError(key string, err error) error {
	if errors.Is(err, format.ErrUnknownVersion) {
		return fmt.Errorf("%s: %w", key, err)
	}
	return &CorruptError{Key: key, Err: err}
}

// planItem is one segment the reader will read, with what it knows from the
// names alone.
type planItem struct {
	SegmentInfo
	fence  *fence // of the segment's epoch; nil: none
	newest bool   // the newest segment of its epoch: may be torn
	err    error  // a corruption known from the names
}

// end returns the last seq the item can contribute.
func (p *planItem) end() int64 {
	if p.fence.drops(p.Last) {
		return p.fence.seq - 1
	}
	return p.Last
}

// logPlan is what a reader makes of a listing: the segments to read in
// order, and the notices of those it passes over.
type logPlan struct {
	items   []planItem
	notices []format.Notice
	fences  map[int32]*fence // by fenced epoch
	covered []coverPair      // segments skipped because another covers them
}

// buildPlan applies the reader rules that need names only: covered segments
// are skipped, segments wholly past their epoch's fence are skipped, and
// the fence and the newest segment of each epoch are marked. segs must be
// in name order; epochs gives start_seq per claimed epoch.
func buildPlan(segs []SegmentInfo, unknown []string, epochs map[int32]EpochInfo) *logPlan {
	p := &logPlan{}
	for _, key := range unknown {
		p.notices = append(p.notices, format.Notice{Kind: format.NoticeUnknownObject, Key: key,
			Message: "not a segment name; skipped"})
	}
	byEpoch := groupByEpoch(segs)
	p.fences = fencesOf(epochStarts(byEpoch, epochs))
	for _, e := range epochOrder(byEpoch, epochs) {
		p.addEpoch(e, byEpoch[e], p.fences[e])
	}
	return p
}

// checkNames applies to names alone the rule that a log starts at seq 1
// and goes on without a gap, covered segments and fenced rows set aside:
// it returns a *CorruptError naming the first planned segment that does
// not follow on, or that its name alone shows corrupt (an overlap, a size
// over the limit). Whether a segment is torn cannot be told from its name;
// the Reader finds that, and checks the events against the epoch objects.
func checkNames(items []planItem) error {
	next := int64(1)
	for _, it := range items {
		if IsCorrupt(it.err) {
			return it.err
		}
		if it.err != nil {
			return &CorruptError{Key: it.Key, Err: it.err}
		}
		if err := follows(next-1, it.First); err != nil {
			return &CorruptError{Key: it.Key, Err: err}
		}
		next = it.end() + 1
	}
	return nil
}

func groupByEpoch(segs []SegmentInfo) map[int32][]SegmentInfo {
	m := make(map[int32][]SegmentInfo)
	for _, s := range segs {
		m[s.Epoch] = append(m[s.Epoch], s)
	}
	return m
}

// epochOrder returns every epoch known from segments or epoch objects, in
// ascending order.
func epochOrder(byEpoch map[int32][]SegmentInfo, epochs map[int32]EpochInfo) []int32 {
	var order []int32
	for e := range byEpoch {
		order = append(order, e)
	}
	for e := range epochs {
		if _, ok := byEpoch[e]; !ok {
			order = append(order, e)
		}
	}
	sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
	return order
}

// addEpoch plans the segments of one epoch, in name order.
func (p *logPlan) addEpoch(epoch int32, segs []SegmentInfo, f *fence) {
	kept := p.uncovered(segs)
	for i, s := range kept {
		item := planItem{SegmentInfo: s.SegmentInfo, newest: i == len(kept)-1, err: s.err}
		if item.err == nil && s.Size > int64(maxSegmentBytes) {
			item.err = &CorruptError{Key: s.Key, Err: fmt.Errorf("%d bytes, over the segment size limit of %d bytes", s.Size, maxSegmentBytes)}
		}
		if f.drops(s.First) {
			p.notices = append(p.notices, format.Notice{Kind: format.NoticeFenced, Key: s.Key, Epoch: epoch,
				Seq: s.First, Count: s.Rows(),
				Message: fmt.Sprintf("%s of fenced epoch %d (a newer epoch starts at seq %d); skipped", human.Count(s.Rows(), "row"), epoch, f.seq)})
			continue
		}
		if f.drops(s.Last) {
			item.fence = f
		}
		p.items = append(p.items, item)
	}
}

type coveredSeg struct {
	SegmentInfo
	err error
}

// uncovered drops the segments that another segment of the epoch covers,
// with a notice each. Segments that overlap without one covering the other
// are corruption. segs are in name order (first, then last ascending).
func (p *logPlan) uncovered(segs []SegmentInfo) []coveredSeg {
	kept, covered := coverSegments(segs)
	p.covered = append(p.covered, covered...)
	for _, c := range covered {
		p.notices = append(p.notices, format.Notice{Kind: format.NoticeCovered, Key: c.part.Key, Epoch: c.part.Epoch,
			Seq: c.part.First, Count: c.part.Rows(), Message: "covered by " + c.cover.Key + "; skipped"})
	}
	return kept
}

// coverPair is a segment and the segment of its epoch that covers it.
type coverPair struct{ part, cover SegmentInfo }

// coverSegments splits the segments of one epoch into those a reader reads
// (in seq order, with an error for one that overlaps another without
// covering it) and those that another one covers.
func coverSegments(segs []SegmentInfo) (kept []coveredSeg, covered []coverPair) {
	sorted := append([]SegmentInfo(nil), segs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].First != sorted[j].First {
			return sorted[i].First < sorted[j].First
		}
		return sorted[i].Last > sorted[j].Last // the widest first: it covers the rest
	})
	for _, s := range sorted {
		if n := len(kept); n > 0 {
			cur := kept[n-1]
			if s.Last <= cur.Last {
				covered = append(covered, coverPair{part: s, cover: cur.SegmentInfo})
				continue
			}
			if s.First <= cur.Last {
				kept = append(kept, coveredSeg{s, fmt.Errorf("overlaps %s without covering it", cur.Key)})
				continue
			}
		}
		kept = append(kept, coveredSeg{SegmentInfo: s})
	}
	return kept, covered
}

// maxLogDepth bounds how deep Logs looks below the log's prefix.
const maxLogDepth = 8

// Logs returns the URLs of the logs at or below l's prefix, in name order:
// every prefix holding a job.yaml or an events/ directory. It does not look
// inside a log for further logs. Bucket-wide tools (`jobevent ls`) use it.
func (l *Log) Logs(ctx context.Context) ([]string, error) {
	prefixes, err := l.logPrefixes(ctx)
	if err != nil {
		return nil, err
	}
	logs := make([]string, len(prefixes))
	for i, p := range prefixes {
		logs[i] = l.loc.withPrefix(p).String()
	}
	return logs, nil
}

// logPrefixes returns the prefixes (within the bucket) of the logs at or
// below l's prefix, in name order.
func (l *Log) logPrefixes(ctx context.Context) ([]string, error) {
	var logs []string
	level := []string{""}
	for depth := 0; depth <= maxLogDepth && len(level) > 0; depth++ {
		var next []string
		for _, p := range level {
			files, dirs, err := l.store.listLevel(ctx, p)
			if err != nil {
				return nil, fmt.Errorf("list logs under %s: %w", l.URL(), err)
			}
			if isLogLevel(p, files, dirs) {
				logs = append(logs, l.loc.prefix+p)
				continue
			}
			next = append(next, dirs...)
		}
		level = next
	}
	sort.Strings(logs)
	return logs, nil
}

// summaryWorkers is how many logs Summaries reads at once.
const summaryWorkers = 4

// Summaries returns the Summary of every log at or below l's prefix (see
// Logs), in name order, reading a few at a time through l's bucket. A log
// that cannot be summarized gets a Summary with only URL, Prefix and
// Problem set.
func (l *Log) Summaries(ctx context.Context) ([]*Summary, error) {
	prefixes, err := l.logPrefixes(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Summary, len(prefixes))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(summaryWorkers, len(prefixes)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				sub := l.sub(prefixes[i])
				s, err := sub.Summarize(ctx)
				if err != nil {
					s = &Summary{URL: sub.URL(), Prefix: sub.Prefix(), Status: "unknown", Problem: firstLine(err)}
				}
				out[i] = s
			}
		}()
	}
	for i := range prefixes {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, ctx.Err()
}

// sub returns the log at prefix (at or below l's prefix) in l's bucket,
// sharing l's bucket connection. Closing it does not close the bucket.
func (l *Log) sub(prefix string) *Log {
	rel := strings.TrimPrefix(prefix, l.loc.prefix)
	return &Log{loc: l.loc.withPrefix(prefix), store: &subStore{inner: l.store, rel: rel}}
}

// subStore is the objectStore of a log below another's prefix: keys are
// relative to the inner store's prefix plus rel.
type subStore struct {
	inner objectStore
	rel   string // "" or ends with "/"
}

func (s *subStore) create(ctx context.Context, key string, data []byte, ct string) error {
	return s.inner.create(ctx, s.rel+key, data, ct)
}

func (s *subStore) put(ctx context.Context, key string, data []byte, ct string) error {
	return s.inner.put(ctx, s.rel+key, data, ct)
}

func (s *subStore) get(ctx context.Context, key string) ([]byte, error) {
	return s.inner.get(ctx, s.rel+key)
}

func (s *subStore) stat(ctx context.Context, key string) (objectInfo, error) {
	o, err := s.inner.stat(ctx, s.rel+key)
	o.Key = strings.TrimPrefix(o.Key, s.rel)
	return o, err
}

func (s *subStore) list(ctx context.Context, prefix string, fn func(objectInfo) error) error {
	return s.inner.list(ctx, s.rel+prefix, func(o objectInfo) error {
		o.Key = strings.TrimPrefix(o.Key, s.rel)
		return fn(o)
	})
}

func (s *subStore) listLevel(ctx context.Context, prefix string) (files, dirs []string, err error) {
	files, dirs, err = s.inner.listLevel(ctx, s.rel+prefix)
	for i := range files {
		files[i] = strings.TrimPrefix(files[i], s.rel)
	}
	for i := range dirs {
		dirs[i] = strings.TrimPrefix(dirs[i], s.rel)
	}
	return files, dirs, err
}

func (s *subStore) delete(ctx context.Context, key string) error {
	return s.inner.delete(ctx, s.rel+key)
}

func (s *subStore) close() error { return nil }

func isLogLevel(p string, files, dirs []string) bool {
	for _, f := range files {
		if f == p+SpecKey {
			return true
		}
	}
	for _, d := range dirs {
		if d == p+EventsDir {
			return true
		}
	}
	return false
}
