package scan

import "encoding/json"

// A label filter reads one value out of each row's JSON text without
// decoding the rest: a walk over the bytes that skips every member but the
// one on the path. Most keys and values hold no escape and are compared in
// place; an escaped one is decoded by encoding/json. Text that is not JSON
// (which the readers never produce) matches nothing.

// jsonPath returns the raw JSON of the value at path (object member names,
// in order) in text, or false when a step is missing or not an object.
func jsonPath(text string, path []string) (string, bool) {
	v := text
	for _, name := range path {
		var ok bool
		if v, ok = member(v, name); !ok {
			return "", false
		}
	}
	v = trimSpace(v)
	if v == "" {
		return "", false
	}
	return v, true
}

// member returns the raw value of member name of the object s (leading
// and trailing space allowed).
func member(s, name string) (string, bool) {
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return "", false
	}
	i++
	for {
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != '"' {
			return "", false // "}" (no more members) or not JSON
		}
		end := skipString(s, i)
		if end < 0 {
			return "", false
		}
		key := s[i:end]
		i = skipSpace(s, end)
		if i >= len(s) || s[i] != ':' {
			return "", false
		}
		i = skipSpace(s, i+1)
		vend := skipValue(s, i)
		if vend < 0 {
			return "", false
		}
		if k, ok := jsonString(key); ok && k == name {
			return s[i:vend], true
		}
		i = skipSpace(s, vend)
		if i >= len(s) || s[i] != ',' {
			return "", false
		}
		i++
	}
}

// jsonString decodes the JSON string raw (quotes included).
func jsonString(raw string) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	in := raw[1 : len(raw)-1]
	for i := 0; i < len(in); i++ {
		if in[i] == '\\' {
			var s string
			if err := json.Unmarshal([]byte(raw), &s); err != nil {
				return "", false
			}
			return s, true
		}
	}
	return in, true
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

func trimSpace(s string) string {
	i := skipSpace(s, 0)
	j := len(s)
	for j > i && (s[j-1] == ' ' || s[j-1] == '\t' || s[j-1] == '\n' || s[j-1] == '\r') {
		j--
	}
	return s[i:j]
}

// skipString returns the index after the string starting at s[i] ('"'),
// or -1 when it does not end.
func skipString(s string, i int) int {
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the index after the value starting at s[i], or -1.
func skipValue(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for ; i < len(s); i++ {
			switch s[i] {
			case '"':
				if i = skipString(s, i); i < 0 {
					return -1
				}
				i--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}
