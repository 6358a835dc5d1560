// Package loggen generates realistic, well-formed job event logs: a seeded,
// deterministic simulation of a batch master scheduling a random DAG over
// workers, written as the events the master would log. It feeds property
// tests (every log it writes passes replay.Validate) and benchmarks.
//
// A log is produced as a stream (Generator.Next), so it can be 1M–10M
// events long without being held in memory; the generator's own memory is
// proportional to the job (it folds what it writes into a replay.State, as
// a master does, to decide recoveries with replay.Plan).
//
// Shape. The graph has Vertices vertices; the first Sources are sources
// (coordinator batch_snapshot, no_batch_snapshot or none), every other
// vertex reads one or two earlier vertices over pointwise or all-to-all
// edges, with a fixed parallelism in [1, MaxParallelism] or (AutoFraction
// of them) auto, decided at initialization from the bytes of its inputs.
// Every attempt is subtask_started, then subtask_finished (with one
// partition per out-edge, sometimes the absent form) or, with FailureRate,
// subtask_failed followed by subtasks_reset and a new attempt. A consumer
// starting may hit partition-not-found (PartitionLossRate): it fails and
// the master resets the producer with replay's ExpandReset closure. Sources
// with batch_snapshot coordinators write a snapshot every SnapshotEvery of
// their finishes and when they finish. Failovers end the epoch at random
// points: the next master logs master_started (recovering), the resets of
// replay.Plan (reason "recovery") and carries on from the plan.
//
// Mix. With the defaults (no failures, no failovers) a log is about 48%
// subtask_started, 48% subtask_finished (every one with partitions, a
// fifth of those with a single out-edge in the absent form), 2%
// vertex_initialized and 1% snapshot. BenchOptions(seed, 100000, 1000000),
// the benchmark job (100,000 subtasks, stopped at 1,000,000 events with
// 95% of the subtasks finished, one failover), is about 37%
// subtask_started, 11% subtask_finished, 26% subtask_failed, 26%
// subtasks_reset and 1% snapshot; it generates at about 800,000 events
// per second on one core.
package loggen

