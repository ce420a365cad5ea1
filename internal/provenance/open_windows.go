package provenance

// noFollowNonBlock has no Windows equivalent among open flags; FIFOs do not
// exist there, and a link fails the regular-file check after the open.
const noFollowNonBlock = 0
