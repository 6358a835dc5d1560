package format

import (
	"reflect"
	"testing"
)

// TestDecoderOffsets holds the decoders' offset tables to the Event struct:
// each offset is that of a field of the type the decoder writes there, so
// that a reordered or retyped field fails here instead of corrupting
// memory.
func TestDecoderOffsets(t *testing.T) {
	check := func(name string, off uintptr, want reflect.Type) {
		t.Helper()
		typ := reflect.TypeFor[Event]()
		for i := range typ.NumField() {
			if f := typ.Field(i); f.Offset == off {
				if f.Type != want {
					t.Errorf("%s: offset %d is Event.%s, a %s, want a %s", name, off, f.Name, f.Type, want)
				}
				return
			}
		}
		t.Errorf("%s: offset %d is no field of Event", name, off)
	}
	for _, s := range flatStrings {
		check(columnPaths[s.col], s.off, reflect.TypeFor[string]())
	}
	for _, s := range flatInt32s {
		check(columnPaths[s.col], s.off, reflect.TypeFor[int32]())
	}
	for _, s := range flatInt64s {
		check(columnPaths[s.col], s.off, reflect.TypeFor[int64]())
	}
}
