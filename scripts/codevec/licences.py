#!/usr/bin/env python3
"""Classifies the licence of every source of the codevec corpus.

    python3 scripts/codevec/licences.py CORPUS > scripts/codevec/licences.txt

CORPUS is the directory corpus.sh wrote (mod/, py/, npm/ and the pair
files). Each line of the output is "source<TAB>licence<TAB>kept|excluded".
Kept are permissive licences only (MIT, BSD, ISC, Apache-2.0, PSF,
Unlicense, CC0, zlib, public domain and the like); GPL, LGPL, AGPL, MPL,
EPL, CDDL, mixed and unknown or unclear licences are excluded. The train
command reads the list and trains on kept sources only.

Go modules: the LICENSE/COPYING files of the module's directory in the
module cache. Debian packages: the License fields of
usr/share/doc/PKG/copyright (the debian/* packaging stanza is ignored;
any copyleft licence of the upstream files excludes the package). npm
packages: package.json's "license". The python3 install's packages
("distpkgs", one source) include GPL and LGPL packages (apt, aptsources,
softwareproperties, cupshelpers, gi, lazr, wadllib) and are excluded.
"""
import json, os, re, sys, tarfile

COPYLEFT = [("MPL", r"\bMPL\b|Mozilla Public License"),
            ("EPL", r"\bEPL\b|Eclipse Public License"),
            ("CDDL", r"\bCDDL\b|Common Development and Distribution"),
            ("AGPL", r"\bAGPL|Affero General Public"),
            ("LGPL", r"\bLGPL|Lesser General Public|Library General Public"),
            ("GPL", r"\bGPL|GNU General Public"),
            ("CC-BY-SA", r"CC-BY-SA|ShareAlike"),
            ("OSL", r"\bOSL\b|Open Software License"),
            ("EUPL", r"\bEUPL\b")]
PERMISSIVE = [("Apache-2.0", r"Apache(-| )?(License,? )?(Version )?2|Apache-2|Apache License"),
              ("MIT", r"\bMIT\b|\bExpat\b|Permission is hereby granted, free of charge"),
              ("BSD", r"\bBSD\b|Redistribution and use in source and binary forms"),
              ("ISC", r"\bISC\b|Permission to use, copy, modify, and(/or)? distribute this software for any"),
              ("PSF", r"\bPSF|Python Software Foundation License|\bPython-2|\bPython\b"),
              ("Unlicense", r"Unlicense|This is free and unencumbered software"),
              ("CC0", r"\bCC0"),
              ("zlib", r"\bZlib\b|\bzlib/libpng|This software is provided 'as-is', without any express"),
              ("public-domain", r"public[- ]domain"),
              ("BlueOak", r"BlueOak"),
              ("0BSD", r"0BSD"),
              ("WTFPL", r"WTFPL"),
              ("HPND", r"\bHPND\b"),
              ("Unicode", r"Unicode-DFS|Unicode-3"),
              ("CC-BY", r"\bCC-BY-\d"),
              ("Zope", r"\bZPL\b|Zope Public License")]


def classify(texts):
    """Returns (licence, kept) of the licence texts or names of one source."""
    found, bad = [], []
    for t in texts:
        for name, rx in COPYLEFT:
            if re.search(rx, t, re.I if name not in ("MPL", "EPL", "OSL") else 0):
                bad.append(name)
                break
        else:
            for name, rx in PERMISSIVE:
                if re.search(rx, t):
                    found.append(name)
                    break
            else:
                bad.append("unknown")
    names = sorted(set(found + bad))
    if not names:
        return "unknown", False
    return "+".join(names), not bad


def go_licence(corpus, mod):
    base = os.path.join(corpus, "mod")
    parent, leaf = os.path.split(mod)
    d = os.path.join(base, parent)
    if not os.path.isdir(d):
        return "unknown", False
    vers = sorted(x for x in os.listdir(d) if x.startswith(leaf + "@"))
    if not vers:
        return "unknown", False
    root = os.path.join(d, vers[-1])
    texts = []
    for f in sorted(os.listdir(root)):
        if re.match(r"(?i)(un)?licen[sc]e|copying|copyright", f) and os.path.isfile(os.path.join(root, f)):
            with open(os.path.join(root, f), errors="replace") as fh:
                texts.append(fh.read())
    if not texts:
        return "unknown", False
    # One licence file can hold several texts (e.g. Apache-2.0 with a BSD
    # NOTICE); classify each file's head and, for copyleft, its whole text.
    return classify(texts)


def deb_licence(corpus, pkg):
    path = os.path.join(corpus, "py", pkg, "usr", "share", "doc", pkg, "copyright")
    try:
        with open(path, errors="replace") as fh:
            text = fh.read()
    except OSError:
        return "unknown", False
    if not text.startswith("Format:"):
        return classify([text])
    names = []
    for stanza in re.split(r"\n\s*\n", text):
        files = re.search(r"(?m)^Files:\s*(.*(?:\n[ \t].*)*)", stanza)
        lic = re.search(r"(?m)^License:\s*(.*)$", stanza)
        if not files or not lic:
            continue
        if all(f.startswith("debian/") for f in files.group(1).split()):
            continue
        names.append(lic.group(1).strip())
    if not names:
        return "unknown", False
    return classify(names)


def npm_licences(corpus):
    out = {}
    d = os.path.join(corpus, "npm")
    for f in sorted(os.listdir(d)):
        if not f.endswith(".tgz"):
            continue
        try:
            with tarfile.open(os.path.join(d, f)) as tf:
                m = next(m for m in tf.getmembers() if m.name.count("/") == 1 and m.name.endswith("/package.json"))
                pj = json.load(tf.extractfile(m))
        except (StopIteration, OSError, ValueError, tarfile.TarError):
            continue
        lic = pj.get("license") or pj.get("licenses")
        if isinstance(lic, dict):
            lic = lic.get("type")
        if isinstance(lic, list):
            lic = " OR ".join(str(x.get("type") if isinstance(x, dict) else x) for x in lic)
        name = pj.get("name", "")
        if not lic:
            out["npm:" + name] = ("unknown", False)
        elif re.search(r"\bOR\b", str(lic)) and classify_or(str(lic)):
            out["npm:" + name] = (str(lic), True)
        else:
            out["npm:" + name] = classify([str(lic)])
    return out


def classify_or(expr):
    """Reports whether an SPDX "A OR B" expression offers a permissive choice."""
    return any(classify([p.strip(" ()")])[1] for p in re.split(r"\bOR\b", expr))


def main():
    corpus = sys.argv[1] if len(sys.argv) > 1 else "/tmp/codevec-corpus"
    sources = {}
    for name in sorted(os.listdir(corpus)):
        if not name.endswith(".tsv") or "partial" in name or "snap" in name:
            continue
        kind = name
        with open(os.path.join(corpus, name), errors="replace") as fh:
            for line in fh:
                src = line.split("\t", 1)[0]
                sources.setdefault(src, kind)
    npm = npm_licences(corpus)
    for src in sorted(sources):
        if src == "distpkgs":
            lic, kept = "mixed (GPL/LGPL: apt, aptsources, softwareproperties, cupshelpers, gi, lazr, wadllib)", False
        elif src.startswith("npm:"):
            lic, kept = npm.get(src, ("unknown", False))
        elif sources[src].startswith("go"):
            lic, kept = go_licence(corpus, src)
        else:
            lic, kept = deb_licence(corpus, src)
        print(f"{src}\t{lic}\t{'kept' if kept else 'excluded'}")


if __name__ == "__main__":
    main()
