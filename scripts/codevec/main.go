// Command codevec trains word vectors for searching code by meaning: the
// built-in GloVe vectors of package wordvec, fine-tuned as a neural
// bag-of-words dual encoder on (doc sentence, definition) pairs of code
// that no evaluation root holds, and written in the wordvec file format
// over the same words, ranks and weights.
//
// Three steps (data/README.md of package wordvec has the commands and the
// corpus list):
//
//	go run ./scripts/codevec extract-go -modcache DIR > go.tsv
//	python3 scripts/codevec/pypairs.py SOURCE DIR... > py.tsv
//	go run ./scripts/codevec extract-js PACKAGE.tgz... > js.tsv
//	go run ./scripts/codevec train -pairs go.tsv,py.tsv -out FILE
//
// A pair is a line "source<TAB>doc<TAB>code": the first sentence of a
// definition's doc comment or docstring, and the definition as words (its
// names, parameters and the identifiers of its body, without the doc).
// Both sides are embedded as Embed does (wordvec.Model.EachRow: the same
// words, SIF and noise weights); training moves the vectors so that a doc
// sentence's vector is nearer its own definition's than the other
// definitions of its batch (softmax cross-entropy over the dot products of
// unit vectors, in-batch negatives, both directions), with an L2 pull to
// the GloVe vectors so that words the corpus rarely uses keep their place.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"

	"github.com/anchorage-dev/anchorage/retrieval/wordvec"
)

func main() {
	log.SetFlags(0)
	if len(os.Args) < 2 {
		log.Fatal("usage: codevec extract-go|extract-js|train [flags]")
	}
	switch os.Args[1] {
	case "extract-go":
		extractGoMain(os.Args[2:])
	case "extract-js":
		extractJSMain(os.Args[2:])
	case "train":
		trainMain(os.Args[2:])
	default:
		log.Fatalf("codevec: unknown command %q (want extract-go, extract-js or train)", os.Args[1])
	}
}

// options of a training run.
type options struct {
	pairs    []string
	out      string
	epochs   int
	batch    int
	temp     float64 // the softmax's scale on cosine similarities
	lr       float64 // Adagrad's step
	l2       float64 // pull towards the starting vectors
	holdout  float64 // share of pairs held out
	perSrc   int     // pairs kept per source at most
	seed     uint64
	evalOnly bool
	separate bool // a second table for the code side (reports only)
	base     string
	licences string // the licences list; only its kept sources are read
}

func trainMain(args []string) {
	var o options
	fs := flag.NewFlagSet("train", flag.ExitOnError)
	pairs := fs.String("pairs", "", "comma-separated pair files (source<TAB>doc<TAB>code)")
	fs.StringVar(&o.out, "out", "retrieval/wordvec/data/codevec-100d-int8.bin", "model file to write (\"\": report only)")
	fs.IntVar(&o.epochs, "epochs", 5, "passes over the training pairs")
	fs.IntVar(&o.batch, "batch", 256, "pairs per batch (each one's negatives are the others)")
	fs.Float64Var(&o.temp, "temp", 20, "scale of the cosine similarities in the softmax")
	fs.Float64Var(&o.lr, "lr", 0.1, "Adagrad learning rate")
	fs.Float64Var(&o.l2, "l2", 1e-5, "L2 pull of each updated vector towards its GloVe start")
	fs.Float64Var(&o.holdout, "holdout", 0.05, "share of pairs held out for the MRR check")
	fs.IntVar(&o.perSrc, "per-source", 3000, "pairs kept per source (module or package) at most")
	fs.Uint64Var(&o.seed, "seed", 1, "shuffling seed")
	fs.BoolVar(&o.evalOnly, "eval-only", false, "report the held-out MRR of the starting vectors only")
	fs.BoolVar(&o.separate, "separate", false, "train a separate table for the code side (reported, not written)")
	fs.StringVar(&o.base, "base", "retrieval/wordvec/data/glove-6b-100d-int8.bin", "the GloVe model file to start from")
	fs.StringVar(&o.licences, "licences", "scripts/codevec/licences.txt", "per-source licence list (licences.py); sources not marked kept are left out (\"\": read all)")
	fs.Parse(args)
	if *pairs == "" {
		log.Fatal("codevec train: -pairs is required")
	}
	o.pairs = strings.Split(*pairs, ",")
	if err := train(o, os.Stderr); err != nil {
		log.Fatal(err)
	}
}

