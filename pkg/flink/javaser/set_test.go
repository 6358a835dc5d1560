package javaser

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The streams in testdata/sets were written by JDK 17's ObjectOutputStream
// (writeObject of each set).
func TestAsSet(t *testing.T) {
	for _, c := range []struct {
		file string
		want []int32
	}{
		{"hashset", []int32{1, 2, 3}},
		{"linkedhashset", []int32{5, 4}},
		{"treeset", []int32{7, 8, 9}},
		{"setof", []int32{6}},
		{"emptyset", []int32{}},
		{"singleton", []int32{11}},
		{"unmodifiable", []int32{12, 13}},
		{"unmodifiablesorted", []int32{14, 15}},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", "sets", "set-"+c.file+".ser"))
		if err != nil {
			t.Fatal(err)
		}
		v, err := DecodeObject(data, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		elems, err := AsSet(v)
		if err != nil {
			t.Fatalf("%s: AsSet: %v", c.file, err)
		}
		got := []int32{}
		for _, e := range elems {
			b, err := AsBoxed(e)
			if err != nil {
				t.Fatalf("%s: element: %v", c.file, err)
			}
			got = append(got, b.(int32))
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: elements %v, want %v", c.file, got, c.want)
		}
	}
	if _, err := AsSet("not a set"); !errors.Is(err, ErrNotAdapted) {
		t.Errorf("AsSet(string): err = %v, want ErrNotAdapted", err)
	}
	list, _ := os.ReadFile(filepath.Join("testdata", "sets", "set-hashset.ser"))
	for n := range len(list) {
		v, err := DecodeObject(list[:n], nil)
		if err == nil {
			AsSet(v) // truncated streams must not panic
		}
	}
}
