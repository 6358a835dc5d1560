package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
)

// benchLog writes a log of about n events to a fresh mem:// bucket: one
// vertex whose subtasks each start and finish, in segments of 10,000
// events, as a long-running master would leave it.
func benchLog(b *testing.B, n int) string {
	b.Helper()
	ctx := context.Background()
	url := fmt.Sprintf("mem://bench-%d-%d", n, time.Now().UnixNano())
	log, err := blob.Create(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer log.Close()
	subtasks := int32(n / 2)
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	var seg []format.Event
	seq := int64(0)
	add := func(e format.Event) {
		seq++
		e.Seq, e.Epoch, e.Job, e.Time = seq, 1, "bench", t0.Add(time.Duration(seq)*time.Millisecond)
		seg = append(seg, e)
		if len(seg) == 10000 {
			if _, err := log.WriteSegment(ctx, seg); err != nil {
				b.Fatal(err)
			}
			seg = seg[:0]
		}
	}
	add(format.Event{Kind: format.KindJobSubmitted, Graph: &format.Graph{Vertices: []format.Vertex{
		{ID: "map", Operator: "map", Parallelism: subtasks, MaxParallelism: subtasks, Coordinator: format.CoordinatorNone}}}})
	add(format.Event{Kind: format.KindMasterStarted, Master: "127.0.0.1:7100"})
	add(format.Event{Kind: format.KindVertexInitialized, Vertex: "map", Parallelism: subtasks})
	for i := int32(0); seq < int64(n); i++ {
		w := fmt.Sprintf("w%d", i%8)
		add(format.Event{Kind: format.KindSubtaskStarted, Vertex: "map", Subtask: i, Worker: w})
		add(format.Event{Kind: format.KindSubtaskFinished, Vertex: "map", Subtask: i, Worker: w,
			RecordsIn: 1000, RecordsOut: 1000, BytesIn: 64000, BytesOut: 64000, Partitions: []format.Partition{}})
	}
	if len(seg) > 0 {
		if _, err := log.WriteSegment(ctx, seg); err != nil {
			b.Fatal(err)
		}
	}
	return url
}

func BenchmarkDump(b *testing.B) {
	const events = 200000
	url := benchLog(b, events)
	for _, f := range []string{"json", "table", "csv"} {
		b.Run(f, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var errb strings.Builder
				if code := runMain(context.Background(), []string{"jobevent", "dump", url, "--format", f}, strings.NewReader(""), io.Discard, &errb); code != 0 {
					b.Fatalf("exit code %d: %s", code, errb.String())
				}
			}
			b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
