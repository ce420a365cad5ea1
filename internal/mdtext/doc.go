// Package mdtext is plansmith's one reading of markdown: fenced code blocks
// as CommonMark defines them, ATX headings, numbered and checkbox list items,
// and file references in prose. The phase validators, the gate, the
// convergence ledger and memory all recognise structure through it, so the
// same text means the same thing to each of them.
//
// Everything here works line by line on strings, allocates little and never
// backtracks: callers run it inside hooks on messages of a megabyte.
package mdtext
