package plans

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/internal/provenance"
)

func TestSlug(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"words", "Add rate limiting to the API", "add-rate-limiting-to-the-api"},
		{"punctuation folds", "  Fix: `auth` -- tokens (v2)!! ", "fix-auth-tokens-v2"},
		{"korean kept", "결제 모듈 리팩터링 계획", "결제-모듈-리팩터링-계획"},
		{"nothing usable", "!!! ---", "plan"},
		{"empty", "", "plan"},
		{"path-like", "../../etc/passwd", "etc-passwd"},
		{"long cut at a word", strings.Repeat("alpha beta ", 20), "alpha-beta-alpha-beta-alpha-beta-alpha-beta-alpha-beta"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Slug(tt.in)
			assert.Equal(t, tt.want, got)
			assert.LessOrEqual(t, len(got), maxSlugBytes)
			assert.NotContains(t, got, "/")
		})
	}
}

// Combining marks stay with the letter before them (review BU6: Devanagari
// vowel signs were separators, and every word fell apart); a decomposed
// accent is kept too, one rule for every script.
func TestSlugKeepsCombiningMarks(t *testing.T) {
	assert.Equal(t, "हिन्दी-में-कैश-जोड़ें", Slug("हिन्दी में कैश जोड़ें"))
	assert.Equal(t, "cafe\u0301-menu", Slug("Cafe\u0301 menu"), "a decomposed café keeps its accent")
	assert.Equal(t, "café-menu", Slug("Café menu"), "a composed one is one letter")
	assert.Equal(t, "x", Slug("\u0301 x"), "a mark with no letter before it starts no name")
	assert.Equal(t, "a-x", Slug("a - \u0301x"), "nor a word")
	// A cut never parts a letter from its marks.
	long := "क" + strings.Repeat("हिन्दी", 20) // byte 60 falls before a vowel sign
	got := Slug(long)
	assert.LessOrEqual(t, len(got), maxSlugBytes)
	assert.True(t, strings.HasPrefix(long, got))
	last, _ := utf8.DecodeRuneInString(long[len(got):])
	assert.False(t, unicode.IsMark(last), "the cut leaves %q without its marks", got)
}

func TestSlugLongKoreanStaysValidUTF8(t *testing.T) {
	got := Slug(strings.Repeat("가나다라마바사", 10))
	assert.LessOrEqual(t, len(got), maxSlugBytes)
	assert.True(t, strings.HasPrefix(strings.Repeat("가나다라마바사", 10), got))
}

func writeSettings(t *testing.T, project, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "plansmith.yaml"), []byte(body), 0o644))
}

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name, body string
		want       Config
		wantErr    string
	}{
		{"no key", "plan_mode_gate: off\n", Config{Dir: DefaultDir}, ""},
		{"off", "plans_dir: off\n", Config{Off: true}, ""},
		{"false", "plans_dir: false\n", Config{Off: true}, ""},
		{"custom", "plans_dir: specs/plans/\n", Config{Dir: "specs/plans"}, ""},
		{"absolute refused", "plans_dir: /etc\n", Config{Dir: DefaultDir}, "not an absolute path"},
		{"climbing refused", "plans_dir: ../elsewhere\n", Config{Dir: DefaultDir}, "inside the project"},
		// Nothing expands ~ or $HOME: a folder so named in the project would
		// be shown as one in the home folder (review AH3).
		{"tilde refused", "plans_dir: ~/plans\n", Config{Dir: DefaultDir}, "~ and $VARIABLES are not expanded"},
		{"variable refused", "plans_dir: $HOME/plans\n", Config{Dir: DefaultDir}, "~ and $VARIABLES are not expanded"},
		// Not git's folder nor plansmith's own (review AN6).
		{"git's folder refused", "plans_dir: .git/plans\n", Config{Dir: DefaultDir}, "must not be inside .git"},
		{"plansmith's folder refused", "plans_dir: .claude/plansmith/archive\n", Config{Dir: DefaultDir}, "must not be inside .claude/plansmith"},
		{"a folder in .claude", "plans_dir: .claude/plans\n", Config{Dir: ".claude/plans"}, ""},
		{"not yaml", "plans_dir: [\n", Config{Dir: DefaultDir}, "not valid YAML"},
		{"wrong type", "plans_dir: 3\n", Config{Dir: DefaultDir}, "plans_dir is 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			project := t.TempDir()
			writeSettings(t, project, tt.body)
			got, err := LoadConfig(project)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Contains(t, err.Error(), "plansmith.yaml")
			} else {
				require.NoError(t, err)
				assert.Equal(t, got != Config{Dir: DefaultDir}, got.Source != "", "a setting names its file")
			}
			got.Source = ""
			assert.Equal(t, tt.want, got)
		})
	}
	t.Run("no file", func(t *testing.T) {
		got, err := LoadConfig(t.TempDir())
		require.NoError(t, err)
		assert.Equal(t, Config{Dir: DefaultDir}, got)
	})
}

