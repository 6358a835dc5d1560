package replay_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

const validateCases = "../../testdata/validate"

// TestValidate_Corpus runs every log under testdata/validate: good.jsonl
// has no finding, and <rule>.jsonl exactly one finding of that rule, with
// the severity and seq of the table.
func TestValidate_Corpus(t *testing.T) {
	want := map[string]struct {
		severity string
		seq      int64
	}{
		replay.RuleSchemaVersion:        {replay.SeverityError, 0},
		replay.RuleSyntax:               {replay.SeverityError, 0},
		replay.RuleCorrupt:              {replay.SeverityError, 0},
		replay.RuleTornTail:             {replay.SeverityWarning, 23},
		replay.RuleUnknownObject:        {replay.SeverityWarning, 0},
		replay.RuleFencedWrite:          {replay.SeverityWarning, 17},
		replay.RuleJobSubmitted:         {replay.SeverityError, 12},
		replay.RuleInvalidGraph:         {replay.SeverityError, 1},
		replay.RuleEpochStart:           {replay.SeverityError, 17},
		replay.RuleEpochOrder:           {replay.SeverityError, 16},
		replay.RuleSeqOrder:             {replay.SeverityError, 21},
		replay.RuleUnknownVertex:        {replay.SeverityError, 9},
		replay.RuleSubtaskRange:         {replay.SeverityError, 9},
		replay.RuleVertexNotInitialized: {replay.SeverityError, 18},
		replay.RuleVertexReinitialized:  {replay.SeverityError, 12},
		replay.RuleParallelism:          {replay.SeverityError, 13},
		replay.RuleAttemptOrder:         {replay.SeverityError, 19},
		replay.RuleAttemptOverlap:       {replay.SeverityError, 15},
		replay.RuleFinishWithoutStart:   {replay.SeverityError, 21},
		replay.RuleFinishedTwice:        {replay.SeverityError, 22},
		replay.RuleConsumerBeforeInputs: {replay.SeverityError, 13},
		replay.RuleUnknownPartition:     {replay.SeverityError, 16},
		replay.RuleSnapshotCoordinator:  {replay.SeverityError, 12},
		replay.RuleInvalidField:         {replay.SeverityError, 31},
		replay.RuleAfterJobFinished:     {replay.SeverityError, 32},
	}
	files, err := filepath.Glob(filepath.Join(validateCases, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no logs under %s (%v)", validateCases, err)
	}
	seen := make(map[string]bool)
	for _, path := range files {
		rule := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(rule, func(t *testing.T) {
			got := replay.Validate(openCorpus(t, path), replay.ValidateOptions{})
			if rule == "good" {
				if len(got) != 0 {
					t.Fatalf("findings = %v, want none", got)
				}
				return
			}
			w, ok := want[rule]
			if !ok {
				t.Fatalf("no expectation for %s", rule)
			}
			seen[rule] = true
			if len(got) != 1 {
				t.Fatalf("findings = %v, want one %s", got, rule)
			}
			f := got[0]
			if f.Rule != rule || f.Severity != w.severity || f.Seq != w.seq || f.Message == "" {
				t.Fatalf("finding = %+v, want rule %s, severity %s, seq %d", f, rule, w.severity, w.seq)
			}
		})
	}
	for rule := range want {
		if !seen[rule] {
			t.Errorf("rule %s has no log under %s", rule, validateCases)
		}
	}
}

// corpusSource reads a JSONL log of the corpus and plays what its
// <rule>.inject.json says the source reports after a seq: notices, or an
// error in place of the next event.
type corpusSource struct {
	r        *format.JSONReader
	key      string
	inject   injection
	notices  []format.Notice
	injected bool
}

type injection struct {
	AfterSeq int64           `json:"after_seq"`
	Notices  []format.Notice `json:"notices"`
	Error    string          `json:"error"` // "version" or "corrupt"
	Key      string          `json:"key"`
}

// objectError is a damaged object, as a bucket reader reports it.
type objectError struct {
	key string
	err error
}

func (e *objectError) Error() string     { return e.key + ": " + e.err.Error() }
func (e *objectError) Unwrap() error     { return e.err }
func (e *objectError) ObjectKey() string { return e.key }

func openCorpus(t *testing.T, path string) *corpusSource {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := &corpusSource{r: format.NewJSONReader(strings.NewReader(string(data))), key: filepath.Base(path)}
	inj, err := os.ReadFile(strings.TrimSuffix(path, ".jsonl") + ".inject.json")
	if err == nil {
		if err := json.Unmarshal(inj, &s.inject); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return s
}

func (s *corpusSource) Next() (format.Event, error) {
	e, err := s.r.Next()
	if !s.injected && s.inject.AfterSeq > 0 && (err != nil || e.Seq > s.inject.AfterSeq) {
		s.injected = true
		s.notices = append(s.notices, s.inject.Notices...)
		switch s.inject.Error {
		case "version":
			return format.Event{}, &objectError{s.inject.Key, &format.VersionError{Version: "2.0", Supported: []string{"1.x"}}}
		case "corrupt":
			return format.Event{}, &objectError{s.inject.Key, fmt.Errorf("page 3: %w", format.ErrCorrupt)}
		}
	}
	return e, err
}

func (s *corpusSource) Key() string { return s.key }

func (s *corpusSource) Notices() []format.Notice {
	n := s.notices
	s.notices = nil
	return n
}

// TestValidate_Generated checks that every log loggen writes is
// well-formed, whatever its options.
func TestValidate_Generated(t *testing.T) {
	for seed := int64(1); seed <= 40; seed++ {
		o := loggen.Options{
			Seed: seed, Vertices: 2 + int(seed%6), Sources: 1 + int(seed%2), MaxParallelism: int32(1 + seed%7),
			AutoFraction: 0.3, FailureRate: float64(seed%4) / 10, PartitionLossRate: float64(seed%3) / 20,
			Failovers: int(seed % 3), LoseWorkerOnFailover: seed%2 == 0, SnapshotEvery: int(seed % 5),
		}
		if fs := replay.Validate(loggen.Job(o), replay.ValidateOptions{}); len(fs) != 0 {
			t.Fatalf("seed %d: findings %v", seed, fs)
		}
	}
}

// TestValidate_Notices turns every notice kind into its finding, and the
// damaged object's key into the finding's key.
func TestValidate_Notices(t *testing.T) {
	src := &noticeSource{notices: []format.Notice{
		{Kind: format.NoticeFenced, Key: "events/a", Seq: 7, Epoch: 1, Count: 3},
		{Kind: format.NoticeCovered, Key: "events/b", Message: "covered by events/c"},
		{Kind: format.NoticeTornTail, Key: "events/d", Message: "torn"},
	}, err: &objectError{"events/e", format.ErrCorrupt}}
	got := replay.Validate(src, replay.ValidateOptions{})
	var rules []string
	for _, f := range got {
		rules = append(rules, f.Rule+"@"+f.Key)
	}
	want := "fenced-write@events/a torn-tail@events/d corrupt@events/e"
	if strings.Join(rules, " ") != want {
		t.Fatalf("findings = %v, want %s", got, want)
	}
	if !strings.Contains(got[0].Message, "3 events of epoch 1") {
		t.Fatalf("fenced message = %q, want it to count the events", got[0].Message)
	}
}

// noticeSource has no events: it reports notices, then fails.
type noticeSource struct {
	notices []format.Notice
	err     error
}

func (s *noticeSource) Next() (format.Event, error) { return format.Event{}, s.err }

func (s *noticeSource) Notices() []format.Notice {
	n := s.notices
	s.notices = nil
	return n
}

// TestValidate_MaxFindings stops at the maximum, with a last warning.
func TestValidate_MaxFindings(t *testing.T) {
	var events []format.Event
	for i := int64(1); i <= 20; i++ {
		events = append(events, format.Event{Seq: i * 2, Epoch: 1, Kind: format.KindSnapshot})
	}
	got := replay.Validate(&replay.SliceSource{Events: events}, replay.ValidateOptions{MaxFindings: 5})
	if len(got) != 6 || got[5].Rule != replay.RuleTooManyFindings {
		t.Fatalf("findings = %v, want 5 and too-many-findings", got)
	}
}

// TestValidate_FirstEvents covers the start of a log: not job_submitted,
// a wrong first seq, an epoch 0.
func TestValidate_FirstEvents(t *testing.T) {
	src := &replay.SliceSource{Events: []format.Event{
		{Seq: 3, Epoch: 1, Kind: format.KindMasterStarted},
		{Seq: 4, Epoch: 0, Kind: format.KindSnapshot},
	}}
	got := replay.Validate(src, replay.ValidateOptions{})
	var rules []string
	for _, f := range got {
		rules = append(rules, fmt.Sprintf("%s@%d", f.Rule, f.Seq))
	}
	want := "job-submitted@3 seq-order@3 epoch-order@4 epoch-start@4"
	if strings.Join(rules, " ") != want {
		t.Fatalf("findings = %v, want %s", rules, want)
	}
}

// errSource fails at once.
type errSource struct{ err error }

func (s errSource) Next() (format.Event, error) { return format.Event{}, s.err }

// TestValidate_SourceErrors classifies the errors of a source.
func TestValidate_SourceErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		rule string
	}{
		{&format.VersionError{Version: "9.0"}, replay.RuleSchemaVersion},
		{&format.SyntaxError{Line: 3, Err: errors.New("bad")}, replay.RuleSyntax},
		{io.ErrUnexpectedEOF, replay.RuleCorrupt},
	} {
		got := replay.Validate(errSource{tc.err}, replay.ValidateOptions{})
		if len(got) != 1 || got[0].Rule != tc.rule || got[0].Severity != replay.SeverityError {
			t.Errorf("Validate(%v) = %v, want one %s error", tc.err, got, tc.rule)
		}
	}
}
