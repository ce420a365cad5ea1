package phases

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSequence(t *testing.T) {
	base := []string{Understand, Explore, Alternatives, Draft}
	tests := []struct {
		name    string
		opts    SequenceOptions
		want    []string
		wantErr string
	}{
		{"default", SequenceOptions{Refine: DefaultRefine}, append(base[:4:4], Critique, Revise, Critique, Revise), ""},
		{"refine 1", SequenceOptions{Refine: 1}, append(base[:4:4], Critique, Revise), ""},
		{"refine 4", SequenceOptions{Refine: 4}, append(base[:4:4], Critique, Revise, Critique, Revise, Critique, Revise, Critique, Revise), ""},
		{"refine 0 rejected", SequenceOptions{Refine: 0}, nil, "--refine-iterations: 0 is out of range (1–4)"},
		{"refine 5 rejected", SequenceOptions{Refine: 5}, nil, "--refine-iterations: 5 is out of range (1–4)"},
		{"skip understand", SequenceOptions{Refine: 1, SkipUnderstand: true}, []string{Explore, Alternatives, Draft, Critique, Revise}, ""},
		{"skip explore", SequenceOptions{Refine: 1, SkipExplore: true}, []string{Understand, Alternatives, Draft, Critique, Revise}, ""},
		{"skip alternatives", SequenceOptions{Refine: 1, SkipAlternatives: true}, []string{Understand, Explore, Draft, Critique, Revise}, ""},
		{"skip all three", SequenceOptions{Refine: 1, SkipUnderstand: true, SkipExplore: true, SkipAlternatives: true}, []string{Draft, Critique, Revise}, ""},
		{"explicit exact", SequenceOptions{Phases: []string{"draft", "Critique", " revise "}, Refine: 9}, []string{Draft, Critique, Revise}, ""},
		{"explicit repeats", SequenceOptions{Phases: []string{"critique", "revise", "critique", "revise"}}, []string{Critique, Revise, Critique, Revise}, ""},
		{"explicit lone final revise", SequenceOptions{Phases: []string{"draft", "revise"}}, []string{Draft, Revise}, ""},
		{"explicit two critiques then revise", SequenceOptions{Phases: []string{"draft", "critique", "critique", "revise"}}, []string{Draft, Critique, Critique, Revise}, ""},
		{"explicit ends with critique", SequenceOptions{Phases: []string{"understand", "draft", "critique"}}, []string{Understand, Draft, Critique}, ""},
		{"explicit out of order", SequenceOptions{Phases: []string{"draft", "understand"}}, nil, "--phases: understand at position 2 comes after draft (the order is understand, explore, alternatives, draft, then critique/revise)"},
		{"explicit draft after critique", SequenceOptions{Phases: []string{"critique", "revise", "draft"}}, nil, "--phases: draft at position 3 comes after revise"},
		{"explicit twice", SequenceOptions{Phases: []string{"understand", "explore", "understand"}}, nil, "--phases: understand appears twice (at position 3)"},
		{"explicit revise without critique", SequenceOptions{Phases: []string{"draft", "revise", "critique", "revise"}}, nil, "--phases: revise at position 2 does not follow a critique"},
		{"explicit six revises", SequenceOptions{Phases: []string{"draft", "revise", "revise", "revise", "revise", "revise", "revise"}}, nil, "--phases: revise at position 2 does not follow a critique"},
		{"explicit five critiques", SequenceOptions{Phases: []string{"critique", "revise", "critique", "revise", "critique", "revise", "critique", "revise", "critique", "revise"}}, nil, "--phases: 5 critique phases, at most 4"},
		{"explicit with a skip", SequenceOptions{Phases: []string{"draft"}, SkipExplore: true}, nil, "--skip-explore cannot be combined with --phases"},
		{"explicit empty", SequenceOptions{Phases: []string{}}, nil, "--phases: no phases given (allowed: understand, explore, alternatives, draft, critique, revise)"},
		{"explicit unknown", SequenceOptions{Phases: []string{"draft", "polish"}}, nil, `--phases: unknown phase "polish" (allowed: understand, explore, alternatives, draft, critique, revise)`},
		{"explicit iterate not allowed", SequenceOptions{Phases: []string{"iterate"}}, nil, `--phases: unknown phase "iterate"`},
		{"explicit blank name", SequenceOptions{Phases: []string{"draft", " "}}, nil, "--phases: empty phase name at position 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Sequence(tt.opts)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseList(t *testing.T) {
	assert.Equal(t, []string{"a", "b", "c"}, ParseList(" a, b,,c ,"))
	got := ParseList("")
	assert.NotNil(t, got, "an empty flag value is still an explicit list")
	assert.Empty(t, got)
}

func TestCritiqueRoundAndFinal(t *testing.T) {
	cfg := Config{Phases: []string{Understand, Draft, Critique, Revise, Critique, Revise, Critique, Revise}}
	rounds := []int{0, 0, 1, 1, 2, 2, 3, 3, 3}
	finals := []bool{false, false, false, false, false, false, false, true, true}
	for i := range len(cfg.Phases) + 1 {
		assert.Equal(t, rounds[i], CritiqueRound(cfg, i), "round at %d", i)
		assert.Equal(t, finals[i], IsFinalRevise(cfg, i), "final at %d", i)
	}
	assert.Equal(t, PerspectiveTechnical, Perspective(1))
	assert.Equal(t, PerspectiveMaintainability, Perspective(2))
	assert.Equal(t, PerspectiveDevilsAdvocate, Perspective(3))
	assert.Equal(t, PerspectiveDevilsAdvocate, Perspective(4))
	assert.True(t, IsFinalRevise(Config{}, 0), "an empty sequence goes straight to iterate")
}

func TestLabel(t *testing.T) {
	cfg := Config{Phases: []string{Understand, Explore, Alternatives, Draft, Critique, Revise, Critique, Revise}}
	assert.Equal(t, "understand [1/8]", Label(cfg, Progress{Index: 0}))
	assert.Equal(t, "critique [5/8]", Label(cfg, Progress{Index: 4}))
	assert.Equal(t, "iterate [8/8+]", Label(cfg, Progress{Index: 8}))
	assert.Equal(t, "understand [1/8]", Label(cfg, Progress{Index: -3}))
}

func TestShapeOf(t *testing.T) {
	full := []string{Understand, Explore, Alternatives, Draft, Critique, Revise, Critique, Revise}
	assert.Equal(t, Shape{Critiques: 2, Final: 7}, ShapeOf(full, 0))
	assert.Equal(t, Shape{Critiques: 2, Final: 7}, ShapeOf(full, 8), "eight transitions reach the final revise")
	assert.Equal(t, Shape{Critiques: 2, Final: 7, Stops: 7}, ShapeOf(full, 7))
	assert.Equal(t, Shape{Critiques: 0, Final: 2, Iterate: true}, ShapeOf([]string{Understand, Explore}, 0))
	assert.Equal(t, Shape{Critiques: 1, Final: 3, Iterate: true}, ShapeOf([]string{Understand, Draft, Critique}, 0))
	assert.Equal(t, Shape{Critiques: 0, Final: 0}, ShapeOf([]string{Revise}, 0))
}
