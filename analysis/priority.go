package analysis

// backgroundNice is how much the index's parse workers lower the
// priority of their threads (lowerThreadPriority) once the user types
// while they run: ten steps of nice give a thread about a tenth of the
// CPU time of one at the default priority when both want the same core.
const backgroundNice = 10
