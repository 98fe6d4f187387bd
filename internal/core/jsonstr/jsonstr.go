// Package jsonstr writes a string as a JSON string the way the core prints
// the strings of nested values (rows) and variants (variant): ", \ and the
// control characters escaped, nothing else (no HTML escapes, U+2028 as it
// is). One definition for both, since a value read back from either must
// print alike.
package jsonstr

// Append appends s, which must be valid UTF-8 (callers check or repair it),
// as a JSON string.
func Append[S string | []byte](b []byte, s S) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for len(s) > 0 {
		// the run of bytes that need no escape, appended at once
		i := 0
		for i < len(s) && s[i] >= 0x20 && s[i] != '"' && s[i] != '\\' {
			i++
		}
		b = append(b, s[:i]...)
		if i == len(s) {
			break
		}
		c := s[i]
		s = s[i+1:]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
