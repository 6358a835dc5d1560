package logsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
	"github.com/jobevent/jobevent/pkg/runtime"
)

// bucketSource is a jobevent log on a bucket: a blob.Reader that also
// owns its Log.
type bucketSource struct {
	*blob.Reader
	log  *blob.Log
	info Info
}

var (
	_ Source             = (*bucketSource)(nil)
	_ WithProjection     = (*bucketSource)(nil)
	_ WithSettings       = (*bucketSource)(nil)
	_ WithTotal          = (*bucketSource)(nil)
	_ WithRecover        = (*bucketSource)(nil)
	_ replay.Claimer     = (*bucketSource)(nil)
	_ replay.BatchSource = (*bucketSource)(nil)
)

func openBucket(ctx context.Context, r *resolved, o Options) (Source, error) {
	log := r.bucket.Log()
	ok, err := log.Exists(ctx)
	if err == nil && !ok {
		err = &blob.NoLogError{URL: r.arg}
		if below := logsBelow(ctx, r); len(below) > 0 {
			err = &LogsBelowError{Arg: r.arg, Logs: below}
		}
	}
	if err != nil {
		return nil, err
	}
	rd, err := log.NewReader(ctx, blob.ReaderOptions{Since: o.Since, Until: o.Until, Follow: o.Follow, PollInterval: o.Poll})
	if err != nil {
		return nil, err
	}
	// The reader now owns the connection: resolve's close must not close it.
	r.root = nil
	return &bucketSource{Reader: rd, log: log, info: Info{Arg: r.arg, URL: log.URL(), Kind: KindBucket}}, nil
}

func (s *bucketSource) Info() Info { return s.info }

func (s *bucketSource) Close() error {
	err := s.Reader.Close()
	if cerr := s.log.Close(); err == nil {
		err = cerr
	}
	return err
}

// Project decodes only fields of each event (blob.Reader.Project).
func (s *bucketSource) Project(fields format.Fields) { s.Reader.Project(fields) }

// PlanOptions reads the job's settings from the job.yaml in the log.
func (s *bucketSource) PlanOptions(ctx context.Context) (replay.PlanOptions, string, error) {
	po, found, err := runtime.LogPlanOptions(ctx, s.log)
	if err != nil || found {
		return po, "", err
	}
	return po, fmt.Sprintf("%s holds no job.yaml: the plan assumes the job's recovery is enabled (the default); a master cannot resume it without one", s.log.URL()), nil
}

// Total is the seq range that the log's segments span, cut to the bounds;
// fenced rows can make it a little high.
func (s *bucketSource) Total(ctx context.Context, since, until int64) int64 {
	segs, err := s.log.Segments(ctx)
	if err != nil || len(segs) == 0 {
		return 0
	}
	first, last := segs[0].First, segs[0].Last
	for _, sg := range segs {
		first, last = min(first, sg.First), max(last, sg.Last)
	}
	if since > first {
		first = since
	}
	if until > 0 && until < last {
		last = until
	}
	return max(last-first+1, 0)
}

// Claims returns the log's epoch objects as its reader listed them last.
func (s *bucketSource) Claims() []replay.EpochClaim {
	epochs := s.Reader.Epochs()
	claims := make([]replay.EpochClaim, len(epochs))
	for i, e := range epochs {
		claims[i] = replay.EpochClaim{Epoch: e.Epoch, StartSeq: e.StartSeq, Key: fmt.Sprintf("%s%08x", blob.EpochsDir, uint32(e.Epoch))}
	}
	return claims
}

// RecoverURL is the log's URL.
func (s *bucketSource) RecoverURL() string { return s.log.URL() }

// Unreadable reports corruption and unknown major versions: a recovering
// master cannot replay those either.
func (s *bucketSource) Unreadable(err error) bool {
	return blob.IsCorrupt(err) || errors.Is(err, format.ErrUnknownVersion)
}

// readOnly refuses the recovery of a log imported from a Flink log: it
// records what Flink did, and jobevent cannot run Flink's job.
func (s *bucketSource) readOnly(ctx context.Context) error {
	rd, err := s.log.NewReader(ctx, blob.ReaderOptions{Until: 2})
	if err != nil {
		return nil // the recovery reports it
	}
	defer rd.Close()
	for {
		e, err := rd.Next()
		if err != nil {
			return nil
		}
		if e.Kind == format.KindMasterStarted {
			if format.IsFlinkMaster(e.Master) {
				return &ReadOnlyError{Arg: s.info.Arg, Why: "was imported from a Flink log: it records what Flink did, and jobevent cannot run Flink's job; use --dry-run"}
			}
			return nil
		}
	}
}

// jsonlSource is a canonical JSONL file, read-only.
type jsonlSource struct {
	replay.Source
	keyer   replay.Keyer
	noticer replay.Noticer
	closer  io.Closer
	info    Info
}

var _ WithSettings = (*jsonlSource)(nil)

