package flink

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseHA feeds ParseHA mutations of real HA plan files (both Flink
// versions, JobGraphs and StreamGraphs): no input may panic, and a plan it
// accepts has a node per job vertex.
func FuzzParseHA(f *testing.F) {
	var seeds []string
	for _, pat := range []string{"testdata/ha/*/default/submitted*", "testdata/hashgen/*/case-000[0-2]/submitted*"} {
		m, _ := filepath.Glob(pat)
		seeds = append(seeds, m...)
	}
	if len(seeds) == 0 {
		f.Fatal("no seed files")
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(filepath.Base(s), data)
		f.Add(filepath.Base(s), data[:len(data)/2])
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		info, err := ParseHA(name, data)
		if err != nil {
			return
		}
		if info.Plan == nil {
			t.Fatal("no plan and no error")
		}
		for id := range info.Coordinators {
			if info.Plan.node(id) == nil {
				t.Fatalf("coordinator of %s, which is no plan node", id)
			}
		}
	})
}
