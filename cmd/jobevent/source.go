package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
)

// eventSource is an opened LOG argument: its events in log order, with
// fenced rows of superseded masters already filtered out. It satisfies
// replay.Source and its optional Key and Notices extras.
type eventSource interface {
	// Next returns the next event, or io.EOF after the last one.
	Next() (format.Event, error)
	// Key names where the last event came from: an object key, or the
	// path of a JSONL file.
	Key() string
	// Notices drains what the source passed over so far: torn tails,
	// fenced rows, unknown objects.
	Notices() []format.Notice
	// Close releases the source.
	Close() error
}

// sourceOptions selects what openSource reads.
type sourceOptions struct {
	since, until int64 // seq bounds, inclusive; 0 = unbounded
	follow       bool  // keep reading new segments until ctx is done
	poll         time.Duration
	// anySeq lets a JSONL file hold seqs below 1, and seqs that skip or
	// repeat, for validate, which reports them as findings; other commands
	// refuse such a file (a gap as the bucket reader does).
	anySeq bool
	// flink is the side information of --flink-plan and --coordinator;
	// nil when not given (and an error for any log but a Flink log).
	flink *flinkOptions
}

// noLogError is a LOG argument that names no log.
type noLogError struct{ url string }

func (e *noLogError) Error() string { return "no event log at " + e.url }

// openSource opens a LOG argument: a Flink job-events directory (local or
// on a bucket, recognised by its events.N objects) is read with package
// flink, read-only; a JSONL file (a path ending in .jsonl, or any existing
// regular file) is read directly and read-only; anything else is a bucket
// URL or directory opened with blob.Open. A missing or
// empty log is an error reading "no event log at URL".
func openSource(ctx context.Context, arg string, o sourceOptions) (eventSource, error) {
	if fsrc, err := openFlinkSource(ctx, arg, o.flink); err != nil {
		return nil, err
	} else if fsrc != nil {
		return checkFlinkFollow(fsrc, o)
	}
	if err := o.flink.refuse(arg); err != nil {
		return nil, err
	}
	if isJSONLPath(arg) {
		if o.follow {
			return nil, fmt.Errorf("%s: --follow needs a bucket log, not a JSONL file", arg)
		}
		return openJSONL(arg, o.anySeq)
	}
	log, err := blob.Open(ctx, arg)
	if err != nil {
		return nil, err // a missing bucket or directory is a *blob.NoLogError
	}
	ok, err := log.Exists(ctx)
	if err == nil && !ok {
		err = &noLogError{url: arg}
	}
	if err != nil {
		log.Close()
		return nil, err
	}
	r, err := log.NewReader(ctx, blob.ReaderOptions{Since: o.since, Until: o.until, Follow: o.follow, PollInterval: o.poll})
	if err != nil {
		log.Close()
		return nil, err
	}
	return &blobSource{Reader: r, log: log}, nil
}

// isJSONLPath reports whether a LOG argument names a JSONL file rather
// than a bucket: no URL scheme, and a .jsonl name or an existing regular
// file.
func isJSONLPath(arg string) bool {
	if strings.Contains(arg, "://") {
		return false
	}
	if strings.HasSuffix(arg, ".jsonl") {
		return true
	}
	fi, err := os.Stat(arg)
	return err == nil && fi.Mode().IsRegular()
}

// blobSource is a blob.Reader that also closes its Log.
type blobSource struct {
	*blob.Reader
	log *blob.Log
}

func (s *blobSource) Close() error {
	err := s.Reader.Close()
	if cerr := s.log.Close(); err == nil {
		err = cerr
	}
	return err
}

// jsonlSource reads a canonical JSONL file with the fencing rule of the
// blob reader (docs/format.md): events of epoch e with a seq at or past the
// first seq of a later epoch were written by a fenced master and are
// dropped with a notice. The first seq of each epoch comes from a first
// pass over the file, so the rule holds whatever order the lines are in.
type jsonlSource struct {
	path    string
	f       *os.File
	r       *format.JSONReader
	fences  map[int32]fence
	run     *format.Notice // open run of fenced rows
	notices []format.Notice
	anySeq  bool  // no gap check (validate)
	last    int64 // seq of the last event returned; 0 before the first
}

