// Command jobevent records, inspects and replays batch job event logs.
//
// The log commands (import, dump, validate, diff, replay) read a LOG given
// as a bucket URL (file://, mem://, s3://, gs://, azblob://, with ?prefix=),
// a bare local path (file://), or a canonical JSONL file (*.jsonl, read
// directly and read-only). Run "jobevent help COMMAND" for the flags and an
// example of each command.
//
// Exit codes: 0 ok; 1 findings (validate errors, diff differences, a failed
// job); 2 usage error, bad input, corruption, I/O failure; 3 the deliberate
// crash of --crash-after-seq.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/jobevent/jobevent/internal/gcstart"
)

func main() {
	gcstart.Heap(gcstart.Default)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, stop := withInterrupts(context.Background(), sigs)
	code := newApplication(os.Stdin, os.Stdout, os.Stderr).run(ctx, os.Args)
	stop()
	os.Exit(code)
}