func planDoc(request string, at time.Time, verified bool) []byte {
	v := "false"
	if verified {
		v = "true"
	}
	return []byte("---\ngenerated_at: " + at.UTC().Format(time.RFC3339) + "\nexit_reason: \"completed\"\nverified: " + v +
		"\nrequest: \"" + request + "\"\ngate:\n  evidence: \"observed\"\n---\n## Goal\nDo it.\n")
}

func TestKeepNeverOverwrites(t *testing.T) {
	project := t.TempDir()
	cfg := Config{Dir: DefaultDir}
	day := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	first, err := Keep(project, cfg, planDoc("Add caching", day, true), "Add caching", day, nil)
	require.NoError(t, err)
	second, err := Keep(project, cfg, planDoc("Add caching", day.Add(time.Hour), false), "Add caching", day.Add(time.Hour), nil)
	require.NoError(t, err)
	third, err := Keep(project, cfg, planDoc("Add caching", day.Add(2*time.Hour), false), "Add caching", day.Add(2*time.Hour), nil)
	require.NoError(t, err)

	assert.Equal(t, filepath.Join(project, "docs", "plans", "2026-11-23-add-caching.md"), first)
	assert.Equal(t, filepath.Join(project, "docs", "plans", "2026-11-23-add-caching-2.md"), second)
	assert.Equal(t, filepath.Join(project, "docs", "plans", "2026-11-23-add-caching-3.md"), third)
	got, err := os.ReadFile(first)
	require.NoError(t, err)
	assert.Contains(t, string(got), "verified: true", "the first plan is untouched by the later ones")
	info, err := os.Stat(first)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm(), "a kept plan is shared like any document")

	// No temporary files are left beside the plans.
	des, err := os.ReadDir(filepath.Join(project, "docs", "plans"))
	require.NoError(t, err)
	assert.Len(t, des, 3)
}

func TestKeepOff(t *testing.T) {
	_, err := Keep(t.TempDir(), Config{Off: true}, []byte("x"), "r", time.Now(), nil)
	require.Error(t, err)
}

func TestKeepRefusesALinkOutOfTheProject(t *testing.T) {
	project, outside := t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(project, "docs"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(project, "docs", "plans")))
	_, err := Keep(project, Config{Dir: DefaultDir}, []byte("---\n---\n"), "r", time.Now(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "outside the project")
	des, _ := os.ReadDir(outside)
	assert.Empty(t, des, "nothing may be written through the link")
}

func TestKeepFollowsALinkThatStaysInside(t *testing.T) {
	project := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(project, "notes", "plans"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(project, "docs"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(project, "notes", "plans"), filepath.Join(project, "docs", "plans")))
	_, err := Keep(project, Config{Dir: DefaultDir}, planDoc("x", time.Now(), true), "x", time.Now(), nil)
	require.NoError(t, err)
	des, _ := os.ReadDir(filepath.Join(project, "notes", "plans"))
	assert.Len(t, des, 1)
}

