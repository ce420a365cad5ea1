package phases

// TEMPORARY shim so the lead's CLI builds before the phases branch merges.
// Deleted at merge.

import "fmt"

type SequenceOptions struct {
	Refine                                        int
	SkipUnderstand, SkipExplore, SkipAlternatives bool
	Explicit                                      []string
}

func Sequence(o SequenceOptions) ([]string, error) {
	if len(o.Explicit) > 0 {
		for _, p := range o.Explicit {
			switch p {
			case Understand, Explore, Alternatives, Draft, Critique, Revise:
			default:
				return nil, fmt.Errorf("unknown phase %q", p)
			}
		}
		return o.Explicit, nil
	}
	var s []string
	if !o.SkipUnderstand {
		s = append(s, Understand)
	}
	if !o.SkipExplore {
		s = append(s, Explore)
	}
	if !o.SkipAlternatives {
		s = append(s, Alternatives)
	}
	s = append(s, Draft)
	for i := 0; i < o.Refine; i++ {
		s = append(s, Critique, Revise)
	}
	return s, nil
}

type Output struct {
	Phase      string
	Round      int
	Text       string
	Principles []struct {
		ID   string
		Pass bool
		Note string
	}
}

type Outcome struct {
	Kind     Kind
	Reason   string
	Next     Progress
	Output   *Output
	Plan     string
	Problems []string
}

func Step(cfg Config, p Progress, message string) Outcome {
	return Outcome{Kind: Block, Reason: "shim", Next: p}
}

func Prompt(cfg Config, p Progress, note string) string { return "shim prompt " + note }

func Label(cfg Config, p Progress) string {
	name := Iterate
	if p.Index < len(cfg.Phases) {
		name = cfg.Phases[p.Index]
	}
	return fmt.Sprintf("%s [%d/%d]", name, p.Index+1, len(cfg.Phases))
}
