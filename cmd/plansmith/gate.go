package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/internal/plainfile"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// The gate subcommands are the deterministic half of /plansmith:gate: the
// slash command's agent runs the critic and validator, and these print
// exactly what to give them and check exactly what came back. Each prints
// plainly; a failed check is exit status 1 with a one-line reason.

func newGateCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gate",
		Short: "Helpers for the plan-mode gap-coverage gate (/plansmith:gate)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("gate: name a subcommand: critic-prompt, validator-prompt, critic-input, leakage, check-plan, check-findings, check-verdict or signal")
		},
	}
	cmd.AddCommand(
		newGatePromptCmd(env, "critic-prompt", "Print the critic's whole prompt for the plan: its instructions and the plan without the gaps block and rodin metadata",
			func(p gate.Prompts) string { return p.Critic }),
		newGatePromptCmd(env, "validator-prompt", "Print the validator's instructions for the plan, with its gaps; the critic's output goes after them",
			func(p gate.Prompts) string { return p.Validator }),
		newGateCriticInputCmd(env),
		newGateLeakageCmd(env),
		newGateCheckPlanCmd(env),
		newGateCheckFindingsCmd(env),
		newGateCheckVerdictCmd(env),
		newGateSignalCmd(env),
	)
	return cmd
}

// checkFailed reports a failed check: one line on stderr, exit status 1.
func checkFailed(env *Env, format string, a ...any) error {
	for i, v := range a {
		if err, ok := v.(error); ok {
			a[i] = plainfile.Message(err)
		}
	}
	msg := strings.ReplaceAll(fmt.Sprintf(format, a...), "\n", " ")
	fmt.Fprintf(env.Stderr, "plansmith: %s\n", msg)
	return &exitError{code: 1}
}

func onePath(name string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usagef("gate %s: give exactly one plan file (got %d arguments)", name, len(args))
		}
		return nil
	}
}

// newGatePromptCmd prints one of the plan's sub-agent prompts, which the
// hooks recognise the runs by (given unchanged: gate.Prompts.Recognise).
// A plan without a well-formed gaps block has none yet.
func newGatePromptCmd(env *Env, name, short string, which func(gate.Prompts) string) *cobra.Command {
	return &cobra.Command{
		Use:   name + " PLAN",
		Short: short,
		Args:  onePath(name),
		RunE: func(cmd *cobra.Command, args []string) error {
			plan, err := os.ReadFile(args[0])
			if err != nil {
				return checkFailed(env, "gate %s: %v", name, err)
			}
			if g, err := gate.ParseGaps(string(plan)); err != nil || !g.Present {
				return checkFailed(env, "gate %s: %s has no well-formed gaps block; run %s on it first", name, args[0], templates.CLI("gate check-plan"))
			}
			fmt.Fprintln(env.Stdout, which(gate.PromptsOf(string(plan))))
			return nil
		},
	}
}

func newGateCriticInputCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "critic-input PLAN",
		Short: "Print the plan as the critic must see it: without its gaps and rodin metadata",
		Args:  onePath("critic-input"),
		RunE:  func(cmd *cobra.Command, args []string) error { return runGateCriticInput(env, args[0]) },
	}
}

func runGateCriticInput(env *Env, path string) error {
	plan, err := os.ReadFile(path)
	if err != nil {
		return checkFailed(env, "gate critic-input: %v", err)
	}
	fmt.Fprintln(env.Stdout, gate.CriticInput(string(plan)))
	return nil
}

// leakageOptions are the inputs of `plansmith gate leakage`.
type leakageOptions struct {
	Path  string
	Merge bool // add the phrases to the gaps block and write the plan
	Gaps  bool // print the gaps --merge would add, without writing
}

func newGateLeakageCmd(env *Env) *cobra.Command {
	o := &leakageOptions{}
	cmd := &cobra.Command{
		Use:   "leakage PLAN",
		Short: "List the gap-like phrases the plan uses outside its gaps block; --merge adds them as gaps",
		Long: fmt.Sprintf("Scans the plan outside its gaps block for wording that admits uncertainty, deferral or risk.\n"+
			"With %d or more distinct phrases, --merge adds one medium gap per phrase to the gaps block\n"+
			"(next free GAP number; existing gaps are never changed) and writes the plan file.", gate.LeakageThreshold),
		Args: onePath("leakage"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Path = args[0]
			return runGateLeakage(env, o)
		},
	}
	cmd.Flags().BoolVar(&o.Merge, "merge", false, "add the phrases to the plan's gaps block when they reach the threshold")
	cmd.Flags().BoolVar(&o.Gaps, "gaps", false, "print the gaps --merge would add, without writing (for the Edit tool in plan mode)")
	cmd.MarkFlagsMutuallyExclusive("merge", "gaps")
	return cmd
}

// leakagePhrase is one distinct phrase and the lines it stands on.
type leakagePhrase struct{ Phrase, Lines string }

