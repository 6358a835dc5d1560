package runtime

import (
	"context"
	"fmt"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// partID identifies a result partition: the producing attempt and the
// consumer vertex (docs/format.md). It is replay's PartitionID, so that what
// workers report is exactly what replay.Plan is given.
type partID = replay.PartitionID

func partString(p partID) string {
	return fmt.Sprintf("%s/%d attempt %d → %s", p.Vertex, p.Subtask, p.Attempt, p.Consumer)
}

// The messages between master and workers. Over HTTP they travel as JSON;
// in process they are passed as they are.

// deployment is what a master sends a worker to run one attempt.
type deployment struct {
	Job         string       `json:"job"`
	Epoch       int32        `json:"epoch"`
	Vertex      string       `json:"vertex"`
	Subtask     int32        `json:"subtask"`
	Attempt     int32        `json:"attempt"`
	Parallelism int32        `json:"parallelism"`
	Inputs      []inputEdge  `json:"inputs,omitempty"`
	Outputs     []outputEdge `json:"outputs,omitempty"`
}

func (d *deployment) ref() attemptRef {
	return attemptRef{Vertex: d.Vertex, Subtask: d.Subtask, Attempt: d.Attempt}
}

// inputEdge is what one in-edge gives a subtask: slices of producer
// partitions and where they are.
type inputEdge struct {
	From   string       `json:"from"`
	Slices []inputFetch `json:"slices"`
}

// inputFetch is one slice to fetch: key groups [From, To) of a partition
// held by a worker.
type inputFetch struct {
	Partition partID `json:"partition"`
	Worker    string `json:"worker"`
	Addr      string `json:"addr,omitempty"`
	From      int    `json:"from"`
	To        int    `json:"to"`
}

// outputEdge is one out-edge of a subtask: a partition for Consumer with
// Groups key groups.
type outputEdge struct {
	Consumer string `json:"consumer"`
	Groups   int    `json:"groups"`
}

// attemptRef names one attempt of one subtask.
type attemptRef struct {
	Vertex  string `json:"vertex"`
	Subtask int32  `json:"subtask"`
	Attempt int32  `json:"attempt"`
}

func (a attemptRef) String() string {
	return fmt.Sprintf("%s/%d attempt %d", a.Vertex, a.Subtask, a.Attempt)
}

// taskReport is a worker's report of an attempt that ended.
type taskReport struct {
	Job    string `json:"job"`
	Epoch  int32  `json:"epoch"`
	Worker string `json:"worker"`
	attemptRef
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	// Missing names the partition the attempt could not fetch:
	// partition-not-found.
	Missing *partID `json:"missing,omitempty"`
	// Unreachable reports that the worker holding Missing did not answer
	// at all (it may be gone), rather than answering that it lacks it.
	Unreachable bool               `json:"unreachable,omitempty"`
	RecordsIn   int64              `json:"records_in"`
	RecordsOut  int64              `json:"records_out"`
	BytesIn     int64              `json:"bytes_in"`
	BytesOut    int64              `json:"bytes_out"`
	Partitions  []format.Partition `json:"partitions"`
}

// splitRequest asks the master for the next split of a source subtask.
type splitRequest struct {
	Job   string `json:"job"`
	Epoch int32  `json:"epoch"`
	attemptRef
}

// splitReply carries a split, or OK false when there are none left.
type splitReply struct {
	Split []byte `json:"split,omitempty"`
	OK    bool   `json:"ok"`
}

// registration is what a worker tells a master when it connects: who it
// is and which partitions of the job it holds.
type registration struct {
	Worker     string          `json:"worker"`
	Addr       string          `json:"addr,omitempty"`
	Slots      int             `json:"slots"`
	Job        string          `json:"job"`
	Partitions []heldPartition `json:"partitions"`
	// Session is the worker's session key (trust.go); over HTTP its
	// later requests carry it.
	Session string `json:"session,omitempty"`
}

// registrationReply is the master's answer.
type registrationReply struct {
	Job   string `json:"job"`
	Epoch int32  `json:"epoch"`
}

// heldPartition is a partition a worker holds.
type heldPartition struct {
	ID      partID `json:"id"`
	Bytes   int64  `json:"bytes"`
	Records int64  `json:"records"`
}

// masterLink is how a worker reaches its master.
type masterLink interface {
	nextSplit(ctx context.Context, req splitRequest) (splitReply, error)
	report(ctx context.Context, rep *taskReport) error
}

// workerLink is how a master reaches a worker.
type workerLink interface {
	deploy(ctx context.Context, d *deployment) error
	cancel(ctx context.Context, job string, epoch int32, a attemptRef) error
	cleanup(ctx context.Context, job string, epoch int32) error
}

// fetcher is how a task reads a slice of a partition held by a worker.
type fetcher interface {
	fetch(ctx context.Context, job string, in inputFetch) ([]byte, int64, error)
}
