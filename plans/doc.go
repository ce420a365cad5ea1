// Package plans keeps approved plans in the project under readable names,
// so a team can review, share and implement them: by default
// docs/plans/YYYY-MM-DD-<slug of the request>.md, each with the saved
// plan's frontmatter (how it came to be, the gate's verdict and evidence).
//
// A kept plan is never overwritten: the same name on the same day gets a
// numeric suffix. `.claude/plansmith-output.local.md` stays "the latest";
// this folder is the history worth committing. The folder is set by
// `plans_dir:` in .claude/plansmith.yaml (a path inside the project, or
// `off`).
package plans
