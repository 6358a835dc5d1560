package flink

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/jobevent/jobevent/pkg/flink/javaser"
)

// Java's own checks. Flink reads its job-events with ObjectInputStream,
// which resolves every class descriptor of a stream against the classes it
// has: a name it cannot load is a ClassNotFoundException, a
// serialVersionUID other than the local class's, flags that disagree, a
// field whose type differs from the local field of that name, or fields
// out of order are an InvalidClassException, and a value that is not an
// instance of its field's declared type a ClassCastException; the JDK
// classes' readObject methods check their own data. Any of these fails
// the replay. A field the stream has and the class does not, or the other
// way round (a flipped field name), is not an error: Java drops the value,
// or leaves the field at its default. javaCheck applies the same rules to
// a decoded stream, with the classes of Flink 1.20 and 2.x (localClasses,
// their descriptors as real Flink writes them).

// localField is a serializable field of a local class: its type code, name
// and declared type (JVM signature; "" for a primitive).
type localField struct {
	typ  byte
	name string
	sig  string
}

// localClass is a class as Flink's class path has it. suids lists the
// serialVersionUIDs of the Flink versions read (a class that declares none
// has a computed one per version); nil accepts any.
type localClass struct {
	suids  []int64
	flags  byte
	fields []localField
	// anyForm marks a JDK class the streams may hold (in the forms the
	// javaser adapters read) whose descriptor is not checked beyond its
	// name: Java loads it.
	anyForm bool
}

func (c *localClass) field(name string) (localField, bool) {
	for _, f := range c.fields {
		if f.name == name {
			return f, true
		}
	}
	return localField{}, false
}

