package converge

import (
	"slices"
	"strings"
	"unicode"

	"github.com/plansmith/plansmith/internal/mdtext"
)

// Team is the size of the critique team: which perspectives critique the plan.
type Team string

const (
	Base   Team = "base"   // three perspectives, one per iteration
	Scaled Team = "scaled" // five: adds a domain expert and a devil's advocate
)

// Critique perspectives, named as the critique prompt describes them.
const (
	Challenger    = "challenger"       // attacks the approach: where does it fail?
	Resolver      = "resolver"         // settles open challenges with evidence from the code
	Synthesizer   = "synthesizer"      // weighs what is left and judges each status
	DomainExpert  = "domain expert"    // the specialist's view of the task's domains
	DevilAdvocate = "devil's advocate" // hunts the unlikely failure nobody asked about
)

// Perspectives lists a team's critique perspectives, in the order their
// work falls: divergent (find problems) first, convergent (settle them) last.
func Perspectives(team Team) []string {
	if team == Scaled {
		return []string{Challenger, DevilAdvocate, Resolver, DomainExpert, Synthesizer}
	}
	return []string{Challenger, Resolver, Synthesizer}
}

// RoundPerspectives gives the perspectives of critique round (1-based).
// With at most MaxIterations rounds a plain rotation would never reach the
// scaled team's fourth and fifth perspectives, so the scaled team pairs
// them: challenger and devil's advocate find problems in round 1, resolver
// and domain expert settle them in round 2, the synthesizer judges in
// round 3. Rounds past the list wrap around.
func RoundPerspectives(team Team, round int) []string {
	r := max(round, 1) - 1
	if team == Scaled {
		groups := [][]string{{Challenger, DevilAdvocate}, {Resolver, DomainExpert}, {Synthesizer}}
		return slices.Clone(groups[r%len(groups)])
	}
	base := Perspectives(Base)
	return []string{base[r%len(base)]}
}

// Complexity is the task's complexity score (0–16) and what it was made of.
type Complexity struct {
	Score        int      `yaml:"score"`
	Steps        int      `yaml:"steps"`                  // numbered items in understand (points: 1 each, max 3)
	Domains      []string `yaml:"domains,omitempty"`      // distinct domains named (1 each, max 3)
	Integrations []string `yaml:"integrations,omitempty"` // external systems named (2 each, max 4)
	Compliance   bool     `yaml:"compliance,omitempty"`   // compliance or regulation named (2)
	Unknowns     int      `yaml:"unknowns"`               // lines signalling an unknown (1 each, max 3; uncapped for the team)
	Files        int      `yaml:"files"`                  // distinct file references (1 point at 10 or more)
	Team         Team     `yaml:"team"`
}

// Thresholds for the team choice.
const (
	scaledScore    = 7 // a score at or above this needs the scaled team
	scaledUnknowns = 3 // more unknown signals than this need it too
)

// Assess computes the complexity of a task from the understand and explore
// outputs, deterministically: keyword tables (below) for domains,
// integrations, compliance and unknowns, numbered items for steps, and file
// names with known extensions for references. Score < 7 with at most 3
// unknowns picks the base team; anything else the scaled team.
func Assess(understand, explore string) Complexity {
	both := understand + "\n" + explore
	lower := strings.ToLower(both)
	c := Complexity{
		Steps:        countNumbered(understand),
		Domains:      matchGroups(lower, domainWords),
		Integrations: matchGroups(lower, integrationWords),
		Compliance:   len(matchGroups(lower, complianceWords)) > 0,
		Unknowns:     countUnknowns(both),
		Files:        countFiles(both),
	}
	c.Score = min(c.Steps, 3) + min(len(c.Domains), 3) + min(2*len(c.Integrations), 4) + min(c.Unknowns, 3)
	if c.Compliance {
		c.Score += 2
	}
	if c.Files >= 10 {
		c.Score++
	}
	c.Team = Base
	if c.Score >= scaledScore || c.Unknowns > scaledUnknowns {
		c.Team = Scaled
	}
	return c
}

// The keyword tables live in Go rather than in templates/converge/*.txt:
// they are logic, not text shown to anyone; a table is checked by the
// compiler, cannot fail to load at hook time, and changes together with the
// tests that pin it. Phrases are lower case; an ASCII phrase matches at word
// boundaries, a Korean one anywhere (Korean attaches particles to words).
type group struct {
	name  string
	words []string
}

