package mdtext

import "bytes"

// Frontmatter returns the YAML between a leading "---" line and the next
// "---" line (a byte-order mark and CRLF line ends allowed), and false when
// data does not open with one or never closes it. Kept plans and sub-agent
// definitions are read through it.
func Frontmatter(data []byte) ([]byte, bool) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		if rest, ok = bytes.CutPrefix(data, []byte("---\r\n")); !ok {
			return nil, false
		}
	}
	for off := 0; off < len(rest); {
		end := bytes.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if end >= 0 {
			line = rest[off : off+end]
		}
		if string(bytes.TrimRight(line, "\r")) == "---" {
			return rest[:off], true
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return nil, false
}
