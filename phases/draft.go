package phases

import "strings"

// Draft: the complete plan, with every required section as a heading and
// steps ordered from the least to the most dependent.

func validateDraft(cfg Config, a *answer) []Problem {
	return sections(cfg, a)
}

// sections is the positive check that every required section has a heading.
func sections(cfg Config, a *answer) []Problem {
	m := newSectionMatcher(cfg.RequiredSections)
	missing := m.sectionsMissing(a.shape().headings)
	if len(missing) == 0 {
		return nil
	}
	return []Problem{{
		Check:  "required section headings",
		Found:  len(m.names) - len(missing),
		Need:   len(m.names),
		Detail: "missing: " + strings.Join(missing, ", "),
		Hint:   "give each section its own markdown heading, e.g. \"## " + missing[0] + "\"",
	}}
}
