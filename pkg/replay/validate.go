package replay

import (
	"errors"
	"fmt"
	"io"

	"github.com/jobevent/jobevent/internal/quote"
	"github.com/jobevent/jobevent/pkg/format"
)

// Validate reads src to its end and returns what is wrong with the log,
// in log order; nil for a well-formed log. The rules are listed, with
// their ids, in the package documentation. Notices of a Noticer source
// become findings (fenced rows and a torn tail are warnings), and an error
// of src other than io.EOF is an error finding that ends the validation:
// schema-version for format.ErrUnknownVersion, syntax for
// format.ErrSyntax, corrupt for anything else.
//
// Validate streams: its memory grows with the job (per-vertex and
// per-subtask state), never with the length of the log.
func Validate(src Source, opts ValidateOptions) []Finding {
	v := newValidator(src, opts)
	v.run()
	return v.findings
}

// flinkSkippedRules are the rules of the event model that do not apply to
// a Flink log (one whose masters are Flink JobMasters, read from Flink's
// job-events or imported from them): Flink records no starts, no
// failures, no times and no epoch objects, and the reader synthesizes the
// job_submitted and master_started events, so these would report what
// Flink never writes. Coordinator snapshots are keyed by OperatorID,
// which is the vertex's id only for the head of a chain: a snapshot of
// another operator is no finding.
var flinkSkippedRules = map[string]bool{
	RuleFinishWithoutStart:  true,
	RuleAttemptOverlap:      true,
	RuleFencedWrite:         true,
	RuleEpochStartSeq:       true,
	RuleEpochUnclaimed:      true,
	RuleEpochUnused:         true,
	RuleUnknownObject:       true,
	RuleSnapshotCoordinator: true,
}

// validator is the state of one Validate call.
type validator struct {
	src     Source
	keyer   Keyer
	liner   Liner
	noticer Noticer
	claimer Claimer
	max     int
	torn    bool // a torn tail was noticed
	flink   bool // the log's masters are Flink's: its profile of the rules

	findings []Finding
	stopped  bool   // too many findings
	key      string // key of the current event
	line     int    // line of the current event (a Liner source), 0 if unknown

	events    int64 // events kept (not fenced)
	lastSeq   int64
	cur       int32           // highest epoch opened by master_started
	firstSeq  map[int32]int64 // epoch -> seq of its master_started
	epochSeq  map[int32]int64 // epoch -> seq of its first event kept
	inFenced  bool            // a run of fenced events is going on
	fencedRun int32           // the epoch of that run
	finished  int64           // seq of job_finished, 0 if none
	reported  bool            // after-job-finished reported

	topo *topology
	// lastVertex is the vertex id resolved last (validator.vertex).
	lastVertex struct {
		id    string
		index int32
		ok    bool
	}
	vs  []vVertex
	sub []vSub // dense: vs[v].base + subtask number
}

type vVertex struct {
	par      int32 // 0 while not initialized
	base     int32
	initSeq  int64
	finished int32 // subtasks in the finished map
}

type vSub struct {
	lastAttempt int32 // -1: none
	runAttempt  int32 // attempt started and not ended, -1: none
	runEpoch    int32
	inMap       bool
}

func newValidator(src Source, opts ValidateOptions) *validator {
	v := &validator{src: src, max: opts.MaxFindings, firstSeq: make(map[int32]int64), epochSeq: make(map[int32]int64), topo: newTopology(nil)}
	if v.max <= 0 {
		v.max = defaultMaxFindings
	}
	v.keyer, _ = src.(Keyer)
	v.liner, _ = src.(Liner)
	v.noticer, _ = src.(Noticer)
	v.claimer, _ = src.(Claimer)
	return v
}

func (v *validator) run() {
	if b, ok := v.src.(BatchSource); ok {
		v.runBatches(b)
		return
	}
	for !v.stopped {
		e, err := v.src.Next()
		v.drainNotices()
		if errors.Is(err, io.EOF) {
			v.end()
			return
		}
		if err != nil {
			v.sourceError(err)
			return
		}
		if v.keyer != nil {
			v.key = v.keyer.Key()
		}
		if v.liner != nil {
			v.line = v.liner.Line()
		}
		v.event(&e)
	}
}

