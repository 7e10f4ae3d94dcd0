"""Greedy reducer for failing programs (stdlib only).

reduce(src, same) returns a smaller program for which same(program) still holds. Candidates, largest
cut first: drop one line; replace a call f(a, b, k=v) by one of its positional arguments; replace a
parenthesised (a op b) by one operand. The first candidate that keeps `same` is taken, and the search
starts again, until no candidate helps or the budget of checks is spent.
"""

OPS = (" ** ", " + ", " - ", " * ", " / ")


def spans(line):
    """(start, end, parts) for each bracketed span of `line`: a call (start at the callee's name)
    or a parenthesised expression; parts are its top-level pieces (positional arguments, or the
    operands of a top-level binary operator)."""
    out, stack, quote = [], [], None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([":
            stack.append((i, ch))
        elif ch in ")]" and stack:
            j, open_ch = stack.pop()
            if open_ch != "(":
                continue
            k = j
            while k > 0 and (line[k - 1].isalnum() or line[k - 1] in "_."):
                k -= 1
            inner = line[j + 1:i]
            if k < j:
                parts = [p for p in split_top(inner, ",") if "=" not in p.split("(")[0]]
            else:
                parts = []
                for op in OPS:
                    pieces = split_top(inner, op)
                    if len(pieces) > 1:
                        parts = pieces
                        break
            out.append((k, i + 1, [p.strip() for p in parts if p.strip()]))
    return out


def split_top(s, sep):
    """Splits s at occurrences of sep outside brackets and quotes."""
    parts, depth, quote, cur, i = [], 0, None, 0, 0
    while i < len(s):
        ch = s[i]
        if quote:
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
    for n, line in enumerate(lines):
        if line.strip() and not line.startswith("#"):
            cands.append("\n".join(lines[:n] + lines[n + 1:]))
    for n, line in enumerate(lines):
        if line.startswith("#"):
            continue
        for start, end, parts in sorted(spans(line), key=lambda s: s[0] - s[1]):
            for p in parts:
                new = line[:start] + p + line[end:]
                if new != line:
                    cands.append("\n".join(lines[:n] + [new] + lines[n + 1:]))
    return cands


def reduce(src, same, budget=600, log=None):
    checks = 0
    improved = True
    while improved and checks < budget:
        improved = False
        for cand in candidates(src):
            if len(cand) >= len(src):
                continue
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
    prog = "# mode: plain\nx = f(g(a, axis=0), h(b))\ny = (x + k(c))\nprint(y)\n"
    small = reduce(prog, lambda s: "h(b)" in s and "print(" in s)
    assert small == "# mode: plain\nx = h(b)\nprint(y)\n", small
    assert split_top("a, f(b, c), 'x,y'", ",") == ["a", " f(b, c)", " 'x,y'"]
    assert [p for _, _, p in spans("y = (a + tanh(b))")] == [["b"], ["a", "tanh(b)"]]


if __name__ == "__main__":
    self_test()
    print("shrink self-test ok")
