// Package pack reads packs of objects, some stored as deltas of others.
package pack

import "errors"

// ErrDeltaChainTooDeep is returned for a delta chain deeper than maxDepth.
var ErrDeltaChainTooDeep = errors.New("pack: delta chain too deep")

const maxDepth = 50

// Object is one object of a pack.
type Object struct {
	Base  *Object
	Depth int
	Data  []byte
}

// checkDeltaChainDepth fails for an object whose delta chain is longer
// than maxDepth, so that a crafted pack cannot make resolution run away.
func checkDeltaChainDepth(o *Object) error {
	if o.Depth > maxDepth {
		return ErrDeltaChainTooDeep
	}
	return nil
}

// resolve applies the delta chain of o, from its base up.
func resolve(o *Object) ([]byte, error) {
	if err := checkDeltaChainDepth(o); err != nil {
		return nil, err
	}
	if o.Base == nil {
		return o.Data, nil
	}
	base, err := resolve(o.Base)
	if err != nil {
		return nil, err
	}
	// The delta's chain: the base's data, then the delta's.
	return append(append([]byte(nil), base...), o.Data...), nil
}

// deltaChain lists the objects of the chain of o, the delta first and the
// base last, whatever its depth.
func deltaChain(o *Object) []*Object {
	var chain []*Object
	for ; o != nil; o = o.Base {
		chain = append(chain, o)
	}
	return chain
}
