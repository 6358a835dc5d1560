package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// selfSignedTLS writes a certificate for 127.0.0.1 that is its own CA:
// dir/cert.pem, dir/key.pem.
func selfSignedTLS(t *testing.T, dir string) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// TestProcess_MisconfiguredWorker starts a real master and a real worker
// that the master refuses (a wrong token; plain HTTP against HTTPS; a
// certificate its CA did not sign): the
// worker exits 2 after a bounded number of attempts with one line naming
// the cause, and the master logs the refused worker once and says that it
// has no workers.
func TestProcess_MisconfiguredWorker(t *testing.T) {
	tlsDir, otherDir := t.TempDir(), t.TempDir()
	cert, key := selfSignedTLS(t, tlsDir)
	otherCert, otherKey := selfSignedTLS(t, otherDir) // a certificate the master's CA did not sign
	for _, tc := range []struct {
		name         string
		master       []string
		worker       []string
		workerCause  string
		masterRefuse string
		refusedWho   string
	}{
		{"wrong token", nil, []string{"--token", "wrong", "--name", "w9"}, "wrong token", "missing or wrong token", `worker "w9" at 127.0.0.1`},
		{"plain HTTP against HTTPS", []string{"--tls-cert", cert, "--tls-key", key, "--tls-ca", cert}, nil, "plain HTTP", "TLS handshake failed", "a worker at 127.0.0.1"},
		{"HTTPS against plain HTTP", nil, []string{"--tls-cert", cert, "--tls-key", key, "--tls-ca", cert}, "master plain HTTP", "speaks HTTPS", "a worker at 127.0.0.1"},
		{"untrusted worker certificate", []string{"--tls-cert", cert, "--tls-key", key, "--tls-ca", cert},
			[]string{"--tls-cert", otherCert, "--tls-key", otherKey, "--tls-ca", cert}, "does not trust this worker's TLS certificate", "TLS handshake failed", "a worker at 127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			dir, spec := t.TempDir(), ""
			spec = filepath.Join(dir, "job.yaml")
			writeTextSpec(t, spec, "in", "out")
			if err := os.MkdirAll(filepath.Join(dir, "in"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "in", "a.txt"), []byte("a b\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(spec, append(mustRead(t, spec), "settings:\n  heartbeat.interval: 50ms\n  heartbeat.timeout: 300ms\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			logURL := "file://" + filepath.Join(dir, "log")
			m := startProc(t, ctx, dir, append([]string{"master", spec, "--events", logURL}, tc.master...)...)
			waitForLog(t, ctx, logURL)
			w := runProc(t, ctx, dir, append([]string{"worker", "--events", logURL, "--dir", filepath.Join(dir, "w")}, tc.worker...)...)
			w.wantOneLineError(t, 2, tc.workerCause, "5 times")
			for !strings.Contains(m.output(), "no workers") {
				select {
				case <-ctx.Done():
					t.Fatalf("the master never said it had no workers:\n%s", m.output())
				case <-time.After(20 * time.Millisecond): // polling interval
				}
			}
			m.cmd.Process.Kill()
			out := m.wait(t).stderr
			if n := strings.Count(out, "refused "+tc.refusedWho); n != 1 || !strings.Contains(out, tc.masterRefuse) {
				t.Fatalf("master stderr logs the refused worker %d times, want once naming %q:\n%s", n, tc.masterRefuse, out)
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// output returns what the process wrote to stderr so far.
func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}
