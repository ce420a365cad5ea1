package state

import (
	"bytes"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// trickyText returns a random string built from what YAML treats specially:
// its indicators, document markers, every kind of line break it knows,
// control characters, the byte-order mark, non-characters, wide and
// four-byte characters, and words it reads as other types.
func trickyText(r *rand.Rand) string {
	pieces := []string{"---", "...", "- ", ": ", " #", "\n", "\r\n", "\r", "\t", " ", `"`, "'", `\`, `\n`,
		"{", "}", "[", "]", "|", ">", "&a", "*a", "!!int", "%", "@", "`", "?", ",",
		"\x00", "\x01", "\x1b", "\x7f", "\u0085", "\u00a0", "\u2028", "\u2029", "\ufeff", "\ufffe", "\uffff",
		"목표", "é", "…", "🚀", "\U0010FFFF", "\ue000", "\ufffd",
		"yes", "no", "null", "~", "true", "0x1F", "1e3", ".inf", "2026-11-22", "12:30", "-1", "+1", "0o7",
		"a", "Z", "9", "plan"}
	var b strings.Builder
	for n := r.Intn(8); n >= 0; n-- {
		b.WriteString(pieces[r.Intn(len(pieces))])
	}
	return b.String()
}

// fill sets every exported field of v, recursively, to a random non-zero
// value, so that each shape the state's types can take is written.
func fill(v reflect.Value, r *rand.Rand) {
	if v.Type() == reflect.TypeOf(time.Time{}) {
		v.Set(reflect.ValueOf(time.Date(2000+r.Intn(100), time.Month(1+r.Intn(12)), 1+r.Intn(28),
			r.Intn(24), r.Intn(60), r.Intn(60), r.Intn(2)*r.Intn(1e9), time.UTC)))
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(r.Intn(2000) - 1000))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(r.Intn(1000)))
	case reflect.String:
		v.SetString(trickyText(r))
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), r)
	case reflect.Slice:
		n := 1 + r.Intn(2)
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := 0; i < n; i++ {
			fill(v.Index(i), r)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for i := r.Intn(3); i >= 0; i-- {
			k := reflect.New(v.Type().Key()).Elem()
			e := reflect.New(v.Type().Elem()).Elem()
			fill(k, r)
			fill(e, r)
			v.SetMapIndex(k, e)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), r)
			}
		}
	}
}

// The frontmatter writer handles every field of the state and of a saved
// plan's metadata itself (none falls back to yaml.v3's encoder, which would
// cost a Stop hook ~70 µs), and what it writes reads back, with yaml.v3, as
// exactly what yaml.v3's own encoding of the same tree reads back as.
func TestFrontmatterMeansWhatYAMLv3Means(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 120; i++ {
		for _, typ := range []reflect.Type{reflect.TypeOf(Loop{}), reflect.TypeOf(PlanMeta{})} {
			v := reflect.New(typ).Elem()
			fill(v, r)
			n, err := encodeExact(v)
			require.NoError(t, err)

			var ours bytes.Buffer
			require.True(t, emitBlock(&ours, n), "a %s the writer does not handle:\n%s", typ, ours.String())
			end, _, _ := closingLine(ours.Bytes(), 0, true)
			require.Equal(t, -1, end, "a line closes the frontmatter early:\n%s", ours.String())

			theirs, err := yaml.Marshal(n)
			require.NoError(t, err)
			got, want := reflect.New(typ), reflect.New(typ)
			require.NoError(t, yaml.Unmarshal(ours.Bytes(), got.Interface()), "text:\n%s", ours.String())
			require.NoError(t, yaml.Unmarshal(theirs, want.Interface()))
			require.Equal(t, want.Interface(), got.Interface(), "text:\n%s", ours.String())
		}
	}
}

// A string reads back exactly, whatever it holds: every rune, line break
// and escape is written so that yaml.v3 reads it as it was.
func TestFrontmatterStringsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for i := 0; i < 3000; i++ {
		var runes []rune
		for n := r.Intn(6); n >= 0; n-- {
			switch r.Intn(4) {
			case 0:
				runes = append(runes, rune(r.Intn(0x100)))
			case 1:
				runes = append(runes, rune(0x2000+r.Intn(0x100)))
			case 2:
				runes = append(runes, rune(0xFF00+r.Intn(0x100)))
			default:
				runes = append(runes, rune(0x10000+r.Intn(0x100000)))
			}
		}
		s := strings.ToValidUTF8(string(runes), "\uFFFD")
		l := sampleLoop()
		l.Request = s
		data, err := Marshal(&File{Loop: l})
		require.NoError(t, err)
		got, err := Parse(data)
		require.NoError(t, err, "%q gave:\n%s", s, data)
		require.Equal(t, s, got.Loop.Request, "%q gave:\n%s", s, data)
		require.Equal(t, 1, strings.Count(string(data), "\nrequest: "), "the request is on one line:\n%s", data)
	}
}

