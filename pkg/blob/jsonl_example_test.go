package blob_test

import (
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/jobevent/jobevent/pkg/blob"
)

// A JSONL log (what `jobevent dump` writes) reads as its bucket log does:
// here the master of epoch 1 wrote seq 3 after epoch 2 took over at seq 3,
// so that row is filtered with a notice. blob.OpenJSONL reads a file the
// same way.
func ExampleNewJSONLReader() {
	const jsonl = `{"seq":1,"epoch":1,"kind":"job_submitted","job":"wc","graph":{"vertices":[],"edges":[]}}
{"seq":2,"epoch":1,"kind":"master_started","master":"10.0.0.5:7070"}
{"seq":3,"epoch":1,"kind":"vertex_initialized","vertex":"src","parallelism":2}
{"seq":3,"epoch":2,"kind":"master_started","master":"10.0.0.6:7070"}
{"seq":4,"epoch":2,"kind":"vertex_initialized","vertex":"src","parallelism":2}
`
	r, err := blob.NewJSONLReader(strings.NewReader(jsonl), "wc.jsonl", blob.JSONLOptions{})
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
			log.Fatal(err) // a seq gap is a *blob.CorruptError naming the file
		}
		fmt.Println(e.Seq, e.Epoch, e.Kind)
	}
	for _, n := range r.Notices() {
		fmt.Println(n.Kind+":", n.Message)
	}
	// Output:
	// 1 1 job_submitted
	// 2 1 master_started
	// 3 2 master_started
	// 4 2 vertex_initialized
	// fenced: 1 row of fenced epoch 1 from seq 3 (epoch 2 starts at seq 3); filtered
}
