package testenv

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Server starts an HTTP server of h on 127.0.0.1 only (never every
// interface, as httptest may), closed when the test ends, and returns its
// base URL.
func Server(t testing.TB, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewUnstartedServer(h)
	s.Listener.Close()
	s.Listener = l
	s.Start()
	t.Cleanup(s.Close)
	return s.URL
}
