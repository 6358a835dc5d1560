package javaser

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecode checks that no input panics, that every error is a one-line
// *DecodeError or *WriteAbortedError, and that the adapters and a full
// rendering of whatever decodes (cycles included) do not panic either.
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
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := NewDecoder(data, &Options{MaxDepth: 200})
		if err != nil {
			checkErr(t, err)
			return
		}
		for range 1000 {
			v, err := d.Next()
			if err != nil {
				if err.Error() == "EOF" {
					return
				}
				checkErr(t, err)
				var wa *WriteAbortedError
				if !errors.As(err, &wa) {
					return
				}
				continue
			}
			render(v)
			AsList(v)
			AsMap(v)
			AsBoxed(v)
			AsInetAddress(v)
		}
	})
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
