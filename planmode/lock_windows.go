package planmode

// lockRuns has no lock on Windows: two hooks that record a session's runs
// at the same moment may lose one of them, and the gate then asks for the
// run again.
func lockRuns(string) func() { return func() {} }