func openJSONL(arg string, o Options) (Source, error) {
	if o.Follow {
		return nil, fmt.Errorf("%s: --follow needs a bucket log, not a JSONL file", arg)
	}
	info := Info{Arg: arg, URL: arg, Kind: KindJSONL}
	if arg == "-" || o.Raw {
		return openRawJSONL(arg, o, info)
	}
	r, err := blob.OpenJSONL(arg, blob.JSONLOptions{AnySeq: o.AnySeq})
	if err != nil {
		return nil, err // a missing or empty file is a *blob.NoLogError
	}
	return &jsonlSource{Source: r, keyer: r, noticer: r, closer: r, info: info}, nil
}

// openRawJSONL opens a JSONL file, or stdin for "-", read as written.
func openRawJSONL(arg string, o Options, info Info) (Source, error) {
	var in io.Reader
	var size int64
	name := arg
	src := &rawJSONLSource{jsonlSource: jsonlSource{info: info}}
	if arg == "-" {
		if o.Stdin == nil {
			return nil, errors.New("-: this command does not read a log from standard input")
		}
		in, name = o.Stdin, "stdin"
	} else {
		f, err := os.Open(arg)
		if err != nil {
			return nil, err
		}
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		in, src.closer = f, f
	}
	if o.Input != nil {
		in = o.Input(in, size)
	}
	src.r = &namedJSONReader{name: name, r: format.NewJSONReader(in)}
	src.Source = src.r
	return src, nil
}

// rawJSONLSource is a JSONL file or stdin read as written, which can
// decode an event in place (NextInto).
type rawJSONLSource struct {
	jsonlSource
	r *namedJSONReader
}

// NextInto decodes the next event into *e, overwriting it: import reads
// into its buffer of events directly.
func (s *rawJSONLSource) NextInto(e *format.Event) error { return s.r.NextInto(e) }

func (s *jsonlSource) Info() Info { return s.info }

func (s *jsonlSource) Key() string {
	if s.keyer == nil {
		return s.info.Arg
	}
	return s.keyer.Key()
}

func (s *jsonlSource) Notices() []format.Notice {
	if s.noticer == nil {
		return nil
	}
	return s.noticer.Notices()
}

func (s *jsonlSource) Close() error {
	if s.closer == nil {
		return nil
	}
	return s.closer.Close()
}

// PlanOptions are the defaults: a .jsonl log holds no job.yaml.
func (s *jsonlSource) PlanOptions(context.Context) (replay.PlanOptions, string, error) {
	return replay.PlanOptions{}, fmt.Sprintf("%s is a .jsonl log, which holds no job.yaml: the plan assumes the job's recovery is enabled (execution.batch.job-recovery.enabled: true, the default)", s.info.Arg), nil
}

func (s *jsonlSource) readOnly(context.Context) error {
	a := s.info.Arg
	return &ReadOnlyError{Arg: a, Why: fmt.Sprintf("is a .jsonl log, which is read-only: it cannot be recovered in place; import it into a log first (jobevent import %s LOG), then run jobevent replay LOG", a)}
}

// namedJSONReader prefixes syntax errors with the input's name.
type namedJSONReader struct {
	name string
	r    *format.JSONReader
}

func (r *namedJSONReader) Next() (format.Event, error) {
	var e format.Event
	if err := r.NextInto(&e); err != nil {
		return format.Event{}, err
	}
	return e, nil
}

func (r *namedJSONReader) NextInto(e *format.Event) error {
	err := r.r.NextInto(e)
	if err != nil && err != io.EOF {
		return fmt.Errorf("%s: %w", r.name, err)
	}
	return err
}

// LogsBelowError is a LOG argument that holds no log itself but logs
// below it (the directory "run" writes its jobs' logs into, say): the
// user meant one of them.
type LogsBelowError struct {
	Arg  string
	Logs []string // the arguments that name them
}

func (e *LogsBelowError) Error() string {
	n := len(e.Logs)
	what := fmt.Sprintf("the log %s", e.Logs[0])
	if n > 1 {
		what = fmt.Sprintf("%d logs, e.g. %s", n, e.Logs[0])
	}
	return fmt.Sprintf("no event log at %s, but it holds %s below it: name one (jobevent ls %s lists them)", e.Arg, what, e.Arg)
}

// maxBelow bounds how many directories logsBelow looks into.
const maxBelow = 64

// logsBelow returns the arguments naming the jobevent logs one level
// below r's bucket, for a bare path as paths, else as URLs.
func logsBelow(ctx context.Context, r *resolved) []string {
	_, dirs, err := listLevel(ctx, r.bucket, "")
	if err != nil {
		return nil
	}
	var out []string
	for i, d := range dirs {
		if i >= maxBelow {
			break
		}
		files, sub, err := listLevel(ctx, r.bucket, d)
		if err != nil || !(slices.Contains(files, d+blob.SpecKey) || slices.Contains(sub, d+blob.EventsDir)) {
			continue
		}
		if !strings.Contains(r.arg, "://") {
			out = append(out, strings.TrimSuffix(r.arg, "/")+"/"+strings.TrimSuffix(d, "/"))
		} else {
			out = append(out, r.bucket.Sub(d).URL())
		}
	}
	return out
}

// Line returns the line of the event read last (replay.Liner), for the
// findings of validate and CI annotations.
func (s *jsonlSource) Line() int {
	if l, ok := s.Source.(replay.Liner); ok {
		return l.Line()
	}
	return 0
}

// Line returns the line of the event read last.
func (r *namedJSONReader) Line() int { return r.r.Line() }
