package main

import (
	"fmt"

	"github.com/jobevent/jobevent/internal/loggen"
)

// shapes are the logs logbench can generate (-shape).
//
//   - bench: loggen.BenchOptions's ten-vertex job with failures, partition
//     losses and a failover (the README's event-log table).
//   - wide: a source → map → sink job, source and map events/4-way with
//     pointwise edges and a 4-way sink, no failures: a clean run's log of
//     about events events, nearly all subtask_started and subtask_finished
//     with loggen's noisy metrics (the size target of the README).
var shapes = map[string]func(events int64, failureRate float64) loggen.Options{
	"bench": benchShape,
	"wide":  wideShape,
}

func benchShape(events int64, failureRate float64) loggen.Options {
	// About 2.3 events a subtask at these rates: size the job so that it is
	// still running when the log reaches events.
	o := loggen.BenchOptions(1, int(max(events/2, 1000)), events)
	o.FailureRate = failureRate
	o.SnapshotEvery = 8
	return o
}

func wideShape(events int64, _ float64) loggen.Options { return loggen.WideOptions(events) }

func shapeOptions(shape string, events int64, failureRate float64) (loggen.Options, error) {
	f, ok := shapes[shape]
	if !ok {
		return loggen.Options{}, fmt.Errorf("unknown -shape %q (bench, wide)", shape)
	}
	return f(events, failureRate), nil
}
