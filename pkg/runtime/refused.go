package runtime

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jobevent/jobevent/internal/human"
)

// maxRefusals is how many registrations in a row a worker tries when the
// master refuses it for a reason that retrying cannot fix (a wrong token,
// plain HTTP against HTTPS or the reverse, an untrusted certificate)
// before it gives up.
const maxRefusals = 5

// RefusedError is returned by a worker that a master refused maxRefusals
// times in a row for a reason of configuration. Its ExitCode is 2.
type RefusedError struct {
	Cause    string // what is wrong, in words
	Attempts int
	Err      error // the last refusal, naming the master
}

// Error names the cause and the last refusal.
func (e *RefusedError) Error() string {
	return fmt.Sprintf("worker refused %s in a row: %s (%v)", human.Count(e.Attempts, "time"), e.Cause, e.Err)
}

// Unwrap returns the last refusal.
func (e *RefusedError) Unwrap() error { return e.Err }

// ExitCode returns 2: the worker is misconfigured.
func (e *RefusedError) ExitCode() int { return 2 }

// refusal says why err, the error of a request to the master, is one that
// retrying cannot fix; "" when it is not (the master may be down, or busy).
func refusal(err error) string {
	var herr *httpError
	var unknown x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var verify *tls.CertificateVerificationError
	var rec tls.RecordHeaderError
	switch {
	case errors.As(err, &herr) && herr.Status == http.StatusUnauthorized:
		return "wrong token: give the worker the master's --token (or JOBEVENT_TOKEN)"
	case errors.As(err, &herr) && herr.Status == http.StatusBadRequest && strings.Contains(herr.Msg, "HTTPS server"):
		return "the master serves HTTPS and this worker speaks plain HTTP: start the worker with --tls-cert, --tls-key and --tls-ca"
	case errors.As(err, &rec), err != nil && strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return "this worker speaks HTTPS and the master plain HTTP: start both with TLS, or neither"
	case errors.As(err, &unknown), errors.As(err, &hostname), errors.As(err, &verify):
		return "the master's TLS certificate is not trusted: give the worker the CA that signed it (--tls-ca)"
	case err != nil && strings.Contains(err.Error(), "remote error: tls:"):
		return "the master does not trust this worker's TLS certificate: it must be signed by a CA in the master's --tls-ca and allow client authentication"
	case errors.As(err, &herr) && herr.Status == http.StatusForbidden:
		return "the master refused this worker: " + herr.Msg
	case errors.As(err, &herr) && herr.Status == http.StatusBadRequest:
		return "the master refused the registration as malformed: " + herr.Msg
	}
	return ""
}

// refusalLog logs each refused peer once, by its IP address.
type refusalLog struct {
	logf func(string, ...any)

	mu   sync.Mutex
	seen map[string]bool
	n    int // refused requests, all peers
}

func newRefusalLog(logf func(string, ...any)) *refusalLog {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &refusalLog{logf: logf, seen: map[string]bool{}}
}

// refused records a refused request from who and logs the first one of
// each who.
func (r *refusalLog) refused(who, why string) {
	r.mu.Lock()
	r.n++
	first := !r.seen[who]
	r.seen[who] = true
	r.mu.Unlock()
	if first {
		r.logf("refused %s: %s (logged once)", who, why)
	}
}

// hostOf returns the host of a remote address host:port.
func hostOf(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return remote
	}
	return host
}

// requester names the worker that sent r, for a refusal: by the name in
// its registration when it is one, else by its host.
func requester(r *http.Request) string {
	host := hostOf(r.RemoteAddr)
	if r.URL.Path == "/v1/register" && r.Body != nil {
		var reg struct {
			Worker string `json:"worker"`
		}
		if json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&reg) == nil && reg.Worker != "" {
			return fmt.Sprintf("worker %q at %s", reg.Worker, host)
		}
	}
	return "a worker at " + host
}

// count returns how many requests were refused so far.
func (r *refusalLog) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// Write takes the lines of the HTTP server's error log: TLS handshake
// errors are refusals, logged once per host; other lines pass through.
func (r *refusalLog) Write(p []byte) (int, error) {
	line := strings.TrimSpace(string(p))
	const marker = "TLS handshake error from "
	if i := strings.Index(line, marker); i >= 0 {
		rest := line[i+len(marker):]
		remote, msg, _ := strings.Cut(rest, ": ")
		r.refused("a worker at "+hostOf(remote), "TLS handshake failed ("+msg+"): the worker must use TLS with a certificate the master's --tls-ca trusts")
		return len(p), nil
	}
	r.logf("%s", line)
	return len(p), nil
}

// noWorkersWatch says, once each time it happens, that a master has had
// no worker for longer than timeout.
type noWorkersWatch struct {
	since time.Time // when the master last had a worker, or started
	said  bool
}

// check returns the message to log, or "" when there is nothing to say.
func (w *noWorkersWatch) check(now time.Time, workers int, timeout time.Duration, refused int) string {
	if workers > 0 {
		w.since, w.said = now, false
		return ""
	}
	if w.said || now.Sub(w.since) <= timeout {
		return ""
	}
	w.said = true
	msg := fmt.Sprintf("no workers: none has been registered for %v; start `jobevent worker --events LOG --dir DIR` with the master's token", timeout)
	if refused > 0 {
		msg += fmt.Sprintf(" (%s refused so far)", human.Count(refused, "request"))
	}
	return msg
}

// watchPlain wraps the listener of a plain HTTP master so that a worker
// speaking TLS to it is logged once as refused (the server answers it
// 400, which the worker reads as "server gave HTTP response to HTTPS
// client").
func (r *refusalLog) watchPlain(ln net.Listener) net.Listener { return plainListener{ln, r} }

type plainListener struct {
	net.Listener
	log *refusalLog
}

func (l plainListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &helloConn{Conn: c, r: bufio.NewReader(c), log: l.log}, nil
}

// helloConn looks at the first byte a peer sends: 0x16 opens a TLS
// handshake.
type helloConn struct {
	net.Conn
	r    *bufio.Reader
	once sync.Once
	log  *refusalLog
}

func (c *helloConn) Read(p []byte) (int, error) {
	c.once.Do(func() {
		if b, err := c.r.Peek(1); err == nil && b[0] == 0x16 {
			c.log.refused("a worker at "+hostOf(c.RemoteAddr().String()), "it speaks HTTPS and this master plain HTTP: start both with TLS, or neither")
		}
	})
	return c.r.Read(p)
}
