package phases

// Understand: restate the problem, its constraints and what success looks
// like, as a numbered list — and nothing of the plan yet.

const (
	understandItems    = 3
	understandKeywords = 2
)

// analysisKeywords are words that show the answer analyses the problem
// rather than solving it.
var analysisKeywords = []string{
	"requirement", "constraint", "success criteria|success criterion", "acceptance criteria|acceptance criterion",
	"assumption", "goal", "problem", "edge case", "dependency|dependencies", "stakeholder", "root cause",
	"current behavior|current behaviour", "expected behavior|expected behaviour", "limitation", "input", "output",
	"요구사항|요구 사항", "제약", "성공 기준", "완료 조건|수용 기준", "가정", "문제", "목표", "목적",
	"의존성", "원인", "현재 동작", "기대 동작", "이해관계자", "엣지 케이스|경계 조건", "한계", "입력", "출력",
}

func validateUnderstand(cfg Config, a *answer) []Problem {
	probs := numbered(a, understandItems, "number each point of your analysis (1., 2., 3.)")
	if found := keywordsIn(a.lowered(), analysisKeywords); len(found) < understandKeywords {
		p := Problem{Check: "problem-analysis keywords", Found: len(found), Need: understandKeywords,
			Hint: "name the problem's parts explicitly, e.g. " + firstForms(analysisKeywords, 5)}
		if len(found) > 0 {
			p.Detail = "found: " + found[0]
		}
		probs = append(probs, p)
	}
	probs = append(probs, readmeShape(a)...)
	return append(probs, planHeadings(cfg, a)...)
}
