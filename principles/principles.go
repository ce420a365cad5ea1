// Package principles holds the twelve critique principles as data, renders
// them into the critique prompt, and reads per-principle PASS/FAIL verdicts
// back out of a critique.
package principles

import (
	"fmt"

	"github.com/plansmith/plansmith/templates"
)

// Principle is one thing a critique judges a plan against.
type Principle struct {
	ID       int    // 1..12; shown as P<ID>
	Name     string // short name, e.g. "Error paths"
	Question string // what the critic must answer about the plan
}

// Label is the principle's reference as it appears in critiques, e.g. "P4".
func (p Principle) Label() string { return fmt.Sprintf("P%d", p.ID) }

// All lists the twelve principles in order. Callers must not modify it.
var All = []Principle{
	{1, "Step ordering", "Do the steps build from the smallest safe change to the largest, so each step depends only on steps before it and the order could be followed literally?"},
	{2, "File references", "Does every step name the concrete files, packages or functions it touches, with paths that exist in this codebase (or are marked as new)?"},
	{3, "Interface contracts", "Where the plan adds or changes a function, type, API, flag or file format, does it state the exact signature or shape and who calls it?"},
	{4, "Error paths", "Does the plan say what happens when things fail — bad input, missing files, timeouts, partial writes — and how each failure is reported or recovered?"},
	{5, "Edge cases", "Are the boundary cases named (empty, huge, concurrent, unicode, first run, repeated run) together with the intended behaviour for each?"},
	{6, "Runnable verification", "Can every verification item be run as written — an exact command, test name or observable check — with a stated expected result?"},
	{7, "Breaking changes", "Does the plan identify what existing behaviour, data or callers could break, and how compatibility or migration is handled?"},
	{8, "Scope boundaries", "Is it clear what is in scope and what is deliberately left out, so the work cannot quietly grow while being done?"},
	{9, "No vague language", "Is the plan free of hedges such as \"handle appropriately\", \"as needed\", \"etc.\" or \"improve\" that hide a decision still to be made?"},
	{10, "New-developer test", "Could a developer new to this codebase carry out the plan from the text alone, without asking the author anything?"},
	{11, "Effort estimates", "Does each step (or group of steps) carry a rough size or effort, so the plan can be scheduled and its riskiest parts spotted?"},
	{12, "Assumption surfacing", "Are the assumptions the plan relies on written down, each with a way to check it before or early in the work?"},
}

// ByID returns the principle with the given number, and false when there is
// no such principle.
func ByID(id int) (Principle, bool) {
	if id < 1 || id > len(All) {
		return Principle{}, false
	}
	return All[id-1], true
}

// Render returns the principles section of the critique prompt, rendered
// from templates/principles/critique.md.
func Render() string {
	return templates.Show("principles/critique.md", struct{ Principles []Principle }{All})
}
