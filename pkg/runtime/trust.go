package runtime

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Identity between a master and its workers (part of the wire format).
//
// A worker registers with a session key it drew at start (registration's
// Session, 32 hex digits or more). Before the master accepts the
// registration, and so before it sends the worker's address anything that
// carries the token, it posts a fresh nonce to that address's /v1/hello,
// without the token; the worker answers
//
//	hex(HMAC-SHA256(token, "jobevent/v1 worker proof\n" + nonce + "\n" + worker + "\n" + addr))
//
// for its own name and address only. A wrong or missing answer refuses the
// registration (403). From then on the worker's heartbeats, split requests
// and reports carry its key in X-Jobevent-Session: the master takes a
// report or a split request only from the worker the key was registered
// by, and only for an attempt it deployed to that worker (403 otherwise).
// With TLS, both sides present their certificates and check the other's
// against the CA, and a session stays bound to the certificate it was
// registered over.

// sessionHeader carries a worker's session key to its master.
const sessionHeader = "X-Jobevent-Session"

// proofDomain separates the worker's proof from any other use of the token.
const proofDomain = "jobevent/v1 worker proof\n"

// errForbidden marks a request from a peer the master did not verify, or
// for something it was never given (HTTP 403).
var errForbidden = errors.New("jobevent/runtime: forbidden")

func forbiddenf(format string, args ...any) error {
	return &wireError{kind: errForbidden, msg: fmt.Sprintf(format, args...)}
}

// helloRequest is the master's challenge to a registering worker.
type helloRequest struct {
	Nonce  string `json:"nonce"`
	Worker string `json:"worker"`
	Addr   string `json:"addr"`
}

// helloReply is the worker's proof that it holds the token.
type helloReply struct {
	Proof string `json:"proof"`
}

func (h *helloRequest) check() error {
	if err := checkKey("nonce", h.Nonce); err != nil {
		return err
	}
	if !dialable(h.Addr) {
		return badRequestf("address %q: want HOST:PORT", h.Addr)
	}
	return checkName("worker", h.Worker)
}

// checkKey checks a nonce or a session key: 32 to 128 hex digits.
func checkKey(what, key string) error {
	if len(key) < 32 || len(key) > 128 {
		return badRequestf("%s of %d characters: want 32 to 128 hex digits", what, len(key))
	}
	if _, err := hex.DecodeString(key); err != nil {
		return badRequestf("%s: want hex digits", what)
	}
	return nil
}

// newKey returns 128 random bits in hex: a nonce or a session key.
func newKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// workerProof is the answer to a hello of worker at addr.
func workerProof(token, nonce, worker, addr string) string {
	mac := hmac.New(sha256.New, []byte(token))
	mac.Write([]byte(proofDomain + nonce + "\n" + worker + "\n" + addr))
	return hex.EncodeToString(mac.Sum(nil))
}

// helloHandler answers the master's challenge for the worker named self
// at addr, and for no other name or address.
func helloHandler(token, self, addr string) http.Handler {
	return jsonHandler(func(_ context.Context, h *helloRequest) (helloReply, error) {
		if h.Worker != self || h.Addr != addr {
			return helloReply{}, forbiddenf("this is worker %s at %s, not %s at %s", self, addr, h.Worker, h.Addr)
		}
		return helloReply{Proof: workerProof(token, h.Nonce, self, addr)}, nil
	})
}

// challenge asks the worker registering as reg to prove, at the address it
// gave, that it holds the token. The request carries no token.
func challenge(ctx context.Context, p *peers, token string, reg *registration) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	nonce := newKey()
	var reply helloReply
	c := p.client(reg.Addr, "")
	if err := c.do(ctx, http.MethodPost, "/v1/hello", helloRequest{Nonce: nonce, Worker: reg.Worker, Addr: reg.Addr}, &reply); err != nil {
		return forbiddenf("worker %s: its address %s does not answer as that worker: %v (check the worker's --listen and --name)", reg.Worker, reg.Addr, err)
	}
	want := workerProof(token, nonce, reg.Worker, reg.Addr)
	if subtle.ConstantTimeCompare([]byte(reply.Proof), []byte(want)) != 1 {
		return forbiddenf("worker %s at %s does not prove that it holds the token", reg.Worker, reg.Addr)
	}
	return nil
}

// peerKey is the context key of the identity a request came with.
type peerKey struct{}

// peerID is what a request to the master shows of its sender: the session
// key it carries and the TLS certificate it presented.
type peerID struct {
	session string
	cert    [32]byte // SHA-256 of the leaf certificate; zero without TLS
}

// withPeer puts the identity of r's sender in its context.
func withPeer(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := peerID{session: r.Header.Get(sessionHeader)}
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			id.cert = sha256.Sum256(r.TLS.PeerCertificates[0].Raw)
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), peerKey{}, id)))
	})
}

func peerOf(ctx context.Context) peerID {
	id, _ := ctx.Value(peerKey{}).(peerID)
	return id
}

// sessions maps the session keys of registered workers to their names. It
// is safe for concurrent use.
type sessions struct {
	mu       sync.Mutex
	byKey    map[string]peerSession
	byWorker map[string]string // worker → its current key
}

type peerSession struct {
	worker string
	cert   [32]byte
}

func newSessions() *sessions {
	return &sessions{byKey: map[string]peerSession{}, byWorker: map[string]string{}}
}

// bind records the session of a verified registration of worker, which
// replaces its previous one (a restarted worker draws a new key). A key
// already bound to another worker is refused.
func (s *sessions) bind(worker, key string, id peerID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.byKey[key]; ok && old.worker != worker {
		return forbiddenf("worker %s registers with the session key of worker %s", worker, old.worker)
	}
	if old, ok := s.byWorker[worker]; ok && old != key {
		delete(s.byKey, old)
	}
	s.byKey[key] = peerSession{worker: worker, cert: id.cert}
	s.byWorker[worker] = key
	return nil
}

// worker returns the worker whose session id shows; ok is false for a key
// that no verified registration bound (or one bound over another
// certificate).
func (s *sessions) worker(id peerID) (name string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ps, ok := s.byKey[id.session]
	if !ok || id.session == "" || ps.cert != id.cert {
		return "", false
	}
	return ps.worker, true
}

// as checks that the request of ctx comes from worker's session.
func (s *sessions) as(ctx context.Context, worker string) error {
	got, ok := s.worker(peerOf(ctx))
	switch {
	case !ok:
		return forbiddenf("no verified registration of worker %s carries this session key: register first", worker)
	case got != worker:
		return forbiddenf("worker %s sends a request in the name of worker %s", got, worker)
	}
	return nil
}

// givenSet remembers which worker each attempt was deployed to. It is safe
// for concurrent use.
type givenSet struct {
	mu sync.Mutex
	m  map[givenKey]string // → worker
}

type givenKey struct {
	epoch int32
	ref   attemptRef
}

func newGivenSet() *givenSet { return &givenSet{m: map[givenKey]string{}} }

func (g *givenSet) add(worker string, epoch int32, ref attemptRef) {
	g.mu.Lock()
	g.m[givenKey{epoch, ref}] = worker
	g.mu.Unlock()
}

// check refuses a request of worker about an attempt it was never given.
func (g *givenSet) check(worker string, epoch int32, ref attemptRef) error {
	g.mu.Lock()
	got, ok := g.m[givenKey{epoch, ref}]
	g.mu.Unlock()
	if !ok || got != worker {
		return forbiddenf("worker %s was never given %s in epoch %d", worker, ref, epoch)
	}
	return nil
}
