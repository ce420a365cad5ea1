package phases

import (
	"fmt"
	"strings"
)

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
		Hint:   "give each section its own markdown heading, e.g. \"## " + missing[0] + "\"; names that count — " + acceptedFor(m, missing),
	}}
}

// acceptedFor says, per missing section, which heading names count.
func acceptedFor(m sectionMatcher, missing []string) string {
	var parts []string
	for _, name := range missing {
		for i, n := range m.names {
			if n != name {
				continue
			}
			if g := m.groups[i]; g >= 0 {
				parts = append(parts, fmt.Sprintf("%s: %s", name, strings.Join(acceptedNames(g, 6), ", ")))
			} else {
				parts = append(parts, fmt.Sprintf("%s: a heading that starts with %q", name, name))
			}
			break
		}
	}
	return strings.Join(parts, "; ")
}
