package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/internal/provenance"
	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/memory"
	"github.com/plansmith/plansmith/plans"
	"github.com/plansmith/plansmith/templates"
)

// plansOptions are the inputs of `plansmith plans` and `plans show`.
type plansOptions struct {
	env           *Env
	JSON          bool
	Name          string
	NameFromStdin bool
}

func newPlansCmd(env *Env) *cobra.Command {
	o := &plansOptions{env: env}
	cmd := &cobra.Command{
		Use:   "plans [--json]",
		Short: "List the plans kept in the project (date, verdict, path, request)",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return runPlansList(o) },
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print the list as JSON")
	show := &cobra.Command{
		Use:   "show [NAME]",
		Short: "Print a kept plan (the latest when NAME is empty; a unique part of a name will do)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Name = args[0]
			}
			return runPlansShow(o)
		},
	}
	show.Flags().BoolVar(&o.NameFromStdin, "name-from-stdin", false, "read NAME from standard input (how /plansmith:implement passes the user's words unquoted)")
	cmd.AddCommand(show)
	return cmd
}

// planRow is one kept plan as the list shows it.
type planRow struct {
	Date     string `json:"date"`
	Verdict  string `json:"verdict"`
	Path     string `json:"path"`
	Request  string `json:"request"`
	Name     string `json:"name"`
	Evidence string `json:"evidence,omitempty"`
	KeptHere bool   `json:"kept_here"` // plansmith wrote it on this machine, unchanged since
	Edited   bool   `json:"edited"`    // plansmith wrote it on this machine, changed since
	// Standing is the verdict as the list shows it (printable: a kept
	// plan's frontmatter may be anyone's), marked "*" when the plan was
	// edited since plansmith kept it, "?" when only the file says so (not
	// kept here).
	Standing string `json:"-"`
}

// maxPlanShown bounds what `plans show` prints of a plan: a kept plan is far
// smaller, and a repository may plant a file of any size (review V9).
const maxPlanShown = 8 << 20

