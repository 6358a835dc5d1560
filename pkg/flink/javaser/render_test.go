package javaser

import (
	"crypto/sha256"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// renderer writes the text of decoded values that testdata/gen/Render.java
// writes from the Java objects, so that a golden file produced by Java is
// compared with what this package decodes. Values with identity (objects,
// arrays) seen more than once are labelled #n at their first rendering and
// ^n afterwards.
type renderer struct {
	b        strings.Builder
	counting bool
	count    map[any]int
	label    map[any]int
	done     map[any]bool
	next     int
}

func render(v Value) string {
	r := &renderer{counting: true, count: map[any]int{}, label: map[any]int{}, done: map[any]bool{}, next: 1}
	r.value(v, 0, "")
	r.counting = false
	r.done = map[any]bool{}
	r.b.Reset()
	r.value(v, 0, "")
	return r.b.String()
}

func (r *renderer) line(indent int, s string) {
	r.b.WriteString(strings.Repeat(" ", indent))
	r.b.WriteString(s)
	r.b.WriteByte('\n')
}

// identity returns the label prefix for v, or ok false when v was rendered
// before (and a ^n line has been written).
func (r *renderer) identity(v any, indent int, prefix string) (label string, ok bool) {
	if r.counting {
		r.count[v]++
	}
	if r.done[v] {
		if r.counting {
			r.line(indent, prefix+"^")
		} else {
			r.line(indent, fmt.Sprintf("%s^%d", prefix, r.label[v]))
		}
		return "", false
	}
	r.done[v] = true
	if !r.counting && r.count[v] > 1 {
		r.label[v] = r.next
		r.next++
		return fmt.Sprintf("#%d ", r.next-1), true
	}
	return "", true
}

func (r *renderer) value(v Value, indent int, prefix string) {
	switch v := v.(type) {
	case nil:
		r.line(indent, prefix+"null")
	case string:
		r.line(indent, prefix+renderString(v))
	case BlockData:
		r.line(indent, prefix+renderBlock(v))
	case *Enum:
		r.line(indent, prefix+"enum "+v.Class.Name+"."+v.Name)
	case *Class:
		r.line(indent, prefix+"class "+renderClassName(v.Desc))
	case *Array:
		r.array(v, indent, prefix)
	case *Object:
		r.object(v, indent, prefix)
	default:
		r.line(indent, fmt.Sprintf("%s%T", prefix, v))
	}
}

func renderClassName(d *ClassDesc) string {
	if d.Proxy {
		return "proxy [" + strings.Join(d.Interfaces, ", ") + "]"
	}
	return d.Name
}

func (r *renderer) object(o *Object, indent int, prefix string) {
	if p, err := AsBoxed(o); err == nil {
		r.line(indent, prefix+o.Class.Name+" "+renderPrim(p))
		return
	}
	if ia, err := AsInetAddress(o); err == nil {
		r.line(indent, prefix+"inet "+ia.HostName+"/"+javaHostAddress(ia))
		return
	}
	label, ok := r.identity(o, indent, prefix)
	if !ok {
		return
	}
	if o.Class.Proxy {
		r.line(indent, prefix+label+renderClassName(o.Class))
		h, _ := o.Field("h")
		r.value(h, indent+2, "h = ")
		return
	}
	if o.Class.Has(FlagExternalizable) {
		r.line(indent, prefix+label+"external "+o.Class.Name)
		for _, e := range o.External {
			r.value(e, indent+2, "- ")
		}
		return
	}
	if elems, err := AsList(o); err == nil {
		r.line(indent, fmt.Sprintf("%s%s%s size=%d", prefix, label, o.Class.Name, len(elems)))
		for _, e := range elems {
			r.value(e, indent+2, "- ")
		}
		return
	}
	if entries, err := AsMap(o); err == nil {
		r.line(indent, fmt.Sprintf("%s%s%s size=%d", prefix, label, o.Class.Name, len(entries)))
		for _, e := range entries {
			r.value(e.Key, indent+2, "key: ")
			r.value(e.Value, indent+2, "value: ")
		}
		return
	}
	r.line(indent, prefix+label+"object "+o.Class.Name)
	for _, cd := range o.Data {
		r.line(indent+2, cd.Class.Name+":")
		for i, f := range cd.Class.Fields {
			if f.Type == 'L' || f.Type == '[' {
				r.value(cd.Values[i], indent+4, f.Name+" = ")
			} else {
				r.line(indent+4, f.Name+" = "+primTypeName(f.Type)+" "+renderPrim(cd.Values[i]))
			}
		}
		if len(cd.Annotation) > 0 {
			r.line(indent+4, "annotation:")
			for _, e := range cd.Annotation {
				r.value(e, indent+6, "- ")
			}
		}
	}
}

func (r *renderer) array(a *Array, indent int, prefix string) {
	label, ok := r.identity(a, indent, prefix)
	if !ok {
		return
	}
	head := fmt.Sprintf("%s%s%s len=%d", prefix, label, a.Class.Name, a.Len())
	if vals, ok := a.Data.([]Value); ok {
		r.line(indent, head)
		for _, e := range vals {
			r.value(e, indent+2, "- ")
		}
		return
	}
	var elems []string
	switch d := a.Data.(type) {
	case []byte:
		for _, x := range d {
			elems = append(elems, renderPrim(int8(x)))
		}
	case []Char:
		for _, x := range d {
			elems = append(elems, renderPrim(x))
		}
	case []float64:
		for _, x := range d {
			elems = append(elems, renderPrim(x))
		}
	case []float32:
		for _, x := range d {
			elems = append(elems, renderPrim(x))
		}
	case []int32:
		for _, x := range d {
			elems = append(elems, renderPrim(x))
		}
	case []int64:
		for _, x := range d {
			elems = append(elems, renderPrim(x))
		}
	case []int16:
		for _, x := range d {
			elems = append(elems, renderPrim(x))
		}
	case []bool:
		for _, x := range d {
			elems = append(elems, renderPrim(x))
		}
	}
	r.line(indent, head+" {"+strings.Join(elems, ", ")+"}")
}

func primTypeName(t byte) string {
	return map[byte]string{'B': "byte", 'C': "char", 'D': "double", 'F': "float", 'I': "int", 'J': "long", 'S': "short", 'Z': "boolean"}[t]
}

func renderPrim(v Value) string {
	switch v := v.(type) {
	case int8:
		return fmt.Sprintf("%02x", uint8(v))
	case Char:
		return fmt.Sprintf("%04x", uint16(v))
	case float32:
		return fmt.Sprintf("%08x", math.Float32bits(v))
	case float64:
		return fmt.Sprintf("%016x", math.Float64bits(v))
	}
	return fmt.Sprint(v)
}

func renderBlock(b []byte) string {
	if len(b) > 64 {
		return fmt.Sprintf("block len=%d sha256=%s", len(b), shortSHA(b))
	}
	return fmt.Sprintf("block len=%d %x", len(b), b)
}

func shortSHA(b []byte) string {
	sum := sha256.Sum256(b)
	return fmt.Sprintf("%x", sum[:8])
}

func renderString(s string) string {
	n := utf8.RuneCountInString(s)
	if n > 100 {
		head := s
		for i := range s {
			if utf8.RuneCountInString(s[:i]) == 40 {
				head = s[:i]
				break
			}
		}
		return fmt.Sprintf("string cps=%d sha256=%s %s...", n, shortSHA([]byte(s)), quote(head))
	}
	return quote(s)
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c >= 0x20 && c < 0x7f:
			b.WriteRune(c)
		default:
			fmt.Fprintf(&b, "\\u{%x}", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// javaHostAddress formats an address as InetAddress.getHostAddress does:
// IPv6 as eight groups of hex digits without leading zeros.
func javaHostAddress(ia InetAddress) string {
	if ia.Addr.Is4() {
		return ia.Addr.String()
	}
	b := ia.Addr.As16()
	groups := make([]string, 8)
	for i := range groups {
		groups[i] = fmt.Sprintf("%x", uint16(b[2*i])<<8|uint16(b[2*i+1]))
	}
	s := strings.Join(groups, ":")
	if z := ia.Addr.Zone(); z != "" {
		s += "%" + z
	}
	return s
}
