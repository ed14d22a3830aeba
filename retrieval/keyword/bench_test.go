package keyword

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// goSourceFiles lists the files that ripgrep searches in its default mode
// under root: every regular file, except hidden files and those in hidden
// directories (root has no .gitignore that applies, not being a Git
// checkout). Binary files are listed: Search skips them itself, as ripgrep
// does.
func goSourceFiles(tb testing.TB, root string) []File {
	var files []File
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(root, path)
			files = append(files, File{Path: filepath.ToSlash(rel), Abs: path})
		}
		return nil
	})
	if err != nil {
		tb.Skipf("no Go source tree at %s: %v", root, err)
	}
	return files
}

// BenchmarkSearch searches the Go standard library's source, every file
// that `rg PATTERN $GOROOT/src` searches (see goSourceFiles), as the
// numbers in the package's report compare with ripgrep's.
func BenchmarkSearch(b *testing.B) {
	files := goSourceFiles(b, filepath.Join(runtimeGOROOT(), "src"))
	yes := true
	for _, bc := range []struct {
		name    string
		pattern string
		opts    Options
	}{
		{"literal/TODO", "TODO", Options{}},
		{"wholeword/ReadFull", "ReadFull", Options{WholeWord: true}},
		{"regex/ReaderRead", `func \(\w+ \*Reader\) Read`, Options{Regex: true}},
		{"ignorecase/readfull", "readfull", Options{IgnoreCase: &yes}},
		{"regex-prefilter/hex", `\b0[xX][0-9a-fA-F]{8,}\b`, Options{Regex: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var res *Result
			cpu := cpuTime()
			for b.Loop() {
				var err error
				if res, err = Search(context.Background(), files, bc.pattern, bc.opts); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time (user + system, all threads) tells more than the
			// wall time on a busy machine.
			if cpu := cpuTime() - cpu; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
			b.ReportMetric(float64(res.Total), "matches")
			b.ReportMetric(float64(res.FilesSearched), "files")
		})
	}
}

// BenchmarkWalk lists the files that BenchmarkSearch searches, the part of
// ripgrep's time that BenchmarkSearch leaves out.
func BenchmarkWalk(b *testing.B) {
	root := filepath.Join(runtimeGOROOT(), "src")
	for b.Loop() {
		goSourceFiles(b, root)
	}
}
