// Package javaser reads the Java Object Serialization Stream Protocol (the
// bytes an ObjectOutputStream writes), as the public specification of the
// protocol defines it, without any Java class at hand.
//
// A stream is a magic number and version (AC ED 00 05) followed by
// contents: objects and blocks of primitive data. Every content is read
// generically into a Value: an *Object holds its class descriptor and,
// for each class of its hierarchy from the topmost serializable superclass
// down, the field values and whatever that class's writeObject method wrote
// (its annotation); an externalizable object holds the block data and
// objects its writeExternal wrote. Strings (modified UTF-8, short and
// long), arrays of every primitive type and of objects, enum constants,
// Class objects, class and dynamic proxy descriptors, references and resets
// are all read; an exception the writer put in place of an object
// (TC_EXCEPTION) is returned as a *WriteAbortedError.
//
//	AC ED 00 05                          magic, version
//	73                                   TC_OBJECT
//	   72 <name> <suid> <flags> <fields> TC_CLASSDESC (handle 0x7e0000)
//	      78 70                          no annotation, no superclass
//	   <field values>                    the object (handle 0x7e0001)
//	71 00 7E 00 01                       TC_REFERENCE to the same object
//
// No class is ever loaded or instantiated: a class this package has no
// adapter for stays a generic *Object, which is never an error. Adapters
// read the JDK classes whose wire form their writeObject methods define:
// AsList (ArrayList, LinkedList, the Collections lists, List.of), AsMap
// (HashMap, LinkedHashMap, ConcurrentHashMap, Hashtable, TreeMap, the
// Collections maps, Map.of), AsBoxed (Integer, Long, ...) and
// AsInetAddress (Inet4Address, Inet6Address).
//
// # Sharing
//
// A log of many small streams (one per record, as Flink writes its
// job-events) repeats the same class descriptors in every stream. The
// package keeps a bounded, process-wide cache of the descriptors it has
// read and reuses one when a stream holds the same bytes at the same handle
// number, referring to equal strings and the same descriptors before it;
// decoding is the same with or without it. Decoded values may therefore
// share descriptors with values of other streams: treat them as read-only.
// A Decoder that reads stream after stream (Reset) also keeps the cache
// entries it used last and the short strings it read.
//
// # Typed reading
//
// A reader that knows the classes of a stream can read their fields
// straight into its own types, without Values: BeginObject, then the field
// values in stream order (ReadInt32, ReadString, ReadInt64Array, ...;
// ReadValue for one it wants as a Value, SkipValue for one it ignores),
// then EndObject, or FinishObject to hand an object it does not expect back
// to the generic reader. The checks, handles, limits and descriptor cache
// are those of Decode. An object read without its Value is marked so in
// the handle table: a reference to it read as a Value fails with
// ErrUnread, and a typed reader gives up and reads the stream again with
// Decode.
//
// # Hostile input
//
// Input is bounded by Options (nesting depth, handles, array and string
// sizes), and no length field makes the decoder allocate more than the rest
// of the input could fill. Every error is a *DecodeError with the byte
// offset and one of ErrTruncated, ErrMalformed or ErrLimit (or ErrUnread,
// from typed reading); no input panics.
package javaser