// fence is where a later epoch took over from an earlier one.
type fence struct {
	epoch int32 // the later epoch
	seq   int64 // its first seq
}

func openJSONL(path string, anySeq bool) (*jsonlSource, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &noLogError{url: path}
		}
		return nil, err
	}
	fences, events, bad, err := scanFences(f, anySeq)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if events == 0 && !bad {
		f.Close()
		return nil, &noLogError{url: path} // empty, as a bucket without segments
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &jsonlSource{path: path, f: f, r: format.NewJSONReader(f), fences: fences, anySeq: anySeq}, nil
}

// scanFences reads every event of r and returns, for each epoch followed
// by a later one, the first seq of the earliest later epoch, with the
// number of events read. A syntax error ends the scan (bad is true): the
// second pass reports it where it is. An event whose seq is below 1
// (written so, or a missing seq after the largest one) is an error naming
// the event: no reader of the file would show it.
func scanFences(r io.Reader, anySeq bool) (fences map[int32]fence, events int64, bad bool, err error) {
	first := make(map[int32]int64)
	jr := format.NewJSONReader(r)
	for {
		e, rerr := jr.Next()
		if rerr != nil {
			bad = rerr != io.EOF
			break
		}
		events++
		if e.Seq < 1 && !anySeq {
			return nil, events, false, fmt.Errorf("event %d (%s): seq %d: want a seq >= 1 (a missing seq is the previous seq + 1, which must not pass %d)",
				events, e.Kind, e.Seq, int64(math.MaxInt64))
		}
		if s, ok := first[e.Epoch]; !ok || e.Seq < s {
			first[e.Epoch] = e.Seq
		}
	}
	epochs := make([]int32, 0, len(first))
	for e := range first {
		epochs = append(epochs, e)
	}
	sort.Slice(epochs, func(i, j int) bool { return epochs[i] > epochs[j] })
	fences = make(map[int32]fence)
	var next *fence
	for _, e := range epochs { // newest first
		if next != nil {
			fences[e] = *next
		}
		if next == nil || first[e] < next.seq {
			next = &fence{epoch: e, seq: first[e]}
		}
	}
	return fences, events, bad, nil
}

func (s *jsonlSource) Next() (format.Event, error) {
	for {
		e, err := s.r.Next()
		if err != nil {
			s.endRun()
			if err == io.EOF {
				return format.Event{}, io.EOF
			}
			return format.Event{}, fmt.Errorf("%s: %w", s.path, err)
		}
		if f, ok := s.fences[e.Epoch]; ok && e.Seq >= f.seq {
			s.addFenced(&e, f)
			continue
		}
		s.endRun()
		if !s.anySeq && e.Seq != s.last+1 {
			return format.Event{}, &blob.CorruptError{Key: s.path, Err: blob.SeqGapError(s.last, e.Seq)}
		}
		s.last = e.Seq
		return e, nil
	}
}

func (s *jsonlSource) addFenced(e *format.Event, f fence) {
	if s.run != nil && s.run.Epoch == e.Epoch && s.run.Seq+s.run.Count == e.Seq {
		s.run.Count++
	} else {
		s.endRun()
		s.run = &format.Notice{Kind: format.NoticeFenced, Key: s.path, Seq: e.Seq, Epoch: e.Epoch, Count: 1}
	}
	s.run.Message = fmt.Sprintf("%d row%s of fenced epoch %d from seq %d (epoch %d starts at seq %d); filtered",
		s.run.Count, plural(int(s.run.Count)), s.run.Epoch, s.run.Seq, f.epoch, f.seq)
}

func (s *jsonlSource) endRun() {
	if s.run != nil {
		s.notices = append(s.notices, *s.run)
		s.run = nil
	}
}

// Key returns the file's path.
func (s *jsonlSource) Key() string { return s.path }

// Notices drains the runs of fenced rows skipped so far.
func (s *jsonlSource) Notices() []format.Notice {
	n := s.notices
	s.notices = nil
	return n
}

// Close closes the file.
func (s *jsonlSource) Close() error { return s.f.Close() }
