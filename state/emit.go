package state

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// writeFrontmatter appends v as a frontmatter block: "---", v in YAML, "---".
// Every string is double-quoted on one line (encodeExact), so no line of it
// can close the frontmatter early.
//
// The node tree is written by emitBlock, which handles every shape
// encodeExact makes in a few microseconds; yaml.v3's encoder took about 70
// on a loop's state, once per Stop hook. A node emitBlock does not expect
// goes through yaml.v3's encoder, as everything did before.
func writeFrontmatter(buf *bytes.Buffer, v any) error {
	n, err := encodeExact(reflect.ValueOf(v))
	if err != nil {
		return err
	}
	buf.WriteString("---\n")
	start := buf.Len()
	if !emitBlock(buf, n) {
		buf.Truncate(start)
		enc := yaml.NewEncoder(buf)
		enc.SetIndent(2)
		if err := enc.Encode(n); err != nil {
			return err
		}
		enc.Close()
	}
	buf.WriteString("---\n")
	return nil
}

// emitBlock writes a top-level mapping in block style, two spaces an
// indentation level. It reports false, having written part of it, for a
// node it does not know how to write exactly.
func emitBlock(buf *bytes.Buffer, n *yaml.Node) bool {
	return n.Kind == yaml.MappingNode && len(n.Content) > 0 && emitPairs(buf, n, 0, false)
}

// emitPairs writes a mapping's pairs, each on a line of its own at indent;
// the first continues the current line when inline (an item of a sequence).
func emitPairs(buf *bytes.Buffer, n *yaml.Node, indent int, inline bool) bool {
	if len(n.Content)%2 != 0 {
		return false
	}
	for i := 0; i < len(n.Content); i += 2 {
		if i > 0 || !inline {
			pad(buf, indent)
		}
		if !emitKey(buf, n.Content[i]) {
			return false
		}
		buf.WriteByte(':')
		if !emitValue(buf, n.Content[i+1], indent) {
			return false
		}
	}
	return true
}

// emitValue writes the value of a pair whose key, at indent, is written.
func emitValue(buf *bytes.Buffer, n *yaml.Node, indent int) bool {
	switch n.Kind {
	case yaml.ScalarNode:
		buf.WriteByte(' ')
		return emitScalar(buf, n) && newline(buf)
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			buf.WriteString(" []\n")
			return true
		}
		buf.WriteByte('\n')
		for _, item := range n.Content {
			pad(buf, indent+2)
			buf.WriteByte('-')
			if !emitItem(buf, item, indent+4) {
				return false
			}
		}
		return true
	case yaml.MappingNode:
		if len(n.Content) == 0 {
			buf.WriteString(" {}\n")
			return true
		}
		buf.WriteByte('\n')
		return emitPairs(buf, n, indent+2, false)
	}
	return false
}

// emitItem writes a sequence item after its "-"; a mapping's pairs after
// the first go at indent.
func emitItem(buf *bytes.Buffer, n *yaml.Node, indent int) bool {
	switch n.Kind {
	case yaml.ScalarNode:
		buf.WriteByte(' ')
		return emitScalar(buf, n) && newline(buf)
	case yaml.MappingNode:
		if len(n.Content) == 0 {
			buf.WriteString(" {}\n")
			return true
		}
		buf.WriteByte(' ')
		return emitPairs(buf, n, indent, true)
	}
	return false // a sequence in a sequence: encodeExact's types have none
}

func pad(buf *bytes.Buffer, n int) {
	for ; n > 0; n-- {
		buf.WriteByte(' ')
	}
}

func newline(buf *bytes.Buffer) bool {
	buf.WriteByte('\n')
	return true
}

// emitKey writes a mapping key: a field name plain, anything else quoted.
func emitKey(buf *bytes.Buffer, n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!str" && n.Tag != "") {
		return false
	}
	if n.Style == 0 && plainKey(n.Value) {
		buf.WriteString(n.Value)
		return true
	}
	return emitQuoted(buf, n.Value)
}

// plainKey reports whether s reads as the same string written without
// quotes: lower-case letters, digits and underscores, starting with a
// letter, and none of the words YAML reads as something else.
func plainKey(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	switch s {
	case "null", "true", "false", "yes", "no", "on", "off", "y", "n":
		return false
	}
	return true
}

// emitScalar writes a scalar encodeExact made: a double-quoted string, or a
// plain bool, integer, null, float or timestamp whose text reads back as
// what its tag says.
func emitScalar(buf *bytes.Buffer, n *yaml.Node) bool {
	if n.Style == yaml.DoubleQuotedStyle && (n.Tag == "!!str" || n.Tag == "") {
		return emitQuoted(buf, n.Value)
	}
	if n.Style != 0 || !plainScalar(n.Tag, n.Value) {
		return false
	}
	buf.WriteString(n.Value)
	return true
}

func plainScalar(tag, v string) bool {
	switch tag {
	case "!!bool":
		return v == "true" || v == "false"
	case "!!null":
		return v == "null"
	case "!!int":
		_, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			_, err = strconv.ParseUint(v, 10, 64)
		}
		return err == nil && v[0] != '+' && (len(v) == 1 || v[0] != '0') && !(len(v) > 1 && v[0] == '-' && v[1] == '0')
	case "!!float":
		if v == ".inf" || v == "-.inf" || v == ".nan" {
			return true
		}
		_, err := strconv.ParseFloat(v, 64)
		return err == nil && v[0] != '+' && v[0] != '.' && bytes.ContainsAny([]byte(v), ".eE")
	case "!!timestamp":
		_, err := time.Parse(time.RFC3339Nano, v)
		return err == nil
	}
	return false
}

// emitQuoted writes s as one double-quoted YAML line. Printable text is
// written as it is; line breaks (YAML counts U+0085, U+2028 and U+2029 among
// them), other control characters, the byte-order mark and non-characters
// are escaped, as are the quote and the backslash.
func emitQuoted(buf *bytes.Buffer, s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	buf.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			buf.WriteString(`\"`)
		case r == '\\':
			buf.WriteString(`\\`)
		case r == '\n':
			buf.WriteString(`\n`)
		case r == '\t':
			buf.WriteString(`\t`)
		case r == '\r':
			buf.WriteString(`\r`)
		case escaped(r) && r <= 0xFF:
			fmt.Fprintf(buf, `\x%02X`, r)
		case escaped(r):
			fmt.Fprintf(buf, `\u%04X`, r)
		default:
			buf.WriteRune(r)
		}
	}
	buf.WriteByte('"')
	return true
}

// escaped reports whether emitQuoted writes r as an escape (\xXX or
// \uXXXX) rather than as itself; readBlock accepts exactly these escapes.
func escaped(r rune) bool {
	return r < 0x20 || r >= 0x7F && r <= 0x9F || r == 0x2028 || r == 0x2029 || r == 0xFEFF || r == 0xFFFE || r == 0xFFFF
}
