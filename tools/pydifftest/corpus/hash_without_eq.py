# A class defining __hash__ but not __eq__ compares by identity: instances with equal hashes are
# still distinct set members and dict keys.
class C:
    def __init__(self, v):
        self.v = v
    def __hash__(self):
        return self.v % 3
a, b = C(5), C(2)
print(len({a, b, C(5)}), {a: 1}.get(C(5), 'none'), a in {b}, a == C(5))
