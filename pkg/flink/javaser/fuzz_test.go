package javaser

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecode checks that no input panics, that every error is a one-line
// *DecodeError or *WriteAbortedError, that the adapters and a full
// rendering of whatever decodes (cycles included) do not panic either, and
// that SkipValue agrees with ReadValue.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.ser")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 4096 {
			b = b[:4096]
		}
		f.Add(b)
	}
	f.Add(nestedArrays(3))
	f.Add(newStream().b(tcObject).classDesc("A", FlagSerializable|FlagWriteMethod, "Ix").i32(1).b(tcBlockData, 4).i32(9).ref(1).b(tcEndBlockData).Bytes())
	f.Add(newStream().b(tcLongString).i64(3).b('a', 0xc0, 0x80).b(tcReset, tcException).b(tcString).utf("x").Bytes())
	f.Add(newStream().b(tcProxyClassDesc).i32(1).utf("I").b(tcEndBlockData, tcNull).Bytes())
	seg := newStream().b(tcArray).classDesc("[LS;", FlagSerializable).i32(3).
		b(tcObject).classDesc("S", FlagSerializable, "Ia", "Lb").i32(1).b(tcNull)
	f.Add(seg.b(tcObject).ref(1).i32(1).b(tcNull).b(tcObject).ref(1).i32(1).b(tcNull).Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSkipAgrees(t, data, &Options{MaxDepth: 200}, false)
		plain := fuzzDecode(t, data, true)
		// Twice with the descriptor cache: the second read may take every
		// descriptor from it, and must read the same.
		for range 2 {
			if cached := fuzzDecode(t, data, false); cached != plain {
				t.Fatalf("with the descriptor cache:\n%s\nwithout:\n%s", cached, plain)
			}
		}
	})
}

// fuzzDecode decodes data (with Options that limit nesting to 200) and
// returns the rendering of its contents and of the error that ends them.
func fuzzDecode(t *testing.T, data []byte, noCache bool) string {
	d, err := NewDecoder(data, &Options{MaxDepth: 200})
	if err != nil {
		checkErr(t, err)
		return err.Error()
	}
	d.noCache = noCache
	var b strings.Builder
	for range 1000 {
		v, err := d.Next()
		if err != nil {
			if err.Error() == "EOF" {
				break
			}
			checkErr(t, err)
			b.WriteString(err.Error() + "\n")
			var wa *WriteAbortedError
			if !errors.As(err, &wa) {
				break
			}
			continue
		}
		b.WriteString(render(v))
		AsList(v)
		AsMap(v)
		AsBoxed(v)
		AsInetAddress(v)
	}
	return b.String()
}

func checkErr(t *testing.T, err error) {
	var de *DecodeError
	var wa *WriteAbortedError
	if !errors.As(err, &de) && !errors.As(err, &wa) {
		t.Fatalf("error %v (%T) is neither a *DecodeError nor a *WriteAbortedError", err, err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %q spans lines", err)
	}
}
