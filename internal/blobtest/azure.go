package blobtest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"

	"github.com/jobevent/jobevent/internal/testenv"
)

// Azurite's published development account (the emulator's well-known
// credentials, not a secret).
const (
	AzuriteAccount = "devstoreaccount1"
	AzuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// AzuriteServer is Microsoft's Azure Blob emulator, Azurite, run as a child
// process on 127.0.0.1 for one test.
type AzuriteServer struct {
	host       string // 127.0.0.1:PORT
	client     *azblob.Client
	containers atomic.Int64
}

// NewAzurite starts `azurite-blob` (npm package azurite) in memory on a free
// 127.0.0.1 port for the duration of t, and sets AZURE_STORAGE_ACCOUNT and
// AZURE_STORAGE_KEY to the emulator's account. When azurite-blob is not on
// PATH the test is skipped, or fails if CI=true.
func NewAzurite(t testing.TB) *AzuriteServer {
	t.Helper()
	bin := testenv.Need(t, "azurite-blob", "npm install azurite@3.37.0 and add node_modules/.bin to PATH")
	host := freeAddr(t)
	_, port, _ := net.SplitHostPort(host)
	cmd := exec.Command(bin, "--blobHost", "127.0.0.1", "--blobPort", port,
		"--inMemoryPersistence", "--skipApiVersionCheck", "--loose")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("start azurite-blob: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	if err := waitForLine(out, "successfully listens on", time.Minute); err != nil {
		t.Fatalf("azurite-blob on %s: %v", host, err)
	}
	t.Setenv("AZURE_STORAGE_ACCOUNT", AzuriteAccount)
	t.Setenv("AZURE_STORAGE_KEY", AzuriteKey)
	cred, err := azblob.NewSharedKeyCredential(AzuriteAccount, AzuriteKey)
	if err != nil {
		t.Fatal(err)
	}
	client, err := azblob.NewClientWithSharedKeyCredential(fmt.Sprintf("http://%s/%s/", host, AzuriteAccount), cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &AzuriteServer{host: host, client: client}
}

// Bucket creates a new, empty container and returns its URL, e.g.
// azblob://jobevents-1?protocol=http&domain=127.0.0.1:PORT.
func (s *AzuriteServer) Bucket(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("jobevents-%d", s.containers.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.client.CreateContainer(ctx, name, nil); err != nil {
		t.Fatalf("create container %s: %v", name, err)
	}
	return fmt.Sprintf("azblob://%s?protocol=http&domain=%s", name, s.host)
}

// freeAddr returns a 127.0.0.1 address with a port that was free a moment
// ago.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitForLine reads r until a line containing want, then keeps draining r
// in the background so the writer never blocks.
func waitForLine(r io.Reader, want string, timeout time.Duration) error {
	found := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(r)
		var last []string
		for sc.Scan() {
			if strings.Contains(sc.Text(), want) {
				found <- nil
				io.Copy(io.Discard, r)
				return
			}
			last = append(last, sc.Text())
		}
		found <- fmt.Errorf("exited before %q; output:\n%s", want, strings.Join(last, "\n"))
	}()
	select {
	case err := <-found:
		return err
	case <-time.After(timeout):
		return fmt.Errorf("no %q after %v", want, timeout)
	}
}
