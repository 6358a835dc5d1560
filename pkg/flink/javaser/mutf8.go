package javaser

import "unicode/utf16"

// decodeModifiedUTF8 decodes the modified UTF-8 of DataInput.readUTF:
// UTF-16 code units in one to three bytes each (U+0000 as C0 80, characters
// beyond the BMP as two encoded surrogates). A surrogate that is not part
// of a pair becomes U+FFFD. ok is false for bytes that are not modified
// UTF-8.
func decodeModifiedUTF8(b []byte) (s string, ok bool) {
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b), true
	}
	units := make([]uint16, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c < 0x80:
			units = append(units, uint16(c))
			i++
		case c&0xe0 == 0xc0:
			if i+1 >= len(b) || b[i+1]&0xc0 != 0x80 {
				return "", false
			}
			units = append(units, uint16(c&0x1f)<<6|uint16(b[i+1]&0x3f))
			i += 2
		case c&0xf0 == 0xe0:
			if i+2 >= len(b) || b[i+1]&0xc0 != 0x80 || b[i+2]&0xc0 != 0x80 {
				return "", false
			}
			units = append(units, uint16(c&0x0f)<<12|uint16(b[i+1]&0x3f)<<6|uint16(b[i+2]&0x3f))
			i += 3
		default:
			return "", false
		}
	}
	return string(utf16.Decode(units)), true
}
