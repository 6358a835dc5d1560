package javaser

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// decodeRendered renders every top-level content of a stream as
// testdata/gen/Gen.java writes its expected text: a "--- N" header, then
// the rendering, or "aborted CLASS: MESSAGE" for a TC_EXCEPTION.
func decodeRendered(data []byte, noCache bool) (string, error) {
	d, err := NewDecoder(data, nil)
	if err != nil {
		return "", err
	}
	d.noCache = noCache
	var b strings.Builder
	for n := 1; ; n++ {
		v, err := d.Next()
		if err == io.EOF {
			return b.String(), nil
		}
		fmt.Fprintf(&b, "--- %d\n", n)
		var wa *WriteAbortedError
		if errors.As(err, &wa) {
			b.WriteString("aborted " + describeThrowable(wa.Exception) + "\n")
			continue
		}
		if err != nil {
			return b.String(), err
		}
		b.WriteString(render(v))
	}
}

// TestDecode_Golden decodes each stream that Java 17 wrote (testdata/*.ser,
// from testdata/gen) and compares the rendering with the one Java wrote from
// the objects themselves (testdata/*.txt).
func TestDecode_Golden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.ser")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 14 {
		t.Fatalf("found %d fixtures, want at least 14", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".ser")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(f, ".ser") + ".txt")
			if err != nil {
				t.Fatal(err)
			}
			// Without the descriptor cache, then twice with it (the
			// second time from the cache).
			for i, noCache := range []bool{true, false, false} {
				got, err := decodeRendered(data, noCache)
				if err != nil {
					t.Fatalf("decode %d: %v", i, err)
				}
				if got != string(want) {
					t.Errorf("decode %d: rendering differs from Java's\n%s", i, firstDiff(got, string(want)))
				}
			}
		})
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got %q\nwant %q", i+1, gl, wl)
		}
	}
	return "(equal)"
}

// TestDecode_Concurrent decodes the fixtures from several goroutines at
// once, sharing the descriptor cache (run with -race).
func TestDecode_Concurrent(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.ser")
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(files))
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					errs <- err
					return
				}
				want, err := os.ReadFile(strings.TrimSuffix(f, ".ser") + ".txt")
				if err != nil {
					errs <- err
					return
				}
				if got, err := decodeRendered(data, false); err != nil || got != string(want) {
					errs <- fmt.Errorf("%s: rendering differs (error %v)", f, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
