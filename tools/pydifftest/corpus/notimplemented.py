# NotImplemented is a builtin: a binary special method returning it lets the other operand try,
# and TypeError follows when neither can.
class V:
    def __init__(self, v):
        self.v = v
    def __add__(self, other):
        if isinstance(other, V):
            return V(self.v + other.v)
        return NotImplemented
    def __eq__(self, other):
        if not isinstance(other, V):
            return NotImplemented
        return self.v == other.v
print((V(1) + V(2)).v, V(1) == V(1), V(1) == 1)
try:
    V(1) + 1
except TypeError as e:
    print('TypeError')
