"""Turns liblogrep's public headers into cffi cdef input.

Pure Python and self-contained: no C compiler, no system preprocessor. The
headers are plain C11 declarations; what the cdef parser (pycparser) cannot
take is removed here, and nothing else:

 - comments (block and line), line continuations;
 - ``#include`` lines (dependencies between liblogrep headers are returned
   separately, see :func:`includes`);
 - conditional blocks, evaluated with no predefined macro: the include
   guards are kept open, ``#ifdef __cplusplus`` blocks and the visibility
   block that defines ``LOGREP_API`` fall away;
 - ``#define NAME <integer>`` lines are kept (cffi accepts them, and they
   may size arrays); a macro whose body is an integer expression over
   integer macros already seen is folded to its value; other macros
   (the include guards, ``LOGREP_API``) are dropped and listed;
 - the word ``LOGREP_API``.

Anything else the preprocessor would act on (``#undef``, ``#pragma``,
``#error``, a function-like macro, a macro used in a declaration) raises
:class:`HeaderError`: a header that needs it must be fixed, not silently
trimmed.
"""

import os
import re

__all__ = [
    "HeaderError",
    "Header",
    "load",
    "includes",
    "cdef_for",
    "header_names",
    "HEADERS",
]

#: Every public header, each after the headers it includes.
HEADERS = (
    "logrep.h",
    "logrep/storage.h",
    "logrep/log.h",
    "logrep/proto.h",
    "logrep/node.h",
    "logrep/inproc.h",
    "logrep/groups.h",
    "logrep/partition.h",
    "logrep/sim.h",
)

#: System headers the cdef needs nothing from: cffi knows their types.
SYSTEM_HEADERS = frozenset({"stddef.h", "stdint.h"})

#: Words removed from declarations.
STRIPPED_WORDS = ("LOGREP_API",)


class HeaderError(Exception):
    """A header construct this loader (or cffi) cannot take."""

    def __init__(self, path, line, message):
        self.path = path
        self.line = line
        super().__init__("%s:%s: %s" % (path, line, message))


class Header:
    """One header as loaded: cdef text, integer macros, dropped macros and
    the liblogrep headers it includes."""

    def __init__(self, name, path, cdef, constants, dropped, deps):
        self.name = name
        self.path = path
        self.cdef = cdef
        self.constants = constants
        self.dropped = dropped
        self.deps = deps

    def __repr__(self):
        return "<Header %s: %d constants, deps %s>" % (self.name, len(self.constants), self.deps)


def header_names():
    return list(HEADERS)


# ---------------------------------------------------------------- lexing

_STRING_OR_COMMENT = re.compile(
    r"""
      (?P<block>/\*.*?\*/)
    | (?P<line>//[^\n]*)
    | (?P<str>"(?:\\.|[^"\\\n])*")
    | (?P<chr>'(?:\\.|[^'\\\n])*')
    """,
    re.S | re.X,
)


def _strip_comments(text):
    """Removes comments, keeping string and character literals and line
    numbers (a block comment becomes as many newlines as it held)."""

    def repl(m):
        if m.group("block"):
            return " " + "\n" * m.group("block").count("\n")
        if m.group("line"):
            return ""
        return m.group(0)

    return _STRING_OR_COMMENT.sub(repl, text)


def _logical_lines(text):
    """Yields (first physical line number, logical line) after joining
    backslash continuations."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        start = i + 1
        cur = lines[i]
        while cur.endswith("\\") and i + 1 < len(lines):
            i += 1
            cur = cur[:-1] + " " + lines[i]
        yield start, cur
        i += 1


_DIRECTIVE = re.compile(r"^\s*#\s*(\w*)\s*(.*?)\s*$")
_INT_LITERAL = re.compile(r"^(?:0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*$")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*)|(?P<id>[A-Za-z_]\w*)"
    r"|(?P<op><<|>>|<=|>=|==|!=|&&|\|\||[-+*/%()<>!~&|^]))"
)


def _tokens(expr, path, line):
    pos = 0
    out = []
    expr = expr.strip()
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            raise HeaderError(path, line, "cannot evaluate %r" % expr)
        pos = m.end()
        if m.group("num"):
            out.append(("num", int(m.group("num").rstrip("uUlL"), 0)))
        elif m.group("id"):
            out.append(("id", m.group("id")))
        else:
            out.append(("op", m.group("op")))
    return out


_PY_OPS = {"&&": " and ", "||": " or ", "!": " not ", "/": "//"}


def _eval_int(tokens, values, path, line, *, undefined_is_zero):
    """Evaluates a C integer expression of numbers, known names and
    operators (and `defined`, which the caller has resolved). The tokens
    are checked, then evaluated by Python with no names in scope."""
    py = []
    for kind, v in tokens:
        if kind == "num":
            py.append(str(v))
        elif kind == "id":
            if v in values:
                py.append(str(values[v]))
            elif undefined_is_zero:
                py.append("0")
            else:
                raise HeaderError(path, line, "unknown name %s" % v)
        else:
            py.append(_PY_OPS.get(v, v))
    src = " ".join(py)
    try:
        val = eval(src, {"__builtins__": {}}, {})  # only numbers and operators
    except Exception as e:  # noqa: BLE001 - reported with the header's line
        raise HeaderError(path, line, "cannot evaluate %r: %s" % (src, e)) from None
    return int(val)


def _resolve_defined(tokens, defined):
    out = []
    i = 0
    while i < len(tokens):
        kind, v = tokens[i]
        if kind == "id" and v == "defined":
            if i + 3 < len(tokens) and tokens[i + 1] == ("op", "(") and tokens[i + 2][0] == "id":
                name = tokens[i + 2][1]
                i += 4  # defined ( NAME )
            else:
                name = tokens[i + 1][1]
                i += 2  # defined NAME
            out.append(("num", 1 if name in defined else 0))
            continue
        out.append((kind, v))
        i += 1
    return out


def _condition(expr, defined, ints, path, line):
    """The truth of an #if / #elif expression (undefined names are 0)."""
    toks = _resolve_defined(_tokens(expr, path, line), defined)
    return bool(_eval_int(toks, ints, path, line, undefined_is_zero=True))


