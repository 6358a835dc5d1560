package flink

import (
	"slices"

	"github.com/jobevent/jobevent/pkg/flink/javaser"
)

// The class descriptors the typed reader (decode_fast.go) reads without
// building Values: each the exact form Flink (or the JDK) writes, a class
// with no serializable superclass, its flags and its fields in stream order.
// An object of any other form is read by the generic reader.

// fieldSpec is a field of a shape: its type code and name.
type fieldSpec struct {
	typ  byte
	name string
}

// shape is a class descriptor the typed reader knows.
type shape struct {
	id     int // index in fastDecoder.seen
	name   string
	flags  byte
	fields []fieldSpec
}

const (
	serializable = javaser.FlagSerializable
	writeMethod  = javaser.FlagSerializable | javaser.FlagWriteMethod
)

var (
	shapeFinished = shape{0, classFinished, serializable, []fieldSpec{
		{'L', "executionAttemptId"}, {'L', "ioMetrics"}, {'L', "taskManagerLocation"}, {'L', "userAccumulators"}}}
	shapeAttemptID = shape{1, classAttemptID, serializable, []fieldSpec{
		{'I', "attemptNumber"}, {'L', "executionGraphId"}, {'L', "executionVertexId"}}}
	shapeVertexID = shape{2, classVertexID, serializable, []fieldSpec{
		{'I', "subtaskIndex"}, {'L', "jobVertexId"}}}
	// shapeAbstractID is the superclass of every ID (ExecutionGraphID,
	// JobVertexID, ...), which add no fields.
	shapeAbstractID = shape{3, classAbstractID, serializable, []fieldSpec{
		{'J', "lowerPart"}, {'J', "upperPart"}}}
	shapeIOMetrics = shape{4, classIOMetrics, serializable, []fieldSpec{
		{'J', "accumulateBackPressuredTime"}, {'D', "accumulateBusyTime"}, {'J', "accumulateIdleTime"},
		{'J', "numBytesIn"}, {'J', "numBytesOut"}, {'J', "numRecordsIn"}, {'J', "numRecordsOut"},
		{'L', "resultPartitionBytes"}}}
	shapePartitionID = shape{5, classPartitionID, serializable, []fieldSpec{
		{'I', "partitionNum"}, {'L', "intermediateDataSetID"}}}
	shapePartitionBytes = shape{6, classPartitionBytes, serializable, []fieldSpec{
		{'[', "subpartitionBytes"}}}
	shapeLocation = shape{7, classLocation, serializable, []fieldSpec{
		{'I', "dataPort"}, {'L', "hostNameSupplier"}, {'L', "inetAddress"}, {'L', "nodeId"},
		{'L', "resourceID"}, {'L', "stringRepresentation"}}}
	shapeDefaultSupplier = shape{8, classDefaultSupplier, serializable, []fieldSpec{
		{'L', "fqdnHostName"}, {'L', "hostName"}, {'L', "inetAddress"}}}
	shapeIPOnlySupplier = shape{9, classIPOnlySupplier, serializable, []fieldSpec{
		{'L', "inetAddress"}}}
	shapeResourceID = shape{10, classResourceID, serializable, []fieldSpec{
		{'L', "metadata"}, {'L', "resourceId"}}}
	// shapeInet4 is an Inet4Address, which writes itself as an InetAddress.
	shapeInet4 = shape{11, "java.net.InetAddress", writeMethod, []fieldSpec{
		{'I', "address"}, {'I', "family"}, {'L', "hostName"}}}
	shapeConcurrentMap = shape{12, "java.util.concurrent.ConcurrentHashMap", writeMethod, []fieldSpec{
		{'I', "segmentMask"}, {'I', "segmentShift"}, {'[', "segments"}}}
	shapeHashMap = shape{13, "java.util.HashMap", writeMethod, []fieldSpec{
		{'F', "loadFactor"}, {'I', "threshold"}}}
	shapeReset = shape{14, classReset, serializable, []fieldSpec{
		{'L', "executionVertexIds"}}}
	shapeArrayList = shape{15, "java.util.ArrayList", writeMethod, []fieldSpec{
		{'I', "size"}}}
	shapeInitialized = shape{16, classInitialized, serializable, []fieldSpec{
		{'I', "parallelism"}, {'L', "jobVertexId"}, {'L', "jobVertexInputInfos"}}}
	shapeJobVertexInput = shape{17, classJobVertexInput, serializable, []fieldSpec{
		{'L', "executionVertexInputInfos"}}}
	// shapeVertexInput120 and shapeVertexInput2 are Flink 1.20's and 2.x's
	// ExecutionVertexInputInfo.
	shapeVertexInput120 = shape{18, classVertexInput, serializable, []fieldSpec{
		{'I', "subtaskIndex"}, {'L', "partitionIndexRange"}, {'L', "subpartitionIndexRange"}}}
	shapeVertexInput2 = shape{19, classVertexInput, serializable, []fieldSpec{
		{'I', "subtaskIndex"}, {'L', "consumedSubpartitionGroups"}}}
	shapeIndexRange = shape{20, classIndexRange, serializable, []fieldSpec{
		{'I', "endIndex"}, {'I', "startIndex"}}}
	shapeEmptyMap     = shape{21, "java.util.Collections$EmptyMap", serializable, nil}
	shapeSingletonMap = shape{22, "java.util.Collections$SingletonMap", serializable, []fieldSpec{
		{'L', "k"}, {'L', "v"}}}
	// shapeLinkedHashMap is LinkedHashMap's own part; its superclass is
	// shapeHashMap.
	shapeLinkedHashMap = shape{23, "java.util.LinkedHashMap", serializable, []fieldSpec{
		{'Z', "accessOrder"}}}
)

// shapeUnmodifiableMap is Collections.unmodifiableMap's wrapper.
var shapeUnmodifiableMap = shape{24, "java.util.Collections$UnmodifiableMap", serializable, []fieldSpec{
	{'L', "m"}}}

// numShapes is the number of shapes (the length of fastDecoder.seen).
const numShapes = 25

// matches reports whether cd has exactly shape s (and no superclass).
func (s *shape) matches(cd *javaser.ClassDesc) bool {
	return cd.Super == nil && s.matchesOwn(cd)
}

// matchesOwn reports whether cd's own name, flags and fields are those of
// shape s, whatever its superclass.
func (s *shape) matchesOwn(cd *javaser.ClassDesc) bool {
	if cd.Name != s.name || cd.Flags != s.flags || len(cd.Fields) != len(s.fields) {
		return false
	}
	if lc := localClasses[s.name]; lc == nil || (lc.suids != nil && !slices.Contains(lc.suids, cd.SerialVersionUID)) {
		return false // the generic reader's javaCheck says what Java says
	}
	for i, f := range s.fields {
		if cd.Fields[i].Type != f.typ || cd.Fields[i].Name != f.name {
			return false
		}
	}
	return true
}