// localClasses are the classes of Flink's job events, by name.
var localClasses = map[string]*localClass{
	"[B": {suids: []int64{-5984413125824719648}, flags: 0x02, fields: []localField{}},
	"[Ljava.util.concurrent.ConcurrentHashMap$Segment;":                                {suids: []int64{5942287782593116532}, flags: 0x02, fields: []localField{}},
	"java.net.InetAddress":                                                             {suids: []int64{3286316764910316507}, flags: 0x03, fields: []localField{{'I', "address", ""}, {'I', "family", ""}, {'L', "hostName", "Ljava/lang/String;"}}},
	"java.util.ArrayList":                                                              {suids: []int64{8683452581122892189}, flags: 0x03, fields: []localField{{'I', "size", ""}}},
	"java.util.Collections$SingletonMap":                                               {suids: []int64{-6979724477215052911}, flags: 0x02, fields: []localField{{'L', "k", "Ljava/lang/Object;"}, {'L', "v", "Ljava/lang/Object;"}}},
	"java.util.Collections$UnmodifiableMap":                                            {suids: []int64{-1034234728574286014}, flags: 0x02, fields: []localField{{'L', "m", "Ljava/util/Map;"}}},
	"java.util.HashMap":                                                                {suids: []int64{362498820763181265}, flags: 0x03, fields: []localField{{'F', "loadFactor", ""}, {'I', "threshold", ""}}},
	"java.util.LinkedHashMap":                                                          {suids: []int64{3801124242820219131}, flags: 0x02, fields: []localField{{'Z', "accessOrder", ""}}},
	"java.util.concurrent.ConcurrentHashMap":                                           {suids: []int64{7249069246763182397}, flags: 0x03, fields: []localField{{'I', "segmentMask", ""}, {'I', "segmentShift", ""}, {'[', "segments", "[Ljava/util/concurrent/ConcurrentHashMap$Segment;"}}},
	"java.util.concurrent.ConcurrentHashMap$Segment":                                   {suids: []int64{2249069246763182397}, flags: 0x02, fields: []localField{{'F', "loadFactor", ""}}},
	"java.util.concurrent.locks.AbstractOwnableSynchronizer":                           {suids: []int64{3737899427754241961}, flags: 0x02, fields: []localField{}},
	"java.util.concurrent.locks.AbstractQueuedSynchronizer":                            {suids: []int64{7373984972572414691}, flags: 0x02, fields: []localField{{'I', "state", ""}}},
	"java.util.concurrent.locks.ReentrantLock":                                         {suids: []int64{7373984872572414699}, flags: 0x02, fields: []localField{{'L', "sync", "Ljava/util/concurrent/locks/ReentrantLock$Sync;"}}},
	"java.util.concurrent.locks.ReentrantLock$NonfairSync":                             {suids: []int64{7316153563782823691}, flags: 0x02, fields: []localField{}},
	"java.util.concurrent.locks.ReentrantLock$Sync":                                    {suids: []int64{-5179523762034025860}, flags: 0x02, fields: []localField{}},
	"org.apache.flink.runtime.clusterframework.types.ResourceID":                       {suids: []int64{42}, flags: 0x02, fields: []localField{{'L', "metadata", "Ljava/lang/String;"}, {'L', "resourceId", "Ljava/lang/String;"}}},
	"org.apache.flink.runtime.executiongraph.ExecutionAttemptID":                       {suids: []int64{1}, flags: 0x02, fields: []localField{{'I', "attemptNumber", ""}, {'L', "executionGraphId", "Lorg/apache/flink/runtime/executiongraph/ExecutionGraphID;"}, {'L', "executionVertexId", "Lorg/apache/flink/runtime/scheduler/strategy/ExecutionVertexID;"}}},
	"org.apache.flink.runtime.executiongraph.ExecutionGraphID":                         {suids: []int64{1}, flags: 0x02, fields: []localField{}},
	"org.apache.flink.runtime.executiongraph.ExecutionVertexInputInfo":                 {suids: []int64{1}, flags: 0x02, fields: []localField{{'I', "subtaskIndex", ""}, {'L', "consumedSubpartitionGroups", "Ljava/util/Map;"}, {'I', "subtaskIndex", ""}, {'L', "partitionIndexRange", "Lorg/apache/flink/runtime/executiongraph/IndexRange;"}, {'L', "subpartitionIndexRange", "Lorg/apache/flink/runtime/executiongraph/IndexRange;"}}},
	"org.apache.flink.runtime.executiongraph.IOMetrics":                                {suids: []int64{-7208093607556457183}, flags: 0x02, fields: []localField{{'J', "accumulateBackPressuredTime", ""}, {'D', "accumulateBusyTime", ""}, {'J', "accumulateIdleTime", ""}, {'J', "numBytesIn", ""}, {'J', "numBytesOut", ""}, {'J', "numRecordsIn", ""}, {'J', "numRecordsOut", ""}, {'L', "resultPartitionBytes", "Ljava/util/Map;"}}},
	"org.apache.flink.runtime.executiongraph.IndexRange":                               {suids: []int64{-7381885467287327710}, flags: 0x02, fields: []localField{{'I', "endIndex", ""}, {'I', "startIndex", ""}}},
	"org.apache.flink.runtime.executiongraph.JobVertexInputInfo":                       {suids: []int64{1}, flags: 0x02, fields: []localField{{'L', "executionVertexInputInfos", "Ljava/util/List;"}}},
	"org.apache.flink.runtime.jobgraph.IntermediateDataSetID":                          {suids: []int64{1}, flags: 0x02, fields: []localField{}},
	"org.apache.flink.runtime.jobgraph.JobVertexID":                                    {suids: []int64{1}, flags: 0x02, fields: []localField{}},
	"org.apache.flink.runtime.jobgraph.OperatorID":                                     {suids: []int64{1}, flags: 0x02, fields: []localField{}},
	"org.apache.flink.runtime.jobmaster.event.ExecutionJobVertexInitializedEvent":      {suids: []int64{9156262402071828178}, flags: 0x02, fields: []localField{{'I', "parallelism", ""}, {'L', "jobVertexId", "Lorg/apache/flink/runtime/jobgraph/JobVertexID;"}, {'L', "jobVertexInputInfos", "Ljava/util/Map;"}}},
	"org.apache.flink.runtime.jobmaster.event.ExecutionVertexFinishedEvent":            {suids: []int64{3894257417189751962, 462424865898416179}, flags: 0x02, fields: []localField{{'L', "executionAttemptId", "Lorg/apache/flink/runtime/executiongraph/ExecutionAttemptID;"}, {'L', "ioMetrics", "Lorg/apache/flink/runtime/executiongraph/IOMetrics;"}, {'L', "taskManagerLocation", "Lorg/apache/flink/runtime/taskmanager/TaskManagerLocation;"}, {'L', "userAccumulators", "Ljava/util/Map;"}}},
	"org.apache.flink.runtime.jobmaster.event.ExecutionVertexResetEvent":               {suids: []int64{-2038315817411193355}, flags: 0x02, fields: []localField{{'L', "executionVertexIds", "Ljava/util/List;"}}},
	"org.apache.flink.runtime.scheduler.strategy.ExecutionVertexID":                    {suids: []int64{1}, flags: 0x02, fields: []localField{{'I', "subtaskIndex", ""}, {'L', "jobVertexId", "Lorg/apache/flink/runtime/jobgraph/JobVertexID;"}}},
	"org.apache.flink.runtime.shuffle.EmptyShuffleMasterSnapshot":                      {suids: []int64{-9173654644151131152}, flags: 0x02, fields: []localField{}},
	"org.apache.flink.runtime.taskmanager.TaskManagerLocation":                         {suids: []int64{-8254407801276350716}, flags: 0x02, fields: []localField{{'I', "dataPort", ""}, {'L', "hostNameSupplier", "Lorg/apache/flink/runtime/taskmanager/TaskManagerLocation$HostNameSupplier;"}, {'L', "inetAddress", "Ljava/net/InetAddress;"}, {'L', "nodeId", "Ljava/lang/String;"}, {'L', "resourceID", "Lorg/apache/flink/runtime/clusterframework/types/ResourceID;"}, {'L', "stringRepresentation", "Ljava/lang/String;"}}},
	"org.apache.flink.runtime.taskmanager.TaskManagerLocation$DefaultHostNameSupplier": {suids: []int64{7376258544554052335}, flags: 0x02, fields: []localField{{'L', "fqdnHostName", "Ljava/lang/String;"}, {'L', "hostName", "Ljava/lang/String;"}, {'L', "inetAddress", "Ljava/net/InetAddress;"}}},
	"org.apache.flink.util.AbstractID":                                                 {suids: []int64{1}, flags: 0x02, fields: []localField{{'J', "lowerPart", ""}, {'J', "upperPart", ""}}},
	"java.util.Collections$EmptyMap":                                                   {suids: []int64{6428348081105594320}, flags: 0x02},
	"java.net.Inet6Address":                                                            {suids: []int64{6880410070516793377}, flags: 0x03, fields: []localField{{'I', "scope_id", ""}, {'Z', "scope_id_set", ""}, {'Z', "scope_ifname_set", ""}, {'L', "ifname", "Ljava/lang/String;"}, {'[', "ipaddress", "[B"}}},
	"org.apache.flink.runtime.taskmanager.TaskManagerLocation$IpOnlyHostNameSupplier":  {flags: 0x02, fields: []localField{{'L', "inetAddress", "Ljava/net/InetAddress;"}}},
	"org.apache.flink.runtime.executiongraph.ResultPartitionBytes":                     {flags: 0x02, fields: []localField{{'[', "subpartitionBytes", "[J"}}},
	"org.apache.flink.runtime.jobgraph.IntermediateResultPartitionID":                  {suids: []int64{1}, flags: 0x02, fields: []localField{{'I', "partitionNum", ""}, {'L', "intermediateDataSetID", "Lorg/apache/flink/runtime/jobgraph/IntermediateDataSetID;"}}},
	"[J": {flags: 0x02},
}

