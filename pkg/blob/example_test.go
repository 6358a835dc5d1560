package blob_test

import (
	"context"
	"fmt"
	"io"
	"log"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
)

// A scheduler records its job in a log: it claims epoch 1, appends events
// through a buffered Writer, and closes it. Any gocloud URL works the same
// way; mem:// keeps the example self-contained.
func Example() {
	ctx := context.Background()
	l, err := blob.Create(ctx, "mem://example-write?prefix=jobs/wordcount/")
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	if err := l.ClaimEpoch(ctx, blob.EpochInfo{Epoch: 1, Master: "10.0.0.5:7070", StartSeq: 1}); err != nil {
		log.Fatal(err)
	}
	w := l.NewWriter(1, 1, blob.WriterOptions{})
	w.Append(format.Event{Kind: format.KindJobSubmitted, Job: "wordcount", Graph: &format.Graph{
		Vertices: []format.Vertex{{ID: "src", Operator: "sequence", Parallelism: 2, MaxParallelism: 8, Coordinator: format.CoordinatorBatchSnapshot}},
	}})
	w.Append(format.Event{Kind: format.KindMasterStarted, Job: "wordcount", Master: "10.0.0.5:7070"})
	w.Append(format.Event{Kind: format.KindVertexInitialized, Job: "wordcount", Vertex: "src", Parallelism: 2})
	if err := w.Close(); err != nil { // flushes what is buffered
		log.Fatal(err)
	}

	r, err := l.NewReader(ctx, blob.ReaderOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err) // a *blob.CorruptError names the object
		}
		fmt.Println(e.Seq, e.Epoch, e.Kind)
	}
	// Output:
	// 1 1 job_submitted
	// 2 1 master_started
	// 3 1 vertex_initialized
}

// An aggregate over whole columns reads them with a ColumnReader: the
// same reader rules, no event built.
func ExampleLog_NewColumnReader() {
	ctx := context.Background()
	l, err := blob.Create(ctx, "mem://example-columns?prefix=jobs/wordcount/")
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	finished := func(seq int64, subtask int32, bytes int64) format.Event {
		return format.Event{Seq: seq, Epoch: 1, Kind: format.KindSubtaskFinished, Job: "wordcount",
			Vertex: "src", Subtask: subtask, Worker: "w1", BytesOut: bytes}
	}
	segment := []format.Event{{Seq: 1, Epoch: 1, Kind: format.KindMasterStarted, Job: "wordcount", Master: "m"},
		finished(2, 0, 1000), finished(3, 1, 1001)}
	if _, err := l.WriteSegment(ctx, segment); err != nil {
		log.Fatal(err)
	}

	r, err := l.NewColumnReader(ctx, blob.ReaderOptions{Fields: format.FieldBytesOut})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	var n, sum int64
	for {
		c, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err) // a *blob.CorruptError names the object
		}
		n += int64(c.Len())
		for _, v := range c.BytesOut { // 0 in rows whose kind has no bytes_out
			sum += v
		}
	}
	fmt.Println("count", n, "sum(bytes_out)", sum)
	// Output:
	// count 3 sum(bytes_out) 2001
}