func TestKeepDoesNotReplaceAPlantedFile(t *testing.T) {
	project, outside := t.TempDir(), t.TempDir()
	dir := filepath.Join(project, "docs", "plans")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	target := filepath.Join(outside, "victim")
	require.NoError(t, os.WriteFile(target, []byte("keep me"), 0o644))
	day := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	require.NoError(t, os.Symlink(target, filepath.Join(dir, "2026-01-02-x.md")))
	got, err := Keep(project, Config{Dir: DefaultDir}, planDoc("x", day, true), "x", day, nil)
	require.NoError(t, err)
	assert.Equal(t, "2026-01-02-x-2.md", filepath.Base(got))
	data, _ := os.ReadFile(target)
	assert.Equal(t, "keep me", string(data))
}

func TestListAndFind(t *testing.T) {
	project := t.TempDir()
	cfg := Config{Dir: DefaultDir}
	d1 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	d2 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	_, err := Keep(project, cfg, planDoc("Migrate the database", d2, false), "Migrate the database", d2, nil)
	require.NoError(t, err)
	_, err = Keep(project, cfg, planDoc("Add caching", d1, true), "Add caching", d1, nil)
	require.NoError(t, err)
	dir := filepath.Join(project, "docs", "plans")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("# Plans\n"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(dir, "README.md"), filepath.Join(dir, "link.md")))

	entries, err := List(project, cfg)
	require.NoError(t, err)
	require.Len(t, entries, 2, "README.md (no frontmatter) and the link are not plans")
	assert.Equal(t, "2026-11-20-add-caching", entries[0].Name)
	assert.Equal(t, "verified", entries[0].Verdict())
	assert.Equal(t, "observed", entries[0].Evidence)
	assert.Equal(t, "Migrate the database", entries[1].Request)
	assert.Equal(t, "unverified", entries[1].Verdict())
	// A pass on outputs the agent relayed is not "verified" alone (review
	// BU5: it claimed a critic check plansmith never saw).
	relayed := Entry{ExitReason: "completed", Verified: true, Evidence: "relayed"}
	assert.Equal(t, "verified (relayed, not observed)", relayed.Verdict())
	relayed.Verified = false
	assert.Equal(t, "unverified", relayed.Verdict())

	latest, err := Find(entries, "")
	require.NoError(t, err)
	assert.Equal(t, "2026-11-22-migrate-the-database", latest.Name)
	byPart, err := Find(entries, "caching")
	require.NoError(t, err)
	assert.Equal(t, "2026-11-20-add-caching", byPart.Name)
	byFile, err := Find(entries, "docs/plans/2026-11-20-add-caching.md")
	require.NoError(t, err)
	assert.Equal(t, byPart, byFile)
	// The request as the list shows it, in any case (review BG7).
	for _, words := range []string{"Migrate the database", "Caching", "the Database"} {
		e, err := Find(entries, words)
		require.NoError(t, err, words)
		assert.Contains(t, e.Name, strings.ToLower(strings.Fields(words)[len(strings.Fields(words))-1]), words)
	}
	_, err = Keep(project, cfg, planDoc("Add caching layer", d1, true), "Add caching layer", d1, nil)
	require.NoError(t, err)
	entries, err = List(project, cfg)
	require.NoError(t, err)
	bySlug, err := Find(entries, "add-caching.md")
	require.NoError(t, err, "a slug that ends only one name picks it, though another name contains it")
	assert.Equal(t, "2026-11-20-add-caching", bySlug.Name)
	_, err = Find(entries, "2026-11-2")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "matches 3 plans")
	// The same request again that day is kept as add-caching-2: the slug
	// names both (review AH5: it picked the older one, silently).
	_, err = Keep(project, cfg, planDoc("Add caching", d1, true), "Add caching", d1, nil)
	require.NoError(t, err)
	entries, err = List(project, cfg)
	require.NoError(t, err)
	_, err = Find(entries, "add-caching")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "2026-11-20-add-caching, ")
	assert.Contains(t, err.Error(), "2026-11-20-add-caching-2")
	second, err := Find(entries, "add-caching-2")
	require.NoError(t, err)
	assert.Equal(t, "2026-11-20-add-caching-2", second.Name)
	_, err = Find(entries, "nothing")
	assert.Contains(t, err.Error(), `no kept plan is named "nothing"`)
	_, err = Find(nil, "")
	assert.Contains(t, err.Error(), "no plans are kept yet")
}

