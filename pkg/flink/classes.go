package flink

import (
	"fmt"
	"strings"

	"github.com/jobevent/jobevent/pkg/flink/javaser"

	"github.com/jobevent/jobevent/internal/quote"
)

// Class names of the Flink classes in job-events payloads.
const (
	classFinished        = "org.apache.flink.runtime.jobmaster.event.ExecutionVertexFinishedEvent"
	classReset           = "org.apache.flink.runtime.jobmaster.event.ExecutionVertexResetEvent"
	classInitialized     = "org.apache.flink.runtime.jobmaster.event.ExecutionJobVertexInitializedEvent"
	classAbstractID      = "org.apache.flink.util.AbstractID"
	classAttemptID       = "org.apache.flink.runtime.executiongraph.ExecutionAttemptID"
	classVertexID        = "org.apache.flink.runtime.scheduler.strategy.ExecutionVertexID"
	classLocation        = "org.apache.flink.runtime.taskmanager.TaskManagerLocation"
	classResourceID      = "org.apache.flink.runtime.clusterframework.types.ResourceID"
	classIOMetrics       = "org.apache.flink.runtime.executiongraph.IOMetrics"
	classPartitionID     = "org.apache.flink.runtime.jobgraph.IntermediateResultPartitionID"
	classPartitionBytes  = "org.apache.flink.runtime.executiongraph.ResultPartitionBytes"
	classJobVertexInput  = "org.apache.flink.runtime.executiongraph.JobVertexInputInfo"
	classVertexInput     = "org.apache.flink.runtime.executiongraph.ExecutionVertexInputInfo"
	classIndexRange      = "org.apache.flink.runtime.executiongraph.IndexRange"
	classDefaultSupplier = "org.apache.flink.runtime.taskmanager.TaskManagerLocation$DefaultHostNameSupplier"
	classIPOnlySupplier  = "org.apache.flink.runtime.taskmanager.TaskManagerLocation$IpOnlyHostNameSupplier"
)

// obj is a decoded object under a path that errors name, e.g.
// "ExecutionVertexFinishedEvent.ioMetrics".
type obj struct {
	o    *javaser.Object
	path string
}

// asObj checks that v is an object whose class is class or extends it.
func asObj(v javaser.Value, class, path string) (obj, error) {
	if v == nil {
		return obj{path: path}, nil // null: Java reads on, every field at its default
	}
	o, ok := v.(*javaser.Object)
	if !ok {
		return obj{}, fmt.Errorf("%s is %s, want an object of %s", path, describe(v), class)
	}
	if o.ClassData(class) == nil {
		return obj{}, fmt.Errorf("%s is an object of %s, want %s", path, printable(o.Class.Name), class)
	}
	return obj{o, path}, nil
}

// describe names a decoded value's kind for error messages.
func describe(v javaser.Value) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case *javaser.Object:
		return "an object of " + printable(v.Class.Name)
	case *javaser.Array:
		return "an array " + printable(v.Class.Name)
	}
	return fmt.Sprintf("a %T", v)
}

// value returns the field called name and a function that builds its
// path for error messages (only errors pay for it).
func (b obj) value(name string) (javaser.Value, pathFunc, error) {
	p := pathFunc{b.path, name}
	if b.o == nil {
		return nil, p, nil // a null object: every field at its default, as Java leaves them
	}
	v, ok := b.o.Field(name)
	if !ok && !b.localField(name) {
		return nil, p, fmt.Errorf("%s: no such field in %s", p, printable(b.o.Class.Name))
	}
	return v, p, nil // a local field the stream lacks is at its default, as in Java
}

// localField reports whether some class of b's hierarchy has a field
// called name in Flink's classes (localClasses): a stream without it
// leaves it at its default.
func (b obj) localField(name string) bool {
	for cd := b.o.Class; cd != nil; cd = cd.Super {
		if lc := localClasses[cd.Name]; lc != nil {
			if _, ok := lc.field(name); ok {
				return true
			}
		}
	}
	return false
}

