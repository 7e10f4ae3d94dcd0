"""Greedy reducer for failing Python programs (stdlib only).

reduce(src, same) returns a smaller program for which same(program) still holds (`same` is
expected to reject programs that do not compile). Candidates, largest cut first: drop a whole
statement (a compound one with its body and its except/else/finally/elif clauses); replace a
compound statement by its first block, dedented (unwraps a try, an if, a loop); drop one line,
or make it `pass`; replace a call f(a, b, k=v) by one of its positional arguments; replace a
parenthesised (a op b) by one operand; drop one element of a list or tuple display. The first
candidate that keeps `same` is taken and the search starts again, until no candidate helps or
the budget of checks is spent.
"""

OPS = (" ** ", " + ", " - ", " * ", " / ", " // ", " % ", " and ", " or ", " == ", " < ")
CLAUSES = ("except", "else:", "finally:", "elif ")


def indent(line):
    return len(line) - len(line.lstrip(" "))


def extent(lines, n):
    """The index after the statement starting at line n: its indented body and, for try/if/for/
    while, the clauses that continue it at the same indentation."""
    ind = indent(lines[n])
    m = n + 1
    while m < len(lines):
        line = lines[m]
        if not line.strip() or indent(line) > ind:
            m += 1
        elif indent(line) == ind and line.strip().startswith(CLAUSES) and lines[n].rstrip().endswith(":"):
            m += 1
        else:
            break
    return m


def first_block(lines, n):
    """The body of the compound statement at n, up to its first clause, dedented one level."""
    ind = indent(lines[n])
    body = []
    for line in lines[n + 1:]:
        if line.strip() and indent(line) <= ind:
            break
        body.append(line[4:] if line.startswith(" " * (ind + 4)) else line)
    return body


def spans(line):
    """(start, end, parts) for each bracketed span of `line`: a call (start at the callee's
    name), a parenthesised expression, or a list display; parts are its top-level pieces."""
    out, stack, quote = [], [], None
    i = 0
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            stack.append((i, ch))
        elif ch in ")]}" and stack:
            j, open_ch = stack.pop()
            inner = line[j + 1:i]
            if open_ch == "(":
                k = j
                while k > 0 and (line[k - 1].isalnum() or line[k - 1] in "_."):
                    k -= 1
                if k < j:
                    parts = [p for p in split_top(inner, ",") if "=" not in p.split("(")[0]]
                    out.append((k, i + 1, [p.strip() for p in parts if p.strip()]))
                else:
                    for op in OPS:
                        pieces = split_top(inner, op)
                        if len(pieces) > 1:
                            out.append((j, i + 1, [p.strip() for p in pieces if p.strip()]))
                            break
                    items = split_top(inner, ",")
                    if len(items) > 1:  # a tuple: drop one element
                        for d in range(len(items)):
                            rest = ", ".join(p.strip() for x, p in enumerate(items) if x != d and p.strip())
                            out.append((j, i + 1, ["(%s%s)" % (rest, "," if "," not in rest else "")]))
            elif open_ch == "[":
                items = split_top(inner, ",")
                if len(items) > 1 and not (j > 0 and (line[j - 1].isalnum() or line[j - 1] in "_])")):
                    for d in range(len(items)):
                        out.append((j, i + 1, ["[%s]" % ", ".join(p.strip() for x, p in enumerate(items) if x != d)]))
        i += 1
    return out


def split_top(s, sep):
    """Splits s at occurrences of sep outside brackets and quotes."""
    parts, depth, quote, cur, i = [], 0, None, 0, 0
    while i < len(s):
        ch = s[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and s.startswith(sep, i):
            parts.append(s[cur:i])
            i += len(sep)
            cur = i
            continue
        i += 1
    parts.append(s[cur:])
    return parts


def candidates(src):
    lines = src.split("\n")
    cands = []
    # whole statements, largest first
    stmts = sorted(((extent(lines, n) - n, n) for n, l in enumerate(lines) if l.strip()), reverse=True)
    for size, n in stmts:
        cands.append("\n".join(lines[:n] + lines[n + size:]))
    # a compound statement replaced by its first block
    for size, n in stmts:
        if size > 1 and lines[n].rstrip().endswith(":"):
            cands.append("\n".join(lines[:n] + first_block(lines, n) + lines[n + size:]))
    # single lines: dropped, or made `pass`
    for n, line in enumerate(lines):
        if line.strip() and line.strip() != "pass":
            cands.append("\n".join(lines[:n] + [" " * indent(line) + "pass"] + lines[n + 1:]))
    # expressions
    for n, line in enumerate(lines):
        for start, end, parts in sorted(spans(line), key=lambda s: s[0] - s[1]):
            for p in parts:
                new = line[:start] + p + line[end:]
                if new != line:
                    cands.append("\n".join(lines[:n] + [new] + lines[n + 1:]))
    return cands


def reduce(src, same, budget=400, log=None):
    checks = 0
    improved = True
    seen = set()
    while improved and checks < budget:
        improved = False
        for cand in candidates(src):
            if len(cand) >= len(src) or cand in seen:
                continue
            seen.add(cand)
            checks += 1
            if same(cand):
                src = cand
                improved = True
                if log:
                    log(src)
                break
            if checks >= budget:
                break
    return src


def self_test():
    prog = ("print('== 1 x')\nlog = []\ntry:\n    print(f(g(a, 2), h(b)))\nexcept Exception as e:\n"
            "    print('!!', type(e).__name__, e)\nfor i in range(3):\n    log.append(i)\nprint([1, 2, 3])\n")

    def ok(s):
        try:
            compile(s, "<t>", "exec")
        except SyntaxError:
            return False
        return "h(b)" in s and "3]" in s

    small = reduce(prog, ok)
    assert small == "h(b)\n[3]\n", repr(small)
    assert split_top("a, f(b, c), 'x,y'", ",") == ["a", " f(b, c)", " 'x,y'"]
    assert extent("try:\n    a\nexcept E:\n    b\nfinally:\n    c\nd".split("\n"), 0) == 6
    assert extent("if x:\n    a\nelse:\n    b\nelse_thing".split("\n"), 0) == 4
    assert first_block("try:\n    a\n    if b:\n        c\nexcept E:\n    d".split("\n"), 0) == ["a", "if b:", "    c"]
    assert ["b"] in [p for _, _, p in spans("y = (a + tanh(b))")]


if __name__ == "__main__":
    self_test()
    print("shrink self-test ok")