// With the plans folder set to plansmith's own (.claude), its files there
// (the output, memory, the state) are no kept plans (review AJ4: a memory
// file planted there, claiming to be a verified plan, was the latest).
func TestListLeavesPlansmithsOwnFilesOut(t *testing.T) {
	project := t.TempDir()
	cfg := Config{Dir: ".claude"}
	d := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	_, err := Keep(project, cfg, planDoc("Add caching", d, false), "Add caching", d, nil)
	require.NoError(t, err)
	for _, name := range []string{"plansmith-memory.local.md", "plansmith-output.local.md", "plansmith.local.md"} {
		require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", name), planDoc("Planted", d.Add(time.Hour), true), 0o644))
	}
	entries, err := List(project, cfg)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, "2026-11-20-add-caching", entries[0].Name)
}

func TestListMissingFolderOrOff(t *testing.T) {
	entries, err := List(t.TempDir(), Config{Dir: DefaultDir})
	require.NoError(t, err)
	assert.Empty(t, entries)
	entries, err = List(t.TempDir(), Config{Off: true})
	require.NoError(t, err)
	assert.Empty(t, entries)
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "plansmith-output.local.md")
	_, ok, err := Read(out)
	require.NoError(t, err)
	assert.False(t, ok, "a missing file is no plan")

	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	require.NoError(t, os.WriteFile(out, planDoc("Ship it", at, true), 0o644))
	e, ok, err := Read(out)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "Ship it", e.Request)
	assert.Equal(t, at, e.GeneratedAt.UTC())
	assert.Equal(t, "plansmith-output.local", e.Name)

	link := filepath.Join(dir, "link.md")
	require.NoError(t, os.Symlink(out, link))
	_, _, err = Read(link)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a regular file")
}

// A plans folder comes with the repository: a file whose frontmatter holds
// tens of thousands of keys (which yaml.v3 decodes in time growing with
// their square: a minute for 1 MiB, review P6) is not a plan.
func TestListSkipsAPlantedHugeFrontmatter(t *testing.T) {
	project := t.TempDir()
	dir := filepath.Join(project, "docs", "plans")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	var b strings.Builder
	b.WriteString("---\ngenerated_at: 2026-01-01T00:00:00Z\nexit_reason: completed\nrequest: x\n")
	for i := range 20000 {
		fmt.Fprintf(&b, "k%d: 1\n", i)
	}
	b.WriteString("---\nbody\n")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "2026-01-01-a.md"), []byte(b.String()), 0o644))
	entries, err := List(project, Config{Dir: DefaultDir})
	require.NoError(t, err)
	assert.Empty(t, entries)
}

// The latest plan to hand on is an approved one: the output of a loop that
// ended otherwise (the gate failed, the phases ran out) takes its place only
// when no plan is kept (review AH2); a completed output newer than every
// kept plan is one keeping missed (review V5); an edited kept plan is still
// plansmith's (review AH1).
func TestLatest(t *testing.T) {
	kept := Entry{Name: "kept", KeptHere: true, Kept: provenance.Mark{Seq: 1}}
	failed := Entry{Name: "output", ExitReason: "gate_failed", KeptHere: true, Kept: provenance.Mark{Seq: 2}}
	completed := Entry{Name: "output", ExitReason: "completed", KeptHere: true, Kept: provenance.Mark{Seq: 2}}
	got, ok := Latest([]Entry{kept}, &failed)
	require.True(t, ok)
	assert.Equal(t, "kept", got.Name)
	got, _ = Latest([]Entry{kept}, &completed)
	assert.Equal(t, "output", got.Name)
	got, _ = Latest(nil, &failed)
	assert.Equal(t, "output", got.Name, "with nothing kept, the last saved plan")
	edited := Entry{Name: "edited", Edited: true, Kept: provenance.Mark{Seq: 3}}
	got, _ = Latest([]Entry{kept, edited}, &completed)
	assert.Equal(t, "edited", got.Name)
}
