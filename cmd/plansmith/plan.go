package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/plansmith/plansmith/converge"
	"github.com/plansmith/plansmith/install"
	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// PlanOptions holds every input of `plansmith plan`.
type PlanOptions struct {
	MaxPhases         int
	RefineIterations  int
	Phases            string
	SkipUnderstand    bool
	SkipExplore       bool
	SkipAlternatives  bool
	OpenCritique      bool
	NoMemory          bool
	ClearMemory       bool
	NoBlockTools      bool
	RequiredSections  string
	CompletionPromise string
	NoGate            bool
	GateRetries       int
	MaxRetries        int
	Converge          bool
	Agent             string // "claude" or "codex"
	AgentSet          bool   // --agent was given
	// RefineSet is true when --refine-iterations was given: --converge
	// then keeps it (1 to converge.MaxIterations) instead of its own default.
	RefineSet bool
	// PhasesSet is true when --phases was given, even as an empty value.
	PhasesSet bool
	Prompt    []string
}

func planFlags(o *PlanOptions) *pflag.FlagSet {
	fs := pflag.NewFlagSet("plan", pflag.ContinueOnError)
	fs.IntVar(&o.MaxPhases, "max-phases", 0, "phase transitions allowed before the loop stops (0 = unlimited)")
	fs.IntVar(&o.MaxPhases, "max-iterations", 0, "alias of --max-phases")
	fs.IntVar(&o.RefineIterations, "refine-iterations", phases.DefaultRefine,
		fmt.Sprintf("critique/revise cycles, %d to %d (with --converge: at most 3, default 3)", phases.MinRefine, phases.MaxRefine))
	fs.StringVar(&o.Phases, "phases", "", `exact phase list, e.g. "understand,draft,critique,revise"`)
	fs.BoolVar(&o.SkipUnderstand, "skip-understand", false, "leave out the understand phase")
	fs.BoolVar(&o.SkipExplore, "skip-explore", false, "leave out the explore phase")
	fs.BoolVar(&o.SkipAlternatives, "skip-alternatives", false, "leave out the alternatives phase")
	fs.BoolVar(&o.OpenCritique, "open-critique", false, "free-form critique instead of the 12 principles")
	fs.BoolVar(&o.NoMemory, "no-memory", false, "neither use nor record Reflexion memory")
	fs.BoolVar(&o.ClearMemory, "clear-memory", false, "erase Reflexion memory before starting")
	fs.BoolVar(&o.NoBlockTools, "no-block-tools", false, "do not keep the session read-only")
	fs.StringVar(&o.RequiredSections, "required-sections", strings.Join(phases.DefaultSections, ","), "sections the plan must contain, comma-separated")
	fs.StringVar(&o.CompletionPromise, "completion-promise", "PLAN_OK", "text the final revise wraps in <promise></promise>")
	fs.BoolVar(&o.NoGate, "no-gate", false, "turn off the gap-coverage gate")
	fs.IntVar(&o.GateRetries, "gate-retries", 2, "failed gate assessments allowed before the loop ends, 1 to 10")
	fs.IntVar(&o.MaxRetries, "max-retries", 3, "failed validations allowed per phase, 0 to 20")
	fs.BoolVar(&o.Converge, "converge", false, "let a challenge ledger decide when the plan is done (up to 3 critique/revise cycles)")
	fs.StringVar(&o.Agent, "agent", "claude", "the agent that runs the loop: claude or codex (Codex CLI: no gate, recorded as unavailable-on-codex)")
	fs.SortFlags = false
	return fs
}

func newPlanCmd(env *Env) *cobra.Command {
	opts := &PlanOptions{}
	fs := planFlags(opts)
	cmd := &cobra.Command{
		Use:   "plan [flags] PROMPT...",
		Short: "Start a planning loop (what /plansmith:plan runs)",
		Long: "Start a planning loop for PROMPT in this project. Words that are not flags are the\n" +
			"request, wherever they stand; put the request after -- to pass words such as\n" +
			"--verbose literally.",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := stdinArgs(args, env.Stdin)
			if err != nil {
				return err
			}
			prompt, help, err := splitPlanArgs(fs, args)
			if help {
				fmt.Fprintf(env.Stdout, "%s\n\nUsage:\n  plansmith plan [flags] PROMPT...\n\nFlags:\n%s", cmd.Long, fs.FlagUsages())
				return nil
			}
			if err != nil {
				return err
			}
			opts.Prompt = prompt
			opts.RefineSet = fs.Changed("refine-iterations")
			opts.PhasesSet = fs.Changed("phases")
			opts.AgentSet = fs.Changed("agent")
			return planRun(env, opts)
		},
	}
	return cmd
}