// report records a finding about the current event.
func (v *validator) report(sev string, seq int64, rule, format string, args ...any) {
	v.add(Finding{Severity: sev, Seq: seq, Key: v.key, Rule: rule, Message: fmt.Sprintf(format, args...), Line: v.line})
}

// Liner is implemented by sources of text files (a JSONL log): Line
// returns the line number (from 1) of the event Next returned last.
// Validate puts it in the findings about that event.
type Liner interface {
	Line() int
}

// safe returns f with the text that may quote bytes from the log (the
// message and the object key) escaped (quote.Line): findings go to
// terminals, tables and CI annotations.
func safe(f Finding) Finding {
	f.Message, f.Key = quote.Line(f.Message), quote.Line(f.Key)
	return f
}

func (v *validator) errorf(e *format.Event, rule, format string, args ...any) {
	v.report(SeverityError, e.Seq, rule, format, args...)
}

// add records f; past the maximum it records too-many-findings instead
// and stops the validation.
func (v *validator) add(f Finding) {
	switch {
	case v.flink && flinkSkippedRules[f.Rule]:
	case v.stopped:
	case len(v.findings) >= v.max:
		v.findings = append(v.findings, Finding{Severity: SeverityWarning, Rule: RuleTooManyFindings,
			Message: fmt.Sprintf(findingsTruncatedTemplate, v.max)})
		v.stopped = true
	default:
		v.findings = append(v.findings, safe(f))
	}
}

func (v *validator) drainNotices() {
	if v.noticer == nil {
		return
	}
	for _, n := range v.noticer.Notices() {
		f := Finding{Severity: SeverityWarning, Seq: n.Seq, Key: n.Key, Message: n.Message, Line: n.Line}
		switch n.Kind {
		case format.NoticeFenced:
			f.Rule = RuleFencedWrite
			if f.Message == "" {
				f.Message = fmt.Sprintf("%d events of epoch %d written by a fenced master: replay ignores them", n.Count, n.Epoch)
			}
		case format.NoticeTornTail:
			f.Rule = RuleTornTail
			v.torn = true
		case format.NoticeUnknownObject:
			f.Rule = RuleUnknownObject
		default:
			continue // covered segments are what compaction leaves: nothing wrong
		}
		if f.Message == "" {
			f.Message = string(n.Kind)
		}
		v.add(f)
	}
}

// objectKeyer is implemented by errors that know the object they concern;
// a corrupt finding takes its key from it.
type objectKeyer interface{ ObjectKey() string }

func (v *validator) sourceError(err error) {
	f := Finding{Severity: SeverityError, Rule: RuleCorrupt, Message: err.Error()}
	switch {
	case errors.Is(err, format.ErrUnknownVersion):
		f.Rule = RuleSchemaVersion
	case errors.Is(err, format.ErrSyntax):
		f.Rule = RuleSyntax
	}
	var ok objectKeyer
	switch {
	case errors.As(err, &ok):
		f.Key = ok.ObjectKey()
	case f.Rule == RuleSyntax && v.keyer != nil:
		f.Key = v.keyer.Key() // a JSONL source: the file
	}
	if se := (*format.SyntaxError)(nil); errors.As(err, &se) {
		f.Line = se.Line
	}
	if v.lastSeq > 0 {
		f.Message = fmt.Sprintf("after seq %d: %s", v.lastSeq, f.Message)
	}
	v.add(f)
}

