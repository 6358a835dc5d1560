package runtime

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gcblob "gocloud.dev/blob"
)

// Operator is what a vertex runs. An operator is a Source (a vertex with no
// inputs whose coordinator hands out splits) or a Transform (everything
// else, sinks included). The factory builds one Operator per vertex; the
// runtime may call it from several subtasks at once, so per-subtask state
// belongs in local variables of Run or ReadSplit, not in the Operator.
type Operator interface {
	// Name returns the registered operator name.
	Name() string
}

// Source is an operator that reads external input. Its SplitEnumerator is
// the vertex's coordinator: it runs in the master and hands splits out on
// demand; each subtask asks for splits until there are none left and reads
// each with ReadSplit.
type Source interface {
	Operator
	// NewEnumerator returns a fresh enumerator for a vertex of the given
	// parallelism. It must not do I/O (Start does); the runtime also calls
	// it to learn the enumerator's type.
	NewEnumerator(parallelism int) (SplitEnumerator, error)
	// ReadSplit reads one split and emits its records.
	ReadSplit(ctx context.Context, task *Task, split []byte, out Emitter) error
}

// SplitEnumerator hands the splits of a source out to its subtasks. The
// runtime calls it from one goroutine at a time.
type SplitEnumerator interface {
	// Start prepares the splits (listing objects, for example). It is
	// called once before the first NextSplit of a fresh enumerator, and
	// not after Restore.
	Start(ctx context.Context, vc *VertexContext) error
	// NextSplit returns the next split for subtask, or ok false when the
	// subtask gets no more splits.
	NextSplit(subtask int) (split []byte, ok bool, err error)
	// AddSplitsBack returns the splits assigned to subtask to the pool:
	// the subtask is reset and its next attempt will ask again. Calling
	// it for a subtask that holds no splits does nothing.
	AddSplitsBack(subtask int)
}

// BatchSnapshotter is implemented by enumerators whose assignment state can
// be saved in the log and restored by a recovering master: the counterpart
// of Flink's SupportsBatchSnapshot. A source whose enumerator implements it
// is recorded as batch_snapshot; any other source as no_batch_snapshot, and
// a recovering master must rerun all its subtasks unless every one had
// finished (docs/recovery.md, step 3).
type BatchSnapshotter interface {
	// Snapshot returns the assignment state: which splits went to which
	// subtask, and which are left.
	Snapshot() ([]byte, error)
	// Restore replaces the state with a snapshot taken earlier.
	Restore(state []byte) error
}

// Transform is an operator with inputs: a map, a filter, an aggregation, a
// sink. Run reads every input record of the subtask from in and emits its
// output records to out.
type Transform interface {
	Operator
	Run(ctx context.Context, task *Task, in Input, out Emitter) error
}

// Committer is implemented by sinks that stage their output per attempt.
// Before the job's job_finished event the master calls Commit with the
// winning attempt of every subtask; the call must be idempotent (a
// recovering master repeats it when job_finished is missing). After the
// job finished, Cleanup removes whatever staging is left.
type Committer interface {
	Commit(ctx context.Context, vc *VertexContext, attempts []SubtaskAttempt) error
	Cleanup(ctx context.Context, vc *VertexContext) error
	// Output names where the committed output goes, for the run summary.
	Output(vc *VertexContext) string
}

// SubtaskAttempt names one attempt of one subtask.
type SubtaskAttempt struct {
	Subtask int
	Attempt int
}

// VertexContext tells the master-side code of an operator (an enumerator,
// a committer) which job and vertex it serves.
type VertexContext struct {
	Job         string
	Vertex      string
	Parallelism int

	buckets *bucketOpener
	// logURL is the job's event log ("" without one); overwriteOutput
	// lets a sink take over an output another log committed to.
	logURL          string
	overwriteOutput bool
}

// OpenBucket opens a bucket URL, resolving bare and relative local paths
// against the job's working directory; create makes local directories.
// The runtime owns the bucket and closes it: callers must not.
func (c *VertexContext) OpenBucket(ctx context.Context, url string, create bool) (*gcblob.Bucket, error) {
	return c.buckets.open(ctx, url, create)
}

// Input yields a subtask's input records: every partition it reads, in
// edge order, then producer order.
type Input interface {
	// Next returns the next record, or ok false at the end.
	Next(ctx context.Context) (r Record, ok bool, err error)
}

// Emitter receives a subtask's output records.
type Emitter interface {
	Emit(r Record) error
}

