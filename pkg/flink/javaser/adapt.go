package javaser

import (
	"encoding/binary"
	"fmt"
	"net/netip"
)

// The adapters below read decoded values of JDK classes as Go values, from
// the wire forms those classes' writeObject methods define. Each returns an
// error matching ErrNotAdapted for a value of another class, and a
// *DecodeError matching ErrMalformed (at the object's offset) for an object
// of the class whose data does not have the form the class writes. They
// are safe for concurrent use on values nobody modifies.

// maxWrapping bounds how many wrappers (unmodifiable, synchronized) an
// adapter unwraps, so that a cycle of wrappers cannot loop.
const maxWrapping = 64

// Entry is one key-value pair of a map.
type Entry struct {
	Key, Value Value
}

// AsList returns the elements of a list: java.util.ArrayList (and its
// subclasses), LinkedList, Arrays$ArrayList, the Collections empty,
// singleton, nCopies, unmodifiable and synchronized lists, and the
// immutable lists of List.of (java.util.CollSer). An nCopies list longer
// than 65536 elements is an ErrLimit error (its length is not backed by
// the input).
func AsList(v Value) ([]Value, error) {
	for range maxWrapping {
		o, ok := v.(*Object)
		if !ok {
			return nil, notAdapted(v, "a list")
		}
		switch name := o.Class.Name; {
		case o.ClassData("java.util.ArrayList") != nil:
			return countedObjects(o, "java.util.ArrayList", 0, 1)
		case name == "java.util.LinkedList":
			return countedObjects(o, name, 0, 1)
		case name == "java.util.CollSer":
			return collSer(o, 1, 4)
		case name == "java.util.Collections$EmptyList":
			return []Value{}, nil
		case name == "java.util.Collections$SingletonList":
			e, _ := o.Field("element")
			return []Value{e}, nil
		case name == "java.util.Collections$CopiesList":
			return copies(o)
		case name == "java.util.Arrays$ArrayList":
			a, _ := o.Field("a")
			arr, ok := a.(*Array)
			if !ok {
				return nil, badForm(o, "field a is %s, not an array", kindOf(a))
			}
			if vals, ok := arr.Data.([]Value); ok {
				return vals, nil
			}
			return nil, badForm(o, "field a is a primitive array")
		case name == "java.util.Collections$UnmodifiableList", name == "java.util.Collections$UnmodifiableRandomAccessList",
			name == "java.util.Collections$SynchronizedList", name == "java.util.Collections$SynchronizedRandomAccessList":
			v, _ = o.Field("list")
		default:
			return nil, notAdapted(v, "a list")
		}
	}
	return nil, notAdapted(v, "a list")
}

// AsMap returns the entries of a map in stream order (for a HashMap, its
// iteration order when written): java.util.HashMap, LinkedHashMap and
// their subclasses, ConcurrentHashMap, Hashtable, TreeMap, the Collections
// empty, singleton, unmodifiable and synchronized maps, and the immutable
// maps of Map.of (java.util.CollSer).
func AsMap(v Value) ([]Entry, error) {
	for range maxWrapping {
		o, ok := v.(*Object)
		if !ok {
			return nil, notAdapted(v, "a map")
		}
		switch name := o.Class.Name; {
		case o.ClassData("java.util.HashMap") != nil:
			return sizedEntries(o, "java.util.HashMap", 1)
		case name == "java.util.Hashtable":
			return sizedEntries(o, name, 1)
		case name == "java.util.TreeMap":
			return sizedEntries(o, name, 0)
		case name == "java.util.concurrent.ConcurrentHashMap":
			return concurrentEntries(o)
		case name == "java.util.CollSer":
			vals, err := collSer(o, 3)
			if err != nil {
				return nil, err
			}
			return pairs(o, vals)
		case name == "java.util.Collections$EmptyMap":
			return []Entry{}, nil
		case name == "java.util.Collections$SingletonMap":
			k, _ := o.Field("k")
			val, _ := o.Field("v")
			return []Entry{{k, val}}, nil
		case name == "java.util.Collections$UnmodifiableMap", name == "java.util.Collections$SynchronizedMap",
			name == "java.util.Collections$UnmodifiableSortedMap", name == "java.util.Collections$SynchronizedSortedMap":
			v, _ = o.Field("m")
		default:
			return nil, notAdapted(v, "a map")
		}
	}
	return nil, notAdapted(v, "a map")
}

