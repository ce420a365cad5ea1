package state

// noFollowNonBlock has no Windows equivalent among open flags; there
// CheckOwned's Lstat refuses links before the open, and FIFOs do not exist.
const noFollowNonBlock = 0