# ---------------------------------------------------------------- loading

_INCLUDE = re.compile(r'^[<"]([^>"]+)[>"]$')


def load(name, include_dir):
    """Loads header `name` ("logrep.h", "logrep/node.h") from include_dir.
    Returns a :class:`Header`; raises HeaderError for a construct it
    cannot turn into cdef input."""
    path = os.path.join(include_dir, name)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return parse(text, name=name, path=path)


def parse(text, name="<header>", path="<header>"):
    text = _strip_comments(text)
    defined = {}  # name -> body (str), every macro seen
    ints = {}  # name -> int, integer macros
    dropped = []
    deps = []
    out = []
    # Conditional stack: (taking now, some branch already taken, parent taking).
    stack = []
    taking = True

    for lineno, line in _logical_lines(text):
        m = _DIRECTIVE.match(line)
        if not m:
            if taking:
                out.append(line)
            else:
                out.append("")
            continue
        out.append("")  # keep line numbers aligned for cffi's messages
        word, rest = m.group(1), m.group(2)

        if word in ("ifdef", "ifndef"):
            macro = rest.split()[0] if rest else ""
            cond = (macro in defined) == (word == "ifdef")
            stack.append((taking, cond))
            taking = taking and cond
            continue
        if word == "if":
            cond = _condition(rest, defined, ints, path, lineno)
            stack.append((taking, cond))
            taking = taking and cond
            continue
        if word in ("elif", "else"):
            if not stack:
                raise HeaderError(path, lineno, "#%s without #if" % word)
            parent, done = stack[-1]
            cond = not done and (word == "else" or _condition(rest, defined, ints, path, lineno))
            stack[-1] = (parent, done or cond)
            taking = parent and cond
            continue
        if word == "endif":
            if not stack:
                raise HeaderError(path, lineno, "#endif without #if")
            taking = stack.pop()[0]
            continue
        if not taking:
            continue

        if word == "include":
            inc = _INCLUDE.match(rest)
            if not inc:
                raise HeaderError(path, lineno, "cannot read #include %s" % rest)
            target = inc.group(1)
            if target in SYSTEM_HEADERS:
                continue
            if target not in HEADERS:
                raise HeaderError(path, lineno, "#include of %s, unknown to the loader" % target)
            deps.append(target)
            continue
        if word == "define":
            dm = re.match(r"([A-Za-z_]\w*)(\(?)\s*(.*)$", rest)
            if not dm:
                raise HeaderError(path, lineno, "cannot read #define %s" % rest)
            macro, paren, body = dm.group(1), dm.group(2), dm.group(3).strip()
            if paren:
                raise HeaderError(path, lineno, "function-like macro %s" % macro)
            defined[macro] = body
            if _INT_LITERAL.match(body):
                ints[macro] = int(body.rstrip("uUlL"), 0)
                out[-1] = "#define %s %s" % (macro, body)
                continue
            if body:
                try:
                    toks = _tokens(body, path, lineno)
                    if any(k == "id" and v not in ints for k, v in toks):
                        raise HeaderError(path, lineno, "not an integer expression")
                    ints[macro] = _eval_int(toks, ints, path, lineno, undefined_is_zero=False)
                    out[-1] = "#define %s %d" % (macro, ints[macro])
                    continue
                except HeaderError:
                    pass
            dropped.append(macro)
            continue
        raise HeaderError(path, lineno, "#%s is not supported" % word)

    if stack:
        raise HeaderError(path, "EOF", "unterminated conditional")

    cdef = "\n".join(out)
    for w in STRIPPED_WORDS:
        cdef = re.sub(r"\b%s\b" % w, "", cdef)
    # A macro left in a declaration would be an unknown identifier to cffi
    # (or silently mean something else): refuse it.
    body_macros = [mname for mname in defined if mname not in ints and mname not in STRIPPED_WORDS]
    for mname in body_macros:
        if re.search(r"\b%s\b" % re.escape(mname), _without_directives(cdef)):
            raise HeaderError(path, "?", "macro %s is used in a declaration" % mname)
    constants = {k: v for k, v in ints.items()}
    return Header(name, path, cdef, constants, dropped, deps)


def _without_directives(cdef):
    return "\n".join(line for line in cdef.split("\n") if not line.lstrip().startswith("#"))


def includes(name, include_dir):
    """The liblogrep headers `name` includes, directly."""
    return load(name, include_dir).deps


def closure(names, include_dir):
    """`names` and everything they include, each after its dependencies."""
    order = []
    seen = set()
    loaded = {}

    def visit(n, trail):
        if n in seen:
            return
        if n in trail:
            raise HeaderError(n, "?", "include cycle: %s" % " -> ".join(trail + [n]))
        h = loaded.get(n) or load(n, include_dir)
        loaded[n] = h
        for d in h.deps:
            visit(d, trail + [n])
        seen.add(n)
        order.append(h)

    for n in names:
        visit(n, [])
    return order


def cdef_for(names, include_dir):
    """cdef text of `names` with their dependencies, in include order."""
    parts = []
    for h in closure(names, include_dir):
        parts.append("/* ---- %s ---- */\n%s" % (h.name, h.cdef))
    return "\n".join(parts)
