// Package logsource resolves a LOG argument once, for every command: a
// jobevent log on a bucket, a canonical .jsonl file, a Flink job-events
// directory, or a Flink HA storage directory that holds one job. Open
// classifies the argument (every request to a bucket bounded in time,
// the probe that recognises a Flink directory included), opens it, and
// returns a Source: the log's events in order, with what the log can do
// beyond that offered through small optional interfaces, discovered by
// type assertion, as hashicorp/raft's Transport offers WithClose and
// WithPreVote:
//
//	WithProjection  decode only some fields (bucket logs)
//	WithNames       vertex names (Flink logs: from the plan)
//	WithTimes       whether events carry times (absent: they do)
//	WithSettings    the job's recovery settings (job.yaml, Flink's config)
//	WithFindings    findings of the log's own format (validate)
//	WithAssumptions what the reading of the log assumes (replay --strict)
//	WithLostWorkers workers known to be gone (Flink's REST API)
//	WithTotal       how many events a read will return (progress)
//	WithRecover     the log can be recovered in place (bucket logs)
//	replay.Claimer  the epoch objects (bucket logs)
//	replay.BatchSource  events a batch at a time (bucket logs)
//
// A command never checks a concrete source type: it asks for a
// capability and does without it when the log has none.
//
// The rule profile a log is planned with is carried by the log itself:
// replay.State takes the Flink profile from the masters of a Flink log
// (or of a log imported from one), so every path that folds plans alike.
package logsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// Kind is what a LOG argument names.
type Kind uint8

// The kinds of LOG.
const (
	KindNone   Kind = iota // nothing there (yet)
	KindBucket             // a jobevent log on a bucket
	KindJSONL              // a canonical JSONL file, or "-"
	KindFlink              // a Flink job-events directory
)

// String names the kind as messages do.
func (k Kind) String() string {
	switch k {
	case KindBucket:
		return "jobevent log"
	case KindJSONL:
		return ".jsonl log"
	case KindFlink:
		return "Flink job-events directory"
	case KindArchive:
		return "archive of jobevent watch"
	}
	return "nothing"
}

// Source is an opened LOG: its events in log order, with fenced rows of
// superseded masters already filtered out.
type Source interface {
	// Next returns the next event, or io.EOF after the last one.
	Next() (format.Event, error)
	// Key names where the last event came from: an object key, a file
	// and offset, or the path of a JSONL file.
	Key() string
	// Notices drains what the source passed over so far: torn tails,
	// fenced rows, unknown objects, assumptions.
	Notices() []format.Notice
	// Close releases the source.
	Close() error
	// Info describes the log.
	Info() Info
}

// Info describes an opened LOG.
type Info struct {
	Arg  string // the argument as given
	URL  string // the canonical URL or path
	Kind Kind
	// Job is the job id the path or the plan names ("" when neither
	// does); the events' own job id comes first where they have one.
	Job string
}

// WithProjection is a source that can decode only some fields of its
// events. Project must be called before the first Next.
type WithProjection interface {
	Project(fields format.Fields)
}

// WithNames is a source that knows its vertices' names: vertex id to
// name.
type WithNames interface {
	Names() map[string]string
}

// Times says where the times of a log's events come from.
type Times uint8

// The kinds of times.
const (
	TimesRecorded Times = iota // written by the master with each event
	TimesNone                  // the log has none (Flink): every time is zero
)

// WithTimes is a source that says where its events' times come from; a
// source without it has recorded times.
type WithTimes interface {
	Times() Times
}

// EventTimes returns where src's times come from.
func EventTimes(src Source) Times {
	if t, ok := src.(WithTimes); ok {
		return t.Times()
	}
	return TimesRecorded
}

// WithSettings is a source that knows the job's recovery settings, as a
// recovering master reads them. note, when not "", is the assumption the
// settings rest on (no job.yaml), for stderr.
type WithSettings interface {
	PlanOptions(ctx context.Context) (po replay.PlanOptions, note string, err error)
}

// WithFindings is a source whose format has findings of its own beside
// the event model's rules (a Flink log's numbering gaps, user
// accumulators), and whose log skips some of the model's rules.
type WithFindings interface {
	// Findings returns the format's findings: head to come before the
	// event model's, tail after. It drains the notices it reports.
	Findings() (head, tail []replay.Finding)
}

// WithAssumptions is a source whose events rest on assumptions of the
// mapping (a Flink log's coordinator kinds or dataset producers that
// neither the log nor Flink's storage tells): each one line, as its
// notices say them. replay --dry-run --strict fails on any.
type WithAssumptions interface {
	Assumptions() []string
}

// WithLostWorkers is a source that knows workers that are gone (a Flink
// log read with --flink-rest: the TaskManagers no longer registered):
// the default availability of a dry run drops their partitions. why says
// so, for stderr.
type WithLostWorkers interface {
	LostWorkers() (lost []string, why string)
}

