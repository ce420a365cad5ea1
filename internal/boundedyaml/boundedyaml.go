// Package boundedyaml decodes YAML a repository may have written (a state
// file's frontmatter, a kept plan's) within bounds: yaml.v3 compares every
// key of a mapping with every other one, even when decoding into a struct,
// so a file of a hundred thousand keys took minutes.
package boundedyaml

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// Limits on what Decode accepts: plansmith's own files have about 45 keys
// in their largest mapping and a few thousand values in all.
const (
	MaxMappingKeys = 128
	MaxNodes       = 200_000
)

// Decode decodes data into v with yaml.v3, after checking on its parsed
// tree (built in linear time) that no mapping has more than MaxMappingKeys
// keys and the tree no more than MaxNodes values. what names the text in
// errors ("the frontmatter").
func Decode(data []byte, v any, what string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return err
	}
	nodes := 0
	var walk func(n *yaml.Node) error
	walk = func(n *yaml.Node) error {
		nodes++
		if nodes > MaxNodes {
			return fmt.Errorf("%s holds more than %d values; plansmith writes far fewer", what, MaxNodes)
		}
		if n.Kind == yaml.MappingNode && len(n.Content)/2 > MaxMappingKeys {
			return fmt.Errorf("a mapping in %s has %d keys; plansmith writes at most %d", what, len(n.Content)/2, MaxMappingKeys)
		}
		for _, c := range n.Content {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(&doc); err != nil {
		return err
	}
	if doc.Kind == 0 {
		return nil // empty: nothing to decode
	}
	return doc.Decode(v)
}
