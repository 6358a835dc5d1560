package answer

import (
	"context"
	"errors"

	"github.com/jobevent/jobevent/internal/progress"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/logsource"
	"github.com/jobevent/jobevent/pkg/replay"
)

// Finding is a finding of one of the logs validated: the answer of
// validate is a list of them.
type Finding struct {
	Log string `json:"log"`
	replay.Finding
}

// Validate validates the log arg, the answer of validate for one log. The
// Flink options fo apply to it when it is a Flink log (isFlink); a Flink
// log the format itself cannot read is an error finding, as Flink would
// fail on it. The events read are counted into bar (progress.Disabled()
// for none), and started, when not nil, is called once the log is open.
func Validate(ctx context.Context, arg string, fo *logsource.FlinkOptions, bar *progress.Reporter, started func(logsource.Source)) (fs []replay.Finding, isFlink bool, err error) {
	src, err := logsource.Open(ctx, arg, logsource.Options{AnySeq: true, Flink: fo})
	var fe *logsource.FlinkOptionsError
	if errors.As(err, &fe) {
		src, err = logsource.Open(ctx, arg, logsource.Options{AnySeq: true})
	}
	if f, ok := logsource.CorruptFinding(err); ok {
		return []replay.Finding{f}, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer src.Close()
	isFlink = src.Info().Kind == logsource.KindFlink
	if started != nil {
		started(src)
	}
	var head, tail []replay.Finding
	if wf, ok := src.(logsource.WithFindings); ok {
		head, tail = wf.Findings()
	}
	fs = append(head, replay.Validate(batchedValidateSource(src, bar), replay.ValidateOptions{})...)
	return append(fs, tail...), isFlink, nil
}

// progressSource counts the events read from a logsource.Source into a
// progress line. Key, Notices and Close are those of the source.
type progressSource struct {
	logsource.Source
	p *progress.Reporter
}

// Line returns the line of the last event of a JSONL source, 0 for
// another.
func (s *progressSource) Line() int {
	if l, ok := s.Source.(replay.Liner); ok {
		return l.Line()
	}
	return 0
}

// Next returns the source's next event and counts it.
func (s *progressSource) Next() (format.Event, error) {
	e, err := s.Source.Next()
	if err == nil {
		s.p.Add(1)
	}
	return e, err
}

// WithProgress returns src counting into p, or src itself when p draws
// nothing.
func WithProgress(src logsource.Source, p *progress.Reporter) logsource.Source {
	if !p.Enabled() {
		return src
	}
	return &progressSource{Source: src, p: p}
}

// batchedSource is a bucket log as validate reads it: a batch at a time,
// decoding only the fields validate checks, counted into the progress
// line, with its epoch objects.
type batchedSource struct {
	replay.Source // validateSource's: Next, Key, Notices, Claims
	batches       replay.BatchSource
	p             *progress.Reporter
}

// batchedValidateSource returns src as validate reads it (validateSource),
// by batches when src can read them. Every column is decoded, including
// those no rule checks (replay.ValidateFields): a segment is valid only
// if every other command can read it, and a column that does not decode
// makes dump, stats, diff and compact refuse it.
func batchedValidateSource(src logsource.Source, p *progress.Reporter) replay.Source {
	vs := validateSource(src, p)
	bs, ok := src.(replay.BatchSource)
	if !ok {
		return vs
	}
	return &batchedSource{Source: vs, batches: bs, p: p}
}

// claimingSource is a source wrapped for progress that still offers the
// epoch objects of the source it wraps.
type claimingSource struct {
	logsource.Source
	replay.Claimer
}

// validateSource is src as validate reads it: with progress counted into
// p, and its epoch objects, when it has them.
func validateSource(src logsource.Source, p *progress.Reporter) replay.Source {
	wrapped := WithProgress(src, p)
	if c, ok := src.(replay.Claimer); ok {
		return claimingSource{Source: wrapped, Claimer: c}
	}
	return wrapped
}

// NextBatch returns the log's next events and counts them.
func (s *batchedSource) NextBatch() ([]format.Event, error) {
	b, err := s.batches.NextBatch()
	s.p.Add(int64(len(b)))
	return b, err
}

// Key, Notices and Claims are those of the source.
func (s *batchedSource) Key() string { return s.Source.(replay.Keyer).Key() }

func (s *batchedSource) Notices() []format.Notice { return s.Source.(replay.Noticer).Notices() }

func (s *batchedSource) Claims() []replay.EpochClaim { return s.Source.(replay.Claimer).Claims() }

// LogFindings returns the findings fs of the log arg as validate lists
// them: each with its log, and no key for a JSONL file (which has no
// objects: its key is arg).
func LogFindings(arg string, fs []replay.Finding) []Finding {
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		if f.Key == arg {
			f.Key = ""
		}
		out = append(out, Finding{Log: arg, Finding: f})
	}
	return out
}
