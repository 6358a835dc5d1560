package runtime

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
)

// TLSFiles turn on mutual HTTPS between a master and its workers: every
// process serves its requests with Cert and Key, presents the same
// certificate when it calls a peer, and checks its peers' certificates,
// as servers and as clients, against CA (so a certificate must allow
// server and client authentication, or name no extended key usage). The
// processes of one job use the same CA; a process with TLS does not talk
// to one without. The shared token still authenticates every request.
type TLSFiles struct {
	Cert string // PEM certificate this process serves and calls with
	Key  string // PEM private key of Cert
	CA   string // PEM bundle of the CAs that signed the peers' certificates (required)
}

func (t TLSFiles) enabled() bool { return t != TLSFiles{} }

// peers is how a process reaches and serves the others of its job: plain
// HTTP, or HTTPS with TLSFiles.
type peers struct {
	scheme string
	http   *http.Client
	server *tls.Config // nil: plain HTTP
}

func newPeers(t TLSFiles) (*peers, error) {
	if !t.enabled() {
		return &peers{scheme: "http", http: &http.Client{Timeout: requestTimeout}}, nil
	}
	if t.Cert == "" || t.Key == "" || t.CA == "" {
		return nil, errors.New("TLS needs a certificate, its key and the CA that signed the peers' certificates (--tls-cert, --tls-key and --tls-ca)")
	}
	cert, err := tls.LoadX509KeyPair(t.Cert, t.Key)
	if err != nil {
		return nil, fmt.Errorf("TLS certificate %s with key %s: %w", t.Cert, t.Key, err)
	}
	pem, err := os.ReadFile(t.CA)
	if err != nil {
		return nil, fmt.Errorf("TLS CA: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("TLS CA %s: no PEM certificate in it", t.CA)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	return &peers{
		scheme: "https",
		http:   &http.Client{Timeout: requestTimeout, Transport: tr},
		server: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12,
			ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: roots},
	}, nil
}

// listener wraps ln to serve HTTPS when TLS is on.
func (p *peers) listener(ln net.Listener) net.Listener {
	if p.server == nil {
		return ln
	}
	return tls.NewListener(ln, p.server)
}

// serverLog returns the error log of an HTTP server of this process: lines
// like "jobevent: master: http: TLS handshake error from …" on w.
func serverLog(w io.Writer, who string) *log.Logger {
	if w == nil {
		w = io.Discard
	}
	return log.New(w, "jobevent: "+who+": ", 0)
}

// url returns the base URL of the peer at addr (host:port).
func (p *peers) url(addr string) string { return p.scheme + "://" + addr }

// client returns a client calling the peer at addr with token.
func (p *peers) client(addr, token string) *httpClient {
	return &httpClient{base: p.url(addr), token: token, client: p.http}
}