// WithTotal is a source that can tell how many events a read between
// since and until (inclusive, 0 = unbounded) returns, as far as its
// listing tells (0: unknown).
type WithTotal interface {
	Total(ctx context.Context, since, until int64) int64
}

// WithRecover is a log that a master can recover in place.
type WithRecover interface {
	// RecoverURL returns the URL a master recovers the log at.
	RecoverURL() string
	// Unreadable reports whether err, from reading the log, means that a
	// recovering master could not replay it either (and restarts the job).
	Unreadable(err error) bool
}

// ReadOnlyError is the error of a recovery asked of a log that cannot be
// recovered in place: it says why, and what to do instead.
type ReadOnlyError struct {
	Arg string
	Why string
}

func (e *ReadOnlyError) Error() string { return e.Arg + " " + e.Why }

// Recoverable returns the URL a master recovers src's log at, or a
// *ReadOnlyError saying why it cannot.
func Recoverable(ctx context.Context, src Source) (string, error) {
	if r, ok := src.(interface {
		readOnly(context.Context) error
	}); ok {
		if err := r.readOnly(ctx); err != nil {
			return "", err
		}
	}
	if r, ok := src.(WithRecover); ok {
		return r.RecoverURL(), nil
	}
	return "", &ReadOnlyError{Arg: src.Info().Arg, Why: "cannot be recovered in place"}
}

// Options selects what Open reads.
type Options struct {
	Since, Until int64 // seq bounds, inclusive; 0 = unbounded
	// Follow keeps reading new events until the context is done (bucket
	// logs only); Poll is how often it looks.
	Follow bool
	Poll   time.Duration
	// AnySeq lets a JSONL file hold seqs below 1, and seqs that skip or
	// repeat, for validate, which reports them as findings.
	AnySeq bool
	// Stdin is what "-" reads (canonical JSONL); nil refuses "-".
	Stdin io.Reader
	// Raw reads a JSONL file as written, every line an event, without
	// the reader rules of a log (fencing, seq checks): import keeps what
	// it is given. Input, when set, wraps the file's bytes as they are
	// read (a progress bar), size 0 when unknown.
	Raw   bool
	Input func(r io.Reader, size int64) io.Reader
	// Flink is the side information of a Flink log given by flags; a
	// usage error (*FlinkOptionsError) for a log of another kind.
	Flink *FlinkOptions
}

// FlinkOptionsError is side information given for a log that is not a
// Flink log.
type FlinkOptionsError struct {
	Given []string // the flags, as "--name"
	Arg   string
}

func (e *FlinkOptionsError) Error() string {
	return fmt.Sprintf("%s applies to a Flink job-events directory only; %s is not one (no events.N files)", strings.Join(e.Given, " and "), e.Arg)
}

// Open resolves and opens the LOG arg. A missing or empty log is a
// *blob.NoLogError ("no event log at URL").
func Open(ctx context.Context, arg string, o Options) (Source, error) {
	if arg == "-" || IsJSONLPath(arg) {
		if err := o.Flink.refuse(arg); err != nil {
			return nil, err
		}
		return openJSONL(arg, o)
	}
	r, err := resolve(ctx, arg)
	if err != nil {
		return nil, err
	}
	switch r.kind {
	case KindFlink:
		return openFlink(ctx, r, o)
	case KindArchive:
		return openArchive(ctx, r, o)
	}
	defer r.close()
	if err := o.Flink.refuse(arg); err != nil {
		return nil, err
	}
	return openBucket(ctx, r, o)
}

// Classify says what arg names, without reading any event. A bucket or
// directory that does not exist is KindNone, not an error.
func Classify(ctx context.Context, arg string) (Kind, error) {
	if arg == "-" || IsJSONLPath(arg) {
		return KindJSONL, nil
	}
	r, err := resolve(ctx, arg)
	var nl *blob.NoLogError
	if errors.As(err, &nl) {
		return KindNone, nil
	}
	if err != nil {
		return KindNone, err
	}
	defer r.close()
	if r.kind == KindFlink || r.kind == KindArchive {
		return r.kind, nil
	}
	ok, err := r.bucket.Log().Exists(ctx)
	if err != nil || !ok {
		return KindNone, err
	}
	return KindBucket, nil
}

// IsJSONLPath reports whether a LOG argument names a JSONL file rather
// than a bucket: no URL scheme, and a .jsonl name or an existing regular
// file.
func IsJSONLPath(arg string) bool {
	if strings.Contains(arg, "://") {
		return false
	}
	if strings.HasSuffix(arg, ".jsonl") {
		return true
	}
	fi, err := os.Stat(arg)
	return err == nil && fi.Mode().IsRegular()
}

// IsNoLog reports whether err says that there is no log (yet) where one
// was looked for.
func IsNoLog(err error) bool {
	var nl *blob.NoLogError
	return errors.Is(err, blob.ErrNoLog) || errors.As(err, &nl)
}
