package flink

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/jobevent/jobevent/internal/flinkfixture"
)

// payloadFiles returns the job-events files of the fixtures and of the
// real Flink runs (testdata/flink, or $JOBEVENT_FLINK_ROOT), the latter
// flagged real.
func payloadFiles(t testing.TB) (files []string, real map[string]bool) {
	for _, dir := range fixtureDirs {
		f, _ := filepath.Glob(filepath.Join(dir, "job-events", "events.*"))
		files = append(files, f...)
	}
	realFiles := flinkfixture.Files()
	real = map[string]bool{}
	for _, f := range realFiles {
		real[f] = true
	}
	return append(files, realFiles...), real
}

// readPayloads returns the type and payload of every whole record of the
// file.
func readPayloads(t testing.TB, file string) (types []int32, payloads [][]byte) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return filePayloads(data)
}

// filePayloads returns the type and payload of every whole record of data.
func filePayloads(data []byte) (types []int32, payloads [][]byte) {
	for _, off := range recordOffsets(data) {
		end := off + 8 + int(binary.BigEndian.Uint32(data[off+4:]))
		if end > len(data) || end < off+8 {
			break
		}
		types = append(types, int32(binary.BigEndian.Uint32(data[off:])))
		payloads = append(payloads, data[off+8:end])
	}
	return types, payloads
}

// TestDecodePayload_TypedEqualsGeneric decodes every record of the
// fixtures and of the real Flink files with the typed reader and with the
// generic reader alone: the events must be equal. The typed reader must
// read every stream of the real files itself.
func TestDecodePayload_TypedEqualsGeneric(t *testing.T) {
	files, real := payloadFiles(t)
	f := new(fastDecoder)
	typed := 0
	for _, file := range files {
		types, payloads := readPayloads(t, file)
		for i, p := range payloads {
			where := fmt.Sprintf("%s record %d", file, i+1)
			compareDecoders(t, f, where, types[i], p)
			if real[file] && !typedReads(f, types[i], p) {
				t.Errorf("%s (type %d): the typed reader gives up on a real Flink record", where, types[i])
			}
			if typedReads(f, types[i], p) {
				typed++
			}
		}
	}
	t.Logf("%d files, %d records read by the typed reader", len(files), typed)
}

// TestDecodePayload_TypedEqualsGenericDamaged compares both ways on the
// fixtures' records cut short at every length and with every byte
// flipped.
func TestDecodePayload_TypedEqualsGenericDamaged(t *testing.T) {
	f := new(fastDecoder)
	for _, dir := range fixtureDirs {
		data, err := os.ReadFile(filepath.Join(dir, "job-events", "events.0"))
		if err != nil {
			t.Fatal(err)
		}
		types, payloads := filePayloads(data)
		for i, p := range payloads {
			for n := range len(p) {
				compareDecoders(t, f, "cut", types[i], p[:n])
			}
			q := make([]byte, len(p))
			for j := range p {
				copy(q, p)
				q[j] ^= 0xff
				compareDecoders(t, f, "flipped", types[i], q)
			}
		}
	}
}

// typedReads reports whether the typed reader reads the record's streams
// without the generic reader.
func typedReads(f *fastDecoder, typ int32, p []byte) bool {
	switch typ {
	case TypeVertexFinished:
		off := 0
		b1, err1 := blob(p, &off, "")
		b2, err2 := blob(p, &off, "")
		if err1 != nil || err2 != nil {
			return false
		}
		_, ok1 := f.finished(b1)
		_, ok2 := f.coordinatorSnapshots(b2)
		return ok1 && ok2
	case TypeVertexReset:
		_, ok := f.vertexReset(p)
		return ok
	case TypeJobVertexInitialized:
		_, ok := f.jobVertexInitialized(p)
		return ok
	}
	return false
}

// compareDecoders fails t unless the typed and the generic reader decode
// payload to equal events or fail with the same error.
func compareDecoders(t testing.TB, f *fastDecoder, where string, typ int32, payload []byte) {
	t.Helper()
	fast, ferr := decodePayload(typ, payload, f)
	gen, gerr := decodePayload(typ, payload, nil)
	if errText(ferr) != errText(gerr) {
		t.Fatalf("%s (type %d): typed reader error %q, generic %q", where, typ, errText(ferr), errText(gerr))
	}
	if !reflect.DeepEqual(fast, gen) {
		fj, _ := json.Marshal(fast)
		gj, _ := json.Marshal(gen)
		t.Fatalf("%s (type %d): typed reader reads\n%s\ngeneric reads\n%s", where, typ, fj, gj)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestDecodePayload_Concurrent decodes every record from several
// goroutines at once (the typed readers come from a pool, the descriptor
// cache is shared): each event must equal the generic reader's.
func TestDecodePayload_Concurrent(t *testing.T) {
	files, _ := payloadFiles(t)
	var types []int32
	var payloads [][]byte
	for _, file := range files {
		ty, p := readPayloads(t, file)
		types, payloads = append(types, ty...), append(payloads, p...)
	}
	want := make([]Event, len(payloads))
	for i, p := range payloads {
		want[i], _ = decodePayload(types[i], p, nil)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range payloads {
				i := (k + g*len(payloads)/4) % len(payloads)
				if got, _ := DecodePayload(types[i], payloads[i]); !reflect.DeepEqual(got, want[i]) {
					t.Errorf("record %d: concurrent DecodePayload reads another event", i)
					return
				}
			}
		}()
	}
	wg.Wait()
}