// splitPlanArgs separates flags from request words. Flags may stand anywhere;
// any word that is not a --flag (including "---" and a lone "-") is request
// text, and "--" makes every later word request text.
func splitPlanArgs(fs *pflag.FlagSet, args []string) (prompt []string, help bool, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(prompt, args[i+1:]...), false, nil
		case a == "-h" || a == "--help":
			return nil, true, nil
		case strings.HasPrefix(a, "--") && len(a) > 2 && a[2] != '-':
			name, val, hasVal := strings.Cut(a[2:], "=")
			f := fs.Lookup(name)
			if f == nil {
				return nil, false, usagef("plan: unknown flag --%s (see 'plansmith plan --help'; put the request after -- to use it as text)", name)
			}
			if f.Value.Type() == "bool" {
				if !hasVal {
					val = "true"
				}
				if err := f.Value.Set(val); err != nil {
					return nil, false, usagef("plan: --%s takes no value or true/false (got %q)", name, val)
				}
				continue
			}
			if !hasVal {
				if i+1 >= len(args) {
					return nil, false, usagef("plan: --%s needs a value", name)
				}
				i++
				val = args[i]
			}
			if err := f.Value.Set(val); err != nil {
				return nil, false, usagef("plan: --%s needs a whole number (got %q)", name, val)
			}
			f.Changed = true
		default:
			prompt = append(prompt, a)
		}
	}
	return prompt, false, nil
}

// validate checks every option and returns the first problem as a one-line
// usage error naming the flag and what it allows.
func (o *PlanOptions) validate() error {
	switch {
	case o.MaxPhases < 0:
		return usagef("plan: --max-phases must be 0 (unlimited) or more (got %d)", o.MaxPhases)
	case o.RefineIterations < phases.MinRefine || o.RefineIterations > phases.MaxRefine:
		return usagef("plan: --refine-iterations must be from %d to %d (got %d)", phases.MinRefine, phases.MaxRefine, o.RefineIterations)
	case o.Converge && o.RefineSet && o.RefineIterations > converge.MaxIterations:
		return usagef("plan: --refine-iterations must be from 1 to %d with --converge (got %d)", converge.MaxIterations, o.RefineIterations)
	case o.Converge && o.OpenCritique:
		return usagef("plan: --open-critique cannot be combined with --converge (convergence critiques are challenge blocks)")
	case o.GateRetries < 1 || o.GateRetries > 10:
		return usagef("plan: --gate-retries must be from 1 to 10 (got %d)", o.GateRetries)
	case o.Agent != "claude" && o.Agent != "codex":
		return usagef("plan: --agent must be claude or codex (got %q)", o.Agent)
	case o.MaxRetries < 0 || o.MaxRetries > 20:
		return usagef("plan: --max-retries must be from 0 to 20 (got %d)", o.MaxRetries)
	case strings.TrimSpace(o.CompletionPromise) == "":
		return usagef("plan: --completion-promise must not be empty")
	case strings.Contains(o.CompletionPromise, "<") || strings.Contains(o.CompletionPromise, ">"):
		return usagef("plan: --completion-promise must not contain < or > (got %q)", o.CompletionPromise)
	case strings.Contains(o.CompletionPromise, "\n"):
		return usagef("plan: --completion-promise must be one line")
	}
	if len(phases.ParseList(o.RequiredSections)) == 0 {
		return usagef("plan: --required-sections must name at least one section, e.g. \"Goal,Steps\"")
	}
	if (o.PhasesSet || o.Phases != "") && len(phases.ParseList(o.Phases)) == 0 {
		return usagef("plan: --phases must name at least one phase (allowed: %s)", strings.Join(phases.Known, ", "))
	}
	if o.Phases != "" && o.RefineSet {
		return usagef("plan: --refine-iterations cannot be combined with --phases (the list sets the critique/revise cycles)")
	}
	for _, t := range []struct{ what, text string }{
		{"the request", strings.Join(o.Prompt, " ")},
		{"--required-sections", o.RequiredSections},
		{"--completion-promise", o.CompletionPromise},
		{"--phases", o.Phases},
	} {
		if !utf8.ValidString(t.text) {
			return usagef("plan: %s is not valid UTF-8 text; pass it in your terminal's UTF-8 encoding", t.what)
		}
	}
	if strings.TrimSpace(strings.Join(o.Prompt, " ")) == "" {
		return usagef("plan: a request is required, e.g. plansmith plan Add rate limiting to the API")
	}
	return nil
}

