package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/jobevent/jobevent/pkg/format"
)

// partitionNotFoundError is a task's failure to fetch one of its inputs.
type partitionNotFoundError struct {
	ID  partID
	Err error
}

func (e *partitionNotFoundError) Error() string {
	return fmt.Sprintf("partition not found: %s: %v", partString(e.ID), e.Err)
}

func (e *partitionNotFoundError) Unwrap() error { return e.Err }

// errWorkerUnreachable is wrapped, beside ErrPartitionNotFound, by a fetch
// from a worker that did not answer at all.
var errWorkerUnreachable = errors.New("jobevent/runtime: worker unreachable")

// taskRunner runs attempts on a worker.
type taskRunner struct {
	worker  string
	store   *partitionStore
	fetch   fetcher
	buckets *bucketOpener
}

// run executes one attempt and returns its report. It never panics: an
// operator panic becomes a failed attempt.
func (r *taskRunner) run(ctx context.Context, spec *Spec, d *deployment, master masterLink) (rep *taskReport) {
	rep = &taskReport{Job: d.Job, Epoch: d.Epoch, Worker: r.worker, attemptRef: d.ref()}
	defer func() {
		if p := recover(); p != nil {
			rep.OK, rep.Error = false, fmt.Sprintf("operator panic: %v", p)
		}
	}()
	task := &Task{
		Job: d.Job, Vertex: d.Vertex, Subtask: int(d.Subtask), Attempt: int(d.Attempt),
		Parallelism: int(d.Parallelism), buckets: r.buckets,
	}
	em := &partitionEmitter{}
	for _, o := range d.Outputs {
		id := partID{Vertex: d.Vertex, Subtask: d.Subtask, Attempt: d.Attempt, Consumer: o.Consumer}
		em.parts = append(em.parts, newPartitionBuilder(id, max(o.Groups, 1)))
	}
	in := &fetchInput{job: d.Job, fetch: r.fetch, edges: d.Inputs}
	err := r.execute(ctx, spec, d, task, in, em, master)
	rep.RecordsIn = task.recordsIn.Load() + in.records
	rep.BytesIn = task.bytesIn.Load() + in.bytes
	rep.RecordsOut = task.recordsOut.Load() + em.records
	rep.BytesOut = task.bytesOut.Load()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		rep.Error = err.Error()
		var pnf *partitionNotFoundError
		if errors.As(err, &pnf) {
			id := pnf.ID
			rep.Missing = &id
			rep.Unreachable = errors.Is(err, errWorkerUnreachable)
		}
		return rep
	}
	rep.Partitions = []format.Partition{}
	for _, b := range em.parts {
		if err := r.store.write(d.Job, b); err != nil {
			rep.Error = err.Error()
			return rep
		}
		bytes, records := b.size()
		rep.BytesOut += bytes
		rep.Partitions = append(rep.Partitions, format.Partition{Consumer: b.id.Consumer, Bytes: bytes, Records: records})
	}
	rep.OK = true
	return rep
}

func (r *taskRunner) execute(ctx context.Context, spec *Spec, d *deployment, task *Task, in *fetchInput, em *partitionEmitter, master masterLink) error {
	v := spec.Vertex(d.Vertex)
	if v == nil {
		return fmt.Errorf("job %s has no vertex %q", d.Job, d.Vertex)
	}
	switch op := v.op.(type) {
	case Source:
		for {
			reply, err := master.nextSplit(ctx, splitRequest{Job: d.Job, Epoch: d.Epoch, attemptRef: d.ref()})
			if err != nil {
				return fmt.Errorf("next split: %w", err)
			}
			if !reply.OK {
				return nil
			}
			if err := op.ReadSplit(ctx, task, reply.Split, em); err != nil {
				return err
			}
		}
	case Transform:
		return op.Run(ctx, task, in, em)
	}
	return fmt.Errorf("operator %s is neither a source nor a transform", v.Operator)
}

// partitionEmitter routes every emitted record to each out-edge's
// partition.
type partitionEmitter struct {
	parts   []*partitionBuilder
	records int64
}

func (e *partitionEmitter) Emit(r Record) error {
	e.records++
	for _, p := range e.parts {
		p.add(r)
	}
	return nil
}

// fetchInput reads a subtask's input slices one at a time, in order.
type fetchInput struct {
	job   string
	fetch fetcher
	edges []inputEdge

	edge, slice int
	buf         []byte
	records     int64
	bytes       int64
}

func (in *fetchInput) Next(ctx context.Context) (Record, bool, error) {
	for len(in.buf) == 0 {
		if in.edge >= len(in.edges) {
			return Record{}, false, nil
		}
		e := in.edges[in.edge]
		if in.slice >= len(e.Slices) {
			in.edge, in.slice = in.edge+1, 0
			continue
		}
		f := e.Slices[in.slice]
		in.slice++
		if err := ctx.Err(); err != nil {
			return Record{}, false, err
		}
		data, _, err := in.fetch.fetch(ctx, in.job, f)
		if err != nil {
			if ctx.Err() != nil {
				return Record{}, false, ctx.Err()
			}
			return Record{}, false, &partitionNotFoundError{ID: f.Partition, Err: err}
		}
		in.buf = data
		in.bytes += int64(len(data))
	}
	r, n, err := decodeRecord(in.buf)
	if err != nil {
		return Record{}, false, err
	}
	in.buf = in.buf[n:]
	in.records++
	return r, true, nil
}
