package analysis

import (
	"context"
	"fmt"
	"os"
	"testing"
)

func TestZZExp(t *testing.T) {
	langs := NewLanguages()
	src, _ := os.ReadFile(os.Getenv("ZZ"))
	lang, _ := langs.ForPath(os.Getenv("ZZ"))
	p := NewParser()
	tree, _ := p.Parse(context.Background(), lang, src, nil)
	if os.Getenv("TREE") != "" {
		fmt.Println(tree.RootNode().String())
	}
	h, _ := firstDamage(tree.RootNode(), src)
	fmt.Printf("hint %d %q\n", h, src[h:min(len(src), int(h)+20)])
	rec, err := p.recoverText(context.Background(), lang, src, tree, nil)
	if rec != nil {
		for _, c := range rec.cuts { fmt.Printf("cut %d-%d %q\n", c.start, c.end, src[c.start:c.end]) }
	}
	fmt.Println(rec != nil, err)
	g, _ := p.Extract(context.Background(), lang, "x", src)
	for _, s := range g.Symbols { fmt.Printf("%s %s %d-%d; ", s.Kind, s.QualifiedName, s.Range.Start.Line, s.Range.End.Line) }
}

func TestZZKids(t *testing.T) {
	langs := NewLanguages()
	src, _ := os.ReadFile(os.Getenv("ZZ"))
	lang, _ := langs.ForPath(os.Getenv("ZZ"))
	p := NewParser()
	tree, _ := p.Parse(context.Background(), lang, src, nil)
	r := tree.RootNode()
	fmt.Println(r.Type())
	for i := 0; i < int(r.ChildCount()); i++ {
		c := r.Child(i)
		fmt.Printf("%s named=%v err=%v miss=%v haserr=%v %d-%d %q\n", c.Type(), c.IsNamed(), c.IsError(), c.IsMissing(), c.HasError(), c.StartByte(), c.EndByte(), firstLine(string(src[c.StartByte():c.EndByte()])))
	}
}