func planRun(env *Env, o *PlanOptions) error {
	if err := o.validate(); err != nil {
		return err
	}
	if !o.AgentSet && insideCodex(env.Getenv) {
		// Codex gives every command the model runs its thread's id and its
		// tool call's (a shell that merely inherited the thread's id, review
		// BO8, has no call): a plan
		// without the flag there is Codex's all the same, not a Claude
		// Code loop whose gate asks for a tool Codex lacks (review BK7).
		o.Agent = "codex"
		fmt.Fprintln(env.Stdout, "plansmith: this command runs inside Codex ($CODEX_THREAD_ID is set), so the loop is Codex's, as with --agent codex.")
	}
	if o.Agent == "codex" {
		// Its messages name commands as Codex has them, as its hooks' do
		// (review DA7: a loop already active sent the user to
		// /plansmith:cancel, a Claude Code command).
		codexNames(env)
	}
	var explicit []string
	if o.Phases != "" {
		explicit = strings.Split(o.Phases, ",") // empty entries are refused, not skipped
	}
	refine := o.RefineIterations
	if o.Converge && !o.RefineSet {
		// The ledger, not a count, ends the loop: give it every iteration.
		refine = converge.MaxIterations
	}
	seq, err := phases.Sequence(phases.SequenceOptions{
		Phases:           explicit,
		Refine:           refine,
		Converge:         o.Converge,
		SkipUnderstand:   o.SkipUnderstand,
		SkipExplore:      o.SkipExplore,
		SkipAlternatives: o.SkipAlternatives,
	})
	if err != nil {
		return usagef("plan: %v", err)
	}
	if o.Converge {
		refine = phases.ConvergeLast(phases.Config{Phases: seq}) // what an explicit --phases holds
	}
	mode := state.CritiquePrinciples
	switch {
	case o.OpenCritique:
		mode = state.CritiqueOpen
	case o.Converge:
		mode = state.CritiqueConverge
	}
	p, err := planPaths(env, o.Agent)
	if err != nil {
		return err
	}
	session, agent, gateOn := env.Getenv("CLAUDE_CODE_SESSION_ID"), "", !o.NoGate
	if o.Agent == "codex" {
		// Run by the model, the loop binds to the Codex thread running the
		// command ($CODEX_THREAD_ID is its hooks' session_id; planPaths has
		// checked it names a thread with a record), so no other session's
		// turn can take it (review BK3); run in a terminal, to the thread of
		// its first hook call. The gate cannot run in Codex (docs/codex.md).
		session, agent, gateOn = env.Getenv("CODEX_THREAD_ID"), state.AgentCodex, false
	}
	started, err := loop.Start(*env, p, loop.Options{
		SessionID:         session,
		Request:           strings.Join(o.Prompt, " "),
		Phases:            seq,
		RefineIterations:  refine,
		MaxPhases:         o.MaxPhases,
		MaxRetries:        o.MaxRetries,
		CritiqueMode:      mode,
		UseMemory:         !o.NoMemory,
		ClearMemory:       o.ClearMemory,
		BlockTools:        !o.NoBlockTools,
		RequiredSections:  phases.ParseList(o.RequiredSections),
		CompletionPromise: strings.TrimSpace(o.CompletionPromise),
		Gate:              gateOn,
		GateRetries:       o.GateRetries,
		Agent:             agent,
	})
	var tooLarge *state.FrontmatterTooLargeError
	if errors.As(err, &tooLarge) {
		// A bad value like any other: said, exit status 2, no state file.
		return usagef("plan: the request is too long to keep in the loop's state file (%v); put the details in a file in the project and name that file in the request", tooLarge)
	}
	if err != nil {
		return err
	}
	call := env.Getenv("CODEX_TOOL_CALL_ID")
	switch bin, err := binaryPath(""); {
	case o.Agent == "codex" && call != "":
		// Run by the model: whether Codex ran plansmith's hook on this very
		// command says whether it runs them for this thread, whatever the
		// reason it might not (reviews BO1–BO3: asking Codex fails in its
		// sandbox, and reading its config cannot see everything).
		judged, others := loop.CodexCallJudged(env.Getenv("HOME"), call, env.Getenv("CODEX_THREAD_ID"), env.Now())
		switch {
		case !judged:
			started.Unenforced = "Codex ran this command without plansmith's PreToolUse hook judging it (the hooks are not registered where Codex looks, not trusted as they stand, or turned off for this session)"
		case others != "":
			started.Unenforced = "plansmith's PreToolUse hook ran, but " + others
		}
	case err == nil:
		de := install.DoctorEnv{Project: p.Project, Home: env.Getenv("HOME"), Binary: bin, Getenv: env.Getenv}
		if o.Agent == "codex" {
			de.Codex, de.Environ = lookCodex(), os.Environ()
		}
		started.Unenforced = install.Unenforced(de, o.Agent)
		if started.Unenforced != "" && o.Agent != "codex" {
			started.UnenforcedFix = install.UnenforcedFix(de)
		}
	}
	text, err := templates.Render("cli/started.md", started)
	if err != nil {
		return err
	}
	fmt.Fprint(env.Stdout, text)
	return nil
}