func runGateLeakage(env *Env, o *leakageOptions) error {
	data, err := os.ReadFile(o.Path)
	if err != nil {
		return checkFailed(env, "gate leakage: %v", err)
	}
	plan := string(data)
	hits := gate.Leakage(plan)
	lines := map[string][]string{}
	for _, h := range hits {
		lines[h.Phrase] = append(lines[h.Phrase], fmt.Sprint(h.Line))
	}
	var phrases []leakagePhrase
	for _, p := range gate.Distinct(hits) {
		phrases = append(phrases, leakagePhrase{p, strings.Join(lines[p], ", ")})
	}
	fmt.Fprint(env.Stdout, templates.Show("gate/leakage.md", map[string]any{
		"Phrases": phrases, "N": len(phrases), "Threshold": gate.LeakageThreshold, "Hint": !o.Merge && !o.Gaps,
	}))
	if !o.Merge && !o.Gaps {
		return nil
	}
	out, added, err := gate.MergeLeakage(plan)
	if err != nil {
		if errors.Is(err, gate.ErrNoGapsBlock) {
			return checkFailed(env, "gate leakage: %s has no gaps block; add %s and %s lines and run again", o.Path, gate.GapsStart, gate.GapsEnd)
		}
		return checkFailed(env, "gate leakage: %s: %v", o.Path, err)
	}
	if o.Merge && len(added) > 0 {
		if err := writeKeepingMode(o.Path, out); err != nil {
			return checkFailed(env, "gate leakage: %v", err)
		}
	}
	fmt.Fprint(env.Stdout, templates.Show("gate/leakage-merge.md", map[string]any{
		"Added": added, "Show": o.Gaps, "Path": o.Path, "End": gate.GapsEnd,
	}))
	return nil
}

// writeKeepingMode replaces path atomically, keeping its permissions.
func writeKeepingMode(path, content string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return state.WriteFileMode(path, []byte(content), info.Mode().Perm())
}

func newGateCheckPlanCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "check-plan PLAN",
		Short: "Check that the plan has a Goals section and a well-formed gaps block",
		Args:  onePath("check-plan"),
		RunE:  func(cmd *cobra.Command, args []string) error { return runGateCheckPlan(env, args[0]) },
	}
}

func runGateCheckPlan(env *Env, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return checkFailed(env, "gate check-plan: %v", err)
	}
	plan := string(data)
	if !gate.HasGoals(plan) {
		return checkFailed(env, "gate check-plan: %s has no \"## Goals\" section; add one with the plan's success criteria, then run the check again", path)
	}
	g, err := gate.ParseGaps(plan)
	if err != nil {
		return checkFailed(env, "gate check-plan: %s: %v", path, err)
	}
	if !g.Present {
		return checkFailed(env, "gate check-plan: %s has no gaps block; add the known gaps between a %s line and a %s line (nothing between them claims there are none), then run the check again", path, gate.GapsStart, gate.GapsEnd)
	}
	fmt.Fprint(env.Stdout, templates.Show("gate/check-plan.md", g))
	return nil
}

// readTextArg reads FILE, or stdin for "-" or no argument.
func readTextArg(env *Env, args []string) (string, error) {
	if len(args) == 0 || args[0] == "-" {
		b, err := io.ReadAll(env.Stdin)
		if err != nil {
			return "", fmt.Errorf("reading stdin: %w", err)
		}
		return string(b), nil
	}
	b, err := os.ReadFile(args[0])
	return string(b), err
}

func newGateCheckFindingsCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "check-findings [FILE|-]",
		Short: "Check the critic's output (stdin by default) and count its findings by severity",
		Args:  cobra.MaximumNArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return runGateCheckFindings(env, args) },
	}
}

func runGateCheckFindings(env *Env, args []string) error {
	text, err := readTextArg(env, args)
	if err != nil {
		return checkFailed(env, "gate check-findings: %v", err)
	}
	f, err := gate.ParseFindings(text)
	if err != nil {
		return checkFailed(env, "gate check-findings: %v; run the critic once more", err)
	}
	fmt.Fprint(env.Stdout, templates.Show("gate/check-findings.md", map[string]any{"Findings": f, "Counts": f.Counts()}))
	return nil
}

// verdictOptions are the inputs of `plansmith gate check-verdict`.
type verdictOptions struct {
	Args []string // FILE, - or nothing (stdin)
	Plan string   // --plan: cross-check with the critic's findings and the plan's gaps
}