// boxed maps the boxed primitive classes to their value's type code.
var boxed = map[string]byte{
	"java.lang.Byte": 'B', "java.lang.Character": 'C', "java.lang.Double": 'D', "java.lang.Float": 'F',
	"java.lang.Integer": 'I', "java.lang.Long": 'J', "java.lang.Short": 'S', "java.lang.Boolean": 'Z',
}

// AsBoxed returns the primitive value of a boxed primitive (java.lang.Integer,
// Long, Short, Byte, Character, Boolean, Float, Double) as the Go type of a
// primitive field (int32, int64, ...).
func AsBoxed(v Value) (Value, error) {
	o, ok := v.(*Object)
	if !ok || boxed[o.Class.Name] == 0 {
		return nil, notAdapted(v, "a boxed primitive")
	}
	if cd := o.ClassData(o.Class.Name); cd != nil {
		for i, f := range cd.Class.Fields {
			if f.Name == "value" && f.Type == boxed[o.Class.Name] && i < len(cd.Values) {
				return cd.Values[i], nil
			}
		}
	}
	return nil, badForm(o, "no primitive field value")
}

// InetAddress is a java.net.InetAddress: an Inet4Address (written as an
// InetAddress) or an Inet6Address.
type InetAddress struct {
	// HostName is the host name the address was created or resolved with;
	// empty when the writer had none.
	HostName string
	// Addr is the address; for an Inet6Address with a scope id or interface
	// name, Addr carries it as its zone.
	Addr netip.Addr
}

// AsInetAddress reads a java.net.InetAddress, Inet4Address or Inet6Address.
func AsInetAddress(v Value) (InetAddress, error) {
	o, ok := v.(*Object)
	if !ok || o.ClassData("java.net.InetAddress") == nil {
		return InetAddress{}, notAdapted(v, "an InetAddress")
	}
	var ia InetAddress
	if h, _ := o.Field("hostName"); h != nil {
		s, ok := h.(string)
		if !ok {
			return ia, badForm(o, "hostName is %s", kindOf(h))
		}
		ia.HostName = s
	}
	if o.ClassData("java.net.Inet6Address") != nil {
		return inet6(o, ia)
	}
	a, ok := fieldOf(o, "java.net.InetAddress", "address").(int32)
	if !ok && fieldOf(o, "java.net.InetAddress", "address") != nil {
		return ia, badForm(o, "address is not an int")
	} // absent: InetAddress.readObject's GetField default, 0
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(a))
	ia.Addr = netip.AddrFrom4(b)
	return ia, nil
}

func inet6(o *Object, ia InetAddress) (InetAddress, error) {
	arr, ok := fieldOf(o, "java.net.Inet6Address", "ipaddress").(*Array)
	if !ok {
		return ia, badForm(o, "no array field ipaddress")
	}
	b, ok := arr.Data.([]byte)
	if !ok || len(b) != 16 {
		return ia, badForm(o, "ipaddress is not 16 bytes")
	}
	ia.Addr = netip.AddrFrom16([16]byte(b))
	if set, _ := fieldOf(o, "java.net.Inet6Address", "scope_ifname_set").(bool); set {
		if name, ok := fieldOf(o, "java.net.Inet6Address", "ifname").(string); ok && name != "" {
			ia.Addr = ia.Addr.WithZone(name)
			return ia, nil
		}
	}
	if set, _ := fieldOf(o, "java.net.Inet6Address", "scope_id_set").(bool); set {
		id, _ := fieldOf(o, "java.net.Inet6Address", "scope_id").(int32)
		ia.Addr = ia.Addr.WithZone(fmt.Sprint(id))
	}
	return ia, nil
}

// fieldOf returns the value of field name written by class, or nil.
func fieldOf(o *Object, class, name string) Value {
	cd := o.ClassData(class)
	if cd == nil {
		return nil
	}
	for i, f := range cd.Class.Fields {
		if f.Name == name && i < len(cd.Values) {
			return cd.Values[i]
		}
	}
	return nil
}

func notAdapted(v Value, what string) error {
	return fmt.Errorf("%w: %s is not %s", ErrNotAdapted, kindOf(v), what)
}

func badForm(o *Object, format string, args ...any) error {
	return &DecodeError{Offset: o.Offset, Kind: ErrMalformed, Detail: printable(o.Class.Name) + ": " + fmt.Sprintf(format, args...)}
}
