package loop

import (
	"errors"
	"time"

	"github.com/plansmith/plansmith/internal/plainfile"
	"github.com/plansmith/plansmith/internal/provenance"
	"github.com/plansmith/plansmith/memory"
	"github.com/plansmith/plansmith/state"
)

// The memory of earlier runs (memory.Run lessons): what a loop shows of it
// in explore's prompt, and what a finished loop adds to it. The file is
// plansmith's only where the provenance record under the home says so.

// shownMemory is the memory the explore prompt shows, rendered: only a
// memory file plansmith wrote on this machine, its bytes unchanged. A
// repository can carry one, whose "lessons" would reach the agent as
// plansmith's own (review V2); it is not shown, and the next finished run
// moves it aside. Start and Stop both use it: explore's prompt comes from
// Start when explore is the first phase (review DD2).
func shownMemory(env Env, p state.Paths, l *state.Loop) string {
	if !l.UseMemory {
		return ""
	}
	path := p.Memory()
	if !exists(path) {
		return ""
	}
	if ledger := provenance.Open(env.Getenv("HOME"), p.Project); ledger.Known() {
		if _, ok := ledger.Written(path); !ok {
			why := "was not written by plansmith on this machine (a repository may carry it)"
			if _, edited := ledger.Recorded(path); edited {
				why = "was changed since plansmith last wrote it" // review AN7
			}
			env.note("%s %s: its lessons are not shown", p.Rel(path), why)
			return ""
		}
	}
	runs, err := memory.Load(path)
	if err != nil {
		env.note("%v (continuing without memory)", err)
		return ""
	}
	return memory.Render(runs)
}

// keepLessons adds run to the project's memory and records the file as
// plansmith's. A memory file plansmith did not write here (a repository's,
// or one from before the record existed) is first moved to the archive,
// so that its lessons are never added to and passed on as plansmith's
// (review V2). It returns what went wrong, for the user.
func (r *stop) keepLessons(ledger provenance.Ledger, run memory.Run, now time.Time) []string {
	var trouble []string
	p := r.t.paths
	mem := p.Memory()
	// A file larger than plansmith lets its memory grow was not written by
	// it, record or none: without a home to keep the record, it would
	// otherwise stay, and every run would fail to add its lessons (review
	// CF3).
	_, err := memory.Load(mem)
	oversized := errors.Is(err, plainfile.ErrTooLarge)
	if _, ok := ledger.Written(mem); (ledger.Known() && !ok && exists(mem)) || oversized {
		_, edited := ledger.Recorded(mem) // plansmith wrote it, and it changed since (review AH6)
		// Moved as every archive is: never through a link out of the
		// project (review BM: a repository's archive link took it away).
		dst, err := state.ArchiveFile(p, mem, "memory-not-kept-here", now)
		if err != nil {
			r.env.note("%v", err)
			return append(trouble, "the lessons were not added to memory: "+p.Rel(mem)+" was not written by plansmith on this machine and could not be moved aside ("+plainError(err)+")")
		}
		why := " was not written by plansmith on this machine for this folder (a repository may carry one; memory from before plansmith kept a record, or from before the project moved, looks the same)"
		switch {
		case oversized:
			why = " is larger than plansmith ever lets its memory grow (a repository may carry such a file)"
		case edited:
			why = " was changed since plansmith last wrote it (by hand, or by a checkout), and plansmith cannot tell who wrote the change"
		}
		trouble = append(trouble, p.Rel(mem)+why+", so its lessons were not shown; it is kept at "+p.Rel(dst)+" and memory starts afresh")
	}
	data, err := memory.WithRun(mem, run)
	if err != nil {
		r.env.note("%v", err)
		return append(trouble, "the lessons were not added to memory: "+plainError(err))
	}
	if data == nil {
		return trouble
	}
	// Recorded before it is written: written first and then not recorded
	// (a full disk under the home), the memory was taken at the next run
	// for one plansmith did not write, its lessons not shown and the file
	// moved aside, with no word now (review FB2). Not written, the memory
	// as it was stays vouched for by its earlier record.
	if err := ledger.RecordBytes(mem, data, now); err != nil {
		r.env.note("%v", err)
		return append(trouble, "the lessons were not added to memory: plansmith could not record under your home that it wrote them ("+plainError(err)+"), so it left the memory as it was; once there is room there, later runs add their lessons again")
	}
	if err := state.WriteOwned(mem, data); err != nil {
		r.env.note("%v", err)
		if exists(mem) {
			// The newest record names bytes that were not written; the
			// file's own is made newest again, as a trim keeps only a
			// file's newest record.
			if err := ledger.Record(mem, now); err != nil {
				r.env.note("%v", err)
			}
		}
		return append(trouble, "the lessons were not added to memory: "+plainError(err))
	}
	return trouble
}
