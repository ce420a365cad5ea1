package state

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// encodeExact turns v into a YAML node in which every string is a
// double-quoted scalar. yaml.v3's own choice of block styles does not
// round-trip every string (a value starting with a newline loses it), and a
// block scalar line reading "---" would end the frontmatter early; quoted
// scalars have neither problem.
func encodeExact(v reflect.Value) (*yaml.Node, error) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
		}
		v = v.Elem()
	}
	if t, ok := v.Interface().(time.Time); ok {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!timestamp", Value: t.Format(time.RFC3339Nano)}, nil
	}
	switch v.Kind() {
	case reflect.Bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v.Bool())}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v.Int(), 10)}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatUint(v.Uint(), 10)}, nil
	case reflect.String:
		// YAML holds only valid UTF-8: a stray byte becomes U+FFFD rather
		// than failing the whole save.
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.ToValidUTF8(v.String(), "\uFFFD"), Style: yaml.DoubleQuotedStyle}, nil
	case reflect.Struct:
		return encodeStruct(v)
	case reflect.Slice, reflect.Array:
		n := &yaml.Node{Kind: yaml.SequenceNode, Style: flowIfEmpty(v.Len())}
		for i := 0; i < v.Len(); i++ {
			c, err := encodeExact(v.Index(i))
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, c)
		}
		return n, nil
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return nil, fmt.Errorf("cannot encode map with %s keys", v.Type().Key())
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		n := &yaml.Node{Kind: yaml.MappingNode, Style: flowIfEmpty(len(keys))}
		for _, k := range keys {
			c, err := encodeExact(v.MapIndex(k))
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k.String(), Style: yaml.DoubleQuotedStyle}, c)
		}
		return n, nil
	default:
		var n yaml.Node
		if err := n.Encode(v.Interface()); err != nil {
			return nil, err
		}
		return &n, nil
	}
}

func flowIfEmpty(n int) yaml.Style {
	if n == 0 {
		return yaml.FlowStyle
	}
	return 0
}

// yamlKey is the key yaml.v3 gives a struct field, and its tag's options;
// ok is false for a field yaml.v3 leaves out (unexported, or tagged "-").
func yamlKey(f reflect.StructField) (name, opts string, ok bool) {
	if !f.IsExported() {
		return "", "", false
	}
	name, opts, _ = strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" {
		return "", "", false
	}
	if name == "" {
		name = strings.ToLower(f.Name)
	}
	return name, opts, true
}

func encodeStruct(v reflect.Value) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name, opts, ok := yamlKey(t.Field(i))
		if !ok {
			continue
		}
		fv := v.Field(i)
		if strings.Contains(opts, "omitempty") && fv.IsZero() {
			continue
		}
		c, err := encodeExact(fv)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", name, err)
		}
		if strings.Contains(opts, "inline") && c.Kind == yaml.MappingNode {
			// As yaml.v3 does: the embedded struct's keys join this mapping.
			n.Content = append(n.Content, c.Content...)
			continue
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}, c)
	}
	return n, nil
}
