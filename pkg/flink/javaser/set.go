package javaser

// AsSet returns the elements of a set in stream order (for a HashSet, its
// iteration order when written): java.util.HashSet, LinkedHashSet and
// their subclasses, TreeSet, the Collections empty, singleton,
// unmodifiable and synchronized sets, and the immutable sets of Set.of
// (java.util.CollSer).
func AsSet(v Value) ([]Value, error) {
	for range maxWrapping {
		o, ok := v.(*Object)
		if !ok {
			return nil, notAdapted(v, "a set")
		}
		switch name := o.Class.Name; {
		case o.ClassData("java.util.HashSet") != nil:
			// writeObject: capacity int, load factor float, size int, elements.
			return countedObjects(o, "java.util.HashSet", 2, 1)
		case name == "java.util.TreeSet":
			// writeObject: the comparator object, size int, elements.
			return treeSet(o)
		case name == "java.util.CollSer":
			return collSer(o, 2)
		case name == "java.util.Collections$EmptySet":
			return []Value{}, nil
		case name == "java.util.Collections$SingletonSet":
			e, _ := o.Field("element")
			return []Value{e}, nil
		case name == "java.util.Collections$UnmodifiableSet", name == "java.util.Collections$SynchronizedSet",
			name == "java.util.Collections$UnmodifiableSortedSet", name == "java.util.Collections$SynchronizedSortedSet",
			name == "java.util.Collections$UnmodifiableNavigableSet":
			c, ok := o.Field("c")
			if !ok {
				return nil, badForm(o, "no field c")
			}
			v = c
		default:
			return nil, notAdapted(v, "a set")
		}
	}
	return nil, notAdapted(v, "a set")
}

// treeSet reads TreeSet's writeObject: the comparator, the size, then the
// elements.
func treeSet(o *Object) ([]Value, error) {
	cd := o.ClassData("java.util.TreeSet")
	if cd == nil {
		return nil, badForm(o, "no data of java.util.TreeSet")
	}
	r := &annotationReader{o: o, items: cd.Annotation}
	if _, err := r.object(); err != nil {
		return nil, err
	}
	n, err := r.int32("size")
	if err != nil {
		return nil, err
	}
	if n < 0 || int(n) > r.left() {
		return nil, badForm(o, "size %d, but %d objects written", n, r.left())
	}
	out := make([]Value, n)
	for i := range out {
		if out[i], err = r.object(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
