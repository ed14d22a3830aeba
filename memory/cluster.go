package memory

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clustering parameters.
const (
	// clusterThreshold is the least mean similarity at which two
	// groups of corrections merge (average linkage).
	clusterThreshold = 0.5
	// maxClustered is the most open corrections clustered at once: the
	// newest are kept. Clustering is cubic in the worst case; 500 takes
	// well under a second.
	maxClustered = 500
	// canonicalTokens is how many of a correction's best-supported
	// words count towards choosing it as a cluster's canonical text.
	canonicalTokens = 8
	// ruleWords is the length past which a correction makes a worse
	// rule: each word beyond it costs its canonical score.
	ruleWords = 15
)

// correctionCluster is a group of similar corrections.
type correctionCluster struct {
	// corrections are the members, oldest first.
	corrections []Correction
	features    []proseFeatures
	// canonical indexes the member whose text best states the cluster.
	canonical int
	// cohesion is the mean similarity of the members' pairs (1 for one
	// member).
	cohesion float64
	// confidence is from 0 to 1; see clusterConfidence.
	confidence float64
}

// frequency is the number of corrections in the cluster.
func (c *correctionCluster) frequency() int { return len(c.corrections) }

// score orders clusters: frequency × confidence.
func (c *correctionCluster) score() float64 { return float64(c.frequency()) * c.confidence }

// canonicalText is the cluster's canonical text, as a rule: spaces
// collapsed, first letter capitalised.
func (c *correctionCluster) canonicalText() string {
	return asRuleText(c.corrections[c.canonical].Text)
}

// variants are the members' texts, canonical first, without repeats.
func (c *correctionCluster) variants() []string {
	vs := []string{c.corrections[c.canonical].Text}
	for i, m := range c.corrections {
		if i != c.canonical {
			vs = append(vs, m.Text)
		}
	}
	return cleanVariants(vs)
}

// correctionIDs are the members' ids, ascending.
func (c *correctionCluster) correctionIDs() []int64 {
	ids := make([]int64, len(c.corrections))
	for i, m := range c.corrections {
		ids[i] = m.ID
	}
	slices.Sort(ids)
	return ids
}

// latest is the id of the newest member.
func (c *correctionCluster) latest() int64 { return c.corrections[len(c.corrections)-1].ID }

// mostCommon returns the most frequent non-empty value of field among the
// members, the newest winning ties.
func (c *correctionCluster) mostCommon(field func(Correction) string) string {
	counts := map[string]int{}
	best, bestN := "", 0
	for _, m := range c.corrections { // oldest first: later ones win ties
		v := field(m)
		if v == "" {
			continue
		}
		counts[v]++
		if counts[v] >= bestN {
			best, bestN = v, counts[v]
		}
	}
	return best
}

// project, language and file are the members' most common ones.
func (c *correctionCluster) project() string {
	return c.mostCommon(func(m Correction) string { return m.Project })
}

func (c *correctionCluster) language() string {
	return c.mostCommon(func(m Correction) string { return m.Language })
}

func (c *correctionCluster) file() string {
	return c.mostCommon(func(m Correction) string { return m.File })
}

// fileRange is the range of the newest member made in file, if any.
func (c *correctionCluster) fileRange(file string) *Range {
	for i := len(c.corrections) - 1; i >= 0; i-- {
		if m := c.corrections[i]; m.File == file && m.Range != nil {
			return m.Range
		}
	}
	return nil
}

// languageCounts counts the members by the language of their file.
func (c *correctionCluster) languageCounts() map[string]int {
	n := map[string]int{}
	for _, m := range c.corrections {
		if m.Language != "" {
			n[m.Language]++
		}
	}
	return n
}

// texts are the members' texts, canonical first.
func (c *correctionCluster) texts() []string {
	out := []string{c.corrections[c.canonical].Text}
	for i, m := range c.corrections {
		if i != c.canonical {
			out = append(out, m.Text)
		}
	}
	return out
}

