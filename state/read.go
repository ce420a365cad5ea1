package state

import (
	"bytes"
	"encoding"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// readBlock decodes frontmatter in the exact form writeFrontmatter writes
// (emit.go) into out, a pointer to a zero struct, as yaml.v3 would: the
// hooks read the state on every call, and yaml.v3's parser and decoder
// cost about as much as its encoder did. It reports false, leaving out in
// any state, for anything else — a file edited by hand, written by an
// older version, a key it does not know, a duplicate key, a type with its
// own decoding — and the caller decodes the text with yaml.v3 instead.
func readBlock(front []byte, out any) bool {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return false
	}
	r := &blockReader{lines: splitLines(front)}
	return len(r.lines) > 0 && r.mapping(v.Elem(), 0, "") && r.at == len(r.lines)
}

func splitLines(text []byte) [][]byte {
	lines := bytes.SplitAfter(text, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	return lines
}

type blockReader struct {
	lines [][]byte
	at    int // the next line to read
}

// line returns the next line's text after indent spaces, without its
// newline, when it is indented by exactly that much.
func (r *blockReader) line(indent int) (string, bool) {
	if r.at >= len(r.lines) {
		return "", false
	}
	l := r.lines[r.at]
	if len(l) == 0 || l[len(l)-1] != '\n' {
		return "", false // the writer ends every line
	}
	l = l[:len(l)-1]
	if len(l) <= indent || strings.TrimLeft(string(l[:indent]), " ") != "" || l[indent] == ' ' {
		return "", false
	}
	return string(l[indent:]), true
}

// mapping reads the pairs of a block mapping at indent into v (a struct or
// a map with string keys). first, when not "", is the first pair's text,
// already taken from a sequence item's line.
func (r *blockReader) mapping(v reflect.Value, indent int, first string) bool {
	fields := map[string]reflect.Value{}
	switch v.Kind() {
	case reflect.Struct:
		if !structFields(v, fields) {
			return false
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String || !settable(v.Type().Elem()) {
			return false
		}
		v.Set(reflect.MakeMap(v.Type()))
	default:
		return false
	}
	seen := map[string]bool{}
	for n := 0; ; n++ {
		text := first
		if n > 0 || first == "" {
			var ok bool
			if text, ok = r.line(indent); !ok || strings.HasPrefix(text, "-") {
				return n > 0
			}
		}
		r.at++
		key, rest, ok := splitPair(text)
		if !ok || seen[key] {
			return false
		}
		seen[key] = true
		if v.Kind() == reflect.Map {
			e := reflect.New(v.Type().Elem()).Elem()
			if !r.value(e, indent, rest) {
				return false
			}
			v.SetMapIndex(reflect.ValueOf(key).Convert(v.Type().Key()), e)
			continue
		}
		f, known := fields[key]
		if !known || !r.value(f, indent, rest) {
			return false
		}
	}
}

// structFields maps each yaml key of a struct to its field, as yaml.v3
// names them; false for a shape it does not decode the same way.
func structFields(v reflect.Value, fields map[string]reflect.Value) bool {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name, opts, ok := yamlKey(t.Field(i))
		if !ok {
			continue
		}
		if strings.Contains(opts, "inline") || strings.Contains(opts, "flow") {
			return false
		}
		fields[name] = v.Field(i)
	}
	return true
}

// splitPair splits `key: value`, `key:` and `"key": value`.
func splitPair(text string) (key, rest string, ok bool) {
	if strings.HasPrefix(text, `"`) {
		end := quotedEnd(text)
		if end < 0 || end+1 >= len(text) || text[end+1] != ':' {
			return "", "", false
		}
		key, ok = unquote(text[:end+1])
		return key, text[end+2:], ok
	}
	key, rest, found := strings.Cut(text, ":")
	return key, rest, found && plainKey(key)
}

// value reads what follows "key:" (rest) into v: a scalar on the line, or a
// block on the lines below, indented two more than the key.
func (r *blockReader) value(v reflect.Value, indent int, rest string) bool {
	if !settable(v.Type()) {
		return false
	}
	if rest == "" {
		for v.Kind() == reflect.Pointer {
			v.Set(reflect.New(v.Type().Elem()))
			v = v.Elem()
		}
		if v.Kind() == reflect.Slice {
			return r.sequence(v, indent+2)
		}
		return r.mapping(v, indent+2, "")
	}
	if rest[0] != ' ' {
		return false
	}
	return scalar(v, rest[1:])
}

// sequence reads the "- " items at indent into the slice v.
func (r *blockReader) sequence(v reflect.Value, indent int) bool {
	v.Set(reflect.MakeSlice(v.Type(), 0, 4))
	for {
		text, ok := r.line(indent)
		if !ok || !strings.HasPrefix(text, "- ") {
			return v.Len() > 0
		}
		r.at++
		if !settable(v.Type().Elem()) {
			return false
		}
		e := reflect.New(v.Type().Elem()).Elem()
		item := text[2:]
		target := e
		for target.Kind() == reflect.Pointer {
			target.Set(reflect.New(target.Type().Elem()))
			target = target.Elem()
		}
		switch {
		case item == "{}" && (target.Kind() == reflect.Struct || target.Kind() == reflect.Map):
			if target.Kind() == reflect.Map {
				target.Set(reflect.MakeMap(target.Type()))
			}
		case target.Kind() == reflect.Struct || target.Kind() == reflect.Map:
			r.at--
			if !r.mapping(target, indent+2, item) {
				return false
			}
		default:
			if !scalar(e, item) {
				return false
			}
		}
		v.Set(reflect.Append(v, e))
	}
}

// scalar decodes one value written on its line: a quoted string, an
// integer, a bool, a timestamp, null, [] or {}.
func scalar(v reflect.Value, text string) bool {
	if text == "null" {
		v.SetZero()
		return true
	}
	if v.Kind() == reflect.Pointer {
		if text == "[]" || text == "{}" {
			return false
		}
		p := reflect.New(v.Type().Elem())
		if !scalar(p.Elem(), text) {
			return false
		}
		v.Set(p)
		return true
	}
	if v.Type() == timeType {
		t, err := time.Parse(time.RFC3339Nano, text)
		if err != nil {
			return false
		}
		v.Set(reflect.ValueOf(t))
		return true
	}
	switch v.Kind() {
	case reflect.String:
		s, ok := unquote(text)
		if ok {
			v.SetString(s)
		}
		return ok
	case reflect.Bool:
		if text != "true" && text != "false" {
			return false
		}
		v.SetBool(text == "true")
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if !plainScalar("!!int", text) {
			return false
		}
		n, err := strconv.ParseInt(text, 10, v.Type().Bits())
		if err != nil {
			return false
		}
		v.SetInt(n)
		return true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !plainScalar("!!int", text) || text[0] == '-' {
			return false
		}
		n, err := strconv.ParseUint(text, 10, v.Type().Bits())
		if err != nil {
			return false
		}
		v.SetUint(n)
		return true
	case reflect.Slice:
		if text != "[]" {
			return false
		}
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		return true
	case reflect.Map:
		if text != "{}" || v.Type().Key().Kind() != reflect.String {
			return false
		}
		v.Set(reflect.MakeMap(v.Type()))
		return true
	case reflect.Struct:
		return text == "{}"
	}
	return false
}

var (
	timeType        = reflect.TypeOf(time.Time{})
	unmarshalerType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()
	textType        = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()
)

// settable reports whether yaml.v3 decodes into t without a method of t's
// own (time.Time's text method aside: a timestamp is parsed as yaml.v3
// parses it).
func settable(t reflect.Type) bool {
	if t == timeType {
		return true
	}
	p := reflect.PointerTo(t)
	return !p.Implements(unmarshalerType) && !p.Implements(textType) && t.Kind() != reflect.Interface
}

// quotedEnd returns the index of the quote closing the double-quoted
// scalar text starts with, or -1.
func quotedEnd(text string) int {
	for i := 1; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// unquote decodes a whole double-quoted scalar holding only what
// emitQuoted writes: printable text and the escapes \" \\ \n \t \r \xXX
// \uXXXX.
func unquote(text string) (string, bool) {
	if len(text) < 2 || text[0] != '"' || quotedEnd(text) != len(text)-1 {
		return "", false
	}
	body := text[1 : len(text)-1]
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' {
			r, size := utf8.DecodeRuneInString(body[i:])
			if r == utf8.RuneError && size == 1 || escaped(r) {
				return "", false
			}
			b.WriteString(body[i : i+size])
			i += size
			continue
		}
		if i+1 >= len(body) {
			return "", false
		}
		digits := 0
		switch body[i+1] {
		case '"', '\\':
			b.WriteByte(body[i+1])
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'x':
			digits = 2
		case 'u':
			digits = 4
		default:
			return "", false
		}
		i += 2
		if digits == 0 {
			continue
		}
		if i+digits > len(body) {
			return "", false
		}
		n, err := strconv.ParseUint(body[i:i+digits], 16, 32)
		if err != nil || strings.ToUpper(body[i:i+digits]) != body[i:i+digits] || !escaped(rune(n)) {
			return "", false
		}
		b.WriteRune(rune(n))
		i += digits
	}
	return b.String(), true
}
