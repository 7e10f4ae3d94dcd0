# (-inf) ** y for a fractional y is C pow's value, not an error (found by campaign seed 100474).
for y in [2.2250738585072014e-308, 0.5, -0.5, 1.5, 3.0]:
    print(float("-inf") ** y)