// jdkClasses are the JDK classes javaser's adapters read, which Flink's
// Map, List and Object fields may hold; their descriptors are taken as
// they come (localClass.anyForm).
var jdkClasses = []string{
	"java.util.LinkedList", "java.util.TreeMap", "java.util.Hashtable", "java.util.CollSer",
	"java.util.Arrays$ArrayList", "java.util.Collections$EmptyList", "java.util.Collections$SingletonList",
	"java.util.Collections$UnmodifiableList", "java.util.Collections$UnmodifiableRandomAccessList",
	"java.util.Collections$UnmodifiableCollection", "java.util.Collections$SynchronizedList",
	"java.util.Collections$SynchronizedRandomAccessList", "java.util.Collections$SynchronizedCollection",
	"java.util.Collections$SynchronizedMap", "java.util.Collections$CopiesList",
	"java.util.Collections$EmptySet", "java.util.Collections$SingletonSet", "java.util.HashSet", "java.util.LinkedHashSet",
	"java.lang.Number", "java.lang.Integer", "java.lang.Long", "java.lang.Short", "java.lang.Byte",
	"java.lang.Double", "java.lang.Float", "java.lang.Boolean", "java.lang.Character",
	"java.net.Inet4Address", "[Ljava.lang.Object;", "[Ljava.lang.String;", "[I", "[D", "[F", "[S", "[Z", "[C",
}