// A tree the writer was not made for (here a sequence of sequences and a
// whole-number float) is written by yaml.v3's encoder instead, and reads
// back all the same.
func TestFrontmatterFallsBackToYAMLv3(t *testing.T) {
	type odd struct {
		Grid  [][]string `yaml:"grid"`
		Ratio float64    `yaml:"ratio"`
		Name  string     `yaml:"name"`
	}
	in := odd{Grid: [][]string{{"a", "---"}, {"b"}}, Ratio: 2, Name: "x\n---\ny"}
	n, err := encodeExact(reflect.ValueOf(in))
	require.NoError(t, err)
	assert.False(t, emitBlock(new(bytes.Buffer), n))

	var buf bytes.Buffer
	require.NoError(t, writeFrontmatter(&buf, in))
	front, _, err := splitFrontmatter(buf.Bytes())
	require.NoError(t, err)
	var back odd
	require.NoError(t, yaml.Unmarshal(front, &back))
	assert.Equal(t, in, back)
}

// The fast reader decodes everything the writer writes, to the value
// yaml.v3 decodes from the same text.
func TestReaderReadsWhatTheWriterWrites(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	for i := 0; i < 120; i++ {
		for _, typ := range []reflect.Type{reflect.TypeOf(Loop{}), reflect.TypeOf(PlanMeta{})} {
			v := reflect.New(typ).Elem()
			fill(v, r)
			front := frontOf(t, v.Interface())
			got, want := reflect.New(typ), reflect.New(typ)
			require.True(t, readBlock(front, got.Interface()), "the reader gave up on:\n%s", front)
			require.NoError(t, yaml.Unmarshal(front, want.Interface()))
			require.Equal(t, want.Interface(), got.Interface(), "text:\n%s", front)
		}
	}
}

// Whatever the text, when the fast reader accepts it, yaml.v3 reads it
// too and to the same value: texts made by cutting, doubling, swapping,
// re-indenting and changing bytes of written states.
func TestReaderNeverDisagreesWithYAMLv3(t *testing.T) {
	// Hand-made: keys with nothing below them (yaml.v3 reads null), a
	// key twice, a key it does not know, a string written plain.
	for _, text := range []string{
		"active: true\nconvergence:\nphase: \"x\"\n",
		"phases:\nactive: true\n",
		"active: true\ngate_record:\n",
		"active: true\nactive: false\n",
		"active: true\nconverge: true\n",
		"phase: draft\n",
		"phases:\n  - \"a\"\n   - \"b\"\n",
	} {
		var got Loop
		assert.False(t, readBlock([]byte(text), &got), "%q", text)
	}

	r := rand.New(rand.NewSource(17))
	accepted := 0
	for i := 0; i < 1200; i++ {
		v := reflect.New(reflect.TypeOf(Loop{})).Elem()
		if r.Intn(2) == 0 {
			fill(v, r)
		} else {
			v.Set(reflect.ValueOf(sampleLoop()))
		}
		lines := strings.SplitAfter(string(frontOf(t, v.Interface())), "\n")
		lines = lines[:len(lines)-1]
		for n := 1 + r.Intn(3); n > 0; n-- {
			k := r.Intn(len(lines))
			switch r.Intn(7) {
			case 0:
				lines = append(lines[:k], lines[k+1:]...)
			case 1:
				lines = append(lines[:k+1], lines[k:]...)
			case 2:
				j := r.Intn(len(lines))
				lines[k], lines[j] = lines[j], lines[k]
			case 3:
				lines[k] = "  " + lines[k]
			case 4:
				lines[k] = strings.TrimPrefix(lines[k], "  ")
			case 5:
				b := []byte(lines[k])
				b[r.Intn(len(b))] = "\x00\t \"\\:-#'{}[]\nxA0é"[r.Intn(18)]
				lines[k] = string(b)
			default:
				lines[k] = strings.Replace(lines[k], `"`, "", 1+r.Intn(2))
			}
			if len(lines) == 0 {
				lines = []string{"\n"}
			}
		}
		text := []byte(strings.Join(lines, ""))
		var got Loop
		if !readBlock(text, &got) {
			continue
		}
		accepted++
		var want Loop
		require.NoError(t, yaml.Unmarshal(text, &want), "the reader accepted what yaml.v3 refuses:\n%s", text)
		require.Equal(t, want, got, "text:\n%s", text)
	}
	assert.Greater(t, accepted, 40, "the edits must leave some texts readable")
}

func frontOf(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, writeFrontmatter(&buf, v))
	front, _, err := splitFrontmatter(buf.Bytes())
	require.NoError(t, err)
	return front
}
