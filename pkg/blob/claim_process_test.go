package blob

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

const claimHelperEnv = "JOBEVENT_BLOB_CLAIM_HELPER"

// TestClaimEpoch_Processes races real OS processes for the same epochs of
// a file:// log: in every trial exactly one wins. Each process is this test
// binary re-executed as TestClaimHelperProcess; a trial starts when the
// parent writes the epoch number to every process's stdin.
func TestClaimEpoch_Processes(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	const procs, trials = 6, 40
	url := "file://" + t.TempDir() + "?prefix=race/"
	if _, err := Create(ctx, url); err != nil {
		t.Fatal(err)
	}
	type helper struct {
		cmd *exec.Cmd
		in  io.WriteCloser
		out *bufio.Reader
	}
	helpers := make([]helper, procs)
	for i := range helpers {
		cmd := exec.Command(os.Args[0], "-test.run=^TestClaimHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), claimHelperEnv+"=1", "JOBEVENT_BLOB_URL="+url, "JOBEVENT_BLOB_MASTER=embedded")
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		helpers[i] = helper{cmd, in, bufio.NewReader(out)}
		defer cmd.Wait()
		defer in.Close()
	}
	readLine := func(h helper) string {
		line, err := h.out.ReadString('\n')
		if err != nil {
			t.Fatalf("helper %d: %v", h.cmd.Process.Pid, err)
		}
		return strings.TrimSpace(line)
	}
	for _, h := range helpers {
		if got := readLine(h); got != "ready" {
			t.Fatalf("helper said %q, want ready", got)
		}
	}
	for trial := 1; trial <= trials; trial++ {
		for _, h := range helpers {
			fmt.Fprintf(h.in, "%d\n", trial)
		}
		won := 0
		for _, h := range helpers {
			switch got := readLine(h); got {
			case "won":
				won++
			case "taken":
			default:
				t.Fatalf("trial %d: helper said %q", trial, got)
			}
		}
		if won != 1 {
			t.Fatalf("trial %d: %d processes won, want exactly 1", trial, won)
		}
	}
}

// TestClaimHelperProcess is the child of TestClaimEpoch_Processes: it claims
// each epoch read from stdin and answers won, taken or an error.
func TestClaimHelperProcess(t *testing.T) {
	if os.Getenv(claimHelperEnv) != "1" {
		t.Skip("helper process of TestClaimEpoch_Processes")
	}
	l, err := Open(ctx, os.Getenv("JOBEVENT_BLOB_URL"))
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	master := os.Getenv("JOBEVENT_BLOB_MASTER")
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		epoch, err := strconv.Atoi(in.Text())
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		switch err := l.ClaimEpoch(ctx, EpochInfo{Epoch: int32(epoch), Master: master, StartSeq: 1}); {
		case err == nil:
			fmt.Println("won")
		case strings.Contains(err.Error(), ErrEpochTaken.Error()):
			fmt.Println("taken")
		default:
			fmt.Println("error:", err)
		}
	}
}