func newGateCheckVerdictCmd(env *Env) *cobra.Command {
	o := &verdictOptions{}
	cmd := &cobra.Command{
		Use:   "check-verdict [FILE|-]",
		Short: "Check the validator's output (stdin by default): PASS or FAIL and its reason",
		Long: "Parses the validator's output and prints its verdict and reason. The input may be the bare\n" +
			"output or wrapped in <" + gate.ValidatorTag + ">…</" + gate.ValidatorTag + ">. With --plan, the input must also\n" +
			"hold the critic's output in <" + gate.CriticTag + ">…</" + gate.CriticTag + ">, and the deterministic cross-checks\n" +
			"apply: no high or medium findings is a PASS whatever the validator said, and a PASS with high\n" +
			"or medium findings while the plan documents no gaps at all is a FAIL.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Args = args
			return runGateCheckVerdict(env, o)
		},
	}
	cmd.Flags().StringVar(&o.Plan, "plan", "", "the plan file: cross-check the verdict with the critic's findings and the plan's gaps")
	return cmd
}

func runGateCheckVerdict(env *Env, o *verdictOptions) error {
	text, err := readTextArg(env, o.Args)
	if err != nil {
		return checkFailed(env, "gate check-verdict: %v", err)
	}
	r := gate.SplitReply(text)
	vtext := text
	if r.HasValidator {
		vtext = r.Validator
	}
	v, err := gate.ParseVerdict(vtext)
	if err != nil {
		return checkFailed(env, "gate check-verdict: %v; run the validator once more", err)
	}
	pass, reason, note := v.Pass, v.Reason, ""
	if o.Plan != "" {
		if !r.HasCritic || !r.HasValidator {
			return checkFailed(env, "gate check-verdict: with --plan, wrap the critic's output in <%s>…</%s> and the validator's in <%s>…</%s>",
				gate.CriticTag, gate.CriticTag, gate.ValidatorTag, gate.ValidatorTag)
		}
		f, err := gate.ParseFindings(r.Critic)
		if err != nil {
			return checkFailed(env, "gate check-verdict: %v; run the critic once more", err)
		}
		plan, err := os.ReadFile(o.Plan)
		if err != nil {
			return checkFailed(env, "gate check-verdict: --plan: %v", err)
		}
		g, err := gate.ParseGaps(string(plan))
		if err != nil {
			return checkFailed(env, "gate check-verdict: --plan %s: %v", o.Plan, err)
		}
		pass, reason, note = crossCheck(pass, reason, f, g)
	}
	fmt.Fprint(env.Stdout, templates.Show("gate/check-verdict.md", map[string]any{"Pass": pass, "Reason": reason, "Note": note}))
	return nil
}

// crossCheck overrides the validator where the facts decide alone, as the
// loop's gate does: the validator judges coverage, not whether findings or
// gaps exist.
func crossCheck(pass bool, reason string, f gate.Findings, g gate.Gaps) (bool, string, string) {
	serious := f.Serious()
	switch {
	case len(serious) == 0 && !pass:
		return true, "the critic reported no high or medium findings", "validator FAIL overridden: " + reason
	case len(serious) > 0 && pass && len(g.Items) == 0:
		labels := make([]string, len(serious))
		for i, s := range serious {
			labels[i] = s.Label() + " (" + s.Title + ")"
		}
		return false, "uncovered: " + strings.Join(labels, ", ") + "; the plan documents no gaps",
			"validator PASS overridden: high or medium findings and an empty gaps block"
	}
	return pass, reason, ""
}

func newGateSignalCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "signal pass|fail REASON...",
		Short: "Print the verdict signal line to write at the end of the plan file (REASON - reads stdin)",
		Long: "Prints the <!-- rodin:verdict:signal=... --> line for the plan file. The words of REASON are\n" +
			"joined with spaces; a single - reads the reason from stdin. The PostToolUse hook turns the\n" +
			"line into the plan's validation once the agent writes it with the Edit or Write tool.",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runGateSignal(env, args) },
	}
}

func runGateSignal(env *Env, args []string) error {
	if len(args) < 2 {
		return usagef("gate signal: want pass|fail and a reason, e.g. 'plansmith gate signal fail \"FINDING-2 is not covered\"'")
	}
	status := strings.ToLower(args[0])
	if status != gate.ValidationPass && status != gate.ValidationFail {
		return usagef("gate signal: status %q must be pass or fail", args[0])
	}
	reason := strings.Join(args[1:], " ")
	if len(args) == 2 && args[1] == "-" {
		b, err := io.ReadAll(env.Stdin)
		if err != nil {
			return checkFailed(env, "gate signal: reading stdin: %v", err)
		}
		reason = string(b)
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return usagef("gate signal: the reason is empty; say why the plan passed or failed")
	}
	fmt.Fprintln(env.Stdout, signalLine(status, reason))
	return nil
}

// signalLine is the verdict signal comment for the plan file. The JSON is
// compact and HTML-escaped, so a reason can never hold "-->" and end the
// comment early, nor a newline that would split it.
func signalLine(status, reason string) string {
	b, _ := json.Marshal(gate.Validation{Status: status, Reason: reason}) // a struct of strings always marshals
	return "<!-- rodin:verdict:signal=" + string(b) + " -->"
}