func init() {
	for _, name := range jdkClasses {
		if localClasses[name] == nil {
			localClasses[name] = &localClass{anyForm: true}
		}
	}
}

// implementations lists, per interface or abstract class a field is
// declared as, the local classes assignable to it.
var implementations = map[string][]string{
	"java.util.Map": {"java.util.HashMap", "java.util.LinkedHashMap", "java.util.concurrent.ConcurrentHashMap",
		"java.util.Collections$EmptyMap", "java.util.Collections$SingletonMap", "java.util.Collections$UnmodifiableMap",
		"java.util.TreeMap", "java.util.Hashtable", "java.util.Collections$SynchronizedMap", "java.util.CollSer"},
	"java.util.List": {"java.util.ArrayList", "java.util.LinkedList", "java.util.CollSer", "java.util.Arrays$ArrayList",
		"java.util.Collections$EmptyList", "java.util.Collections$SingletonList", "java.util.Collections$UnmodifiableList",
		"java.util.Collections$UnmodifiableRandomAccessList", "java.util.Collections$SynchronizedList",
		"java.util.Collections$SynchronizedRandomAccessList", "java.util.Collections$CopiesList"},
	"org.apache.flink.runtime.taskmanager.TaskManagerLocation$HostNameSupplier": {
		"org.apache.flink.runtime.taskmanager.TaskManagerLocation$DefaultHostNameSupplier",
		"org.apache.flink.runtime.taskmanager.TaskManagerLocation$IpOnlyHostNameSupplier"},
}

// localSupers is the superclass of a local class that a field may be
// declared as. Java checks a value against its local class, whatever the
// stream's descriptors of its superclasses say (one Java cannot load is
// skipped, checkDesc).
var localSupers = map[string]string{
	"java.util.concurrent.locks.ReentrantLock$NonfairSync":     "java.util.concurrent.locks.ReentrantLock$Sync",
	"java.util.concurrent.locks.ReentrantLock$Sync":            "java.util.concurrent.locks.AbstractQueuedSynchronizer",
	"java.util.concurrent.locks.AbstractQueuedSynchronizer":    "java.util.concurrent.locks.AbstractOwnableSynchronizer",
	"java.util.concurrent.ConcurrentHashMap$Segment":           "java.util.concurrent.locks.ReentrantLock",
	"java.util.LinkedHashMap":                                  "java.util.HashMap",
	"java.net.Inet4Address":                                    "java.net.InetAddress",
	"java.net.Inet6Address":                                    "java.net.InetAddress",
	"java.lang.Double":                                         "java.lang.Number",
	"java.util.Collections$UnmodifiableList":                   "java.util.Collections$UnmodifiableCollection",
	"org.apache.flink.runtime.jobgraph.JobVertexID":            "org.apache.flink.util.AbstractID",
	"org.apache.flink.runtime.jobgraph.IntermediateDataSetID":  "org.apache.flink.util.AbstractID",
	"org.apache.flink.runtime.jobgraph.OperatorID":             "org.apache.flink.util.AbstractID",
	"org.apache.flink.runtime.executiongraph.ExecutionGraphID": "org.apache.flink.util.AbstractID",
}

