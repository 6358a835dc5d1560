package logsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/jobevent/jobevent/pkg/flink"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// FlinkOptions is the side information of a Flink log given by flags: it
// overrides what the log and Flink's own storage say.
type FlinkOptions struct {
	// Plan is the job's plan (a saved REST plan, --flink-plan).
	Plan *flink.JobPlan
	// Coordinators gives coordinator kinds by vertex id or name
	// (--coordinator).
	Coordinators map[string]string
	// HA is where Flink's HA cluster directory is (--flink-ha), when not
	// two levels above the job-events directory.
	HA string
	// REST is the base URL of the Flink REST API of the running cluster
	// (--flink-rest): the job's plan and the live TaskManagers.
	REST string
	// Given names the flags that were set, as "--name", for messages.
	Given []string
}

// refuse returns the error of Flink side information given for arg, a
// log of another kind; nil when none was given.
func (o *FlinkOptions) refuse(arg string) error {
	if o == nil || len(o.Given) == 0 {
		return nil
	}
	return &FlinkOptionsError{Given: o.Given, Arg: arg}
}

// FlinkCorruptHint ends the error of a corrupt Flink log.
const FlinkCorruptHint = "Flink itself would fail to replay this log, delete it and restart the whole job"

// Notice kinds of a Flink log, beside format.NoticeTornTail.
const (
	NoticeFlinkNote format.NoticeKind = "flink_note" // an assumption of the mapping
	NoticeFlinkGap  format.NoticeKind = "flink_gap"  // a numbering gap hides later files
	NoticeFlinkName format.NoticeKind = "flink_name" // an events.* name that is no number
)

// Rules of validate's Flink profile, beside replay's rule ids.
const (
	// RuleFlinkGap: a file is missing from the numbering; Flink reads no
	// file after it.
	RuleFlinkGap = "flink-gap"
	// RuleFlinkName: an events.* name that is not a file number.
	RuleFlinkName = "flink-file-name"
	// RuleFlinkAccumulator: a user accumulator class that Flink reads with
	// the system class loader on replay.
	RuleFlinkAccumulator = "flink-user-accumulator"
)

// flinkSource is a Flink job-events directory, read-only.
type flinkSource struct {
	*flink.Source
	log     *flink.Log
	res     *resolved
	info    Info
	notices []format.Notice
	assumed []string
	rest    *flink.RESTInfo // nil without --flink-rest
}

var (
	_ Source          = (*flinkSource)(nil)
	_ WithAssumptions = (*flinkSource)(nil)
	_ WithNames       = (*flinkSource)(nil)
	_ WithTimes       = (*flinkSource)(nil)
	_ WithSettings    = (*flinkSource)(nil)
	_ WithFindings    = (*flinkSource)(nil)
)

func openFlink(ctx context.Context, r *resolved, o Options) (Source, error) {
	if o.Follow {
		r.close()
		return nil, &FollowError{Arg: r.arg}
	}
	var opts flink.Options
	if o.Flink != nil {
		opts.Plan, opts.Coordinators = o.Flink.Plan, o.Flink.Coordinators
	}
	opts.Job = r.job
	rest, err := withREST(ctx, r, o.Flink, &opts)
	if err == nil {
		err = withHADir(ctx, r, o.Flink)
	}
	if err != nil {
		r.close()
		return nil, err
	}
	opts, haNotices, err := withHA(ctx, r, opts)
	if err != nil {
		r.close()
		return nil, err
	}
	l, err := flink.Open(r.fsys(ctx), opts)
	if err == nil {
		var src *flink.Source
		if src, err = l.Events(); err == nil {
			notices := append(append(haNotices, flinkNotices(l)...), unmatchedCoordinators(l, opts.Coordinators)...)
			info := Info{Arg: r.arg, URL: r.bucket.URL(), Kind: KindFlink, Job: r.job}
			var assumed []string
			for _, n := range notices {
				if n.Kind == NoticeFlinkNote {
					assumed = append(assumed, strings.TrimPrefix(n.Message, "Flink log: "))
				}
			}
			return &flinkSource{Source: src, log: l, res: r, info: info, notices: notices, assumed: assumed, rest: rest}, nil
		}
	}
	r.close()
	return nil, flinkError(r.arg, err)
}

// FollowError refuses --follow on a log whose files are read as they
// are, once.
type FollowError struct{ Arg string }

func (e *FollowError) Error() string {
	return e.Arg + ": --follow needs a jobevent log; a Flink job-events directory is read as it is"
}

func (s *flinkSource) Info() Info { return s.info }

// Next returns the next event; a corrupt record says what Flink does.
func (s *flinkSource) Next() (format.Event, error) {
	e, err := s.Source.Next()
	if err != nil && err != io.EOF {
		return e, flinkError(s.info.Arg, err)
	}
	return e, err
}

// Notices returns, on the first call, the notes and warnings of the log:
// each is printed once.
func (s *flinkSource) Notices() []format.Notice {
	n := s.notices
	s.notices = nil
	return n
}

// Close closes the files and the bucket.
func (s *flinkSource) Close() error {
	err := s.Source.Close()
	s.res.close()
	return err
}

// Assumptions are what the mapping of the log assumed.
func (s *flinkSource) Assumptions() []string { return s.assumed }

// Names returns the vertex names the plan gave.
func (s *flinkSource) Names() map[string]string { return s.log.Names() }

// Times: Flink records none.
func (s *flinkSource) Times() Times { return TimesNone }