// transcriptWait is how long plan waits for the session's transcript to
// appear before it refuses to start.
const transcriptWait = time.Second

// planPaths is where `plan` keeps the loop: the project the hooks always
// search. Inside a Claude Code session that is the folder Claude Code runs
// in (loop.Env.CommandProject), wherever the agent has cd'd to: a loop
// kept in a subfolder would be lost by the hooks once the session left it.
// When that folder cannot be told there, plan refuses rather than guess.
// Run by hand outside a session, or for Codex (whose hooks are sent the
// session's folder, docs/codex.md), it is the working directory as before.
func planPaths(env *Env, agent string) (state.Paths, error) {
	if agent == "codex" {
		wd, err := env.Getwd()
		if err != nil {
			return state.Paths{}, fmt.Errorf("finding the project directory: %w", err)
		}
		// Codex's hooks look from the folder Codex runs in up to the
		// checkout's root, never below: a loop kept in the subfolder the
		// model ran plan in, or in a checkout nested in Codex's, would go
		// unenforced. Run by the model, the command learns Codex's folder
		// from the thread's record; run in a terminal, it takes its own.
		base, what := wd, "the checkout's root"
		if folder, thread, found := env.CodexThreadFolder(); thread != "" {
			if !found {
				return state.Paths{}, fmt.Errorf("no loop started: cannot tell which folder Codex thread %s runs in "+
					"(no record of it under %s; a session run with --ephemeral keeps none), and Codex's hooks would "+
					"miss a loop kept anywhere else. Start planning in a Codex session that keeps its record, or run "+
					"%s in a terminal, in the folder you then start Codex in",
					thread, filepath.Join(loop.CodexHome(env.Getenv), "sessions"), templates.CLI("plan --agent codex"))
			}
			base, what = folder, "where Codex's hooks look from the folder this Codex session runs in"
		}
		dir := loop.CodexProject(base)
		if dir != wd {
			fmt.Fprintf(env.Stdout, "plansmith: the loop is kept in %s, %s (this command ran in %s).\n", dir, what, wd)
		}
		return state.Paths{Project: dir}, nil
	}
	p, err := env.CommandProject()
	// The transcript was always there by the session's first Bash call in
	// every run seen; should a client ever write it a moment late, wait a
	// little before refusing.
	for end := time.Now().Add(transcriptWait); err == nil && p.Session != "" && !p.Known && time.Now().Before(end); {
		time.Sleep(transcriptWait / 20)
		p, err = env.CommandProject()
	}
	if err != nil {
		return state.Paths{}, err
	}
	if p.Session != "" && !p.Known {
		where := "Claude Code's transcripts"
		if p.Looked != "" {
			where = p.Looked
		}
		return state.Paths{}, fmt.Errorf("no loop started: cannot tell which folder this Claude Code session runs in "+
			"(no transcript of session %s in %s for %s or a folder above it), and the hooks could lose a loop kept "+
			"elsewhere after a cd. To start one anyway, run from the folder Claude Code runs in: "+
			"CLAUDE_PROJECT_DIR=\"$PWD\" plansmith plan ...", p.Session, where, p.Wd)
	}
	if p.Dir != p.Wd {
		fmt.Fprintf(env.Stdout, "plansmith: the loop is kept in %s, the folder Claude Code runs in (this command ran in %s).\n", p.Dir, p.Wd)
	}
	return state.Paths{Project: p.Dir}, nil
}