// javaChecker walks one decoded stream. opaque is set under values whose
// classes Flink's class path may hold without our knowing them (user
// accumulators, a third-party shuffle master snapshot): there, only the
// classes we know are checked.
type javaChecker struct {
	seen map[any]bool
}

// javaCheck returns the error Java's ObjectInputStream would throw on v,
// the root of a stream whose declared type is root (a class name, or ""
// for any object), or nil. opaque says the stream may hold classes we do
// not know.
func javaCheck(v javaser.Value, root string, opaque bool) error {
	c := &javaChecker{seen: map[any]bool{}}
	if err := c.assignable(v, root, "stream root", opaque); err != nil {
		return err
	}
	return c.value(v, opaque)
}

// className returns the Java name of a JVM signature ("Ljava/util/Map;" ->
// java.util.Map, "[J" -> [J).
func className(sig string) string {
	if strings.HasPrefix(sig, "L") && strings.HasSuffix(sig, ";") {
		return strings.ReplaceAll(sig[1:len(sig)-1], "/", ".")
	}
	return strings.ReplaceAll(sig, "/", ".")
}

// desc checks the descriptor of an object or array and its superclass
// descriptors. A superclass Java cannot load is not an error (its data is
// read and dropped, the local superclass's fields keep their defaults);
// one it loads is checked as the class itself is.
func (c *javaChecker) desc(cd *javaser.ClassDesc, opaque bool) error {
	for own := true; cd != nil; cd, own = cd.Super, false {
		if c.seen[cd] || cd.Proxy {
			continue
		}
		c.seen[cd] = true
		if _, known := localClasses[cd.Name]; !own && !known {
			continue
		}
		if err := checkDesc(cd, opaque); err != nil {
			return err
		}
	}
	return nil
}

// checkDesc resolves one class descriptor as ObjectInputStream does.
func checkDesc(cd *javaser.ClassDesc, opaque bool) error {
	name := cd.Name
	if elem, ok := strings.CutPrefix(name, "["); ok {
		if err := checkArrayFlags(cd); err != nil {
			return err
		}
		for strings.HasPrefix(elem, "[") {
			elem = elem[1:]
		}
		switch {
		case len(elem) == 1 && strings.Contains("BCDFIJSZ", elem):
			return nil
		case strings.HasPrefix(elem, "L") && strings.HasSuffix(elem, ";"):
			inner := elem[1 : len(elem)-1]
			if _, ok := localClasses[inner]; ok || opaque || inner == "java.lang.Object" || inner == "java.lang.String" {
				return nil
			}
		}
		return fmt.Errorf("ClassNotFoundException: %s", printable(name))
	}
	lc, ok := localClasses[name]
	if !ok {
		if opaque {
			return nil
		}
		return fmt.Errorf("ClassNotFoundException: %s", printable(name))
	}
	if lc.anyForm {
		return nil
	}
	if lc.suids != nil && !slices.Contains(lc.suids, cd.SerialVersionUID) {
		return fmt.Errorf("InvalidClassException: %s: local class incompatible: stream classdesc serialVersionUID = %d", name, cd.SerialVersionUID)
	}
	const kind = javaser.FlagSerializable | javaser.FlagExternalizable | 0x10 // SC_ENUM
	if cd.Flags&kind != lc.flags&kind {
		return fmt.Errorf("InvalidClassException: %s: flags 0x%02x, local class 0x%02x", name, cd.Flags, lc.flags)
	}
	firstObj := -1
	for i, f := range cd.Fields {
		object := f.Type == 'L' || f.Type == '['
		if object && firstObj < 0 {
			firstObj = i
		}
		if !object && firstObj >= 0 {
			return fmt.Errorf("InvalidClassException: %s: illegal field order", name)
		}
		if object && (f.ClassName == "" || !strings.ContainsRune("L[", rune(f.ClassName[0]))) {
			return fmt.Errorf("IllegalArgumentException: %s.%s: illegal signature", name, printable(f.Name))
		}
		if lf, ok := lc.field(f.Name); ok {
			lobject := lf.typ == 'L' || lf.typ == '['
			if object != lobject || (!object && f.Type != lf.typ) {
				return fmt.Errorf("InvalidClassException: %s: incompatible types for field %s", name, f.Name)
			}
		}
	}
	return nil
}