// event checks one event.
func (v *validator) event(e *format.Event) {
	if v.fenced(e) {
		return
	}
	if _, ok := v.epochSeq[e.Epoch]; !ok {
		v.epochSeq[e.Epoch] = e.Seq
	}
	v.order(e)
	if v.finished > 0 && !v.reported {
		v.reported = true
		v.errorf(e, RuleAfterJobFinished, "%s after job_finished at seq %d", e.Kind, v.finished)
	}
	switch e.Kind {
	case format.KindJobSubmitted:
		v.submitted(e)
	case format.KindMasterStarted:
		v.flink = v.flink || format.IsFlinkMaster(e.Master)
	case format.KindVertexInitialized:
		v.initialized(e)
	case format.KindSubtaskStarted:
		v.started(e)
	case format.KindSubtaskFinished, format.KindSubtaskFailed:
		v.ended(e)
	case format.KindSubtasksReset:
		v.reset(e)
	case format.KindSnapshot:
		v.snapshot(e)
	case format.KindJobFinished:
		v.jobFinished(e)
	default:
		v.errorf(e, RuleInvalidField, "unknown kind %q", e.Kind)
	}
}

// fenced reports whether e is of an epoch lower than the current one, and
// reports it: a fenced write when its seq is at or past the first seq of a
// later epoch, an epoch out of order otherwise.
func (v *validator) fenced(e *format.Event) bool {
	if e.Epoch >= v.cur || e.Epoch < 1 {
		v.inFenced = false
		return false // an epoch below 1 is reported by order
	}
	fence := int64(-1)
	for ep, s := range v.firstSeq {
		if ep > e.Epoch && (fence < 0 || s < fence) {
			fence = s
		}
	}
	if e.Seq < fence {
		v.inFenced = false
		v.errorf(e, RuleEpochOrder, "epoch %d after epoch %d, before the seq %d where epoch %d began", e.Epoch, v.cur, fence, v.cur)
		return true
	}
	if !v.inFenced || v.fencedRun != e.Epoch {
		v.inFenced, v.fencedRun = true, e.Epoch
		v.report(SeverityWarning, e.Seq, RuleFencedWrite, "events of epoch %d written after epoch %d took over: a fenced master; replay ignores them", e.Epoch, v.cur)
	}
	return true
}

// order checks the first events, seq continuity and epoch openings.
func (v *validator) order(e *format.Event) {
	switch {
	case v.events == 0 && e.Kind != format.KindJobSubmitted:
		v.errorf(e, RuleJobSubmitted, "the log starts with %s, want job_submitted", e.Kind)
	case v.events > 0 && e.Kind == format.KindJobSubmitted:
		v.errorf(e, RuleJobSubmitted, "job_submitted again (the first was seq 1)")
	}
	switch {
	case v.events == 0 && e.Seq != 1:
		v.errorf(e, RuleSeqOrder, "the first seq is %d, want 1", e.Seq)
	case v.events > 0 && e.Seq != v.lastSeq+1:
		v.errorf(e, RuleSeqOrder, "seq %d after %d, want %d", e.Seq, v.lastSeq, v.lastSeq+1)
	}
	if e.Epoch < 1 {
		v.errorf(e, RuleEpochOrder, "epoch %d: epochs start at 1", e.Epoch)
	}
	v.events++
	v.lastSeq = e.Seq
	// The second event opens the first master's epoch. It is of a later
	// epoch only when that master died right after job_submitted was
	// durable and a recovering master took over.
	if v.events == 2 && (e.Kind != format.KindMasterStarted || (e.Epoch != 1 && !e.Recovering)) {
		v.errorf(e, RuleEpochStart, "the second event is %s of epoch %d, want master_started of epoch 1", e.Kind, e.Epoch)
		v.open(e)
		return
	}
	switch {
	case e.Kind == format.KindJobSubmitted:
	case e.Kind == format.KindMasterStarted && e.Epoch == v.cur:
		v.errorf(e, RuleEpochStart, "master_started again in epoch %d (it began at seq %d)", e.Epoch, v.firstSeq[e.Epoch])
	case e.Kind == format.KindMasterStarted:
		v.open(e)
	case e.Epoch > v.cur:
		v.errorf(e, RuleEpochStart, "epoch %d begins with %s, want master_started", e.Epoch, e.Kind)
		v.open(e)
	}
}

func (v *validator) open(e *format.Event) {
	if e.Epoch > v.cur {
		v.cur = e.Epoch
		v.firstSeq[e.Epoch] = e.Seq
	}
}
