"""Print (doc sentence, definition) pairs of Python packages for scripts/codevec.

Usage: python3 pypairs.py SOURCE PATH...  (package directories or module files)

Each output line is "SOURCE<TAB>doc<TAB>code" for every function and method
with a docstring under each DIR: doc is the docstring's first sentence;
code is the definition as the search sees it without its docstring: the
class and function names, the parameter names and the identifiers of the
body (names, attributes, called functions), in order, at most 200.
Tests, caches and vendored copies of other packages are skipped (SKIP);
the caller chooses DIRs that copy nothing of the evaluation roots.
"""
import ast
import os
import sys

SKIP = {"tests", "test", "testing", "_distutils", "importlib_metadata", "importlib_resources",
        "typing_extensions", "tomli", "zipp", "backports", "__pycache__", "_vendor", "vendor",
        "externals", "extern", "_backport", "compat", "six", "future", "past", "libfuturize",
        "libpasteurize", "mock", "unittest2", "lib2to3", "_pytest", "pytest", "sphinx", "flask",
        "astropy", "xarray", "seaborn", "pylint", "setuptools", "pkg_resources", "distutils"}

MAX_CODE = 200


def first_sentence(doc):
    doc = doc.strip().split("\n\n")[0]
    i = doc.find(". ")
    if i >= 0:
        doc = doc[:i]
    return " ".join(doc.split()).rstrip(".")


class Idents(ast.NodeVisitor):
    def __init__(self):
        self.out = []

    def visit_Name(self, node):
        self.out.append(node.id)

    def visit_Attribute(self, node):
        self.generic_visit(node)
        self.out.append(node.attr)

    def visit_arg(self, node):
        self.out.append(node.arg)

    def visit_FunctionDef(self, node):
        self.out.append(node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef


def body_without_doc(node):
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    return body


def pairs(tree):
    stack = [(tree, "")]
    while stack:
        node, cls = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                stack.append((child, child.name))
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(child)
                if child.name.startswith("test"):
                    continue
                if doc:
                    s = first_sentence(doc)
                    if len(s.split()) >= 3:
                        v = Idents()
                        for a in child.args.posonlyargs + child.args.args + child.args.kwonlyargs:
                            v.out.append(a.arg)
                        for st in body_without_doc(child):
                            v.visit(st)
                        words = [cls, child.name] if cls else [child.name]
                        words += v.out[:MAX_CODE]
                        yield s, " ".join(w for w in words if w)


def main():
    source = sys.argv[1]
    seen = set()
    for root in sys.argv[2:]:
        if os.path.isfile(root):
            walk = [(os.path.dirname(root), [], [os.path.basename(root)])]
        else:
            walk = os.walk(root)
        for dirpath, dirnames, filenames in walk:
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP)
            for fn in sorted(filenames):
                if not fn.endswith(".py") or fn.startswith("test_") or fn.endswith("_test.py") or fn == "conftest.py":
                    continue
                try:
                    with open(os.path.join(dirpath, fn), "rb") as f:
                        tree = ast.parse(f.read())
                except (SyntaxError, ValueError, OSError, RecursionError):
                    continue
                for doc, code in pairs(tree):
                    doc = doc.replace("\t", " ")
                    key = (doc, code.split(" ", 2)[:2].__str__())
                    if key in seen:
                        continue
                    seen.add(key)
                    print(f"{source}\t{doc}\t{code}")


if __name__ == "__main__":
    main()