// checkArrayFlags checks an array class descriptor's flags: an array is
// Serializable, never Externalizable nor an enum.
func checkArrayFlags(cd *javaser.ClassDesc) error {
	if cd.Flags&(javaser.FlagSerializable|javaser.FlagExternalizable|0x10) != javaser.FlagSerializable {
		return fmt.Errorf("InvalidClassException: %s: flags 0x%02x", printable(cd.Name), cd.Flags)
	}
	return nil
}

// assignable checks that v may be stored in a field declared as class
// ("" or java.lang.Object: anything).
func (c *javaChecker) assignable(v javaser.Value, class, what string, opaque bool) error {
	if v == nil || class == "" || class == "java.lang.Object" {
		return nil
	}
	var cd *javaser.ClassDesc
	switch v := v.(type) {
	case string:
		if class == "java.lang.String" || class == "java.lang.CharSequence" {
			return nil
		}
	case *javaser.Object:
		cd = v.Class
	case *javaser.Array:
		cd = v.Class
	}
	for d := cd; d != nil; d = d.Super {
		if isA(d.Name, class) {
			return nil
		}
	}
	if cd != nil {
		for n := localSupers[cd.Name]; n != ""; n = localSupers[n] {
			if isA(n, class) {
				return nil
			}
		}
	}
	if cd != nil && opaque {
		if _, known := localClasses[cd.Name]; !known {
			return nil
		}
	}
	return fmt.Errorf("ClassCastException: %s is %s, want %s", what, describe(v), class)
}

// isA reports whether the class name is class or one of its listed
// implementations.
func isA(name, class string) bool {
	return name == class || slices.Contains(implementations[class], name)
}