// PlanOptions: a Flink JobMaster writes job-events only when recovery is
// enabled, so a Flink log's recovery is on.
func (s *flinkSource) PlanOptions(context.Context) (replay.PlanOptions, string, error) {
	return replay.PlanOptions{}, "", nil
}

func (s *flinkSource) readOnly(context.Context) error {
	return &ReadOnlyError{Arg: s.info.Arg, Why: "is a Flink job-events directory: Flink recovers its own job (a new JobMaster replays this log); jobevent cannot. Use --dry-run to see what Flink will keep and rerun; to keep the log after Flink deletes it, import it (jobevent import FLINK_DIR LOG)"}
}

// Findings are the warnings of the Flink format: numbering gaps, names
// that are not file numbers and torn records (head: they are what the
// notices said, which it drains), and user accumulators (tail).
func (s *flinkSource) Findings() (head, tail []replay.Finding) {
	s.notices = nil
	for _, w := range s.log.Warnings() {
		_, rule, msg := warning(w)
		head = append(head, replay.Finding{Severity: replay.SeverityWarning, Rule: rule, Key: w.File, Message: msg})
	}
	return head, userAccumulators(s.log)
}

// CorruptFinding returns the error finding of err, from opening or
// reading a Flink log, when it is a record Flink fails on.
func CorruptFinding(err error) (replay.Finding, bool) {
	ce, ok := asCorrupt(err)
	if !ok {
		return replay.Finding{}, false
	}
	return replay.Finding{Severity: replay.SeverityError, Rule: replay.RuleCorrupt, Key: ce.File,
		Message: ce.Error() + ": " + FlinkCorruptHint}, true
}

// flinkError adds to a Flink log's error the log's name and, for a record
// Flink fails on, what Flink does with the log.
func flinkError(arg string, err error) error {
	if flink.IsCorrupt(err) {
		return &flinkCorrupt{msg: fmt.Sprintf("%s: corrupt Flink log: %v; %s", arg, err, FlinkCorruptHint), err: err}
	}
	return fmt.Errorf("%s: %w", arg, err)
}

// flinkCorrupt is a corrupt Flink log's error: its message says what
// Flink does, and it unwraps to the *flink.CorruptError.
type flinkCorrupt struct {
	msg string
	err error
}

func (e *flinkCorrupt) Error() string { return e.msg }
func (e *flinkCorrupt) Unwrap() error { return e.err }

// flinkNotices turns the notes and warnings of l into notices.
func flinkNotices(l *flink.Log) []format.Notice {
	var out []format.Notice
	for _, n := range l.Notes() {
		out = append(out, format.Notice{Kind: NoticeFlinkNote, Message: "Flink log: " + n})
	}
	for _, w := range l.Warnings() {
		kind, _, msg := warning(w)
		out = append(out, format.Notice{Kind: kind, Key: w.File, Message: msg})
	}
	return out
}

// warning classifies a warning of the Flink reader: the notice kind it
// is, the validate rule it is a finding of, and its message.
func warning(w flink.Warning) (kind format.NoticeKind, rule, msg string) {
	switch w.Kind {
	case flink.WarnTorn, flink.WarnSkipped:
		return format.NoticeTornTail, replay.RuleTornTail, fmt.Sprintf("offset %d: %s", w.Offset, w.Msg)
	case flink.WarnGap:
		return NoticeFlinkGap, RuleFlinkGap, w.Msg
	}
	return NoticeFlinkName, RuleFlinkName, w.Msg
}

// unmatchedCoordinators warns about --coordinator values that name no
// vertex of the log (by id, or by name from --flink-plan): they change
// nothing, and are never silently ignored.
func unmatchedCoordinators(l *flink.Log, kinds map[string]string) []format.Notice {
	known := map[string]bool{}
	for _, v := range l.Graph().Vertices {
		known[v.ID] = true
	}
	for _, n := range l.Names() {
		known[n] = true
	}
	var out []format.Notice
	for v := range kinds {
		if !known[v] {
			out = append(out, format.Notice{Kind: NoticeFlinkNote, Message: fmt.Sprintf("--coordinator %s=%s names no vertex of the log (by 32-hex id, or by name from --flink-plan): it changes nothing", v, kinds[v])})
		}
	}
	slices.SortFunc(out, func(a, b format.Notice) int { return strings.Compare(a.Message, b.Message) })
	return out
}

// userAccumulators warns, once per class, about the accumulators whose
// class is neither Flink's nor the JDK's: Flink deserializes them with
// the system class loader when it replays the log, and fails the replay
// (deleting the log and restarting the whole job) when the class is only
// in the job's jar.
func userAccumulators(l *flink.Log) []replay.Finding {
	var out []replay.Finding
	for _, a := range l.Accumulators() {
		if strings.HasPrefix(a.Class, "org.apache.flink.") || strings.HasPrefix(a.Class, "java.") {
			continue
		}
		out = append(out, replay.Finding{Severity: replay.SeverityWarning, Rule: RuleFlinkAccumulator, Key: fmt.Sprintf("%s@%d", a.File, a.Offset),
			Message: fmt.Sprintf("accumulator %q is of class %s: Flink reads it with the system class loader when it replays this log; if the class is only in the job's jar, Flink fails the replay, deletes the log and restarts the whole job", a.Name, a.Class)})
	}
	return out
}

func asCorrupt(err error) (*flink.CorruptError, bool) {
	var ce *flink.CorruptError
	ok := errors.As(err, &ce)
	return ce, ok
}
