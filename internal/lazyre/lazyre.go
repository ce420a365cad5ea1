// Package lazyre holds regular expressions that are compiled on first use.
// A package-level regexp.MustCompile runs when the process starts, whether
// or not the process ever matches it; a hook answering "no loop here" would
// pay for compiling every expression of every package it links. A
// *lazyre.Regexp is declared the same way and used through the same method
// names, and costs nothing until then.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled, once, on first use. It is safe
// for concurrent use.
type Regexp struct {
	re func() *regexp.Regexp
}

// New returns expr to be compiled on first use. A bad expression panics
// there, as regexp.MustCompile would at start: each package's tests run its
// expressions.
func New(expr string) *Regexp {
	return &Regexp{re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

// Regexp returns the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp { return r.re() }

// The methods below are regexp.Regexp's, for the uses plansmith has.

func (r *Regexp) MatchString(s string) bool            { return r.re().MatchString(s) }
func (r *Regexp) FindString(s string) string           { return r.re().FindString(s) }
func (r *Regexp) FindStringSubmatch(s string) []string { return r.re().FindStringSubmatch(s) }
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.re().FindStringSubmatchIndex(s)
}
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}