// value checks v and everything it holds.
func (c *javaChecker) value(v javaser.Value, opaque bool) error {
	switch v := v.(type) {
	case *javaser.Object:
		if c.seen[v] {
			return nil
		}
		c.seen[v] = true
		if err := c.desc(v.Class, opaque); err != nil {
			return err
		}
		for _, d := range v.Data {
			if err := c.classData(v, d, opaque); err != nil {
				return err
			}
		}
		for _, x := range v.External {
			if err := c.value(x, opaque); err != nil {
				return err
			}
		}
	case *javaser.Array:
		if c.seen[v] {
			return nil
		}
		c.seen[v] = true
		if err := c.desc(v.Class, opaque); err != nil {
			return err
		}
		if xs, ok := v.Data.([]javaser.Value); ok {
			elem := className(strings.TrimPrefix(v.Class.Name, "["))
			for _, x := range xs {
				if err := c.assignable(x, elem, "an element of "+printable(v.Class.Name), opaque); err != nil {
					return err
				}
				if err := c.value(x, opaque); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// classData checks what one class of o's hierarchy wrote: its field values
// against the local fields' types, and the JDK classes' own checks.
func (c *javaChecker) classData(o *javaser.Object, d javaser.ClassData, opaque bool) error {
	lc := localClasses[d.Class.Name]
	for i, f := range d.Class.Fields {
		if i >= len(d.Values) {
			break
		}
		x := d.Values[i]
		if d.Class.Name == "java.util.concurrent.ConcurrentHashMap" && f.Name == "segments" {
			// ConcurrentHashMap.readObject reads past its segments: the
			// array's class is not resolved, its elements' classes are.
			if a, ok := x.(*javaser.Array); ok {
				if err := checkArrayFlags(a.Class); err != nil {
					return err
				}
				xs, _ := a.Data.([]javaser.Value)
				for _, e := range xs {
					if err := c.value(e, opaque); err != nil {
						return err
					}
				}
			}
			continue
		}
		inner := opaque || f.Name == "userAccumulators" && d.Class.Name == classFinished
		if lc != nil {
			if lf, ok := lc.field(f.Name); ok && lf.sig != "" {
				if err := c.assignable(x, className(lf.sig), d.Class.Name+"."+f.Name, inner); err != nil {
					return err
				}
			}
		}
		if err := c.value(x, inner); err != nil {
			return err
		}
	}
	for _, x := range d.Annotation {
		if err := c.value(x, opaque); err != nil {
			return err
		}
	}
	return jdkReadObject(d)
}

// jdkReadObject applies the checks of the JDK classes' readObject methods
// to the fields they read.
func jdkReadObject(d javaser.ClassData) error {
	get := func(name string) javaser.Value {
		for i, f := range d.Class.Fields {
			if f.Name == name && i < len(d.Values) {
				return d.Values[i]
			}
		}
		return nil
	}
	switch d.Class.Name {
	case "java.util.HashMap":
		lf, ok := get("loadFactor").(float32) // readFields: 0.75 when absent
		if !ok {
			lf = 0.75
		}
		if lf <= 0 || math.IsNaN(float64(lf)) {
			return fmt.Errorf("InvalidObjectException: Illegal load factor: %v", lf)
		}
	case "java.util.ArrayList":
		if n, _ := get("size").(int32); n < 0 {
			return fmt.Errorf("InvalidObjectException: Invalid size: %d", n)
		}
	case "java.net.InetAddress":
		if fam, _ := get("family").(int32); fam != 1 && fam != 2 {
			return fmt.Errorf("InvalidObjectException: invalid address family type: %d", fam)
		}
	}
	return nil
}

// javaValid reports whether every class descriptor of the stream the
// typed reader read passes Java's checks (checkDesc), a superclass Java
// cannot load aside. When one does not, or names a class we do not know,
// the generic reader reads the stream again and says what Java says.
func (f *fastDecoder) javaValid() bool {
	descs := f.d.AppendClassDescs(f.descs[:0])
	f.descs = descs
	for _, v := range f.lastValid {
		if slices.Equal(descs, v) {
			return true // the descriptors of a recent valid stream, in its order
		}
	}
	var supers map[*javaser.ClassDesc]bool // built when a descriptor is not known valid
	for _, cd := range descs {
		if cd.Proxy {
			return false
		}
		if f.validDescs[cd] {
			continue
		}
		if supers == nil {
			supers = map[*javaser.ClassDesc]bool{}
			for _, d := range descs {
				supers[d.Super] = true
			}
		}
		if _, known := localClasses[cd.Name]; !known && supers[cd] {
			continue
		}
		if checkDesc(cd, false) != nil {
			return false
		}
		if f.validDescs == nil || len(f.validDescs) > 4096 {
			f.validDescs = map[*javaser.ClassDesc]bool{}
		}
		f.validDescs[cd] = true // descriptors are immutable, shared by the descriptor cache
	}
	last := &f.lastValid[f.nextValid%len(f.lastValid)]
	*last = append((*last)[:0], descs...)
	f.nextValid++
	return true
}