// text is one side of a pair as Embed sees it: rows and their weights.
type text struct {
	rows []int32
	ws   []float32
}

type pair struct {
	q, c text
}

// embedText returns text's rows and weights, with a row's repeated
// occurrences summed.
func embedText(m *wordvec.Model, s string) text {
	idx := map[int]int{}
	var t text
	m.EachRow(s, func(row int, w float32) {
		if i, ok := idx[row]; ok {
			t.ws[i] += w
			return
		}
		idx[row] = len(t.rows)
		t.rows = append(t.rows, int32(row))
		t.ws = append(t.ws, w)
	})
	return t
}

// readPairs reads the pair files, keeping at most perSrc pairs of each
// source (the first ones in a hash order, so the choice does not depend
// on file order), and splits them into training and held-out pairs by a
// hash of the doc sentence (a sentence repeated across definitions is on
// one side only).
func readPairs(m *wordvec.Model, o options) (trainSet, held []pair, sources map[string]int, err error) {
	type raw struct {
		src, doc, code string
		h              uint64
	}
	var kept map[string]bool
	if o.licences != "" {
		if kept, err = readLicences(o.licences); err != nil {
			return nil, nil, nil, err
		}
	}
	bySrc := map[string][]raw{}
	for _, path := range o.pairs {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("read pairs: %w", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			parts := strings.SplitN(sc.Text(), "\t", 3)
			if len(parts) != 3 {
				continue
			}
			if kept != nil && !kept[parts[0]] {
				continue
			}
			h := fnv.New64a()
			io.WriteString(h, parts[1])
			bySrc[parts[0]] = append(bySrc[parts[0]], raw{parts[0], parts[1], parts[2], h.Sum64()})
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, nil, nil, fmt.Errorf("read pairs %s: %w", path, err)
		}
	}
	sources = map[string]int{}
	var names []string
	for s := range bySrc {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, s := range names {
		rs := bySrc[s]
		sort.Slice(rs, func(i, j int) bool {
			if rs[i].h != rs[j].h {
				return rs[i].h < rs[j].h
			}
			return rs[i].code < rs[j].code
		})
		if len(rs) > o.perSrc {
			rs = rs[:o.perSrc]
		}
		for _, r := range rs {
			p := pair{q: embedText(m, r.doc), c: embedText(m, r.code)}
			if len(p.q.rows) == 0 || len(p.c.rows) == 0 {
				continue
			}
			sources[s]++
			if float64(r.h%10000)/10000 < o.holdout {
				held = append(held, p)
			} else {
				trainSet = append(trainSet, p)
			}
		}
	}
	return trainSet, held, sources, nil
}

// readLicences reads a licence list of licences.py (source, licence,
// "kept" or "excluded", tab-separated) and returns the kept sources.
func readLicences(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read licence list: %w", err)
	}
	kept := map[string]bool{}
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || (f[2] != "kept" && f[2] != "excluded") {
			return nil, fmt.Errorf("read licence list %s: line %d: want source, licence, kept|excluded", path, i+1)
		}
		if f[2] == "kept" {
			kept[f[0]] = true
		}
	}
	return kept, nil
}

// table is a float32 vector per row.
type table struct {
	dims int
	v    []float32
}

func (t *table) row(i int32) []float32 { return t.v[int(i)*t.dims : (int(i)+1)*t.dims] }

// sum returns the weighted sum of text's rows.
func (t *table) sum(x text, out []float32) {
	clear(out)
	for k, r := range x.rows {
		w := x.ws[k]
		for j, y := range t.row(r) {
			out[j] += w * y
		}
	}
}

// unit scales s to unit length into u and returns the length.
func unit(s, u []float32) float32 {
	var ss float64
	for _, x := range s {
		ss += float64(x) * float64(x)
	}
	n := float32(math.Sqrt(ss))
	if n == 0 {
		clear(u)
		return 0
	}
	for j := range s {
		u[j] = s[j] / n
	}
	return n
}

func dot(a, b []float32) float32 {
	var d float32
	for j := range a {
		d += a[j] * b[j]
	}
	return d
}