// clusterCorrections groups corrections (oldest first) by average-linkage
// agglomerative clustering: starting from one group per correction, the
// two groups with the highest mean pairwise similarity merge, as long as
// it is at least clusterThreshold. Corrections without a content word
// ("no", "don't do that") cannot become rules and are left out. The
// clusters are returned strongest first: by frequency × confidence, then
// the newest correction, then the canonical text.
func clusterCorrections(cs []Correction) []*correctionCluster {
	var (
		members []Correction
		feats   []proseFeatures
	)
	for _, c := range cs {
		if f := analyzeProse(c.Text); len(f.tokens) > 0 {
			members = append(members, c)
			feats = append(feats, f)
		}
	}
	n := len(members)
	if n == 0 {
		return nil
	}
	// sum[i][j] is the sum of the similarities between the members of
	// groups i and j; groups[i] lists group i's members (nil once
	// merged away).
	sum := make([][]float64, n)
	groups := make([][]int, n)
	for i := range n {
		sum[i] = make([]float64, n)
		groups[i] = []int{i}
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			s := proseSimilarity(feats[i], feats[j])
			sum[i][j], sum[j][i] = s, s
		}
	}
	for {
		bi, bj, best := -1, -1, clusterThreshold
		for i := range n {
			if groups[i] == nil {
				continue
			}
			for j := i + 1; j < n; j++ {
				if groups[j] == nil {
					continue
				}
				if avg := sum[i][j] / float64(len(groups[i])*len(groups[j])); avg >= best && (bi < 0 || avg > best) {
					bi, bj, best = i, j, avg
				}
			}
		}
		if bi < 0 {
			break
		}
		groups[bi] = append(groups[bi], groups[bj]...)
		groups[bj] = nil
		for k := range n {
			sum[bi][k] += sum[bj][k]
			sum[k][bi] = sum[bi][k]
		}
	}

	var out []*correctionCluster
	for _, g := range groups {
		if g == nil {
			continue
		}
		slices.Sort(g) // oldest first, as members are
		c := &correctionCluster{}
		for _, i := range g {
			c.corrections = append(c.corrections, members[i])
			c.features = append(c.features, feats[i])
		}
		c.cohesion = clusterCohesion(c.features)
		c.canonical = clusterCanonical(c.features)
		c.confidence = clusterConfidence(c.frequency(), c.cohesion, c.features[c.canonical].directive)
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b *correctionCluster) int {
		if d := cmp.Compare(b.score(), a.score()); d != 0 {
			return d
		}
		if d := cmp.Compare(b.latest(), a.latest()); d != 0 {
			return d
		}
		return strings.Compare(a.canonicalText(), b.canonicalText())
	})
	return out
}

// clusterCohesion is the mean similarity of the pairs of fs, 1 for a single one.
func clusterCohesion(fs []proseFeatures) float64 {
	if len(fs) < 2 {
		return 1
	}
	total, pairs := 0.0, 0
	for i := range fs {
		for j := i + 1; j < len(fs); j++ {
			total += proseSimilarity(fs[i], fs[j])
			pairs++
		}
	}
	return total / float64(pairs)
}

// clusterCanonical chooses the member that best states its cluster: the one
// that says most of what the members agree on (the sum, over its
// canonicalTokens best-supported words, of the share of members using the
// word), phrased as a directive, and short enough to be a rule. Ties go
// to the oldest.
func clusterCanonical(fs []proseFeatures) int {
	df := map[string]int{}
	for _, f := range fs {
		for _, t := range f.tokens {
			df[t]++
		}
	}
	best, bestScore := 0, -1e9
	for i, f := range fs {
		support := make([]float64, len(f.tokens))
		for k, t := range f.tokens {
			support[k] = float64(df[t]) / float64(len(fs))
		}
		slices.SortFunc(support, func(a, b float64) int { return cmp.Compare(b, a) })
		score := 0.0
		for _, s := range support[:min(len(support), canonicalTokens)] {
			score += s
		}
		if f.directive {
			score += 0.25
		}
		score -= 0.05 * float64(max(0, f.words-ruleWords))
		if score > bestScore+1e-9 {
			best, bestScore = i, score
		}
	}
	return best
}

// clusterConfidence is how sure a cluster is to make a good rule, from
// 0.45 up to 0.99: more for a directive ("never", "use", …: +0.2), for
// agreeing members (+0.15 × cohesion) and for repetition (+0.2 × (1 −
// 1/frequency): a correction made three times counts more than one made
// once, with diminishing returns).
func clusterConfidence(frequency int, cohesion float64, directive bool) float64 {
	c := 0.45 + 0.15*cohesion + 0.2*(1-1/float64(max(frequency, 1)))
	if directive {
		c += 0.2
	}
	return min(c, 0.99)
}

// asRuleText makes a correction text read as a rule: whitespace collapsed,
// the first letter in upper case.
func asRuleText(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	r, size := utf8.DecodeRuneInString(text)
	if size == 0 {
		return text
	}
	return string(unicode.ToUpper(r)) + text[size:]
}
