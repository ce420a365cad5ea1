package plainfile

// nonBlock: Windows has no FIFOs among files.
const nonBlock = 0