// Task describes the subtask attempt an operator runs.
type Task struct {
	Job         string
	Vertex      string
	Subtask     int
	Attempt     int
	Parallelism int

	buckets                                  *bucketOpener
	recordsIn, bytesIn, recordsOut, bytesOut atomic.Int64
}

// OpenBucket opens a bucket URL, resolving bare and relative local paths
// against the job's working directory; create makes local directories.
// The runtime owns the bucket and closes it: callers must not.
func (t *Task) OpenBucket(ctx context.Context, url string, create bool) (*gcblob.Bucket, error) {
	return t.buckets.open(ctx, url, create)
}

// AddInput counts records and bytes a source read from outside the job
// (records_in and bytes_in of subtask_finished). Inputs read from
// partitions are counted by the runtime.
func (t *Task) AddInput(records, bytes int64) {
	t.recordsIn.Add(records)
	t.bytesIn.Add(bytes)
}

// AddOutput counts records and bytes a sink wrote outside the job
// (records_out and bytes_out). Records emitted to partitions are counted
// by the runtime.
func (t *Task) AddOutput(records, bytes int64) {
	t.recordsOut.Add(records)
	t.bytesOut.Add(bytes)
}

// Factory builds an operator from a vertex's args. It runs when a spec is
// parsed, so that bad args are reported with the spec's line numbers, and
// again wherever the vertex runs.
type Factory func(args Args) (Operator, error)

var registry = struct {
	sync.RWMutex
	m map[string]Factory
}{m: map[string]Factory{}}

// Register makes an operator available to job specs under name. It panics
// when name is empty, already registered, or factory is nil: registration
// is a program's setup, done in init functions. It is safe for concurrent
// use.
func Register(name string, factory Factory) {
	if name == "" || factory == nil {
		panic("jobevent/runtime: Register with an empty name or a nil factory")
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.m[name]; dup {
		panic("jobevent/runtime: operator " + name + " registered twice")
	}
	registry.m[name] = factory
}

// Operators returns the registered operator names, sorted.
func Operators() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.m))
	for n := range registry.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func lookupOperator(name string) (Factory, bool) {
	registry.RLock()
	defer registry.RUnlock()
	f, ok := registry.m[name]
	return f, ok
}

// Args are the arguments of a vertex as written in the spec: string,
// int64, float64, bool, nil, []any or map[string]any values. The getters
// return an error naming the argument when it has the wrong type.
type Args map[string]any

// String returns the string argument name, or def when it is absent.
func (a Args) String(name, def string) (string, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return def, nil
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case int64, float64, bool:
		return fmt.Sprint(x), nil
	}
	return "", fmt.Errorf("args.%s: want a string, got %T", name, v)
}

// Int returns the integer argument name, or def when it is absent.
func (a Args) Int(name string, def int64) (int64, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return def, nil
	}
	switch x := v.(type) {
	case int64:
		return x, nil
	case float64:
		if x == float64(int64(x)) {
			return int64(x), nil
		}
	}
	return 0, fmt.Errorf("args.%s: want an integer, got %v", name, v)
}

// Bool returns the boolean argument name, or def when it is absent.
func (a Args) Bool(name string, def bool) (bool, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return def, nil
	}
	if b, ok := v.(bool); ok {
		return b, nil
	}
	return false, fmt.Errorf("args.%s: want true or false, got %v", name, v)
}

// Duration returns the duration argument name ("2s", "3 min", or a number
// of milliseconds), or def when it is absent.
func (a Args) Duration(name string, def time.Duration) (time.Duration, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return def, nil
	}
	d, err := ParseDuration(fmt.Sprint(v))
	if err != nil {
		return 0, fmt.Errorf("args.%s: %w", name, err)
	}
	return d, nil
}

// Size returns the size argument name ("64k", "1mb", or bytes), or def
// when it is absent.
func (a Args) Size(name string, def int64) (int64, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return def, nil
	}
	n, err := ParseSize(fmt.Sprint(v))
	if err != nil {
		return 0, fmt.Errorf("args.%s: %w", name, err)
	}
	return n, nil
}

// Check returns an error naming the first argument that is not in known.
func (a Args) Check(known ...string) error {
	var unknown []string
	for k := range a {
		found := false
		for _, n := range known {
			if k == n {
				found = true
				break
			}
		}
		if !found {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	if len(known) == 0 {
		return fmt.Errorf("args.%s: unknown argument (this operator takes none)", unknown[0])
	}
	return fmt.Errorf("args.%s: unknown argument (known: %s)", unknown[0], strings.Join(known, ", "))
}