import (
	"io"
	"math/rand"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// Options shape a generated job. The zero value is a small job of five
// vertices without failures; every field has a usable zero.
type Options struct {
	Seed           int64
	Job            string        // job id; "" = "loggen"
	Graph          *format.Graph // the job graph; nil = a random one
	Vertices       int           // random graph: number of vertices; 0 = 5
	Sources        int           // random graph: number of sources; 0 = 1
	MaxParallelism int32         // random graph: parallelism drawn from [1, MaxParallelism]; 0 = 8
	AutoFraction   float64       // random graph: share of non-sources with auto parallelism

	Workers int // 0 = 4; workers are named w1, w2, ...
	Slots   int // attempts running at once per worker; 0 = 2

	FailureRate       float64 // probability that an attempt fails
	PartitionLossRate float64 // probability that a consumer's start hits partition-not-found
	SnapshotEvery     int     // snapshot after every N finishes of batch_snapshot vertices; 0 = 4

	Failovers            int     // master failovers at random points of the log
	FailoverAt           []int64 // failovers after these seqs, in addition
	LoseWorkerOnFailover bool    // a failover also loses one worker's partitions

	// StopAfter ends the log after this many events, without
	// job_finished, as if the master had died; 0 = run the job to its end.
	StopAfter int64
	Start     time.Time // time of the first event; zero = 2026-12-02T10:00:00Z
}

// BenchOptions returns the options of the benchmark job: a fixed graph
// of ten vertices of subtasks/10 subtasks each (two sources, one
// batch_snapshot and one no_batch_snapshot; pointwise and all-to-all
// edges), on 64 workers of 64 slots, with failures, partition losses and
// one failover, stopped after events events: a master that died mid-job.
// The mix it gives is documented in the package comment.
func BenchOptions(seed int64, subtasks int, events int64) Options {
	p := int32(max(subtasks/10, 1))
	v := func(id string, coord string) format.Vertex {
		return format.Vertex{ID: id, Operator: "map", Parallelism: p, MaxParallelism: p, Coordinator: coord}
	}
	e := func(from, to, pattern string) format.Edge { return format.Edge{From: from, To: to, Pattern: pattern} }
	pw, a2a := format.PatternPointwise, format.PatternAllToAll
	g := &format.Graph{
		Vertices: []format.Vertex{
			v("src0", format.CoordinatorBatchSnapshot), v("src1", format.CoordinatorNoBatchSnapshot),
			v("v2", format.CoordinatorNone), v("v3", format.CoordinatorNone), v("v4", format.CoordinatorNone),
			v("v5", format.CoordinatorNone), v("v6", format.CoordinatorNone), v("v7", format.CoordinatorNone),
			v("v8", format.CoordinatorNone), v("sink", format.CoordinatorNone),
		},
		Edges: []format.Edge{
			e("src0", "v2", pw), e("src1", "v3", a2a), e("v2", "v4", a2a), e("v3", "v4", pw),
			e("v4", "v5", pw), e("v5", "v6", a2a), e("v6", "v7", pw), e("v7", "v8", a2a), e("v8", "sink", pw),
		},
	}
	return Options{
		Seed: seed, Job: "bench", Graph: g, Workers: 64, Slots: 64,
		FailureRate: 0.7, PartitionLossRate: 0.00002, SnapshotEvery: 1, Failovers: 1, StopAfter: events,
	}
}

// WideOptions returns the options of a clean source → map → sink run of
// about events events: the source and the map events/4-way over pointwise
// edges into a 4-way sink, on 64 workers of 64 slots, with the generator's
// noisy metrics and no failures (bench/logbench's -shape wide, and the log
// of the README's replay and import figures).
func WideOptions(events int64) Options {
	p := int32(max(events/4, 1))
	g := &format.Graph{
		Vertices: []format.Vertex{
			{ID: "source", Operator: "numbers", Parallelism: p, MaxParallelism: p, Coordinator: format.CoordinatorBatchSnapshot},
			{ID: "map", Operator: "map", Parallelism: p, MaxParallelism: p},
			{ID: "sink", Operator: "sink", Parallelism: 4, MaxParallelism: 4},
		},
		Edges: []format.Edge{
			{From: "source", To: "map", Pattern: format.PatternPointwise},
			{From: "map", To: "sink", Pattern: format.PatternPointwise},
		},
	}
	return Options{Seed: 1, Job: "wide", Graph: g, Workers: 64, Slots: 64, SnapshotEvery: 1 << 30}
}

// Events returns every event of the log that o describes.
func Events(o Options) []format.Event { return Job(o).Rest() }

// Generator streams the events of one generated log. It is not safe for
// concurrent use.
type Generator struct {
	o     Options
	rng   *rand.Rand
	graph *format.Graph
	st    *replay.State // the fold of every event emitted
	sim   sim

	pending []format.Event // emitted, not yet returned
	seq     int64
	epoch   int32
	now     time.Time
	done    bool // job_finished emitted or StopAfter reached

	failAt   []int64 // failover seqs still to come, ascending
	lost     map[replay.PartitionID]bool
	deferred map[string]bool
}

// Job returns a generator of the log that o describes.
func Job(o Options) *Generator {
	o = withDefaults(o)
	g := &Generator{
		o: o, rng: rand.New(rand.NewSource(o.Seed)),
		st: replay.NewState(), now: o.Start,
		lost: make(map[replay.PartitionID]bool), deferred: make(map[string]bool),
	}
	g.graph = o.Graph
	if g.graph == nil {
		g.graph = randomGraph(g.rng, o)
	}
	g.sim.init(g.graph, o)
	g.failAt = g.failoverSeqs()
	return g
}

func withDefaults(o Options) Options {
	if o.Job == "" {
		o.Job = "loggen"
	}
	if o.Vertices <= 0 {
		o.Vertices = 5
	}
	if o.Sources <= 0 {
		o.Sources = 1
	}
	if o.Sources > o.Vertices {
		o.Sources = o.Vertices
	}
	if o.MaxParallelism <= 0 {
		o.MaxParallelism = 8
	}
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.Slots <= 0 {
		o.Slots = 2
	}
	if o.SnapshotEvery <= 0 {
		o.SnapshotEvery = 4
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	}
	return o
}

// Graph returns the job graph of the log.
func (g *Generator) Graph() *format.Graph { return g.graph }

// State returns the fold of the events returned so far plus those still
// buffered; after io.EOF it is the state of the whole log.
func (g *Generator) State() *replay.State { return g.st }

// Next returns the next event of the log, or io.EOF after the last.
func (g *Generator) Next() (format.Event, error) {
	for len(g.pending) == 0 {
		if g.done {
			return format.Event{}, io.EOF
		}
		g.step()
	}
	e := g.pending[0]
	g.pending[0] = format.Event{}
	g.pending = g.pending[1:]
	return e, nil
}

// Rest returns the events Next has not returned yet, to the end of the
// log.
func (g *Generator) Rest() []format.Event {
	var out []format.Event
	for {
		e, err := g.Next()
		if err != nil { // io.EOF: Next fails in no other way
			return out
		}
		out = append(out, e)
	}
}

// emit stamps e with the next seq, the epoch, the job and a time, folds it
// into the state and queues it.
func (g *Generator) emit(e format.Event) {
	if g.done {
		return
	}
	g.seq++
	g.now = g.now.Add(time.Duration(1+g.rng.Intn(40)) * time.Millisecond)
	e.Seq, e.Epoch, e.Job, e.Time = g.seq, g.epoch, g.o.Job, g.now
	if e.Kind == format.KindJobSubmitted {
		e.Epoch = 1
	}
	_ = g.st.Apply(&e) // the generator only writes events that apply
	g.pending = append(g.pending, e)
	if e.Kind == format.KindJobFinished || (g.o.StopAfter > 0 && g.seq >= g.o.StopAfter) {
		g.done = true
	}
}