// pathFunc is a field's path, e.g. "ExecutionVertexFinishedEvent.ioMetrics",
// built when printed.
type pathFunc struct{ parent, name string }

func (p pathFunc) String() string { return p.parent + "." + p.name }

func (b obj) int32(name string) (int32, error) {
	v, p, err := b.value(name)
	if err != nil {
		return 0, err
	}
	if v == nil {
		return 0, nil // absent: the default
	}
	if i, ok := v.(int32); ok {
		return i, nil
	}
	return 0, fmt.Errorf("%s is %s, want an int", p, describe(v))
}

func (b obj) int64(name string) (int64, error) {
	v, p, err := b.value(name)
	if err != nil {
		return 0, err
	}
	if v == nil {
		return 0, nil // absent: the default
	}
	if i, ok := v.(int64); ok {
		return i, nil
	}
	return 0, fmt.Errorf("%s is %s, want a long", p, describe(v))
}

func (b obj) float64(name string) (float64, error) {
	v, p, err := b.value(name)
	if err != nil {
		return 0, err
	}
	if v == nil {
		return 0, nil // absent: the default
	}
	if f, ok := v.(float64); ok {
		return f, nil
	}
	return 0, fmt.Errorf("%s is %s, want a double", p, describe(v))
}

// string returns a String field; null is "".
func (b obj) string(name string) (string, error) {
	v, p, err := b.value(name)
	if err != nil || v == nil {
		return "", err
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", fmt.Errorf("%s is %s, want a string", p, describe(v))
}

func (b obj) object(name, class string) (obj, error) {
	v, p, err := b.value(name)
	if err != nil {
		return obj{}, err
	}
	return asObj(v, class, p.String())
}

func (b obj) id(name string) (ID, error) {
	v, p, err := b.value(name)
	if err != nil {
		return ID{}, err
	}
	return abstractID(v, p.String())
}

// isLocalID reports whether class is one of Flink's subclasses of
// AbstractID that job events hold.
func isLocalID(class string) bool {
	switch class {
	case "org.apache.flink.runtime.executiongraph.ExecutionGraphID", "org.apache.flink.runtime.jobgraph.JobVertexID",
		"org.apache.flink.runtime.jobgraph.OperatorID", "org.apache.flink.runtime.jobgraph.IntermediateDataSetID":
		return true
	}
	return false
}

// abstractID reads any subclass of org.apache.flink.util.AbstractID.
func abstractID(v javaser.Value, path string) (ID, error) {
	if o, ok := v.(*javaser.Object); ok && o.ClassData(classAbstractID) == nil && o.Class.Super != nil && isLocalID(o.Class.Name) {
		// Its superclass descriptor names a class Java cannot load: Java
		// drops that data and leaves AbstractID's fields at 0.
		return ID{}, nil
	}
	o, err := asObj(v, classAbstractID, path)
	if err != nil {
		return ID{}, err
	}
	lo, err := o.int64("lowerPart")
	if err != nil {
		return ID{}, err
	}
	hi, err := o.int64("upperPart")
	return ID{Lower: lo, Upper: hi}, err
}

func (b obj) mapEntries(name string) ([]javaser.Entry, pathFunc, error) {
	v, p, err := b.value(name)
	if err != nil || v == nil {
		return nil, p, err
	}
	entries, err := javaser.AsMap(v)
	if err != nil {
		return nil, p, fmt.Errorf("%s: %w", p, err)
	}
	return entries, p, nil
}

func (b obj) list(name string) ([]javaser.Value, pathFunc, error) {
	v, p, err := b.value(name)
	if err != nil {
		return nil, p, err
	}
	elems, err := javaser.AsList(v)
	if err != nil {
		return nil, p, fmt.Errorf("%s: %w", p, err)
	}
	return elems, p, nil
}

// shortName returns a class name without its package, for error paths.
func shortName(class string) string {
	return class[strings.LastIndexByte(class, '.')+1:]
}

// printable returns a name from a stream for a message (quote.Name).
func printable(s string) string { return quote.Name(s) }
