package format

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"
	pqformat "github.com/parquet-go/parquet-go/format"
)

// segmentFixtures are the committed segments of sampleEvents, one per
// schema version this package has written; every later version must keep
// reading them. TestGolden_Segment writes (with -update) only the current
// version's file; the others are history and never rewritten.
var segmentFixtures = []struct {
	version  string
	path     string
	dataPage pqformat.PageType // the type of every data page
}{
	{"1.0", "testdata/sample-v1.0.parquet", pqformat.DataPageV2},
	{"1.1", "testdata/sample-v1.1.parquet", pqformat.DataPage},
}

// TestSegmentFixtures: every committed segment, of every schema version,
// passes its checksum, reports its version and decodes to the events of
// testdata/sample.jsonl; its data pages are of the version's page type.
func TestSegmentFixtures(t *testing.T) {
	want, err := decodeJSONL(readFixture(t, goldenJSONL))
	if err != nil {
		t.Fatal(err)
	}
	for _, fx := range segmentFixtures {
		t.Run(fx.version, func(t *testing.T) {
			data := readFixture(t, fx.path)
			sr, err := OpenSegment(data)
			if err != nil {
				t.Fatalf("%s: %v", fx.path, err)
			}
			if sr.Version() != fx.version {
				t.Errorf("Version() = %q, want %q", sr.Version(), fx.version)
			}
			got, err := decodeAll(data)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s decodes to other events than %s", fx.path, goldenJSONL)
			}
			checkDataPages(t, data, fx.dataPage)
		})
	}
}

// TestSegmentFixtures_Current: the current version has a fixture, the
// encoder writes it byte for byte, and a larger segment written now has
// the version's page type.
func TestSegmentFixtures_Current(t *testing.T) {
	last := segmentFixtures[len(segmentFixtures)-1]
	if last.version != SchemaVersion {
		t.Fatalf("newest fixture is version %s, want %s (add one: go test -run TestGolden_Segment -update)", last.version, SchemaVersion)
	}
	if !bytes.Equal(encode(t, sampleEvents()), readFixture(t, last.path)) {
		t.Fatalf("the segment written now differs from %s byte for byte: an encoder change (if intended, rerun with -update and review)", last.path)
	}
	checkDataPages(t, encode(t, realisticEvents(3000, 2)), last.dataPage)
}

// checkDataPages checks the page type of every data page of every column
// chunk of a segment, from the column chunks' page encoding statistics.
func checkDataPages(t *testing.T, data []byte, want pqformat.PageType) {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	for i, rg := range f.Metadata().RowGroups {
		for _, c := range rg.Columns {
			for _, s := range c.MetaData.EncodingStats {
				switch s.PageType {
				case pqformat.DictionaryPage:
				case want:
					pages += int(s.Count)
				default:
					t.Fatalf("row group %d column %v: %d pages of type %s, want %s", i, c.MetaData.PathInSchema, s.Count, s.PageType, want)
				}
			}
		}
	}
	if pages == 0 {
		t.Fatalf("no data pages of type %s", want)
	}
}

func readFixture(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
