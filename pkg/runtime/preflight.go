package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	gcblob "gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// OutputMarker is the object a sink writes into its output bucket when it
// commits: {"log": URL, "job": name}, naming the event log whose job
// committed the output there. Part of the output layout.
const OutputMarker = ".jobevent-output"

// Preflighter is implemented by operators that can check, before the job
// writes anything, that it can start: a source that its input exists, a
// sink that its output takes writes and belongs to no other job's log.
type Preflighter interface {
	Preflight(ctx context.Context, vc *VertexContext) error
}

// StartError says that a job cannot start: its spec, an input or an output
// is wrong, and nothing was written to the log. Its ExitCode is 2.
type StartError struct {
	Job string
	Err error
}

// Error reads "job wordcount cannot start: vertex source: ...".
func (e *StartError) Error() string {
	return fmt.Sprintf("job %s cannot start (nothing was written): %v", e.Job, e.Err)
}

// Unwrap returns the cause.
func (e *StartError) Unwrap() error { return e.Err }

// ExitCode returns 2.
func (e *StartError) ExitCode() int { return 2 }

// ErrOutputOwned is matched (errors.Is) by the *OutputOwnedError of a
// sink whose output holds the committed output of another log's job.
var ErrOutputOwned = errors.New("jobevent/runtime: the output belongs to another job's log")

// OutputOwnedError says that an output holds what the job of another log
// committed (its OutputMarker).
type OutputOwnedError struct {
	Output string // where the output is
	Log    string // the log that committed it
	Job    string
}

// Error names the output, the other log and the way out.
func (e *OutputOwnedError) Error() string {
	return fmt.Sprintf("output %s holds the committed output of job %s of log %s: write elsewhere, or pass --overwrite-output to replace it", e.Output, e.Job, e.Log)
}

// Is reports whether target is ErrOutputOwned.
func (e *OutputOwnedError) Is(target error) bool { return target == ErrOutputOwned }

// preflight checks every vertex of spec that can be checked (Preflighter).
// logURL is the job's log; overwrite allows taking over an output that
// another log committed to.
func preflight(ctx context.Context, spec *Spec, buckets *bucketOpener, logURL string, overwrite bool) error {
	for i := range spec.Vertices {
		v := &spec.Vertices[i]
		p, ok := v.op.(Preflighter)
		if !ok {
			continue
		}
		vc := &VertexContext{Job: spec.Job, Vertex: v.ID, buckets: buckets, logURL: logURL, overwriteOutput: overwrite}
		if err := p.Preflight(ctx, vc); err != nil {
			return &StartError{Job: spec.Job, Err: fmt.Errorf("vertex %s: %w", v.ID, err)}
		}
	}
	return nil
}

// outputOwner is the content of the OutputMarker object.
type outputOwner struct {
	Log string `json:"log"`
	Job string `json:"job"`
}

// checkOwner returns an error wrapping ErrOutputOwned when b holds the
// committed output of a log other than vc's, unless vc allows overwriting.
func checkOwner(ctx context.Context, b *gcblob.Bucket, vc *VertexContext, where string) error {
	if vc.logURL == "" || vc.overwriteOutput {
		return nil
	}
	data, err := b.ReadAll(ctx, OutputMarker)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil
	}
	if err != nil {
		return fmt.Errorf("output %s: read %s: %w", where, OutputMarker, err)
	}
	var owner outputOwner
	if json.Unmarshal(data, &owner) != nil || owner.Log == vc.logURL {
		return nil
	}
	return &OutputOwnedError{Output: where, Log: owner.Log, Job: owner.Job}
}

// writeOwner records vc's log as the owner of the output in b.
func writeOwner(ctx context.Context, b *gcblob.Bucket, vc *VertexContext) error {
	if vc.logURL == "" {
		return nil
	}
	data, _ := json.Marshal(outputOwner{Log: vc.logURL, Job: vc.Job})
	return b.WriteAll(ctx, OutputMarker, append(data, '\n'), nil)
}
