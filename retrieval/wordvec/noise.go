package wordvec

// noiseWeight returns how much a word (lower-case) counts in a sentence
// vector before SIF weighting: 0 for English stop words, single characters
// and the keywords and names every program repeats (func, return, nil,
// self), a fraction for words that are common in code but still say a
// little (err, string, ctx), 1 for everything else. SIF already weighs
// frequent English words down; this list is for words that are frequent
// in code but not in the news text GloVe was trained on.
func noiseWeight(w string) float32 {
	if len(w) == 1 {
		return 0
	}
	switch w {
	// English stop words (question words included: queries are full of
	// them and code comments say nothing with them).
	case "a", "about", "above", "after", "again", "all", "also", "am", "an", "and",
		"any", "are", "as", "at", "be", "because", "been", "before", "being",
		"below", "between", "both", "but", "by", "can", "could", "did", "do",
		"does", "doing", "done", "down", "during", "each", "either", "eg", "etc",
		"every", "few", "for", "from", "further", "had", "has", "have",
		"having", "he", "her", "here", "hers", "him", "his", "how", "ie", "if",
		"in", "into", "is", "it", "its", "just", "ll", "may", "me", "might",
		"more", "most", "must", "my", "neither", "no", "nor", "not", "of",
		"off", "on", "once", "only", "onto", "or", "other", "our", "ours", "out",
		"over", "own", "per", "re", "same", "shall", "she", "should", "so",
		"some", "such", "than", "that", "the", "their", "theirs", "them",
		"then", "there", "these", "they", "this", "those", "through", "to",
		"too", "under", "until", "up", "upon", "us", "ve", "very", "via", "was",
		"we", "were", "what", "when", "where", "which", "while", "who", "whom",
		"whose", "why", "will", "with", "would", "yes", "you", "your", "yours":
		return 0
	// Keywords and names that every program of some language repeats.
	case "func", "function", "def", "fn", "var", "let", "const", "return",
		"returns", "nil", "null", "none", "undefined", "true", "false", "self",
		"else", "elif", "elsif", "endif", "case", "break", "continue", "goto",
		"package", "import", "export", "pub", "mut", "impl", "void", "static",
		"public", "private", "protected", "final", "extern", "typeof",
		"instanceof", "pass", "ok", "tt", "ret", "println", "printf",
		"sprintf", "errorf", "fmt", "args", "kwargs", "argc", "nolint",
		"todo", "xxx", "go", "defer", "lhs", "rhs", "tmp", "foo", "bar", "baz":
		return 0
	// Common in code, but still a hint of what it is about.
	case "err", "errs", "string", "strings", "str", "int", "bool", "byte",
		"bytes", "float", "double", "char", "uint", "len", "make", "append",
		"ctx", "context", "val", "value", "values", "get", "set", "type",
		"types", "struct", "class", "interface", "object", "obj", "param",
		"params", "arg", "result", "res", "new", "want", "got", "test", "tests",
		"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
		"float32", "float64", "usize", "isize", "i32", "i64", "u8", "u32", "u64",
		"try", "catch", "finally", "throw", "throws", "raise", "async", "await",
		"yield", "lambda", "std", "use", "using", "namespace",
		"main", "init", "num", "size":
		return 0.25
	}
	return 1
}
