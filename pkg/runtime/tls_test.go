package runtime

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testTLS writes a CA and a certificate it signed for 127.0.0.1 under dir.
func testTLS(t *testing.T, dir string) TLSFiles {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "jobevent test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	files := TLSFiles{Cert: filepath.Join(dir, "cert.pem"), Key: filepath.Join(dir, "key.pem"), CA: filepath.Join(dir, "ca.pem")}
	for path, block := range map[string]*pem.Block{
		files.Cert: {Type: "CERTIFICATE", Bytes: leafDER},
		files.Key:  {Type: "EC PRIVATE KEY", Bytes: keyDER},
		files.CA:   {Type: "CERTIFICATE", Bytes: caDER},
	} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestProcess_TLS runs a master and two workers over HTTPS, crashes the
// master and resumes it: registration, deployment, partition fetches
// between workers and recovery all go over TLS, and a plain HTTP request
// to the master is refused.
func TestProcess_TLS(t *testing.T) {
	t.Parallel()
	want, _ := cleanRun(t, "wordcount.yaml", 1)
	dir := jobDir(t)
	c := newProcessCluster(t, dir, "wordcount")
	c.tls = testTLS(t, t.TempDir())
	c.worker("w1")
	c.worker("w2")
	var plain error
	_, err := c.master(MasterOptions{Spec: fastJob(t, "wordcount.yaml"), CrashAfterSeq: 20, OnListen: func(addr string) {
		resp, err := http.Get("http://" + addr + "/v1/register")
		if err != nil {
			plain = err
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), "HTTP request to an HTTPS server") {
			plain = fmt.Errorf("plain HTTP to the master answered %s %q, want the TLS server's refusal", resp.Status, body)
		}
	}})
	if plain != nil {
		t.Fatal(plain)
	}
	c.resumeAfterCrash(err, "wordcount", want)
}

func TestNewPeers_BadFiles(t *testing.T) {
	t.Parallel()
	good := testTLS(t, t.TempDir())
	junk := filepath.Join(t.TempDir(), "junk.pem")
	if err := os.WriteFile(junk, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		files TLSFiles
		want  string
	}{
		{TLSFiles{Cert: good.Cert}, "a certificate, its key and the CA"},
		{TLSFiles{CA: good.CA}, "a certificate, its key and the CA"},
		{TLSFiles{Cert: good.Cert, Key: good.Key}, "--tls-ca"},
		{TLSFiles{Cert: good.Cert, Key: junk, CA: good.CA}, "junk.pem"},
		{TLSFiles{Cert: good.Cert, Key: good.Key, CA: junk}, "no PEM certificate"},
		{TLSFiles{Cert: good.Cert, Key: good.Key, CA: filepath.Join(t.TempDir(), "missing.pem")}, "missing.pem"},
	} {
		if _, err := newPeers(tc.files); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("newPeers(%+v) = %v, want an error containing %q", tc.files, err, tc.want)
		}
	}
	if p, err := newPeers(good); err != nil || p.scheme != "https" {
		t.Fatalf("newPeers(good) = %+v, %v", p, err)
	}
}
