// Command servebench times `jobevent serve` against the CLI answering the
// same questions, in one run, on the same logs and with the same binary:
//
//   - a job page (GET /jobs/{id}) of a log of -events events (loggen's
//     bench shape: failures, partition losses, failovers, a master that died
//     mid-job) against what the page shows from the CLI: `status`, `replay
//     --dry-run`, `timeline --svg` and one `replay --dry-run --at SEQ` for
//     each failover of the log, every one with --format json;
//   - the job list (GET /) of -logs small logs, some running, against `ls`.
//
// Each page is timed cold (the first request of a new server: no plan
// cached) and warm (the next requests). bench/serve.sh runs it the way the
// README's figures were taken.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/pkg/blob"
)

func main() {
	var (
		dir    = flag.String("dir", "", "scratch directory; logs generated into it are kept and reused (required)")
		bin    = flag.String("jobevent", "", "the jobevent binary to time (required)")
		events = flag.Int64("events", 1_000_000, "events of the job page's log; 0: no job page")
		logs   = flag.Int("logs", 1000, "logs of the job list")
		runs   = flag.Int("runs", 3, "runs of each measure; the median is reported")
	)
	flag.Parse()
	if *dir == "" || *bin == "" {
		fmt.Fprintln(os.Stderr, "servebench: -dir and -jobevent are required")
		os.Exit(2)
	}
	if err := run(context.Background(), *dir, *bin, *events, *logs, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "servebench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir, bin string, events int64, logs, runs int) error {
	many := filepath.Join(dir, "many")
	if err := generateMany(ctx, many, logs); err != nil {
		return err
	}
	if events > 0 {
		page, err := jobPage(ctx, dir, bin, events, runs)
		if err != nil {
			return err
		}
		report("job page, "+strconv.FormatInt(events, 10)+" events", page)
	}
	list, err := compare(bin, runs, many, "/", [][]string{{"ls", "file://" + many, "--format", "json"}})
	if err != nil {
		return err
	}
	report("job list, "+strconv.Itoa(logs)+" logs", list)
	return nil
}

// jobPage compares the job page of a log of events events with the CLI.
func jobPage(ctx context.Context, dir, bin string, events int64, runs int) (timing, error) {
	big := filepath.Join(dir, "big")
	if err := generateBig(ctx, big, events); err != nil {
		return timing{}, err
	}
	bigLog := "file://" + big + "?prefix=jobs/big/"
	failovers, err := failoverSeqs(bin, bigLog)
	if err != nil {
		return timing{}, err
	}
	fmt.Printf("job page log: %d events, %d failovers (after seqs %v)\n", events, len(failovers), failovers)
	cliPage := [][]string{
		{"status", bigLog, "--format", "json"},
		{"replay", bigLog, "--dry-run", "--format", "json"},
		{"timeline", bigLog, "--svg", filepath.Join(dir, "timeline.svg"), "--points", "200"}, // the page's curve
	}
	for _, s := range failovers {
		cliPage = append(cliPage, []string{"replay", bigLog, "--dry-run", "--at", strconv.FormatInt(s, 10), "--format", "json"})
	}
	return compare(bin, runs, big, "/jobs/jobs%2Fbig", cliPage)
}

// timing is the medians of one comparison.
type timing struct{ cli, cold, warm time.Duration }

func report(name string, t timing) {
	fmt.Printf("%-28s CLI %7.3f s   serve cold %7.3f s (%.2fx)   warm %7.3f s (%.2fx)\n", name,
		t.cli.Seconds(), t.cold.Seconds(), ratio(t.cold, t.cli), t.warm.Seconds(), ratio(t.warm, t.cli))
}

func ratio(a, b time.Duration) float64 { return a.Seconds() / b.Seconds() }

// compare times the CLI's commands (their sum, per run) and the page at
// path of a server over root: the first request of each new server (cold)
// and a second one (warm).
func compare(bin string, runs int, root, path string, cli [][]string) (timing, error) {
	var cliT, cold, warm []time.Duration
	for range runs {
		start := time.Now()
		for _, args := range cli {
			cmd := exec.Command(bin, args...)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = io.Discard, &stderr
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 0 && ee.ExitCode() != 1 {
					return timing{}, fmt.Errorf("%v: %v: %s", args, err, stderr.Bytes())
				}
			}
		}
		cliT = append(cliT, time.Since(start))
		c, w, err := servePage(bin, root, path)
		if err != nil {
			return timing{}, err
		}
		cold, warm = append(cold, c), append(warm, w)
	}
	return timing{median(cliT), median(cold), median(warm)}, nil
}

// servePage starts `jobevent serve root` and times two GETs of path.
func servePage(bin, root, path string) (cold, warm time.Duration, err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, err
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "serve", root, "--listen", addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	base := "http://" + addr
	for i := 0; ; i++ {
		resp, err := http.Get(base + "/api/v1/nothing")
		if err == nil {
			resp.Body.Close()
			break
		}
		if i == 200 {
			return 0, 0, fmt.Errorf("serve did not start: %v", err)
		}
		time.Sleep(25 * time.Millisecond)
	}
	get := func() (time.Duration, error) {
		start := time.Now()
		resp, err := http.Get(base + path)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return 0, err
		}
		if resp.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("GET %s: %s", path, resp.Status)
		}
		return time.Since(start), nil
	}
	if cold, err = get(); err != nil {
		return 0, 0, err
	}
	warm, err = get()
	return cold, warm, err
}

func median(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

// failoverSeqs are the seqs after which the masters of the log died, as
// `jobevent stats` lists them.
func failoverSeqs(bin, log string) ([]int64, error) {
	out, err := exec.Command(bin, "stats", log, "--format", "json").Output()
	if err != nil {
		return nil, fmt.Errorf("stats %s: %v", log, err)
	}
	var st struct {
		Failovers []struct {
			LastSeq int64 `json:"last_seq"`
		} `json:"failovers"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		return nil, err
	}
	var seqs []int64
	for _, f := range st.Failovers {
		seqs = append(seqs, f.LastSeq)
	}
	return seqs, nil
}

// generateBig writes the job page's log under dir, unless it is there.
func generateBig(ctx context.Context, dir string, events int64) error {
	if _, err := os.Stat(filepath.Join(dir, "jobs", "big", "events")); err == nil {
		return nil
	}
	o := loggen.BenchOptions(1, int(max(events/2, 1000)), events)
	o.FailureRate, o.SnapshotEvery, o.Failovers = 0.1, 8, 3
	return importLog(ctx, "file://"+dir+"?prefix=jobs/big/", loggen.Job(o), 100_000)
}

// generateMany writes n small logs under dir, unless they are there: a
// random job each, every third one stopped mid-run (a running job).
func generateMany(ctx context.Context, dir string, n int) error {
	if _, err := os.Stat(filepath.Join(dir, "jobs")); err == nil {
		return nil
	}
	for i := range n {
		o := loggen.Options{Seed: int64(i + 1), Job: fmt.Sprintf("job-%04d", i), Failovers: i % 2}
		if i%3 == 0 {
			o.StopAfter = 60
		}
		u := "file://" + dir + "?prefix=" + url.QueryEscape(fmt.Sprintf("jobs/%04d/", i))
		if err := importLog(ctx, u, loggen.Job(o), 1000); err != nil {
			return err
		}
	}
	return nil
}

func importLog(ctx context.Context, u string, src blob.EventSource, segEvents int) error {
	l, err := blob.Create(ctx, u)
	if err != nil {
		return err
	}
	defer l.Close()
	_, err = blob.Import(ctx, l, src, blob.ImportOptions{SegmentEvents: segEvents})
	return err
}