// mrr returns the mean reciprocal rank of each held-out doc's own
// definition among groups of 1,000 held-out definitions (CodeSearchNet's
// measure), and the share ranked first.
func mrr(qt, ct *table, held []pair) (float64, float64) {
	const group = 1000
	d := qt.dims
	var sum, top float64
	n := 0
	buf := make([]float32, d)
	for g := 0; g+group <= len(held); g += group {
		qs := make([]float32, group*d)
		cs := make([]float32, group*d)
		for i := 0; i < group; i++ {
			qt.sum(held[g+i].q, buf)
			unit(buf, qs[i*d:(i+1)*d])
			ct.sum(held[g+i].c, buf)
			unit(buf, cs[i*d:(i+1)*d])
		}
		for i := 0; i < group; i++ {
			q := qs[i*d : (i+1)*d]
			own := dot(q, cs[i*d:(i+1)*d])
			rank := 1
			for k := 0; k < group; k++ {
				if k != i && dot(q, cs[k*d:(k+1)*d]) > own {
					rank++
				}
			}
			sum += 1 / float64(rank)
			if rank == 1 {
				top++
			}
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), top / float64(n)
}

func train(o options, logw io.Writer) error {
	data, err := os.ReadFile(o.base)
	if err != nil {
		return fmt.Errorf("read base model: %w", err)
	}
	m, err := wordvec.Parse(data)
	if err != nil {
		return err
	}
	d := m.Dims()
	n := m.Len()
	start := &table{dims: d, v: make([]float32, n*d)}
	for i := range n {
		v, _ := m.Vector(m.Word(i))
		copy(start.row(int32(i)), v)
	}
	trainSet, held, sources, err := readPairs(m, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(logw, "codevec: %d training pairs, %d held out, %d sources\n", len(trainSet), len(held), len(sources))
	q := &table{dims: d, v: append([]float32(nil), start.v...)}
	c := q
	if o.separate {
		c = &table{dims: d, v: append([]float32(nil), start.v...)}
	}
	r0, t0 := mrr(q, c, held)
	fmt.Fprintf(logw, "codevec: held-out MRR %.4f (R@1 %.4f) with GloVe\n", r0, t0)
	if o.evalOnly {
		return nil
	}
	rng := rand.New(rand.NewPCG(o.seed, 0))
	gq := make([]float32, len(q.v)) // Adagrad sums
	gc := gq
	if o.separate {
		gc = make([]float32, len(c.v))
	}
	for ep := 0; ep < o.epochs; ep++ {
		rng.Shuffle(len(trainSet), func(i, j int) { trainSet[i], trainSet[j] = trainSet[j], trainSet[i] })
		var loss float64
		batches := 0
		for b := 0; b+o.batch <= len(trainSet); b += o.batch {
			loss += step(q, c, start, gq, gc, trainSet[b:b+o.batch], o)
			batches++
		}
		r, t := mrr(q, c, held)
		fmt.Fprintf(logw, "codevec: epoch %d: loss %.4f, held-out MRR %.4f (R@1 %.4f)\n", ep+1, loss/float64(batches), r, t)
	}
	if o.out == "" || o.separate {
		return nil
	}
	rows := make([]wordvec.Row, n)
	for i := range n {
		rows[i] = wordvec.Row{Word: m.Word(i), Rank: uint32(m.Rank(i)), Vector: q.row(int32(i))}
	}
	f, err := os.Create(o.out)
	if err != nil {
		return fmt.Errorf("write model: %w", err)
	}
	w := bufio.NewWriter(f)
	if err := wordvec.Encode(w, wordvec.ModelName("codevec", d, rows), m.SourceSize(), rows); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write model: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write model: %w", err)
	}
	fmt.Fprintf(logw, "codevec: wrote %s (%s)\n", o.out, wordvec.ModelName("codevec", d, rows))
	return nil
}

// softmaxDirection adds to G the gradient of one direction of the
// symmetric cross-entropy on the B×B logits L (each of the B softmaxes
// over b of L[at(a, b)], whose right answer is b = a, divided by 2B) and
// returns loss plus its loss, unscaled. at(a, b) is a*B+b for the rows (a
// query among the batch's codes), b*B+a for the columns.
func softmaxDirection(loss float64, L []float64, G []float32, B int, at func(a, b int) int) float64 {
	for a := range B {
		mx := math.Inf(-1)
		for b := range B {
			mx = math.Max(mx, L[at(a, b)])
		}
		var z float64
		for b := range B {
			z += math.Exp(L[at(a, b)] - mx)
		}
		loss += -(L[at(a, a)] - mx - math.Log(z))
		for b := range B {
			p := math.Exp(L[at(a, b)]-mx) / z
			if b == a {
				p--
			}
			G[at(a, b)] += float32(p / float64(2*B))
		}
	}
	return loss
}

// step trains on one batch and returns its loss.
func step(q, c, start *table, gq, gc []float32, batch []pair, o options) float64 {
	d := q.dims
	B := len(batch)
	qs := make([]float32, B*d)
	cs := make([]float32, B*d)
	qn := make([]float32, B)
	cn := make([]float32, B)
	buf := make([]float32, d)
	for i, p := range batch {
		q.sum(p.q, buf)
		qn[i] = unit(buf, qs[i*d:(i+1)*d])
		c.sum(p.c, buf)
		cn[i] = unit(buf, cs[i*d:(i+1)*d])
	}
	// logits and the gradient of the symmetric cross-entropy on them
	tau := float32(o.temp)
	L := make([]float64, B*B)
	for i := range B {
		for k := range B {
			L[i*B+k] = float64(tau * dot(qs[i*d:(i+1)*d], cs[k*d:(k+1)*d]))
		}
	}
	G := make([]float32, B*B)
	// rows: query i → its code; columns: code k → its query
	loss := softmaxDirection(0, L, G, B, func(a, b int) int { return a*B + b })
	loss = softmaxDirection(loss, L, G, B, func(a, b int) int { return b*B + a })
	loss /= float64(2 * B)
	// gradients of the unit vectors, then of the sums, then of the rows
	gradQ := map[int32][]float32{}
	gradC := gradQ
	if c != q {
		gradC = map[int32][]float32{}
	}
	dq := make([]float32, d)
	dc := make([]float32, d)
	for i := range B {
		clear(dq)
		clear(dc)
		for k := range B {
			gik := tau * G[i*B+k]
			gki := tau * G[k*B+i]
			ck := cs[k*d : (k+1)*d]
			qk := qs[k*d : (k+1)*d]
			for j := range d {
				dq[j] += gik * ck[j]
				dc[j] += gki * qk[j]
			}
		}
		backUnit(dq, qs[i*d:(i+1)*d], qn[i])
		backUnit(dc, cs[i*d:(i+1)*d], cn[i])
		scatter(gradQ, batch[i].q, dq, d)
		scatter(gradC, batch[i].c, dc, d)
	}
	update(q, start, gq, gradQ, o)
	if c != q {
		update(c, start, gc, gradC, o)
	}
	return loss
}

// backUnit turns the gradient g of u = s/|s| into that of s, in place.
func backUnit(g, u []float32, n float32) {
	if n == 0 {
		clear(g)
		return
	}
	p := dot(g, u)
	for j := range g {
		g[j] = (g[j] - p*u[j]) / n
	}
}

// scatter adds w × g to the gradient of each row of x.
func scatter(grad map[int32][]float32, x text, g []float32, d int) {
	for k, r := range x.rows {
		acc := grad[r]
		if acc == nil {
			acc = make([]float32, d)
			grad[r] = acc
		}
		w := x.ws[k]
		for j := range g {
			acc[j] += w * g[j]
		}
	}
}

// update applies an Adagrad step to the rows with a gradient, each also
// pulled towards its starting vector.
func update(t, start *table, acc []float32, grad map[int32][]float32, o options) {
	lr := float32(o.lr)
	l2 := float32(o.l2)
	d := t.dims
	for r, g := range grad {
		v := t.row(r)
		v0 := start.row(r)
		a := acc[int(r)*d : (int(r)+1)*d]
		for j := range d {
			gj := g[j] + l2*(v[j]-v0[j])
			a[j] += gj * gj
			v[j] -= lr * gj / float32(math.Sqrt(float64(a[j]))+1e-8)
		}
	}
}
