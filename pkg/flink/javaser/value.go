package javaser

// Value is one decoded content of a stream. Its dynamic type is one of:
//
//	nil          a null reference (TC_NULL)
//	string       a String (TC_STRING, TC_LONGSTRING)
//	*Object      an object (TC_OBJECT), serializable or externalizable
//	*Array       an array (TC_ARRAY)
//	*Enum        an enum constant (TC_ENUM)
//	*Class       a Class object (TC_CLASS)
//	*ClassDesc   a class descriptor, when the stream writes one where an
//	             object is expected (an ObjectStreamClass written on its own)
//	BlockData    primitive data written outside fields (TC_BLOCKDATA,
//	             TC_BLOCKDATALONG), in annotations and at the top level
//
// Field values of primitive type are int8 (byte), Char (char), float64
// (double), float32 (float), int32 (int), int64 (long), int16 (short) and
// bool (boolean).
//
// Decoded values share structure exactly as the stream does: a reference
// (TC_REFERENCE) yields the same pointer as the content it refers to, so
// object graphs may contain cycles.
type Value = any

// Char is a Java char: one UTF-16 code unit.
type Char uint16

// BlockData is primitive data written with the DataOutput methods of an
// ObjectOutputStream. The stream may split it into blocks anywhere; the
// decoder joins blocks that follow each other into one BlockData.
type BlockData []byte

// Class descriptor flags (classDescFlags). They are part of the format.
const (
	FlagWriteMethod    = 0x01 // SC_WRITE_METHOD: the class has a writeObject method
	FlagSerializable   = 0x02 // SC_SERIALIZABLE
	FlagExternalizable = 0x04 // SC_EXTERNALIZABLE
	FlagBlockData      = 0x08 // SC_BLOCK_DATA: externalizable data in block data mode
	FlagEnum           = 0x10 // SC_ENUM
)

// ClassDesc is a class descriptor (TC_CLASSDESC) or a dynamic proxy class
// descriptor (TC_PROXYCLASSDESC).
type ClassDesc struct {
	// Name is the class name as Class.getName returns it, e.g.
	// "java.util.HashMap" or "[Ljava.lang.String;". It is empty for a proxy.
	Name string
	// SerialVersionUID is the class's stream unique identifier; 0 for a
	// proxy and for enums.
	SerialVersionUID int64
	// Flags holds the Flag* bits (for a proxy, which has none on the wire,
	// FlagSerializable).
	Flags byte
	// Fields are the serializable fields in stream order: primitive fields
	// sorted by name, then object fields sorted by name.
	Fields []Field
	// Annotation is what the writer's annotateClass or annotateProxyClass
	// wrote, usually nothing.
	Annotation []Value
	// Super is the descriptor of the nearest serializable superclass, or
	// nil.
	Super *ClassDesc
	// Proxy reports whether this is a dynamic proxy class descriptor;
	// Interfaces then lists the names of the interfaces it implements.
	Proxy      bool
	Interfaces []string

	// lineage is the descriptor chain from the topmost superclass down to
	// this one, set once the descriptor is read (nil if its superclass
	// chain loops).
	lineage []*ClassDesc
}

// Has reports whether all of the given flag bits are set.
func (d *ClassDesc) Has(flags byte) bool { return d.Flags&flags == flags }

// Field is a field descriptor of a class descriptor.
type Field struct {
	// Type is the type code: 'B', 'C', 'D', 'F', 'I', 'J', 'S' or 'Z' for
	// a primitive, 'L' for an object, '[' for an array.
	Type byte
	Name string
	// ClassName is the field's type in JVM signature form, e.g.
	// "Ljava/lang/String;" or "[J"; empty for primitive fields.
	ClassName string
}

// Object is an object read from a TC_OBJECT content.
type Object struct {
	// Class is the descriptor of the object's class.
	Class *ClassDesc
	// Data holds the class data of a serializable object, one entry per
	// class of the descriptor chain, from the topmost serializable
	// superclass down to Class itself, in stream order.
	Data []ClassData
	// External holds the contents an externalizable object wrote in block
	// data mode (its writeExternal): BlockData and objects, in order.
	External []Value
	// Offset is the offset in the stream of the object's TC_OBJECT.
	Offset int64
}

// ClassData is the part of an object that one class of its hierarchy
// wrote.
type ClassData struct {
	Class *ClassDesc
	// Values holds the field values, one for each of Class.Fields.
	Values []Value
	// Annotation holds what the class's writeObject wrote after (or
	// instead of) its fields: BlockData and objects, in order. It is empty
	// for a class without FlagWriteMethod.
	Annotation []Value
}

// Field returns the value of the field called name, looking from the
// object's own class up to its topmost serializable superclass. ok is false
// when no class of the object has such a field.
func (o *Object) Field(name string) (v Value, ok bool) {
	for i := len(o.Data) - 1; i >= 0; i-- {
		cd := &o.Data[i]
		for j, f := range cd.Class.Fields {
			if f.Name == name && j < len(cd.Values) {
				return cd.Values[j], true
			}
		}
	}
	return nil, false
}

// ClassData returns the data that the class called name wrote, or nil when
// that class is not in the object's descriptor chain.
func (o *Object) ClassData(name string) *ClassData {
	for i := range o.Data {
		if o.Data[i].Class.Name == name {
			return &o.Data[i]
		}
	}
	return nil
}

// Array is an array read from a TC_ARRAY content.
type Array struct {
	// Class is the descriptor of the array class, e.g. "[I".
	Class *ClassDesc
	// Data holds the elements: []byte for byte[] (the bytes as written),
	// []Char, []float64, []float32, []int32, []int64, []int16, []bool for
	// the other primitive arrays, and []Value for arrays of objects and of
	// arrays.
	Data any
}

// Len returns the number of elements.
func (a *Array) Len() int {
	switch d := a.Data.(type) {
	case []byte:
		return len(d)
	case []Char:
		return len(d)
	case []float64:
		return len(d)
	case []float32:
		return len(d)
	case []int32:
		return len(d)
	case []int64:
		return len(d)
	case []int16:
		return len(d)
	case []bool:
		return len(d)
	case []Value:
		return len(d)
	}
	return 0
}

// Enum is an enum constant read from a TC_ENUM content.
type Enum struct {
	// Class is the descriptor of the enum type (also for a constant with a
	// body); its Super is java.lang.Enum's.
	Class *ClassDesc
	// Name is the constant's name, as Enum.name returns it.
	Name string
}

// Class is a java.lang.Class object read from a TC_CLASS content.
type Class struct {
	Desc *ClassDesc
}
