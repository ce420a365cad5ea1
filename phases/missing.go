package phases

// Missing is how far an answer fell short of its phase's checks: for each
// problem, the count still needed (need − found, at least 1), the count of
// things that must be absent but were found (at least 1), and 1 for a
// problem that does not count things. 0 means the answer passed. It ranks
// failed answers, so that the one that came closest is kept as the best
// text so far, not the last one.
func (o Outcome) Missing() int {
	n := 0
	for _, p := range o.Problems {
		switch {
		case p.Text != "":
			n++
		case p.Negative:
			n += max(p.Found, 1)
		default:
			n += max(p.Need-p.Found, 1)
		}
	}
	return n
}