// readPlan reads a plan file to show, refusing one past maxPlanShown.
func readPlan(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	body, err := io.ReadAll(io.LimitReader(f, maxPlanShown+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxPlanShown {
		return nil, fmt.Errorf("%s is over %d MiB: no plan plansmith keeps is that large", path, maxPlanShown>>20)
	}
	return body, nil
}

func runPlansList(o *plansOptions) error {
	p, err := paths(o.env)
	if err != nil {
		return err
	}
	cfg, err := plans.LoadConfig(p.Project)
	if err != nil {
		return err
	}
	entries, err := plans.List(p.Project, cfg)
	if err != nil {
		return err
	}
	entries = plans.Vouch(entries, provenance.Open(o.env.Getenv("HOME"), p.Project))
	rows := make([]planRow, 0, len(entries))
	elsewhere, edited, relayed := false, false, false
	for _, e := range entries {
		standing := templates.OneLine(e.Verdict(), 40)
		relayed = relayed || e.Verified && e.Relayed()
		switch {
		case e.Edited:
			standing += "*"
			edited = true
		case !e.KeptHere:
			standing += "?"
			elsewhere = true
		}
		rows = append(rows, planRow{Date: e.GeneratedAt.Local().Format("2006-01-02"), Verdict: e.Verdict(), Path: p.Rel(e.Path),
			Request: memory.OneLine(e.Request, 4096), Name: e.Name, Evidence: e.Evidence, KeptHere: e.KeptHere, Edited: e.Edited, Standing: standing})
	}
	if o.JSON {
		enc := json.NewEncoder(o.env.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(rows)
	}
	text, err := templates.Render("cli/plans.md", map[string]any{
		"Off": cfg.Off, "Source": p.Rel(cfg.Source), "Output": p.Rel(p.Output()), "Dir": cfg.Dir, "Rows": rows, "Elsewhere": elsewhere, "Edited": edited,
		"Relayed": relayed,
		// Where a run that kept nothing left its text (a Codex user of
		// codex exec is told of its end nowhere else; review EC6).
		"OutputSaved": len(rows) == 0 && isFile(p.Output()),
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(o.env.Stdout, strings.TrimSpace(text))
	return nil
}

func runPlansShow(o *plansOptions) error {
	p, err := paths(o.env)
	if err != nil {
		return err
	}
	if o.NameFromStdin {
		if o.Name != "" {
			return usagef("plans show: give NAME or --name-from-stdin, not both")
		}
		line, err := bufio.NewReader(o.env.Stdin).ReadString('\n')
		if err != nil && line == "" {
			line = "" // no input: the latest plan
		}
		o.Name = strings.TrimSpace(line)
	}
	cfg, listErr := plans.LoadConfig(p.Project)
	var entries []plans.Entry
	if listErr == nil {
		entries, listErr = plans.List(p.Project, cfg)
	}
	if listErr != nil && !plans.IsLatest(o.Name) {
		return listErr
	}
	ledger := provenance.Open(o.env.Getenv("HOME"), p.Project)
	entries = plans.Vouch(entries, ledger)
	var e plans.Entry
	if plans.IsLatest(o.Name) {
		// The latest is the plan plansmith saved here last: kept, or only
		// in the output file when keeping is off or failed (review V5),
		// the kept plans unreadable included: a refused plans_dir, a file
		// where the folder goes (review AH4: the finish message promised
		// the latest plan, and every call failed).
		var output *plans.Entry
		saved, ok, err := plans.Read(p.Output())
		switch {
		case listErr != nil && !ok:
			return listErr
		case listErr != nil:
			fmt.Fprintf(o.env.Stderr, "plansmith: the kept plans cannot be read (%v); showing the latest saved plan\n", listErr)
		case err != nil && len(entries) == 0:
			return err
		}
		if ok {
			saved = plans.Vouch([]plans.Entry{saved}, ledger)[0]
			output = &saved
		}
		if e, ok = plans.Latest(entries, output); !ok {
			if v, err := loop.Status(*o.env, p); err == nil {
				loopNames(o.env, v.Agent)
			}
			return fmt.Errorf("no plan is saved yet (neither in %s/ nor %s); %s makes one", cfg.Dir, p.Rel(p.Output()), templates.Slash("plan"))
		}
	} else {
		if cfg.Off {
			return fmt.Errorf("keeping plans is turned off (plans_dir: off in %s); 'plansmith plans show' with no name shows the latest, %s", p.Rel(cfg.Source), p.Rel(p.Output()))
		}
		if e, err = plans.Find(entries, o.Name); err != nil {
			if len(entries) > 0 {
				return fmt.Errorf("%w; 'plansmith plans' lists them", err)
			}
			return fmt.Errorf("%w in %s/", err, cfg.Dir)
		}
	}
	body, err := readPlan(e.Path)
	if err != nil {
		return err
	}
	active := false
	if v, err := loop.Status(*o.env, p); err == nil {
		active = v.Active
		loopNames(o.env, v.Agent)
	}
	evidence := e.Evidence
	if e.Verified && e.Relayed() {
		evidence = "" // the verdict says it (review BU5)
	}
	head, err := templates.Render("cli/plan-shown.md", map[string]any{
		"Path": templates.OneLine(p.Rel(e.Path), 4096), "Date": e.GeneratedAt.Local().Format("2006-01-02"), "Verdict": templates.OneLine(e.Verdict(), 40),
		"Evidence": templates.OneLine(evidence, 40), "Request": memory.OneLine(e.Request, 200), "LoopActive": active, "KeptHere": e.KeptHere, "Edited": e.Edited,
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(o.env.Stdout, strings.TrimSpace(head))
	fmt.Fprintln(o.env.Stdout)
	// A kept plan may be anyone's: no escape sequence in it may redraw the
	// header above, which says whose it is (review Z5).
	_, err = io.WriteString(o.env.Stdout, templates.Printable(string(body)))
	return err
}

// isFile reports whether path is a regular file (not a link, a folder or
// nothing).
func isFile(path string) bool {
	info, err := os.Lstat(path)
	return err == nil && info.Mode().IsRegular()
}
