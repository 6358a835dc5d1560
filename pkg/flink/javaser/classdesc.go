package javaser

import "slices"

// readClassDesc reads a classDesc of the grammar: a new class or proxy
// descriptor, a reference to one, or null.
func (d *Decoder) readClassDesc() (*ClassDesc, error) {
	if err := d.enter(d.pos); err != nil {
		return nil, err
	}
	cd, err := d.readClassDescContent()
	d.depth--
	return cd, err
}

// readClassDescContent is readClassDesc inside the nesting it counts.
func (d *Decoder) readClassDescContent() (*ClassDesc, error) {
	start := d.pos
	tc, err := d.u8("class descriptor")
	if err != nil {
		return nil, err
	}
	switch tc {
	case tcNull:
		return nil, nil
	case tcClassDesc:
		return d.readNewClassDesc()
	case tcProxyClassDesc:
		return d.readProxyClassDesc()
	case tcReference:
		d.pos = start
		v, err := d.readReference()
		if err != nil {
			return nil, err
		}
		if cd, ok := v.(*ClassDesc); ok {
			return cd, nil
		}
		return nil, d.malformed(start, "reference to %s where a class descriptor was expected", kindOf(v))
	}
	return nil, d.malformed(start, "type code 0x%02x where a class descriptor was expected", tc)
}

// readNewClassDesc reads a TC_CLASSDESC whose type code has been read:
// className serialVersionUID newHandle classDescInfo.
func (d *Decoder) readNewClassDesc() (*ClassDesc, error) {
	start := d.pos - 1
	if d.noCache {
		return d.parseNewClassDesc(start)
	}
	if cd := d.cachedDesc(start); cd != nil {
		return cd, nil
	}
	base, depth, peak, from := len(d.handles), d.depth, d.peak, len(d.refs)
	d.peak = depth
	d.parsing++
	cd, err := d.parseNewClassDesc(start)
	d.parsing--
	if err == nil {
		d.storeDesc(start, base, d.peak-depth, cd, d.refs[from:])
	}
	d.peak = max(peak, d.peak)
	if d.parsing == 0 {
		d.refs = d.refs[:0]
	}
	return cd, err
}

// parseNewClassDesc reads the TC_CLASSDESC at start.
func (d *Decoder) parseNewClassDesc(start int) (*ClassDesc, error) {
	name, err := d.utf("class name length")
	if err != nil {
		return nil, err
	}
	suid, err := d.i64("serialVersionUID")
	if err != nil {
		return nil, err
	}
	cd := &ClassDesc{Name: name, SerialVersionUID: suid}
	if err := d.newHandle(start, cd); err != nil {
		return nil, err
	}
	if cd.Flags, err = d.u8("class descriptor flags"); err != nil {
		return nil, err
	}
	if cd.Has(FlagSerializable) && cd.Has(FlagExternalizable) {
		return nil, d.malformed(start, "class %s is flagged both serializable and externalizable", printable(name))
	}
	if cd.Fields, err = d.readFields(name); err != nil {
		return nil, err
	}
	return cd, d.readClassDescTail(cd)
}

// readClassDescTail reads the class annotation and the superclass
// descriptor.
func (d *Decoder) readClassDescTail(cd *ClassDesc) error {
	// The annotation is read with its Values whatever the mode: a
	// descriptor, and the handles it assigns, may be cached and shared.
	skip := d.skip
	d.skip = false
	var err error
	cd.Annotation, err = d.readAnnotation()
	d.skip = skip
	if err != nil {
		return err
	}
	if cd.Super, err = d.readClassDesc(); err != nil {
		return err
	}
	// A superclass read before cd has its lineage; one that is not (a
	// superclass chain looping back to cd) leaves cd without one.
	switch {
	case cd.Super == nil:
		cd.lineage = []*ClassDesc{cd}
	case cd.Super.lineage != nil && len(cd.Super.lineage) < d.opts.MaxDepth:
		cd.lineage = append(slices.Clip(cd.Super.lineage), cd)
	}
	return nil
}

func (d *Decoder) readFields(class string) ([]Field, error) {
	start := d.pos
	n, err := d.u16("field count")
	if err != nil {
		return nil, err
	}
	if n >= 0x8000 {
		n = 0 // ObjectInputStream reads a signed short: a negative count is no field
	}
	// A field takes at least 3 bytes: its type code and a name length.
	if left := len(d.buf) - d.pos; int(n)*3 > left {
		return nil, d.truncated(start, "%d fields of %s cannot fit in %d bytes", n, printable(class), left)
	}
	fields := make([]Field, n)
	for i := range fields {
		at := d.pos
		f := &fields[i]
		if f.Type, err = d.u8("field type code"); err != nil {
			return nil, err
		}
		if f.Name, err = d.utf("field name length"); err != nil {
			return nil, err
		}
		switch f.Type {
		case 'B', 'C', 'D', 'F', 'I', 'J', 'S', 'Z':
		case 'L', '[':
			sig, null, err := d.readTypeString()
			if err != nil {
				return nil, err
			}
			if null {
				return nil, d.malformed(at, "field %s.%s without a type", printable(class), printable(f.Name))
			}
			f.ClassName = sig
		default:
			return nil, d.malformed(at, "field %s.%s has type code 0x%02x", printable(class), printable(f.Name), f.Type)
		}
	}
	return fields, nil
}

// readProxyClassDesc reads a TC_PROXYCLASSDESC whose type code has been
// read: newHandle count interfaceNames classAnnotation superClassDesc.
func (d *Decoder) readProxyClassDesc() (*ClassDesc, error) {
	cd := &ClassDesc{Proxy: true, Flags: FlagSerializable}
	if err := d.newHandle(d.pos-1, cd); err != nil {
		return nil, err
	}
	start := d.pos
	n, err := d.i32("proxy interface count")
	if err != nil {
		return nil, err
	}
	if n < 0 || n > 65535 {
		return nil, d.malformed(start, "proxy with %d interfaces", n)
	}
	if left := len(d.buf) - d.pos; int(n)*2 > left {
		return nil, d.truncated(start, "%d proxy interface names cannot fit in %d bytes", n, left)
	}
	cd.Interfaces = make([]string, n)
	for i := range cd.Interfaces {
		if cd.Interfaces[i], err = d.utf("proxy interface name length"); err != nil {
			return nil, err
		}
	}
	return cd, d.readClassDescTail(cd)
}

// chain returns the descriptors of desc's hierarchy from the topmost
// superclass down to desc. The result is shared: callers do not modify it.
func (d *Decoder) chain(at int, desc *ClassDesc) ([]*ClassDesc, error) {
	if desc.lineage != nil {
		return desc.lineage, nil
	}
	var c []*ClassDesc
	for cd := desc; cd != nil; cd = cd.Super {
		if len(c) >= d.opts.MaxDepth {
			return nil, d.malformed(at, "superclass chain of %s loops or is longer than %d", printable(desc.Name), d.opts.MaxDepth)
		}
		c = append(c, cd)
	}
	for i, j := 0, len(c)-1; i < j; i, j = i+1, j-1 {
		c[i], c[j] = c[j], c[i]
	}
	return c, nil
}
