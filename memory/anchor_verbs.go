package memory

import (
	"strings"
	"sync"

	"github.com/anchorage-dev/anchorage/analysis"
)

// anchorVerbFamilies are the word forms of verbs that name what code does,
// one family a line; anchorVerbOpposites pairs the families whose
// definitions are neighbours that do the opposite or the other half of a
// job (Sign and Verify, Read and Write). A candidate whose own name holds
// one verb while the rule speaks of its opposite, and not of the verb
// itself, shows the other half: SigningMethodECDSA.Sign for a rule about
// verifying a signature.
const anchorVerbFamilies = `
read reads reading reader readers
write writes writing written wrote writer writers
sign signs signed signing signer
verify verifies verified verifying verification verifier
parse parses parsed parsing parser
format formats formatted formatting formatter
encode encodes encoded encoding encoder
decode decodes decoded decoding decoder
marshal marshals marshaled marshalled marshaling marshalling
unmarshal unmarshals unmarshaled unmarshalled unmarshaling unmarshalling
serialize serializes serialized serializing serialise serialises serialised serialising
deserialize deserializes deserialized deserializing deserialise deserialises deserialised deserialising
encrypt encrypts encrypted encrypting encryption
decrypt decrypts decrypted decrypting decryption
compress compresses compressed compressing compression
decompress decompresses decompressed decompressing decompression
open opens opened opening
close closes closed closing
lock locks locked locking
unlock unlocks unlocked unlocking
acquire acquires acquired acquiring
release releases released releasing
send sends sent sending sender
receive receives received receiving recv receiver
connect connects connected connecting
disconnect disconnects disconnected disconnecting
register registers registered registering registration
unregister unregisters unregistered unregistering
pause pauses paused pausing
resume resumes resumed resuming
enable enables enabled enabling
disable disables disabled disabling
pack packs packed packing
unpack unpacks unpacked unpacking
quote quotes quoted quoting
unquote unquotes unquoted unquoting
escape escapes escaped escaping
unescape unescapes unescaped unescaping
wrap wraps wrapped wrapping
unwrap unwraps unwrapped unwrapping
push pushes pushed pushing
pop pops popped popping
load loads loaded loading loader
dump dumps dumped dumping
subscribe subscribes subscribed subscribing
unsubscribe unsubscribes unsubscribed unsubscribing
mount mounts mounted mounting
unmount unmounts unmounted unmounting
attach attaches attached attaching
detach detaches detached detaching
import imports imported importing
export exports exported exporting
upload uploads uploaded uploading
download downloads downloaded downloading
`

// anchorVerbOpposites pairs the families of anchorVerbFamilies by their
// first words.
const anchorVerbOpposites = `
read write
sign verify
parse format
encode decode
marshal unmarshal
serialize deserialize
encrypt decrypt
compress decompress
open close
lock unlock
acquire release
send receive
connect disconnect
register unregister
pause resume
enable disable
pack unpack
quote unquote
escape unescape
wrap unwrap
push pop
load dump
subscribe unsubscribe
mount unmount
attach detach
import export
upload download
`

// anchorVerbs maps each word form of anchorVerbFamilies to its family
// (the family's first word) and each family to its opposites.
type anchorVerbs struct {
	family    map[string]string
	opposites map[string][]string
}

func newAnchorVerbs() anchorVerbs {
	v := anchorVerbs{family: map[string]string{}, opposites: map[string][]string{}}
	for _, line := range strings.Split(anchorVerbFamilies, "\n") {
		f := strings.Fields(line)
		for _, w := range f {
			v.family[w] = f[0]
		}
	}
	for _, line := range strings.Split(anchorVerbOpposites, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 {
			v.opposites[f[0]] = append(v.opposites[f[0]], f[1])
			v.opposites[f[1]] = append(v.opposites[f[1]], f[0])
		}
	}
	return v
}

// anchorVerbTable is built once, on first use, and only read.
var anchorVerbTable = sync.OnceValue(newAnchorVerbs)

// ruleVerbs returns the verb families that the words of a rule (all of
// them, the contrast clause included) speak of.
func ruleVerbs(words map[string]bool) map[string]bool {
	out := map[string]bool{}
	for w := range words {
		if f, ok := anchorVerbTable().family[w]; ok {
			out[f] = true
		}
	}
	return out
}

// opposite returns 1 when a symbol's own name holds a verb that the rule
// does not speak of while it speaks of that verb's opposite (Sign for "…
// fails verification", ReadFrameHeader for "… instead of writing a
// corrupt header"), else 0.
func (rq *anchorQuery) opposite(name string) float64 {
	if len(rq.verbs) == 0 {
		return 0
	}
	found := false
	analysis.CodeWords(name, func(w string, _, _ int, whole bool) error {
		if whole || found {
			return nil
		}
		f, ok := anchorVerbTable().family[w]
		if !ok || rq.verbs[f] {
			return nil
		}
		for _, o := range anchorVerbTable().opposites[f] {
			if rq.verbs[o] {
				found = true
			}
		}
		return nil
	})
	if found {
		return 1
	}
	return 0
}

// option returns 1 for an option's constructor or a setter (WithTimeFunc,
// SetInterrupt, set_debug) whose name, past its With or Set, holds none of
// the rule's terms: it configures a behaviour that other code carries
// out, and the rule is about something else. WithLeeway for a rule about
// the leeway, or a setter the rule names, is 0.
func (rq *anchorQuery) option(name string) float64 {
	var parts []string
	analysis.CodeWords(name, func(w string, _, _ int, whole bool) error {
		if !whole && len(w) >= 2 {
			parts = append(parts, w)
		}
		return nil
	})
	if len(parts) < 2 || parts[0] != "with" && parts[0] != "set" {
		return 0
	}
	if parts[0] == "with" && !strings.HasPrefix(name, "With") {
		return 0 // withLock: a helper that runs something, not an option
	}
	for _, p := range parts[1:] {
		s := analysis.Stem(p)
		for _, t := range rq.terms {
			if anchorFormMatches(t, s) {
				return 0
			}
		}
	}
	return 1
}
