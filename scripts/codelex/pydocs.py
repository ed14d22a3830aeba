"""Print the documented definitions of Python packages for scripts/codelex.

Usage: python3 pydocs.py DIR...

Each output line is "package<TAB>name<TAB>docstring's first sentence" for
every function, method and class with a docstring under each DIR (one
package each), in a stable order. Tests, and copies of the standard
library that packages vendor (setuptools' _distutils, backports such as
importlib_metadata, typing_extensions and tomli), are left out by the
caller's exclusions (see main.go) and by SKIP below.
"""
import ast
import os
import sys

SKIP = {"tests", "test", "testing", "_distutils", "importlib_metadata", "importlib_resources",
        "typing_extensions", "tomli", "zipp", "backports", "__pycache__", "_vendor"}


def first_sentence(doc):
    doc = doc.strip().split("\n\n")[0]
    i = doc.find(". ")
    if i >= 0:
        doc = doc[:i]
    return " ".join(doc.split())


def main():
    for root in sys.argv[1:]:
        pkg = os.path.basename(root.rstrip("/"))
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP)
            for fn in sorted(filenames):
                if not fn.endswith(".py") or fn.startswith("test_"):
                    continue
                try:
                    with open(os.path.join(dirpath, fn), "rb") as f:
                        tree = ast.parse(f.read())
                except (SyntaxError, ValueError, OSError):
                    continue
                for node in ast.walk(tree):
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        doc = ast.get_docstring(node)
                        if doc:
                            s = first_sentence(doc)
                            if s:
                                print(f"{pkg}\t{node.name}\t{s}")


if __name__ == "__main__":
    main()