var domainWords = []group{
	{"frontend", []string{"frontend", "front-end", "ui", "css", "html", "react", "vue", "svelte", "browser", "component", "프론트엔드", "화면"}},
	{"backend", []string{"backend", "back-end", "api", "endpoint", "server", "handler", "rest", "grpc", "graphql", "middleware", "백엔드", "서버"}},
	{"data", []string{"database", "sql", "schema", "migration", "postgres", "postgresql", "mysql", "sqlite", "mongodb", "redis", "orm", "데이터베이스", "스키마"}},
	{"infrastructure", []string{"docker", "kubernetes", "k8s", "terraform", "helm", "deploy", "deployment", "ci", "ci/cd", "nginx", "배포", "인프라"}},
	{"security", []string{"auth", "authentication", "authorization", "oauth", "jwt", "encryption", "permission", "permissions", "secret", "secrets", "인증", "보안", "권한"}},
	{"messaging", []string{"queue", "kafka", "rabbitmq", "pubsub", "pub/sub", "nats", "event bus", "message broker", "메시지 큐"}},
	{"mobile", []string{"ios", "android", "mobile", "swiftui", "react native", "flutter", "모바일"}},
	{"machine learning", []string{"machine learning", "llm", "embedding", "embeddings", "inference", "model training", "fine-tuning", "머신러닝"}},
	{"cli", []string{"cli", "command-line", "command line", "terminal", "shell script", "명령줄"}},
}

var integrationWords = []group{
	{"payments", []string{"stripe", "paypal", "braintree", "adyen"}},
	{"messaging service", []string{"twilio", "sendgrid", "mailgun", "slack api", "slack webhook", "discord api"}},
	{"aws", []string{"aws", "s3", "dynamodb", "sqs", "sns", "lambda function"}},
	{"google cloud", []string{"gcp", "google cloud", "bigquery", "firebase"}},
	{"azure", []string{"azure"}},
	{"identity provider", []string{"auth0", "okta", "keycloak", "cognito", "saml", "sso"}},
	{"code host api", []string{"github api", "gitlab api", "bitbucket api"}},
	{"saas api", []string{"salesforce", "shopify", "jira", "zendesk", "hubspot", "notion api"}},
	{"ai api", []string{"openai", "anthropic api", "claude api", "gemini api"}},
	{"third-party api", []string{"third-party api", "third party api", "external api", "external service", "3rd-party", "외부 api", "외부 서비스"}},
}

var complianceWords = []group{
	{"compliance", []string{"gdpr", "hipaa", "pci", "pci-dss", "soc 2", "soc2", "sox", "ccpa", "iso 27001", "compliance", "regulatory", "regulation", "regulations", "audit trail", "data residency", "개인정보", "규제", "컴플라이언스"}},
}

var unknownWords = []string{
	"unknown", "unknowns", "unclear", "not sure", "unsure", "uncertain", "tbd", "to be determined",
	"need to verify", "needs verification", "to be confirmed", "unverified", "open question",
	"don't know", "do not know", "assume", "assuming", "assumption", "investigate",
	"불확실", "미정", "확인 필요", "모름",
}

// matchGroups names the groups with at least one phrase in text (lower case).
func matchGroups(text string, groups []group) []string {
	var found []string
	for _, g := range groups {
		for _, w := range g.words {
			if hasPhrase(text, w) {
				found = append(found, g.name)
				break
			}
		}
	}
	return found
}

// hasPhrase finds phrase in text; an ASCII letter or digit at either end of
// the phrase must not touch another one in the text.
func hasPhrase(text, phrase string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], phrase)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(phrase)
		if (!wordByte(phrase[0]) || start == 0 || !wordByte(text[start-1])) &&
			(!wordByte(phrase[len(phrase)-1]) || end == len(text) || !wordByte(text[end])) {
			return true
		}
		from = start + 1
	}
}

func wordByte(b byte) bool {
	return b < 0x80 && (unicode.IsLetter(rune(b)) || unicode.IsDigit(rune(b)))
}

// countNumbered counts numbered items outside code blocks, as the phase
// validators count them (mdtext.Numbered).
func countNumbered(text string) int {
	n := 0
	for l := range mdtext.Lines(text) {
		if _, ok := mdtext.Numbered(l.Text); ok && !l.Code {
			n++
		}
	}
	return n
}

// countUnknowns counts the lines (headings aside: "## Open questions" is a
// title, not a question) that name an unknown or ask a question.
func countUnknowns(text string) int {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		lower := strings.ToLower(l)
		if strings.HasSuffix(l, "?") || slices.ContainsFunc(unknownWords, func(w string) bool { return hasPhrase(lower, w) }) {
			n++
		}
	}
	return n
}

// countFiles counts distinct file references as the explore check does
// (mdtext.FileRefs): one list of extensions and file names for both.
func countFiles(text string) int {
	return len(mdtext.FileRefs(text, 0))
}
